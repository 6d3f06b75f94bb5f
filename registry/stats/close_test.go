package stats

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testwait"
)

// stuckSink's first Append blocks until its context ends (a database that
// stopped answering); with ignoreCtx it blocks until released whatever
// its context says (a Sink that does not honour it). Later Appends store.
type stuckSink struct {
	memSink
	ignoreCtx bool
	entered   chan struct{}
	release   chan struct{}
	once      sync.Once
}

func (s *stuckSink) Append(ctx context.Context, recs []Record) error {
	first := false
	s.once.Do(func() { first = true })
	if first {
		close(s.entered)
		if s.ignoreCtx {
			<-s.release
		} else {
			<-ctx.Done()
			return ctx.Err()
		}
	}
	return s.memSink.Append(ctx, recs)
}

// Close interrupts a Flush that waits on the store (here a Sink that
// does not answer, given no deadline): the Flush returns ErrClosed and
// Close writes its records, instead of Close waiting for it forever.
func TestRecorder_CloseInterruptsAFlushUnderWay(t *testing.T) {
	sink := &stuckSink{entered: make(chan struct{}), release: make(chan struct{})}
	rec, err := New(Options{Enabled: true, Sink: sink, FlushInterval: time.Hour, Logger: discard})
	require.NoError(t, err)
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "q")
	flushed := make(chan error, 1)
	go func() { flushed <- rec.Flush(context.Background()) }()
	<-sink.entered
	testwait.Returns(t, "Close with a Flush under way", func() { require.NoError(t, rec.Close(context.Background())) })
	require.ErrorIs(t, <-flushed, ErrClosed)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	assert.Len(t, sink.recs, 1, "Close wrote the record the Flush could not")
}

// reconfigureUnderWay records a call into a Recorder writing to sink,
// then starts a Reconfigure to a new sink and returns once the Reconfigure
// is writing the call under the previous options: the Recorder, the new
// sink and the Reconfigure's result.
func reconfigureUnderWay(t *testing.T, sink *stuckSink) (*Recorder, *memSink, <-chan error) {
	t.Helper()
	o := Options{Enabled: true, Sink: sink, FlushInterval: time.Hour, Logger: discard}
	rec, err := New(o)
	require.NoError(t, err)
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "q")
	next := &memSink{}
	done := make(chan error, 1)
	go func() {
		n := o
		n.Sink = next
		done <- rec.Reconfigure(context.Background(), n)
	}()
	<-sink.entered
	return rec, next, done
}

// Close also interrupts a Reconfigure writing under the previous options.
func TestRecorder_CloseInterruptsAReconfigureUnderWay(t *testing.T) {
	sink := &stuckSink{entered: make(chan struct{}), release: make(chan struct{})}
	rec, next, done := reconfigureUnderWay(t, sink)
	testwait.Returns(t, "Close with a Reconfigure under way", func() { require.NoError(t, rec.Close(context.Background())) })
	assert.ErrorIs(t, <-done, ErrClosed, "the interrupted Reconfigure says so, and did not take effect")
	sink.mu.Lock()
	defer sink.mu.Unlock()
	assert.Len(t, sink.recs, 1, "Close wrote the record with the configuration it closed with")
	next.mu.Lock()
	defer next.mu.Unlock()
	assert.Empty(t, next.recs, "nothing went to the sink of the interrupted Reconfigure")
}

// A Sink that ignores its context holds a flush for as long as it likes:
// Close waits for it only as long as its own context allows, then returns
// the context's error; concurrent Close calls return too.
func TestRecorder_CloseHonoursItsContextWhileAFlushHoldsTheStore(t *testing.T) {
	sink := &stuckSink{ignoreCtx: true, entered: make(chan struct{}), release: make(chan struct{})}
	rec, err := New(Options{Enabled: true, Sink: sink, FlushInterval: time.Hour, Logger: discard})
	require.NoError(t, err)
	defer close(sink.release)
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "q")
	go func() { _ = rec.Flush(context.Background()) }()
	<-sink.entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	testwait.Returns(t, "Close while a Sink ignores its context", func() {
		errs := make(chan error, 2)
		for range 2 {
			go func() { errs <- rec.Close(ctx) }()
		}
		first, second := <-errs, <-errs
		if first == nil {
			first, second = second, first
		}
		assert.ErrorIs(t, first, context.DeadlineExceeded)
		assert.NoError(t, second, "a second Close does nothing")
	})
}

// Close is safe concurrently with calls, flushes and other Closes (run
// with -race): every one returns, and calls after it pass through.
func TestRecorder_CloseConcurrentWithCalls(t *testing.T) {
	rec, _ := newRecorder(t, nil)
	reg := newRegistry(t, rec)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range 200 {
				call(t, reg, "demo_search", "q")
				if i%50 == 0 {
					_ = rec.Flush(context.Background())
				}
			}
		})
	}
	testwait.Returns(t, "concurrent Close calls", func() {
		var closers sync.WaitGroup
		for range 3 {
			closers.Go(func() { assert.NoError(t, rec.Close(context.Background())) })
		}
		closers.Wait()
	})
	testwait.Returns(t, "the callers", wg.Wait)
	assert.ErrorIs(t, rec.Flush(context.Background()), ErrClosed)
}

// A Reconfigure whose flush finishes after Close began (its Sink ignores
// the context) still returns ErrClosed and never takes effect.
func TestRecorder_ReconfigureFinishingAfterCloseBeganNeverTakesEffect(t *testing.T) {
	sink := &stuckSink{ignoreCtx: true, entered: make(chan struct{}), release: make(chan struct{})}
	rec, next, done := reconfigureUnderWay(t, sink)
	closed := make(chan error, 1)
	go func() { closed <- rec.Close(context.Background()) }()
	testwait.Returns(t, "Close marking the Recorder closed", func() {
		for !rec.closed.Load() {
			time.Sleep(time.Millisecond)
		}
	})
	close(sink.release)
	assert.ErrorIs(t, <-done, ErrClosed)
	require.NoError(t, <-closed)
	next.mu.Lock()
	defer next.mu.Unlock()
	assert.Empty(t, next.recs, "nothing went to the sink of the interrupted Reconfigure")
}
