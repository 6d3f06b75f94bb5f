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
// pack no longer has). A call of a tool that calls others (Tool.Calls, a
// snippet) waits too, so that it holds them as one configuration has them
// (a new snippet never runs with the old aliases); any other call whose
// name finds its tool is never delayed.
// A name that is still unknown once fn has returned fails as usual;
// waiting ends early when the call's context ends.
//
// Updates may nest and run at once; calls wait for the last of them.
// fn's error is returned as it is.
func (r *Registry) Update(fn func() error) error {
	return r.UpdateDropping(nil, fn)
}

// UpdateDropping is Update for a change that drops the aliases named in
// dropping, and may register tools under their names: one update can then
// turn an alias into a tool of the same name (register the tool's pack,
// then set the aliases without it), as a configuration reload does. While
// it runs, a pack (AddPack, ReplacePack) may hold a tool under the name
// of one of those aliases; Add still refuses every alias's name, and
// every other alias keeps its name. When the last running update ends, an
// alias that still holds a tool's name (an update declared it dropped,
// and did not drop it) is dropped, and logged, and the tool answers that
// name; aliases whose chains ran through it are looked at again. An
// update that fails undoes its packs first, so the aliases of a
// configuration that stays are kept. fn's error is returned as it is.
func (r *Registry) UpdateDropping(dropping []string, fn func() error) (err error) {
	if err := r.made(); err != nil {
		return err
	}
	if fn == nil {
		return fmt.Errorf("%w: Update: fn is nil", ErrInvalidTool)
	}
	r.upMu.Lock()
	if r.upN == 0 {
		r.upDone = make(chan struct{})
	}
	r.upN++
	r.upSeq.Add(1)
	if len(dropping) > 0 {
		r.mu.Lock()
		if r.freeing == nil {
			r.freeing = map[string]int{}
		}
		for _, a := range dropping {
			r.freeing[a]++
		}
		r.mu.Unlock()
	}
	r.upMu.Unlock()
	defer func() {
		var dropped []droppedAlias
		r.upMu.Lock()
		r.upN--
		if len(dropping) > 0 || r.upN == 0 {
			r.mu.Lock()
			for _, a := range dropping {
				if r.freeing[a]--; r.freeing[a] <= 0 {
					delete(r.freeing, a)
				}
			}
			if r.upN == 0 {
				dropped = r.settleAliasesLocked()
			}
			r.mu.Unlock()
		}
		if r.upN == 0 {
			// Before the calls waiting for the update look again, and
			// before another update can start.
			close(r.upDone)
			r.upDone = nil
		}
		r.upSeq.Add(1)
		r.upMu.Unlock()
		for _, d := range dropped {
			r.log.Warn("registry: alias dropped at the end of an update: a tool took its name", "alias", d.alias, "target", d.target, "tool", d.tool)
		}
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
