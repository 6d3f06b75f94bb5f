package catalogue

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/internal/sparselog"
)

// Usage is the recorded calls of one tool: how many, and the latest.
type Usage struct {
	// Count is the number of calls recorded.
	Count int64 `json:"count"`
	// Last is the time of the latest; zero when there is none.
	Last time.Time `json:"last"`
}

// Plus is u with o's calls added: the counts summed, the later last call
// kept.
func (u Usage) Plus(o Usage) Usage {
	u.Count += o.Count
	if o.Last.After(u.Last) {
		u.Last = o.Last
	}
	return u
}

// applyTo adds u to t's stored counts.
func (u Usage) applyTo(t *Tool) {
	t.CallCount += u.Count
	if t.LastCalledAt == nil || u.Last.After(*t.LastCalledAt) {
		last := u.Last
		t.LastCalledAt = &last
	}
}

// UsageBuffer is where a [Store]'s RecordUsage counts calls until the
// store writes them: Record never waits for storage; the store's flush
// takes the counts (Take) and gives back those it could not write
// (Return); reads add the counts still buffered to the tools they return
// (Apply). Every Store implementation keeps one, so that all of them
// count alike. The zero value is ready; it is safe for concurrent use.
type UsageBuffer struct {
	mu      sync.Mutex
	closed  bool
	pending map[ToolKey]Usage
}

// Record counts one call of key at at (stored in UTC at microsecond
// precision). After Close it fails with ErrClosed: a call recorded before
// Close is taken by the store's last flush.
func (b *UsageBuffer) Record(key ToolKey, at time.Time) error {
	if err := key.Validate(); err != nil {
		return err
	}
	u := Usage{Count: 1, Last: at.UTC().Truncate(time.Microsecond)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	if b.pending == nil {
		b.pending = map[ToolKey]Usage{}
	}
	b.pending[key] = b.pending[key].Plus(u)
	return nil
}

// Apply adds the counts buffered for t to it.
func (b *UsageBuffer) Apply(t *Tool) {
	b.mu.Lock()
	u, ok := b.pending[t.Key()]
	b.mu.Unlock()
	if ok {
		u.applyTo(t)
	}
}

// Take removes and returns every buffered count, for the store to write.
func (b *UsageBuffer) Take() map[ToolKey]Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	batch := b.pending
	b.pending = nil
	return batch
}

// Return puts back counts taken but not written, for the next flush.
func (b *UsageBuffer) Return(batch map[ToolKey]Usage) {
	if len(batch) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		b.pending = map[ToolKey]Usage{}
	}
	for k, u := range batch {
		b.pending[k] = b.pending[k].Plus(u)
	}
}

// Forget drops the counts buffered for key (a tool deleted).
func (b *UsageBuffer) Forget(key ToolKey) {
	b.mu.Lock()
	delete(b.pending, key)
	b.mu.Unlock()
}

// ForgetBundle drops the counts buffered for the tools of a bundle: calls
// of tools that did not exist when an import created them.
func (b *UsageBuffer) ForgetBundle(id uuid.UUID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.pending {
		if k.BundleID == id {
			delete(b.pending, k)
		}
	}
}

// Close makes later Records fail with ErrClosed.
func (b *UsageBuffer) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
}

// Maintenance runs a [Store]'s periodic work on goroutines of its own —
// writing its buffered usage counts and reaping soft-deleted bundles —
// until Stop. Every Store implementation starts one, so that all of them
// keep the same schedule.
type Maintenance struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

// StartMaintenance calls flush every flushEvery (zero means one second,
// negative never) and reap every reapEvery (zero means one hour,
// negative never), logging their failures (other than ErrClosed) to log:
// the 1st, 2nd, 4th, 8th … in a row, and the first success after them.
func StartMaintenance(flushEvery, reapEvery time.Duration, flush func(context.Context) error,
	reap func(context.Context) ([]uuid.UUID, error), log *slog.Logger) *Maintenance {
	m := &Maintenance{stop: make(chan struct{})}
	if flushEvery == 0 {
		flushEvery = time.Second
	}
	if reapEvery == 0 {
		reapEvery = time.Hour
	}
	// A store that stays unreachable is not logged on every try (see
	// internal/sparselog).
	if flushEvery > 0 {
		var failures sparselog.Failures
		m.every(flushEvery, func() {
			if err := flush(context.Background()); !errors.Is(err, ErrClosed) {
				failures.Record(context.Background(), log, err,
					"catalogue: writing usage counts failed; they stay buffered", "catalogue: writing usage counts again")
			}
		})
	}
	if reapEvery > 0 {
		var failures sparselog.Failures
		m.every(reapEvery, func() {
			ids, err := reap(context.Background())
			if !errors.Is(err, ErrClosed) {
				failures.Record(context.Background(), log, err, "catalogue: reaping soft-deleted bundles failed", "catalogue: reaping again")
			}
			if len(ids) > 0 {
				log.Info("catalogue: reaped soft-deleted bundles", "count", len(ids))
			}
		})
	}
	return m
}

func (m *Maintenance) every(d time.Duration, f func()) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				f()
			}
		}
	}()
}

// Stop ends the periodic work and waits for a run in progress. Call it
// once.
func (m *Maintenance) Stop() {
	close(m.stop)
	m.wg.Wait()
}
