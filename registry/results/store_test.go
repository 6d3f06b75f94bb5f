package results_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/results"
)

// Put returns the handle object: total_lines, size_bytes, a summary, the
// first lines as a preview, and the exact ot.result call for the page
// after the preview.
func TestStore_PutReturnsHandleObject(t *testing.T) {
	st := openStore(t, results.Options{})
	lines := numbered(500)
	text := strings.Join(lines, "\n")
	s := put(t, st, lines)
	assert.Regexp(t, `^[0-9a-f]{32}$`, s.Handle)
	assert.Equal(t, 500, s.TotalLines)
	assert.Equal(t, int64(len(text)), s.SizeBytes)
	assert.Equal(t, "text: 500 lines, 4,391 bytes", s.Summary)
	assert.Equal(t, numbered(10), s.Preview)
	assert.Equal(t, fmt.Sprintf(`ot.result(handle=%q, offset=11, limit=100)`, s.Handle), s.Query)

	// The query field is the call for the next page.
	m := regexp.MustCompile(`^ot\.result\(handle="([0-9a-f]{32})", offset=(\d+), limit=(\d+)\)$`).FindStringSubmatch(s.Query)
	require.NotNil(t, m)
	var off, lim int
	_, err := fmt.Sscan(m[2], &off)
	require.NoError(t, err)
	_, err = fmt.Sscan(m[3], &lim)
	require.NoError(t, err)
	p := query(t, st, results.Request{Handle: m[1], Offset: off, Limit: lim})
	assert.Equal(t, lines[10:110], p.Lines)
}

// The preview stays within its budget (2,000 bytes, or half the inline
// limit); a line cut to fit ends with "…" and the query starts at it.
func TestStore_PreviewBudget(t *testing.T) {
	st := openStore(t, results.Options{MaxInlineBytes: 100, QueryTool: "x_ot.result"})
	lines := []string{"0123456789", "abcdefghij", strings.Repeat("é", 40), "tail"}
	s := put(t, st, lines)
	assert.Equal(t, []string{"0123456789", "abcdefghij", "éééééééééééé…"}, s.Preview, "50 bytes: 11+11, then 24 bytes of the third line and …")
	assert.Equal(t, fmt.Sprintf(`x_ot.result(handle=%q, offset=3, limit=100)`, s.Handle), s.Query, "the next page starts at the line shown in part")
	total := 0
	for _, l := range s.Preview {
		total += len(l) + 1
		assert.True(t, utf8.ValidString(l))
	}
	assert.LessOrEqual(t, total, 50)
}

// Stored outputs survive a restart: a new Store on the same directory
// serves the old handles.
func TestStore_SurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	st, err := results.Open(t.Context(), results.Options{Dir: dir, Logger: quiet})
	require.NoError(t, err)
	a := put(t, st, numbered(1000))
	b := put(t, st, []string{"only", "two"})
	before := query(t, st, results.Request{Handle: a.Handle, Offset: 500, Limit: 20})
	require.NoError(t, st.Close())

	_, err = st.Query(t.Context(), defaults(a.Handle))
	assert.ErrorIs(t, err, results.ErrClosed)
	_, err = st.Put(t.Context(), strings.NewReader("x"))
	assert.ErrorIs(t, err, results.ErrClosed)
	assert.NoError(t, st.Close(), "Close is idempotent")

	st2 := openStore(t, results.Options{Dir: dir})
	assert.Equal(t, before, query(t, st2, results.Request{Handle: a.Handle, Offset: 500, Limit: 20}))
	assert.Equal(t, []string{"only", "two"}, query(t, st2, defaults(b.Handle)).Lines)
}

// Lines: split after '\n'; a final '\n' starts no empty line; empty lines
// are kept; an empty text has no lines; "\r\n" ends a line as '\n' does
// (its '\r' is not part of the line), a '\r' elsewhere stays.
func TestStore_LineSemantics(t *testing.T) {
	st := openStore(t, results.Options{})
	for text, want := range map[string][]string{
		"":           {},
		"\n":         {""},
		"a":          {"a"},
		"a\n":        {"a"},
		"a\n\nb":     {"a", "", "b"},
		"a\r\nb\n\n": {"a", "b", ""},
		"a\r\r\nb\r": {"a\r", "b\r"},
		"x\ry\r\n":   {"x\ry"},
	} {
		s, err := st.Put(t.Context(), strings.NewReader(text))
		require.NoError(t, err)
		assert.Equal(t, len(want), s.TotalLines, "%q", text)
		assert.Equal(t, int64(len(text)), s.SizeBytes)
		assert.Equal(t, want, query(t, st, defaults(s.Handle)).Lines, "%q", text)
	}
}

// A line of exactly MaxLineBytes ended by "\r\n" is one line, as with
// "\n" — it read as a full piece and a phantom empty line — in the page,
// total_lines and a search alike; the file is read back whole by a new
// Store (its index holds such a line's 16,386 bytes).
func TestStore_CRLFAfterAFullLineIsNoEmptyLine(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, results.Options{Dir: dir})
	full := strings.Repeat("x", results.DefaultMaxLineBytes)
	// shape writes lines short: a line of x's as its length.
	shape := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = l
			if strings.Trim(l, "x") == "" && l != "" {
				out[i] = fmt.Sprintf("%d x", len(l))
			}
		}
		return out
	}
	for _, br := range []string{"\n", "\r\n"} {
		s, err := st.Put(t.Context(), strings.NewReader(full+br+"tail"))
		require.NoError(t, err)
		assert.Equal(t, 2, s.TotalLines, "%q", br)
		assert.Equal(t, []string{"16384 x", "tail"}, shape(query(t, st, defaults(s.Handle)).Lines), "%q", br)
		found := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "^tail$"})
		assert.Equal(t, []int{2}, found.LineNumbers, "%q", br)
	}
	s, err := st.Put(t.Context(), strings.NewReader(full+"\rtail"))
	require.NoError(t, err)
	assert.Equal(t, []string{"16384 x", "\rtail"}, shape(query(t, st, defaults(s.Handle)).Lines), "a lone '\\r' is no line break: it starts the next piece")

	s, err = st.Put(t.Context(), strings.NewReader(full+"\r\n"+full+"\r\n"))
	require.NoError(t, err)
	require.NoError(t, st.Close())
	st2 := openStore(t, results.Options{Dir: dir})
	assert.Equal(t, []string{"16384 x", "16384 x"}, shape(query(t, st2, defaults(s.Handle)).Lines))
}

// A line longer than MaxLineBytes is stored as pieces of at most that many
// bytes, cut between characters, so every byte can be paged through.
func TestStore_LongLinesAreSplit(t *testing.T) {
	st := openStore(t, results.Options{MaxLineBytes: 64})
	long := strings.Repeat("abcdé€𝄞", 100) // 1-, 2-, 3- and 4-byte characters
	s := put(t, st, []string{"short", long, "end"})
	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 1000})
	require.Equal(t, p.TotalLines, p.Returned)
	assert.Equal(t, "short", p.Lines[0])
	assert.Equal(t, "end", p.Lines[len(p.Lines)-1])
	assert.Equal(t, long, strings.Join(p.Lines[1:len(p.Lines)-1], ""), "the pieces make up the line")
	for _, l := range p.Lines {
		assert.LessOrEqual(t, len(l), 64)
		assert.True(t, utf8.ValidString(l), "%q", l)
	}
	exact := strings.Repeat("y", 64)
	s = put(t, st, []string{exact, exact})
	assert.Equal(t, []string{exact, exact}, query(t, st, defaults(s.Handle)).Lines, "a line of exactly MaxLineBytes is one line")
}

// An output whose text and line index would take more than
// MaxOutputBytes is cut after its last whole line within the cap, and its
// summary says so.
func TestStore_PerOutputCap(t *testing.T) {
	st := openStore(t, results.Options{MaxOutputBytes: 1000, MaxLineBytes: 64})
	lines := numbered(500) // 4,391 bytes
	s := put(t, st, lines)
	footprint := s.SizeBytes + 64 + 8*int64(s.TotalLines+1) // text, index header, an entry a line and the end
	assert.LessOrEqual(t, footprint, int64(1000))
	p := query(t, st, results.Request{Handle: s.Handle, Offset: 1, Limit: 1000})
	assert.Equal(t, lines[:len(p.Lines)], p.Lines, "whole lines, from the start")
	assert.Equal(t, s.TotalLines, p.Returned)
	assert.Greater(t, footprint+int64(len(lines[s.TotalLines])+1)+8, int64(1000), "cut at the last line end before the cap")
	assert.Contains(t, s.Summary, "cut at the store's limit of 1,000 bytes for the text and its line index (the rest was not stored)")

	s = put(t, st, numbered(5)) // under the cap: not cut
	assert.NotContains(t, s.Summary, "cut")

	// 16 lines of 50 bytes: 800 bytes of text and 200 of index, exactly
	// the cap: nothing cut; one byte more is cut.
	exact := strings.Repeat(strings.Repeat("z", 49)+"\n", 16)
	s, err := st.Put(t.Context(), strings.NewReader(exact))
	require.NoError(t, err)
	assert.Equal(t, int64(800), s.SizeBytes)
	assert.NotContains(t, s.Summary, "cut")
	s, err = st.Put(t.Context(), strings.NewReader(exact+"z"))
	require.NoError(t, err)
	assert.Equal(t, int64(800), s.SizeBytes)
	assert.Contains(t, s.Summary, "cut")
}

// The per-output cap bounds what an output takes, its line index
// included: a text of nothing but line breaks (8 bytes of index a line)
// keeps as many lines as fit with their index, never eight times the cap
// — so that one such output no longer takes a budget of eight caps and
// evicts every other output (their handles read "expired" long before
// their TTL): four of them fit beside the others.
func TestStore_PerOutputCapCountsTheIndex(t *testing.T) {
	const capBytes = 1 << 20
	dir := t.TempDir()
	st := openStore(t, results.Options{Dir: dir, MaxOutputBytes: capBytes, MaxDirBytes: 8 * capBytes})
	var kept []string
	for range 3 {
		kept = append(kept, put(t, st, numbered(1000)).Handle)
	}
	for _, text := range []string{strings.Repeat("\n", 2*capBytes), strings.Repeat("\r\n", capBytes), strings.Repeat("\n", capBytes)} {
		s, err := st.Put(t.Context(), strings.NewReader(text))
		require.NoError(t, err)
		out, err1 := os.Stat(filepath.Join(dir, s.Handle+".out"))
		idx, err2 := os.Stat(filepath.Join(dir, s.Handle+".idx"))
		require.NoError(t, errors.Join(err1, err2))
		assert.LessOrEqual(t, out.Size()+idx.Size(), int64(capBytes), "text and index within the cap")
		assert.Greater(t, out.Size()+idx.Size(), int64(capBytes-20), "as many lines as fit")
		assert.Equal(t, s.SizeBytes, out.Size())
		assert.Contains(t, s.Summary, "cut at the store's limit of 1,048,576 bytes for the text and its line index")
		p := query(t, st, results.Request{Handle: s.Handle, Offset: s.TotalLines, Limit: 5})
		assert.Equal(t, []string{""}, p.Lines, "its last line is served")
	}
	assert.Equal(t, (capBytes-72)/9, put(t, st, []string{strings.Repeat("\n", capBytes)}).TotalLines, "9 bytes a line, 72 of index besides")
	for _, h := range kept {
		assert.Equal(t, numbered(1000)[:3], query(t, st, results.Request{Handle: h, Offset: 1, Limit: 3}).Lines, "not evicted")
	}
}

// When a new output takes the directory over MaxDirBytes, the oldest
// outputs are removed first (never the new one) and their handles are
// reported expired.
func TestStore_DirBudgetEvictsOldest(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	text := strings.Repeat("0123456789abcdef\n", 30) // 510 bytes of text, 30 lines: 822 bytes with its index
	st := openStore(t, results.Options{Dir: dir, MaxOutputBytes: 1000, MaxDirBytes: 2000, MaxLineBytes: 64, Now: clk.Now})
	var hs []string
	for range 4 {
		s, err := st.Put(t.Context(), strings.NewReader(text))
		require.NoError(t, err)
		hs = append(hs, s.Handle)
		clk.Advance(time.Second)
	}
	for _, h := range hs[:2] {
		_, err := st.Query(t.Context(), defaults(h))
		require.ErrorIs(t, err, results.ErrExpired, "oldest first")
		assert.Contains(t, err.Error(), "removed to keep the result store within its size limit")
		assert.NoFileExists(t, filepath.Join(dir, h+".out"))
	}
	for _, h := range hs[2:] {
		query(t, st, defaults(h))
	}

	// A new Store accounts for what is on disk.
	require.NoError(t, st.Close())
	st2 := openStore(t, results.Options{Dir: dir, MaxOutputBytes: 1000, MaxDirBytes: 2000, MaxLineBytes: 64, Now: clk.Now})
	s, err := st2.Put(t.Context(), strings.NewReader(text))
	require.NoError(t, err)
	_, err = st2.Query(t.Context(), defaults(hs[2]))
	assert.ErrorIs(t, err, results.ErrExpired, "evicted by the next Store")
	query(t, st2, defaults(hs[3]))
	query(t, st2, defaults(s.Handle))
}

// An output whose files are damaged is never served: a changed header, an
// index or text of the wrong size, offsets out of order, a text without
// its index.
func TestStore_DamagedFilesNotServed(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, results.Options{Dir: dir})
	damage := map[string]func(idx, out string){
		"header byte flipped": func(idx, _ string) { flip(t, idx, 20) },
		"index cut short":     func(idx, _ string) { require.NoError(t, os.Truncate(idx, 64+8)) },
		"text cut short":      func(_, out string) { require.NoError(t, os.Truncate(out, 10)) },
		"text grown":          func(_, out string) { appendTo(t, out, "more") },
		"offsets out of order": func(idx, _ string) {
			b, err := os.ReadFile(idx)
			require.NoError(t, err)
			copy(b[64+8*3:64+8*4], b[64+8*5:64+8*6])
			require.NoError(t, os.WriteFile(idx, b, 0o600))
		},
		// Still increasing, but line 4 now starts 2 bytes late: line 3
		// would read "line 3\nli" and line 4 "ne 4".
		"offset moved within order": func(idx, _ string) {
			b, err := os.ReadFile(idx)
			require.NoError(t, err)
			v := binary.LittleEndian.Uint64(b[64+8*3:])
			binary.LittleEndian.PutUint64(b[64+8*3:], v+2)
			require.NoError(t, os.WriteFile(idx, b, 0o600))
		},
	}
	for name, f := range damage {
		s := put(t, st, numbered(50))
		f(filepath.Join(dir, s.Handle+".idx"), filepath.Join(dir, s.Handle+".out"))
		_, err := st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 100})
		require.Error(t, err, name)
		assert.ErrorIs(t, err, results.ErrCorrupt, name)
		assert.Equal(t, fmt.Sprintf("stored result %q is damaged and cannot be read; call the tool again", s.Handle), err.Error(), name)
		_, err = st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "nomatch"})
		assert.ErrorIs(t, err, results.ErrCorrupt, name+" (search)")
		_, err = st.Query(t.Context(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "lien 3", Fuzzy: true})
		assert.ErrorIs(t, err, results.ErrCorrupt, name+" (fuzzy)")
	}

	s := put(t, st, numbered(5))
	require.NoError(t, os.Remove(filepath.Join(dir, s.Handle+".idx")))
	_, err := st.Query(t.Context(), defaults(s.Handle))
	assert.ErrorIs(t, err, results.ErrNotFound, "a text without its index is never served")
}

func flip(t *testing.T, path string, at int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[at] ^= 0xff
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// What a crash leaves (temporary files, a text without its index) is
// removed by a later sweep once old enough, and never served; damaged
// indexes are removed; unrelated files are left alone.
func TestStore_CrashLeftoversSwept(t *testing.T) {
	dir := t.TempDir()
	h1, h2, h3 := strings.Repeat("1", 32), strings.Repeat("2", 32), strings.Repeat("3", 32)
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{h1 + ".out.tmp", h1 + ".idx.tmp", h2 + ".out", h3 + ".idx", "notes.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o600))
		require.NoError(t, os.Chtimes(filepath.Join(dir, name), old, old))
	}
	fresh := strings.Repeat("4", 32) + ".out.tmp"
	require.NoError(t, os.WriteFile(filepath.Join(dir, fresh), []byte("in progress"), 0o600))

	st := openStore(t, results.Options{Dir: dir})
	names := dirNames(t, dir)
	assert.ElementsMatch(t, []string{"notes.txt", fresh, h3 + ".gone"}, names,
		"old leftovers and the damaged index removed; a recent temporary file may be a Put in progress")
	_, err := st.Query(t.Context(), defaults(h2))
	assert.ErrorIs(t, err, results.ErrNotFound)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// Files are private to the user running the store; handles are random and
// distinct.
func TestStore_FilesAndHandles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "store")
	st := openStore(t, results.Options{Dir: dir})
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "created private")
	seen := map[string]bool{}
	for range 200 {
		s := put(t, st, []string{"x"})
		assert.False(t, seen[s.Handle])
		seen[s.Handle] = true
	}
	for h := range seen {
		for _, ext := range []string{".out", ".idx"} {
			fi, err := os.Stat(filepath.Join(dir, h+ext))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		}
		break
	}
}

// Concurrent Puts and Queries are safe (run with -race).
func TestStore_Concurrent(t *testing.T) {
	st := openStore(t, results.Options{MaxDirBytes: 64 << 10, MaxOutputBytes: 8 << 10, MaxLineBytes: 64})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 15 {
				lines := numbered(50 + g + i)
				s, err := st.Put(context.Background(), strings.NewReader(strings.Join(lines, "\n")))
				if !assert.NoError(t, err) {
					return
				}
				p, err := st.Query(context.Background(), results.Request{Handle: s.Handle, Offset: 10, Limit: 5})
				if err != nil {
					assert.ErrorIs(t, err, results.ErrExpired, "only an eviction by another goroutine may intervene")
					continue
				}
				assert.Equal(t, lines[9:14], p.Lines)
			}
		})
	}
	wg.Wait()
}

// Options: a missing Dir and out-of-range values are errors naming the
// field.
func TestOptions_Validation(t *testing.T) {
	dir := t.TempDir()
	for want, o := range map[string]results.Options{
		"Options.Dir: expected a directory path (or a Backend), got none":                                                  {},
		"Options.MaxInlineBytes: expected zero (the default) or a positive value":                                          {Dir: dir, MaxInlineBytes: -1},
		"Options.TTL: expected zero (the default) or a positive value":                                                     {Dir: dir, TTL: -time.Second},
		"Options.MaxDirBytes: expected at least MaxOutputBytes (1000), got 999":                                            {Dir: dir, MaxOutputBytes: 1000, MaxDirBytes: 999},
		"Options.MaxLineBytes: expected 64 to 1048576, got 10":                                                             {Dir: dir, MaxLineBytes: 10},
		"Options.MaxOutputBytes: expected at least MaxLineBytes+82 (16466): one whole line piece and its index, got 16465": {Dir: dir, MaxOutputBytes: 16465},
		"Options.SearchTimeout: expected zero (the default) or a positive value":                                           {Dir: dir, SearchTimeout: -1},
		"Options.SweepInterval: expected zero (the default) or at least 1ms, got 1ns":                                      {Dir: dir, SweepInterval: time.Nanosecond},
		`Options.QueryTool: expected a tool name ([A-Za-z0-9_.-], 1 to 128 characters), got "bad name"`:                    {Dir: dir, QueryTool: "bad name"},
	} {
		_, err := results.Open(t.Context(), o)
		require.Error(t, err, want)
		assert.Contains(t, err.Error(), want)
	}
	notDir := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o600))
	_, err := results.Open(t.Context(), results.Options{Dir: notDir})
	assert.Error(t, err, "a file is not a directory")
}

// A Store is not a panic nor busy work when misused: a nil or zero
// Store's Close is a no-op and its Put and Query say ErrClosed; Open and
// Query on a context already ended do nothing and say so; a nanosecond
// TTL does not make the sweeper spin (its sweep is at least a second
// apart unless SweepInterval says otherwise).
func TestStore_MisuseAnswersWithoutPanicOrBusyWork(t *testing.T) {
	var none *results.Store
	require.NotPanics(t, func() { require.NoError(t, none.Close()) })
	var zero results.Store
	require.NotPanics(t, func() {
		require.NoError(t, zero.Close())
		_, err := zero.Put(t.Context(), strings.NewReader("x"))
		require.ErrorIs(t, err, results.ErrClosed)
		_, err = zero.Query(t.Context(), results.Request{Handle: "h", Offset: 1, Limit: 1})
		require.ErrorIs(t, err, results.ErrClosed)
	})

	ended, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := results.Open(ended, results.Options{Dir: t.TempDir()})
	require.ErrorIs(t, err, context.Canceled)

	st := openStore(t, results.Options{TTL: time.Hour})
	s := put(t, st, numbered(3))
	_, err = st.Query(ended, defaults(s.Handle))
	require.ErrorIs(t, err, context.Canceled, "a page is not read for a caller that has gone")

	var clockReads atomic.Int64 // a sweep reads the clock
	st2 := openStore(t, results.Options{TTL: time.Nanosecond, Now: func() time.Time { clockReads.Add(1); return time.Now() }})
	opened := clockReads.Load()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, st2.Close())
	assert.Equal(t, opened, clockReads.Load(), "no sweep within 50 ms of a nanosecond TTL (it spun a core before)")
}

// The directory removed under a running store (by hand, by a cleaner) is
// made again by the next output stored; sweeping meanwhile finds nothing
// and fails nothing.
func TestStore_DirectoryRemovedUnderIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	st := openStore(t, results.Options{Dir: dir})
	old := put(t, st, numbered(5))
	require.NoError(t, os.RemoveAll(dir))
	_, err := st.Query(t.Context(), defaults(old.Handle))
	assert.Error(t, err, "its outputs are gone")
	s := put(t, st, numbered(7))
	assert.Equal(t, []string{"line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7"}, query(t, st, defaults(s.Handle)).Lines)
}

// The directory replaced by a regular file under a running store (by
// hand, a bad deploy) makes reading an existing handle ErrUnavailable —
// the outputs may be readable once it is repaired — with a message naming
// base names only, not an internal error.
func TestStore_DirectoryReplacedByAFileIsUnavailable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	st := openStore(t, results.Options{Dir: dir})
	old := put(t, st, numbered(5))
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.WriteFile(dir, []byte("not a directory"), 0o600))
	_, err := st.Query(t.Context(), defaults(old.Handle))
	require.ErrorIs(t, err, results.ErrUnavailable)
	assert.Contains(t, err.Error(), "the output directory cannot be read ("+old.Handle+".idx in out: not a directory)")
	assert.NotContains(t, err.Error(), filepath.Dir(dir), "base names only")
}
