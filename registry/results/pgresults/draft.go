package pgresults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/registry/results"
)

// insertChunk stores one chunk of a draft.
const insertChunk = `INSERT INTO result_chunks (handle, blob, n, data) VALUES ($1, $2, $3, $4)`

// draft is an output being written: one transaction holding one
// connection. Full chunks of both blobs are stored by a sender goroutine,
// one INSERT each, so that no statement lasts as long as the write: the
// statement timeout bounds each chunk, not the whole output, which may
// take as long as its source takes (as on files). Each blob's last,
// partial chunk stays in memory until Truncate or Commit.
//
// A draft that fails is finished at once: its transaction is rolled back
// and its connection and writer's turn are given back, whether or not
// Abort is called, so that nothing a failed draft held keeps Close (which
// waits for every connection) waiting.
type draft struct {
	b      *Backend
	ctx    context.Context
	cancel context.CancelCauseFunc
	pool   *pgxpool.Pool // to settle a COMMIT whose answer was lost
	tx     pgx.Tx
	handle string

	// mu is held by every method of the draft's writer and by Close
	// (kill): Close finishes a draft whose writer is between calls.
	mu    sync.Mutex
	blobs [2]blobWriter

	rows    chan []any // full chunks for the sender; closed to end it
	done    chan error // the sender's result
	err     error      // the first failure: every later call returns it
	end     bool       // the sender has ended
	fin     bool       // committed or aborted
	release func()     // gives back the Backend's writer token
}

// blobWriter is one blob of a draft.
type blobWriter struct {
	d       *draft
	blob    int16
	flushed int64  // bytes sent in full chunks
	tail    []byte // the bytes after them, fewer than ChunkSize
}

// Create implements results.Backend: it waits for a writer's turn (see
// Options.MaxConns), then begins the transaction and starts the sender of
// the chunks.
func (b *Backend) Create(ctx context.Context, handle string) (results.Draft, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if err := b.turn(ctx, handle); err != nil {
		return nil, err
	}
	release := func() { <-b.writers }
	ctx, cancel := context.WithCancelCause(ctx)
	// Nothing is written yet: a BEGIN that finds its connection gone (the
	// server restarted, or ended it) runs again on a new one.
	var tx pgx.Tx
	err := pgpool.ReadRetrying(ctx, b.pool, func() (err error) {
		tx, err = b.pool.Begin(ctx)
		return err
	})
	if err != nil {
		err = b.classify(ctx, err)
		cancel(nil)
		release()
		if errors.Is(err, ErrClosed) {
			return nil, err
		}
		return nil, fmt.Errorf("pgresults: %w", err)
	}
	b.answered()
	d := &draft{b: b, ctx: ctx, cancel: cancel, pool: b.pool, tx: tx, handle: handle, rows: make(chan []any, 4), done: make(chan error, 1)}
	d.release = sync.OnceFunc(func() {
		release()
		b.mu.Lock()
		delete(b.drafts, d)
		b.mu.Unlock()
	})
	d.blobs[blobText] = blobWriter{d: d, blob: blobText}
	d.blobs[blobIndex] = blobWriter{d: d, blob: blobIndex}
	b.mu.Lock()
	if b.closed.Load() {
		// Closed while this draft began: Close did not see it.
		b.mu.Unlock()
		cancel(ErrClosed)
		_ = tx.Rollback(context.WithoutCancel(ctx))
		release()
		return nil, ErrClosed
	}
	b.drafts[d] = struct{}{}
	b.mu.Unlock()
	go func() { d.done <- d.sender() }()
	return d, nil
}

// kill ends the draft for Close: its context is cancelled (which ends the
// sender, rolling the transaction back, and fails a statement under way),
// then, once its writer is between calls, a draft not yet finished is
// rolled back and gives back its connection. The writer's next call
// returns ErrClosed.
func (d *draft) kill() {
	d.cancel(ErrClosed)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fin {
		return
	}
	if !d.end {
		d.end = true
		<-d.done
	}
	_ = d.fail(ErrClosed)
}

// turn waits for a writer's turn (Options.MaxConns) for as long as the
// database answers the writers ahead — a long write keeps its turn, as
// on files — and fails as unavailable once it has waited a statement
// timeout in which the database answered none of them: outputs queued
// behind a database that stopped answering fail together, each within
// about one timeout, instead of each waiting for the one ahead to give
// up and then making its own doomed attempt.
func (b *Backend) turn(ctx context.Context, handle string) error {
	select {
	case b.writers <- struct{}{}:
		return nil
	default:
	}
	since := b.now()
	t := time.NewTimer(b.timeout)
	defer t.Stop()
	for {
		select {
		case b.writers <- struct{}{}:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("pgresults: waiting for a connection to write %s: %w", handle, ctx.Err())
		case <-b.closing:
			return ErrClosed
		case <-t.C:
			wait := max(since, time.Duration(b.heard.Load())) + b.timeout - b.now()
			if wait <= 0 {
				return fmt.Errorf("pgresults: waiting for a connection to write %s: %w: the database answered none of the outputs being written within the statement timeout (%s)",
					handle, results.ErrUnavailable, b.timeout)
			}
			t.Reset(wait)
		}
	}
}

// sender stores the chunks sent on d.rows, one INSERT each, until d.rows
// is closed. While it waits for the next chunk (a slow source) it asks
// the database a trivial statement every third of the statement timeout,
// so that the transaction is not ended as one a frozen host left idle
// (idle_in_transaction_session_timeout, set to the statement timeout) and
// a database that stopped answering is found in about one timeout, not at
// the next chunk.
//
// When a statement fails, the write has failed: the sender rolls the
// transaction back and gives the writer's turn back at once, and the next
// Write says so, instead of holding both until a slow source ends (the
// outputs queued behind it then failed as unavailable on a database that
// answers).
func (d *draft) sender() (err error) {
	defer func() {
		if err != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), d.b.timeout)
			_ = d.tx.Rollback(rctx)
			cancel()
			d.release()
		}
	}()
	idle := time.NewTimer(d.b.timeout / 3)
	defer idle.Stop()
	for {
		var err error
		select {
		case row, ok := <-d.rows:
			if !ok {
				return nil
			}
			_, err = d.tx.Exec(d.ctx, insertChunk, row...)
		case <-idle.C:
			_, err = d.tx.Exec(d.ctx, `SELECT 1`)
		case <-d.ctx.Done():
			return context.Cause(d.ctx)
		}
		if err != nil {
			return err
		}
		d.b.answered()
		idle.Reset(d.b.timeout / 3)
	}
}

func (d *draft) Text() io.Writer  { return &d.blobs[blobText] }
func (d *draft) Index() io.Writer { return &d.blobs[blobIndex] }

// fail records the draft's first failure and finishes it: the
// transaction is rolled back and its connection and the writer's turn are
// given back at once (an Abort after it does nothing). d.mu must be held
// and the sender must have ended.
func (d *draft) fail(err error) error {
	if d.err == nil {
		if errors.Is(context.Cause(d.ctx), ErrClosed) {
			err = ErrClosed // the Backend was closed under the write
		} else {
			err = d.b.classify(d.ctx, err)
		}
		d.err = fmt.Errorf("pgresults: writing %s: %w", d.handle, err)
	}
	if !d.fin {
		d.fin = true
		d.cancel(nil)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), d.b.timeout)
		_ = d.tx.Rollback(rctx) // after a failed COMMIT, or the sender's rollback: nothing to do
		cancel()
		d.release()
	}
	return d.err
}

// Write appends p to the blob, sending every chunk it completes. It fails
// as soon as the sender has (a slow source learns it at its next write,
// not at its next full chunk).
func (w *blobWriter) Write(p []byte) (int, error) {
	d := w.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return 0, d.err
	}
	if !d.end {
		select {
		case err := <-d.done:
			return 0, d.senderEnded(err)
		default:
		}
	}
	n := len(p)
	for len(p) > 0 {
		take := min(len(p), ChunkSize-len(w.tail))
		w.tail = append(w.tail, p[:take]...)
		p = p[take:]
		if len(w.tail) < ChunkSize {
			break
		}
		if err := w.send(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// senderEnded fails the draft with what the chunks' sender ended with
// (err, read from d.done), which ended before the chunks did.
func (d *draft) senderEnded(err error) error {
	d.end = true
	if err == nil {
		err = errors.New("the chunks' sender ended early")
	}
	return d.fail(err)
}

// send sends the full tail as a chunk: to the sender while it runs, by
// INSERT on the transaction after it ended (the tails, and the few bytes
// written after a Truncate).
func (w *blobWriter) send() error {
	d := w.d
	row := []any{d.handle, w.blob, w.flushed / ChunkSize, w.tail}
	if d.end {
		if _, err := d.tx.Exec(d.ctx, insertChunk, row...); err != nil {
			return d.fail(err)
		}
	} else {
		select {
		case d.rows <- row:
		case err := <-d.done:
			return d.senderEnded(err)
		}
	}
	w.flushed += int64(len(w.tail))
	w.tail = make([]byte, 0, ChunkSize) // the sender may still hold the old one
	return nil
}

// endSending ends the sender once it has stored every chunk sent to it,
// and waits for its result.
func (d *draft) endSending() error {
	if d.end {
		return d.err
	}
	d.end = true
	close(d.rows)
	if err := <-d.done; err != nil {
		return d.fail(err)
	}
	return nil
}

// Truncate implements results.Draft.
func (d *draft) Truncate(textSize, indexSize int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return d.err
	}
	if err := d.endSending(); err != nil {
		return err
	}
	for i, size := range []int64{textSize, indexSize} {
		if err := d.blobs[i].truncate(size); err != nil {
			return err
		}
	}
	return nil
}

// truncate keeps the first size bytes of the blob: the tail is cut, or
// the chunk holding size becomes the tail and the chunks from it on are
// deleted.
func (w *blobWriter) truncate(size int64) error {
	d := w.d
	switch {
	case size < 0 || size > w.flushed+int64(len(w.tail)):
		return d.fail(fmt.Errorf("cannot truncate a blob of %d bytes to %d", w.flushed+int64(len(w.tail)), size))
	case size >= w.flushed:
		w.tail = w.tail[:size-w.flushed]
		return nil
	}
	k := size / ChunkSize
	var head []byte
	if err := d.tx.QueryRow(d.ctx, `SELECT substring(data FROM 1 FOR $4::int) FROM result_chunks WHERE handle = $1 AND blob = $2 AND n = $3`,
		d.handle, w.blob, k, size%ChunkSize).Scan(&head); err != nil {
		return d.fail(err)
	}
	if _, err := d.tx.Exec(d.ctx, `DELETE FROM result_chunks WHERE handle = $1 AND blob = $2 AND n >= $3`, d.handle, w.blob, k); err != nil {
		return d.fail(err)
	}
	w.flushed, w.tail = k*ChunkSize, append(make([]byte, 0, ChunkSize), head...)
	return nil
}

// Commit implements results.Draft: the tails, then the output's row, then
// COMMIT. A COMMIT whose answer was lost is settled by asking the
// database whether it committed (pgpool.Settle). ctx ending fails the
// commit. A failed Commit has rolled the transaction back and given its
// connection back: Abort after it does nothing.
func (d *draft) Commit(ctx context.Context, header []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return d.err
	}
	if d.fin {
		return fmt.Errorf("pgresults: writing %s: committed already", d.handle)
	}
	stop := context.AfterFunc(ctx, func() { d.cancel(context.Cause(ctx)) })
	defer stop()
	if err := d.endSending(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return d.fail(context.Cause(ctx))
	}
	for i := range d.blobs {
		w := &d.blobs[i]
		if len(w.tail) > 0 {
			if err := w.send(); err != nil {
				return err
			}
		}
	}
	text, index := d.blobs[blobText].flushed, d.blobs[blobIndex].flushed
	if _, err := d.tx.Exec(d.ctx, `INSERT INTO result_outputs (handle, header, text_size, index_size) VALUES ($1, $2, $3, $4)`,
		d.handle, header, text, index+results.HeaderSize); err != nil {
		return d.fail(err)
	}
	xid, err := pgpool.TxID(d.ctx, d.tx)
	if err != nil {
		return d.fail(err)
	}
	if err := d.tx.Commit(d.ctx); err != nil {
		// A COMMIT whose answer was lost may have landed: the database
		// says, so that a stored output is not reported as failed (and
		// returned inline while its stored copy waits to expire).
		if !pgpool.ConnectionLost(d.ctx, err) || pgpool.Settle(ctx, d.pool, xid) != "committed" {
			return d.fail(err)
		}
	}
	d.b.answered()
	d.fin = true
	d.cancel(nil)
	d.release()
	return nil
}

// Abort implements results.Draft: the transaction is rolled back, so
// nothing of the output stays.
func (d *draft) Abort() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fin {
		return
	}
	d.fin = true
	d.cancel(nil) // ends the sender if it still runs
	if !d.end {
		d.end = true
		<-d.done
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), d.b.timeout)
	_ = d.tx.Rollback(rctx)
	cancel()
	d.release()
}
