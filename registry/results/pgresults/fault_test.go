package pgresults_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/results/pgresults"
)

// A writer killed (SIGKILL) while it stores a large output leaves no
// output and no chunk of it: its transaction dies with its connection.
func TestFault_KilledWriterLeavesNothing(t *testing.T) {
	dsn := pgtest.DSN(t)
	if os.Getenv("PGRESULTS_TEST_WRITER") != "" {
		return // the child: see TestWriterChild
	}
	schema := pgtest.FreshSchema(t, dsn)
	be := openBackend(t, dsn, schema) // migrate before the child starts
	defer be.Close()
	for _, wait := range []time.Duration{0, 30 * time.Millisecond, 150 * time.Millisecond} {
		cmd := pgtest.StartWriter(t, "TestWriterChild", "PGRESULTS_TEST_WRITER="+schema, "writing now")
		time.Sleep(wait)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		assertEmpty(t, dsn, schema)
		t.Logf("killed %s into the write: nothing stored", wait)
	}
}

// TestWriterChild is the writer of TestFault_KilledWriterLeavesNothing: it
// stores an endless output (until killed); it does nothing unless
// PGRESULTS_TEST_WRITER is set.
func TestWriterChild(t *testing.T) {
	schema := os.Getenv("PGRESULTS_TEST_WRITER")
	if schema == "" {
		t.Skip("run by TestFault_KilledWriterLeavesNothing")
	}
	dsn := pgtest.DSN(t)
	be, err := pgresults.Open(context.Background(), dsn, pgresults.Options{Schema: schema})
	require.NoError(t, err)
	st, err := results.Open(context.Background(), results.Options{Backend: be, MaxOutputBytes: 1 << 40, MaxDirBytes: 1 << 41, Logger: quiet})
	require.NoError(t, err)
	fmt.Println("writing now")
	_, _ = st.Put(context.Background(), endless{})
	t.Fatal("the output ended: the parent should have killed this process")
}

// endless is an output of endless lines, slowed a little.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	for i := range p {
		p[i] = 'a' + byte(i%26)
		if i%100 == 99 {
			p[i] = '\n'
		}
	}
	return len(p), nil
}

// The database dropping the store's connections (a restart, a failover,
// an operator) costs no read: a read whose connection was lost drops the
// pool's connections and runs again on a new one, so every page is served
// and none is wrong.
func TestFault_ConnectionsDropped(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	st := openPG(t, dsn, schema, results.Options{})
	lines := make([]string, 20_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	stored, err := st.Put(context.Background(), strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	admin, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer admin.Close(context.Background())
	for i := range 40 {
		if i%5 == 2 {
			// Only this test's pool: other packages' tests share the database.
			_, err := admin.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, "pgresults:"+schema)
			require.NoError(t, err)
		}
		off := 1 + (i*997)%20_000
		p, err := st.Query(context.Background(), results.Request{Handle: stored.Handle, Offset: off, Limit: 2})
		require.NoError(t, err, "query %d, after %d drops", i, (i+3)/5)
		require.Equal(t, fmt.Sprintf("line %d", off), p.Lines[0])
	}
	p, err := st.Query(context.Background(), results.Request{Handle: stored.Handle, Offset: 20_000, Limit: 1})
	require.NoError(t, err, "served again after the drops")
	require.Equal(t, []string{"line 20000"}, p.Lines)
}

// The database dropping the store's connections costs no stored output: a
// write that finds its connection gone before it began runs again on a new
// one, so the output is stored, not returned inline.
func TestFault_PutAfterConnectionsDropped(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	st := openPG(t, dsn, schema, results.Options{})
	admin, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer admin.Close(context.Background())
	text := strings.Repeat("a line of output\n", 5000)
	for i := range 10 {
		_, err := st.Put(context.Background(), strings.NewReader(text))
		require.NoError(t, err, "put %d", i)
		_, err = admin.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, "pgresults:"+schema)
		require.NoError(t, err)
		stored, err := st.Put(context.Background(), strings.NewReader(text))
		require.NoError(t, err, "put right after the connections were dropped (round %d)", i)
		p, err := st.Query(context.Background(), results.Request{Handle: stored.Handle, Offset: 5000, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, []string{"a line of output"}, p.Lines)
	}
}

// A Put whose COMMIT reached the database but whose answer was lost (the
// connection cut right after it) is a stored output: the store asks the
// database whether it committed and returns the handle, which pages as
// any other.
func TestFault_CommitAnswerLostIsStored(t *testing.T) {
	_, _, outage, st := storeBehindOutage(t)
	ctx := context.Background()
	outage.CutNextCommit()
	stored, err := st.Put(ctx, strings.NewReader(strings.Repeat("a line of output\n", 5000)))
	require.NoError(t, err)
	p, err := st.Query(ctx, results.Request{Handle: stored.Handle, Offset: 4999, Limit: 5})
	require.NoError(t, err)
	assert.Equal(t, []string{"a line of output", "a line of output"}, p.Lines)
}

// The database going away: reading a stored output, or storing one,
// fails with results.ErrUnavailable (ot.result answers "try again in a
// moment"), never not-found, expired or corrupt; once the database is
// back the same page is served and outputs are stored again.
func TestFault_DatabaseAwayIsUnavailable(t *testing.T) {
	_, _, outage, st := storeBehindOutage(t)
	ctx := context.Background()
	text := strings.Repeat("a line of output\n", 5000)
	stored, err := st.Put(ctx, strings.NewReader(text))
	require.NoError(t, err)

	outage.Down()
	for _, req := range []results.Request{
		{Handle: stored.Handle, Offset: 4000, Limit: 2},
		{Handle: stored.Handle, Offset: 1, Limit: 5, Search: "line"},
		{Handle: strings.Repeat("ab", 16), Offset: 1, Limit: 1}, // a handle this host never saw
	} {
		_, err = st.Query(ctx, req)
		require.ErrorIs(t, err, results.ErrUnavailable, "%+v", req)
		for _, not := range []error{results.ErrNotFound, results.ErrExpired, results.ErrCorrupt} {
			assert.NotErrorIs(t, err, not, "%+v", req)
		}
	}
	_, err = st.Put(ctx, strings.NewReader(text))
	require.ErrorIs(t, err, results.ErrUnavailable, "a put")

	outage.Up()
	p, err := st.Query(ctx, results.Request{Handle: stored.Handle, Offset: 4000, Limit: 2})
	require.NoError(t, err, "the database is back")
	assert.Equal(t, []string{"a line of output", "a line of output"}, p.Lines)
	_, err = st.Put(ctx, strings.NewReader(text))
	require.NoError(t, err)
}

// A COMMIT lost on its way (the connection broke as it was sent) is an
// output not stored: the store asks the database, which rolled the
// transaction back, and the Put fails with results.ErrUnavailable (the
// caller gets the output inline) with no row or chunk of it left; the
// next Put is stored.
func TestFault_CommitLostIsNotStored(t *testing.T) {
	dsn, schema, outage, st := storeBehindOutage(t)
	ctx := context.Background()
	text := strings.Repeat("a line of output\n", 5000)
	outage.LoseNextCommit()
	_, err := st.Put(ctx, strings.NewReader(text))
	require.ErrorIs(t, err, results.ErrUnavailable)
	assertEmpty(t, dsn, schema)
	stored, err := st.Put(ctx, strings.NewReader(text))
	require.NoError(t, err, "the next put")
	p, err := st.Query(ctx, results.Request{Handle: stored.Handle, Offset: 5000, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"a line of output"}, p.Lines)
}

// storeBehindOutage opens a store on a fresh schema of the test database,
// reached through an Outage relay.
func storeBehindOutage(t *testing.T) (dsn, schema string, outage *pgtest.Outage, st *results.Store) {
	t.Helper()
	dsn = pgtest.DSN(t)
	schema = pgtest.FreshSchema(t, dsn)
	outage, via := pgtest.NewOutage(t, dsn)
	return dsn, schema, outage, openPG(t, via, schema, results.Options{})
}
