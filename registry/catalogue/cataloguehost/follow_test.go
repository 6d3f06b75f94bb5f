package cataloguehost_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
)

// handWatcher is a catalogue.BundleWatcher whose changes the test makes.
type handWatcher struct {
	mu      sync.Mutex
	changed func([]uuid.UUID)
	ready   chan struct{}
}

func newHandWatcher() *handWatcher { return &handWatcher{ready: make(chan struct{})} }

func (w *handWatcher) Watch(ctx context.Context, changed func()) error {
	return w.WatchBundles(ctx, func([]uuid.UUID) { changed() })
}

func (w *handWatcher) WatchBundles(ctx context.Context, changed func([]uuid.UUID)) error {
	w.mu.Lock()
	w.changed = changed
	w.mu.Unlock()
	close(w.ready)
	<-ctx.Done()
	return ctx.Err()
}

// change reports a change of bundles (nil: unknown) as the store would.
func (w *handWatcher) change(t *testing.T, bundles []uuid.UUID) {
	t.Helper()
	select {
	case <-w.ready:
	case <-time.After(5 * time.Second):
		t.Fatal("Follow never started watching")
	}
	w.mu.Lock()
	f := w.changed
	w.mu.Unlock()
	f(bundles)
}

var _ catalogue.BundleWatcher = (*handWatcher)(nil)

// flaky is a Reader whose first failures re-reads fail.
type flaky struct {
	mu       sync.Mutex
	failures int
	calls    [][]uuid.UUID // nil entry: a full re-read
}

func (f *flaky) reader() cataloguehost.Reader {
	return cataloguehost.Reader{Name: "the flaky copy",
		All:     func(ctx context.Context) error { return f.call(nil) },
		Bundles: func(ctx context.Context, ids []uuid.UUID) error { return f.call(ids) }}
}

func (f *flaky) call(ids []uuid.UUID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, ids)
	if f.failures > 0 {
		f.failures--
		return errors.New("database away")
	}
	return nil
}

func (f *flaky) snapshot() (calls [][]uuid.UUID, failures int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]uuid.UUID(nil), f.calls...), f.failures
}

var fastRetries = cataloguehost.FollowOptions{Logger: slog.New(slog.DiscardHandler), RetryWait: time.Millisecond, MaxRetryWait: 4 * time.Millisecond}

// A re-read after a change that fails (the database away or slow just
// then) is tried again in the background until it succeeds, so a host
// does not serve a stale catalogue until some later change comes; the
// failed bundles gather into the retry, and a failed full re-read makes
// the retry a full one.
func TestFollow_FailedRereadTriedAgainUntilItSucceeds(t *testing.T) {
	w := newHandWatcher()
	f := &flaky{failures: 3}
	stop, err := cataloguehost.Follow(t.Context(), w, fastRetries, f.reader())
	require.NoError(t, err)
	defer stop()
	a, b := uuid.New(), uuid.New()
	w.change(t, []uuid.UUID{a}) // fails
	w.change(t, []uuid.UUID{b}) // fails
	require.Eventually(t, func() bool {
		calls, failures := f.snapshot()
		return failures == 0 && len(calls) >= 4
	}, 5*time.Second, time.Millisecond, "retried until it succeeds")
	time.Sleep(20 * time.Millisecond)
	calls, _ := f.snapshot()
	assert.ElementsMatch(t, []uuid.UUID{a, b}, calls[len(calls)-1], "the retry re-reads every failed bundle")
	assert.Len(t, calls, 4, "no retry after the success")

	// A failed full re-read is retried as a full one.
	f.mu.Lock()
	f.failures, f.calls = 1, nil
	f.mu.Unlock()
	w.change(t, nil)
	require.Eventually(t, func() bool { calls, _ := f.snapshot(); return len(calls) == 2 }, 5*time.Second, time.Millisecond)
	calls, _ = f.snapshot()
	assert.Nil(t, calls[0])
	assert.Nil(t, calls[1], "a full re-read")
}

// Every reader re-reads each change, the bundles it touched when they are
// known, everything when they are not or when the reader cannot re-read
// bundles alone; a plain Watcher's changes re-read everything.
func TestFollow_EveryReaderRereadsEachChange(t *testing.T) {
	w := newHandWatcher()
	f1, f2 := &flaky{}, &flaky{}
	onlyAll := cataloguehost.Reader{Name: "whole", All: f2.reader().All}
	stop, err := cataloguehost.Follow(t.Context(), w, fastRetries, f1.reader(), onlyAll)
	require.NoError(t, err)
	a := uuid.New()
	w.change(t, []uuid.UUID{a})
	c1, _ := f1.snapshot()
	c2, _ := f2.snapshot()
	assert.Equal(t, [][]uuid.UUID{{a}}, c1)
	assert.Equal(t, [][]uuid.UUID{nil}, c2, "a reader without Bundles re-reads everything")
	stop()

	plain := &plainWatcher{handWatcher: newHandWatcher()}
	f3 := &flaky{}
	stop, err = cataloguehost.Follow(t.Context(), plain, fastRetries, f3.reader())
	require.NoError(t, err)
	defer stop()
	plain.change(t, []uuid.UUID{a})
	c3, _ := f3.snapshot()
	assert.Equal(t, [][]uuid.UUID{nil}, c3, "a Watcher does not say which bundles changed")
}

// plainWatcher is a catalogue.Watcher that is not a BundleWatcher.
type plainWatcher struct{ handWatcher *handWatcher }

func (p *plainWatcher) Watch(ctx context.Context, changed func()) error {
	return p.handWatcher.Watch(ctx, changed)
}

func (p *plainWatcher) change(t *testing.T, bundles []uuid.UUID) { p.handWatcher.change(t, bundles) }

// stop ends the watch and a retry that is waiting, and returns.
func TestFollow_StopEndsRetries(t *testing.T) {
	w := newHandWatcher()
	f := &flaky{failures: 1 << 30}
	stop, err := cataloguehost.Follow(t.Context(), w, cataloguehost.FollowOptions{Logger: slog.New(slog.DiscardHandler), RetryWait: time.Hour}, f.reader())
	require.NoError(t, err)
	w.change(t, nil)
	done := make(chan struct{})
	go func() { stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("stop waited for an hour-long retry")
	}
	calls, _ := f.snapshot()
	assert.Len(t, calls, 1)
}

// Follow refuses what it cannot follow with: no reader, a reader without
// All (a full re-read would fail on it), no watcher.
func TestFollow_RefusesReadersItCannotUse(t *testing.T) {
	w := newHandWatcher()
	_, err := cataloguehost.Follow(t.Context(), w, fastRetries)
	assert.ErrorContains(t, err, "no reader")
	_, err = cataloguehost.Follow(t.Context(), w, fastRetries, cataloguehost.Reader{Name: "half"})
	assert.ErrorContains(t, err, `reader 0 ("half"): All is nil`)
	_, err = cataloguehost.Follow(t.Context(), nil, fastRetries, (&flaky{}).reader())
	assert.ErrorContains(t, err, "the watcher is nil")
}

// Follow refuses negative durations and a MaxRetryWait below RetryWait,
// naming each field, instead of silently using its defaults.
func TestFollow_NegativeDurationsRefusedNamingTheField(t *testing.T) {
	w := newHandWatcher()
	for _, tc := range []struct {
		opts cataloguehost.FollowOptions
		want string
	}{
		{cataloguehost.FollowOptions{Timeout: -time.Second}, "FollowOptions.Timeout is -1s; expected zero (the default) or a positive duration"},
		{cataloguehost.FollowOptions{RetryWait: -time.Second}, "FollowOptions.RetryWait is -1s; expected zero (the default) or a positive duration"},
		{cataloguehost.FollowOptions{MaxRetryWait: -time.Second}, "FollowOptions.MaxRetryWait is -1s; expected zero (the default) or a positive duration"},
		{cataloguehost.FollowOptions{RetryWait: time.Minute, MaxRetryWait: time.Second}, "FollowOptions.MaxRetryWait is 1s, below RetryWait (1m0s); expected zero (the default) or at least RetryWait"},
	} {
		_, err := cataloguehost.Follow(t.Context(), w, tc.opts, (&flaky{}).reader())
		assert.ErrorContains(t, err, tc.want)
	}
}
