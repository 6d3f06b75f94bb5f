package stats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolpack-go/toolpack/internal/valuesize"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// Error types a record carries beyond the tool's own.
const (
	// ErrorTypeProtocol marks a call that ended with a protocol failure (a
	// non-nil error from the pipeline) other than a cancellation or an
	// expired deadline, which are recorded as result.Cancelled and
	// result.Timeout.
	ErrorTypeProtocol = registry.ErrorTypeProtocol
	// errorTypeUnknown marks a failed Result that named no error type.
	errorTypeUnknown = "unknown"
)

// kickAt is the number of buffered records that wakes the flusher before
// the interval ends (or MaxPending when smaller), so that a busy server
// writes in steady batches.
const kickAt = 4096

// Recorder records tool calls to JSON Lines files (or to Options.Sink) and
// aggregates them. Install its Middleware with Registry.UseOuter (so that
// calls refused for their arguments count too); call Close at shutdown, which writes what is still buffered. It is safe for concurrent
// use, and several processes may share one directory (or one Sink's
// database).
type Recorder struct {
	log    *slog.Logger
	cfg    atomic.Pointer[config]
	closed atomic.Bool
	// base is a time.Now() (wall and monotonic) renewed at every flush:
	// a call's start time is base plus the monotonic time since base, so a
	// call reads the clock twice rather than three times.
	base atomic.Pointer[timeBase]

	mu      sync.Mutex // guards pending and dropped
	pending []entry
	dropped int64

	// flushing is held (a token in it) by one flush or reconfiguration at
	// a time: a channel rather than a mutex, so that Close waits for it
	// only as long as its context allows.
	flushing chan struct{}
	spare    []entry   // the other buffer, swapped with pending; flushing
	recs     []record  // the batch being written; flushing
	buf      []byte    // encoding buffer; flushing
	out      []Record  // the batch given to a Sink; flushing
	times    timeCache // flushing

	size *valuesize.Sizer // bytes out of values that are not text

	kick chan struct{} // wakes the flusher (capacity 1)
	// life ends when Close is called (stop): it ends the flusher and
	// interrupts a Flush or Reconfigure waiting for the store, so that
	// Close writes what they were writing instead of waiting for them.
	life context.Context
	stop context.CancelFunc
	done chan struct{}
}

// lockFlush takes the flush token, waiting as long as ctx allows.
func (r *Recorder) lockFlush(ctx context.Context) error {
	select {
	case r.flushing <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Recorder) unlockFlush() { <-r.flushing }

// interruptible is ctx, also ended (with cause ErrClosed) when Close is
// called.
func (r *Recorder) interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(r.life, func() { cancel(ErrClosed) })
	return ctx, func() { stop(); cancel(nil) }
}

// closedDuring marks err, of an operation run with ctx from interruptible,
// as ErrClosed when Close interrupted it.
func closedDuring(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), ErrClosed) {
		return fmt.Errorf("%w: interrupted by Close, which writes the records still buffered: %w", ErrClosed, err)
	}
	return err
}

// unusable reports whether r is nil, not made by New (the zero value) or
// closed: its methods then answer ErrClosed (Close: nothing to do).
func (r *Recorder) unusable() bool {
	return r == nil || r.cfg.Load() == nil || r.closed.Load()
}

// New returns a Recorder for opts and starts its flusher. With Enabled it
// creates Options.Dir when missing; a directory that cannot be created is an
// error. Invalid options are ErrInvalidOptions naming every bad field.
func New(opts Options) (*Recorder, error) {
	cfg, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	if err := prepare(cfg); err != nil {
		return nil, err
	}
	loopCtx, stop := context.WithCancel(context.Background())
	r := &Recorder{
		log:      opts.Logger,
		kick:     make(chan struct{}, 1),
		life:     loopCtx,
		stop:     stop,
		done:     make(chan struct{}),
		flushing: make(chan struct{}, 1),
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	r.size = valuesize.New()
	r.cfg.Store(cfg)
	r.renewBase()
	go r.loop(loopCtx)
	return r, nil
}

// prepare creates the record directory of an enabled configuration.
func prepare(cfg *config) error {
	if !cfg.enabled || cfg.dir == "" {
		return nil
	}
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		return fmt.Errorf("%w: Dir (stats.dir): %w", ErrInvalidOptions, err)
	}
	return nil
}

// Reconfigure applies new options (a configuration reload): what is
// buffered is written under the previous options first, then calls are
// recorded under the new ones. Invalid options, or a directory that cannot
// be created, leave the previous options in force and return the error.
// Records buffered while a reconfiguration disables recording are dropped.
// Close interrupting it makes it return ErrClosed with the new options
// never in force: Close writes what is buffered under the previous ones.
func (r *Recorder) Reconfigure(ctx context.Context, opts Options) error {
	if r.unusable() {
		return ErrClosed
	}
	cfg, err := resolve(opts)
	if err != nil {
		return err
	}
	if err := prepare(cfg); err != nil {
		return err
	}
	ctx, cancel := r.interruptible(ctx)
	defer cancel()
	if err := r.lockFlush(ctx); err != nil {
		return fmt.Errorf("stats: reconfigure: %w", closedDuring(ctx, err))
	}
	defer r.unlockFlush()
	if r.closed.Load() || r.cfg.Load() == nil { // closed, or the zero Recorder
		return ErrClosed
	}
	if err := r.flushLocked(ctx, r.cfg.Load()); err != nil {
		if errors.Is(context.Cause(ctx), ErrClosed) {
			// Close interrupted it: the Recorder is closing with its
			// configuration, which writes the records still buffered.
			return fmt.Errorf("stats: reconfigure: %w", closedDuring(ctx, err))
		}
		// Kept buffered: they go to the new directory.
		r.log.LogAttrs(ctx, slog.LevelWarn, "stats: writing records before reconfiguring failed: "+err.Error())
	}
	if r.closed.Load() || errors.Is(context.Cause(ctx), ErrClosed) {
		// Close began while the flush ran (a Sink that ignores its
		// context finishes anyway): it closes with the previous options.
		return fmt.Errorf("stats: reconfigure: %w: interrupted by Close", ErrClosed)
	}
	r.cfg.Store(cfg)
	r.wake()
	return nil
}

// Middleware returns the registry middleware recording every call it sees:
// the time it started, the tool's final name and pack, its duration,
// success, error type (the failure's, or ErrorTypeProtocol, cancelled or
// timeout for a protocol failure), bytes in (the raw arguments) and bytes
// out (a string, []byte or json.RawMessage value's length; for any other
// value the length of its encoding/json encoding without HTML escaping,
// 0 when it cannot be encoded — common shapes are measured without being
// encoded; a failure's error text). Install it once with
// Registry.UseOuter, so that calls refused for their arguments are recorded
// too (with Use only the calls whose arguments passed are); Reconfigure
// changes what it does. While recording is disabled or after Close it only
// passes the call on. Recording never blocks a call on disk: records are
// buffered and written by the flusher. Calls refused before any middleware
// (unknown or disabled tools) are not recorded. It panics on a Recorder
// not made by New (a zero Recorder), where the host is put together.
func (r *Recorder) Middleware() registry.Middleware {
	if r == nil || r.cfg.Load() == nil {
		// Every call would otherwise fail with an internal error, at run
		// time; this fails where the host is put together.
		panic("stats: Middleware of a Recorder not made by New")
	}
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			cfg := r.cfg.Load()
			if !cfg.enabled || c == nil || c.Tool == nil || r.closed.Load() {
				return next(ctx, c)
			}
			// Two monotonic clock reads: the wall time of the start is the
			// base's plus the monotonic time elapsed since it.
			base := r.base.Load()
			var at int64
			if cfg.now != nil {
				at = cfg.now().UnixNano() // the start, as the record says, not the end
			}
			start := time.Since(base.t)
			res, err := next(ctx, c)
			e := entry{tool: c.Tool, dur: time.Since(base.t) - start, in: int64(len(c.Raw)), at: at}
			if cfg.now == nil {
				e.at = base.ns + int64(start)
			}
			switch {
			case err != nil:
				e.errType = registry.ProtocolErrorType(err)
			case res.Success:
				e.ok = true
				e.out = r.size.Size(res.Value)
			default:
				e.errType = string(res.ErrorType)
				e.out = int64(len(res.Error))
			}
			r.add(cfg, &e)
			return res, err
		}
	}
}

// record is the entry as stored: names from the tool, the error type made
// storable.
func (e *entry) record() record {
	return record{time: time.Unix(0, e.at), tool: e.tool.Name, pack: e.tool.Pack, dur: e.dur, ok: e.ok,
		errType: failureType(e.ok, cleanField(e.errType)), bytesIn: e.in, bytesOut: e.out}
}

// entry is a call as buffered: the least the call path can copy. The
// flusher turns it into a record.
type entry struct {
	tool    *registry.Tool // registered tools are never modified
	errType string         // as the failure gave it; "" on success
	at      int64          // start, Unix nanoseconds
	dur     time.Duration
	in, out int64
	ok      bool
}

// timeBase pairs a time.Now() with its Unix nanoseconds.
type timeBase struct {
	t  time.Time
	ns int64
}

// add buffers one entry; past MaxPending it is counted as dropped.
func (r *Recorder) add(cfg *config, rec *entry) {
	r.mu.Lock()
	n := len(r.pending)
	if n >= cfg.maxPending {
		r.dropped++
		r.mu.Unlock()
		return
	}
	r.pending = append(r.pending, *rec)
	r.mu.Unlock()
	if n+1 == min(kickAt, cfg.maxPending) {
		r.wake()
	}
}

// wake asks the flusher to flush now (and re-read the interval).
func (r *Recorder) wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// flushTimeout bounds the flusher's wait for the directory's lock; what it
// could not write stays buffered for the next try.
const flushTimeout = 30 * time.Second

// loop is the flusher: it writes the buffer every flush interval, and
// sooner when woken, until ctx (cancelled by Close) is done.
func (r *Recorder) loop(loopCtx context.Context) {
	defer close(r.done)
	t := time.NewTimer(r.cfg.Load().flushInterval)
	defer t.Stop()
	failures := 0 // flushes failed in a row
	var prunedCfg *config
	var prunedAt time.Time
	// A prune runs on a goroutine of its own, one at a time, so that a
	// long one (a first prune of a large table) holds back no flush.
	pruning := make(chan struct{}, 1)
	var pruners sync.WaitGroup
	defer pruners.Wait()
	for {
		select {
		case <-loopCtx.Done():
			return
		case <-r.kick:
		case <-t.C:
		}
		cfg := r.cfg.Load()
		ctx, cancel := context.WithTimeout(loopCtx, flushTimeout)
		err := r.flush(ctx)
		cancel()
		if loopCtx.Err() != nil {
			return
		}
		failures = r.logFlush(loopCtx, err, failures)
		if cfg.enabled && cfg.keep > 0 && (cfg != prunedCfg || time.Since(prunedAt) >= PruneInterval) {
			select {
			case pruning <- struct{}{}:
				prunedCfg, prunedAt = cfg, time.Now()
				pruners.Add(1)
				go func() {
					defer pruners.Done()
					defer func() { <-pruning }()
					ctx, cancel := context.WithTimeout(loopCtx, pruneTimeout)
					defer cancel()
					if err := r.prune(ctx, cfg); err != nil && loopCtx.Err() == nil {
						r.log.LogAttrs(loopCtx, slog.LevelWarn, err.Error()+" (tried again in "+PruneInterval.String()+")")
					}
				}()
			default: // the last prune still runs: due again after the next flush
			}
		}
		t.Reset(retryWait(cfg.flushInterval, failures))
	}
}

// PruneInterval is how often the flusher removes records older than
// Options.KeepDays (it also does when it starts and after Reconfigure),
// on a goroutine of its own: flushes go on while it runs.
const PruneInterval = time.Hour

// pruneTimeout bounds one prune by the flusher; what it could not remove
// is removed by the next.
const pruneTimeout = 10 * time.Minute

// Prune removes the records older than Options.KeepDays now: the day files
// that hold nothing newer or, with a Sink, its rows (Pruner). It does
// nothing when KeepDays is zero or recording is disabled.
func (r *Recorder) Prune(ctx context.Context) error {
	if r.unusable() {
		return ErrClosed
	}
	return r.prune(ctx, r.cfg.Load())
}

func (r *Recorder) prune(ctx context.Context, cfg *config) error {
	if !cfg.enabled || cfg.keep <= 0 {
		return nil
	}
	cutoff := cfg.clock().Add(-cfg.keep)
	var n int64
	var err error
	unit := "files"
	if p, ok := cfg.sink.(Pruner); ok {
		n, err = p.Prune(ctx, cutoff)
		unit = "records"
	} else if cfg.sink == nil {
		n, err = pruneFiles(ctx, cfg.dir, cutoff)
	}
	if err != nil {
		return fmt.Errorf("stats: removing records older than %d days: %w", cfg.keep/(24*time.Hour), err)
	}
	if n > 0 {
		r.log.LogAttrs(ctx, slog.LevelInfo, "stats: removed old records", slog.Int64(unit, n), slog.Time("before", cutoff))
	}
	return nil
}

// maxRetryWait caps the wait between flushes that keep failing.
const maxRetryWait = 30 * time.Second

// retryWait is the wait before the next flush after failures failed
// flushes in a row: the interval, doubled for each failure up to
// maxRetryWait (never below the interval).
func retryWait(interval time.Duration, failures int) time.Duration {
	d := interval
	for i := 0; i < failures && d < maxRetryWait; i++ {
		d *= 2
	}
	return max(interval, min(d, maxRetryWait))
}

// logFlush logs the outcome of a flush of the flusher and returns the
// failures in a row after it. A store that stays unreachable is not
// logged on every try: the 1st, 2nd, 4th, 8th … failure in a row is
// (with the count), and the first success after failures says so.
func (r *Recorder) logFlush(ctx context.Context, err error, failures int) int {
	if err == nil {
		if failures > 0 {
			r.log.LogAttrs(ctx, slog.LevelInfo, "stats: writing records again", slog.Int("failed_tries", failures))
		}
		return 0
	}
	failures++
	if failures&(failures-1) == 0 {
		r.mu.Lock()
		pending := len(r.pending)
		r.mu.Unlock()
		r.log.LogAttrs(ctx, slog.LevelWarn, "stats: writing records failed (kept for the next try): "+err.Error(),
			slog.Int("failed_tries", failures), slog.Int("pending", pending))
	}
	return failures
}

// Flush writes every buffered record now. It waits for the directory's lock
// as long as ctx allows; on failure the records stay buffered (up to
// MaxPending) for the next flush. Close interrupts it (ErrClosed) and
// writes the records itself.
func (r *Recorder) Flush(ctx context.Context) error {
	if r.unusable() {
		return ErrClosed
	}
	ctx, cancel := r.interruptible(ctx)
	defer cancel()
	return closedDuring(ctx, r.flush(ctx))
}

func (r *Recorder) flush(ctx context.Context) error {
	if err := r.lockFlush(ctx); err != nil {
		return fmt.Errorf("stats: flush: %w", err)
	}
	defer r.unlockFlush()
	return r.flushLocked(ctx, r.cfg.Load())
}

// renewBase takes a new base time, so that wall-clock adjustments reach the
// records within a flush interval.
func (r *Recorder) renewBase() {
	now := time.Now()
	r.base.Store(&timeBase{t: now, ns: now.UnixNano()})
}

// flushLocked writes the buffer under cfg; the flush token must be held.
func (r *Recorder) flushLocked(ctx context.Context, cfg *config) error {
	r.renewBase()
	r.mu.Lock()
	batch := r.pending
	r.pending = r.spare[:0]
	dropped := r.dropped
	r.dropped = 0
	r.mu.Unlock()
	r.spare = nil
	if dropped > 0 {
		r.log.LogAttrs(ctx, slog.LevelWarn, "stats: records dropped: more calls than the store could keep up with",
			slog.Int64("dropped", dropped), slog.Int("max_pending", cfg.maxPending))
	}
	var err error
	if cfg.enabled && len(batch) > 0 {
		r.recs = r.recs[:0]
		for i := range batch {
			r.recs = append(r.recs, batch[i].record())
		}
		if cfg.sink != nil {
			r.out, err = writeSink(ctx, cfg.sink, r.recs, r.out)
		} else {
			r.buf, err = writeBatch(ctx, cfg.dir, r.recs, r.buf, &r.times)
		}
		clear(r.recs)
	}
	if err != nil {
		if we, ok := errors.AsType[*writtenError](err); ok {
			batch = batch[we.written:] // stored already: not written again
		}
		r.mu.Lock()
		kept := append(batch, r.pending...)
		if over := len(kept) - cfg.maxPending; over > 0 {
			r.dropped += int64(over)
			kept = kept[over:]
		}
		r.pending = kept
		r.mu.Unlock()
		return err
	}
	clear(batch) // let the strings go
	r.spare = batch[:0]
	return nil
}

// Close stops the flusher and writes what is buffered, waiting for the
// directory's lock (or the sink) as long as ctx allows: a Flush or
// Reconfigure under way is interrupted (it returns ErrClosed) and its
// records written by Close, and whatever still holds the store when ctx
// ends (a Sink that ignores its context) is not waited for. A ctx that has
// already ended — a shutdown's signal context, cancelled before Close is
// reached — still gets up to CloseGrace, so that the last interval's
// records are not lost to it. Calls after Close pass through unrecorded.
// A second Close does nothing.
func (r *Recorder) Close(ctx context.Context) error {
	switch {
	case r == nil:
		return nil // nothing was opened
	case r.stop == nil:
		return ErrClosed // the zero Recorder: make one with New
	}
	if r.closed.Swap(true) {
		return nil
	}
	r.stop()
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), CloseGrace)
		defer cancel()
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return fmt.Errorf("stats: close: %w", ctx.Err())
	}
	return r.flush(ctx)
}

// CloseGrace is how long Close, given a context that has already ended,
// still tries to write the buffered records.
const CloseGrace = time.Second
