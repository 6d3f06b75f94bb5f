// Package pgpool opens the PostgreSQL pools of toolpack's stores (the
// catalogue, stored results, call statistics) the same way: the DSN parsed
// without ever quoting it in an error, the tables in a schema of their own
// reached through search_path, a statement timeout on every connection, a
// connect timeout, TCP keep-alive probes and a user timeout that notice a
// network gone without a word, UTC timestamps, and embedded migrations
// applied at open by github.com/jackc/tern.
package pgpool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	migrate "github.com/jackc/tern/v2/migrate"

	"github.com/toolpack-go/toolpack/internal/pgschema"
)

// DefaultSchema is the schema of Config.Schema "".
const DefaultSchema = "toolpack"

// DefaultStatementTimeout is Config.StatementTimeout's zero value.
const DefaultStatementTimeout = 30 * time.Second

// DefaultConnectTimeout bounds making a connection when the DSN does not
// (connect_timeout): a database host that takes the connection but never
// answers — a hung server, a proxy with nothing behind it — fails the
// caller after this long instead of holding it (and a server's start)
// until its context ends, which for background work is never.
const DefaultConnectTimeout = 10 * time.Second

// ErrSchemaTooNew: Migrate found the schema migrated by a newer release
// than the running one; run that release (or a later one), or a schema
// of its own.
var ErrSchemaTooNew = errors.New("the tables were made by a newer release; upgrade this program, or give it a schema of its own")

// ErrTimeout is matched (errors.Is), beside the caller's sentinel, by an
// error Classify found to be the database not answering in time rather
// than being away: a statement the server ended at its statement timeout
// or lock timeout (a busy database, a lock held elsewhere), or one left
// unanswered past the pool's own deadline (bound). The caller may say
// "busy, try again" instead of "cannot be reached". The error's text is
// Classify's, unchanged.
var ErrTimeout = errors.New("the database did not answer in time")

// timedOut marks a classified error with ErrTimeout, and the caller's
// own timeout sentinel when it has one (ClassifyTimeout), keeping its
// text and its chain.
type timedOut struct{ err, also error }

func (e *timedOut) Error() string { return e.err.Error() }
func (e *timedOut) Unwrap() error { return e.err }
func (e *timedOut) Is(target error) bool {
	return target == ErrTimeout || (e.also != nil && target == e.also)
}

// Config says where and how to connect.
type Config struct {
	// DSN is a PostgreSQL URL or key=value string. It is never written in
	// an error.
	DSN string
	// Schema holds the tables; "" means DefaultSchema. Created when absent.
	Schema string
	// MaxConns caps the pool; zero means pgxpool's default. Open refuses
	// a negative one, naming the field.
	MaxConns int32
	// StatementTimeout bounds every statement; zero means the DSN's
	// statement_timeout when it sets one (a number of milliseconds, or
	// with PostgreSQL's units: 500ms, 5s, 1min), else
	// DefaultStatementTimeout. Set here, it overrides the DSN's. Open
	// refuses a negative one and one under a millisecond (the server
	// takes whole milliseconds, and would read 0 as no limit), naming
	// the field.
	StatementTimeout time.Duration
}

// dsnStatementTimeout is the statement_timeout a DSN sets: its own
// parameter (key=value, or a URL's query as pgx reads it), else one in
// its options ("-c statement_timeout=5s", as libpq and PGOPTIONS write
// it; the last one counts, as on the server).
func dsnStatementTimeout(params map[string]string) (string, bool) {
	if v, ok := params["statement_timeout"]; ok {
		return v, true
	}
	var found string
	var ok bool
	f := strings.Fields(params["options"])
	for i := 0; i < len(f); i++ {
		opt := f[i]
		switch {
		case opt == "-c" && i+1 < len(f):
			i++
			opt = f[i]
		case strings.HasPrefix(opt, "-c"):
			opt = opt[2:]
		case strings.HasPrefix(opt, "--"):
			opt = opt[2:]
		default:
			continue
		}
		if name, v, has := strings.Cut(opt, "="); has && strings.ReplaceAll(name, "-", "_") == "statement_timeout" {
			found, ok = v, true
		}
	}
	return found, ok
}

// pgUnits are the units PostgreSQL accepts for a time setting.
var pgUnits = map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond,
	"s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}

// pgDuration reads a time setting as PostgreSQL writes it for
// statement_timeout: a number of milliseconds, or a number and one of
// its units (us, ms, s, min, h, d). Zero, which PostgreSQL reads as no
// limit, is refused: every statement of the pool is bounded.
func pgDuration(raw string) (time.Duration, error) {
	text := strings.TrimSpace(raw)
	end := strings.IndexFunc(text, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != '+' })
	if end < 0 {
		end = len(text)
	}
	num, unit := strings.TrimPrefix(text[:end], "+"), strings.TrimSpace(text[end:])
	n, err := strconv.ParseFloat(num, 64)
	per, known := pgUnits[unit]
	if err != nil || !known {
		return 0, fmt.Errorf("expected milliseconds or a number with a unit (us, ms, s, min, h, d), such as 30s, got %q", raw)
	}
	d := n * float64(per)
	if d < float64(10*time.Millisecond) || d > float64(time.Hour) {
		return 0, fmt.Errorf("expected from 10ms to 1h (0, no limit, is not supported: every statement is bounded), got %q", raw)
	}
	// Whole milliseconds, as the pool writes it to the server.
	return time.Duration(d).Round(time.Millisecond), nil
}

// CheckSchema reports whether schema ("" for the default) is a name the
// stores accept (package pgschema), naming field in the error.
func CheckSchema(field, schema string) error {
	if schema != "" && !pgschema.Valid(schema) {
		return fmt.Errorf("%s: expected %s, got %q", field, pgschema.Expected, schema)
	}
	return nil
}

// check refuses the numbers Open cannot honour, naming the field as the
// stores' Options call it.
func (cfg Config) check(what string) error {
	var errs []error
	if cfg.MaxConns < 0 {
		errs = append(errs, fmt.Errorf("%s: Options.MaxConns: expected zero (pgxpool's default) or a positive number of connections, got %d", what, cfg.MaxConns))
	}
	if cfg.StatementTimeout < 0 || (cfg.StatementTimeout > 0 && cfg.StatementTimeout < time.Millisecond) {
		errs = append(errs, fmt.Errorf("%s: Options.StatementTimeout: expected zero (the DSN's statement_timeout, else %s) or at least 1ms, got %s", what, DefaultStatementTimeout, cfg.StatementTimeout))
	}
	return errors.Join(errs...)
}

// Open parses the configuration and connects a pool. what prefixes the
// errors ("pgstore", "pgresults", …). The pool's connections use
// cfg.Schema as their search_path, and "what:schema" as their
// application_name unless the DSN sets one. A MaxConns or
// StatementTimeout out of range (Config) is an error naming the field,
// before any connection is tried.
func Open(ctx context.Context, what string, cfg Config) (*pgxpool.Pool, error) {
	schema := cfg.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	if err := CheckSchema(what+": Options.Schema", schema); err != nil {
		return nil, err
	}
	if err := cfg.check(what); err != nil {
		return nil, err
	}
	pc, err := pgxpool.ParseConfig(cfg.DSN)
	if err != nil {
		// pgx's parse errors may quote the DSN, password included.
		return nil, fmt.Errorf("%s: the DSN does not parse (expected postgres://user:password@host:port/db or key=value pairs)", what)
	}
	timeout := cfg.StatementTimeout
	if raw, ok := dsnStatementTimeout(pc.ConnConfig.RuntimeParams); ok && timeout <= 0 {
		// The DSN's own statement_timeout stands when the configuration
		// sets none; the pool's deadlines follow it.
		if timeout, err = pgDuration(raw); err != nil {
			return nil, fmt.Errorf("%s: the DSN's statement_timeout: %w", what, err)
		}
	}
	if timeout <= 0 {
		timeout = DefaultStatementTimeout
	}
	if pc.ConnConfig.ConnectTimeout <= 0 {
		pc.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	pc.ConnConfig.DialFunc = dial
	pc.ConnConfig.Tracer = bound{d: timeout + min(timeout, answerMargin)}
	pc.ConnConfig.RuntimeParams["search_path"] = schema
	pc.ConnConfig.RuntimeParams["statement_timeout"] = fmt.Sprint(timeout.Milliseconds())
	// A transaction left open by a host that stopped mid-way (a process
	// frozen, a network split the keep-alives have not found yet) holds
	// its row locks, and every other host's writes to those rows wait on
	// it: the server ends it once it has been idle as long as a statement
	// may run, releasing them.
	// Always the statement timeout, whatever the DSN says: the stores keep
	// a transaction alive by writing at a third of it (pgresults), and a
	// longer one (or 0) would let a frozen host hold its row locks.
	pc.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = fmt.Sprint(timeout.Milliseconds())
	pc.ConnConfig.RuntimeParams["timezone"] = "UTC"
	if pc.ConnConfig.RuntimeParams["application_name"] == "" {
		// Names the store and schema in pg_stat_activity.
		pc.ConnConfig.RuntimeParams["application_name"] = what + ":" + schema
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("%s: connecting: %w", what, err)
	}
	return pool, nil
}

// Migrate creates schema when absent and applies the migrations in the
// directory dir of files (tern's numbered NNN_name.sql files), recording
// the version in the table versionTable of schema. Hosts opening the same
// schema at once are serialised by an advisory lock on the schema's name
// (and tern's own), so each finds the schema and the tables the first
// one made.
func Migrate(ctx context.Context, what string, pool *pgxpool.Pool, schema, versionTable string, files fs.FS, dir string) error {
	if schema == "" {
		schema = DefaultSchema
	}
	migrations, err := fs.Sub(files, dir)
	if err != nil {
		return fmt.Errorf("%s: migrations: %w", what, err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("%s: connecting: %w", what, err)
	}
	defer conn.Release()
	// CREATE SCHEMA IF NOT EXISTS is not safe against itself: two hosts
	// starting at once on a fresh database may both try, and one fails
	// on the catalog's unique index. A session lock per schema makes the
	// second wait and find it.
	key := "toolpack:schema:" + schema
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, key); err != nil {
		return fmt.Errorf("%s: locking schema %s: %w", what, schema, err)
	}
	defer func() {
		// A connection whose unlock fails is closed, which releases the lock.
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, key); err != nil {
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	// Created only when missing: a role that may not create schemas (a
	// DBA made it) is refused CREATE SCHEMA even with IF NOT EXISTS.
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		return fmt.Errorf("%s: looking for schema %s: %w", what, schema, err)
	}
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
			return fmt.Errorf("%s: creating schema %s: %w", what, schema, err)
		}
	}
	table := pgx.Identifier{schema, versionTable}.Sanitize()
	// Up to date already: nothing is created or run, so a role with the
	// rights to read and write the tables only (a DBA migrated them)
	// starts; tern's migrator creates its version table if absent as soon
	// as it is made with a connection, which needs CREATE on the schema
	// even when the table is there. The migrations are counted first on a
	// migrator without one.
	probe, err := migrate.NewMigratorEx(ctx, nil, table, &migrate.MigratorOptions{})
	if err == nil {
		err = probe.LoadMigrations(migrations)
	}
	if err != nil {
		return fmt.Errorf("%s: migrations: %w", what, err)
	}
	latest := int32(len(probe.Migrations))
	var current int32
	err = conn.QueryRow(ctx, `SELECT version FROM `+table).Scan(&current)
	switch {
	case err == nil && current == latest:
		return nil
	case err == nil && current > latest:
		return fmt.Errorf("%s: schema %s is at version %d, made by a newer release than this one (which knows versions up to %d): %w",
			what, schema, current, latest, ErrSchemaTooNew)
	}
	m, err := migrate.NewMigrator(ctx, conn.Conn(), table)
	if err != nil {
		return fmt.Errorf("%s: migrations: %w", what, err)
	}
	if err := m.LoadMigrations(migrations); err != nil {
		return fmt.Errorf("%s: migrations: %w", what, err)
	}
	if err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("%s: applying migrations: %w", what, err)
	}
	return nil
}

// ConnectionLost reports whether err means the connection itself failed
// rather than the statement: the server closed it (SQLSTATE classes 08,
// connection exception, and 57P, operator intervention: terminated,
// shutting down, restarting, idle session timeout; and 25P03, a session
// ended by the idle-in-transaction timeout) or the network did (a net.Error, an
// unexpected end of the stream, an error pgconn says nothing was sent
// before) — or no connection could be made in the connect timeout, or
// the database left a statement unanswered past its statement timeout
// (every statement of a pool made by Open has a deadline of its own on
// the client: a database that keeps its connections open but stops
// answering fails the caller instead of holding it). A cancelled or
// expired ctx is never one.
func ConnectionLost(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	if connectFailed(err) && errors.Is(err, context.DeadlineExceeded) {
		return true // the connect timeout, not ctx, ended the attempt
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true // the statement's own deadline (bound): the database stopped answering
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	return brokenConn(err)
}

// stalled reports whether err is the end of a statement the database did
// not answer in time (bound's deadline, the caller's context still
// running): it is not tried again, as that would wait as long again.
func stalled(ctx context.Context, err error) bool {
	return ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && !connectFailed(err)
}

// connectFailed reports whether err is pgconn's failure to make a new
// connection (refused, unreachable, timed out, login refused).
func connectFailed(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}

// brokenConn reports whether err is one of the connection's own failures
// (see ConnectionLost), whatever the context.
func brokenConn(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 25P03: the server ended a session left idle in a transaction
		// past idle_in_transaction_session_timeout (FATAL, the connection
		// is closed), as it does an idle one (57P05).
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || pe.Code == "25P03"
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err)
}

// refused says why, when err is the database declining work it would do
// in a moment, whatever the statement — out of resources (SQLSTATE class
// 53: too many connections, out of memory, disk full), a statement ended
// at the server's statement or lock timeout (serverTimeout: a slow or
// busy database, a lock held elsewhere), or a connection refused because
// the database is not accepting any (55000 at connect) — and ""
// otherwise.
// The caller may try again later, as after a lost connection; nothing is
// retried here (it would fail, or wait, the same way).
func refused(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return ""
	}
	switch {
	case pe.Code == "53300":
		return "the database has no connection to spare (too many connections)"
	case strings.HasPrefix(pe.Code, "53"):
		return "the database is out of resources"
	case pe.Code == "57014" && serverTimeout(err):
		return "the database ended the statement at its statement timeout"
	case pe.Code == "55P03" && serverTimeout(err):
		return "the database ended the statement at its lock timeout (a lock held elsewhere)"
	case pe.Code == "55000" && connectFailed(err):
		return "the database is not accepting connections"
	}
	return ""
}

// serverTimeout reports whether err is a statement the server ended at
// its statement timeout (57014 "canceling statement due to statement
// timeout") or its lock timeout (55P03 "… due to lock timeout"). Not a
// cancel by someone else (pg_cancel_backend: "due to user request"), nor
// a NOWAIT lock refused (55P03 "could not obtain lock"), which are left
// as they are. A server whose messages are not in English is not
// recognised here.
func serverTimeout(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code == "57014" && strings.Contains(pe.Message, "statement timeout") ||
		pe.Code == "55P03" && strings.Contains(pe.Message, "lock timeout")
}

// queryCanceled reports whether err is the server's report of a cancelled
// statement (SQLSTATE 57014), which is what pgx's cancel request on an
// ended context produces.
func queryCanceled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014"
}

// Classify returns err in the form the stores' callers check with
// errors.Is:
//
//   - when ctx has ended and err is what that ends in — the server's
//     report of the cancelled statement (SQLSTATE 57014, query_canceled)
//     or the connection cut under it — the result matches ctx.Err()
//     (context.Canceled or context.DeadlineExceeded), as pgx's own
//     context errors do;
//   - otherwise, when err means the database could not be reached or the
//     connection was lost (ConnectionLost), or the database declined the
//     work for now (too many connections, out of resources, its statement
//     timeout, not accepting connections), it is wrapped with sentinel (a
//     package's ErrUnavailable): the caller may try again later. When
//     that is the database not answering in time — a statement ended at
//     the server's statement or lock timeout, or left unanswered past the
//     pool's own deadline — it also matches ErrTimeout.
//
// Any other error, and nil, is returned as it is; the cause always stays
// in the chain, and an error is never marked twice.
func Classify(ctx context.Context, err, sentinel error) error {
	return ClassifyTimeout(ctx, err, sentinel, nil)
}

// ClassifyTimeout is Classify for a package with a sentinel of its own
// for the database not answering in time (timeout, a package's
// ErrTimeout): an error that matches ErrTimeout matches timeout too. A
// nil timeout is Classify.
func ClassifyTimeout(ctx context.Context, err, sentinel, timeout error) error {
	if err == nil {
		return nil
	}
	if ended := ctx.Err(); ended != nil {
		if !errors.Is(err, ended) && (queryCanceled(err) || brokenConn(err)) {
			return fmt.Errorf("%w: %w", ended, err)
		}
		return err
	}
	if errors.Is(err, sentinel) {
		if timeout != nil && errors.Is(err, ErrTimeout) && !errors.Is(err, timeout) {
			return &timedOut{err, timeout} // marked by Classify before
		}
		return err
	}
	if !ConnectionLost(ctx, err) {
		if why := refused(err); why != "" {
			out := fmt.Errorf("%w: %s: %w", sentinel, why, err)
			if serverTimeout(err) {
				return &timedOut{out, timeout}
			}
			return out
		}
		return err
	}
	if stalled(ctx, err) {
		return &timedOut{err: fmt.Errorf("%w: the database did not answer, or no connection of the pool came free (max_conns), within the statement timeout: %w", sentinel, err), also: timeout}
	}
	return fmt.Errorf("%w: %w", sentinel, err)
}

// Ping reports whether the database of pool answers now: a connection
// lost since the last use (the server restarted) is replaced and asked
// again, as ReadRetrying does, so that only a database that does not
// answer fails.
//
// When every connection of the pool is at work (long statistics queries,
// say), the database is asked on a connection of its own instead of
// queueing behind them, so that a busy pool is not taken for a database
// that does not answer.
func Ping(ctx context.Context, pool *pgxpool.Pool) error {
	if st := pool.Stat(); st.IdleConns() == 0 && st.TotalConns() >= st.MaxConns() {
		conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
		if err != nil {
			return err
		}
		defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
		return conn.Ping(ctx)
	}
	return ReadRetrying(ctx, pool, func() error { return pool.Ping(ctx) })
}

// ReadRetrying runs read, an idempotent read through pool; when it fails
// because its connection was lost, the pool's connections are all dropped
// (a server that closed one has usually closed every one: a restart, a
// failover) and read runs once more on a new connection. A failure to
// make a connection at all is not tried again: a new one would fail the
// same way, after another connect timeout.
func ReadRetrying(ctx context.Context, pool *pgxpool.Pool, read func() error) error {
	err := read()
	if retryable(ctx, err) {
		pool.Reset()
		err = read()
	}
	return err
}

// TxRetrying runs fn in a transaction of pool, committed when fn returns
// nil and rolled back otherwise. When the transaction fails because its
// connection was lost before COMMIT was sent — at BEGIN or in fn — the
// server has rolled it back and nothing of it was written, so the pool's
// connections are dropped and the whole transaction runs once more on a new
// connection (fn must be safe to run again: its statements are redone from
// the start). A connection lost during COMMIT is not retried: the commit
// may have happened, and neither is a failure to make a connection at all.
func TxRetrying(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	committing, err := runTx(ctx, pool, opts, fn)
	if !committing && retryable(ctx, err) {
		pool.Reset()
		_, err = runTx(ctx, pool, opts, fn)
	}
	return err
}

// runTx runs fn in a transaction of pool, then commits it; committing
// reports whether COMMIT was sent (fn and BEGIN succeeded).
func runTx(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions, fn func(pgx.Tx) error) (committing bool, err error) {
	tx, err := pool.BeginTx(ctx, opts)
	if err != nil {
		return false, err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback(ctx)
		return false, err
	}
	return true, tx.Commit(ctx)
}

// retryable reports whether work that failed with err lost its
// connection and may run again on a new one (a failure to connect at all
// would fail the same way again).
func retryable(ctx context.Context, err error) bool {
	return ConnectionLost(ctx, err) && !connectFailed(err) && !stalled(ctx, err)
}

// TxSettled is TxRetrying that also settles a COMMIT whose answer was
// lost, for writers that must store a batch exactly once and retry it
// themselves on failure (a statistics flush): before COMMIT it reads the
// transaction's id, and when the connection is lost during COMMIT, or the
// COMMIT's answer does not come in time on a connection that stays open (a
// stalled proxy), it asks the database on a new connection whether that
// transaction committed (txid_status): committed is success, aborted runs
// the transaction once more like a loss before COMMIT (not after a stall,
// which would wait as long again), and an answer that does not come (the
// database still away, the transaction still in progress after a few
// tries) returns the original error — the writer's retry may then store
// the batch twice, the one case left. The id costs one more round trip
// per transaction.
func TxSettled(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	var xid int64
	withID := func(tx pgx.Tx) (err error) {
		if err := fn(tx); err != nil {
			return err
		}
		xid, err = TxID(ctx, tx)
		return err
	}
	committing, err := runTx(ctx, pool, opts, withID)
	if err == nil {
		return nil
	}
	if committing && ConnectionLost(ctx, err) && !connectFailed(err) {
		// The COMMIT's answer did not come: the connection was lost, or
		// the database did not answer in time (stalled) on a connection
		// that stays open. Either way the COMMIT may have run.
		switch Settle(ctx, pool, xid) {
		case "committed":
			return nil
		case "aborted": // rolled back: run it again, unless that would wait as long again
			if stalled(ctx, err) {
				return err
			}
		default:
			return err
		}
	} else if !retryable(ctx, err) {
		return err
	} else {
		pool.Reset()
	}
	committing, err = runTx(ctx, pool, opts, withID)
	if committing && retryable(ctx, err) && Settle(ctx, pool, xid) == "committed" {
		return nil
	}
	return err
}

// TxID reads the id of tx's transaction (txid_current), for Settle after
// a COMMIT whose answer was lost.
func TxID(ctx context.Context, tx pgx.Tx) (int64, error) {
	var xid int64
	err := tx.QueryRow(ctx, `SELECT txid_current()`).Scan(&xid)
	return xid, err
}

// Settle tells what became of transaction xid (read with TxID before its
// COMMIT) once the connection was lost during that COMMIT: the pool's
// connections are dropped and the database is asked on a new one —
// "committed", "aborted", or "" when it does not say (it cannot be
// reached for five seconds, or the transaction is still in progress after
// a few short waits).
func Settle(ctx context.Context, pool *pgxpool.Pool, xid int64) string {
	pool.Reset()
	return settled(ctx, pool, xid)
}

// settleWait bounds how long Settle waits for a database that went away
// with the COMMIT to answer again: a connection cut by a restart or a
// failover is usually back within it, and then the caller is told what
// happened rather than "unavailable" about a write that was stored.
const settleWait = 5 * time.Second

// settled asks the database what became of transaction xid (Settle),
// again while it cannot be reached (for settleWait) or the transaction is
// still in progress (a few short waits).
func settled(ctx context.Context, pool *pgxpool.Pool, xid int64) string {
	ctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	inProgress := 0
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		var status *string
		err := pool.QueryRow(ctx, `SELECT txid_status($1)`, xid).Scan(&status)
		switch {
		case err == nil && status == nil:
			return "" // too old for the database to remember
		case err == nil && *status != "in progress":
			return *status
		case err == nil:
			if inProgress++; inProgress > 5 {
				return ""
			}
		case !ConnectionLost(ctx, err):
			return ""
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(wait):
		}
	}
}
