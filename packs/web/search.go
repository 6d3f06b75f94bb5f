package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/toolpack-go/toolpack/netguard"
	"github.com/toolpack-go/toolpack/result"
)

// SearchConfig configures search.web (host configuration key
// search_web:): a LiteLLM-style search gateway.
type SearchConfig struct {
	// BaseURL is the gateway's base URL; requests go to
	// BaseURL + "/v1/search/" + SearchTool (BaseURL may already end in
	// /v1). http or https, without user information; it may carry a
	// query (?key=…). Errors never quote it. Empty leaves search.web out
	// of the pack.
	BaseURL string
	// APIKey is sent as a bearer token when set; never logged or shown.
	APIKey string
	// Secrets are more values kept out of the pack's logs and errors
	// (replaced by "[REDACTED]"), as well as APIKey: a token in BaseURL's
	// path or query, say (the host configuration gives the values its
	// ${VAR}s took: hostconfig.SearchWeb.Secrets). As with every secret
	// of netguard, values shorter than netguard.MinSecretLen bytes are
	// redacted only as whole words, not inside other words.
	Secrets []string
	// SearchTool is the gateway's search tool name (LiteLLM's
	// search_tool_name, for example "tavily-search"). Required with
	// BaseURL.
	SearchTool string
	// Timeout bounds one call; 0 means DefaultSearchTimeout.
	Timeout time.Duration
	// AllowPrivate lets BaseURL be a loopback or private address (a
	// gateway on the host or the LAN).
	AllowPrivate bool
}

// Defaults of SearchConfig.
const (
	DefaultSearchTimeout = 30 * time.Second
	// DefaultMaxResults is the max_results sent for a call without one
	// (the search API's usual default).
	DefaultMaxResults = 10
	// maxSearchAnswerBytes caps the gateway's answer read.
	maxSearchAnswerBytes = 4 << 20
	// maxQueryBytes caps the query sent.
	maxQueryBytes = 4 << 10
)

// SearchArgs are search.web's arguments.
type SearchArgs struct {
	Query      string `json:"query" validate:"required"`
	MaxResults *int   `json:"max_results" validate:"omitempty,gte=1,lte=25" nullable:"false"`
}

// SearchOutput is search.web's answer.
type SearchOutput struct {
	Results []SearchResult `json:"results" validate:"required"`
}

// SearchResult is one hit. Date is the page's date as the search
// provider gives it, null when it gives none.
type SearchResult struct {
	Title   string  `json:"title"`
	URL     string  `json:"url"`
	Snippet string  `json:"snippet"`
	Date    *string `json:"date" optional:"true"`
}

type searcher struct {
	cfg      SearchConfig
	endpoint string
	client   *netguard.Client
	pack     *pack
}

func newSearcher(p *pack, cfg SearchConfig) (*searcher, error) {
	u, err := netguard.ParseBaseURL(cfg.BaseURL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("web: Config.Search.BaseURL: %w", err)
	case strings.TrimSpace(cfg.SearchTool) == "" || strings.ContainsAny(cfg.SearchTool, "/?#"):
		return nil, fmt.Errorf("web: Config.Search.SearchTool: expected the gateway's search tool name (for example tavily-search), got %q", cfg.SearchTool)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("web: Config.Search.Timeout: expected a positive duration, got %s", cfg.Timeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultSearchTimeout
	}
	path := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(path, "/v1") {
		path += "/v1"
	}
	u.Path = path + "/search/" + cfg.SearchTool
	u.RawPath = ""
	s := &searcher{cfg: cfg, endpoint: u.String(), pack: p}
	s.client, err = netguard.New(netguard.Options{AllowedHosts: []string{u.Host}, AllowPrivate: cfg.AllowPrivate,
		Timeout: cfg.Timeout, MaxResponseBytes: maxSearchAnswerBytes, MaxRetries: 2, RetryNonIdempotent: true, RetryBaseWait: 100 * time.Millisecond,
		Secrets: append([]string{cfg.APIKey}, cfg.Secrets...)})
	if err != nil {
		return nil, fmt.Errorf("web: Config.Search: %w", err)
	}
	return s, nil
}

func (s *searcher) search(ctx context.Context, a SearchArgs) (result.Result[SearchOutput], error) {
	q := strings.TrimSpace(a.Query)
	switch {
	case q == "":
		return result.Failure[SearchOutput]("query: expected search terms, got only white space", ErrInvalidQuery), nil
	case len(q) > maxQueryBytes:
		return result.Failuref[SearchOutput](ErrInvalidQuery, "query: %d bytes; expected at most %d", len(q), maxQueryBytes), nil
	}
	limit := DefaultMaxResults
	if a.MaxResults != nil {
		limit = *a.MaxResults
	}
	body := map[string]any{"query": q, "max_results": limit}
	raw, err := json.Marshal(body)
	if err != nil {
		return result.Failuref[SearchOutput](ErrUpstream, "the search request could not be encoded: %v", err), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(raw))
	if err != nil {
		return result.Failuref[SearchOutput](ErrUpstream, "the search request could not be made: %v", err), nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if s.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.APIKey)
	}
	resp, err := s.client.Do(ctx, req)
	if err != nil {
		if timedOut(ctx, err) {
			return result.Failuref[SearchOutput](ErrTimeout, "the search gateway did not answer in time (the limit is %s)", s.cfg.Timeout), nil
		}
		s.pack.log.Warn("web: search gateway", "err", err)
		return result.Failure[SearchOutput]("the search gateway could not be reached", ErrUpstream), nil
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		if timedOut(ctx, err) {
			return result.Failuref[SearchOutput](ErrTimeout, "the search gateway did not answer in time (the limit is %s)", s.cfg.Timeout), nil
		}
		return result.Failure[SearchOutput]("the search gateway's answer could not be read", ErrUpstream), nil
	}
	switch c := resp.StatusCode; {
	case c == http.StatusGatewayTimeout || c == http.StatusRequestTimeout:
		return result.Failuref[SearchOutput](ErrTimeout, "the search gateway timed out (HTTP %d)", c), nil
	case c == http.StatusUnauthorized || c == http.StatusForbidden || c == http.StatusProxyAuthRequired || c == http.StatusTooManyRequests:
		// The gateway refused us (key, permissions, rate), not the query.
		s.pack.log.Warn("web: search gateway refused the request", "status", c)
		return result.Failuref[SearchOutput](ErrUpstream, "the search gateway refused the request (HTTP %d)", c), nil
	case c/100 == 4:
		return result.Failuref[SearchOutput](ErrInvalidQuery, "the search gateway refused the query (HTTP %d)%s", c, upstreamDetail(answer)).
			WithInstruction("Rephrase the query and search again."), nil
	case c/100 != 2:
		s.pack.log.Warn("web: search gateway answered an error", "status", c)
		return result.Failuref[SearchOutput](ErrUpstream, "the search gateway answered HTTP %d", c), nil
	}
	out, err := parseSearchAnswer(answer, limit)
	if err != nil {
		return result.Failuref[SearchOutput](ErrUpstream, "the search gateway's answer is not a search result: %v", err), nil
	}
	return result.Ok(out), nil
}

// timedOut reports whether a failed call ran out of time.
func timedOut(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)
}

// upstreamDetail quotes a short, printable part of an upstream error body
// (its "error" or "detail" message when it is JSON).
func upstreamDetail(b []byte) string {
	var e struct {
		Error  any `json:"error"`
		Detail any `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(b, &e) == nil {
		for _, v := range []any{e.Error, e.Detail} {
			switch x := v.(type) {
			case string:
				msg = x
			case map[string]any:
				if m, ok := x["message"].(string); ok {
					msg = m
				}
			}
			if msg != "" {
				break
			}
		}
	}
	msg = strings.Join(strings.Fields(strings.ToValidUTF8(msg, "�")), " ")
	if msg == "" {
		return ""
	}
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "…"
	}
	return ": " + msg
}

// parseSearchAnswer maps a gateway answer ({"results":[{title, url,
// snippet, date, …}]}, the Perplexity search shape LiteLLM follows) to the
// output: unknown fields dropped, a missing or empty date null, results
// without a URL skipped, at most limit results.
func parseSearchAnswer(b []byte, limit int) (SearchOutput, error) {
	var ans struct {
		Results *[]json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		return SearchOutput{}, fmt.Errorf("expected a JSON object with results: %w", err)
	}
	if ans.Results == nil {
		return SearchOutput{}, errors.New("expected a JSON object with results, got none")
	}
	out := SearchOutput{Results: []SearchResult{}}
	for _, raw := range *ans.Results {
		if len(out.Results) >= limit {
			break
		}
		var r map[string]any
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		hit := SearchResult{Title: text(r["title"]), URL: text(r["url"]), Snippet: text(r["snippet"])}
		if hit.URL == "" {
			continue
		}
		if hit.Snippet == "" {
			hit.Snippet = text(r["content"])
		}
		if d := text(r["date"]); d != "" {
			hit.Date = &d
		}
		out.Results = append(out.Results, hit)
	}
	return out, nil
}

// text is a JSON value as text: a string cleaned of invalid UTF-8 and
// surrounding space; anything else "".
func text(v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	return strings.TrimSpace(strings.ToValidUTF8(s, "�"))
}
