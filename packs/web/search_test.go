package web_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/contracttest"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/packs/web"
	"github.com/toolpack-go/toolpack/result"
)

const gatewayKey = "sk-gateway-secret-123"

// gateway is a LiteLLM-style search gateway on 127.0.0.1.
type gateway struct {
	mu       sync.Mutex
	paths    []string
	auth     []string
	bodies   []map[string]any
	answer   func(w http.ResponseWriter, body map[string]any)
	requests int
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body)
	g.mu.Lock()
	g.requests++
	g.paths = append(g.paths, r.Method+" "+r.URL.Path)
	g.auth = append(g.auth, r.Header.Get("Authorization"))
	g.bodies = append(g.bodies, body)
	answer := g.answer
	g.mu.Unlock()
	if answer != nil {
		answer(w, body)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"object":"search","results":[
		{"title":" Go 1.26 released ","url":"https://go.dev/blog/go1.26","snippet":"The Go team announces…","date":"2026-02-10","last_updated":"2026-02-11","score":0.9},
		{"title":"No date","url":"https://example.com/a","snippet":"s"},
		{"title":"Empty date","url":"https://example.com/b","snippet":"s","date":""},
		{"title":"No url","snippet":"dropped"},
		{"title":"Content only","url":"https://example.com/c","content":"from content"}
	]}`))
}

func newSearch(t *testing.T, g *gateway, cfg web.SearchConfig, log *slog.Logger) *testRegistry {
	t.Helper()
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.AllowPrivate = srv.URL, true
	if cfg.SearchTool == "" {
		cfg.SearchTool = "tavily-search"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = gatewayKey
	}
	if log == nil {
		log = quiet
	}
	p, err := web.New(web.Config{Search: cfg, Logger: log})
	require.NoError(t, err)
	return newTestRegistry(t, p)
}

func searchOut(t *testing.T, r result.Result[any]) web.SearchOutput {
	t.Helper()
	require.True(t, r.Success, "%s: %s", r.ErrorType, r.Error)
	return r.Value.(web.SearchOutput)
}

// The query goes to POST {base}/v1/search/{tool} with the bearer key and
// {query, max_results}; the answer is mapped to the contract: unknown
// fields dropped, date null when absent or empty, hits without a URL
// skipped.
func TestSearch_GatewayRequestAndMapping(t *testing.T) {
	g := &gateway{}
	reg := newSearch(t, g, web.SearchConfig{}, nil)
	out := searchOut(t, invoke(t, reg.Registry, "search.web", map[string]any{"query": "go release", "max_results": 10}))
	require.Len(t, g.paths, 1)
	assert.Equal(t, "POST /v1/search/tavily-search", g.paths[0])
	assert.Equal(t, "Bearer "+gatewayKey, g.auth[0])
	assert.Equal(t, map[string]any{"query": "go release", "max_results": float64(10)}, g.bodies[0])

	date := "2026-02-10"
	assert.Equal(t, []web.SearchResult{
		{Title: "Go 1.26 released", URL: "https://go.dev/blog/go1.26", Snippet: "The Go team announces…", Date: &date},
		{Title: "No date", URL: "https://example.com/a", Snippet: "s"},
		{Title: "Empty date", URL: "https://example.com/b", Snippet: "s"},
		{Title: "Content only", URL: "https://example.com/c", Snippet: "from content"},
	}, out.Results)
	b, _ := json.Marshal(out)
	assert.NotContains(t, string(b), "last_updated")
	assert.NotContains(t, string(b), "score")
	assert.Contains(t, string(b), `"date":null`)

	// Without max_results the default is sent; an answer longer than
	// max_results is cut.
	_ = invoke(t, reg.Registry, "search.web", map[string]any{"query": "go"})
	assert.Equal(t, map[string]any{"query": "go", "max_results": float64(web.DefaultMaxResults)}, g.bodies[1])
	out = searchOut(t, invoke(t, reg.Registry, "search.web", map[string]any{"query": "go", "max_results": 2}))
	assert.Len(t, out.Results, 2)
}

// An empty or blank query is invalid_query before anything is sent; so
// is the gateway refusing the query (400, 422).
func TestSearch_InvalidQuery(t *testing.T) {
	g := &gateway{}
	reg := newSearch(t, g, web.SearchConfig{}, nil)
	for _, q := range []any{"", "   \n\t"} {
		r := invoke(t, reg.Registry, "search.web", map[string]any{"query": q})
		require.False(t, r.Success)
		assert.Equal(t, web.ErrInvalidQuery, r.ErrorType, "%q", q)
	}
	r := invoke(t, reg.Registry, "search.web", map[string]any{"query": "", "max_results": 99})
	assert.Equal(t, web.ErrInvalidQuery, r.ErrorType)
	assert.Contains(t, r.Error, "max_results", "every problem still listed")
	assert.Zero(t, g.requests, "nothing sent")

	for _, status := range []int{400, 404, 413, 422} {
		g.answer = func(w http.ResponseWriter, _ map[string]any) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"message":"query contains unsupported operators"}}`))
		}
		r = invoke(t, reg.Registry, "search.web", map[string]any{"query": "site:: bad"})
		assert.Equal(t, web.ErrInvalidQuery, r.ErrorType)
		assert.Contains(t, r.Error, "unsupported operators")
	}
}

// max_results out of 1–25, null, or not an integer is a validation
// failure naming it.
func TestSearch_MaxResultsChecked(t *testing.T) {
	g := &gateway{}
	reg := newSearch(t, g, web.SearchConfig{}, nil)
	for _, m := range []any{0, 26, -1, nil, "5", 2.5} {
		r := invoke(t, reg.Registry, "search.web", map[string]any{"query": "go", "max_results": m})
		require.False(t, r.Success, "%v", m)
		assert.Equal(t, result.ValidationError, r.ErrorType, "%v", m)
		assert.Contains(t, r.Error, "max_results", "%v", m)
	}
	assert.Zero(t, g.requests)
}

// Other gateway failures are upstream_failure; a slow gateway is
// timeout. The key never appears in a result or a log line.
func TestSearch_UpstreamFailureAndTimeout(t *testing.T) {
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter, _ map[string]any)
		typ    result.ErrorType
	}{
		{"500", func(w http.ResponseWriter, _ map[string]any) { http.Error(w, "boom "+gatewayKey, 500) }, web.ErrUpstream},
		{"401", func(w http.ResponseWriter, _ map[string]any) { http.Error(w, "bad key "+gatewayKey, 401) }, web.ErrUpstream},
		{"429", func(w http.ResponseWriter, _ map[string]any) { http.Error(w, "slow down", 429) }, web.ErrUpstream},
		{"504", func(w http.ResponseWriter, _ map[string]any) { http.Error(w, "gateway timeout", 504) }, web.ErrTimeout},
		{"not JSON", func(w http.ResponseWriter, _ map[string]any) { _, _ = w.Write([]byte("<html>")) }, web.ErrUpstream},
		{"no results", func(w http.ResponseWriter, _ map[string]any) { _, _ = w.Write([]byte(`{"data":[]}`)) }, web.ErrUpstream},
		{"slow", func(w http.ResponseWriter, _ map[string]any) { time.Sleep(2500 * time.Millisecond) }, web.ErrTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logs := &testlog.Buffer{}
			g := &gateway{answer: c.answer}
			// Long enough for the retries of a 5xx (100 ms, then 200 ms,
			// ±50 %) to end in upstream_failure, not in the deadline.
			reg := newSearch(t, g, web.SearchConfig{Timeout: 1500 * time.Millisecond}, slog.New(slog.NewTextHandler(logs, nil)))
			r := invoke(t, reg.Registry, "search.web", map[string]any{"query": "go"})
			require.False(t, r.Success)
			assert.Equal(t, c.typ, r.ErrorType)
			b, _ := json.Marshal(r)
			assert.NotContains(t, string(b), gatewayKey)
			assert.NotContains(t, logs.String(), gatewayKey)
		})
	}
}

// Every search.web error code is reached through MCP and HTTP.
func TestSearch_ErrorsThroughMCPAndHTTP(t *testing.T) {
	g := &gateway{}
	reg := newSearch(t, g, web.SearchConfig{Timeout: 300 * time.Millisecond}, nil)
	modes := []struct {
		answer func(w http.ResponseWriter, _ map[string]any)
		query  string
		typ    string
		status int
	}{
		{nil, "", "invalid_query", 400},
		{func(w http.ResponseWriter, _ map[string]any) { http.Error(w, "bad", 400) }, "x", "invalid_query", 400},
		{func(w http.ResponseWriter, _ map[string]any) { http.Error(w, "no such search", 501) }, "x", "upstream_failure", 502}, // not retried
		{func(w http.ResponseWriter, _ map[string]any) { time.Sleep(600 * time.Millisecond) }, "x", "timeout", 504},
	}
	var calls int
	contracttest.Codes(t, reg.Registry, "search.web", func(i int) (contracttest.Case, bool) {
		if i >= len(modes) {
			return contracttest.Case{}, false
		}
		g.mu.Lock()
		g.answer = modes[i].answer
		g.mu.Unlock()
		calls++
		return contracttest.Case{Args: map[string]any{"query": modes[i].query}, Type: modes[i].typ, Status: modes[i].status}, true
	})
	assert.Equal(t, len(modes), calls)
}

// A bad SearchConfig is an error naming the field, without the key.
func TestNew_BadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  web.Config
		want string
	}{
		{web.Config{Search: web.SearchConfig{BaseURL: "ftp://x", SearchTool: "s"}}, "Config.Search.BaseURL"},
		{web.Config{Search: web.SearchConfig{BaseURL: "http://u:" + gatewayKey + "@h/", SearchTool: "s"}}, "Config.Search.BaseURL"},
		{web.Config{Search: web.SearchConfig{BaseURL: "http://h/"}}, "Config.Search.SearchTool"},
		{web.Config{Search: web.SearchConfig{BaseURL: "http://h/", SearchTool: "a/b"}}, "Config.Search.SearchTool"},
		{web.Config{Search: web.SearchConfig{APIKey: gatewayKey}}, "Config.Search.BaseURL"},
		{web.Config{Fetch: web.FetchConfig{MaxBytes: -1}}, "Config.Fetch.MaxBytes"},
		{web.Config{Fetch: web.FetchConfig{Timeout: -1}}, "Config.Fetch.Timeout"},
	} {
		_, err := web.New(c.cfg)
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), c.want)
		assert.NotContains(t, err.Error(), gatewayKey)
	}
	p, err := web.New(web.Config{})
	require.NoError(t, err)
	require.Len(t, p.Tools, 1, "without a gateway the pack has web.fetch only")
	assert.Equal(t, "web.fetch", p.Tools[0].Name)
}

// A refused Config.Search.BaseURL is never quoted: its query, fragment,
// path or password may carry a key (the error reaches ot.reload's caller
// and the server's log).
func TestNew_BaseURLErrorQuotesNoSecret(t *testing.T) {
	const secret = "S3CR3T-url-value"
	for _, raw := range []string{
		"http://u:" + secret + "@127.0.0.1:45799/?key=" + secret,
		"http://u:p@127.0.0.1:45799/" + secret + "/?key=" + secret + "#" + secret,
		"ftp://127.0.0.1/" + secret + "?key=" + secret,
		"http:///?key=" + secret,
		"http://%zz/?key=" + secret,
	} {
		_, err := web.New(web.Config{Search: web.SearchConfig{BaseURL: raw, SearchTool: "s"}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Config.Search.BaseURL")
		assert.NotContains(t, err.Error(), secret)
		assert.NotContains(t, err.Error(), "key=")
	}
}

// Values of SearchConfig.Secrets (a token the host configuration's ${VAR}
// put in BaseURL's path or query) and the API key stay out of the pack's
// log and of the failure: netguard, which quotes the URL's path, redacts
// them; an API key shorter than netguard.MinSecretLen is not redacted
// inside words.
func TestSearch_URLSecretsNotLogged(t *testing.T) {
	const pw = "S3CR3T-path-token"
	for _, c := range []struct {
		cfg      web.SearchConfig
		redacted bool
	}{
		{web.SearchConfig{BaseURL: "http://127.0.0.1:45799/" + pw + "/v1?key=" + pw, APIKey: pw + "X", Secrets: []string{pw}, SearchTool: "s"}, true},
		{web.SearchConfig{BaseURL: "http://127.0.0.1:45799/", APIKey: "k", SearchTool: "s"}, false},
	} {
		var logs testlog.Buffer
		p, err := web.New(web.Config{Search: c.cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		require.NoError(t, err)
		r := invoke(t, newTestRegistry(t, p).Registry, "search.web", map[string]any{"query": "go"})
		require.False(t, r.Success)
		assert.Contains(t, logs.String(), "netguard: request blocked", "the refused loopback address is logged")
		assert.Equal(t, c.redacted, strings.Contains(logs.String(), "[REDACTED]"), logs.String())
		assert.NotContains(t, logs.String()+r.Error, pw)
	}
}
