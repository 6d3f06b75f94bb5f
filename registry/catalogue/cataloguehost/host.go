package cataloguehost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/result"
)

// DefaultPack is the registry pack catalogue tools belong to.
const DefaultPack = "catalogue"

// Options configures [New]. Store, Registry and Invoker are required.
type Options struct {
	// Store holds the catalogue (wrap it with catalogue.WithBuiltIns to
	// serve built-ins and report unregistered go tools disabled).
	Store catalogue.Store
	// Registry receives every enabled catalogue tool.
	Registry *registry.Registry
	// Invoker runs the tools (a *Dispatcher).
	Invoker Invoker
	// Pack is the registry pack of the catalogue's tools; "" means
	// DefaultPack.
	Pack string
	// ResyncInterval, when positive, re-reads the store that often, so
	// that changes made by other processes sharing it reach this
	// registry. Zero means only changes made through Catalogue.Store and
	// explicit Sync calls.
	ResyncInterval time.Duration
	// Now is the clock for usage metrics; nil means time.Now.
	Now func() time.Time
	// Logger receives tools left out of the registry (a name clash) and
	// background failures; nil means slog.Default().
	Logger *slog.Logger
}

// Catalogue keeps a registry's catalogue pack in step with a catalogue
// store: every enabled tool of every enabled bundle is a registry tool,
// listed and callable over MCP and REST like any other. Create it with
// [New]; it is safe for concurrent use.
type Catalogue struct {
	store catalogue.Store
	reg   *registry.Registry
	inv   Invoker
	pack  string
	now   func() time.Time
	log   *slog.Logger

	syncMu sync.Mutex // serialises Sync
	genMu  sync.Mutex
	want   uint64 // writes made through Store
	done   uint64 // writes the registry reflects

	mu      sync.RWMutex
	current map[string]served // final registry name → what is served
	names   map[catalogue.ToolKey]string
	parts   map[uuid.UUID]string // bundle id → name part, from the last full sync
	spaces  map[string]bool      // the name parts of parts, for Namespace

	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// served is one catalogue tool in the registry: its id and key both,
// since a tool id is unique only within its bundle (a copy of a
// bundle keeps its tools' ids), and, for a tool switched off in the
// catalogue (itself or its bundle), why (registry.Tool.Disabled).
type served struct {
	id  uuid.UUID
	key catalogue.ToolKey
	off string
}

// New registers the catalogue pack in opts.Registry, fills it from the
// store and returns the Catalogue. Make changes through Store() so that
// the registry follows each one before the call returns.
func New(ctx context.Context, opts Options) (*Catalogue, error) {
	switch {
	case opts.Store == nil:
		return nil, errNoStore
	case opts.Registry == nil:
		return nil, errors.New("cataloguehost: Options.Registry is required")
	case opts.Invoker == nil:
		return nil, errors.New("cataloguehost: Options.Invoker is required")
	case opts.ResyncInterval < 0:
		return nil, fmt.Errorf("cataloguehost: Options.ResyncInterval: expected zero or a positive duration, got %s", opts.ResyncInterval)
	}
	c := &Catalogue{store: opts.Store, reg: opts.Registry, inv: opts.Invoker, pack: opts.Pack, now: opts.Now, log: opts.Logger,
		current: map[string]served{}, names: map[catalogue.ToolKey]string{}, stop: make(chan struct{})}
	if c.pack == "" {
		c.pack = DefaultPack
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	if err := c.reg.AddPack(&registry.Pack{Name: c.pack, Description: "Tools defined as data in the tools catalogue (bundles of versioned go and http tools)."}); err != nil {
		return nil, fmt.Errorf("cataloguehost: %w", err)
	}
	if err := c.Sync(ctx); err != nil {
		_ = c.reg.RemovePack(c.pack)
		return nil, err
	}
	if opts.ResyncInterval > 0 {
		c.wg.Add(1)
		go c.resync(opts.ResyncInterval)
	}
	return c, nil
}

func (c *Catalogue) resync(every time.Duration) {
	defer c.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), every*4)
			if err := c.Sync(ctx); err != nil {
				c.log.Warn("cataloguehost: resync", "err", err)
			}
			cancel()
		}
	}
}

// Close stops the background resync. It leaves the pack registered and
// the store open (close the store yourself).
func (c *Catalogue) Close() error {
	c.once.Do(func() { close(c.stop) })
	c.wg.Wait()
	return nil
}

// Name returns the final registry name of a catalogue tool while the
// registry holds it: enabled, or switched off in the catalogue (itself or
// its bundle), which the registry answers as disabled.
func (c *Catalogue) Name(key catalogue.ToolKey) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n, ok := c.names[key]
	return n, ok
}

// Invoker returns an Invoker that runs a catalogue tool as the registry's
// tool: Registry.Invoke under the tool's registry name, so that every
// middleware sees the call (statistics, logging, telemetry, limits) and
// usage is recorded once, by the tool. A tool switched off in the
// catalogue (itself or its bundle) is answered as the registry answers
// it: a failure of type result.Unavailable saying how to switch it on. A
// tool the registry does not hold (its name is taken by another pack's
// tool, or its bundle is soft-deleted) is run by fallback directly, its
// usage recorded likewise; with a nil fallback it is a failure of type
// result.Unavailable. It suits catalogueapi.Options.Invoker with
// InvokerRecordsUsage.
func (c *Catalogue) Invoker(fallback Invoker) Invoker {
	return &registryInvoker{c: c, fallback: fallback}
}

type registryInvoker struct {
	c        *Catalogue
	fallback Invoker
}

// Invoke implements [Invoker].
func (ri *registryInvoker) Invoke(ctx context.Context, tool catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	if name, ok := ri.c.Name(tool.Key()); ok {
		return ri.c.reg.Invoke(ctx, name, args)
	}
	if ri.fallback == nil {
		return result.Failure[any]("the tool is not served by the registry (its bundle is soft-deleted, or its name is taken by another pack's tool)", result.Unavailable), nil
	}
	return ri.c.run(ctx, ri.fallback, tool, args)
}

// run runs tool with inv and counts the call in the tool's usage metrics,
// whatever its outcome.
func (c *Catalogue) run(ctx context.Context, inv Invoker, tool catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	res, err := inv.Invoke(ctx, tool, args)
	if uerr := c.store.RecordUsage(context.WithoutCancel(ctx), tool.Key(), c.now()); uerr != nil {
		c.log.Warn("cataloguehost: record usage", "bundle", tool.BundleID, "slug", tool.Slug, "version", tool.Version, "err", uerr)
	}
	return res, err
}

// Sync makes the registry's catalogue pack match the store: tools gone
// (or whose name changed) are removed, new ones added, tools switched off
// in the catalogue (themselves or their bundle) held switched off
// (registry.Tool.Disabled: not listed, a call answered as disabled), each
// change of what is listed sending list-changed to MCP clients. A tool whose name is
// taken by a tool of another pack, or that the registry refuses, is left
// out and logged; Sync fails only when the store cannot be read.
func (c *Catalogue) Sync(ctx context.Context) error {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	c.genMu.Lock()
	target := c.want
	c.genMu.Unlock()
	if err := c.syncLocked(ctx); err != nil {
		return err
	}
	c.genMu.Lock()
	if target > c.done {
		c.done = target
	}
	c.genMu.Unlock()
	return nil
}

// changed brings the registry up to date after a write through Store():
// when a Sync started after the write has already finished, nothing is
// left to do.
func (c *Catalogue) changed(ctx context.Context) {
	c.genMu.Lock()
	c.want++
	mine := c.want
	c.genMu.Unlock()
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	c.genMu.Lock()
	if c.done >= mine {
		c.genMu.Unlock()
		return
	}
	target := c.want
	c.genMu.Unlock()
	if err := c.syncLocked(context.WithoutCancel(ctx)); err != nil {
		c.log.Warn("cataloguehost: updating the registry after a change", "err", err)
		return
	}
	c.genMu.Lock()
	if target > c.done {
		c.done = target
	}
	c.genMu.Unlock()
}

func finalName(prefix, base string) string {
	switch {
	case prefix == "":
		return base
	case strings.HasSuffix(prefix, "_"), strings.HasSuffix(prefix, "."), strings.HasSuffix(prefix, "-"):
		return prefix + base
	}
	return prefix + "_" + base
}

func (c *Catalogue) syncLocked(ctx context.Context) error {
	bundles, err := c.store.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		return fmt.Errorf("cataloguehost: listing bundles: %w", err)
	}
	tools, err := c.store.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true})
	if err != nil {
		return fmt.Errorf("cataloguehost: listing tools: %w", err)
	}
	parts := bundleParts(bundles)
	c.mu.RLock()
	current := c.current
	c.mu.RUnlock()
	all := func(uuid.UUID) bool { return true }
	desired, toolOf, _ := c.desire(tools, byID(bundles), parts, all, current)
	c.applyLocked(current, desired, toolOf, all, parts)
	return nil
}

// desire names the tools (of the bundles inScope selects) the registry is
// to hold — enabled, or switched off with the reason from bundles —:
// name → tool, in the tools' order, the first of two with one name kept,
// a name another pack's tool holds left out (both logged).
// clash reports a tool whose name is held by a catalogue tool outside the
// scope: which one is served depends on the order of every tool, so the
// caller reads them all.
func (c *Catalogue) desire(tools []catalogue.Tool, bundles map[uuid.UUID]catalogue.Bundle, parts map[uuid.UUID]string, inScope func(uuid.UUID) bool,
	current map[string]served) (desired map[string]served, toolOf map[string]*catalogue.Tool, clash bool) {
	prefix := c.reg.Prefix()
	budget := nameBudget(prefix)
	desired = make(map[string]served, len(tools))
	toolOf = make(map[string]*catalogue.Tool, len(tools))
	for i := range tools {
		t := &tools[i]
		part, ok := parts[t.BundleID]
		b, held := bundles[t.BundleID]
		if !ok || !held || !inScope(t.BundleID) || b.SoftDeletedAt != nil {
			continue // out of scope, or its bundle went away between the two reads
		}
		name := finalName(prefix, nameOf(part, t, budget))
		if prev, dup := desired[name]; dup {
			c.log.Warn("cataloguehost: two catalogue tools have the same registry name; serving the first",
				"name", name, "kept", prev.key.Slug+"@"+prev.key.Version, "left_out", t.Slug+"@"+t.Version)
			continue
		}
		if other, mine := current[name]; mine && !inScope(other.key.BundleID) {
			return nil, nil, true
		} else if !mine {
			if _, exists := c.reg.IsEnabled(name); exists {
				c.log.Warn("cataloguehost: a tool of another pack has this catalogue tool's name; left out", "name", name,
					"bundleID", t.BundleID, "slug", t.Slug, "version", t.Version)
				continue
			}
		}
		desired[name] = served{id: t.ID, key: t.Key(), off: c.offReason(b, t)}
		toolOf[name] = t
	}
	return desired, toolOf, false
}

// applyLocked makes the registry serve desired (name → tool, the tools
// in toolOf) in place of the current tools inScope selects — all of them
// for a full Sync, one bundle's for a bundle's — keeping the others as
// they are, and records the result with the bundles' name parts. syncMu
// must be held.
func (c *Catalogue) applyLocked(current, desired map[string]served, toolOf map[string]*catalogue.Tool, inScope func(uuid.UUID) bool,
	parts map[uuid.UUID]string) {
	// One change for the calls arriving meanwhile: a tool switched off or
	// on is removed and added again, and a call between the two waits
	// for the new one rather than finding no tool.
	_ = c.reg.Update(func() error {
		c.applyUpdateLocked(current, desired, toolOf, inScope, parts)
		return nil
	})
}

// applyUpdateLocked is the work of applyLocked, inside a registry Update.
func (c *Catalogue) applyUpdateLocked(current, desired map[string]served, toolOf map[string]*catalogue.Tool, inScope func(uuid.UUID) bool,
	parts map[uuid.UUID]string) {
	prefix := c.reg.Prefix()
	next := make(map[string]served, max(len(current), len(desired)))
	for name, s := range current {
		if !inScope(s.key.BundleID) {
			next[name] = s
			continue
		}
		if d, ok := desired[name]; ok && d == s {
			next[name] = s
			continue
		}
		if err := c.reg.Remove(name); err != nil && !errors.Is(err, registry.ErrUnknownTool) {
			c.log.Warn("cataloguehost: removing a tool", "name", name, "err", err)
		}
	}
	var add []*registry.Tool
	var addNames []string
	for name, d := range desired {
		if s, ok := current[name]; ok && s == d {
			continue
		}
		add = append(add, c.registryTool(toolOf[name], strings.TrimPrefix(name, finalName(prefix, "")), d.off))
		addNames = append(addNames, name)
	}
	c.addTools(add, addNames, desired, next)
	names := make(map[catalogue.ToolKey]string, len(next))
	for n, s := range next {
		names[s.key] = n
	}
	spaces := make(map[string]bool, len(parts))
	for _, part := range parts {
		spaces[part] = true
	}
	c.mu.Lock()
	c.current, c.names, c.parts, c.spaces = next, names, parts, spaces
	c.mu.Unlock()
}

// bundleChanged brings one bundle's tools up to date after a write that
// touched only that bundle's record or contents (put, switch, soft
// delete, import): the bundles and that bundle's tools are read, not every
// tool, so the write costs the same whatever the catalogue's size. When
// the names of other bundles' tools change too (a bundle took or gave up
// a slug another bundle shares, which decides who gets a discriminator),
// another bundle's tool holds a name this bundle needs, or a bundle
// appeared that this catalogue has not read, it falls back to a full
// Sync.
func (c *Catalogue) bundleChanged(ctx context.Context, id uuid.UUID) {
	ctx = context.WithoutCancel(ctx)
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	if err := c.syncBundlesLocked(ctx, []uuid.UUID{id}); err != nil {
		c.log.Warn("cataloguehost: updating the registry after a change", "err", err)
	}
}

// SyncBundles makes the registry's tools of the given bundles match the
// store, as Sync does for all: for another process's changes whose
// bundles are known (catalogue.BundleWatcher). Only the bundles and those
// bundles' tools are read, unless other bundles' names change too (then
// everything is). No ids: nothing to do.
func (c *Catalogue) SyncBundles(ctx context.Context, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	return c.syncBundlesLocked(ctx, ids)
}

// syncBundlesLocked is the work of bundleChanged and SyncBundles: one
// read of the bundles, one of the given bundles' tools; syncMu must be
// held.
func (c *Catalogue) syncBundlesLocked(ctx context.Context, ids []uuid.UUID) error {
	bundles, err := c.store.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		return fmt.Errorf("cataloguehost: listing bundles: %w", err)
	}
	scope := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		scope[id] = true
	}
	inScope := func(id uuid.UUID) bool { return scope[id] }
	parts := bundleParts(bundles)
	c.mu.RLock()
	same := c.parts != nil
	for bid, part := range parts {
		if old, ok := c.parts[bid]; !inScope(bid) && (!ok || old != part) {
			same = false
		}
	}
	for bid := range c.parts {
		if _, ok := parts[bid]; !ok && !inScope(bid) {
			same = false
		}
	}
	current := c.current
	c.mu.RUnlock()
	if !same {
		return c.syncLocked(ctx)
	}
	// The bundles' tools, switched off ones included (none of a
	// soft-deleted bundle), in the store's order, as a full Sync reads
	// them.
	tools, err := c.store.ListTools(ctx, catalogue.ToolQuery{BundleIDs: ids, IncludeDisabled: true})
	if err != nil {
		return fmt.Errorf("cataloguehost: listing tools: %w", err)
	}
	desired, toolOf, clash := c.desire(tools, byID(bundles), parts, inScope, current)
	if clash {
		return c.syncLocked(ctx)
	}
	c.applyLocked(current, desired, toolOf, inScope, parts)
	return nil
}

// addTools registers add (named addNames) and records in next the ones
// the registry took; a batch the registry refuses is retried tool by tool,
// so that one bad tool leaves out only itself.
func (c *Catalogue) addTools(add []*registry.Tool, addNames []string, desired, next map[string]served) {
	if len(add) == 0 {
		return
	}
	if err := c.reg.Add(add...); err == nil {
		for _, n := range addNames {
			next[n] = desired[n]
		}
		return
	}
	for i, rt := range add { // find the ones the registry refuses
		if err := c.reg.Add(rt); err != nil {
			c.log.Warn("cataloguehost: the registry refused a catalogue tool; left out", "name", addNames[i], "err", err)
			continue
		}
		next[addNames[i]] = desired[addNames[i]]
	}
}

// toolChanged brings one tool version up to date after a write that
// touched only it (put, switch, delete): two reads instead of a full
// Sync, so a write costs the same whatever the catalogue's size.
func (c *Catalogue) toolChanged(ctx context.Context, key catalogue.ToolKey) {
	ctx = context.WithoutCancel(ctx)
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	c.mu.RLock()
	part, known := c.parts[key.BundleID]
	cur, has := c.names[key]
	curSrv := c.current[cur]
	c.mu.RUnlock()
	if !known { // a bundle this catalogue has not seen: read everything
		if err := c.syncLocked(ctx); err != nil {
			c.log.Warn("cataloguehost: updating the registry after a change", "err", err)
		}
		return
	}
	// Read the tool back rather than trust the write's answer: writes to
	// one key may finish in one order and reach here in the other.
	t, terr := c.store.GetTool(ctx, key)
	b, berr := c.store.GetBundle(ctx, key.BundleID)
	for _, err := range []error{terr, berr} {
		if err != nil && !errors.Is(err, catalogue.ErrNotFound) {
			c.log.Warn("cataloguehost: updating the registry after a change", "err", err)
			return
		}
	}
	// A tool switched off (itself or its bundle) is held switched off;
	// one deleted, or of a soft-deleted bundle, is removed.
	want := terr == nil && berr == nil && b.SoftDeletedAt == nil
	prefix := c.reg.Prefix()
	name, off := "", ""
	if want {
		name = finalName(prefix, nameOf(part, &t, nameBudget(prefix)))
		off = c.offReason(b, &t)
	}
	if has && want && cur == name && curSrv.id == t.ID && curSrv.off == off {
		return
	}
	// One change for the calls arriving meanwhile (see applyLocked).
	_ = c.reg.Update(func() error {
		c.swapTool(key, t, cur, has, want, name, off)
		return nil
	})
}

// swapTool is the registry work of toolChanged: it removes the tool held
// as cur (when has) and, when want, adds t as name, switched off with
// the reason off when not empty. syncMu must be held.
func (c *Catalogue) swapTool(key catalogue.ToolKey, t catalogue.Tool, cur string, has, want bool, name, off string) {
	prefix := c.reg.Prefix()
	if has {
		if err := c.reg.Remove(cur); err != nil && !errors.Is(err, registry.ErrUnknownTool) {
			c.log.Warn("cataloguehost: removing a tool", "name", cur, "err", err)
		}
		c.mu.Lock()
		delete(c.current, cur)
		delete(c.names, key)
		c.mu.Unlock()
	}
	if !want {
		return
	}
	c.mu.RLock()
	other, taken := c.current[name]
	c.mu.RUnlock()
	if taken {
		c.log.Warn("cataloguehost: two catalogue tools have the same registry name; serving the first",
			"name", name, "kept", other.key.Slug+"@"+other.key.Version, "left_out", t.Slug+"@"+t.Version)
		return
	}
	if _, exists := c.reg.IsEnabled(name); exists {
		c.log.Warn("cataloguehost: a tool of another pack has this catalogue tool's name; left out", "name", name,
			"bundleID", t.BundleID, "slug", t.Slug, "version", t.Version)
		return
	}
	if err := c.reg.Add(c.registryTool(&t, strings.TrimPrefix(name, finalName(prefix, "")), off)); err != nil {
		c.log.Warn("cataloguehost: the registry refused a catalogue tool; left out", "name", name, "err", err)
		return
	}
	c.mu.Lock()
	c.current[name] = served{id: t.ID, key: key, off: off}
	c.names[key] = name
	c.mu.Unlock()
}

// registryTool builds the registry tool serving t under base name base,
// switched off with the reason off when that is not empty.
func (c *Catalogue) registryTool(t *catalogue.Tool, base, off string) *registry.Tool {
	// The argSchema is compiled when the tool is first called: a catalogue
	// of many tools is served without compiling (and keeping in memory)
	// the schemas of tools nobody calls. The store checked the schema when
	// the version was written, so compiling it again only fails for a
	// store changed behind its back; that call then fails as a protocol
	// error naming the cause, and so does every later one.
	argSchema := t.ArgSchema
	schema := sync.OnceValues(func() (*jsonschema.Schema, error) {
		s, err := catalogue.CompileSchema(argSchema)
		if err != nil {
			return nil, fmt.Errorf("stored argSchema does not compile: %w", err)
		}
		return s, nil
	})
	tool := *t // versions are immutable: the copy is what every call runs
	tool.Tags = append([]string(nil), t.Tags...)
	desc := t.Description
	if desc == "" {
		desc = t.DisplayName
	}
	rt := &registry.Tool{
		Name:        base,
		Title:       t.DisplayName,
		Description: desc,
		InputSchema: t.ArgSchema,
		Pack:        c.pack,
		Disabled:    off,
		Decode: func(raw json.RawMessage) (any, error) {
			s, err := schema()
			if err != nil {
				return nil, err
			}
			return nil, validateArgs(s, raw)
		},
		// The runners check values against the outputSchema themselves.
		CheckOutput: func(any) error { return nil },
		Handler: func(ctx context.Context, call *registry.Call) (result.Result[any], error) {
			// The runners' failures name the tool as it was called.
			return c.run(catalogue.WithCalledAs(ctx, tool.Key(), call.Tool.Name), c.inv, tool, call.Raw)
		},
	}
	if raw := bytes.TrimSpace(t.OutputSchema); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		rt.OutputSchema = t.OutputSchema
	}
	if t.Type == catalogue.TypeHTTP && t.HTTPImpl != nil {
		rt.Annotations.OpenWorld = new(true)
		if m := t.HTTPImpl.Request.Method; m == "GET" || m == "HEAD" {
			rt.Annotations.ReadOnly = new(true)
			rt.Annotations.Idempotent = new(true)
		}
	}
	return rt
}

// validateArgs checks raw against the tool's argSchema, listing every
// violation under its field path.
func validateArgs(s *jsonschema.Schema, raw json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return &args.ValidationError{Errors: []args.FieldError{{Rule: "syntax", Message: "expected a JSON object of arguments"}}}
	}
	if err := catalogue.ValidateValue(s, inst); err != nil {
		vs := catalogue.Violations(err)
		fe := make([]args.FieldError, len(vs))
		for i, v := range vs {
			fe[i] = args.FieldError{Field: catalogue.FieldPath(v.Pointer), Rule: v.Keyword, Message: v.Message}
		}
		return &args.ValidationError{Errors: fe}
	}
	return nil
}

// Store returns the catalogue's store wrapped so that every successful
// write through it updates the registry before returning. Give it to
// catalogueapi (Options.Store) and use it for changes made in code.
func (c *Catalogue) Store() catalogue.Store { return &syncingStore{Store: c.store, c: c} }

// syncingStore updates the registry after each successful write.
type syncingStore struct {
	catalogue.Store
	c *Catalogue
}

func (s *syncingStore) PutBundle(ctx context.Context, id uuid.UUID, spec catalogue.BundleSpec) (catalogue.Bundle, bool, error) {
	b, created, err := s.Store.PutBundle(ctx, id, spec)
	if err == nil {
		s.c.bundleChanged(ctx, id)
	}
	return b, created, err
}

func (s *syncingStore) SetBundleEnabled(ctx context.Context, id uuid.UUID, enabled bool) (catalogue.Bundle, error) {
	b, err := s.Store.SetBundleEnabled(ctx, id, enabled)
	if err == nil {
		s.c.bundleChanged(ctx, id)
	}
	return b, err
}

func (s *syncingStore) SoftDeleteBundle(ctx context.Context, id uuid.UUID) (catalogue.Bundle, error) {
	b, err := s.Store.SoftDeleteBundle(ctx, id)
	if err == nil {
		s.c.bundleChanged(ctx, id)
	}
	return b, err
}

func (s *syncingStore) PutTool(ctx context.Context, key catalogue.ToolKey, spec catalogue.ToolSpec) (catalogue.Tool, error) {
	t, err := s.Store.PutTool(ctx, key, spec)
	if err == nil {
		s.c.toolChanged(ctx, key)
	}
	return t, err
}

func (s *syncingStore) SetToolEnabled(ctx context.Context, key catalogue.ToolKey, enabled bool) (catalogue.Tool, error) {
	t, err := s.Store.SetToolEnabled(ctx, key, enabled)
	if err == nil {
		s.c.toolChanged(ctx, key)
	}
	return t, err
}

func (s *syncingStore) DeleteTool(ctx context.Context, key catalogue.ToolKey) error {
	err := s.Store.DeleteTool(ctx, key)
	if err == nil {
		s.c.toolChanged(ctx, key)
	}
	return err
}

func (s *syncingStore) ImportBundle(ctx context.Context, b catalogue.Bundle, tools []catalogue.Tool) error {
	err := s.Store.ImportBundle(ctx, b, tools)
	if err == nil {
		s.c.bundleChanged(ctx, b.ID)
	}
	return err
}

func (s *syncingStore) ReapDeleted(ctx context.Context) ([]uuid.UUID, error) {
	ids, err := s.Store.ReapDeleted(ctx)
	if err == nil && len(ids) > 0 {
		s.c.changed(ctx)
	}
	return ids, err
}

// byID indexes bundles by id.
func byID(bundles []catalogue.Bundle) map[uuid.UUID]catalogue.Bundle {
	out := make(map[uuid.UUID]catalogue.Bundle, len(bundles))
	for _, b := range bundles {
		out[b.ID] = b
	}
	return out
}

// offReason is why the registry holds t, of bundle b, switched off, for
// the failure of a call (registry.Tool.Disabled); "" when it is on. It is
// catalogue.DisabledReason, except for a go tool whose function the
// host's Dispatcher does not have (the store reports such a tool
// disabled): switching it on in the catalogue would not help, so the
// reason says the host lacks the function.
func (c *Catalogue) offReason(b catalogue.Bundle, t *catalogue.Tool) string {
	d, ok := c.inv.(*Dispatcher)
	if ok && !t.IsEnabled && b.IsEnabled && t.Type == catalogue.TypeGo {
		fn := ""
		if t.GoImpl != nil {
			fn = t.GoImpl.Func
		}
		if d.Funcs == nil || !d.Funcs.Has(fn) {
			return fmt.Sprintf("catalogue tool %q version %q of bundle %q runs the Go function %q, which this host does not have; it can be called once the host registers that function", t.Slug, t.Version, b.Slug, fn)
		}
	}
	return catalogue.DisabledReason(b, *t)
}
