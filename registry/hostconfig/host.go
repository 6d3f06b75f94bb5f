package hostconfig

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolpack-go/toolpack/registry"
)

// Hook takes part in applying a configuration. Host calls it with the
// configuration in force (nil at the first load) and the new one, before
// changing anything; it checks new, builds what applying it takes, and
// returns that as a Step. It must not change what the host serves: that
// is Step.Apply's job, run only once every hook and the aliases have
// passed their checks. An error refuses the new configuration (the one
// in force stays); return a *Problem (Config.Errorf) to name file, line
// and key.
//
// Whatever may fail because of the file or of the machine — creating a
// directory, opening a store, connecting to a database — belongs here,
// not in Apply: a Step that fails to apply is undone after the steps
// before it took effect (servers reconnected, clients told the tool list
// changed), while a Hook's error leaves everything as it was. What the
// Hook opens for Apply (a store) is the Step's until Apply succeeds: set
// Step.Discard to release it when the step is not applied.
//
// A Hook that fails may still return a Step naming the Tools its part of
// the configuration declares (the snippets' tools, say, when one snippet
// does not parse): aliases to them are then not reported as well, only
// the Hook's own error. Nothing else of such a Step is used.
type Hook func(ctx context.Context, old, new *Config) (Step, error)

// Step is what a Hook prepared.
type Step struct {
	// Tools are the tool names (final or undecorated) that Apply will
	// register, so that aliases may target them.
	Tools []string
	// Packs are the packs Apply replaces as a whole: the tools they have
	// now do not count as targets for aliases (Tools do).
	Packs []string
	// Apply makes the new configuration take effect; nil means nothing
	// to do. It should only do what cannot fail for reasons Hook could
	// have checked (Registry.ReplacePack of a pack built by Hook, say).
	Apply func(ctx context.Context) error
	// Undo, when set, is called (in reverse order of application) if a
	// later step's Apply fails, to return to the old configuration.
	Undo func(ctx context.Context) error
	// Discard, when set, releases what Hook prepared for Apply (a store
	// it opened) when the step does not take effect: another hook or the
	// aliases refuse the configuration, an earlier step's Apply fails (so
	// this one is never applied), or its own Apply fails. It is not
	// called once Apply has succeeded (Undo is then the step's to call),
	// nor for the Step of a Hook that returned an error (that Hook
	// releases what it opened itself). It is called at most once.
	Discard func()
}

// Options configure a Host. Registry is required.
type Options struct {
	// Path is the main configuration file; "" means no file: every
	// Reload applies Default(Load.DataDir) (a DataDir of "" being the
	// working directory).
	Path string
	// Registry receives the aliases and is asked which tools exist.
	Registry *registry.Registry
	// Load configures reading the files.
	Load LoadOptions
	// Servers names the remote servers the host serves beside the
	// configuration's servers: (a -proxy file): as for those, an alias
	// may not take a name under "{server}." and may name the server's
	// tools before it connects. Nil means none.
	Servers []string
	// Dynamic, when set, reports whether name (as configuration writes
	// it: undecorated, or under the registry's prefix) is one that tools
	// take and give up while the host runs, without a reload — a tools
	// catalogue's {bundle}.{tool}.{version}, served while the tool is
	// switched on —, and whose names they are, for messages (`catalogue
	// bundle "examples"`). Such names count as a configured server's
	// do: an alias may target one whether a tool has it now or not (a
	// call answers "not served" meanwhile), so that the verdict on a file
	// does not change with what is switched on, and an alias may not take
	// one as its own name (a tool would take it). Nil means none.
	Dynamic func(name string) (owner string, ok bool)
}

// Host holds the configuration in force for a registry and applies new
// ones: Reload re-reads every file, and when the new configuration is
// valid, applies it as a whole — the hooks' steps (packs, servers,
// settings; see OnApply), then the registry's aliases — or not at all.
// It is safe for concurrent use; Reloads are serialised.
type Host struct {
	opts Options
	mu   sync.Mutex // serialises Reload and Apply
	// reload serialises Reload from reading the files to applying them,
	// so that the configuration in force is that of the files as the last
	// Reload to return read them (a slow read started earlier never lands
	// after it).
	reload sync.Mutex
	cur    atomic.Pointer[Config]
	hooks  []namedHook
}

type namedHook struct {
	name string
	fn   Hook
}

// ErrNoRegistry: Options.Registry is nil.
var ErrNoRegistry = errors.New("hostconfig: Options.Registry is nil; expected the registry the configuration applies to")

// NewHost returns a Host with no configuration in force yet; call Reload
// (or Apply) to load the first one.
func NewHost(opts Options) (*Host, error) {
	if opts.Registry == nil {
		return nil, ErrNoRegistry
	}
	return &Host{opts: opts}, nil
}

// made reports ErrNoRegistry for a Host not made by NewHost (the zero
// value has no registry to apply to).
func (h *Host) made() error {
	if h == nil || h.opts.Registry == nil {
		return fmt.Errorf("%w (make the Host with NewHost)", ErrNoRegistry)
	}
	return nil
}

// OnApply adds a hook, run on every later Reload or Apply after the
// hooks added before it; name labels its errors. Add hooks before the
// first Reload.
func (h *Host) OnApply(name string, hook Hook) {
	if hook == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hooks = append(h.hooks, namedHook{name: name, fn: hook})
}

// Config returns the configuration in force, nil before the first
// successful Reload or Apply. It must not be modified.
func (h *Host) Config() *Config { return h.cur.Load() }

// Path returns the main configuration file ("" for none).
func (h *Host) Path() string { return h.opts.Path }

// Registry returns the registry the host applies configurations to
// (Options.Registry).
func (h *Host) Registry() *registry.Registry { return h.opts.Registry }

// Read reads the configuration files as Reload does (Load of
// Options.Path, or Default without one) and returns the result without
// applying it: for a host that needs some of its settings before the
// first Apply (where to open a store whose tools aliases may name).
func (h *Host) Read() (*Config, error) {
	if h.opts.Path == "" {
		return Default(h.opts.Load.DataDir), nil
	}
	return Load(h.opts.Path, h.opts.Load)
}

// Reload reads the configuration files again (Read) and applies the
// result (Apply). On any error the configuration in force stays, and the
// error names file, line and key (Problems lists each problem). Reloads
// run one after another, each reading the files once the one before it
// has applied what it read: after two reloads at once, what is in force is
// what the files held when the second began to read them.
//
// Once a configuration is in force, a main file that holds none (empty,
// or only whitespace and comments) is refused (LoadOptions.RefuseEmpty):
// it is nearly always one being rewritten, and applying it as every
// default would turn statistics off, drop the notify topics and move the
// directories. A file of {} reloads every default. The first Reload (or
// Read) takes an empty file for every default, and so does a Reload whose
// configuration in force is what the empty file gives (a server started
// on an empty file, reloaded unchanged).
func (h *Host) Reload(ctx context.Context) error {
	h.reload.Lock()
	defer h.reload.Unlock()
	var cfg *Config
	var err error
	if h.opts.Path == "" || h.cur.Load() == nil {
		cfg, err = h.Read()
	} else {
		lo := h.opts.Load
		lo.RefuseEmpty = true
		if cfg, err = Load(h.opts.Path, lo); err != nil {
			// An empty file that gives what is in force (a server started
			// on an empty file, reloaded unchanged) changes nothing:
			// applied, not refused.
			if same, serr := h.Read(); serr == nil && reflect.DeepEqual(same, h.cur.Load()) {
				cfg, err = same, nil
			}
		}
	}
	if err != nil {
		return err
	}
	return h.Apply(ctx, cfg)
}

// Check runs step 1 of Apply on cfg — every hook prepares its Step, and
// every prepared Step is discarded at once — and returns the hooks'
// errors joined; the aliases are not checked and nothing is applied. A
// host that must open something before the first Apply (a catalogue
// whose tools aliases may name) calls it first, so that a file with
// problems of its own is reported as such, not as the failure to open
// that store.
func (h *Host) Check(ctx context.Context, cfg *Config) error {
	if err := h.made(); err != nil {
		return err
	}
	if cfg == nil {
		return errors.New("hostconfig: Check: config is nil")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	steps, errs := h.prepare(ctx, cfg)
	discard(steps)
	return errors.Join(errs...)
}

// prepare runs every hook on cfg (step 1 of Apply): the Steps, in the
// hooks' order — a failed hook's holding only its Tools and Packs, for
// the alias check — and the hooks' errors. h.mu must be held.
func (h *Host) prepare(ctx context.Context, cfg *Config) ([]Step, []error) {
	old := h.cur.Load()
	steps := make([]Step, len(h.hooks))
	var errs []error
	for i, hk := range h.hooks {
		st, err := hk.fn(ctx, old, cfg)
		if err != nil {
			errs = append(errs, hookError(err, "%s", hk.name))
			steps[i] = Step{Tools: st.Tools, Packs: st.Packs} // for the alias check only
			continue
		}
		steps[i] = st
	}
	return steps, errs
}

// Apply makes cfg the configuration in force, all or nothing:
//
//  1. every hook prepares its Step (nothing changes yet); any error
//     refuses cfg, the errors of all hooks joined;
//  2. the aliases are checked against the registry: each target must be
//     a registered tool (final or undecorated name), a tool a step will
//     register, another alias, "{server}.{tool}" of a server of cfg
//     (its tools arrive when it connects), or a name Options.Dynamic
//     reports (a catalogue tool switched off now); an alias may not have
//     a tool's name, nor one of those of a server or Options.Dynamic;
//  3. the steps are applied in the order the hooks were added, then
//     Registry.SetAliases; if one fails, the steps already applied are
//     undone in reverse order (Step.Undo), the others discarded
//     (Step.Discard), and the error returned — a refusal at 1 or 2
//     discards every step;
//  4. cfg becomes the one Config returns.
//
// Calls in flight are not disturbed: the registry swaps packs and aliases
// atomically, each call finishing on the tool it started with, and steps
// 3 run as one Registry.Update, so a call arriving between two steps (an
// alias whose target a step renames, before the aliases are set) waits
// for the end of the update instead of answering "unknown tool".
func (h *Host) Apply(ctx context.Context, cfg *Config) error {
	if err := h.made(); err != nil {
		return err
	}
	if cfg == nil {
		return errors.New("hostconfig: Apply: config is nil")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("hostconfig: apply: %w", err)
	}
	steps, errs := h.prepare(ctx, cfg)
	if err := h.checkAliases(cfg, steps); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		discard(steps)
		return errors.Join(errs...)
	}
	// A step may register a tool under the name of an alias the new
	// aliases drop (an alias turned into a snippet): declare those.
	var dropping []string
	for a := range h.opts.Registry.Aliases() {
		if _, kept := cfg.Aliases[a]; !kept {
			dropping = append(dropping, a)
		}
	}
	err := h.opts.Registry.UpdateDropping(dropping, func() error {
		for i, st := range steps {
			if st.Apply == nil {
				continue
			}
			if err := st.Apply(ctx); err != nil {
				discard(steps[i:]) // this step, and those never applied
				err = hookError(err, "applying %s", h.hooks[i].name)
				return errors.Join(err, undo(ctx, h.hooks, steps[:i]))
			}
		}
		if err := h.opts.Registry.SetAliases(cfg.Aliases); err != nil {
			err = fmt.Errorf("hostconfig: setting the aliases: %w", err)
			return errors.Join(err, undo(ctx, h.hooks, steps))
		}
		return nil
	})
	if err != nil {
		return err
	}
	h.cur.Store(cfg)
	return nil
}

// hookError returns a hook's error as it is when it is made only of
// problems that name their file (Config.Errorf): they say where and what,
// as Load's do, and a prefix would stand before the file name. Any other
// error is prefixed with the hook (what, formatted).
func hookError(err error, what string, a ...any) error {
	if located(err) {
		return err
	}
	return fmt.Errorf("hostconfig: %s: %w", fmt.Sprintf(what, a...), err)
}

// located reports whether err is a *Problem naming its file, or joins only
// such errors.
func located(err error) bool {
	switch e := err.(type) {
	case *Problem:
		return e.File != ""
	case interface{ Unwrap() []error }:
		errs := e.Unwrap()
		for _, x := range errs {
			if !located(x) {
				return false
			}
		}
		return len(errs) > 0
	}
	return false
}

// discard calls the Discard of steps that do not take effect.
func discard(steps []Step) {
	for _, st := range steps {
		if st.Discard != nil {
			st.Discard()
		}
	}
}

// undo calls the Undo of applied steps in reverse order.
func undo(ctx context.Context, hooks []namedHook, applied []Step) error {
	var errs []error
	for i := len(applied) - 1; i >= 0; i-- {
		if u := applied[i].Undo; u != nil && applied[i].Apply != nil {
			if err := u(ctx); err != nil {
				errs = append(errs, fmt.Errorf("hostconfig: undoing %s: %w", hooks[i].name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// checkAliases reports aliases whose target is not a tool (now or after
// the steps) and aliases named like a tool.
func (h *Host) checkAliases(cfg *Config, steps []Step) error {
	if len(cfg.Aliases) == 0 {
		return nil
	}
	reg := h.opts.Registry
	replaced := map[string]bool{}
	for _, st := range steps {
		for _, p := range st.Packs {
			replaced[p] = true
		}
	}
	tools := map[string]bool{}  // final and undecorated names: valid targets
	finals := map[string]bool{} // final names: an alias may not take one
	for _, t := range reg.ListAll() {
		if replaced[t.Pack] {
			continue
		}
		tools[t.Name], tools[t.BaseName], finals[t.Name] = true, true, true
	}
	prefix := reg.Prefix()
	for _, st := range steps {
		for _, t := range st.Tools {
			tools[t], tools[decorate(prefix, t)] = true, true
			finals[t], finals[decorate(prefix, t)] = true, true
		}
	}
	servers := append(cfg.ServerNames(), h.opts.Servers...)
	names := make([]string, 0, len(cfg.Aliases))
	for a := range cfg.Aliases {
		names = append(names, a)
	}
	slices.Sort(names)
	ps := &problems{}
	for _, a := range names {
		key := "aliases." + a
		if finals[a] {
			ps.list = append(ps.list, cfg.Errorf(key, "%s is the name of a tool; an alias needs a name of its own", quote(a)))
			continue
		}
		if d := decorate(prefix, a); d != a && finals[d] && cfg.Aliases[a] != d {
			// Configuration names tools undecorated (TargetName): a
			// snippet step or alias target written a would find the
			// alias here and the tool elsewhere — unless the alias runs
			// that very tool (add: p_add, a shortcut without the prefix).
			ps.list = append(ps.list, cfg.Errorf(key, "%s is the name of tool %s under the registry's prefix %s; an alias needs a name of its own", quote(a), quote(d), quote(prefix)))
			continue
		}
		if s, ok := ServerOf(a, prefix, servers); ok {
			// The server's tools take their names when it connects, and
			// the alias would then be hidden, or hide them.
			ps.list = append(ps.list, cfg.Errorf(key, "%s is in the names of server %s (%s…), which its tools take when it connects; an alias needs a name of its own", quote(a), quote(s), s+"."))
			continue
		}
		if owner, ok := h.dynamic(a); ok {
			// A tool may take the name at any moment (switched on), and
			// would then hide the alias, and the next reload refuse it.
			ps.list = append(ps.list, cfg.Errorf(key, "%s is in the names of %s, which its tools take without a reload; an alias needs a name of its own", quote(a), owner))
			continue
		}
		// Follow the chain to the name it ends at; last is the alias
		// whose target that name is.
		last, t := a, cfg.Aliases[a]
		for range registry.MaxAliasDepth + 1 {
			next, ok := cfg.Aliases[t]
			if !ok {
				break
			}
			last, t = t, next
		}
		if tools[t] {
			continue
		}
		if _, ok := ServerOf(t, prefix, servers); ok {
			// A server's tools are taken on trust: whether it is connected
			// now, and which tools it has, changes without a reload, and
			// the verdict on a file must not (WarnUnserved-style warnings
			// are the host's to log).
			continue
		}
		if _, ok := h.dynamic(t); ok {
			// Likewise a tool that comes and goes without a reload (a
			// catalogue tool switched off now, or on): the verdict must
			// not change with an administrator's switch.
			continue
		}
		msg := fmt.Sprintf("target %s is not a tool", cfg.shown(key, cfg.Aliases[a]))
		if last != a {
			msg = fmt.Sprintf("target %s ends at %s, which is not a tool", cfg.shown(key, cfg.Aliases[a]), cfg.shown("aliases."+last, t))
		}
		ps.list = append(ps.list, cfg.Errorf(key, "%s; expected a registered tool, another alias, or {server}.{tool} of a configured server", msg))
	}
	return ps.err(cfg.Files)
}

// dynamic is Options.Dynamic, false when it is not set.
func (h *Host) dynamic(name string) (string, bool) {
	if h.opts.Dynamic == nil {
		return "", false
	}
	return h.opts.Dynamic(name)
}

// ServerOf reports whether name is "{server}.{tool}" of one of servers,
// undecorated or under the registry prefix prefix (as configuration and
// the registry write it), and which server — as alias targets are
// checked — for hosts checking the names a configuration writes.
func ServerOf(name, prefix string, servers []string) (string, bool) {
	for _, s := range servers {
		for _, p := range []string{s + ".", decorate(prefix, s+".")} {
			if len(name) > len(p) && strings.HasPrefix(name, p) {
				return s, true
			}
		}
	}
	return "", false
}

// decorate is the registry's naming rule: prefix_name, or prefix+name
// when the prefix ends in a separator, or name without a prefix.
func decorate(prefix, name string) string {
	switch {
	case prefix == "":
		return name
	case strings.HasSuffix(prefix, "_"), strings.HasSuffix(prefix, "."), strings.HasSuffix(prefix, "-"):
		return prefix + name
	}
	return prefix + "_" + name
}
