package pgresults_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/results/pgresults"
)

var quiet = slog.New(slog.DiscardHandler)

func openBackend(t testing.TB, dsn, schema string) *pgresults.Backend {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	be, err := pgresults.Open(ctx, dsn, pgresults.Options{Schema: schema, MaxConns: 8})
	require.NoError(t, err)
	return be
}

// openPG opens a Store on PostgreSQL with o, closed when the test ends.
func openPG(t testing.TB, dsn, schema string, o results.Options) *results.Store {
	t.Helper()
	o.Backend = openBackend(t, dsn, schema)
	if o.Logger == nil {
		o.Logger = quiet
	}
	st, err := results.Open(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func openFiles(t testing.TB, o results.Options) *results.Store {
	t.Helper()
	o.Dir, o.Logger = t.TempDir(), quiet
	st, err := results.Open(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// genOutput draws a text of random lines, long and short, around the
// chunk size, sometimes with a final newline.
func genOutput(t *rapid.T) string {
	var b strings.Builder
	target := rapid.IntRange(0, 3*pgresults.ChunkSize).Draw(t, "size")
	long := rapid.IntRange(1, 70_000).Draw(t, "long")
	for b.Len() < target {
		n := rapid.OneOf(rapid.IntRange(0, 20), rapid.IntRange(0, long)).Draw(t, "line")
		b.WriteString(strings.Repeat(string(rune('a'+b.Len()%26)), n))
		if rapid.IntRange(0, 9).Draw(t, "é") == 0 {
			b.WriteString("é")
		}
		b.WriteByte('\n')
	}
	s := b.String()
	if rapid.Bool().Draw(t, "no final newline") {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

// The PostgreSQL backend serves exactly what the files serve: for random
// outputs around the chunk size (cut at random caps, lines cut into
// pieces), the handle object and every page, regular-expression search
// and fuzzy search are equal.
func TestBackend_SameAsFiles(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	rapid.Check(t, func(rt *rapid.T) {
		o := results.Options{
			MaxInlineBytes: 10,
			MaxLineBytes:   rapid.SampledFrom([]int{64, 4096, 65536}).Draw(rt, "maxLine"),
			MaxOutputBytes: int64(rapid.IntRange(70_000, 3*pgresults.ChunkSize+10).Draw(rt, "maxOutput")),
		}
		files, pg := openFiles(t, o), openPG(t, dsn, schema, o)
		defer files.Close()
		defer pg.Close() // now, not when the test ends: one pool per iteration
		text := genOutput(rt)
		fs, err := files.Put(context.Background(), strings.NewReader(text))
		require.NoError(rt, err)
		ps, err := pg.Put(context.Background(), strings.NewReader(text))
		require.NoError(rt, err)
		pgHandle := ps.Handle
		ps.Query = strings.ReplaceAll(ps.Query, ps.Handle, fs.Handle)
		ps.Handle = fs.Handle
		require.Equal(rt, fs, ps)
		for range 5 {
			q := results.Request{
				Offset: rapid.IntRange(1, fs.TotalLines+2).Draw(rt, "offset"),
				Limit:  rapid.IntRange(1, 500).Draw(rt, "limit"),
			}
			switch rapid.IntRange(0, 3).Draw(rt, "kind") {
			case 1:
				q.Search = rapid.SampledFrom([]string{"a+$", "^b", "é", "zz"}).Draw(rt, "re")
			case 2:
				q.Search, q.Fuzzy = rapid.SampledFrom([]string{"aaa", "ccé"}).Draw(rt, "fuzzy"), true
				q.Offset = min(q.Offset, 50)
			}
			q.Handle = fs.Handle
			want, werr := files.Query(context.Background(), q)
			q.Handle = pgHandle
			got, gerr := pg.Query(context.Background(), q)
			require.Equal(rt, werr, gerr)
			require.Equal(rt, want, got)
		}
	})
}

// An output cut at its cap drops its last, open line piece: when that
// piece began in a chunk already sent (of the text, or of the index), the
// chunk is cut back inside the transaction. The result equals the files'.
func TestBackend_CutBackIntoSentChunks(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	cases := map[string]struct {
		text string
		o    results.Options
	}{
		// The open piece starts 40,000 bytes before the first chunk ends.
		"text": {strings.Repeat("y", pgresults.ChunkSize-40_000-1) + "\n" + strings.Repeat("z", 60_000),
			results.Options{MaxLineBytes: 65536, MaxOutputBytes: pgresults.ChunkSize + 100}},
		// 32,767 lines and an open piece: the 32,768th offset fills the
		// first index chunk exactly and is then dropped (the cap, which
		// counts the index, leaves the open piece 50,000 bytes).
		"index": {strings.Repeat("x\n", 32767) + strings.Repeat("w", 100_000),
			results.Options{MaxLineBytes: 65536, MaxOutputBytes: 2*32767 + results.HeaderSize + 8*(32768+1) + 50_000}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			c.o.MaxInlineBytes = 10
			files, pg := openFiles(t, c.o), openPG(t, dsn, schema, c.o)
			fs, err := files.Put(context.Background(), strings.NewReader(c.text))
			require.NoError(t, err)
			ps, err := pg.Put(context.Background(), strings.NewReader(c.text))
			require.NoError(t, err)
			assert.Contains(t, fs.Summary, "cut", "the case must cut its output")
			assert.Equal(t, fs.TotalLines, ps.TotalLines)
			assert.Equal(t, fs.SizeBytes, ps.SizeBytes)
			for _, off := range []int{1, fs.TotalLines - 1, fs.TotalLines} {
				want, err := files.Query(context.Background(), results.Request{Handle: fs.Handle, Offset: off, Limit: 3})
				require.NoError(t, err)
				got, err := pg.Query(context.Background(), results.Request{Handle: ps.Handle, Offset: off, Limit: 3})
				require.NoError(t, err)
				require.Equal(t, want, got)
			}
		})
	}
}

// Several hosts, one database: a page of an output stored through one
// host is served by another, and an output one host removed is reported
// expired by the other (the tombstone is shared).
func TestBackend_SharedByHosts(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	clk := testclock.New(time.Now())
	a := openPG(t, dsn, schema, results.Options{TTL: time.Hour, Now: clk.Now})
	b := openPG(t, dsn, schema, results.Options{TTL: time.Hour, Now: clk.Now})
	lines := make([]string, 200_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	st, err := a.Put(context.Background(), strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	p, err := b.Query(context.Background(), results.Request{Handle: st.Handle, Offset: 199_998, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, []string{"line 199998", "line 199999", "line 200000"}, p.Lines)
	assert.Equal(t, 200_000, p.TotalLines)

	clk.Advance(2 * time.Hour)
	_, err = a.Query(context.Background(), results.Request{Handle: st.Handle, Offset: 1, Limit: 1})
	require.ErrorIs(t, err, results.ErrExpired)
	_, err = b.Query(context.Background(), results.Request{Handle: st.Handle, Offset: 1, Limit: 1})
	require.ErrorIs(t, err, results.ErrExpired, "b reads a's tombstone")
	assert.Contains(t, err.Error(), "has expired")
	_, err = b.Query(context.Background(), results.Request{Handle: strings.Repeat("ab", 16), Offset: 1, Limit: 1})
	require.ErrorIs(t, err, results.ErrNotFound)
}

// A Put whose context ends mid-write leaves nothing: no output row, no
// chunk, and the handle is unknown.
func TestBackend_InterruptedPutLeavesNothing(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	st := openPG(t, dsn, schema, results.Options{MaxOutputBytes: 64 << 20})
	ctx, cancel := context.WithCancel(context.Background())
	r := &slowReader{left: 64 << 20, cancel: cancel, after: 3 * pgresults.ChunkSize}
	_, err := st.Put(ctx, r)
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	assertEmpty(t, dsn, schema)
}

// slowReader gives left bytes of lines and calls cancel after the first
// after bytes.
type slowReader struct {
	left, read, after int
	cancel            func()
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, fmt.Errorf("unexpected end")
	}
	n := min(len(p), r.left)
	for i := range n {
		p[i] = 'x'
		if i%80 == 79 {
			p[i] = '\n'
		}
	}
	r.left -= n
	r.read += n
	if r.read >= r.after {
		r.cancel()
		time.Sleep(20 * time.Millisecond) // let the write see it
	}
	return n, nil
}

// assertEmpty checks that schema holds no output and no chunk.
func assertEmpty(t *testing.T, dsn, schema string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	require.Eventually(t, func() bool {
		var outputs, chunks int
		err := conn.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM "+pgx.Identifier{schema, "result_outputs"}.Sanitize()+
			"), (SELECT count(*) FROM "+pgx.Identifier{schema, "result_chunks"}.Sanitize()+")").Scan(&outputs, &chunks)
		return err == nil && outputs == 0 && chunks == 0
	}, 10*time.Second, 50*time.Millisecond, "a partial output was left")
}

// After the Store closes, the backend is closed too: a new Store on the
// same database still serves what was stored.
func TestBackend_SurvivesRestart(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	a := openPG(t, dsn, schema, results.Options{MaxInlineBytes: 10})
	st, err := a.Put(context.Background(), strings.NewReader("one\ntwo\nthree\n"))
	require.NoError(t, err)
	require.NoError(t, a.Close())
	b := openPG(t, dsn, schema, results.Options{})
	p, err := b.Query(context.Background(), results.Request{Handle: st.Handle, Offset: 2, Limit: 5})
	var re *results.Error
	if errors.As(err, &re) {
		t.Log(re.Cause)
	}
	require.NoError(t, err)
	assert.Equal(t, []string{"two", "three"}, p.Lines)
}

// A host that paged an output remembers its row; when another host
// removes the output (here: evicted to keep the store within its budget),
// the next page finds the chunks gone, checks the row and reports the
// handle expired with the reason — never damaged.
func TestBackend_RemovedByAnotherHostAfterPaging(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	other := openBackend(t, dsn, schema)
	defer other.Close()
	b := openPG(t, dsn, schema, results.Options{MaxInlineBytes: 10})
	st, err := b.Put(context.Background(), strings.NewReader(strings.Repeat("some line\n", 5000)))
	require.NoError(t, err)
	_, err = b.Query(context.Background(), results.Request{Handle: st.Handle, Offset: 1, Limit: 10})
	require.NoError(t, err)
	require.NoError(t, other.Remove(context.Background(), st.Handle, results.Tombstone{At: time.Now(), Evicted: true}))
	_, err = b.Query(context.Background(), results.Request{Handle: st.Handle, Offset: 100, Limit: 10})
	require.ErrorIs(t, err, results.ErrExpired)
	assert.NotErrorIs(t, err, results.ErrCorrupt)
	assert.Contains(t, err.Error(), "size limit")
}

// A pool of one connection is refused: the one a writer holds would keep
// every page read and the health check waiting.
func TestOpen_OneConnectionRefused(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	_, err := pgresults.Open(t.Context(), dsn, pgresults.Options{Schema: schema, MaxConns: 1})
	require.ErrorContains(t, err, "pgresults: Options.MaxConns (or the DSN's pool_max_conns): expected at least 2, got 1")
	_, err = pgresults.Open(t.Context(), dsn+"&pool_max_conns=1", pgresults.Options{Schema: schema})
	require.ErrorContains(t, err, "expected at least 2, got 1")
	be, err := pgresults.Open(t.Context(), dsn, pgresults.Options{Schema: schema, MaxConns: 2})
	require.NoError(t, err)
	require.NoError(t, be.Close())
}

// The per-output cap counts the line index on PostgreSQL too: a text of
// nothing but line breaks (8 bytes of index a line) stores text and index
// within MaxOutputBytes — not eight times it in one transaction — and
// the same lines as on files.
func TestBackend_PerOutputCapCountsTheIndex(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	const capBytes = 1 << 20
	o := results.Options{MaxOutputBytes: capBytes}
	pg, files := openPG(t, dsn, schema, o), openFiles(t, o)
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	for _, text := range []string{strings.Repeat("\n", 2*capBytes), strings.Repeat("\r\n", capBytes)} {
		s, err := pg.Put(context.Background(), strings.NewReader(text))
		require.NoError(t, err)
		var textSize, indexSize, chunks int64
		require.NoError(t, conn.QueryRow(context.Background(), "SELECT text_size, index_size, (SELECT sum(length(data)) FROM "+
			pgx.Identifier{schema, "result_chunks"}.Sanitize()+" WHERE handle = $1) FROM "+pgx.Identifier{schema, "result_outputs"}.Sanitize()+
			" WHERE handle = $1", s.Handle).Scan(&textSize, &indexSize, &chunks))
		assert.LessOrEqual(t, textSize+indexSize, int64(capBytes), "text and index within the cap")
		assert.Greater(t, textSize+indexSize, int64(capBytes-20), "as many lines as fit")
		assert.Equal(t, textSize+indexSize-results.HeaderSize, chunks, "the chunks hold nothing more")
		assert.Contains(t, s.Summary, "cut at the store's limit of 1,048,576 bytes for the text and its line index")
		fs, err := files.Put(context.Background(), strings.NewReader(text))
		require.NoError(t, err)
		assert.Equal(t, fs.TotalLines, s.TotalLines)
		assert.Equal(t, fs.SizeBytes, s.SizeBytes)
	}
}

// A search of an output in PostgreSQL stops within a line's work of its
// caller's cancellation, however long the lines (the scan is the files'
// one, over Blobs): Options.Fuzzy, weighed as a table of edits, counts
// the lines matched and cancels at the third; at most one more is
// matched. (The scan looked at its context every 1,024 lines.)
func TestBackend_SearchStopsWithinALineOfCancellation(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	scored := 0
	st := openPG(t, dsn, schema, results.Options{Fuzzy: func(_, _ string) (float64, bool) {
		if scored++; scored == 3 {
			cancel()
		}
		return 1, true
	}})
	lines := make([]string, 64)
	for i := range lines {
		lines[i] = strings.Repeat("z", 16000)
	}
	s, err := st.Put(t.Context(), strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	_, err = st.Query(ctx, results.Request{Handle: s.Handle, Offset: 1, Limit: 10, Search: "x", Fuzzy: true})
	require.ErrorIs(t, err, context.Canceled)
	assert.LessOrEqual(t, scored, 4, "the search went on after its caller cancelled it")
}
