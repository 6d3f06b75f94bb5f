package pgpool_test

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
)

//go:embed testdata/migrations/*.sql
var testMigrations embed.FS

// A DSN that does not parse is refused without being quoted (it may hold
// a password), and a schema that would need quoting is refused by name.
func ExampleOpen() {
	_, err := pgpool.Open(context.Background(), "mystore", pgpool.Config{DSN: "postgres://u:s3cret@[db"})
	fmt.Println(err)
	_, err = pgpool.Open(context.Background(), "mystore", pgpool.Config{DSN: "postgres://db/x", Schema: "Robert'); DROP"})
	fmt.Println(err)
	// Output:
	// mystore: the DSN does not parse (expected postgres://user:password@host:port/db or key=value pairs)
	// mystore: Options.Schema: expected a lower-case identifier of at most 63 characters (letters, digits, _) not starting with pg_ and not information_schema (PostgreSQL's own), got "Robert'); DROP"
}

// A pool's connections use the schema as their search_path, UTC and the
// statement timeout, and name themselves "what:schema".
func TestOpen_SessionSettings(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	pool, err := pgpool.Open(context.Background(), "probe", pgpool.Config{DSN: dsn, Schema: schema, StatementTimeout: 1500 * time.Millisecond, MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	var path, tz, timeout, app string
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT current_setting('search_path'), current_setting('TimeZone'), current_setting('statement_timeout'), current_setting('application_name')`).
		Scan(&path, &tz, &timeout, &app))
	assert.Equal(t, schema, path)
	assert.Equal(t, "UTC", tz)
	assert.Equal(t, "1500ms", timeout)
	var idle string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT current_setting('idle_in_transaction_session_timeout')`).Scan(&idle))
	assert.Equal(t, "1500ms", idle, "an idle transaction ends as a statement would")
	assert.Equal(t, "probe:"+schema, app)
	assert.Equal(t, int32(2), pool.Config().MaxConns)
}

// A statement_timeout written in the DSN stands when the configuration
// sets none (in milliseconds or with PostgreSQL's units), the
// configuration's wins over it, and one that is not a bounded duration is
// refused naming it.
func TestOpen_DSNStatementTimeoutHonoured(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	with := func(v string) string {
		if strings.Contains(dsn, "?") {
			return dsn + "&statement_timeout=" + v
		}
		return dsn + "?statement_timeout=" + v
	}
	settings := func(t *testing.T, cfg pgpool.Config) (timeout, idle string) {
		t.Helper()
		pool, err := pgpool.Open(context.Background(), "probe", cfg)
		require.NoError(t, err)
		defer pool.Close()
		require.NoError(t, pool.QueryRow(context.Background(),
			`SELECT current_setting('statement_timeout'), current_setting('idle_in_transaction_session_timeout')`).Scan(&timeout, &idle))
		return timeout, idle
	}
	for raw, want := range map[string]string{"300": "300ms", "2s": "2s", "1min": "1min", "+1.5s": "1500ms", " 250 ms ": "250ms"} {
		timeout, idle := settings(t, pgpool.Config{DSN: with(url.PathEscape(raw)), Schema: schema})
		assert.Equal(t, want, timeout, "the DSN's statement_timeout=%s", raw)
		assert.Equal(t, want, idle, "idle transactions end as a statement would")
	}
	// As libpq and PGOPTIONS write it: in the options.
	optioned := strings.Replace(with("1"), "statement_timeout=1", "options=-c%20statement_timeout%3D4s", 1)
	timeout, _ := settings(t, pgpool.Config{DSN: optioned, Schema: schema})
	assert.Equal(t, "4s", timeout, "statement_timeout in the DSN's options")
	// The DSN cannot lengthen (or turn off) the idle-transaction bound:
	// a frozen host would hold its row locks.
	_, idle := settings(t, pgpool.Config{DSN: with("300") + "&idle_in_transaction_session_timeout=0", Schema: schema})
	assert.Equal(t, "300ms", idle)
	timeout, _ = settings(t, pgpool.Config{DSN: with("300"), Schema: schema, StatementTimeout: 1500 * time.Millisecond})
	assert.Equal(t, "1500ms", timeout, "the configuration's statement timeout wins")

	for _, bad := range []string{"0", "abc", "5 fortnights", "2h"} {
		_, err := pgpool.Open(context.Background(), "probe", pgpool.Config{DSN: with(url.QueryEscape(bad)), Schema: schema})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "probe: the DSN's statement_timeout: expected", bad)
		assert.NotContains(t, err.Error(), "toolpack_ci:toolpack_ci", "never the DSN's password")
	}
}

// A transaction left idle by a host that stopped mid-way (a process
// frozen, a network split) is ended by the server once it has been idle
// as long as a statement may run, so the row locks it holds do not stop
// every other host's writes to those rows for as long as it stays away.
func TestOpen_IdleTransactionEndedReleasingItsLocks(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx := context.Background()
	pool, err := pgpool.Open(ctx, "idle", pgpool.Config{DSN: dsn, Schema: schema, StatementTimeout: 300 * time.Millisecond, MaxConns: 4})
	require.NoError(t, err)
	defer pool.Close()
	_, err = pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema+`; CREATE TABLE t (x int PRIMARY KEY); INSERT INTO t VALUES (1)`)
	require.NoError(t, err)

	frozen, err := pool.Begin(ctx)
	require.NoError(t, err)
	_, err = frozen.Exec(ctx, `SELECT x FROM t WHERE x = 1 FOR UPDATE`)
	require.NoError(t, err)
	// Another host's write waits for the lock, and gets it once the idle
	// transaction is ended; until then it fails at its own statement
	// timeout, so it is tried until it passes.
	require.Eventually(t, func() bool {
		_, err := pool.Exec(ctx, `UPDATE t SET x = 1 WHERE x = 1`)
		return err == nil
	}, 20*time.Second, 50*time.Millisecond)
	assert.Error(t, frozen.Commit(ctx), "the idle transaction was ended by the server")
}

// A lost connection is told from a failed statement: only the first is
// worth a new connection and a second try.
func TestConnectionLost(t *testing.T) {
	ctx := context.Background()
	done, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"terminated by an operator", ctx, &pgconn.PgError{Code: "57P01"}, true},
		{"server shutting down", ctx, fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "57P02"}), true},
		{"connection exception", ctx, &pgconn.PgError{Code: "08006"}, true},
		{"idle session timeout", ctx, &pgconn.PgError{Code: "57P05"}, true},
		{"idle in transaction session timeout", ctx, &pgconn.PgError{Code: "25P03"}, true},
		{"network", ctx, &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}, true},
		{"stream cut", ctx, io.ErrUnexpectedEOF, true},
		{"unique violation", ctx, &pgconn.PgError{Code: "23505"}, false},
		{"statement timeout", ctx, &pgconn.PgError{Code: "57014"}, false},
		{"no rows", ctx, pgx.ErrNoRows, false},
		{"a plain error", ctx, errors.New("chunks longer than the output"), false},
		{"caller cancelled", ctx, context.Canceled, false},
		{"network error after the caller gave up", done, io.ErrUnexpectedEOF, false},
		{"none", ctx, nil, false},
	} {
		assert.Equal(t, c.want, pgpool.ConnectionLost(c.ctx, c.err), c.name)
	}
}

// A database host that takes the connection but never answers (a hung
// server, a proxy with nothing behind it) fails a caller after the
// connect timeout — 10 s unless the DSN says connect_timeout — instead of
// holding it until its context ends; the failure is "unavailable", and a
// read is not tried again on another connection that would wait as long.
func TestConnectTimeout_SilentDatabase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var mu sync.Mutex
	var held []net.Conn
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // take it, say nothing
			mu.Unlock()
		}
	}()
	base := "postgres://u:pw@" + ln.Addr().String() + "/db?sslmode=disable"

	pool, err := pgpool.Open(context.Background(), "silent", pgpool.Config{DSN: base})
	require.NoError(t, err, "the pool connects lazily")
	assert.Equal(t, pgpool.DefaultConnectTimeout, pool.Config().ConnConfig.ConnectTimeout, "a DSN without connect_timeout gets the default")
	pool.Close()

	pool, err = pgpool.Open(context.Background(), "silent", pgpool.Config{DSN: base + "&connect_timeout=1"})
	require.NoError(t, err)
	defer pool.Close()
	assert.Equal(t, time.Second, pool.Config().ConnConfig.ConnectTimeout, "the DSN's connect_timeout is kept")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // the test's own bound, never reached
	defer cancel()
	reads := 0
	err = pgpool.ReadRetrying(ctx, pool, func() error { reads++; return pool.Ping(ctx) })
	require.Error(t, err)
	require.NoError(t, ctx.Err(), "the connect timeout ended the wait, not the caller's context")
	assert.True(t, pgpool.ConnectionLost(ctx, err), "a connection that could not be made in time: %v", err)
	away := errors.New("pkg: unavailable")
	assert.ErrorIs(t, pgpool.Classify(ctx, err, away), away)
	assert.NotContains(t, err.Error(), "pw")
	assert.Equal(t, 1, reads, "not tried again on a new connection")
}

// An error meaning the database cannot be reached is marked with the
// package's sentinel, once, keeping its cause; any other error, a
// cancelled caller's and nil are returned as they are.
func TestClassify(t *testing.T) {
	ctx := context.Background()
	away := errors.New("pkg: unavailable")
	dial := &net.OpError{Op: "dial", Err: errors.New("connect: connection refused")}

	err := pgpool.Classify(ctx, fmt.Errorf("connecting: %w", dial), away)
	assert.ErrorIs(t, err, away)
	var op *net.OpError
	assert.ErrorAs(t, err, &op, "the cause stays in the chain")
	assert.Equal(t, err, pgpool.Classify(ctx, err, away), "marked once")

	unique := &pgconn.PgError{Code: "23505"}
	assert.Equal(t, error(unique), pgpool.Classify(ctx, unique, away))
	assert.NoError(t, pgpool.Classify(ctx, nil, away))
	done, cancel := context.WithCancel(ctx)
	cancel()
	assert.NotErrorIs(t, pgpool.Classify(done, io.ErrUnexpectedEOF, away), away, "the caller gave up")
}

// The database declining work for now — no connection to spare, out of
// resources, a statement ended at the server's statement timeout — is
// marked unavailable like a lost connection (a 503 and "try again", not an
// internal error), keeping its cause; a cancel by someone else is not.
func TestClassify_DatabaseDecliningForNowIsUnavailable(t *testing.T) {
	ctx := context.Background()
	away := errors.New("pkg: unavailable")
	for code, why := range map[string]string{
		"53300": "no connection to spare",
		"53200": "out of resources",
		"53100": "out of resources",
	} {
		err := pgpool.Classify(ctx, fmt.Errorf("query: %w", &pgconn.PgError{Code: code}), away)
		assert.ErrorIs(t, err, away, code)
		assert.Contains(t, err.Error(), why, code)
		var pe *pgconn.PgError
		assert.ErrorAs(t, err, &pe, code)
	}
	assert.NotErrorIs(t, pgpool.Classify(ctx, &pgconn.PgError{Code: "55000"}, away), away, "55000 is refused work only at connect")

	// A real statement ended by the server's statement timeout.
	dsn := pgtest.DSN(t)
	pool, err := pgpool.Open(ctx, "timeouttest", pgpool.Config{DSN: dsn, Schema: pgtest.FreshSchema(t, dsn), MaxConns: 1, StatementTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `SELECT pg_sleep(5)`)
	require.Error(t, err)
	err = pgpool.Classify(ctx, err, away)
	assert.ErrorIs(t, err, away)
	assert.Contains(t, err.Error(), "statement timeout")
}

// A statement the database did not answer in time — ended at the
// server's statement timeout, or at its lock timeout, behind a lock held
// elsewhere — is unavailable (try again) and also matches ErrTimeout, so
// that a caller can say "busy" rather than "cannot be reached"; its text
// and cause are kept. The database away, out of resources, or refusing a
// NOWAIT lock is not a timeout.
func TestClassify_TimeoutsMatchErrTimeout(t *testing.T) {
	ctx := context.Background()
	away := errors.New("pkg: unavailable")
	for _, pe := range []*pgconn.PgError{
		{Code: "57014", Message: "canceling statement due to statement timeout"},
		{Code: "55P03", Message: "canceling statement due to lock timeout"},
	} {
		err := pgpool.Classify(ctx, fmt.Errorf("query: %w", pe), away)
		assert.ErrorIs(t, err, away, pe.Message)
		assert.ErrorIs(t, err, pgpool.ErrTimeout, pe.Message)
		var got *pgconn.PgError
		assert.ErrorAs(t, err, &got, "the cause stays in the chain")
		assert.Equal(t, err, pgpool.Classify(ctx, err, away), "marked once")
	}
	dial := &net.OpError{Op: "dial", Err: errors.New("connect: connection refused")}
	for _, err := range []error{dial, &pgconn.PgError{Code: "53300"}} {
		assert.NotErrorIs(t, pgpool.Classify(ctx, err, away), pgpool.ErrTimeout, "%v", err)
	}
	nowait := &pgconn.PgError{Code: "55P03", Message: `could not obtain lock on row in relation "t"`}
	assert.Equal(t, error(nowait), pgpool.Classify(ctx, nowait, away), "a NOWAIT lock refused is the statement's own failure")

	// Real statements waiting on a table another session holds locked.
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	pool, err := pgpool.Open(ctx, "timeouttest", pgpool.Config{DSN: dsn, Schema: schema, MaxConns: 2, StatementTimeout: 300 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()+`; CREATE TABLE held (n int)`)
	require.NoError(t, err)
	holder, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer holder.Close(ctx)
	tx, err := holder.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck // the test's end releases the lock
	_, err = tx.Exec(ctx, `LOCK TABLE `+pgx.Identifier{schema, "held"}.Sanitize()+` IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)

	_, err = pool.Exec(ctx, `SELECT count(*) FROM held`)
	require.Error(t, err)
	err = pgpool.Classify(ctx, err, away)
	assert.ErrorIs(t, err, away)
	assert.ErrorIs(t, err, pgpool.ErrTimeout)
	assert.Contains(t, err.Error(), "statement timeout")

	err = pgpool.TxRetrying(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '50ms'`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO held VALUES (1)`)
		return err
	})
	require.Error(t, err)
	err = pgpool.Classify(ctx, err, away)
	assert.ErrorIs(t, err, away)
	assert.ErrorIs(t, err, pgpool.ErrTimeout)
	assert.Contains(t, err.Error(), "lock timeout")
}

// A statement cancelled because its context ended matches the context's
// error, even when the server reported the cancel as its own (57014), so
// callers can tell "I gave up" from a failing database.
func TestClassify_EndedContextMatchesIt(t *testing.T) {
	away := errors.New("pkg: unavailable")
	cancelled := &pgconn.PgError{Code: "57014", Message: "canceling statement due to user request"}

	done, cancel := context.WithCancel(context.Background())
	cancel()
	err := pgpool.Classify(done, cancelled, away)
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, away)
	var pe *pgconn.PgError
	assert.ErrorAs(t, err, &pe, "the server's error stays in the chain")
	assert.Equal(t, err, pgpool.Classify(done, err, away), "marked once")

	late, stop := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer stop()
	assert.ErrorIs(t, pgpool.Classify(late, cancelled, away), context.DeadlineExceeded)

	assert.Equal(t, error(cancelled), pgpool.Classify(context.Background(), cancelled, away),
		"a statement cancelled by someone else (pg_cancel_backend) is left as it is")
	unique := &pgconn.PgError{Code: "23505"}
	assert.Equal(t, error(unique), pgpool.Classify(done, unique, away),
		"a statement's own failure is not blamed on the context that ended after it")
}

// A transaction whose connection is lost before it commits was rolled back
// by the server: it runs once more, whole, on a new connection, and what
// it wrote is there once. A transaction failing for another reason is not
// run again.
func TestTxRetrying(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	pool, count := tableT(t, dsn, pgtest.FreshSchema(t, dsn))

	runs := 0
	err := pgpool.TxRetrying(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		runs++
		if _, err := tx.Exec(ctx, `INSERT INTO t VALUES (1)`); err != nil {
			return err
		}
		if runs == 1 {
			// The server ends this transaction's own session.
			_, err := tx.Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
			require.Error(t, err)
			return err
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, runs)
	assert.Equal(t, 1, count(), "the first run's insert was rolled back, the second committed")

	runs = 0
	err = pgpool.TxRetrying(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		runs++
		_, err := tx.Exec(ctx, `INSERT INTO t VALUES (2), (1)`)
		return err
	})
	var pe *pgconn.PgError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "23505", pe.Code)
	assert.Equal(t, 1, runs, "a failed statement is not run again")
	assert.Equal(t, 1, count(), "and rolled back")
}

// tableT opens a pool on schema of dsn with a table t (x int PRIMARY KEY)
// and returns it with a function counting t's rows.
func tableT(t *testing.T, dsn, schema string) (*pgxpool.Pool, func() int) {
	t.Helper()
	ctx := context.Background()
	pool, err := pgpool.Open(ctx, "txtest", pgpool.Config{DSN: dsn, Schema: schema, MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema+`; CREATE TABLE t (x int PRIMARY KEY)`)
	require.NoError(t, err)
	return pool, func() (n int) {
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n))
		return n
	}
}

// A COMMIT whose answer is lost (the connection cut right after it reached
// the database, which committed): TxRetrying can only report the error,
// and a writer retrying its batch would store it twice; TxSettled asks the
// database on a new connection and reports the commit as the success it
// was, without running the transaction again. Losses before COMMIT, and a
// COMMIT lost on its way (the database says aborted), are run again.
func TestTxSettled_CommitWithLostAnswerIsSuccess(t *testing.T) {
	dsn := pgtest.DSN(t)
	out, relayed := pgtest.NewOutage(t, dsn)
	ctx := context.Background()
	pool, count := tableT(t, relayed, pgtest.FreshSchema(t, dsn))
	insert := func(x int, runs *int) func(pgx.Tx) error {
		return func(tx pgx.Tx) error {
			*runs++
			_, err := tx.Exec(ctx, `INSERT INTO t VALUES ($1)`, x)
			return err
		}
	}

	runs := 0
	out.CutNextCommit()
	err := pgpool.TxRetrying(ctx, pool, pgx.TxOptions{}, insert(1, &runs))
	require.Error(t, err, "TxRetrying cannot tell")
	assert.Eventually(t, func() bool { return count() == 1 }, 10*time.Second, 5*time.Millisecond,
		"yet the transaction committed (the database may finish the COMMIT after the client gave up)")

	runs = 0
	out.CutNextCommit()
	require.NoError(t, pgpool.TxSettled(ctx, pool, pgx.TxOptions{}, insert(2, &runs)))
	assert.Equal(t, 1, runs, "not run again: it committed")
	assert.Equal(t, 2, count())

	runs = 0
	err = pgpool.TxSettled(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		runs++
		if _, err := tx.Exec(ctx, `INSERT INTO t VALUES (3)`); err != nil {
			return err
		}
		if runs == 1 {
			_, err := tx.Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
			return err
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, runs, "lost before COMMIT: run once more")
	assert.Equal(t, 3, count())

	runs = 0
	err = pgpool.TxSettled(ctx, pool, pgx.TxOptions{}, insert(3, &runs))
	var pe *pgconn.PgError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "23505", pe.Code)
	assert.Equal(t, 1, runs, "a failed statement is not run again")

	// The database away for a moment after the cut (a restart): asked
	// again until it answers, it says committed.
	runs = 0
	out.CutNextCommitAndStayAway(400 * time.Millisecond)
	require.NoError(t, pgpool.TxSettled(ctx, pool, pgx.TxOptions{}, insert(5, &runs)))
	assert.Equal(t, 1, runs, "not run again: it committed, as the database said once back")
	assert.Equal(t, 4, count())

	runs = 0
	out.LoseNextCommit()
	require.NoError(t, pgpool.TxSettled(ctx, pool, pgx.TxOptions{}, insert(4, &runs)))
	assert.Equal(t, 2, runs, "the COMMIT never reached the database, which says aborted: run once more")
	assert.Equal(t, 5, count())
}

// A COMMIT whose answer never comes on a connection that stays open (a
// proxy that forwards the COMMIT and then stalls): the client's deadline
// ends the wait, and TxSettled asks the database, which committed, so the
// write is a success stored once, where it was reported failed and then
// stored again by the writer's retry.
func TestTxSettled_StalledCommitIsSettled(t *testing.T) {
	dsn := pgtest.DSN(t)
	out, relayed := pgtest.NewOutage(t, dsn)
	ctx := context.Background()
	schema := pgtest.FreshSchema(t, dsn)
	_, count := tableT(t, relayed, schema)
	pool, err := pgpool.Open(ctx, "stalltest", pgpool.Config{DSN: relayed, Schema: schema, MaxConns: 2, StatementTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	t.Cleanup(out.Down) // first: the stalled connection's close would wait for pgx's own timeout

	runs := 0
	out.StallNextCommit()
	start := time.Now()
	err = pgpool.TxSettled(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		runs++
		_, err := tx.Exec(ctx, `INSERT INTO t VALUES (1)`)
		return err
	})
	require.NoError(t, err, "the database says it committed")
	assert.Equal(t, 1, runs, "not run again")
	assert.Equal(t, 1, count())
	t.Logf("settled in %v", time.Since(start).Round(time.Millisecond))
}

// Ping answers for a pool whose every connection is at work (long
// queries): it asks on a connection of its own rather than waiting for
// one of the pool's, so a busy database is not reported unreachable.
func TestPing_BusyPoolIsReachable(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	pool, err := pgpool.Open(ctx, "pingtest", pgpool.Config{DSN: dsn, Schema: pgtest.FreshSchema(t, dsn), MaxConns: 1})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	held, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer held.Release()
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	assert.NoError(t, pgpool.Ping(pctx, pool))

	out, relayed := pgtest.NewOutage(t, dsn)
	away, err := pgpool.Open(ctx, "pingaway", pgpool.Config{DSN: relayed, Schema: pgtest.FreshSchema(t, dsn), MaxConns: 1})
	require.NoError(t, err)
	t.Cleanup(away.Close)
	held2, err := away.Acquire(ctx)
	require.NoError(t, err)
	defer held2.Release()
	out.Down()
	assert.Error(t, pgpool.Ping(pctx, away), "a busy pool of a database that went away is still found unreachable")
}

// Hosts starting at once on a fresh database each create the schema and
// apply the migrations: exactly one does, none fails.
func TestMigrate_HostsStartingAtOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	for round := range 5 {
		schema := pgtest.FreshSchema(t, dsn)
		errs := make(chan error, 6)
		for range 6 {
			go func() {
				pool, err := pgpool.Open(context.Background(), "race", pgpool.Config{DSN: dsn, Schema: schema, MaxConns: 1})
				if err != nil {
					errs <- err
					return
				}
				defer pool.Close()
				errs <- pgpool.Migrate(context.Background(), "race", pool, schema, "race_version", testMigrations, "testdata/migrations")
			}()
		}
		for range 6 {
			require.NoError(t, <-errs, "round %d", round)
		}
	}
}

// A role that may not create schemas starts on a schema a DBA made for
// it (and granted it): Migrate finds the schema instead of creating it.
func TestMigrate_SchemaMadeByADBA(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close(context.Background()) }) // after withRole's drops
	role := schema + "_app"
	appDSN := withRole(t, admin, dsn, schema, role,
		"CREATE SCHEMA "+schema,
		"GRANT USAGE, CREATE ON SCHEMA "+schema+" TO "+role,
		"REVOKE CREATE ON DATABASE "+pgx.Identifier{admin.Config().Database}.Sanitize()+" FROM "+role)
	pool, err := pgpool.Open(ctx, "app", pgpool.Config{DSN: appDSN, Schema: schema, MaxConns: 1})
	require.NoError(t, err)
	defer pool.Close()
	require.NoError(t, pgpool.Migrate(ctx, "app", pool, schema, "app_version", testMigrations, "testdata/migrations"))
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM race_things").Scan(&n))
}

// A role with the rights to read and write the tables only — a DBA ran
// the migrations and granted USAGE and SELECT/INSERT/UPDATE/DELETE —
// starts on the migrated schema (tern's first step needed CREATE even
// with nothing to do); a schema a newer release migrated further is
// refused saying so (ErrSchemaTooNew), not as a bad configuration.
func TestMigrate_DataRightsOnlyOnAMigratedSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx := context.Background()
	owner, err := pgpool.Open(ctx, "owner", pgpool.Config{DSN: dsn, Schema: schema, MaxConns: 1})
	require.NoError(t, err)
	defer owner.Close()
	require.NoError(t, pgpool.Migrate(ctx, "owner", owner, schema, "app_version", testMigrations, "testdata/migrations"))
	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close(context.Background()) }) // after withRole's drops
	role := schema + "_data"
	dataDSN := withRole(t, admin, dsn, schema, role,
		"GRANT USAGE ON SCHEMA "+schema+" TO "+role,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "+schema+" TO "+role)
	pool, err := pgpool.Open(ctx, "data", pgpool.Config{DSN: dataDSN, Schema: schema, MaxConns: 1})
	require.NoError(t, err)
	defer pool.Close()
	require.NoError(t, pgpool.Migrate(ctx, "data", pool, schema, "app_version", testMigrations, "testdata/migrations"))
	_, err = pool.Exec(ctx, "INSERT INTO race_things VALUES (1)")
	require.NoError(t, err, "the tables are the role's to use")

	_, err = owner.Exec(ctx, "UPDATE app_version SET version = version + 1")
	require.NoError(t, err)
	err = pgpool.Migrate(ctx, "data", pool, schema, "app_version", testMigrations, "testdata/migrations")
	require.ErrorIs(t, err, pgpool.ErrSchemaTooNew)
	assert.Contains(t, err.Error(), "made by a newer release than this one")
}

// withRole makes a login role of the test database, runs setup as the
// test's own role (grants), drops the role and schema at the end, and
// returns the role's DSN. It skips the test when the test's role may not
// create roles.
func withRole(t *testing.T, admin *pgx.Conn, dsn, schema, role string, setup ...string) string {
	t.Helper()
	ctx := context.Background()
	for _, q := range append([]string{"CREATE ROLE " + role + " LOGIN PASSWORD 'role-pw'"}, setup...) {
		_, err := admin.Exec(ctx, q)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" && strings.HasPrefix(q, "CREATE ROLE") {
			t.Skip("the test database's role may not create roles (.ci/run grants it CREATEROLE)")
		}
		require.NoError(t, err, q)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		_, _ = admin.Exec(context.Background(), "DROP OWNED BY "+role)
		_, _ = admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
	})
	cfg, err := pgx.ParseConfig(dsn)
	require.NoError(t, err)
	return fmt.Sprintf("postgres://%s:role-pw@%s:%d/%s?sslmode=disable", role, cfg.Host, cfg.Port, cfg.Database)
}

// Schema names are identifiers that need no quoting, and never
// PostgreSQL's own pg_ names.
func TestCheckSchema(t *testing.T) {
	for _, ok := range []string{"", "toolpack", "tools_prod", "_x", strings.Repeat("a", 63)} {
		assert.NoError(t, pgpool.CheckSchema("Schema", ok), ok)
	}
	for _, bad := range []string{"Tools", "x y", "1abc", "a-b", strings.Repeat("a", 64), "pg_catalog", "pg_x", `x"; DROP`} {
		err := pgpool.CheckSchema("Schema", bad)
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "Schema: ")
		}
	}
}

// A database that keeps its connections open but stops answering fails
// each statement, each transaction and each wait for a connection after
// the statement timeout and a margin, as unavailable, instead of holding
// the caller for as long as its context lasts (an HTTP request without a
// timeout: for ever); it is not tried again. A caller's earlier deadline
// stays its own.
func TestStalledDatabase_StatementsEndOnTheirOwn(t *testing.T) {
	dsn := pgtest.DSN(t)
	out, via := pgtest.NewOutage(t, dsn)
	pool, err := pgpool.Open(context.Background(), "stalled", pgpool.Config{DSN: via + "&connect_timeout=1", StatementTimeout: 300 * time.Millisecond, MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	require.NoError(t, pool.Ping(context.Background()))
	defer out.Down() // before pool.Close, which would wait for each silenced connection's goodbye

	out.Silence()
	away := errors.New("pkg: unavailable")
	ctx := context.Background() // no deadline of the caller's
	type outcome struct {
		what string
		err  error
		took time.Duration
	}
	runs := []struct {
		what string
		fn   func() error
	}{
		{"query", func() error { var n int; return pool.QueryRow(ctx, `SELECT 1`).Scan(&n) }},
		{"exec", func() error { _, err := pool.Exec(ctx, `SELECT 1`); return err }},
		{"transaction", func() error {
			return pgpool.TxRetrying(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error { _, err := tx.Exec(ctx, `SELECT 1`); return err })
		}},
		{"batch", func() error {
			b := &pgx.Batch{}
			b.Queue(`SELECT 1`)
			return pool.SendBatch(ctx, b).Close()
		}},
	}
	results := make(chan outcome, len(runs))
	for _, r := range runs {
		go func() {
			t0 := time.Now()
			results <- outcome{r.what, r.fn(), time.Since(t0)}
		}()
	}
	for range runs {
		select {
		case o := <-results:
			require.Error(t, o.err, o.what)
			t.Logf("%s: %v after %v", o.what, o.err, o.took.Round(time.Millisecond))
			classified := pgpool.Classify(ctx, o.err, away)
			assert.ErrorIs(t, classified, away, "%s: %v", o.what, o.err)
			assert.ErrorIs(t, classified, pgpool.ErrTimeout, "%s: %v", o.what, o.err)
			assert.Contains(t, classified.Error(), "the database did not answer, or no connection of the pool came free (max_conns), within the statement timeout")
			assert.Less(t, o.took, 10*time.Second, "%s: ended by the statement's own deadline, not tried again", o.what)
		case <-time.After(30 * time.Second):
			t.Fatal("a statement to a silent database is still waiting after 30 s")
		}
	}

	// The caller's own, earlier deadline is the one that ends it.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = pool.Exec(short, `SELECT 1`)
	require.Error(t, err)
	assert.ErrorIs(t, pgpool.Classify(short, err, away), context.DeadlineExceeded)
	assert.NotErrorIs(t, pgpool.Classify(short, err, away), away)
}

// A negative MaxConns or StatementTimeout, and a statement timeout under
// a millisecond (sent in whole milliseconds, it would become 0: no limit
// on the server), are refused naming the field and the value, before any
// connection is tried and without quoting the DSN.
func TestOpen_NegativeOrUnusableNumbersRefusedNamingTheField(t *testing.T) {
	dsn := "postgres://u:s3cret@127.0.0.1:1/x"
	for _, c := range []struct {
		cfg  pgpool.Config
		want []string
	}{
		{pgpool.Config{MaxConns: -1}, []string{"mystore: Options.MaxConns: expected zero (pgxpool's default) or a positive number of connections, got -1"}},
		{pgpool.Config{StatementTimeout: -time.Second}, []string{"mystore: Options.StatementTimeout: expected zero (the DSN's statement_timeout, else 30s) or at least 1ms, got -1s"}},
		{pgpool.Config{StatementTimeout: 500 * time.Microsecond}, []string{"Options.StatementTimeout: expected", "got 500µs"}},
		{pgpool.Config{MaxConns: -3, StatementTimeout: -1}, []string{"Options.MaxConns", "got -3", "Options.StatementTimeout", "got -1ns"}},
	} {
		c.cfg.DSN = dsn
		pool, err := pgpool.Open(context.Background(), "mystore", c.cfg)
		assert.Nil(t, pool)
		if assert.Error(t, err) {
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), "s3cret")
			assert.NotContains(t, err.Error(), "connecting", "refused before connecting")
		}
	}
}
