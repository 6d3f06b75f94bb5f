package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolpack-go/toolpack/result"
)

// Pinned makes calls as the Registry does, except that the names it holds
// run the tools they found when Pin was called, whatever a change has
// done since (a reload that dropped, renamed or replaced a tool, or
// retargeted an alias): a call sequence that has started — a snippet's
// steps — thus finishes on the tools and aliases it started with, never
// half on the old configuration and half on the new one, as a single call
// in flight does. The tools the held tools call (their Tool.Calls, a
// snippet calling a snippet) are held too, from the same instant.
//
// A held tool's switch is the one in force now: a tool switched off since
// (SetEnabled, SetPackEnabled, or a newer version under the same name
// switched off) is refused as the registry refuses it. Names that found
// nothing when pinned are looked up in the registry as it is at the call.
type Pinned struct {
	r    *Registry
	held map[string]*entry
}

// Pin returns a Pinned holding the tools the names find now (final names,
// undecorated names under a prefix, aliases; see TargetName), and those
// their Tool.Calls name, in turn. Names that find nothing are simply not
// held.
func (r *Registry) Pin(names ...string) *Pinned {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.pinLocked(names)
}

// pinLocked is Pin with r.mu held.
func (r *Registry) pinLocked(names []string) *Pinned {
	p := &Pinned{r: r, held: make(map[string]*entry, len(names))}
	// A stack of the names to look up, of its own: names is often a
	// tool's Calls, which must not be written to.
	names = slices.Clone(names)
	looked := make(map[string]bool, len(names))
	expanded := map[*entry]bool{} // whose Calls are queued
	for len(names) > 0 {
		n := names[len(names)-1]
		names = names[:len(names)-1]
		if looked[n] {
			continue
		}
		looked[n] = true
		target := r.targetLocked(n)
		e, _ := r.lookupLocked(target)
		if e == nil {
			continue
		}
		p.held[n], p.held[target] = e, e
		if len(e.tool.Calls) > 0 && !expanded[e] {
			expanded[e] = true
			names = append(names, e.tool.Calls...)
		}
	}
	return p
}

// Registry is the registry p calls through.
func (p *Pinned) Registry() *Registry { return p.r }

// Invoke is Registry.Invoke, running the held tool of a held name (with
// the switch in force now) and looking any other name up in the registry.
func (p *Pinned) Invoke(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error) {
	if err := ctx.Err(); err != nil {
		return result.Result[any]{}, fmt.Errorf("registry: tool %q not called: %w", name, err)
	}
	if h := p.held[name]; h != nil {
		var nested *Pinned
		if len(h.tool.Calls) > 0 {
			nested = p // its calls were held with it
		}
		return p.r.invokeEntry(ctx, p.switched(h), raw, nested)
	}
	e, via, pinned := p.r.find(ctx, name)
	if e == nil {
		return unknownTool(name, via)
	}
	return p.r.invokeEntry(ctx, e, raw, pinned)
}

// switched returns the held entry h with the switch in force now: the
// registry's own entry when it still serves that very tool (its switch and
// middleware now), else h switched as its name is now (a newer tool under
// that name switched off or on), or h as held when the name is gone.
func (p *Pinned) switched(h *entry) *entry {
	p.r.mu.RLock()
	cur := p.r.tools[h.tool.Name]
	p.r.mu.RUnlock()
	switch {
	case cur == nil:
		return h
	case cur.tool == h.tool:
		return cur
	case cur.off:
		// Refused as the registry refuses it now, with the reason its
		// source gives (Tool.Disabled) for the tool under that name now.
		return cur
	case h.off:
		e := *h
		e.off = false
		return &e
	}
	return h
}

// MaxArgumentBytes is Registry.MaxArgumentBytes.
func (p *Pinned) MaxArgumentBytes() int { return p.r.MaxArgumentBytes() }

// TargetName is Registry.TargetName.
func (p *Pinned) TargetName(name string) string { return p.r.TargetName(name) }

// Resolve is Registry.Resolve, answering for a held name with its held
// tool (and the switch in force now), as Invoke runs it.
func (p *Pinned) Resolve(name string) (t *Tool, enabled, ok bool) {
	if h := p.held[name]; h != nil {
		e := p.switched(h)
		return e.tool, !e.off, true
	}
	return p.r.Resolve(name)
}
