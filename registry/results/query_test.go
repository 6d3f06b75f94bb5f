package results_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/results"
)

// Seed 001 "Query Stored Results", scenario "Basic query with defaults":
// ot.result(handle) returns lines 1-100.
func TestResult_BasicQueryWithDefaults(t *testing.T) {
	st := openStore(t, results.Options{})
	s := put(t, st, numbered(500))
	p := query(t, st, defaults(s.Handle))
	assert.Equal(t, numbered(100), p.Lines)
	assert.Equal(t, 100, p.Returned)
	assert.Equal(t, 500, p.TotalLines)
	assert.Equal(t, 1, p.Offset)
	assert.True(t, p.HasMore)
}

// Seed 001 "Query with offset and limit": offset=101, limit=50 returns
// lines 101-150 of a 500-line result.
func TestResult_QueryWithOffsetAndLimit(t *testing.T) {
	st := openStore(t, results.Options{})
	s := put(t, st, numbered(500))
	p := query(t, st, results.Request{Handle: s.Handle, Offset: 101, Limit: 50})
	assert.Equal(t, numbered(150)[100:], p.Lines)
	assert.Equal(t, "line 101", p.Lines[0])
	assert.Equal(t, "line 150", p.Lines[49])
	assert.Equal(t, 50, p.Returned)
	assert.Equal(t, 101, p.Offset)
	assert.True(t, p.HasMore)

	last := query(t, st, results.Request{Handle: s.Handle, Offset: 451, Limit: 50})
	assert.Equal(t, "line 500", last.Lines[49])
	assert.False(t, last.HasMore, "the last page has no more")
}

// Seed 001 "Query with search filter": only lines matching the regular
// expression, with offset and limit applied to the matches.
func TestResult_QueryWithSearchFilter(t *testing.T) {
	st := openStore(t, results.Options{})
	var lines []string
	for i := 1; i <= 300; i++ {
		if i%3 == 0 {
			lines = append(lines, fmt.Sprintf("%d: error: disk %d failed", i, i))
		} else {
			lines = append(lines, fmt.Sprintf("%d: ok", i))
		}
	}
	s := put(t, st, lines)

	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 100, Search: "error"})
	assert.Equal(t, 100, p.Returned)
	assert.Equal(t, 300, p.TotalLines, "total_lines counts the stored lines")
	for _, l := range p.Lines {
		assert.Contains(t, l, "error")
	}
	assert.Equal(t, "3: error: disk 3 failed", p.Lines[0])
	assert.Equal(t, 3, p.LineNumbers[0])
	assert.False(t, p.HasMore, "exactly 100 lines match")

	p = query(t, st, results.Request{Handle: s.Handle, Offset: 11, Limit: 5, Search: `error: disk \d+ failed$`})
	assert.Equal(t, []string{"33: error: disk 33 failed", "36: error: disk 36 failed", "39: error: disk 39 failed",
		"42: error: disk 42 failed", "45: error: disk 45 failed"}, p.Lines, "offset and limit count matches")
	assert.Equal(t, []int{33, 36, 39, 42, 45}, p.LineNumbers)
	assert.True(t, p.HasMore)

	p = query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "^nothing$"})
	assert.Empty(t, p.Lines)
	assert.NotNil(t, p.Lines, "an empty page is an empty list, not null")
	assert.False(t, p.HasMore)
}

// Seed 001 "Query with fuzzy matching": search="config", fuzzy=true finds
// lines with "configuration" and near misses, sorted by match score.
func TestResult_QueryWithFuzzyMatching(t *testing.T) {
	st := openStore(t, results.Options{})
	lines := []string{
		"starting up",                    // 1: no
		"loaded cofnig from disk",        // 2: a swap away (score 1 - 1/6)
		"CONFIGURATION: /etc/app.yaml",   // 3: holds it, any case (1)
		"unrelated line",                 // 4: no
		"conf reloaded",                  // 5: two edits away: too far for 6 characters
		"the configuration is valid",     // 6: holds it (1)
		"confg missing",                  // 7: one edit (1 - 1/6)
		"something about configurations", // 8: holds it (1)
		"Config",                         // 9: is it
	}
	s := put(t, st, lines)
	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 100, Search: "config", Fuzzy: true})
	assert.Equal(t, []int{9, 6, 3, 8, 7, 2}, p.LineNumbers,
		"fewest edits first; as many edits away, the line the text covers more of (the shorter) first")
	assert.Equal(t, []string{lines[8], lines[5], lines[2], lines[7], lines[6], lines[1]}, p.Lines)
	assert.False(t, p.HasMore)

	p = query(t, st, results.Request{Handle: s.Handle, Offset: 2, Limit: 2, Search: "config", Fuzzy: true})
	assert.Equal(t, []int{6, 3}, p.LineNumbers, "offset and limit apply to the sorted matches")
	assert.True(t, p.HasMore)

	p = query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "zzzzzzzz", Fuzzy: true})
	assert.Empty(t, p.Lines)
	assert.False(t, p.HasMore)
}

// A custom scorer (Options.Fuzzy) replaces the built-in one.
func TestResult_FuzzyScorerHook(t *testing.T) {
	st := openStore(t, results.Options{Fuzzy: func(q, line string) (float64, bool) {
		return float64(len(line)), strings.HasPrefix(line, q)
	}})
	s := put(t, st, []string{"ab", "abcd", "x", "abc"})
	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "ab", Fuzzy: true})
	assert.Equal(t, []string{"abcd", "abc", "ab"}, p.Lines)
}

// Seed 001 "Invalid handle": a handle that does not exist is a not-found
// failure saying so; a handle shaped like a path is never used as one.
func TestResult_InvalidHandle(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, results.Options{Dir: filepath.Join(dir, "store")})
	outside := filepath.Join(dir, "secret.idx")
	require.NoError(t, os.WriteFile(outside, []byte("x"), 0o600))

	for _, h := range []string{"nonexistent", "", "../secret", "../../etc/passwd", strings.Repeat("a", 32) + "/..",
		"0123456789ABCDEF0123456789abcdef", strings.Repeat("0", 31), strings.Repeat("f", 33), "..", "/etc/passwd",
		strings.Repeat("0", 30) + "\x00a"} {
		_, err := st.Query(t.Context(), defaults(h))
		require.Error(t, err, "%q", h)
		assert.ErrorIs(t, err, results.ErrNotFound, "%q", h)
		var e *results.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "handle", e.Field)
		assert.Contains(t, err.Error(), "no stored result with handle", "%q", h)
	}
	_, err := st.Query(t.Context(), defaults("nonexistent"))
	assert.Equal(t, `no stored result with handle "nonexistent"; a handle is the 32 hexadecimal characters of the handle field of a stored result; call the tool again to get a new one`, err.Error())

	_, err = st.Query(t.Context(), defaults(strings.Repeat("x", 10000)))
	assert.Equal(t, `no stored result with handle "`+strings.Repeat("x", 64)+`…"; a handle is the 32 hexadecimal characters of the handle field of a stored result; call the tool again to get a new one`,
		err.Error(), "a long handle is quoted in part")

	_, err = st.Query(t.Context(), defaults(strings.Repeat("ab", 16)))
	assert.ErrorIs(t, err, results.ErrNotFound, "a well-formed handle never stored")
	assert.NotErrorIs(t, err, results.ErrExpired)
}

// Seed 001 "Expired handle": a result past its TTL is reported expired,
// distinctly from not found — when the query finds it, after the sweep
// removed it, and after a restart.
func TestResult_ExpiredHandle(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	st := openStore(t, results.Options{Dir: dir, TTL: time.Hour, Now: clk.Now})
	a := put(t, st, numbered(10))
	clk.Advance(30 * time.Minute)
	b := put(t, st, numbered(10))
	query(t, st, defaults(a.Handle)) // still within its hour

	clk.Advance(31 * time.Minute)
	_, err := st.Query(t.Context(), defaults(a.Handle))
	require.ErrorIs(t, err, results.ErrExpired)
	assert.NotErrorIs(t, err, results.ErrNotFound)
	assert.Equal(t, fmt.Sprintf(`stored result %q has expired (results are kept for 1h); call the tool again to get a new handle`, a.Handle), err.Error())
	assert.NoFileExists(t, filepath.Join(dir, a.Handle+".out"), "found expired, removed")
	_, err = st.Query(t.Context(), defaults(a.Handle))
	assert.ErrorIs(t, err, results.ErrExpired, "asked again after removal")
	query(t, st, defaults(b.Handle))

	clk.Advance(30 * time.Minute) // b expires; a new Store sweeps at Open
	require.NoError(t, st.Close())
	st2 := openStore(t, results.Options{Dir: dir, TTL: time.Hour, Now: clk.Now})
	assert.NoFileExists(t, filepath.Join(dir, b.Handle+".out"), "swept at Open")
	assert.NoFileExists(t, filepath.Join(dir, b.Handle+".idx"))
	_, err = st2.Query(t.Context(), defaults(b.Handle))
	assert.ErrorIs(t, err, results.ErrExpired, "after a restart")

	clk.Advance(20 * time.Hour) // an agent back the next day is told it expired
	require.NoError(t, st2.Close())
	st3 := openStore(t, results.Options{Dir: dir, TTL: time.Hour, Now: clk.Now})
	_, err = st3.Query(t.Context(), defaults(b.Handle))
	assert.ErrorIs(t, err, results.ErrExpired, "tombstones last at least TombstoneKeep, a day, with a shorter TTL")

	clk.Advance(results.TombstoneKeep) // tombstones last max(TTL, TombstoneKeep)
	require.NoError(t, st3.Close())
	st3 = openStore(t, results.Options{Dir: dir, TTL: time.Hour, Now: clk.Now})
	_, err = st3.Query(t.Context(), defaults(b.Handle))
	assert.ErrorIs(t, err, results.ErrNotFound, "long forgotten")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing left behind")
}

// The background sweep removes expired outputs without any query.
func TestStore_BackgroundSweep(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	st := openStore(t, results.Options{Dir: dir, TTL: time.Minute, SweepInterval: time.Millisecond, Now: clk.Now})
	s := put(t, st, numbered(10))
	require.FileExists(t, filepath.Join(dir, s.Handle+".out"))
	clk.Advance(2 * time.Minute)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, s.Handle+".out"))
		return os.IsNotExist(err)
	}, 10*time.Second, time.Millisecond)
	_, err := st.Query(t.Context(), defaults(s.Handle))
	assert.ErrorIs(t, err, results.ErrExpired)
}

// Seed 001 "Query response format": lines, total_lines, returned, offset,
// has_more (and nothing else without a search).
func TestResult_QueryResponseFormat(t *testing.T) {
	st := openStore(t, results.Options{})
	s := put(t, st, numbered(5))
	p := query(t, st, results.Request{Handle: s.Handle, Offset: 2, Limit: 2})
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"lines":["line 2","line 3"],"total_lines":5,"returned":2,"offset":2,"has_more":true}`, string(b))

	p = query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 1, Search: "5"})
	b, err = json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"lines":["line 5"],"total_lines":5,"returned":1,"offset":1,"has_more":false,"line_numbers":[5]}`, string(b),
		"a search also says where its lines are")
}

// Seed 001 "1-indexed offset": offset=1 starts at the first line.
func TestResult_OneIndexedOffset(t *testing.T) {
	st := openStore(t, results.Options{})
	s := put(t, st, []string{"first", "second", "third"})
	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 1})
	assert.Equal(t, []string{"first"}, p.Lines)
	p = query(t, st, results.Request{Handle: s.Handle, Offset: 3, Limit: 1})
	assert.Equal(t, []string{"third"}, p.Lines)
	p = query(t, st, results.Request{Handle: s.Handle, Offset: 4, Limit: 1})
	assert.Equal(t, []string{}, p.Lines, "past the end: an empty page")
	assert.False(t, p.HasMore)
	assert.Equal(t, 3, p.TotalLines)
}

// Seed 001 "Offset validation": offset < 1 fails with the seed's message.
func TestResult_OffsetValidation(t *testing.T) {
	st := openStore(t, results.Options{})
	s := put(t, st, numbered(3))
	for _, off := range []int{0, -1, -100} {
		_, err := st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: off, Limit: 100})
		require.Error(t, err)
		assert.Equal(t, fmt.Sprintf("offset must be >= 1 (1-indexed), got %d", off), err.Error())
		assert.ErrorIs(t, err, results.ErrInvalidQuery)
		var e *results.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "offset", e.Field)
	}
	_, err := st.Query(t.Context(), results.Request{Handle: "abc123", Offset: 0, Limit: 100})
	assert.EqualError(t, err, "offset must be >= 1 (1-indexed), got 0", "arguments are checked before the handle")
}

// Seed 001 "Limit validation": limit < 1 fails with the seed's message.
func TestResult_LimitValidation(t *testing.T) {
	st := openStore(t, results.Options{})
	s := put(t, st, numbered(3))
	for _, lim := range []int{0, -7} {
		_, err := st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: lim})
		require.Error(t, err)
		assert.Equal(t, fmt.Sprintf("limit must be >= 1, got %d", lim), err.Error())
		assert.ErrorIs(t, err, results.ErrInvalidQuery)
	}
	_, err := st.Query(t.Context(), results.Request{Handle: "abc123", Offset: 1, Limit: 0})
	assert.EqualError(t, err, "limit must be >= 1, got 0")
}

// A search that is not a regular expression, or too long, is an invalid
// query naming the field.
func TestResult_InvalidSearch(t *testing.T) {
	st := openStore(t, results.Options{})
	s := put(t, st, numbered(3))
	_, err := st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "(error"})
	require.ErrorIs(t, err, results.ErrInvalidQuery)
	assert.Equal(t, "search is not a valid regular expression (RE2 syntax): error parsing regexp: missing closing ): `(error`", err.Error())
	var e *results.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "search", e.Field)

	_, err = st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: strings.Repeat("a", results.MaxSearchBytes+1)})
	assert.EqualError(t, err, "search must be at most 4096 bytes, got 4097")
	_, err = st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: strings.Repeat("é", 65), Fuzzy: true})
	assert.EqualError(t, err, "a fuzzy search must be at most 64 characters, got 65")
	_, err = st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: results.MaxFuzzyResults + 1, Limit: 10, Search: "x", Fuzzy: true})
	assert.EqualError(t, err, "offset must be <= 10000 with fuzzy=true (a fuzzy search keeps the 10000 best matches), got 10001")
	_, err = st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "(", Fuzzy: true})
	assert.NoError(t, err, "a fuzzy search is text, not a regular expression")
}

// A search stops at Options.SearchTimeout with ErrSearchLimit, and at the
// caller's cancellation with the context's error.
func TestResult_SearchIsBounded(t *testing.T) {
	st := openStore(t, results.Options{SearchTimeout: time.Nanosecond})
	s := put(t, st, numbered(5000))
	_, err := st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "nomatch"})
	require.ErrorIs(t, err, results.ErrSearchLimit)
	assert.Contains(t, err.Error(), "search stopped after 1ns at line")
	_, err = st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "nomatch", Fuzzy: true})
	require.ErrorIs(t, err, results.ErrSearchLimit)

	st = openStore(t, results.Options{})
	s = put(t, st, numbered(5000))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = st.Query(ctx, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "nomatch"})
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, results.ErrSearchLimit)
}

// longLines returns n lines of 16,000 bytes (one piece each at the
// default MaxLineBytes), none matching [a-j].
func longLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("z", 16000)
	}
	return out
}

// expensive is a search whose program is large (about 1,000
// instructions): on a line of 16,000 bytes of [a-j] Go's regexp took 0.4
// to 1 s, and a search of 128 such lines took 58.7 s against its 10 s
// limit, because the context was looked at every 1,024 lines only. (The
// lines of longLines hold no [a-j]: matching them is quick, while the
// search weighs them as it would any line.)
const expensive = `[a-j]{1000}Z`

// A search whose caller cancels it stops within a line's work, however
// long the lines: the context is looked at as often as the text scanned
// times the pattern's size requires, not every 1,024 lines. Counted by the
// lines visited (no clock): the line after the one where the caller
// cancels is not matched.
func TestResult_SearchStopsWithinALineOfCancellation(t *testing.T) {
	st := openStore(t, results.Options{})
	s := put(t, st, longLines(64))
	for _, c := range []struct {
		name string
		q    results.Request
		most int64 // lines visited at most
	}{
		{"regexp", results.Request{Search: expensive}, 3},
		// The built-in fuzzy scorer costs a few operations a byte: the
		// context is looked at every checkWork (1 MiB) of text, 66 lines.
		{"fuzzy", results.Request{Search: "needle", Fuzzy: true}, 3 + 66},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var visited int64
			results.SetScanHook(st, func(_ context.Context, line int64) {
				visited = line
				if line == 3 {
					cancel()
				}
			})
			defer results.SetScanHook(st, nil)
			q := c.q
			q.Handle, q.Offset, q.Limit = s.Handle, 1, 10
			if c.name == "fuzzy" {
				s = put(t, st, longLines(256)) // more lines than 1 MiB holds
				q.Handle = s.Handle
			}
			_, err := st.Query(ctx, q)
			require.ErrorIs(t, err, context.Canceled)
			assert.NotErrorIs(t, err, results.ErrSearchLimit)
			assert.GreaterOrEqual(t, visited, int64(3))
			assert.LessOrEqual(t, visited, c.most, "the search went on after its caller cancelled it")
		})
	}

	// A custom Options.Fuzzy is weighed as a table of edits (64 per byte):
	// about a line of 16,000 bytes is worth a look at the context, so it
	// is called for at most one line after the caller cancelled.
	var scored int
	cst := openStore(t, results.Options{Fuzzy: func(_, _ string) (float64, bool) { scored++; return 1, true }})
	s = put(t, cst, longLines(64))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	results.SetScanHook(cst, func(_ context.Context, line int64) {
		if line == 3 {
			cancel()
		}
	})
	_, err := cst.Query(ctx, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "x", Fuzzy: true})
	require.ErrorIs(t, err, context.Canceled)
	assert.GreaterOrEqual(t, scored, 3)
	assert.LessOrEqual(t, scored, 4, "Options.Fuzzy is called for at most one line after the caller cancelled")

	// A context ended before the search starts stops it before its first
	// line.
	visited := 0
	results.SetScanHook(st, func(context.Context, int64) { visited++ })
	_, err = st.Query(ctx, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "x"})
	require.Error(t, err)
	assert.Zero(t, visited)
}

// A search that reaches Options.SearchTimeout stops within a line's work
// with ErrSearchLimit: the search's deadline passes while its first line
// is matched (the hook waits for it), and the second line is not
// visited. Nothing is timed: the hook waits for the deadline, the test
// counts lines.
func TestResult_SearchStopsWithinALineOfItsDeadline(t *testing.T) {
	st := openStore(t, results.Options{SearchTimeout: 50 * time.Millisecond})
	s := put(t, st, longLines(64))
	var visited int64
	results.SetScanHook(st, func(ctx context.Context, line int64) {
		visited = line
		<-ctx.Done()
	})
	_, err := st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: expensive})
	require.ErrorIs(t, err, results.ErrSearchLimit)
	assert.LessOrEqual(t, visited, int64(1), "the search went on past its deadline")
	assert.Contains(t, err.Error(), fmt.Sprintf("search stopped after 50ms at line %d of 64", visited))
}

// A page stops at MaxPageBytes (holding at least one line) and at
// MaxPageLines, saying there is more.
func TestResult_PageBounds(t *testing.T) {
	st := openStore(t, results.Options{MaxPageBytes: 100, MaxPageLines: 20, MaxLineBytes: 200})
	lines := numbered(200) // "line N" is 6 to 8 bytes
	lines[0] = strings.Repeat("x", 150)
	s := put(t, st, lines)

	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 100})
	assert.Equal(t, lines[:1], p.Lines, "one line over the budget is still served")
	assert.True(t, p.HasMore)
	p = query(t, st, results.Request{Handle: s.Handle, Offset: 2, Limit: 100})
	assert.Equal(t, 13, p.Returned, "13 lines of 7 or 8 bytes (with '\\n') fit in 100")
	assert.Equal(t, lines[1:14], p.Lines)
	p = query(t, st, results.Request{Handle: s.Handle, Offset: 150, Limit: 100})
	assert.LessOrEqual(t, p.Returned, 20)
	assert.True(t, p.HasMore)

	p = query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 100, Search: "line 1"})
	assert.Equal(t, []string{"line 10", "line 11", "line 12", "line 13", "line 14", "line 15", "line 16",
		"line 17", "line 18", "line 19", "line 100", "line 101"}, p.Lines, "a search page has the same byte budget")
	assert.True(t, p.HasMore)

	st = openStore(t, results.Options{MaxPageLines: 5})
	s = put(t, st, numbered(200))
	p = query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 100})
	assert.Equal(t, numbered(5), p.Lines, "at most MaxPageLines whatever the limit")
	assert.True(t, p.HasMore)
	p = query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 100, Search: "0$"})
	assert.Equal(t, []string{"line 10", "line 20", "line 30", "line 40", "line 50"}, p.Lines)
	assert.True(t, p.HasMore)
}

// A zero Store (not made by Open) is refused where the host is put
// together, with a message saying so, instead of failing every large
// output with an internal error at run time.
func TestStore_ZeroValueRefusedAtSetup(t *testing.T) {
	var s results.Store
	assert.PanicsWithValue(t, "results: Middleware of a Store not made by Open", func() { s.Middleware() })
}
