package pgresults_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testwait"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/results/pgresults"
)

// handle is the n-th handle of a test (32 hexadecimal digits).
func handle(n int) string { return fmt.Sprintf("%032x", n) }

// header is a valid-sized index header.
var header = make([]byte, results.HeaderSize)

// A draft whose Commit failed (here the database refused its row) gave
// back its connection: Close returns although its writer never called
// Abort, and nothing of the output is stored. Abort after it does nothing.
func TestBackend_CloseReturnsAfterFailedCommit(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	be := openBackend(t, dsn, schema)
	ctx := context.Background()
	d, err := be.Create(ctx, handle(1))
	require.NoError(t, err)
	_, err = d.Text().Write([]byte("one line\n"))
	require.NoError(t, err)
	_, err = d.Index().Write(make([]byte, 16))
	require.NoError(t, err)
	err = d.Commit(ctx, []byte("short")) // the header must be 64 bytes
	require.Error(t, err)
	assert.Contains(t, err.Error(), handle(1))
	require.ErrorIs(t, d.Commit(ctx, header), err, "a failed draft stays failed")

	testwait.Returns(t, "Close after a failed Commit", func() { require.NoError(t, be.Close()) })
	d.Abort()
	assertEmpty(t, dsn, schema)
}

// A Commit whose context has ended fails, and gives its connection back
// as any failed Commit does.
func TestBackend_CommitWithEndedContextFailsAndReleases(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	be := openBackend(t, dsn, schema)
	d, err := be.Create(context.Background(), handle(2))
	require.NoError(t, err)
	_, err = d.Text().Write([]byte("one line\n"))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, d.Commit(ctx, header), context.Canceled)
	testwait.Returns(t, "Close after a cancelled Commit", func() { require.NoError(t, be.Close()) })
	assertEmpty(t, dsn, schema)
}

// Close with outputs still being written — one whose chunks are being
// sent, one cut by Truncate (its writer holds the transaction itself) —
// does not wait for their writers: each draft fails with ErrClosed at its
// next call, and nothing of them is stored.
func TestBackend_CloseEndsDraftsBeingWritten(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	be := openBackend(t, dsn, schema)
	ctx := context.Background()
	sending, err := be.Create(ctx, handle(3))
	require.NoError(t, err)
	_, err = sending.Text().Write([]byte(strings.Repeat("x", 3*pgresults.ChunkSize+5)))
	require.NoError(t, err)
	cut, err := be.Create(ctx, handle(4))
	require.NoError(t, err)
	_, err = cut.Text().Write([]byte(strings.Repeat("y", 2*pgresults.ChunkSize)))
	require.NoError(t, err)
	require.NoError(t, cut.Truncate(pgresults.ChunkSize+1, 0))

	testwait.Returns(t, "Close with drafts being written", func() { require.NoError(t, be.Close()) })
	for name, d := range map[string]results.Draft{"sending": sending, "cut": cut} {
		_, err := d.Text().Write([]byte("more\n"))
		require.ErrorIs(t, err, pgresults.ErrClosed, name)
		require.ErrorIs(t, d.Commit(ctx, header), pgresults.ErrClosed, name)
		d.Abort()
	}
	_, err = be.Create(ctx, handle(5))
	require.ErrorIs(t, err, pgresults.ErrClosed)
	assertEmpty(t, dsn, schema)
}

// A Store closed while a Put waits for its source returns: the Put fails
// once its source gives more (nothing is stored), instead of Close
// waiting for a source that may never end.
func TestStore_CloseWithPutWaitingForItsSource(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	be := openBackend(t, dsn, schema)
	st, err := results.Open(context.Background(), results.Options{Backend: be, Logger: quiet})
	require.NoError(t, err)
	started, open := make(chan int, 1), make(chan struct{})
	putErr := make(chan error, 1)
	go func() {
		_, err := st.Put(context.Background(), &gated{started: started, open: open})
		putErr <- err
	}()
	<-started
	testwait.Returns(t, "Store.Close with a Put in flight", func() { require.NoError(t, st.Close()) })
	close(open)
	err = <-putErr
	require.ErrorIs(t, err, pgresults.ErrClosed)
	assertEmpty(t, dsn, schema)
}

// Close is idempotent and safe while outputs are written and read
// concurrently (run with -race): every call returns, every write either
// commits or fails with ErrClosed, and every Close returns once the pool
// is closed.
func TestBackend_CloseConcurrentWithCalls(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	be := openBackend(t, dsn, schema)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := 0; ; i++ {
				d, err := be.Create(ctx, handle(1000*(w+1)+i))
				if err != nil {
					assert.True(t, errors.Is(err, pgresults.ErrClosed), "create: %v", err)
					return
				}
				_, werr := d.Text().Write([]byte(strings.Repeat("z", pgresults.ChunkSize+i)))
				cerr := d.Commit(ctx, header)
				d.Abort()
				for _, err := range []error{werr, cerr} {
					if err != nil {
						assert.ErrorIs(t, err, pgresults.ErrClosed)
					}
				}
				if _, err := be.Open(ctx, handle(1000*(w+1)+i)); err != nil && !errors.Is(err, pgresults.ErrClosed) {
					assert.True(t, cerr != nil, "open of a committed output: %v", err)
				}
			}
		})
	}
	time.Sleep(50 * time.Millisecond) // let some writes be under way; the test holds whatever the timing
	testwait.Returns(t, "concurrent Close calls", func() {
		var closers sync.WaitGroup
		for range 3 {
			closers.Go(func() { assert.NoError(t, be.Close()) })
		}
		closers.Wait()
	})
	testwait.Returns(t, "the writers", wg.Wait)
}
