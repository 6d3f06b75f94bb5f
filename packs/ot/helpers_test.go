package ot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// logBuffer is a goroutine-safe buffer for a slog JSON handler.
type logBuffer struct{ testlog.Buffer }

// spans returns the records whose span attribute is name.
func (b *logBuffer) spans(t *testing.T, name string) []map[string]any {
	var out []map[string]any
	for _, r := range b.Records(t) {
		if r["span"] == name {
			out = append(out, r)
		}
	}
	return out
}

// fakeSnippets is a SnippetSource whose Expand replaces {{ name }} with
// the value (strings as they are, other values as JSON).
type fakeSnippets struct {
	list []ot.Snippet
}

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

func (f *fakeSnippets) Snippets() []ot.Snippet { return f.list }

func (f *fakeSnippets) Expand(name string, params map[string]any) (string, error) {
	for _, s := range f.list {
		if s.Name != name {
			continue
		}
		vals := map[string]any{}
		for _, p := range s.Params {
			if p.HasDefault {
				vals[p.Name] = p.Default
			}
		}
		for k, v := range params {
			vals[k] = v
		}
		var missing error
		out := placeholder.ReplaceAllStringFunc(s.Body, func(m string) string {
			k := placeholder.FindStringSubmatch(m)[1]
			v, ok := vals[k]
			if !ok {
				missing = fmt.Errorf("snippet %q: no value for %q", name, k)
				return m
			}
			if s, ok := v.(string); ok {
				return s
			}
			b, _ := json.Marshal(v)
			return string(b)
		})
		return out, missing
	}
	return "", fmt.Errorf("no snippet %q", name)
}

var seedSnippets = []ot.Snippet{
	{
		Name:        "brv_research",
		Description: "Search web and extract structured findings",
		Params: []ot.SnippetParam{
			{Name: "topic", Description: "Topic to research", Example: "Python"},
			{Name: "count", Description: "Number of sources", Default: 5, HasDefault: true},
		},
		Body: "results = brave.search(query=\"{{ topic }}\", count={{ count }})\nllm.transform(input=results, prompt=\"Extract key findings\")\n",
	},
	{
		Name:        "pkg_npm",
		Description: "Check the latest versions of npm packages",
		Params:      []ot.SnippetParam{{Name: "packages", Description: "Package names, space-separated"}},
		Body:        "pkgver.npm(packages=\"{{ packages }}\")\n",
	},
	{
		Name:        "b_q",
		Description: "Quick web search with three results",
		Params:      []ot.SnippetParam{{Name: "q", Description: "The query"}},
		Body:        "brave.search(query=\"{{ q }}\", count=3)\n",
	},
}

// fakeStats records the queries it answers.
type fakeStats struct {
	mu       sync.Mutex
	queries  []ot.StatsQuery
	report   ot.StatsReport
	err      error
	writeErr error
	refused  bool // writeErr is a refused path
	written  []string
	dir      string
}

func (f *fakeStats) Stats(_ context.Context, q ot.StatsQuery) (ot.StatsReport, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	if f.err != nil {
		return ot.StatsReport{}, f.err
	}
	rep := f.report
	if q.Tool != "" {
		rep.Tools = nil
		rep.TotalCalls = 0
		for _, t := range f.report.Tools {
			if t.Tool == q.Tool {
				rep.Tools = append(rep.Tools, t)
				rep.TotalCalls += t.Calls
			}
		}
	}
	if q.Output != "" {
		p := f.dir + "/" + q.Output
		if f.writeErr != nil {
			return ot.StatsReport{}, &ot.ReportError{Path: p, Err: f.writeErr, Refused: f.refused}
		}
		f.written = append(f.written, p)
		rep.HTMLReport = p
	}
	return rep, nil
}

// fakeResults serves stored outputs from memory: a handle's lines, paged
// and filtered as the results store does.
type fakeResults struct {
	mu      sync.Mutex
	stored  map[string][]string
	expired map[string]bool
	queries []ot.ResultQuery
}

func (f *fakeResults) Query(_ context.Context, q ot.ResultQuery) (ot.ResultPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	if f.expired[q.Handle] {
		return ot.ResultPage{}, fmt.Errorf("results: %q: %w", q.Handle, ot.ErrHandleExpired)
	}
	lines, ok := f.stored[q.Handle]
	if !ok {
		return ot.ResultPage{}, fmt.Errorf("results: %q: %w", q.Handle, ot.ErrHandleNotFound)
	}
	sel := lines
	if q.Fuzzy && len(q.Search) > 64 {
		return ot.ResultPage{}, &ot.QueryError{Field: "search", Msg: fmt.Sprintf("a fuzzy search must be at most 64 characters, got %d", len(q.Search))}
	}
	if q.Fuzzy && q.Offset > 10000 {
		return ot.ResultPage{}, fmt.Errorf("results: %w", &ot.QueryError{Field: "offset", Msg: fmt.Sprintf("offset must be <= 10000 with fuzzy=true, got %d", q.Offset)})
	}
	if q.Search == "(unnamed)" { // a store that names no argument
		return ot.ResultPage{}, fmt.Errorf("%w: the arguments do not go together", ot.ErrInvalidQuery)
	}
	if q.Search != "" {
		sel = nil
		if q.Fuzzy {
			// Fuzzy: lines containing every letter of the query in
			// order, shortest (closest) first.
			for _, l := range lines {
				if subsequence(strings.ToLower(q.Search), strings.ToLower(l)) {
					sel = append(sel, l)
				}
			}
			slicesSortByLen(sel)
		} else {
			re, err := regexp.Compile(q.Search)
			if err != nil {
				return ot.ResultPage{}, fmt.Errorf("%w: %w", ot.ErrInvalidSearch, err)
			}
			for _, l := range lines {
				if re.MatchString(l) {
					sel = append(sel, l)
				}
			}
		}
	}
	start := min(q.Offset-1, len(sel))
	end := min(start+q.Limit, len(sel))
	return ot.ResultPage{Lines: sel[start:end], TotalLines: len(lines), Offset: q.Offset, HasMore: end < len(sel)}, nil
}

func subsequence(q, s string) bool {
	i := 0
	for j := 0; j < len(s) && i < len(q); j++ {
		if s[j] == q[i] {
			i++
		}
	}
	return i == len(q)
}

func slicesSortByLen(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && len(s[j]) < len(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// SearchArgs are a local search tool's arguments.
type SearchArgs struct {
	Query string `json:"query" validate:"required,max=100" description:"The search query."`
	Count int    `json:"count" validate:"omitempty,min=1,max=20" default:"10" description:"Number of results."`
}

// FetchArgs are web.fetch's arguments.
type FetchArgs struct {
	URL string `json:"url" validate:"required,url" description:"The page to fetch."`
}

// TextArgs are a one-text tool's arguments.
type TextArgs struct {
	Text string `json:"text" validate:"max=100" description:"Some text."`
}

func echoText[A any](_ context.Context, _ A) (result.Result[string], error) {
	return result.Ok("ok"), nil
}

func rawHandler(context.Context, *registry.Call) (result.Result[any], error) {
	return result.Ok[any]("ok"), nil
}

const githubSearchSchema = `{"type":"object","properties":{"query":{"type":"string","description":"Search query"},"repo":{"type":"string","description":"Repository as owner/name"}},"required":["query"]}`

// fixture is a registry with local and proxied packs, aliases, and the
// ot pack with fakes behind every interface.
type fixture struct {
	reg      *registry.Registry
	logs     *logBuffer
	snippets *fakeSnippets
	stats    *fakeStats
	results  *fakeResults
	servers  []ot.ServerStatus
	topics   []ot.Topic
	instr    map[string]string
	reloads  int
	reload   func(context.Context) error
	now      time.Time
	cfg      ot.Config
	mu       sync.Mutex
}

// newFixture builds the fixture; mod may change the Config before New.
func newFixture(t testing.TB, mod ...func(*fixture, *ot.Config)) *fixture {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := &fixture{
		reg:      registry.New(registry.Options{Prefix: new(""), Logger: log}),
		logs:     logs,
		snippets: &fakeSnippets{list: seedSnippets},
		stats: &fakeStats{dir: "/reports", report: ot.StatsReport{
			TotalCalls: 10, SuccessRate: 90, ContextSaved: 20000, TimeSavedMS: 30000,
			Tools: []ot.ToolStat{
				{Tool: "brave.search", Calls: 6, SuccessRate: 100, AvgMS: 120.25, P95MS: 300},
				{Tool: "web.fetch", Calls: 4, SuccessRate: 75, AvgMS: 800, P95MS: 1250.5},
			},
		}},
		results: &fakeResults{stored: map[string][]string{}, expired: map[string]bool{"expired123": true}},
		servers: []ot.ServerStatus{{Name: "github", Connected: true}},
		instr:   map[string]string{"brave": "Prefer brave.search for news; cite the URLs."},
		now:     time.Date(2026, 3, 4, 5, 6, 7, 890, time.UTC),
	}
	f.reload = func(context.Context) error { f.mu.Lock(); f.reloads++; f.mu.Unlock(); return nil }
	require.NoError(t, f.addLocalPacks())
	require.NoError(t, f.reg.SetAliases(map[string]string{"ws": "brave.web_search", "alias_f": "demo.foo", "find": "brave.search"}))
	f.cfg = ot.Config{
		Registry:     f.reg,
		Version:      "1.0.0",
		Snippets:     f.snippets,
		Instructions: func() map[string]string { return f.instr },
		Servers:      func() []ot.ServerStatus { f.mu.Lock(); defer f.mu.Unlock(); return f.servers },
		Reload:       func(ctx context.Context) error { return f.reload(ctx) },
		Topics:       func() []ot.Topic { f.mu.Lock(); defer f.mu.Unlock(); return f.topics },
		Stats:        f.stats,
		Results:      f.results,
		Now:          func() time.Time { return f.now },
	}
	for _, m := range mod {
		m(f, &f.cfg)
	}
	p, err := ot.New(f.cfg)
	require.NoError(t, err)
	require.NoError(t, f.reg.AddPack(p))
	return f
}

func (f *fixture) addLocalPacks() error {
	brave := &registry.Pack{Name: "brave", Description: "Web search with the Brave Search API."}
	web := &registry.Pack{Name: "web", Description: "Fetch web pages and convert them to Markdown."}
	scaffold := &registry.Pack{Name: "scaffold", Description: "Create new projects from templates."}
	firecrawl := &registry.Pack{Name: "firecrawl", Description: "Crawl and scrape sites with Firecrawl."}
	demo := &registry.Pack{Name: "demo", Description: "Demonstration tools."}
	err := errors.Join(
		registry.AddFunc(brave, "brave.search", echoText[SearchArgs], registry.ToolOptions{Doc: "Search the web with Brave.", Example: `brave.search(query="golang generics")`}),
		registry.AddFunc(brave, "brave.web_search", echoText[SearchArgs], registry.ToolOptions{Doc: "Search web pages only."}),
		registry.AddFunc(web, "web.fetch", echoText[FetchArgs], registry.ToolOptions{Doc: "Fetch a page and return its main content as Markdown."}),
		registry.AddFunc(scaffold, "scaffold.create", echoText[TextArgs], registry.ToolOptions{Doc: "Create a project from a scaffold template."}),
		registry.AddFunc(firecrawl, "firecrawl.scrape", echoText[FetchArgs], registry.ToolOptions{Doc: "Scrape one page with Firecrawl."}),
		registry.AddFunc(demo, "demo.foo", echoText[TextArgs], registry.ToolOptions{Doc: "Return foo."}),
	)
	if err != nil {
		return err
	}
	github := &registry.Pack{Name: "github", Tools: []*registry.Tool{
		{
			Name: "github.search", Description: "Search code on GitHub.", Source: "proxy:github",
			InputSchema: json.RawMessage(githubSearchSchema),
			Usage: registry.Usage{
				Signature: "github.search(query: str, repo: str = '...')",
				Args:      "query: Search query\nrepo: Repository as owner/name",
				Returns:   "str",
			},
			Handler: rawHandler,
		},
		{
			// A proxied tool whose Usage the proxy did not fill: ot derives it.
			Name: "github.issues", Description: "List issues.", Source: "proxy:github",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"repo":{"type":"string","description":"Repository"},"state":{"type":"string","default":"open"},"limit":{"type":"integer","description":"Most issues"}},"required":["repo"]}`),
			Handler:     rawHandler,
		},
	}}
	for _, p := range []*registry.Pack{brave, web, scaffold, firecrawl, demo, github} {
		if err := f.reg.AddPack(p); err != nil {
			return err
		}
	}
	return nil
}

// call invokes a tool through the registry and returns its text result.
func (f *fixture) call(t testing.TB, name, args string) result.Result[string] {
	t.Helper()
	res, err := f.reg.Invoke(context.Background(), name, json.RawMessage(args))
	require.NoError(t, err, "%s(%s)", name, args)
	out, err := result.As[string](res)
	require.NoError(t, err)
	return out
}

// ok calls and requires success, returning the text.
func (f *fixture) ok(t testing.TB, name, args string) string {
	t.Helper()
	res := f.call(t, name, args)
	require.True(t, res.Success, "%s(%s): %s (%s)", name, args, res.Error, res.ErrorType)
	return res.Value
}

// parseList reads a YAML list of objects.
func parseList(t testing.TB, s string) []map[string]any {
	t.Helper()
	var v []map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(s), &v), "output is not a YAML list of objects:\n%s", s)
	return v
}

// parseMap reads a YAML object.
func parseMap(t testing.TB, s string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(s), &v), "output is not a YAML object:\n%s", s)
	return v
}

// parseStrings reads a YAML list of strings.
func parseStrings(t testing.TB, s string) []string {
	t.Helper()
	var v []string
	require.NoError(t, yaml.Unmarshal([]byte(s), &v), "output is not a YAML list of strings:\n%s", s)
	return v
}

func names(entries []map[string]any) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i], _ = e["name"].(string)
	}
	return out
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func yamlUnmarshal(s string, v any) error { return yaml.Unmarshal([]byte(s), v) }

func runtimeVersion() string { return strings.TrimPrefix(runtime.Version(), "go") }

func itoa(n int) string { return strconv.Itoa(n) }

// mustInvoke calls a tool without arguments and returns its text value.
func mustInvoke(t testing.TB, reg *registry.Registry, name string) string {
	t.Helper()
	res, err := reg.Invoke(context.Background(), name, nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	return res.Value.(string)
}
