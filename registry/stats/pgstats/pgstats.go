// Package pgstats keeps a stats.Recorder's call records in PostgreSQL
// instead of files, so that every host given the same database records
// into one table and ot.stats on any of them aggregates the calls of all.
//
// Open it, set it as stats.Options.Sink and close it after the Recorder:
//
//	sink, err := pgstats.Open(ctx, os.Getenv("STATS_DSN"), pgstats.Options{})
//	rec, err := stats.New(stats.Options{Enabled: true, Sink: sink, ReportsDir: "reports"})
//	defer sink.Close()
//	defer rec.Close(ctx)
//
// A flush is one COPY inside one transaction: a batch is stored whole or
// not at all, and a writer killed mid-batch leaves nothing of it. A batch
// whose connection was lost before its COMMIT was sent (the server
// terminated it) is written once more on a new connection; for one lost
// during the COMMIT the database is asked on a new connection whether it
// committed (txid_status), so that a stored batch is not written twice.
//
// A summary is folded by the database (Sink.Aggregate, a
// stats.Aggregator) in one read-only snapshot: whatever the number of
// calls in the period, a row per tool, error type and timeline unit comes
// back, and the summary is complete. The table's schema is migrated at
// Open (github.com/jackc/tern) in Options.Schema. Records keep
// nanoseconds: timestamptz holds the microseconds and a column of its own
// the rest.
//
// While the database cannot be reached (it is down, or dropped the
// connection and does not take a new one), every error is
// stats.ErrUnavailable (errors.Is): ot.stats answers "try again in a
// moment", the Recorder keeps the records it could not write for its next
// flush (up to stats.Options.MaxPending) and logs the failure sparingly.
// Nothing has to be reopened when it is back.
package pgstats

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/registry/stats"
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrClosed is returned by a Sink's methods after Close.
var ErrClosed = errors.New("pgstats: closed")

// Options configure a Sink; they mirror the host configuration's stats:
// {dsn, schema, max_conns, statement_timeout}.
type Options struct {
	// Schema holds the table; "" means "toolpack". Created when absent.
	Schema string
	// MaxConns caps the connection pool; zero means pgxpool's default.
	// Open refuses a negative one, naming it.
	MaxConns int32
	// StatementTimeout bounds every statement; zero means the DSN's
	// statement_timeout when it sets one, else 30 seconds. Open refuses
	// a negative one or one under a millisecond, naming it.
	StatementTimeout time.Duration
}

// Sink is the PostgreSQL stats.Sink. It is safe for concurrent use.
type Sink struct {
	pool   *pgxpool.Pool
	closed atomic.Bool
	mu     sync.Mutex    // one Close at a time
	shut   chan struct{} // closed once Close has closed the pool
}

var _ stats.Sink = (*Sink)(nil)

// Open connects to the database named by dsn (a PostgreSQL URL or
// key=value string, never quoted in an error) and applies the migrations.
// A database that cannot be reached is stats.ErrUnavailable; a refused
// login or a failing migration is not.
func Open(ctx context.Context, dsn string, opts Options) (*Sink, error) {
	pool, err := pgpool.Open(ctx, "pgstats", pgpool.Config{DSN: dsn, Schema: opts.Schema, MaxConns: opts.MaxConns, StatementTimeout: opts.StatementTimeout})
	if err != nil {
		return nil, pgpool.Classify(ctx, err, stats.ErrUnavailable)
	}
	if err := pgpool.Migrate(ctx, "pgstats", pool, opts.Schema, "stats_schema_version", migrations, "migrations"); err != nil {
		pool.Close()
		return nil, pgpool.Classify(ctx, err, stats.ErrUnavailable)
	}
	return &Sink{pool: pool, shut: make(chan struct{})}, nil
}

// Close closes the pool once the calls under way have given their
// connections back: each statement is bounded by the statement timeout,
// so Close waits at most about one for a call, unless a Records callback
// itself does not return. Calls made meanwhile or after answer ErrClosed.
// Later and concurrent calls wait for the first and do nothing.
func (s *Sink) Close() error {
	s.mu.Lock()
	if s.closed.Swap(true) {
		s.mu.Unlock()
		<-s.shut
		return nil
	}
	s.mu.Unlock()
	s.pool.Close()
	close(s.shut)
	return nil
}

// classify is err of a call run with ctx as returned: ErrClosed once
// Close has begun (the pool refuses new connections), else
// stats.ErrUnavailable when the database could not be reached.
func (s *Sink) classify(ctx context.Context, err error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return pgpool.Classify(ctx, err, stats.ErrUnavailable)
}

// text makes s storable in a text column: PostgreSQL refuses NUL and
// invalid UTF-8 (SQLSTATE 22021), and one such record (a tool registered
// with a pack name that is not UTF-8) would fail every flush of its batch
// for good; NUL and each run of invalid bytes are replaced by U+FFFD (the
// file store's JSON writes one per invalid byte).
func text(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// split is t as stored: started_at, its microseconds in UTC (what
// timestamptz holds), and started_ns, the nanoseconds below them.
func split(t time.Time) (time.Time, int32) {
	t = t.UTC()
	us := t.Truncate(time.Microsecond)
	return us, int32(t.Sub(us))
}

var columns = []string{"started_at", "started_ns", "tool", "pack", "duration_ns", "success", "error_type", "bytes_in", "bytes_out"}

// Append implements stats.Sink: one COPY in one transaction.
func (s *Sink) Append(ctx context.Context, recs []stats.Record) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if len(recs) == 0 {
		return nil
	}
	for i, r := range recs {
		if r.Time.IsZero() || r.Tool == "" || r.Duration < 0 || r.BytesIn < 0 || r.BytesOut < 0 {
			return fmt.Errorf("pgstats: record %d: expected a time, a tool and no negative duration or size", i)
		}
	}
	// COPY inside a transaction: a connection lost before COMMIT was sent
	// (the server terminating it, a write failing mid-COPY) rolled it
	// back, so it runs once more on a new connection; for one lost during
	// COMMIT the database is asked whether it committed, so that the
	// Recorder does not write a stored batch again.
	err := pgpool.TxSettled(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		i := 0
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if i == len(recs) {
				return nil, nil
			}
			r := recs[i]
			i++
			us, ns := split(r.Time)
			return []any{us, ns, text(r.Tool), text(r.Pack), int64(r.Duration), r.Success,
				text(r.ErrorType), r.BytesIn, r.BytesOut}, nil
		})
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"stats_calls"}, columns, src)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgstats: writing %d records: %w", len(recs), s.classify(ctx, err))
	}
	return nil
}

// Ping reports whether the database answers now: nil, or an error that is
// stats.ErrUnavailable when it cannot be reached. A host's health check
// (ot.health) calls it.
func (s *Sink) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := pgpool.Ping(ctx, s.pool); err != nil {
		return fmt.Errorf("pgstats: ping: %w", s.classify(ctx, err))
	}
	return nil
}

// Records implements stats.Sink: the records q selects, newest first, in
// one streamed query.
func (s *Sink) Records(ctx context.Context, rq stats.RecordQuery, fn func(stats.Record)) (bool, error) {
	if s.closed.Load() {
		return false, ErrClosed
	}
	if rq.Limit <= 0 {
		return false, fmt.Errorf("pgstats: Records: RecordQuery.Limit must be > 0, got %d", rq.Limit)
	}
	q := `SELECT started_at, started_ns, tool, pack, duration_ns, success, error_type, bytes_in, bytes_out
	        FROM stats_calls WHERE true`
	args := []any{rq.Limit + 1}
	if !rq.Since.IsZero() {
		// timestamptz holds microseconds: a record in since's microsecond
		// is read and checked to the nanosecond below.
		args = append(args, rq.Since.UTC().Truncate(time.Microsecond))
		q += fmt.Sprintf(` AND started_at >= $%d`, len(args))
	}
	if rq.Tool != "" {
		args = append(args, text(rq.Tool))
		q += fmt.Sprintf(` AND tool = $%d`, len(args))
	}
	q += ` ORDER BY started_at DESC, started_ns DESC LIMIT $1`
	since, limit := rq.Since, rq.Limit
	// Only the query is retried, before any record reached fn.
	var rows pgx.Rows
	err := pgpool.ReadRetrying(ctx, s.pool, func() (err error) {
		rows, err = s.pool.Query(ctx, q, args...)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("pgstats: reading records: %w", s.classify(ctx, err))
	}
	defer rows.Close()
	var (
		n  int64
		r  stats.Record
		at time.Time
		ns int32
		d  int64
	)
	for rows.Next() {
		if err := rows.Scan(&at, &ns, &r.Tool, &r.Pack, &d, &r.Success, &r.ErrorType, &r.BytesIn, &r.BytesOut); err != nil {
			return false, fmt.Errorf("pgstats: reading records: %w", s.classify(ctx, err))
		}
		r.Time = at.Add(time.Duration(ns)).UTC()
		r.Duration = time.Duration(d)
		if !since.IsZero() && r.Time.Before(since) {
			continue
		}
		if n == limit {
			return true, nil
		}
		n++
		fn(r)
	}
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("pgstats: reading records: %w", s.classify(ctx, err))
	}
	return false, nil
}

var _ stats.Pruner = (*Sink)(nil)

// pruneBatch is the most records one DELETE of Prune removes, so that no
// statement runs into the statement timeout however much is old.
const pruneBatch = 50_000

// Prune implements stats.Pruner: the records of calls that started before
// cutoff (to the nanosecond) are deleted, in transactions of at most
// 50,000 rows found through the start-time index. Hosts pruning at once
// each delete what is left.
func (s *Sink) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	us, ns := split(cutoff)
	var total int64
	for {
		var n int64
		err := pgpool.TxRetrying(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `DELETE FROM stats_calls WHERE ctid IN (
			    SELECT ctid FROM stats_calls
			     WHERE started_at < $1 OR (started_at = $1 AND started_ns < $2)
			     LIMIT $3)`, us, ns, pruneBatch)
			n = tag.RowsAffected()
			return err
		})
		if err != nil {
			return total, fmt.Errorf("pgstats: removing records before %s: %w", cutoff.UTC().Format(time.RFC3339), s.classify(ctx, err))
		}
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

var _ stats.Aggregator = (*Sink)(nil)

// aggregateSQL folds the selected records (filtered by the %[1]s
// condition) per tool, in one scan: counts, sums (clamped to int64) and the
// nearest-rank percentiles, then the pack of the latest record.
// percentile_disc(f) is the value at rank ⌈f × n⌉, and the float8 0.95 is
// just below 0.95, so its rank is stats' ⌈95n / 100⌉ exactly. Grouping by
// tool in the C collation compares bytes, as stats does, and sorts faster.
const aggregateSQL = `
WITH agg AS (
  SELECT tool COLLATE "C" AS tool, count(*) AS calls, count(*) FILTER (WHERE success) AS ok,
         LEAST(sum(duration_ns), 9223372036854775807)::bigint AS dur,
         LEAST(sum(bytes_in), 9223372036854775807)::bigint AS bin,
         LEAST(sum(bytes_out), 9223372036854775807)::bigint AS bout,
         max(started_at) AS last_at,
         percentile_disc(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY duration_ns) AS p
    FROM stats_calls WHERE %[1]s GROUP BY 1
)
SELECT agg.tool, (SELECT pack FROM stats_calls WHERE %[1]s AND tool = agg.tool AND started_at = agg.last_at
                   ORDER BY started_ns DESC LIMIT 1),
       agg.calls, agg.ok, agg.dur, agg.p[1], agg.p[2], agg.bin, agg.bout
  FROM agg`

// Aggregate implements stats.Aggregator: the records q selects folded by
// the database, in one read-only snapshot, so that a summary reads a row
// per tool, per error type and per timeline unit instead of every record.
func (s *Sink) Aggregate(ctx context.Context, q stats.AggregateQuery) (stats.Aggregate, error) {
	if s.closed.Load() {
		return stats.Aggregate{}, ErrClosed
	}
	unit := int64(q.Unit / time.Second)
	if unit <= 0 || q.Unit%time.Second != 0 {
		return stats.Aggregate{}, fmt.Errorf("pgstats: Aggregate: AggregateQuery.Unit must be a whole number of seconds > 0, got %v", q.Unit)
	}
	where := "true"
	args := []any{}
	if !q.Since.IsZero() {
		us, ns := split(q.Since)
		args = append(args, us, ns)
		where = "started_at >= $1 AND (started_at > $1 OR started_ns >= $2)"
	}
	if !q.Until.IsZero() {
		us, ns := split(q.Until)
		args = append(args, us, ns)
		where += fmt.Sprintf(" AND started_at <= $%d AND (started_at < $%d OR started_ns <= $%d)", len(args)-1, len(args)-1, len(args))
	}
	if q.Tool != "" {
		args = append(args, text(q.Tool))
		where += fmt.Sprintf(" AND tool = $%d", len(args))
	}
	var out stats.Aggregate
	err := pgpool.ReadRetrying(ctx, s.pool, func() error {
		out = stats.Aggregate{}
		return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			return s.aggregate(ctx, tx, where, args, unit, &out)
		})
	})
	if err != nil {
		return stats.Aggregate{}, fmt.Errorf("pgstats: aggregating records: %w", s.classify(ctx, err))
	}
	return out, nil
}

// aggregate sends the reads of Aggregate in one batch.
func (s *Sink) aggregate(ctx context.Context, tx pgx.Tx, where string, args []any, unit int64, out *stats.Aggregate) error {
	b := &pgx.Batch{}
	// The percentiles sort a period's durations: in memory, up to a point.
	b.Queue(`SET LOCAL work_mem = '64MB'`)
	b.Queue(fmt.Sprintf(aggregateSQL, where), args...)
	b.Queue(`SELECT tool COLLATE "C", CASE WHEN error_type = '' THEN 'unknown' ELSE error_type END, count(*)
	           FROM stats_calls WHERE `+where+` AND NOT success GROUP BY 1, 2`, args...)
	b.Queue(fmt.Sprintf(`SELECT date_bin('%d seconds', started_at, 'epoch'), count(*), count(*) FILTER (WHERE NOT success)
	           FROM stats_calls WHERE %s GROUP BY 1`, unit, where), args...)
	b.Queue(`SELECT started_at, started_ns FROM stats_calls WHERE `+where+` ORDER BY started_at, started_ns LIMIT 1`, args...)
	br := tx.SendBatch(ctx, b)
	defer br.Close()

	if _, err := br.Exec(); err != nil {
		return err
	}
	// Each read's rows, scanned into its variables, handed to fn.
	each := func(fn func() error, dst ...any) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		_, err = pgx.ForEachRow(rows, dst, fn)
		return err
	}
	byTool := map[string]int{}
	var t stats.ToolAggregate
	var dur, p50, p95 int64
	if err := each(func() error {
		t.Duration, t.P50, t.P95 = time.Duration(dur), time.Duration(p50), time.Duration(p95)
		byTool[t.Tool] = len(out.Tools)
		out.Tools = append(out.Tools, t)
		return nil
	}, &t.Tool, &t.Pack, &t.Calls, &t.Successes, &dur, &p50, &p95, &t.BytesIn, &t.BytesOut); err != nil {
		return err
	}
	var tool, errType string
	var n int64
	if err := each(func() error {
		if i, ok := byTool[tool]; ok {
			if out.Tools[i].Errors == nil {
				out.Tools[i].Errors = map[string]int64{}
			}
			out.Tools[i].Errors[errType] = n
		}
		return nil
	}, &tool, &errType, &n); err != nil {
		return err
	}
	var u stats.UnitAggregate
	if err := each(func() error {
		u.Start = u.Start.UTC()
		out.Units = append(out.Units, u)
		return nil
	}, &u.Start, &u.Calls, &u.Failures); err != nil {
		return err
	}
	var at time.Time
	var ns int32
	switch err := br.QueryRow().Scan(&at, &ns); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return err
	default:
		out.First = at.Add(time.Duration(ns)).UTC()
	}
	return br.Close()
}
