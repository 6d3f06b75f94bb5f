package registry

import (
	"context"
	"fmt"
)

// Update runs fn, a change made of several steps (a pack replaced, then
// the aliases set, say), as one change for the calls that arrive while it
// runs: a call whose name finds no tool while fn runs waits for fn to
// return and looks the name up again, so that no call fails because it
// arrived between two steps (an alias still naming the tool a replaced
// pack no longer has). A call whose name finds its tool is never delayed.
// A name that is still unknown once fn has returned fails as usual;
// waiting ends early when the call's context ends.
//
// Updates may nest and run at once; calls wait for the last of them.
// fn's error is returned as it is.
func (r *Registry) Update(fn func() error) error {
	if fn == nil {
		return fmt.Errorf("%w: Update: fn is nil", ErrInvalidTool)
	}
	r.upMu.Lock()
	if r.upN == 0 {
		r.upDone = make(chan struct{})
	}
	r.upN++
	r.upSeq.Add(1)
	r.upMu.Unlock()
	defer func() {
		r.upMu.Lock()
		r.upN--
		if r.upN == 0 {
			close(r.upDone)
			r.upDone = nil
		}
		r.upSeq.Add(1)
		r.upMu.Unlock()
	}()
	return fn()
}

// findAgain reports, for a name whose lookup found nothing when the
// update sequence read seq, whether to look it up again: an Update
// running now is waited for (as long as ctx allows), and one that ran
// since seq was read (even one that ended before this call) may have
// brought the name.
func (r *Registry) findAgain(ctx context.Context, seq uint64) bool {
	waited := r.awaitUpdate(ctx)
	return waited || r.upSeq.Load() != seq
}

// awaitUpdate waits, when an Update is running, for every running update
// to end, and reports whether it waited to the end (false: none was
// running, or ctx ended first).
func (r *Registry) awaitUpdate(ctx context.Context) bool {
	r.upMu.Lock()
	done := r.upDone
	r.upMu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// ResolveContext is Resolve for a call about to be made: when name finds
// no tool while an Update runs, it waits for the update to end (or ctx)
// and looks again, as Invoke does. Adapters routing a call use it; Resolve
// answers at once.
func (r *Registry) ResolveContext(ctx context.Context, name string) (t *Tool, enabled, ok bool) {
	seq := r.upSeq.Load()
	t, enabled, ok = r.Resolve(name)
	if !ok && r.findAgain(ctx, seq) {
		t, enabled, ok = r.Resolve(name)
	}
	return t, enabled, ok
}
