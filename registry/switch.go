package registry

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// SetEnabled switches the tool registered under the final name on or off.
// A disabled tool is absent from List, Packs and Lookup (subscribers see it
// removed, and see it added again when it is switched back on), and a call
// to it is answered with a failed Result of type unavailable, with a nil
// error. The switch belongs to the name: it stays when the tool is
// replaced (ReplacePack) or removed and added again. A tool is on when
// both its own switch and its pack's (SetPackEnabled) are on, and its
// source has not registered it switched off (Tool.Disabled: such a tool
// stays off, its switch kept for when its source switches it on). An
// unknown name is ErrUnknownTool.
func (r *Registry) SetEnabled(name string, enabled bool) error {
	if err := r.made(); err != nil {
		return err
	}
	r.mu.Lock()
	if _, ok := r.tools[name]; !ok {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	if enabled {
		delete(r.toolOff, name)
	} else {
		r.toolOff[name] = true
	}
	ch := r.refreshLocked([]string{name})
	fns := r.subscribersLocked()
	r.mu.Unlock()
	if len(ch.Added)+len(ch.Removed) > 0 {
		notify(fns, ch)
	}
	return nil
}

// SetPackEnabled switches every tool of the pack on or off at once (see
// SetEnabled; a tool switched off on its own stays off when its pack is
// switched on). A name that is neither a registered pack nor the Pack of
// any tool is ErrUnknownPack.
func (r *Registry) SetPackEnabled(pack string, enabled bool) error {
	if err := r.made(); err != nil {
		return err
	}
	r.mu.Lock()
	_, known := r.packs[pack]
	m := r.byPack[pack]
	if !known && len(m) == 0 {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownPack, pack)
	}
	if enabled {
		delete(r.packOff, pack)
	} else {
		r.packOff[pack] = true
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	ch := r.refreshLocked(names)
	fns := r.subscribersLocked()
	r.mu.Unlock()
	if len(ch.Added)+len(ch.Removed) > 0 {
		notify(fns, ch)
	}
	return nil
}

// IsEnabled reports whether the tool registered under the final name is
// on, and whether such a tool exists at all.
func (r *Registry) IsEnabled(name string) (enabled, exists bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	if !ok {
		return false, false
	}
	return !e.off, true
}

// offLocked reports whether t is switched off: by its own switch
// (SetEnabled), its pack's (SetPackEnabled) or its source (Tool.Disabled);
// r.mu must be held.
func (r *Registry) offLocked(t *Tool) bool {
	return r.toolOff[t.Name] || r.packOff[t.Pack] || t.Disabled != ""
}

// refreshLocked recomputes the switch of each named tool from toolOff and
// packOff, replacing the entries whose state changes (entries are never
// modified once published), and returns the change; r.mu must be held.
func (r *Registry) refreshLocked(names []string) Change {
	var ch Change
	for _, name := range names {
		e := r.tools[name]
		if e == nil {
			continue
		}
		off := r.offLocked(e.tool)
		if off == e.off {
			continue
		}
		ne := *e
		ne.off = off
		r.tools[name] = &ne
		if m := r.byPack[e.tool.Pack]; m != nil {
			m[name] = &ne
		}
		if off {
			ch.Removed = append(ch.Removed, e.tool)
		} else {
			ch.Added = append(ch.Added, e.tool)
		}
	}
	return ch
}

// MaxAliasDepth bounds a chain of aliases (an alias of an alias …).
const MaxAliasDepth = 8

// SetAliases replaces the registry's aliases: names that Invoke resolves
// to another name before looking the tool up (a call of "plus" runs
// "add"). Aliases are not tools: they are not listed and do not notify
// subscribers. A target is a tool's final name, its undecorated name (the
// registry's prefix is tried), or another alias. Every problem is reported
// (joined) and on any error the previous aliases stay: an alias name that
// is not a valid tool name (ErrInvalidName), an alias name a tool holds
// (ErrNameClash: a tool's final name, or, under the registry's prefix, a
// tool's undecorated name — configuration naming the tool undecorated
// would reach the alias, TargetName — unless the alias runs that very
// tool, a shortcut without the prefix), an empty target, a cycle, or a
// chain deeper than MaxAliasDepth. A target that names no registered tool
// is allowed (the tool may be registered later, as a remote server's
// tools are); calling the alias then answers a failed Result of type
// unavailable naming both (the alias exists: it is not an unknown tool).
// A nil or empty map removes every alias.
//
// The rule holds the other way round too: Add, AddPack and ReplacePack
// refuse a tool whose name an alias holds — except that a pack may take
// the name of an alias a running UpdateDropping drops (a reload turning an
// alias into a tool of that name) —, so that a tool and an alias never
// share a name outside an update.
func (r *Registry) SetAliases(aliases map[string]string) error {
	if err := r.made(); err != nil {
		return err
	}
	names := make([]string, 0, len(aliases))
	for a := range aliases {
		names = append(names, a)
	}
	slices.Sort(names)
	var errs []error
	for _, a := range names {
		t := aliases[a]
		if err := checkName(a); err != nil {
			errs = append(errs, fmt.Errorf("registry: alias %q: %w", a, err))
			continue
		}
		if t == "" {
			errs = append(errs, fmt.Errorf("registry: alias %q: target is empty; expected a tool name", a))
			continue
		}
		// Follow the chain: a cycle or an over-long chain is refused.
		seen := map[string]bool{a: true}
		cur := t
		for depth := 1; ; depth++ {
			if seen[cur] {
				errs = append(errs, fmt.Errorf("registry: alias %q: cycle through %q", a, cur))
				break
			}
			next, isAlias := aliases[cur]
			if !isAlias {
				break
			}
			if depth >= MaxAliasDepth {
				errs = append(errs, fmt.Errorf("registry: alias %q: chain longer than %d aliases", a, MaxAliasDepth))
				break
			}
			seen[cur] = true
			cur = next
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range names {
		if tool, undecorated := r.toolAtLocked(aliases, a); tool != "" {
			errs = append(errs, fmt.Errorf("registry: alias %q: %w: %s", a, ErrNameClash, heldBy(a, tool, undecorated, r.prefix)))
		}
	}
	if len(errs) > 0 {
		return joinSorted(errs)
	}
	m := make(map[string]string, len(aliases))
	for a, t := range aliases {
		m[a] = t
	}
	r.aliases = m
	return nil
}

// toolAtLocked returns the final name of the tool that holds the name a
// given aliases (as SetAliases compares an alias with the tools): a tool
// named a, or, under the registry's prefix, a tool whose undecorated name
// is a (undecorated true) unless aliases make a run that very tool. It
// returns "" when no tool holds a; r.mu must be held.
func (r *Registry) toolAtLocked(aliases map[string]string, a string) (tool string, undecorated bool) {
	if _, ok := r.tools[a]; ok {
		return a, false
	}
	if r.prefix == "" {
		return "", false
	}
	if d := decorate(r.prefix, a); r.tools[d] != nil && !r.aliasRunsLocked(aliases, a, d) {
		return d, true
	}
	return "", false
}

// aliasHoldsLocked reports, as an error wrapping ErrNameClash, the alias
// that holds the name of a tool to be registered under the final name: an
// alias of that name, or, under the registry's prefix, an alias named like
// the tool's undecorated name that does not run the tool — the comparison
// toolAtLocked makes from the alias's side — unless pack (AddPack,
// ReplacePack) and a running UpdateDropping drops that alias; r.mu must
// be held.
func (r *Registry) aliasHoldsLocked(final string, pack bool) error {
	free := func(a string) bool { return pack && r.freeing[a] > 0 }
	if t, ok := r.aliases[final]; ok && !free(final) {
		return fmt.Errorf("%w: tool %q: %q is an alias of %q, and a tool cannot take an alias's name; change the aliases first (SetAliases), or in an UpdateDropping that drops it", ErrNameClash, final, final, t)
	}
	if u, ok := undecorate(r.prefix, final); ok && !free(u) {
		if t, ok := r.aliases[u]; ok && !r.aliasRunsLocked(r.aliases, u, final) {
			return fmt.Errorf("%w: tool %q: its undecorated name %q is an alias of %q (under the registry's prefix %q, configuration naming %q would reach the alias, not the tool); change the aliases first (SetAliases), or in an UpdateDropping that drops it", ErrNameClash, final, u, t, r.prefix, u)
		}
	}
	return nil
}

// heldBy says which tool holds the alias name a, for an error.
func heldBy(a, tool string, undecorated bool, prefix string) string {
	if undecorated {
		return fmt.Sprintf("it is the undecorated name of tool %q under the registry's prefix %q (configuration naming %q would reach the alias, not the tool); an alias needs a name of its own", tool, prefix, a)
	}
	return "a tool has that name; an alias needs a name of its own"
}

// undecorate is the inverse of decorate: the name that prefix decorates to
// final, and whether there is one (never when prefix is empty).
func undecorate(prefix, final string) (string, bool) {
	if prefix == "" {
		return "", false
	}
	head := decorate(prefix, "")
	if len(final) <= len(head) || !strings.HasPrefix(final, head) {
		return "", false
	}
	return final[len(head):], true
}

// aliasRunsLocked reports whether a call of the alias a, given aliases,
// runs the tool of the final name final (registered or about to be):
// following a's chain of targets as resolveLocked does, final is the
// first name on it that is, or decorates under the registry's prefix to,
// a tool's final name. r.mu must be held.
func (r *Registry) aliasRunsLocked(aliases map[string]string, a, final string) bool {
	cur, ok := aliases[a]
	for range MaxAliasDepth + 1 {
		if !ok {
			return false
		}
		d := decorate(r.prefix, cur)
		if cur == final || d == final {
			return true
		}
		if r.tools[cur] != nil || r.tools[d] != nil {
			return false // the chain runs another tool
		}
		cur, ok = aliases[cur]
	}
	return false
}

// droppedAlias is an alias settleAliasesLocked dropped, for the log.
type droppedAlias struct{ alias, target, tool string }

// settleAliasesLocked drops, when the last running update ends, the
// aliases that hold a tool's name — one an update declared it drops
// (UpdateDropping), which a pack took and the update did not drop, or one
// whose chain ran through such an alias — so that a tool and an alias
// never share a name outside an update, and returns them. r.upMu and r.mu
// must be held.
func (r *Registry) settleAliasesLocked() []droppedAlias {
	var out []droppedAlias
	m := r.aliases
	// Dropping an alias can change where a chain through it ends, so look
	// again until no alias holds a tool's name.
	for dropped := true; dropped; {
		dropped = false
		for _, a := range slices.Sorted(maps.Keys(m)) {
			tool, _ := r.toolAtLocked(m, a)
			if tool == "" {
				continue
			}
			out = append(out, droppedAlias{a, m[a], tool})
			m = maps.Clone(m) // the published map is never modified
			delete(m, a)
			dropped = true
		}
	}
	r.aliases = m
	return out
}

// Aliases returns a copy of the aliases, alias → target as set.
func (r *Registry) Aliases() map[string]string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[string]string, len(r.aliases))
	for a, t := range r.aliases {
		out[a] = t
	}
	return out
}

// TargetName returns the name to call for name as configuration writes
// it — a snippet's step, a catalogue step, like an alias's target: name
// itself when a tool or an alias has it, else, under a prefix, name with
// the registry's prefix when a tool has that final name (documentation and
// configuration use undecorated names; the prefix is the registry's
// detail; a tool with a prefix of its own, Tool.Prefix, is reached by its
// final name). When neither, name comes back unchanged, and calling it
// fails with ErrUnknownTool naming it. Invoke itself takes final names and
// aliases only.
func (r *Registry) TargetName(name string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.targetLocked(name)
}

// targetLocked is TargetName with r.mu held.
func (r *Registry) targetLocked(name string) string {
	if _, ok := r.tools[name]; ok {
		return name
	}
	if _, ok := r.aliases[name]; ok || r.prefix == "" {
		return name
	}
	if d := decorate(r.prefix, name); r.tools[d] != nil {
		return d
	}
	return name
}

// IsAlias reports whether name is an alias (SetAliases), whether or not
// its target is served now.
func (r *Registry) IsAlias(name string) bool {
	r.mu.RLock()
	_, ok := r.aliases[name]
	r.mu.RUnlock()
	return ok
}

// Resolve returns the tool a call of name runs — the tool registered under
// name, or the one an alias of that name resolves to — and whether it is
// enabled. ok is false when no tool is found: Invoke answers
// ErrUnknownTool, or, for an alias whose target is not served (IsAlias),
// a failure of type unavailable. Adapters use it to route calls of names
// they do not list (aliases, disabled tools) to Invoke, which answers
// them.
func (r *Registry) Resolve(name string) (t *Tool, enabled, ok bool) {
	r.mu.RLock()
	e, _ := r.resolveLocked(name)
	r.mu.RUnlock()
	if e == nil {
		return nil, false, false
	}
	return e.tool, !e.off, true
}

// resolveLocked returns the entry a call of name runs: the tool registered
// under name, else, when name is an alias, the tool its chain ends at (the
// final name, or the undecorated name with the registry's prefix). The
// string is the name the chain ended at, for errors; r.mu must be held.
func (r *Registry) resolveLocked(name string) (*entry, string) {
	if e := r.tools[name]; e != nil {
		return e, name
	}
	cur := name
	for range MaxAliasDepth + 1 {
		t, ok := r.aliases[cur]
		if !ok {
			break
		}
		if e := r.tools[t]; e != nil {
			return e, t
		}
		if e := r.tools[decorate(r.prefix, t)]; e != nil {
			return e, t
		}
		cur = t
	}
	return nil, cur
}

// joinSorted joins errs in a stable order.
func joinSorted(errs []error) error {
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}
