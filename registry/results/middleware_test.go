package results_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/result"
)

// newRegistry returns a registry serving the example pack and a few test
// tools, with st's middleware installed.
func newRegistry(t *testing.T, st *results.Store, log *slog.Logger) *registry.Registry {
	t.Helper()
	if log == nil {
		log = quiet
	}
	r := registry.New(registry.Options{Prefix: new(""), Logger: log})
	p, err := example.New()
	require.NoError(t, err)
	require.NoError(t, r.AddPack(p))
	type sizeArgs struct {
		N int `json:"n" validate:"gte=0,lte=10000000"`
	}
	require.NoError(t, registry.AddFunc(r, "bytes", func(ctx context.Context, a sizeArgs) (result.Result[string], error) {
		return result.Ok(strings.Repeat("x", a.N)), nil
	}, registry.ToolOptions{}))
	require.NoError(t, registry.AddFunc(r, "records", func(ctx context.Context, a sizeArgs) (result.Result[any], error) {
		recs := make([]map[string]any, a.N)
		for i := range recs {
			recs[i] = map[string]any{"id": i + 1, "name": fmt.Sprintf("record %d", i+1)}
		}
		return result.Ok[any](map[string]any{"count": a.N, "records": recs, "source": "test"}), nil
	}, registry.ToolOptions{}))
	require.NoError(t, registry.AddFunc(r, "raw", func(ctx context.Context, a sizeArgs) (result.Result[json.RawMessage], error) {
		return result.Ok(json.RawMessage(`[` + strings.TrimSuffix(strings.Repeat(`1, `, a.N), ", ") + `]`)), nil
	}, registry.ToolOptions{}))
	require.NoError(t, registry.AddFunc(r, "ot.result", func(ctx context.Context, a sizeArgs) (result.Result[string], error) {
		return result.Ok(strings.Repeat("p", a.N)), nil
	}, registry.ToolOptions{}))
	require.NoError(t, registry.AddFunc(r, "fails", func(ctx context.Context, a sizeArgs) (result.Result[string], error) {
		return result.Failure[string](strings.Repeat("e", a.N), result.NotFound), nil
	}, registry.ToolOptions{}))
	r.Use(st.Middleware())
	return r
}

func call(t *testing.T, r *registry.Registry, name, raw string) result.Result[any] {
	t.Helper()
	res, err := r.Invoke(t.Context(), name, json.RawMessage(raw))
	require.NoError(t, err)
	return res
}

// A tool whose output is over max_inline_bytes returns the handle object
// through a real Registry (the example pack's lines tool); the query field
// reads on from where the preview stopped.
func TestMiddleware_LargeOutputReturnsHandle(t *testing.T) {
	st := openStore(t, results.Options{})
	r := newRegistry(t, st, nil)
	res := call(t, r, "lines", `{"count":20000}`)
	require.True(t, res.Success, res.Error)
	s, ok := res.Value.(results.Stored)
	require.True(t, ok, "%T", res.Value)
	assert.Equal(t, results.Instruction, res.Instruction)

	b, err := json.Marshal(res.Value)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(b, &obj))
	assert.ElementsMatch(t, []string{"handle", "total_lines", "size_bytes", "summary", "preview", "query"}, keys(obj))

	assert.Equal(t, 20000, s.TotalLines)
	assert.Equal(t, int64(len(fullLines(20000))), s.SizeBytes)
	assert.Equal(t, "text: 20,000 lines, 208,893 bytes", s.Summary)
	assert.Equal(t, numbered(10), s.Preview)
	assert.Equal(t, fmt.Sprintf(`ot.result(handle=%q, offset=11, limit=100)`, s.Handle), s.Query)

	p := query(t, st, results.Request{Handle: s.Handle, Offset: 19901, Limit: 100})
	assert.Equal(t, numbered(20000)[19900:], p.Lines)
	assert.False(t, p.HasMore)

	big := call(t, r, "lines", `{"count":1000000}`)
	require.True(t, big.Success)
	assert.Equal(t, 1_000_000, big.Value.(results.Stored).TotalLines, "example.MaxLines fits the default per-output cap")
	assert.Equal(t, int64(11_888_895), big.Value.(results.Stored).SizeBytes)
}

func fullLines(n int) string { return strings.Join(numbered(n), "\n") }

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Under the threshold, and at it exactly, the value passes unchanged; one
// byte over, it is stored.
func TestMiddleware_SmallOutputUnchanged(t *testing.T) {
	st := openStore(t, results.Options{MaxInlineBytes: 1000})
	r := newRegistry(t, st, nil)
	res := call(t, r, "lines", `{"count":10}`)
	assert.Equal(t, fullLines(10), res.Value)
	assert.Empty(t, res.Instruction)

	assert.Equal(t, strings.Repeat("x", 1000), call(t, r, "bytes", `{"n":1000}`).Value, "at the threshold: inline")
	over := call(t, r, "bytes", `{"n":1001}`).Value
	require.IsType(t, results.Stored{}, over, "one byte over: stored")
	assert.Equal(t, int64(1001), over.(results.Stored).SizeBytes)

	stats := call(t, r, "text_stats", `{"text":"a b"}`)
	assert.Equal(t, example.TextStats{Characters: 3, Words: 2, Lines: 1}, stats.Value, "a small structured value is unchanged")
	assert.Equal(t, map[string]any{"count": 2, "records": []map[string]any{{"id": 1, "name": "record 1"}, {"id": 2, "name": "record 2"}}, "source": "test"},
		call(t, r, "records", `{"n":2}`).Value)
}

// A structured value over the threshold (its JSON is measured) is stored
// as indented JSON, and the summary describes it.
func TestMiddleware_StructuredValueStoredIndented(t *testing.T) {
	st := openStore(t, results.Options{MaxInlineBytes: 1000})
	r := newRegistry(t, st, nil)
	res := call(t, r, "records", `{"n":100}`)
	s, ok := res.Value.(results.Stored)
	require.True(t, ok, "%T", res.Value)

	value := map[string]any{"count": 100, "source": "test"}
	var recs []map[string]any
	for i := 1; i <= 100; i++ {
		recs = append(recs, map[string]any{"id": i, "name": fmt.Sprintf("record %d", i)})
	}
	value["records"] = recs
	compact, err := json.Marshal(value)
	require.NoError(t, err)
	indented, err := json.MarshalIndent(value, "", "  ")
	require.NoError(t, err)

	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 10000})
	assert.Equal(t, string(indented), strings.Join(p.Lines, "\n"), "stored indented, two spaces a level")
	assert.Equal(t, fmt.Sprintf("JSON object with 3 keys (count, records, source), %s bytes as JSON; stored indented: %d lines, %s bytes",
		commas(len(compact)), p.TotalLines, commas(len(indented))), s.Summary)
	assert.Equal(t, []string{"{", `  "count": 100,`, `  "records": [`}, s.Preview[:3])

	raw := call(t, r, "raw", `{"n":400}`).Value.(results.Stored)
	assert.Equal(t, "JSON array of 400 items, 801 bytes as JSON; stored indented: 402 lines, 2,002 bytes", raw.Summary,
		"a json.RawMessage is measured as given and stored indented")
}

func commas(n int) string {
	s := fmt.Sprint(n)
	var b bytes.Buffer
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Failures, the query tool's own pages and skipped tools pass unchanged.
func TestMiddleware_SkipsFailuresQueryToolAndSkipped(t *testing.T) {
	st := openStore(t, results.Options{MaxInlineBytes: 100, Skip: func(t *registry.Tool) bool { return t.Name == "bytes" }})
	r := newRegistry(t, st, nil)
	f := call(t, r, "fails", `{"n":500}`)
	assert.False(t, f.Success)
	assert.Len(t, f.Error, 500)
	assert.Equal(t, strings.Repeat("p", 500), call(t, r, "ot.result", `{"n":500}`).Value, "ot.result pages are never stored")
	assert.Equal(t, strings.Repeat("x", 500), call(t, r, "bytes", `{"n":500}`).Value, "Options.Skip")
	assert.IsType(t, results.Stored{}, call(t, r, "lines", `{"count":100}`).Value)
}

// When the store cannot take an output, the value is returned inline and
// the failure is logged at ERROR with the tool's name — up to
// MaxUnstoredBytes; a larger one is an unavailable failure with a preview.
func TestMiddleware_StoreFailureReturnsInline(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	st, err := results.Open(t.Context(), results.Options{Dir: t.TempDir(), MaxInlineBytes: 100, Logger: quiet})
	require.NoError(t, err)
	r := newRegistry(t, st, log)
	require.NoError(t, st.Close())
	res := call(t, r, "lines", `{"count":100}`)
	assert.Equal(t, fullLines(100), res.Value)
	assert.Contains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "results: large output not stored, returned inline")
	assert.Contains(t, logs.String(), "tool=lines")
	assert.Contains(t, logs.String(), results.ErrClosed.Error())

	// Over MaxUnstoredBytes: not megabytes inline, but a failure of type
	// unavailable with the first lines (up to max_inline_bytes) and the size.
	logs.Reset()
	n := 1
	for len(fullLines(n)) <= results.MaxUnstoredBytes {
		n *= 2
	}
	big := call(t, r, "lines", fmt.Sprintf(`{"count":%d}`, n))
	assert.False(t, big.Success)
	assert.Equal(t, result.Unavailable, big.ErrorType)
	assert.Contains(t, big.Error, fmt.Sprintf("the output (%d bytes, %d lines) is too large to return whole", len(fullLines(n)), n))
	data := big.ErrorData.(map[string]any)
	preview := data["preview"].(string)
	assert.LessOrEqual(t, len(preview), 100)
	assert.True(t, strings.HasPrefix(fullLines(n), preview+"\n"), "whole first lines: %q", preview)
	assert.True(t, strings.HasSuffix(big.Error, "its first lines:\n"+preview), "the preview is in the text too (MCP clients shown the value see only the text)")
	assert.Equal(t, len(fullLines(n)), data["size_bytes"])
	assert.NotEmpty(t, big.Instruction)
	assert.Contains(t, logs.String(), "too large to return inline")
}

// A structured value is stored, previewed and measured as REST and MCP
// serve it: <, > and & as they are, not \u003c: a stored web page is found
// by "<title>", a URL by "a=1&b=2", and a value whose served JSON fits
// max_inline_bytes is returned inline however many of them it holds.
func TestMiddleware_JSONStoredWithoutHTMLEscapes(t *testing.T) {
	page := map[string]any{
		"url":  "https://example.com/search?a=1&b=2",
		"body": "<html><head><title>Example Domain</title></head><body>" + strings.Repeat("<p>x &amp; y</p>", 20) + "</body></html>",
	}
	served := func(v any, indent string) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", indent)
		require.NoError(t, enc.Encode(v))
		return strings.TrimSuffix(b.String(), "\n")
	}
	st := openStore(t, results.Options{MaxInlineBytes: 200})
	r := registry.New(registry.Options{Prefix: new(""), Logger: quiet})
	type valueArgs struct {
		N int `json:"n" validate:"gte=0,lte=10000000"`
	}
	require.NoError(t, registry.AddFunc(r, "fetch", func(ctx context.Context, _ valueArgs) (result.Result[any], error) {
		return result.Ok[any](page), nil
	}, registry.ToolOptions{}))
	require.NoError(t, registry.AddFunc(r, "angles", func(ctx context.Context, a valueArgs) (result.Result[any], error) {
		return result.Ok[any](map[string]any{"q": strings.Repeat("<", a.N)}), nil
	}, registry.ToolOptions{}))
	r.Use(st.Middleware())

	s, ok := call(t, r, "fetch", `{}`).Value.(results.Stored)
	require.True(t, ok)
	want := served(page, "  ")
	assert.Equal(t, int64(len(want)), s.SizeBytes, "measured unescaped")
	assert.Contains(t, s.Summary, commas(len(served(page, "")))+" bytes as JSON")
	assert.Contains(t, strings.Join(s.Preview, "\n"), "<title>Example Domain</title>")
	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 100})
	assert.Equal(t, want, strings.Join(p.Lines, "\n"), "stored unescaped")
	for _, search := range []string{"<title>", "a=1&b=2"} {
		found := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 100, Search: search})
		assert.Equal(t, 1, found.Returned, "search %q", search)
	}

	// {"q":"<<<…"}: 200 bytes as served, 1,160 with HTML escapes.
	assert.Equal(t, map[string]any{"q": strings.Repeat("<", 192)}, call(t, r, "angles", `{"n":192}`).Value,
		"at the threshold as served: inline")
	assert.IsType(t, results.Stored{}, call(t, r, "angles", `{"n":193}`).Value)

	// A store that cannot take the value: its size and first lines are
	// the served ones too.
	require.NoError(t, st.Close())
	n := results.MaxUnstoredBytes // n+8 bytes as served (6n+8 with HTML escapes)
	big := call(t, r, "angles", fmt.Sprintf(`{"n":%d}`, n))
	require.False(t, big.Success)
	data := big.ErrorData.(map[string]any)
	assert.Equal(t, n+8, data["size_bytes"])
	assert.True(t, strings.HasPrefix(data["preview"].(string), `{"q":"<<<`), "%.20s", data["preview"])
}
