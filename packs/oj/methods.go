package oj

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/result"
)

// Bounds of find_similar_problems arguments.
const (
	// DefaultLimit is the limit used when none is given.
	DefaultLimit = 10
	// MinLimit and MaxLimit bound limit.
	MinLimit, MaxLimit = 1, 50
	// MinQueryChars and MaxQueryChars bound the trimmed query, counted in
	// Unicode characters.
	MinQueryChars, MaxQueryChars = 3, 2000
)

// DailyArgs are the arguments of get_daily_challenge.
type DailyArgs struct {
	// Domain is "com" or "cn"; nil means "com".
	Domain *string `json:"domain,omitempty" validate:"omitempty,oneof=com cn" description:"LeetCode domain: 'com' (default, UTC+0) or 'cn' (UTC+8). Daily challenge switches at 00:00 in respective timezone"`
	// Date is YYYY-MM-DD; nil means today's date in UTC.
	Date *string `json:"date,omitempty" description:"Date in YYYY-MM-DD format (default: today's date in UTC)"`
}

// ProblemArgs are the arguments of get_problem.
type ProblemArgs struct {
	// Source is the platform; must be non-empty after trimming.
	Source string `json:"source" validate:"required" description:"Problem source: leetcode, codeforces, atcoder, or luogu"`
	// ID is the problem's identifier; must be non-empty after trimming.
	ID string `json:"id" validate:"required" description:"Problem ID on the platform. Examples: '1' or 'two-sum' (leetcode), '1A' (codeforces), 'abc001_1' (atcoder), 'P1001' (luogu)"`
}

// SimilarArgs are the arguments of find_similar_problems. Give either a
// query (mode B) or a source and an id (mode A); a non-empty query wins.
type SimilarArgs struct {
	// Source is the platform of the reference problem (mode A).
	Source *string `json:"source,omitempty" description:"Problem source: leetcode, codeforces, atcoder, or luogu (required for ID-based search)"`
	// ID is the reference problem's identifier (mode A).
	ID *string `json:"id,omitempty" description:"Problem ID on the platform, e.g. '1' (leetcode), '1A' (codeforces), 'abc001_1' (atcoder), 'P1001' (luogu). Required for ID-based search"`
	// Query is a free-text query (mode B), 3..2000 characters after
	// trimming.
	Query *string `json:"query,omitempty" description:"Text query for semantic search (3-2000 chars, takes priority over source+id)"`
	// Limit is 1..50; nil means DefaultLimit.
	Limit *int `json:"limit,omitempty" description:"Maximum results to return (1-50, default: 10)"`
	// Threshold is 0..1; nil means 0.
	Threshold *float64 `json:"threshold,omitempty" description:"Minimum similarity threshold (0.0-1.0, default: 0.0)"`
	// SourceFilter is a comma-separated platform list sent as the source
	// query parameter when non-nil.
	SourceFilter *string `json:"source_filter,omitempty" description:"Comma-separated platform filter (e.g. 'leetcode,codeforces,atcoder,luogu')"`
}

// ResolveArgs are the arguments of resolve_problem.
type ResolveArgs struct {
	// Query is a URL, slug or prefixed ID; must be non-empty after
	// trimming. It is sent as given.
	Query string `json:"query" validate:"required" description:"A problem URL, slug, or prefixed ID. Examples: 'https://leetcode.com/problems/two-sum', 'https://codeforces.com/problemset/problem/1/A', 'leetcode/two-sum', 'cf1A', 'P1001'"`
}

// StatusArgs are the (empty) arguments of get_platform_status.
type StatusArgs struct{}

// DailyChallenge fetches the LeetCode daily challenge and returns it as
// Markdown. A 202 answer (the backend is still fetching) is a success whose
// text asks to retry later. Argument rules and HTTP error statuses are
// *DomainError; other errors are protocol failures.
func (c *Client) DailyChallenge(ctx context.Context, a DailyArgs) (string, error) {
	domain := "com"
	if a.Domain != nil {
		if *a.Domain != "com" && *a.Domain != "cn" {
			return "", validationError(fmt.Sprintf("domain must be 'com' or 'cn', got %q", *a.Domain))
		}
		domain = *a.Domain
	}
	var date string
	if a.Date != nil {
		if _, err := time.Parse(time.DateOnly, *a.Date); err != nil {
			return "", validationError("invalid date format, expected YYYY-MM-DD")
		}
		date = *a.Date
	} else {
		date = c.now().UTC().Format(time.DateOnly)
	}
	r, err := c.get(ctx, "/api/v1/daily?domain="+domain+"&date="+date)
	if err != nil {
		return "", err
	}
	if r.status == 202 {
		if r.isJSON {
			var w wireFetching
			if unmarshal(r.body, &w) == nil && w.RetryAfter != nil {
				return fmt.Sprintf("The daily challenge is currently being fetched. Please retry after %d seconds.", *w.RetryAfter), nil
			}
		}
		return "The daily challenge is currently being fetched. Please retry later.", nil
	}
	p, err := decodeOK(c, r, DecodeProblem)
	if err != nil {
		return "", err
	}
	if p.Source == "" {
		p.Source = "leetcode"
	}
	return c.render(FormatProblem(c.conv, p)), nil
}

// Problem fetches one problem by source and id and returns it as Markdown.
func (c *Client) Problem(ctx context.Context, a ProblemArgs) (string, error) {
	source, id := strings.TrimSpace(a.Source), strings.TrimSpace(a.ID)
	if source == "" || id == "" {
		return "", validationError("source and id must be non-empty")
	}
	r, err := c.get(ctx, "/api/v1/problems/"+EncodeComponent(source)+"/"+EncodeComponent(id))
	if err != nil {
		return "", err
	}
	return c.problemMarkdown(r, DecodeProblem)
}

// ResolveProblem resolves a URL, slug or prefixed ID to a problem and
// returns it as Markdown (from the answer's nested problem object).
func (c *Client) ResolveProblem(ctx context.Context, a ResolveArgs) (string, error) {
	if strings.TrimSpace(a.Query) == "" {
		return "", validationError("query must be non-empty")
	}
	r, err := c.get(ctx, "/api/v1/resolve/"+EncodeComponent(a.Query))
	if err != nil {
		return "", err
	}
	return c.problemMarkdown(r, DecodeResolve)
}

func (c *Client) problemMarkdown(r *response, decode func([]byte) (*Problem, error)) (string, error) {
	p, err := decodeOK(c, r, decode)
	if err != nil {
		return "", err
	}
	return c.render(FormatProblem(c.conv, p)), nil
}

// decodeOK decodes the JSON body of a 200 answer with decode; any other
// status is the upstream failure (a *DomainError), and a body that is not
// JSON or does not decode is a protocol failure.
func decodeOK[T any](c *Client, r *response, decode func([]byte) (T, error)) (T, error) {
	if r.status != 200 {
		var zero T
		return zero, c.upstreamFailure(r)
	}
	body, err := jsonBody(r)
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(body)
}

// SimilarPath checks a's rules in the spec's order and returns the backend
// path and query of the search: first limit, then threshold, then the mode
// (a non-empty trimmed query selects mode B and must be 3..2000 characters;
// otherwise source and id are both required, mode A). A rule violation is a
// *DomainError of type validation_error.
func SimilarPath(a SimilarArgs) (string, error) {
	limit := DefaultLimit
	if a.Limit != nil {
		limit = *a.Limit
		if limit < MinLimit || limit > MaxLimit {
			return "", validationError("limit must be between 1 and 50")
		}
	}
	threshold := 0.0
	if a.Threshold != nil {
		threshold = *a.Threshold
		if !(threshold >= 0 && threshold <= 1) {
			return "", validationError("threshold must be between 0.0 and 1.0")
		}
	}
	qs := "limit=" + strconv.Itoa(limit) + "&threshold=" + strconv.FormatFloat(threshold, 'f', -1, 64)
	if a.SourceFilter != nil {
		qs += "&source=" + EncodeComponent(*a.SourceFilter)
	}
	if q := trimmed(a.Query); q != "" {
		if n := utf8.RuneCountInString(q); n < MinQueryChars || n > MaxQueryChars {
			return "", validationError("query must be between 3 and 2000 characters")
		}
		return "/api/v1/similar?q=" + EncodeComponent(q) + "&" + qs, nil
	}
	source, id := trimmed(a.Source), trimmed(a.ID)
	if source == "" || id == "" {
		return "", validationError("either 'query' or both 'source' and 'id' must be provided")
	}
	return "/api/v1/similar/" + EncodeComponent(source) + "/" + EncodeComponent(id) + "?" + qs, nil
}

func trimmed(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// SimilarProblems searches for similar problems (see SimilarPath for the
// argument rules) and returns a Markdown table.
func (c *Client) SimilarProblems(ctx context.Context, a SimilarArgs) (string, error) {
	path, err := SimilarPath(a)
	if err != nil {
		return "", err
	}
	r, err := c.get(ctx, path)
	if err != nil {
		return "", err
	}
	s, err := decodeOK(c, r, DecodeSimilar)
	if err != nil {
		return "", err
	}
	return c.render(FormatSimilar(s)), nil
}

// PlatformStatus returns the per-platform problem counts as a Markdown
// table. It needs a token: without one it fails before any request.
func (c *Client) PlatformStatus(ctx context.Context) (string, error) {
	if c.token == "" {
		return "", &DomainError{Type: result.PermissionDenied,
			Message: "authentication required: get_platform_status needs a bearer token, but none is configured (set the token / --token)"}
	}
	r, err := c.get(ctx, "/status")
	if err != nil {
		return "", err
	}
	s, err := decodeOK(c, r, DecodeStatus)
	if err != nil {
		return "", err
	}
	return c.render(FormatStatus(s)), nil
}
