package registry

import (
	"context"
	"errors"
	"fmt"
)

// Update runs fn, a change made of several steps (a pack replaced, then
// the aliases set, say), as one change for the calls that arrive while it
// runs: a call whose name finds no tool while fn runs waits for fn to
// return and looks the name up again, so that no call fails because it
// arrived between two steps (an alias still naming the tool a replaced
// pack no longer has). A call of a tool that calls others (Tool.Calls, a
// snippet) waits too, so that it holds them as one configuration has them
// (a new snippet never runs with the old aliases); any other call whose
// name finds its tool is never delayed.
// A name that is still unknown once fn has returned fails as usual;
// waiting ends early when the call's context ends.
//
// While an Update runs, a tool may take the name of an alias (which Add
// refuses otherwise), so that one update can turn an alias into a tool of
// the same name: register the tool, then drop the alias with SetAliases,
// as a configuration reload does. When the last running Update ends, an
// alias that still holds a tool's name is dropped (the tool answers
// calls of that name) and that Update's error reports it, wrapping
// ErrNameClash, joined with fn's.
//
// Updates may nest and run at once; calls wait for the last of them.
// fn's error is returned as it is.
func (r *Registry) Update(fn func() error) (err error) {
	if fn == nil {
		return fmt.Errorf("%w: Update: fn is nil", ErrInvalidTool)
	}
	r.upMu.Lock()
	if r.upN == 0 {
		r.upDone = make(chan struct{})
	}
	r.upN++
	r.upRun.Add(1)
	r.upSeq.Add(1)
	r.upMu.Unlock()
	defer func() {
		r.upMu.Lock()
		r.upN--
		r.upRun.Add(-1)
		if r.upN == 0 {
			// Before the calls waiting for the update look again, and
			// before another update can start.
			if serr := r.settleAliases(); serr != nil {
				err = errors.Join(err, serr)
			}
			close(r.upDone)
			r.upDone = nil
		}
		r.upSeq.Add(1)
		r.upMu.Unlock()
	}()
	return fn()
}

// lookAgain runs look, a lookup that found nothing when the update
// sequence read seq, again once no Update runs, when one ran since seq was
// read (even one that ended before the call) or runs now: it waits for the
// running ones to end (as long as ctx allows) and runs look while no other
// can start, so that look sees the registry between two updates, never in
// the middle of the next one. It reports whether look ran.
func (r *Registry) lookAgain(ctx context.Context, seq uint64, look func()) bool {
	r.upMu.Lock()
	if r.upN == 0 && r.upSeq.Load() == seq {
		r.upMu.Unlock()
		return false // nothing changed since the first lookup
	}
	for r.upN > 0 {
		done := r.upDone
		r.upMu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return false
		}
		r.upMu.Lock()
	}
	defer r.upMu.Unlock()
	look()
	return true
}

// ResolveContext is Resolve for a call about to be made: when name finds
// no tool while an Update runs, it waits for the update to end (or ctx)
// and looks again, as Invoke does. Adapters routing a call use it; Resolve
// answers at once.
func (r *Registry) ResolveContext(ctx context.Context, name string) (t *Tool, enabled, ok bool) {
	seq := r.upSeq.Load()
	t, enabled, ok = r.Resolve(name)
	if !ok {
		r.lookAgain(ctx, seq, func() { t, enabled, ok = r.Resolve(name) })
	}
	return t, enabled, ok
}
