package pgresults_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/results/pgresults"
)

// openTimed opens a Store on a Backend of dsn whose statement timeout is
// timeout, closed when the test ends.
func openTimed(t *testing.T, dsn, schema string, timeout time.Duration, maxConns int32) (*pgresults.Backend, *results.Store) {
	t.Helper()
	be, err := pgresults.Open(context.Background(), dsn, pgresults.Options{Schema: schema, StatementTimeout: timeout, MaxConns: maxConns})
	require.NoError(t, err)
	st, err := results.Open(context.Background(), results.Options{Backend: be, Logger: quiet, MaxOutputBytes: 64 << 20})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return be, st
}

// paced is an output given piece by piece: each Read returns the next
// piece after waiting its pause, and counts the pieces given.
type paced struct {
	pieces []string
	pauses []time.Duration
	given  atomic.Int32
	r      io.Reader
}

func (p *paced) Read(b []byte) (int, error) {
	for {
		if p.r != nil {
			if n, err := p.r.Read(b); err != io.EOF {
				return n, err
			}
		}
		i := int(p.given.Load())
		if i == len(p.pieces) {
			return 0, io.EOF
		}
		time.Sleep(p.pauses[i])
		p.r = strings.NewReader(p.pieces[i])
		p.given.Add(1)
	}
}

// A write that lasts longer than the statement timeout — its source
// trickles lines, or pauses between chunks for longer than the timeout —
// is stored as on files: no statement lasts the whole write, and a
// transaction waiting on its source is not taken for one a frozen host
// left idle. Every line pages back.
func TestBackend_WriteOutlastsStatementTimeout(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	const timeout = time.Second
	_, st := openTimed(t, dsn, schema, timeout, 0)

	// Twelve lines, one every 300 ms: 3.6 s, past the timeout and the
	// client's margin after it.
	trickle := &paced{}
	for i := range 12 {
		trickle.pieces = append(trickle.pieces, fmt.Sprintf("line %d\n", i+1))
		trickle.pauses = append(trickle.pauses, 300*time.Millisecond)
	}
	s, err := st.Put(context.Background(), trickle)
	require.NoError(t, err, "a trickling output")
	p, err := st.Query(context.Background(), results.Request{Handle: s.Handle, Offset: 11, Limit: 5})
	require.NoError(t, err)
	assert.Equal(t, []string{"line 11", "line 12"}, p.Lines)

	// Chunks sent, then a pause of twice the timeout, then more chunks.
	block := func(k int) string {
		var b strings.Builder
		for b.Len() < pgresults.ChunkSize+1000 {
			fmt.Fprintf(&b, "block %d line %d\n", k, b.Len())
		}
		return b.String()
	}
	pausing := &paced{
		pieces: []string{block(1), block(2), block(3), block(4)},
		pauses: []time.Duration{0, 200 * time.Millisecond, 2 * timeout, 200 * time.Millisecond},
	}
	s, err = st.Put(context.Background(), pausing)
	require.NoError(t, err, "an output pausing between its chunks")
	want := strings.Split(strings.TrimSuffix(strings.Join(pausing.pieces, ""), "\n"), "\n")
	require.Equal(t, len(want), s.TotalLines)
	for _, off := range []int{1, len(want) / 2, len(want)} {
		p, err := st.Query(context.Background(), results.Request{Handle: s.Handle, Offset: off, Limit: 1})
		require.NoError(t, err)
		assert.Equal(t, want[off-1:off], p.Lines)
	}
}

// A database that stops answering part-way through a long write is
// still found within about one statement timeout: the Put fails as
// unavailable long before its source ends, and nothing of the output is
// left. (Here the network drops every byte, so the server, hearing
// nothing, ends the idle transaction; a frozen server would leave it to
// the client's deadline on the statement waiting for its answer.)
func TestBackend_StalledMidWriteFailsSoon(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	outage, via := pgtest.NewOutage(t, dsn)
	_, st := openTimed(t, via, schema, time.Second, 0)
	src := &paced{}
	for i := range 200 { // 200 chunks, 100 ms apart: 20 s
		src.pieces = append(src.pieces, strings.Repeat(fmt.Sprintf("piece %03d\n", i), pgresults.ChunkSize/10))
		src.pauses = append(src.pauses, 100*time.Millisecond)
	}
	go func() {
		for src.given.Load() < 5 {
			time.Sleep(10 * time.Millisecond)
		}
		outage.Silence()
	}()
	_, err := st.Put(context.Background(), src)
	require.ErrorIs(t, err, results.ErrUnavailable)
	assert.Less(t, int(src.given.Load()), len(src.pieces)/2, "the write went on long after the database stopped answering")
	outage.Down() // closes the silenced connections rather than have the pool wait on each as it closes
	assertEmpty(t, dsn, schema)
}

// Large outputs queued behind a database that stopped answering do not
// each wait for the one before to give up: every Put fails as
// unavailable within about one statement timeout (here 2 s; a writer's
// own statements are given a margin of as long again), where writers
// waiting for their turn used to fail one timeout after another (4, 8,
// 12, 16 s for 12 writers on 3 writing connections).
func TestBackend_WritersBehindStalledDatabaseFailTogether(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	outage, via := pgtest.NewOutage(t, dsn)
	const timeout = 2 * time.Second
	_, st := openTimed(t, via, schema, timeout, 4) // 3 writers at once
	_, err := st.Put(context.Background(), strings.NewReader("the database answers\n"))
	require.NoError(t, err)
	outage.Silence()

	start := time.Now()
	var wg sync.WaitGroup
	took := make([]time.Duration, 12)
	errs := make([]error, len(took))
	for i := range took {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = st.Put(context.Background(), strings.NewReader(strings.Repeat("a large output\n", 100_000)))
			took[i] = time.Since(start)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.ErrorIs(t, err, results.ErrUnavailable, "writer %d", i)
		// One statement timeout and its margin (4 s), and as long again
		// for a loaded machine: the next turn of the old queue came at 8 s.
		assert.Less(t, took[i], 4*timeout-500*time.Millisecond, "writer %d", i)
	}
	t.Logf("writers failed after %v", took)
	outage.Down() // connections still being made fail now, not at their connect timeout
}

// A writer waits its turn for as long as the database answers the writer
// ahead, even past the statement timeout: a long write on a healthy
// database does not fail the outputs queued behind it.
func TestBackend_WriterWaitsItsTurnWhileTheDatabaseAnswers(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	const timeout = time.Second
	_, st := openTimed(t, dsn, schema, timeout, 2) // one writer at once
	slow := &paced{pieces: []string{"first\n", "second\n"}, pauses: []time.Duration{0, 4 * timeout}}
	done := make(chan error, 1)
	go func() {
		_, err := st.Put(context.Background(), slow)
		done <- err
	}()
	require.Eventually(t, func() bool { return slow.given.Load() > 0 }, 10*time.Second, 10*time.Millisecond)
	queued, err := st.Put(context.Background(), strings.NewReader("queued\n"))
	require.NoError(t, err, "the output queued behind a long write")
	require.NoError(t, <-done)
	p, err := st.Query(context.Background(), results.Request{Handle: queued.Handle, Offset: 1, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"queued"}, p.Lines)
}

// A host that paged an output remembers its row; when another host
// evicts the output, a page past its end — which reads no line — reports
// it expired as the other host does, not an empty page.
func TestBackend_RemovedElsewherePastTheEndIsExpired(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	a := openPG(t, dsn, schema, results.Options{})
	lines := make([]string, 100)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	stored, err := a.Put(context.Background(), strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	empty, err := a.Put(context.Background(), strings.NewReader(""))
	require.NoError(t, err)
	for _, h := range []string{stored.Handle, empty.Handle} {
		_, err = a.Query(context.Background(), results.Request{Handle: h, Offset: 1, Limit: 10})
		require.NoError(t, err)
	}

	b := openPG(t, dsn, schema, results.Options{MaxDirBytes: 300_000, MaxOutputBytes: 200_000, SweepInterval: 50 * time.Millisecond})
	for i := range 3 {
		_, err := b.Put(context.Background(), strings.NewReader(strings.Repeat(fmt.Sprintf("output %d of host b\n", i), 6_000)))
		require.NoError(t, err)
	}
	for _, h := range []string{stored.Handle, empty.Handle} {
		_, err = b.Query(context.Background(), results.Request{Handle: h, Offset: 1, Limit: 1})
		require.ErrorIs(t, err, results.ErrExpired, "host b evicted it")
		for _, off := range []int{101, 5000, 1} {
			if h == stored.Handle && off == 1 {
				continue // a page with lines: TestBackend_RemovedByAnotherHostAfterPaging
			}
			_, err = a.Query(context.Background(), results.Request{Handle: h, Offset: off, Limit: 10})
			require.ErrorIs(t, err, results.ErrExpired, "offset %d", off)
			assert.Contains(t, err.Error(), "size limit")
		}
		_, err = a.Query(context.Background(), results.Request{Handle: h, Offset: 1, Limit: 10, Search: "x"})
		require.ErrorIs(t, err, results.ErrExpired, "a search")
	}
}

// A write whose connection the server ended (a restart, a failover; the
// database itself answers) gives its writer's turn back at once and fails
// at its source's next write: before, a slow source kept the dead write's
// turn until it ended, and the output queued behind it failed as
// unavailable ("the database answered none…") on a healthy database.
func TestBackend_DeadWriteGivesItsTurnBackAtOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	const timeout = time.Second
	_, st := openTimed(t, dsn, schema, timeout, 2) // one writer at once
	slow := &paced{}
	for i := range 40 { // 40 lines, 250 ms apart: 10 s
		slow.pieces = append(slow.pieces, fmt.Sprintf("line %d\n", i))
		slow.pauses = append(slow.pauses, 250*time.Millisecond)
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.Put(context.Background(), slow)
		done <- err
	}()
	require.Eventually(t, func() bool { return slow.given.Load() > 1 }, 10*time.Second, 10*time.Millisecond)
	c, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer c.Close(context.Background())
	var n int
	require.NoError(t, c.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1 AND state LIKE 'idle in transaction%'`, "pgresults:"+schema).Scan(&n))
	require.Equal(t, 1, n)

	h, err := st.Put(context.Background(), strings.NewReader("queued\n"))
	require.NoError(t, err, "the database answers: the output queued behind the dead write is stored")
	assert.NotEmpty(t, h.Handle)
	require.Error(t, <-done)
	assert.Less(t, int(slow.given.Load()), len(slow.pieces), "the dead write failed before its source ended")
}
