package ot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// --- Runtime Statistics ---

func TestStats_GetAllTimeStats(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.stats", `{}`)
	assert.Equal(t, `period: all
total_calls: 10
success_rate: 90.0
context_saved: 20000
time_saved_ms: 30000
tools:
  - {tool: brave.search, calls: 6, success_rate: 100.0, avg_ms: 120.2, p95_ms: 300.0}
  - {tool: web.fetch, calls: 4, success_rate: 75.0, avg_ms: 800.0, p95_ms: 1250.5}
`, out)
	m := parseMap(t, out)
	assert.Equal(t, 10, m["total_calls"])
	assert.Equal(t, 90.0, m["success_rate"])
	assert.Len(t, m["tools"], 2)
	require.Len(t, f.stats.queries, 1)
	assert.Equal(t, ot.StatsQuery{Period: "all", Now: f.now}, f.stats.queries[0], "all: no start time")
}

func TestStats_FilterByPeriod(t *testing.T) {
	f := newFixture(t)
	for period, d := range map[string]time.Duration{"day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour} {
		f.stats.queries = nil
		m := parseMap(t, f.ok(t, "ot.stats", `{"period":"`+period+`"}`))
		assert.Equal(t, period, m["period"])
		require.Len(t, f.stats.queries, 1)
		assert.Equal(t, ot.StatsQuery{Period: period, Since: f.now.Add(-d), Now: f.now}, f.stats.queries[0], period)
	}
}

func TestStats_FilterByTool(t *testing.T) {
	f := newFixture(t)
	m := parseMap(t, f.ok(t, "ot.stats", `{"tool":"brave.search"}`))
	assert.Equal(t, "brave.search", m["tool"])
	assert.Equal(t, 6, m["total_calls"])
	assert.Equal(t, []any{map[string]any{"tool": "brave.search", "calls": 6, "success_rate": 100.0, "avg_ms": 120.2, "p95_ms": 300.0}}, m["tools"])
	assert.Equal(t, "brave.search", f.stats.queries[0].Tool)
}

// Calls made through an alias are recorded under the tool that ran, so a
// filter naming an alias is its tool's statistics.
func TestStats_FilterByAliasIsItsTool(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.reg.SetAliases(map[string]string{"find": "brave.search"}))
	m := parseMap(t, f.ok(t, "ot.stats", `{"tool":"find"}`))
	assert.Equal(t, "brave.search", m["tool"])
	require.Len(t, f.stats.queries, 1)
	assert.Equal(t, "brave.search", f.stats.queries[0].Tool)

	f.stats.queries = nil
	m = parseMap(t, f.ok(t, "ot.stats", `{"tool":"gone.tool"}`))
	assert.Equal(t, "gone.tool", m["tool"], "a name no tool has now is kept: its past calls are still recorded")
	assert.Equal(t, "gone.tool", f.stats.queries[0].Tool)
}

func TestStats_GenerateHTMLReport(t *testing.T) {
	f := newFixture(t)
	text := f.ok(t, "ot.stats", `{"output":"stats.html","period":"week"}`)
	m := parseMap(t, text)
	assert.Equal(t, "/reports/stats.html", m["html_report"])
	assert.Less(t, strings.Index(text, "html_report"), strings.Index(text, "tools:"),
		"before the per-tool list: with many tools the answer is stored, and its preview shows html_report")
	assert.Equal(t, []string{"/reports/stats.html"}, f.stats.written)
	assert.Equal(t, "stats.html", f.stats.queries[0].Output)
	assert.Equal(t, "week", f.stats.queries[0].Period)
	// Corrupt records and a read cap are said.
	f.stats.report.Skipped, f.stats.report.Truncated = 3, true
	m = parseMap(t, f.ok(t, "ot.stats", `{}`))
	assert.Equal(t, 3, m["skipped_records"])
	assert.Equal(t, true, m["truncated"])
	assert.NotContains(t, m, "html_report")
}

func TestStats_StatsDisabled(t *testing.T) {
	f := newFixture(t, func(_ *fixture, c *ot.Config) { c.Stats = nil })
	res := f.call(t, "ot.stats", `{}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Equal(t, "Error: Statistics collection is disabled. Enable it with stats: {enabled: true} in the configuration.", res.Error)

	// Switched off after a reload: the source says so.
	g := newFixture(t)
	g.stats.err = fmt.Errorf("stats: %w", ot.ErrDisabled)
	res = g.call(t, "ot.stats", `{}`)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Equal(t, "Error: Statistics collection is disabled. Enable it with stats: {enabled: true} in the configuration.", res.Error)

	// Any other failure of the source (its directory replaced by a file,
	// unreadable) is told to the model in words, the cause kept for the
	// log, not an internal error; a cancelled call stays a protocol one.
	g.stats.err = errors.New("disk on fire")
	got, err := g.reg.Invoke(t.Context(), "ot.stats", nil)
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, got.ErrorType)
	assert.Equal(t, "Error: the statistics could not be read; the cause is in the server log.", got.Error)
	assert.NotContains(t, got.Error, "disk on fire")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = g.reg.Invoke(ctx, "ot.stats", nil)
	require.Error(t, err)
}

func TestStats_HTMLWriteError(t *testing.T) {
	f := newFixture(t)
	f.stats.writeErr = errors.New("open /reports/report.html: permission denied")
	res := f.call(t, "ot.stats", `{"output":"report.html"}`)
	assert.False(t, res.Success)
	assert.Equal(t, ot.ErrTypeWrite, res.ErrorType)
	assert.Equal(t, "Error: Cannot write to '/reports/report.html': open /reports/report.html: permission denied", res.Error)
}

// A report path the source refuses (outside its reports directory) is the
// caller's mistake: the same text, as a validation_error.
func TestStats_RefusedReportPathIsAValidationError(t *testing.T) {
	f := newFixture(t)
	f.stats.writeErr, f.stats.refused = errors.New("path escapes the reports directory /reports"), true
	res := f.call(t, "ot.stats", `{"output":"../x.html"}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Equal(t, "Error: Cannot write to '/reports/../x.html': path escapes the reports directory /reports", res.Error)
}

func TestStats_InvalidPeriod(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.stats", `{"period":"invalid"}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Equal(t, "Error: Invalid period 'invalid'. Valid: day, week, month, all. Example: ot.stats(period='day')", res.Error)
	assert.Empty(t, f.stats.queries, "nothing asked of the store")
}

// Under a prefix, ot.stats's answer to an unknown period names ot.stats
// as it is called, as the pack's other messages do (the seed's text word
// for word otherwise: TestStats_InvalidPeriod); the period is echoed as
// given, an ot call in it left alone.
func TestStats_InvalidPeriodNamesTheToolAsCalledUnderAPrefix(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("guide")})
	p, err := ot.New(ot.Config{Registry: reg, Stats: &fakeStats{}})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	for period, want := range map[string]string{
		"invalid":       "Error: Invalid period 'invalid'. Valid: day, week, month, all. Example: guide_ot.stats(period='day')",
		"ot.tools(%s)x": "Error: Invalid period 'ot.tools(%s)x'. Valid: day, week, month, all. Example: guide_ot.stats(period='day')",
	} {
		res, err := reg.Invoke(t.Context(), "guide_ot.stats", json.RawMessage(`{"period":"`+period+`"}`))
		require.NoError(t, err)
		assert.False(t, res.Success)
		assert.Equal(t, result.ValidationError, res.ErrorType)
		assert.Equal(t, want, res.Error)
		assert.Equal(t, []args.FieldError{{Field: "period", Rule: "oneof", Message: want}}, res.ErrorData)
	}
}

// --- Query Stored Results ---

func storeLines(f *fixture, handle string, n int, line func(i int) string) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = line(i + 1)
	}
	f.results.stored[handle] = lines
	return lines
}

func pageOf(t *testing.T, out string) (lines []any, m map[string]any) {
	m = parseMap(t, out)
	lines, _ = m["lines"].([]any)
	return lines, m
}

func TestResult_BasicQueryWithDefaults(t *testing.T) {
	f := newFixture(t)
	storeLines(f, "abc123", 500, func(i int) string { return fmt.Sprintf("line %d", i) })
	lines, m := pageOf(t, f.ok(t, "ot.result", `{"handle":"abc123"}`))
	require.Len(t, lines, 100)
	assert.Equal(t, "line 1", lines[0])
	assert.Equal(t, "line 100", lines[99])
	assert.Equal(t, true, m["has_more"])
	assert.Equal(t, ot.ResultQuery{Handle: "abc123", Offset: 1, Limit: 100}, f.results.queries[0])
}

func TestResult_QueryWithOffsetAndLimit(t *testing.T) {
	f := newFixture(t)
	storeLines(f, "abc123", 500, func(i int) string { return fmt.Sprintf("line %d", i) })
	lines, m := pageOf(t, f.ok(t, "ot.result", `{"handle":"abc123","offset":101,"limit":50}`))
	require.Len(t, lines, 50)
	assert.Equal(t, "line 101", lines[0])
	assert.Equal(t, "line 150", lines[49])
	assert.Equal(t, 101, m["offset"])
	// The last page: has_more false.
	_, m = pageOf(t, f.ok(t, "ot.result", `{"handle":"abc123","offset":451,"limit":50}`))
	assert.Equal(t, false, m["has_more"])
}

func TestResult_QueryWithSearchFilter(t *testing.T) {
	f := newFixture(t)
	storeLines(f, "abc123", 300, func(i int) string {
		if i%3 == 0 {
			return fmt.Sprintf("%d error: failed", i)
		}
		return fmt.Sprintf("%d fine", i)
	})
	lines, m := pageOf(t, f.ok(t, "ot.result", `{"handle":"abc123","search":"error","offset":2,"limit":3}`))
	assert.Equal(t, []any{"6 error: failed", "9 error: failed", "12 error: failed"}, lines, "offset and limit apply to the matching lines")
	assert.Equal(t, 300, m["total_lines"])
	assert.Equal(t, "error", f.results.queries[0].Search)
	assert.False(t, f.results.queries[0].Fuzzy)

	// A bad regular expression is the caller's to fix.
	res := f.call(t, "ot.result", `{"handle":"abc123","search":"(unclosed"}`)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.True(t, strings.HasPrefix(res.Error, "Error: search is not a valid regular expression: error parsing regexp"), res.Error)
}

// A query the store refuses for another reason than the regular
// expression is the caller's to fix too, in the store's words: not
// announced as a bad regular expression.
func TestResult_OtherInvalidQueryInTheStoresWords(t *testing.T) {
	f := newFixture(t)
	f.results.stored["abc123"] = []string{"a", "b"}
	res := f.call(t, "ot.result", `{"handle":"abc123","search":"`+strings.Repeat("x", 70)+`","fuzzy":true}`)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Equal(t, "Error: a fuzzy search must be at most 64 characters, got 70", res.Error)
}

// A refusal of the store names the argument at fault in the error data
// (REST's details[].field) when the store names it (an ot.QueryError,
// wrapped or not): offset, search. MCP clients still read the store's
// words alone, word for word.
func TestResult_InvalidQueryNamesTheArgumentTheStoreNames(t *testing.T) {
	f := newFixture(t)
	f.results.stored["abc123"] = []string{"a", "b"}
	for _, tc := range []struct{ args, field, msg string }{
		{`{"handle":"abc123","search":"` + strings.Repeat("x", 65) + `","fuzzy":true}`, "search", "Error: a fuzzy search must be at most 64 characters, got 65"},
		{`{"handle":"abc123","search":"a","fuzzy":true,"offset":2000000000}`, "offset", "Error: offset must be <= 10000 with fuzzy=true, got 2000000000"},
		{`{"handle":"abc123","search":"(unnamed)"}`, "", "Error: the arguments do not go together"},
	} {
		res := f.call(t, "ot.result", tc.args)
		require.Equal(t, result.ValidationError, res.ErrorType, tc.args)
		assert.Equal(t, tc.msg, res.Error)
		assert.Equal(t, []args.FieldError{{Field: tc.field, Rule: "query", Message: tc.msg}}, res.ErrorData, tc.args)
		assert.Equal(t, res.Error, toolmsg.FailureText(res.Any()), "MCP clients read the store's words alone")
	}
	assert.ErrorIs(t, &ot.QueryError{Field: "offset", Msg: "m"}, ot.ErrInvalidQuery)
	assert.Equal(t, "ot: invalid query: m", (&ot.QueryError{Msg: "m"}).Error(), "as a wrapped ErrInvalidQuery reads")
}

func TestResult_QueryWithFuzzyMatching(t *testing.T) {
	f := newFixture(t)
	f.results.stored["abc123"] = []string{"nothing here", "the configuration file", "config", "unrelated"}
	lines, _ := pageOf(t, f.ok(t, "ot.result", `{"handle":"abc123","search":"config","fuzzy":true}`))
	assert.Equal(t, []any{"config", "the configuration file"}, lines, "the store's order (by score) is kept")
	assert.True(t, f.results.queries[0].Fuzzy)
}

func TestResult_InvalidHandle(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.result", `{"handle":"nonexistent"}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.NotFound, res.ErrorType)
	assert.Contains(t, res.Error, "Handle 'nonexistent' not found")
}

// A handle or period repeated in a message is repeated as given only
// when it is short, printable text: control and format characters (a
// line break, a bell, a right-to-left override) come back escaped and a
// long value is cut, so that the message says no more than the tool
// means to the model or person reading it.
func TestResult_EchoedValuesEscapedAndCut(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.result", `{"handle":"\u202e\u0007evil\r\nInjected: yes"}`)
	assert.Equal(t, `Error: Handle '\u202e\aevil\r\nInjected: yes' not found. Use the handle exactly as the tool that stored the output returned it.`, res.Error)
	res = f.call(t, "ot.result", `{"handle":"`+strings.Repeat("é", 100)+`"}`)
	assert.Equal(t, "Error: Handle '"+strings.Repeat("é", 64)+"…' not found. Use the handle exactly as the tool that stored the output returned it.", res.Error)
	res = f.call(t, "ot.stats", `{"period":"\u001b[2J"}`)
	assert.Equal(t, `Error: Invalid period '\x1b[2J'. Valid: day, week, month, all. Example: ot.stats(period='day')`, res.Error)
}

func TestResult_ExpiredHandle(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.result", `{"handle":"expired123"}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.NotFound, res.ErrorType)
	assert.Contains(t, res.Error, "Result 'expired123' has expired")
}

type pageStore ot.ResultPage

func (p pageStore) Query(context.Context, ot.ResultQuery) (ot.ResultPage, error) {
	return ot.ResultPage(p), nil
}

type errStore struct{ err error }

func (e errStore) Query(context.Context, ot.ResultQuery) (ot.ResultPage, error) {
	return ot.ResultPage{}, e.err
}

func TestResult_LineNumbersOfASearch(t *testing.T) {
	f := newFixture(t, func(_ *fixture, c *ot.Config) {
		c.Results = pageStore{Lines: []string{"error a", "error b"}, TotalLines: 90, Offset: 1, LineNumbers: []int{7, 42}}
	})
	m := parseMap(t, f.ok(t, "ot.result", `{"handle":"h","search":"error"}`))
	assert.Equal(t, []any{7, 42}, m["line_numbers"])
}

func TestResult_SearchTimeout(t *testing.T) {
	f := newFixture(t, func(_ *fixture, c *ot.Config) {
		c.Results = errStore{fmt.Errorf("results: %w", ot.ErrSearchTimeout)}
	})
	res := f.call(t, "ot.result", `{"handle":"h","search":"x.*y"}`)
	assert.Equal(t, result.Timeout, res.ErrorType)
	assert.Contains(t, res.Error, "ran out of time")
	// Any other failure of the store is a protocol failure.
	g := newFixture(t, func(_ *fixture, c *ot.Config) { c.Results = errStore{errors.New("disk gone")} })
	_, err := g.reg.Invoke(t.Context(), "ot.result", []byte(`{"handle":"h"}`))
	require.Error(t, err)
}

// A store that cannot be reached (a database that is down) is a failed
// Result of type unavailable saying to try again, for ot.result and
// ot.stats alike: not a protocol error, not "not found".
func TestStoreUnreachable_TryAgain(t *testing.T) {
	cause := errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")
	f := newFixture(t, func(_ *fixture, c *ot.Config) {
		c.Results = errStore{fmt.Errorf("results: %w: %w", ot.ErrUnavailable, cause)}
	})
	res := f.call(t, "ot.result", `{"handle":"abc123"}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Equal(t, "Error: the output store cannot be reached right now, so 'abc123' cannot be read; try again in a moment.", res.Error)

	g := newFixture(t)
	g.stats.err = fmt.Errorf("stats: %w: %w", ot.ErrUnavailable, cause)
	res = g.call(t, "ot.stats", `{}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Equal(t, "Error: the statistics store did not answer (it is away or busy, or the summary ran past its statement timeout); try again in a moment, or ask for a shorter period.", res.Error)
	assert.NotContains(t, res.Error, "5432", "the cause is logged, not shown")
}

func TestResult_QueryResponseFormat(t *testing.T) {
	f := newFixture(t)
	storeLines(f, "abc123", 3, func(i int) string { return fmt.Sprintf("line %d", i) })
	out := f.ok(t, "ot.result", `{"handle":"abc123","offset":2}`)
	assert.Equal(t, "lines: [line 2, line 3]\ntotal_lines: 3\nreturned: 2\noffset: 2\nhas_more: false\n", out)
	_, m := pageOf(t, out)
	assert.ElementsMatch(t, []string{"lines", "total_lines", "returned", "offset", "has_more"}, keys(m))
	// Lines that need quoting come back unchanged.
	f.results.stored["odd"] = []string{"key: value", "- item", "# not a comment", "", "  indented", `"quoted"`, "true", "null"}
	lines, _ := pageOf(t, f.ok(t, "ot.result", `{"handle":"odd"}`))
	assert.Equal(t, []any{"key: value", "- item", "# not a comment", "", "  indented", `"quoted"`, "true", "null"}, lines)
	// Past the end: no lines.
	out = f.ok(t, "ot.result", `{"handle":"abc123","offset":10}`)
	assert.Equal(t, "{lines: [], total_lines: 3, returned: 0, offset: 10, has_more: false}\n", out)
}

func TestResult_OneIndexedOffset(t *testing.T) {
	f := newFixture(t)
	storeLines(f, "abc123", 5, func(i int) string { return fmt.Sprintf("line %d", i) })
	lines, _ := pageOf(t, f.ok(t, "ot.result", `{"handle":"abc123","offset":1,"limit":1}`))
	assert.Equal(t, []any{"line 1"}, lines, "offset 1 is the first line")
}

func TestResult_OffsetValidation(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.result", `{"handle":"abc123","offset":0}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Equal(t, "offset must be >= 1 (1-indexed), got 0", res.Error)
	assert.Equal(t, "offset must be >= 1 (1-indexed), got -5", f.call(t, "ot.result", `{"handle":"abc123","offset":-5}`).Error)
	assert.Empty(t, f.results.queries)
}

// The pack's own validation failures (the seed's texts) list the argument
// in their error data, as the registry's do: REST sends it as details,
// which its OpenAPI document promises for every validation_error.
func TestValidationFailures_NameTheArgumentInTheirData(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ tool, args, field string }{
		{"ot.result", `{"handle":"abc123","offset":0}`, "offset"},
		{"ot.result", `{"handle":"abc123","limit":0}`, "limit"},
		{"ot.stats", `{"period":"fortnight"}`, "period"},
	} {
		res := f.call(t, tc.tool, tc.args)
		require.Equal(t, result.ValidationError, res.ErrorType, tc.args)
		fes, ok := res.ErrorData.([]args.FieldError)
		require.True(t, ok, "%T", res.ErrorData)
		require.Len(t, fes, 1)
		assert.Equal(t, tc.field, fes[0].Field)
		assert.Equal(t, res.Error, fes[0].Message, "the text is the seed's, in both places")
		assert.Equal(t, res.Error, toolmsg.FailureText(res.Any()), "MCP clients read the seed's text word for word")
	}
}

func TestResult_LimitValidation(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.result", `{"handle":"abc123","limit":0}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Equal(t, "limit must be >= 1, got 0", res.Error)
	// The upper bound is the schema's (maximum 10000), so a client that
	// checks arguments against it knows before calling.
	over := f.call(t, "ot.result", `{"handle":"abc123","limit":10001}`)
	assert.Equal(t, result.ValidationError, over.ErrorType)
	assert.Contains(t, over.Error, "limit: must be at most 10000")
	tool, ok := f.reg.Lookup("ot.result")
	require.True(t, ok)
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(tool.InputSchema, &schema))
	assert.EqualValues(t, ot.MaxResultLimit, schema.Properties["limit"]["maximum"])
	// offset's bounds are exact numbers a client can hold (32 bits: not the
	// 64-bit range, which a float rounds past itself).
	assert.EqualValues(t, 2147483647, schema.Properties["offset"]["maximum"])
	assert.EqualValues(t, -2147483648, schema.Properties["offset"]["minimum"])
	huge := f.call(t, "ot.result", `{"handle":"abc123","offset":3000000000}`)
	assert.Equal(t, result.ValidationError, huge.ErrorType)
	assert.Empty(t, f.results.queries)
}

func TestResult_NotConfigured(t *testing.T) {
	f := newFixture(t, func(_ *fixture, c *ot.Config) { c.Results = nil })
	res := f.call(t, "ot.result", `{"handle":"abc123"}`)
	assert.Equal(t, result.Unavailable, res.ErrorType)
}

// Seed 001: the span of ot.result includes handle, offset, limit and
// search (when provided). The tool declares exactly these as the
// arguments a tracing middleware may record (registry/telemetry puts
// them on the span); no other ot tool declares any.
func TestResult_SpanIncludesHandleOffsetLimitSearch(t *testing.T) {
	f := newFixture(t)
	for _, tool := range f.reg.List() {
		if tool.Pack != ot.PackName {
			continue
		}
		if tool.BaseName == ot.ToolResult {
			assert.Equal(t, []string{"handle", "offset", "limit", "search"}, tool.TraceArgs)
		} else {
			assert.Empty(t, tool.TraceArgs, tool.Name)
		}
	}
}
