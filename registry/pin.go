package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolpack-go/toolpack/result"
)

// Pinned makes calls as the Registry does, except that a name which found
// a tool when Pin was called still runs that tool after a change removed
// it from the registry (a reload that renamed or dropped it). A call
// sequence that has started — a snippet's steps — thus finishes on the
// tools it started with instead of failing half-way because of a reload,
// as a single call in flight does. A name still served runs the tool
// served now (its current version, its current switch).
type Pinned struct {
	r    *Registry
	held map[string]*entry
}

// Pin returns a Pinned holding the tools the names find now (final names,
// undecorated names under a prefix, aliases; see TargetName). Names that
// find nothing are simply not held.
func (r *Registry) Pin(names ...string) *Pinned {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.pinLocked(names)
}

// pinLocked is Pin with r.mu held.
func (r *Registry) pinLocked(names []string) *Pinned {
	p := &Pinned{r: r, held: make(map[string]*entry, len(names))}
	for _, n := range names {
		if _, ok := p.held[n]; ok {
			continue
		}
		target := r.targetLocked(n)
		if e, _ := r.lookupLocked(target); e != nil {
			p.held[n], p.held[target] = e, e
		}
	}
	return p
}

// Registry is the registry p calls through.
func (p *Pinned) Registry() *Registry { return p.r }

// Invoke is Registry.Invoke, falling back to the held tool of name when
// the registry no longer has one under that name.
func (p *Pinned) Invoke(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error) {
	if err := ctx.Err(); err != nil {
		return result.Result[any]{}, fmt.Errorf("registry: tool %q not called: %w", name, err)
	}
	e, via, pinned := p.r.find(ctx, name)
	if e == nil {
		if e = p.held[name]; e == nil {
			return unknownTool(name, via)
		}
		if len(e.tool.Calls) > 0 {
			pinned = p.r.Pin(e.tool.Calls...)
		}
	}
	return p.r.invokeEntry(ctx, e, raw, pinned)
}

// MaxArgumentBytes is Registry.MaxArgumentBytes.
func (p *Pinned) MaxArgumentBytes() int { return p.r.MaxArgumentBytes() }

// TargetName is Registry.TargetName.
func (p *Pinned) TargetName(name string) string { return p.r.TargetName(name) }

// Resolve is Registry.Resolve, answering for a held tool the registry no
// longer has.
func (p *Pinned) Resolve(name string) (t *Tool, enabled, ok bool) {
	if t, enabled, ok = p.r.Resolve(name); ok {
		return t, enabled, ok
	}
	if e := p.held[name]; e != nil {
		return e.tool, !e.off, true
	}
	return nil, false, false
}
