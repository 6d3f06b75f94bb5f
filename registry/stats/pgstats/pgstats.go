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
// not at all, and a writer killed mid-batch leaves nothing of it. The
// table's schema is migrated at Open (github.com/jackc/tern) in
// Options.Schema. Records keep nanoseconds: timestamptz holds the
// microseconds and a column of its own the rest.
package pgstats

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	MaxConns int32
	// StatementTimeout bounds every statement; zero means 30 seconds.
	StatementTimeout time.Duration
}

// Sink is the PostgreSQL stats.Sink. It is safe for concurrent use.
type Sink struct {
	pool   *pgxpool.Pool
	closed atomic.Bool
}

var _ stats.Sink = (*Sink)(nil)

// Open connects to the database named by dsn (a PostgreSQL URL or
// key=value string, never quoted in an error) and applies the migrations.
func Open(ctx context.Context, dsn string, opts Options) (*Sink, error) {
	pool, err := pgpool.Open(ctx, "pgstats", pgpool.Config{DSN: dsn, Schema: opts.Schema, MaxConns: opts.MaxConns, StatementTimeout: opts.StatementTimeout})
	if err != nil {
		return nil, err
	}
	if err := pgpool.Migrate(ctx, "pgstats", pool, opts.Schema, "stats_schema_version", migrations, "migrations"); err != nil {
		pool.Close()
		return nil, err
	}
	return &Sink{pool: pool}, nil
}

// Close closes the pool. Later calls do nothing.
func (s *Sink) Close() error {
	if !s.closed.Swap(true) {
		s.pool.Close()
	}
	return nil
}

// text makes s storable in a text column: PostgreSQL refuses NUL.
func text(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
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
	copyAll := func() error {
		i := 0
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if i == len(recs) {
				return nil, nil
			}
			r := recs[i]
			i++
			t := r.Time.UTC()
			us := t.Truncate(time.Microsecond)
			return []any{us, int32(t.Sub(us)), text(r.Tool), text(r.Pack), int64(r.Duration), r.Success,
				text(r.ErrorType), r.BytesIn, r.BytesOut}, nil
		})
		// CopyFrom outside a transaction is already one statement, all or
		// nothing.
		_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"stats_calls"}, columns, src)
		return err
	}
	err := copyAll()
	if notStored(ctx, err) {
		s.pool.Reset()
		err = copyAll()
	}
	if err != nil {
		return fmt.Errorf("pgstats: writing %d records: %w", len(recs), err)
	}
	return nil
}

// notStored reports whether a COPY that failed with err certainly stored
// nothing and lost its connection, so that it can run again on a new one
// without writing its records twice: pgconn says nothing was sent, or the
// server ended the connection (SQLSTATE 57P01–57P03, class 08), which
// aborts an unfinished COPY. A network error after the data was sent is
// not retried: the COPY may have committed.
func notStored(ctx context.Context, err error) bool {
	if !pgpool.ConnectionLost(ctx, err) {
		return false
	}
	var pe *pgconn.PgError
	return pgconn.SafeToRetry(err) || errors.As(err, &pe)
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
		return false, fmt.Errorf("pgstats: reading records: %w", err)
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
			return false, fmt.Errorf("pgstats: reading records: %w", err)
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
		return false, fmt.Errorf("pgstats: reading records: %w", err)
	}
	return false, nil
}
