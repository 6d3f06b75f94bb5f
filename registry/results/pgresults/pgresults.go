// Package pgresults keeps a results.Store's large outputs in PostgreSQL
// instead of files, so that every host given the same database serves
// the outputs any of them stored: ot.result on one host pages a handle
// another host returned.
//
// Open it and give it to results.Open as Options.Backend; the Store closes
// it:
//
//	be, err := pgresults.Open(ctx, os.Getenv("OUTPUT_DSN"), pgresults.Options{})
//	st, err := results.Open(ctx, results.Options{Backend: be})
//	defer st.Close()
//
// Closing does not wait for the sources of outputs still being written
// (a tool's stream may never end): those writes fail with ErrClosed and
// leave nothing stored, and a write that failed gives its connection back
// at once, so Close returns once the reads under way have ended.
//
// An output is written in one transaction — its text and its line index in
// chunks of ChunkSize bytes (one INSERT each), then its row — so a writer
// killed mid-way leaves nothing, and a write whose COMMIT answer was lost
// asks the database whether it landed, so that a stored output is never
// reported as failed. The statement timeout bounds each statement, not the
// write: an output takes as long to store as its source takes to give it,
// as on files, while a database that stops answering fails the write
// within about one timeout. A page is read as on files: one indexed read
// of its line offsets and one of its text, whatever the offset, each
// fetching only the bytes it needs (chunks are stored out of line and
// uncompressed, so substring() reads only its part). The tables are
// migrated at Open (github.com/jackc/tern) in Options.Schema.
//
// While the database cannot be reached, reading or storing an output
// fails with an error that is results.ErrUnavailable (errors.Is), never
// ErrNotFound or ErrExpired: ot.result answers "try again in a moment",
// and the large-output middleware returns an output it cannot store as it
// is. Nothing has to be reopened when the database is back.
//
// Hosts sharing one database should share one expiry (output.ttl) and one
// space budget (results.Options.MaxDirBytes) too: each host sweeps every
// host's outputs by its own, so the shortest TTL forgets the others'
// expired handles early ("not found" instead of "expired") and the
// smallest budget evicts everyone's outputs.
package pgresults

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/registry/results"
)

//go:embed migrations/*.sql
var migrations embed.FS

// ChunkSize is the size of the chunks an output's text and index are
// stored in (the last chunk of each is shorter).
const ChunkSize = 256 << 10

// Blob numbers of result_chunks.
const (
	blobText  = 0
	blobIndex = 1
)

// ErrClosed is returned by a Backend's methods after Close.
var ErrClosed = errors.New("pgresults: closed")

// Options configure a Backend; they mirror the host configuration's
// output: {dsn, schema, max_conns, statement_timeout}.
type Options struct {
	// Schema holds the tables; "" means "toolpack". Created when absent.
	Schema string
	// MaxConns caps the connection pool; zero means pgxpool's default
	// (at least 4). It must be at least 2 (Open refuses 1 and negative
	// ones). Every output being written holds one connection until it
	// commits, so at most MaxConns-1 outputs are written at once: one
	// connection is always left for reading pages and for the health
	// check, which a burst of large outputs would otherwise keep waiting. More outputs wait their
	// turn while the database answers the ones being written; one that
	// has waited a StatementTimeout in which it answered none of them
	// fails as results.ErrUnavailable.
	MaxConns int32
	// StatementTimeout bounds every statement; zero means the DSN's
	// statement_timeout when it sets one, else 30 seconds (Open refuses
	// a negative one or one under a millisecond). Storing an output is
	// many statements (one per chunk), so it bounds each of them, not
	// the whole write.
	StatementTimeout time.Duration
}

// Backend is the PostgreSQL results.Backend. It is safe for concurrent
// use.
type Backend struct {
	pool    *pgxpool.Pool
	timeout time.Duration // the statement timeout
	closed  atomic.Bool
	// writers holds a token per output being written: its capacity is
	// the pool's size less the connection kept for reads (at least 1).
	writers chan struct{}
	// heard is when the database last answered a writer, as time since
	// epoch (monotonic): a writer waits for its turn while it answers.
	heard atomic.Int64
	epoch time.Time
	// rows remembers the rows of outputs opened lately: a committed
	// output never changes, so paging through one reads its row once. A
	// read that finds the output's chunks gone checks the row again.
	rows *lru.Cache[string, outputRow]

	mu      sync.Mutex          // guards drafts, and closed's change
	drafts  map[*draft]struct{} // the outputs being written, ended by Close
	closing chan struct{}       // closed by Close: writers waiting for a turn give up
	shut    chan struct{}       // closed once Close has closed the pool
}

// outputRow is an output's row: its index header and sizes.
type outputRow struct {
	header              []byte
	textSize, indexSize int64
}

// rowCacheSize bounds the rows a Backend remembers.
const rowCacheSize = 4096

var _ results.Backend = (*Backend)(nil)

// Open connects to the database named by dsn (a PostgreSQL URL or
// key=value string, never quoted in an error) and applies the migrations.
// A database that cannot be reached is results.ErrUnavailable; a refused
// login or a failing migration is not.
func Open(ctx context.Context, dsn string, opts Options) (*Backend, error) {
	pool, err := pgpool.Open(ctx, "pgresults", pgpool.Config{DSN: dsn, Schema: opts.Schema, MaxConns: opts.MaxConns, StatementTimeout: opts.StatementTimeout})
	if err != nil {
		return nil, pgpool.Classify(ctx, err, results.ErrUnavailable)
	}
	if n := pool.Config().MaxConns; n < 2 {
		pool.Close()
		return nil, fmt.Errorf("pgresults: Options.MaxConns (or the DSN's pool_max_conns): expected at least 2, got %d: one connection stays free for reading pages while outputs are written", n)
	}
	if err := pgpool.Migrate(ctx, "pgresults", pool, opts.Schema, "results_schema_version", migrations, "migrations"); err != nil {
		pool.Close()
		return nil, pgpool.Classify(ctx, err, results.ErrUnavailable)
	}
	rows, _ := lru.New[string, outputRow](rowCacheSize) // fails only for a size below 1
	timeout := opts.StatementTimeout
	if timeout <= 0 {
		timeout = pgpool.DefaultStatementTimeout
	}
	return &Backend{pool: pool, timeout: timeout, rows: rows, writers: make(chan struct{}, max(1, pool.Config().MaxConns-1)), epoch: time.Now(),
		drafts: map[*draft]struct{}{}, closing: make(chan struct{}), shut: make(chan struct{})}, nil
}

// now is the time since b.epoch.
func (b *Backend) now() time.Duration { return time.Since(b.epoch) }

// answered records that the database has just answered a writer.
func (b *Backend) answered() { b.heard.Store(int64(b.now())) }

// Close ends the outputs still being written — each fails with ErrClosed
// and leaves nothing stored, whether or not its writer is in a call —
// then closes the pool, once the reads under way have given their
// connections back (each within about one statement timeout). Later and
// concurrent calls wait for the first to finish and do nothing.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed.Swap(true) {
		b.mu.Unlock()
		<-b.shut
		return nil
	}
	close(b.closing)
	drafts := make([]*draft, 0, len(b.drafts))
	for d := range b.drafts {
		drafts = append(drafts, d)
	}
	b.mu.Unlock()
	for _, d := range drafts {
		d.kill()
	}
	b.pool.Close()
	close(b.shut)
	return nil
}

// classify is err of a statement run with ctx as returned: ErrClosed
// once Close has begun (the pool ends what is under way), else
// results.ErrUnavailable when the database could not be reached.
func (b *Backend) classify(ctx context.Context, err error) error {
	if b.closed.Load() {
		return ErrClosed
	}
	return pgpool.Classify(ctx, err, results.ErrUnavailable)
}

func (b *Backend) check() error {
	if b.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Ping reports whether the database answers now: nil, or an error that is
// results.ErrUnavailable when it cannot be reached. A host's health check
// (ot.health) calls it.
func (b *Backend) Ping(ctx context.Context) error {
	if err := b.check(); err != nil {
		return err
	}
	if err := pgpool.Ping(ctx, b.pool); err != nil {
		return fmt.Errorf("pgresults: ping: %w", b.classify(ctx, err))
	}
	return nil
}

// Open implements results.Backend: one read of the output's row (none
// when it was opened lately); its blobs are read on demand.
func (b *Backend) Open(ctx context.Context, handle string) (results.Blobs, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if row, ok := b.rows.Get(handle); ok {
		return &blobs{b: b, ctx: ctx, handle: handle, outputRow: row}, nil
	}
	row, err := b.readRow(ctx, handle)
	if err != nil {
		return nil, err
	}
	b.rows.Add(handle, row)
	return &blobs{b: b, ctx: ctx, handle: handle, outputRow: row}, nil
}

// readRow reads handle's row; an output that is not there is an error
// wrapping fs.ErrNotExist.
func (b *Backend) readRow(ctx context.Context, handle string) (outputRow, error) {
	var row outputRow
	err := pgpool.ReadRetrying(ctx, b.pool, func() error {
		return b.pool.QueryRow(ctx, `SELECT header, text_size, index_size FROM result_outputs WHERE handle = $1`, handle).
			Scan(&row.header, &row.textSize, &row.indexSize)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return row, fmt.Errorf("pgresults: %s: %w", handle, fs.ErrNotExist)
	}
	if err != nil {
		return row, fmt.Errorf("pgresults: opening %s: %w", handle, b.classify(ctx, err))
	}
	return row, nil
}

// Remove implements results.Backend: the output's row and chunks go and
// its tombstone is written, in one transaction.
func (b *Backend) Remove(ctx context.Context, handle string, t results.Tombstone) error {
	if err := b.check(); err != nil {
		return err
	}
	err := pgpool.TxRetrying(ctx, b.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO result_tombstones (handle, removed_at, evicted) VALUES ($1, $2, $3)
			ON CONFLICT (handle) DO UPDATE SET removed_at = excluded.removed_at, evicted = excluded.evicted`, handle, t.At, t.Evicted); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM result_outputs WHERE handle = $1`, handle)
		return err
	})
	b.rows.Remove(handle)
	if err != nil {
		return fmt.Errorf("pgresults: removing %s: %w", handle, b.classify(ctx, err))
	}
	return nil
}

// Tombstone implements results.Backend.
func (b *Backend) Tombstone(ctx context.Context, handle string) (results.Tombstone, bool, error) {
	if err := b.check(); err != nil {
		return results.Tombstone{}, false, err
	}
	var t results.Tombstone
	err := pgpool.ReadRetrying(ctx, b.pool, func() error {
		return b.pool.QueryRow(ctx, `SELECT removed_at, evicted FROM result_tombstones WHERE handle = $1`, handle).Scan(&t.At, &t.Evicted)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return results.Tombstone{}, false, nil
	}
	if err != nil {
		return results.Tombstone{}, false, fmt.Errorf("pgresults: tombstone of %s: %w", handle, b.classify(ctx, err))
	}
	return t, true, nil
}

// Scan implements results.Backend: every output's header, and the
// tombstones older than keep removed. A writer that died left nothing:
// its transaction was rolled back.
func (b *Backend) Scan(ctx context.Context, now time.Time, keep time.Duration, fn func(string, []byte, int64)) error {
	if err := b.check(); err != nil {
		return err
	}
	// Removing old tombstones may run twice: the second removes nothing.
	err := pgpool.ReadRetrying(ctx, b.pool, func() error {
		_, err := b.pool.Exec(ctx, `DELETE FROM result_tombstones WHERE removed_at <= $1`, now.Add(-keep))
		return err
	})
	if err != nil {
		return fmt.Errorf("pgresults: removing old tombstones: %w", b.classify(ctx, err))
	}
	rows, err := b.pool.Query(ctx, `SELECT handle, header, index_size FROM result_outputs`)
	if err != nil {
		return fmt.Errorf("pgresults: listing outputs: %w", b.classify(ctx, err))
	}
	var (
		h    string
		hdr  []byte
		size int64
	)
	_, err = pgx.ForEachRow(rows, []any{&h, &hdr, &size}, func() error {
		fn(h, hdr, size)
		return nil
	})
	if err != nil {
		return fmt.Errorf("pgresults: listing outputs: %w", b.classify(ctx, err))
	}
	return nil
}

// blobs is an open output: its row, and its chunks read on demand with
// the context of the query that opened it.
type blobs struct {
	b      *Backend
	ctx    context.Context
	handle string
	outputRow
}

func (o *blobs) Text() io.ReaderAt  { return chunkReader{o: o, blob: blobText} }
func (o *blobs) TextSize() int64    { return o.textSize }
func (o *blobs) Index() io.ReaderAt { return indexReader{o} }
func (o *blobs) IndexSize() int64   { return o.indexSize }
func (o *blobs) Close() error       { return nil }

// indexReader reads the index: its header from the row, the rest from the
// chunks.
type indexReader struct{ o *blobs }

func (r indexReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("pgresults: negative offset %d", off)
	}
	n := 0
	if off < int64(len(r.o.header)) {
		n = copy(p, r.o.header[off:])
		if n == len(p) {
			return n, nil
		}
		off += int64(n)
	}
	m, err := chunkReader{o: r.o, blob: blobIndex}.ReadAt(p[n:], off-results.HeaderSize)
	return n + m, err
}

// chunkReader reads one blob of an output at any offset: one query over
// the chunks the range touches, each cut to its part by substring().
type chunkReader struct {
	o    *blobs
	blob int16
}

func (r chunkReader) ReadAt(p []byte, off int64) (int, error) {
	size := r.o.textSize
	if r.blob == blobIndex {
		size = r.o.indexSize - results.HeaderSize
	}
	if off < 0 {
		return 0, fmt.Errorf("pgresults: negative offset %d", off)
	}
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := p
	if rest := size - off; int64(len(want)) > rest {
		want = want[:rest]
	}
	if len(want) == 0 {
		return 0, nil
	}
	first, last := off/ChunkSize, (off+int64(len(want))-1)/ChunkSize
	from := off%ChunkSize + 1                      // 1-based, in the first chunk
	upto := (off+int64(len(want))-1)%ChunkSize + 1 // bytes of the last chunk
	n := 0
	err := pgpool.ReadRetrying(r.o.ctx, r.o.b.pool, func() error {
		n = 0
		rows, err := r.o.b.pool.Query(r.o.ctx, `
		SELECT CASE
		         WHEN n = $3 AND n = $4 THEN substring(data FROM $5::int FOR $6::int - $5::int + 1)
		         WHEN n = $3 THEN substring(data FROM $5::int)
		         WHEN n = $4 THEN substring(data FROM 1 FOR $6::int)
		         ELSE data
		       END
		  FROM result_chunks
		 WHERE handle = $1 AND blob = $2 AND n BETWEEN $3::bigint AND $4::bigint
		 ORDER BY n`, r.o.handle, r.blob, first, last, from, upto)
		if err != nil {
			return err
		}
		var part []byte
		_, err = pgx.ForEachRow(rows, []any{&part}, func() error {
			if n+len(part) > len(want) {
				return fmt.Errorf("chunks longer than the output's size")
			}
			n += copy(want[n:], part)
			return nil
		})
		return err
	})
	if err != nil {
		return n, fmt.Errorf("pgresults: reading %s: %w", r.o.handle, r.o.b.classify(r.o.ctx, err))
	}
	if n < len(want) {
		// Removed (by this host's sweep or another's) since its row was
		// read, or damaged: the row says which.
		r.o.b.rows.Remove(r.o.handle)
		if _, err := r.o.b.readRow(r.o.ctx, r.o.handle); errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		return n, fmt.Errorf("pgresults: reading %s: %d of %d bytes stored: %w", r.o.handle, n, len(want), io.ErrUnexpectedEOF)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
