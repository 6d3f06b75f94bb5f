package oj

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/packs/oj/internal/format"
	"github.com/toolpack-go/toolpack/packs/oj/internal/wire"
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
	path := "/api/v1/daily?domain=" + domain + "&date=" + date
	r, err := c.get(ctx, path, pathForLog(path))
	if err != nil {
		return "", err
	}
	if r.status == 202 {
		if r.isJSON {
			if n, ok := wire.RetryAfter(r.body); ok {
				return fmt.Sprintf("The daily challenge is currently being fetched. Please retry after %d seconds.", n), nil
			}
		}
		return "The daily challenge is currently being fetched. Please retry later.", nil
	}
	p, err := decodeOK(c, r, "the daily challenge", wire.Problem)
	if err != nil {
		return "", err
	}
	if p.Source == "" {
		p.Source = "leetcode"
	}
	return c.problemPage(p), nil
}

// Problem fetches one problem by source and id and returns it as Markdown.
// Source and id must be non-empty after trimming, and neither may be "."
// or ".." (each is sent as one URL path segment). A 202 answer (the backend
// is still fetching the problem) is a *DomainError of type
// result.Unavailable whose Instruction says when to retry.
func (c *Client) Problem(ctx context.Context, a ProblemArgs) (string, error) {
	source, id := strings.TrimSpace(a.Source), strings.TrimSpace(a.ID)
	if source == "" || id == "" {
		return "", validationError("source and id must be non-empty")
	}
	src, err := segment("source", source)
	if err != nil {
		return "", err
	}
	pid, err := segment("id", id)
	if err != nil {
		return "", err
	}
	path := "/api/v1/problems/" + src + "/" + pid
	r, err := c.get(ctx, path, path)
	if err != nil {
		return "", err
	}
	p, err := decodeOK(c, r, "the problem", wire.Problem)
	if err != nil {
		return "", err
	}
	return c.problemPage(p), nil
}

// ResolveProblem resolves a URL, slug or prefixed ID to a problem and
// returns it as Markdown (from the answer's nested problem object). The
// query must be non-empty after trimming and is sent as given, as one URL
// path segment (so it may not be "." or ".."); it is never logged.
func (c *Client) ResolveProblem(ctx context.Context, a ResolveArgs) (string, error) {
	if strings.TrimSpace(a.Query) == "" {
		return "", validationError("query must be non-empty")
	}
	q, err := segment("query", a.Query)
	if err != nil {
		return "", err
	}
	r, err := c.get(ctx, "/api/v1/resolve/"+q, "/api/v1/resolve/…")
	if err != nil {
		return "", err
	}
	p, err := decodeOK(c, r, "the problem", wire.Resolve)
	if err != nil {
		return "", err
	}
	return c.problemPage(p), nil
}

// segment returns v percent-encoded as one URL path segment. "." and ".."
// are refused with a validation failure naming field: encoding keeps dots,
// and a dot segment would be resolved as "this" or "parent" path segment
// on the way to the backend instead of being a value.
func segment(field, v string) (string, error) {
	if wire.IsDotSegment(v) {
		return "", validationError(field + ` must not be "." or ".." (it is sent as a URL path segment, where dots alone mean "this" or "parent" directory)`)
	}
	return wire.EncodeComponent(v), nil
}

// problemPage renders a problem: the header template, the statement
// converted to Markdown, the whole capped at MaxOutputBytes. The text is
// the backend's data as is (cleaned only where it would break the
// template): it is never searched for the token.
func (c *Client) problemPage(p *format.Problem) string {
	return format.Truncate(format.RenderProblem(p, c.conv.Convert(p.Content)))
}

// decodeOK decodes the JSON body of a 200 answer with decode. A 202 is the
// not-ready failure (what names the thing being fetched), any other status
// the upstream failure (both *DomainError); a body that is not JSON or does
// not decode is a protocol failure wrapping ErrMalformedResponse.
func decodeOK[T any](c *Client, r *response, what string, decode func([]byte) (T, error)) (T, error) {
	var zero T
	switch r.status {
	case 200:
	case 202:
		return zero, c.notReady(r, what)
	default:
		return zero, c.upstreamFailure(r)
	}
	body, err := jsonBody(r)
	if err != nil {
		return zero, err
	}
	v, err := decode(body)
	if err != nil {
		return zero, fmt.Errorf("%w: %w", ErrMalformedResponse, c.safe(err))
	}
	return v, nil
}

// similarPath checks a's rules in the spec's order and returns the backend
// path and query of the search: first limit, then threshold, then the mode
// (a non-empty trimmed query selects mode B and must be 3..2000 characters;
// otherwise source and id are both required, mode A, and neither may be
// "." or ".."). A rule violation is a *DomainError of type
// validation_error.
func similarPath(a SimilarArgs) (string, error) {
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
		qs += "&source=" + wire.EncodeComponent(*a.SourceFilter)
	}
	if q := trimmed(a.Query); q != "" {
		if n := utf8.RuneCountInString(q); n < MinQueryChars || n > MaxQueryChars {
			return "", validationError("query must be between 3 and 2000 characters")
		}
		return "/api/v1/similar?q=" + wire.EncodeComponent(q) + "&" + qs, nil
	}
	source, id := trimmed(a.Source), trimmed(a.ID)
	if source == "" || id == "" {
		return "", validationError("either 'query' or both 'source' and 'id' must be provided")
	}
	src, err := segment("source", source)
	if err != nil {
		return "", err
	}
	pid, err := segment("id", id)
	if err != nil {
		return "", err
	}
	return "/api/v1/similar/" + src + "/" + pid + "?" + qs, nil
}

func trimmed(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// SimilarProblems searches for similar problems and returns a Markdown
// table. Arguments are checked in the specification's order, before any
// request: limit (1..50), threshold (0..1), then the mode — a non-empty
// trimmed query selects the text search and must be 3..2000 characters
// (an invalid query never falls back to the other mode); otherwise source
// and id are both required (not "." or "..": they are path segments).
func (c *Client) SimilarProblems(ctx context.Context, a SimilarArgs) (string, error) {
	path, err := similarPath(a)
	if err != nil {
		return "", err
	}
	r, err := c.get(ctx, path, pathForLog(path))
	if err != nil {
		return "", err
	}
	s, err := decodeOK(c, r, "the search result", wire.Similar)
	if err != nil {
		return "", err
	}
	return format.Truncate(format.RenderSimilar(s)), nil
}

// PlatformStatus returns the per-platform problem counts as a Markdown
// table. It needs a token: without one it fails before any request.
func (c *Client) PlatformStatus(ctx context.Context) (string, error) {
	if c.token == "" {
		return "", &DomainError{Type: result.PermissionDenied,
			Message: "authentication required: get_platform_status needs a bearer token, but none is configured (set the token / --token)"}
	}
	r, err := c.get(ctx, "/status", "/status")
	if err != nil {
		return "", err
	}
	s, err := decodeOK(c, r, "the platform status", wire.Status)
	if err != nil {
		return "", err
	}
	return format.Truncate(format.RenderStatus(s)), nil
}
