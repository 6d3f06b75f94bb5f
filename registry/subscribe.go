package registry

// Change describes one change to a Registry's set of tools: the tools it
// added and the tools it removed (registered copies, final names). A pack
// added or removed without tools gives a Change with both empty.
type Change struct {
	// Added are the tools the change registered.
	Added []*Tool
	// Removed are the tools the change unregistered.
	Removed []*Tool
}

type subscriber struct {
	id int
	fn func(Change)
}

// Subscribe registers fn to be called (outside any lock) after the set of
// tools the registry serves changes, with what changed, so that a
// subscriber can keep its own view in step at a cost proportional to the
// change, not to the number of tools. A subscriber sees the tools that
// are on (List): a tool switched off is in no Change until it is switched
// on again. Each successful call of these notifies once:
//
//   - Add, AddPack: Added holds the tools registered that are on; a pack
//     without tools gives an empty Change (Add of no tool, or only of
//     tools switched off, notifies no one);
//   - ReplacePack: Added holds the pack's new tools, Removed the old ones
//     it no longer has;
//   - Remove (unless the tool was switched off, which notifies no one) and
//     RemovePack: Removed holds the tools unregistered;
//   - SetEnabled, SetPackEnabled: a tool switched off is Removed, one
//     switched on again is Added; a call that changes no tool's state
//     notifies no one.
//
// A failed call notifies no one, nor do SetAliases, Use and UseOuter,
// which change no tool. Update notifies through the calls fn makes, one
// Change each, not once for the whole update. Subscribers are called in
// the order they subscribed, on the goroutine that made the change. The
// returned function unsubscribes; calling it twice is harmless.
func (r *Registry) Subscribe(fn func(Change)) (cancel func()) {
	if fn == nil {
		return func() {}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.next
	r.next++
	r.subs = append(r.subs, subscriber{id: id, fn: fn})
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, s := range r.subs {
			if s.id == id {
				r.subs = append(r.subs[:i:i], r.subs[i+1:]...)
				return
			}
		}
	}
}

// subscribersLocked snapshots the subscriber functions; r.mu must be held.
func (r *Registry) subscribersLocked() []func(Change) {
	if len(r.subs) == 0 {
		return nil
	}
	fns := make([]func(Change), len(r.subs))
	for i, s := range r.subs {
		fns[i] = s.fn
	}
	return fns
}

// notify calls fns with ch; the caller must not hold r.mu.
func notify(fns []func(Change), ch Change) {
	for _, fn := range fns {
		fn(ch)
	}
}
