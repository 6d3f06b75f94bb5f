package cataloguehost

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/internal/sparselog"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// Reader is one copy of the catalogue a host keeps in step with its
// store: the registry's catalogue tools ([Catalogue.Reader]), a search
// index (searchindex's Resync and ResyncBundles), a cache of the host's
// own.
type Reader struct {
	// Name says what the copy is in errors and logs ("the search index").
	Name string
	// All re-reads everything.
	All func(ctx context.Context) error
	// Bundles re-reads the given bundles only. Nil: All is called instead.
	Bundles func(ctx context.Context, ids []uuid.UUID) error
}

// Reader is the Reader that keeps c's tools in step: Sync and
// SyncBundles.
func (c *Catalogue) Reader() Reader {
	return Reader{Name: "the catalogue's tools", All: c.Sync, Bundles: c.SyncBundles}
}

// FollowOptions configures Follow. The zero value is ready to use.
type FollowOptions struct {
	// Logger receives failed re-reads (sparsely while they keep failing)
	// and the success after them. Nil: slog.Default().
	Logger *slog.Logger
	// Timeout bounds one re-read of all the readers. Zero: 30 s.
	Timeout time.Duration
	// RetryWait is the wait before a failed re-read is tried again,
	// doubling after each failure up to MaxRetryWait. Zero: 1 s and 30 s
	// (or RetryWait, when longer). A negative duration, or a MaxRetryWait
	// below RetryWait, is refused by Follow, naming the field.
	RetryWait, MaxRetryWait time.Duration
}

// Follow keeps readers in step with the catalogue w watches: each
// change (made through this host or another one on the same store; after
// a lost connection, a full resync) re-reads the bundles it touched when
// w is a catalogue.BundleWatcher and tells them, else everything. The
// readers of one change run at once, so a full re-read of a large
// catalogue takes the longest of them, not their sum.
//
// A re-read that fails (the database away or slow just then) is tried
// again in the background — after RetryWait, doubling up to MaxRetryWait —
// until it succeeds, so that a host never keeps serving a stale catalogue
// until some later change happens to come. Failures pending a retry are
// merged (bundles gather; a failed full re-read makes the retry a full
// one) and re-reads never run at once.
//
// Follow returns at once; following ends when ctx ends or stop is
// called, and stop waits for the watch and the retries to end. A watch
// that ends with an error of its own is logged. Readers without All, or
// none at all, are an error.
func Follow(ctx context.Context, w catalogue.Watcher, opts FollowOptions, readers ...Reader) (stop func(), err error) {
	if w == nil {
		return nil, errors.New("cataloguehost: Follow: the watcher is nil")
	}
	if len(readers) == 0 {
		return nil, errors.New("cataloguehost: Follow: no reader to keep in step")
	}
	for i, r := range readers {
		if r.All == nil {
			return nil, fmt.Errorf("cataloguehost: Follow: reader %d (%q): All is nil; expected the function that re-reads everything", i, r.Name)
		}
	}
	var bad []error
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"Timeout", opts.Timeout}, {"RetryWait", opts.RetryWait}, {"MaxRetryWait", opts.MaxRetryWait}} {
		if d.v < 0 {
			bad = append(bad, fmt.Errorf("cataloguehost: Follow: FollowOptions.%s is %s; expected zero (the default) or a positive duration", d.field, d.v))
		}
	}
	if opts.MaxRetryWait > 0 && opts.MaxRetryWait < opts.RetryWait {
		bad = append(bad, fmt.Errorf("cataloguehost: Follow: FollowOptions.MaxRetryWait is %s, below RetryWait (%s); expected zero (the default) or at least RetryWait", opts.MaxRetryWait, opts.RetryWait))
	}
	if len(bad) > 0 {
		return nil, errors.Join(bad...)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.RetryWait == 0 {
		opts.RetryWait = time.Second
	}
	if opts.MaxRetryWait == 0 {
		opts.MaxRetryWait = max(30*time.Second, opts.RetryWait)
	}
	ctx, cancel := context.WithCancel(ctx)
	attempt := func(ctx context.Context, bundles []uuid.UUID) error {
		ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
		errs := make([]error, len(readers))
		var wg sync.WaitGroup
		for i, r := range readers {
			wg.Go(func() {
				var err error
				if bundles == nil || r.Bundles == nil {
					err = r.All(ctx)
				} else {
					err = r.Bundles(ctx, bundles)
				}
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", r.Name, err)
				}
			})
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	reread, stopRetries := rereader(ctx, attempt, opts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var err error
		if bw, ok := w.(catalogue.BundleWatcher); ok {
			err = bw.WatchBundles(ctx, reread)
		} else {
			err = w.Watch(ctx, func() { reread(nil) })
		}
		if err != nil && ctx.Err() == nil {
			opts.Logger.Error("catalogue: watching the store for other hosts' changes stopped; they no longer reach this host", "error", err)
		}
	}()
	return func() { cancel(); <-done; stopRetries() }, nil
}

// rereader returns reread, which runs attempt for the bundles a change
// touched (nil: everything) and, when it fails, has it tried again in
// the background as Follow says. stop waits for the retrying goroutine
// once ctx has ended.
func rereader(ctx context.Context, attempt func(context.Context, []uuid.UUID) error, opts FollowOptions) (reread func([]uuid.UUID), stop func()) {
	var (
		runMu    sync.Mutex // one attempt at a time; guards failures
		failures sparselog.Failures
		mu       sync.Mutex // guards all and pending
		all      bool
		pending  = map[uuid.UUID]bool{}
		kick     = make(chan struct{}, 1)
		done     = make(chan struct{})
	)
	run := func(bundles []uuid.UUID) error {
		runMu.Lock()
		defer runMu.Unlock()
		err := attempt(ctx, bundles)
		if ctx.Err() == nil {
			failures.Record(ctx, opts.Logger, err, "catalogue: re-reading after a change failed; trying again", "catalogue: re-read after earlier failures")
		}
		return err
	}
	keep := func(bundles []uuid.UUID) {
		mu.Lock()
		if bundles == nil {
			all = true
		}
		for _, b := range bundles {
			pending[b] = true
		}
		mu.Unlock()
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	reread = func(bundles []uuid.UUID) {
		if run(bundles) != nil {
			keep(bundles)
		}
	}
	go func() {
		defer close(done)
		wait := &backoff.ExponentialBackOff{InitialInterval: opts.RetryWait, Multiplier: 2, MaxInterval: opts.MaxRetryWait}
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
			}
			wait.Reset()
			for {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait.NextBackOff()):
				}
				mu.Lock()
				whole, set := all, pending
				all, pending = false, map[uuid.UUID]bool{}
				mu.Unlock()
				var bundles []uuid.UUID
				if !whole {
					if len(set) == 0 {
						break // nothing pending: a signal left from a retry already made
					}
					for b := range set {
						bundles = append(bundles, b)
					}
				}
				if run(bundles) == nil {
					break
				}
				if ctx.Err() != nil {
					return
				}
				keep(bundles)
				<-kick // keep signalled it; this loop is the retry
			}
		}
	}()
	return reread, func() { <-done }
}
