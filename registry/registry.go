package registry

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/schematype"
	"github.com/toolpack-go/toolpack/result"
)

// EnvToolPrefix is the environment variable New reads (once) for the default
// tool-name prefix when Options.Prefix is nil.
const EnvToolPrefix = "MCP_TOOL_PREFIX"

// Protocol errors returned by Registry methods; check with errors.Is.
var (
	// ErrUnknownTool: Invoke, Lookup or Remove named no registered tool.
	ErrUnknownTool = errors.New("registry: unknown tool")
	// ErrUnknownPack: RemovePack named no registered pack.
	ErrUnknownPack = errors.New("registry: unknown pack")
	// ErrNameClash: a tool or pack with that final name is already
	// registered, or a tool and an alias would share a name (Add,
	// SetAliases).
	ErrNameClash = errors.New("registry: name already registered")
	// ErrInvalidName: a final tool name does not match [A-Za-z0-9_.-]{1,128}.
	ErrInvalidName = errors.New("registry: invalid tool name")
	// ErrInvalidTool: a tool cannot be registered for a reason other than its
	// name (no handler, a schema that is not a JSON object or does not
	// compile, a negative timeout, an unknown source).
	ErrInvalidTool = errors.New("registry: invalid tool")
	// ErrInvalidOutput: a tool's value does not match its output schema.
	ErrInvalidOutput = errors.New("registry: output does not match the output schema")
	// ErrZeroRegistry: a method that changes a Registry was called on one
	// not made by New (the zero value holds no tools and takes none).
	ErrZeroRegistry = errors.New("registry: the zero Registry is not usable; make one with registry.New")
)

// made reports ErrZeroRegistry for a Registry not made by New, before any
// lock is taken: a zero value's nil maps would panic with it held.
func (r *Registry) made() error {
	if r == nil || r.tools == nil {
		return ErrZeroRegistry
	}
	return nil
}

// Options configure a Registry. The zero value is usable: no prefix unless
// MCP_TOOL_PREFIX is set, slog.Default() for logs, no default instructions,
// no timeout, the args package's default size and depth caps. A negative
// number (Timeout, Decode.MaxBytes, Decode.MaxDepth) is a mistake, not
// "the default" nor "no limit": Validate reports it and New panics on it.
type Options struct {
	// ID identifies the registry to other hosts (Registry.ID); empty means
	// a random one, different for every Registry. Set it for output that
	// must not change between runs (a snapshot of tools/list).
	ID string
	// Prefix, when non-nil, is the default name prefix. When nil the
	// MCP_TOOL_PREFIX environment variable is read once by New, and
	// FallbackPrefix is used when it is unset.
	Prefix *string
	// FallbackPrefix is the host's default prefix, used only when Prefix is
	// nil and MCP_TOOL_PREFIX is unset (a user-provided value is preserved).
	FallbackPrefix string
	// Logger receives tool logs; nil means slog.Default() as it is when New
	// runs.
	Logger *slog.Logger
	// Instructions fill in results that carry no instruction.
	Instructions result.Instructions
	// Timeout, when positive, bounds every call (a Tool.Timeout wins);
	// zero means no timeout; negative is refused (Validate).
	Timeout time.Duration
	// Decode bounds the raw arguments of every call before Tool.Decode runs:
	// MaxBytes (zero: args.DefaultMaxBytes) and MaxDepth (zero:
	// args.DefaultMaxDepth); negative is refused (Validate). A typed
	// tool's own decoder applies its ToolOptions.Decode bounds as well, so
	// the smaller limit wins.
	Decode args.DecodeOptions
}

// Validate reports every option New cannot honour, each naming its field
// and what was expected: a negative Timeout, Decode.MaxBytes or
// Decode.MaxDepth. New panics with this error, as time.NewTicker panics
// on a non-positive duration: passing such options is a programming
// error. A host that builds Options from its configuration or other
// outside input calls Validate first and reports the error instead.
func (o Options) Validate() error {
	var errs []error
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("registry: Options.Timeout is %s; expected zero (no timeout) or a positive duration", o.Timeout))
	}
	if o.Decode.MaxBytes < 0 {
		errs = append(errs, fmt.Errorf("registry: Options.Decode.MaxBytes is %d; expected zero (args.DefaultMaxBytes) or a positive number of bytes", o.Decode.MaxBytes))
	}
	if o.Decode.MaxDepth < 0 {
		errs = append(errs, fmt.Errorf("registry: Options.Decode.MaxDepth is %d; expected zero (args.DefaultMaxDepth) or a positive number of levels", o.Decode.MaxDepth))
	}
	return errors.Join(errs...)
}

// entry is a registered tool with its precomputed pipeline. An entry is
// never modified after it is stored: Use replaces entries.
type entry struct {
	tool *Tool
	// out is the compiled OutputSchema (nil when the tool has none or
	// checks its outputs with CheckOutput); outSrc is the text it was
	// compiled from, so that adding the same tool again reuses it.
	out    *jsonschema.Schema
	outSrc json.RawMessage
	// core is the tool's handler wrapped in output validation.
	core Handler
	// h is the whole chain: built-in stages and middleware around core. It
	// is rebuilt when middleware is added, never per call.
	h Handler
	// off marks a disabled tool (its own switch, its pack's, or its
	// source's: Tool.Disabled): absent from listings, its calls answered
	// with an unavailable failure.
	off bool
}

type packInfo struct {
	name, description string
}

// Registry holds tools and runs calls. It is safe for concurrent use.
// Make one with New: the zero value lists no tools and answers every call
// as an unknown tool; Add, AddPack, ReplacePack, Check, SetEnabled,
// SetPackEnabled, SetAliases and Update return ErrZeroRegistry, Remove and
// RemovePack find nothing to remove, and Use, UseOuter, Subscribe and Pin
// have no tool to act on.
type Registry struct {
	opts     Options
	id       string
	prefix   string
	log      *slog.Logger
	maxBytes int
	maxDepth int

	mu      sync.RWMutex
	tools   map[string]*entry
	packs   map[string]packInfo
	byPack  map[string]map[string]*entry // pack name → final name → entry
	toolOff map[string]bool              // final names switched off (SetEnabled)
	packOff map[string]bool              // packs switched off (SetPackEnabled)
	aliases map[string]string            // alias → target, as set (SetAliases)
	freeing map[string]int               // aliases running UpdateDroppings drop: name → how many
	mw      []Middleware                 // Use
	outer   []Middleware                 // UseOuter
	subs    []subscriber
	next    int

	upMu   sync.Mutex    // guards upN and upDone (Update)
	upN    int           // updates running
	upDone chan struct{} // closed when the last running update ends
	upSeq  atomic.Uint64 // counts Update starts and ends, read before a lookup
}

// New returns an empty Registry. It reads MCP_TOOL_PREFIX once, here, when
// opts.Prefix is nil. It panics when opts.Validate reports an error (a
// negative Timeout or Decode cap), with that error naming the field:
// call Validate first when the options come from outside input.
func New(opts Options) *Registry {
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	r := &Registry{
		opts:     opts,
		id:       cmp.Or(opts.ID, rand.Text()),
		tools:    map[string]*entry{},
		packs:    map[string]packInfo{},
		byPack:   map[string]map[string]*entry{},
		toolOff:  map[string]bool{},
		packOff:  map[string]bool{},
		log:      opts.Logger,
		maxBytes: opts.Decode.MaxBytes,
		maxDepth: opts.Decode.MaxDepth,
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.maxBytes == 0 {
		r.maxBytes = args.DefaultMaxBytes
	}
	if r.maxDepth == 0 {
		r.maxDepth = args.DefaultMaxDepth
	}
	switch {
	case opts.Prefix != nil:
		r.prefix = *opts.Prefix
	default:
		if v, ok := os.LookupEnv(EnvToolPrefix); ok {
			r.prefix = v
		} else {
			r.prefix = opts.FallbackPrefix
		}
	}
	return r
}

// MaxArgumentBytes is the largest raw arguments Invoke accepts
// (Options.Decode.MaxBytes, or args.DefaultMaxBytes): a caller building
// arguments (a snippet's step) stops there instead of building more.
func (r *Registry) MaxArgumentBytes() int { return r.maxBytes }

// Prefix returns the default name prefix this Registry applies.
func (r *Registry) Prefix() string { return r.prefix }

// ID is the registry's own random identifier, different for every
// Registry made. Adapters list it with the tools they serve
// (mcpmap.MetaHosts), so that a host proxying a host that proxies it
// back recognises its own tools and does not serve them again (see
// Tool.Via).
func (r *Registry) ID() string { return r.id }

// Use appends middleware; the first added is the outermost of the added
// ones. Middleware sees calls whose arguments are already decoded and
// validated (Call.Args set); see the package documentation for where it sits
// in the pipeline. The chain of every tool is rebuilt here, once, not per
// call. Nil entries are ignored.
func (r *Registry) Use(mw ...Middleware) {
	r.use(&r.mw, mw)
}

// UseOuter appends middleware that runs outside argument decoding, so that
// it sees every call of a tool: also those refused for their arguments
// (over the size or depth caps, or failing validation), which come back to
// it as a validation_error failure, Call.Args nil. Call statistics and
// tracing belong here; middleware that reads Call.Args belongs in Use. The
// first added is the outermost of the added ones; all of them are inside
// Logging and Recover and outside the middleware added with Use. Nil
// entries are ignored.
func (r *Registry) UseOuter(mw ...Middleware) {
	r.use(&r.outer, mw)
}

// use appends mw to the list at dst and rebuilds every tool's chain.
func (r *Registry) use(dst *[]Middleware, mw []Middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range mw {
		if m != nil {
			*dst = append(*dst, m)
		}
	}
	// Entries are immutable once published (Invoke reads them without the
	// lock), so each gets a fresh entry with the new chain.
	for n, e := range r.tools {
		ne := &entry{tool: e.tool, out: e.out, outSrc: e.outSrc, core: e.core, h: r.chainLocked(e.core), off: e.off}
		r.tools[n] = ne
		if m := r.byPack[e.tool.Pack]; m != nil {
			m[n] = ne
		}
	}
}

// chainLocked builds the full pipeline around core; r.mu must be held.
//
// Outermost first: Logging, Recover, outer middleware, limits+decode,
// user middleware, Timeout, Recover, output validation (inside core),
// handler.
func (r *Registry) chainLocked(core Handler) Handler {
	h := Recover(r.log)(core)
	h = Timeout(r.opts.Timeout)(h)
	for i := len(r.mw) - 1; i >= 0; i-- {
		h = r.mw[i](h)
	}
	h = r.decodeStage(h)
	for i := len(r.outer) - 1; i >= 0; i-- {
		h = r.outer[i](h)
	}
	h = Recover(r.log)(h)
	return Logging(r.log)(h)
}

// Add registers tools. Every problem of the call is reported (joined): an
// invalid final name (ErrInvalidName), a clash with a registered tool or
// another tool of the same call (ErrNameClash), a name an alias holds
// (ErrNameClash, naming the alias's target), or an invalid tool
// (ErrInvalidTool). On any error nothing of that call is registered.
//
// A tool and an alias (SetAliases) never share a name: a tool may not take
// an alias's name, nor, under the registry's prefix, have an alias's name
// as its undecorated name (configuration naming it undecorated would reach
// the alias; TargetName) unless that alias runs this very tool — the same
// comparison SetAliases makes the other way round. Change the aliases
// first; or, to turn an alias into a tool of that name in one step, add
// the tool's pack and drop the alias inside one UpdateDropping naming it
// (AddPack or ReplacePack; Add never takes an alias's name). The same
// rule holds for AddPack and ReplacePack.
//
// Add stores a copy of each tool with Name set to the final name, BaseName to
// the undecorated name and Source to SourceLocal when empty; the caller's
// Tool values are not modified.
func (r *Registry) Add(tools ...*Tool) error {
	return r.add(nil, tools, false)
}

// AddPack registers every tool of p with Tool.Pack set to p.Name, all or
// nothing, and records the pack. A pack name already registered is
// ErrNameClash.
func (r *Registry) AddPack(p *Pack) error {
	if p == nil {
		return fmt.Errorf("%w: pack is nil", ErrInvalidTool)
	}
	if err := checkName(p.Name); err != nil {
		return fmt.Errorf("registry: pack %q: %w", p.Name, err)
	}
	ts := make([]*Tool, len(p.Tools))
	for i, t := range p.Tools {
		if t == nil {
			ts[i] = nil
			continue
		}
		c := *t
		c.Pack = p.Name
		ts[i] = &c
	}
	return r.add(&packInfo{name: p.Name, description: p.Description}, ts, false)
}

// ReplacePack registers p in place of the registered pack of the same
// name, in one step: every tool of p is checked first (as AddPack does) and
// on any error nothing changes; otherwise the pack's old tools are
// replaced, the ones p no longer has are removed, and subscribers get one
// Change (Added: every tool of p; Removed: the old tools p dropped). Calls
// already running finish on the tool they started with; calls made after
// ReplacePack returns run the new one. A pack not registered yet is added.
// Enable switches belong to names and carry over.
func (r *Registry) ReplacePack(p *Pack) error {
	if p == nil {
		return fmt.Errorf("%w: pack is nil", ErrInvalidTool)
	}
	if err := checkName(p.Name); err != nil {
		return fmt.Errorf("registry: pack %q: %w", p.Name, err)
	}
	ts := make([]*Tool, len(p.Tools))
	for i, t := range p.Tools {
		if t != nil {
			c := *t
			c.Pack = p.Name
			ts[i] = &c
		}
	}
	return r.add(&packInfo{name: p.Name, description: p.Description}, ts, true)
}

// Check reports the problems Add would find in the tools themselves —
// an invalid name or final name under the registry's prefix
// (ErrInvalidName), an invalid tool (ErrInvalidTool), two of them with one
// final name (ErrNameClash) — without registering anything. Clashes with
// tools already registered are not checked: they depend on when the tools
// are added. A host checking a configuration before applying it (a
// reload's check phase) uses it to refuse what Add would refuse later.
func (r *Registry) Check(tools ...*Tool) error {
	if err := r.made(); err != nil {
		return err
	}
	var errs []error
	var checked schemaSet
	seen := map[string]bool{}
	for i, t := range tools {
		e, err := r.prepare(t, &checked)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool #%d: %w", i, err))
			continue
		}
		if seen[e.tool.Name] {
			errs = append(errs, fmt.Errorf("%w: tool #%d: %q is the final name of an earlier tool too", ErrNameClash, i, e.tool.Name))
		}
		seen[e.tool.Name] = true
	}
	return errors.Join(errs...)
}

// add registers tools (of pack, when non-nil). With replace, pack's
// registered tools give way to the new ones instead of clashing.
func (r *Registry) add(pack *packInfo, tools []*Tool, replace bool) error {
	if err := r.made(); err != nil {
		return err
	}
	var errs []error
	prepared := make([]*entry, 0, len(tools))
	var checked schemaSet
	for i, t := range tools {
		e, err := r.prepare(t, &checked)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool #%d: %w", i, err))
			continue
		}
		prepared = append(prepared, e)
	}

	r.mu.Lock()
	var old map[string]*entry // the pack's tools a replace gives way to
	if pack != nil {
		if _, ok := r.packs[pack.name]; ok && !replace {
			errs = append(errs, fmt.Errorf("%w: pack %q", ErrNameClash, pack.name))
		}
		if replace {
			old = r.byPack[pack.name]
		}
	}
	seen := make(map[string]bool, len(prepared))
	for _, e := range prepared {
		name := e.tool.Name
		if _, ok := r.tools[name]; ok && old[name] == nil {
			errs = append(errs, fmt.Errorf("%w: tool %q", ErrNameClash, name))
		} else if seen[name] {
			errs = append(errs, fmt.Errorf("%w: tool %q appears twice in one call", ErrNameClash, name))
		} else if err := r.aliasHoldsLocked(name, pack != nil); err != nil {
			errs = append(errs, err)
		}
		seen[name] = true
	}
	if len(errs) > 0 {
		r.mu.Unlock()
		return errors.Join(errs...)
	}
	if pack != nil {
		r.packs[pack.name] = *pack
	}
	if len(r.tools) == 0 && len(prepared) > 8 {
		// A catalogue loaded at start: size the index once instead of
		// growing it step by step (readers take r.mu, held here).
		r.tools = make(map[string]*entry, len(prepared))
	}
	ch := Change{Added: make([]*Tool, 0, len(prepared))}
	for name, e := range old {
		if !seen[name] {
			r.removeLocked(e)
			if !e.off {
				ch.Removed = append(ch.Removed, e.tool)
			}
		}
	}
	slices.SortFunc(ch.Removed, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	for _, e := range prepared {
		e.core = outputStage(e)
		e.h = r.chainLocked(e.core)
		e.off = r.offLocked(e.tool)
		r.tools[e.tool.Name] = e
		if p := e.tool.Pack; p != "" {
			m := r.byPack[p]
			if m == nil {
				m = map[string]*entry{}
				r.byPack[p] = m
			}
			m[e.tool.Name] = e
		}
		if !e.off {
			ch.Added = append(ch.Added, e.tool)
		}
	}
	fns := r.subscribersLocked()
	r.mu.Unlock()
	// A tool added switched off (SetEnabled, SetPackEnabled, Tool.Disabled)
	// changes no listing: Add of only such tools notifies no one.
	if len(ch.Added)+len(ch.Removed) > 0 || pack != nil {
		notify(fns, ch)
	}
	return nil
}

var defaultInputSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// schemaSet remembers the input schemas one Add call has already found
// valid: the tools of a pack or catalogue often share one (every Func
// tool of one argument type shares the bytes args.SchemaFor returns), and
// checking it again is most of what adding such a tool costs. It compares
// contents, not addresses, so a caller reusing a buffer is still checked.
type schemaSet struct {
	last json.RawMessage     // the most recently checked schema
	seen map[string]struct{} // every other checked schema, made on first need
}

// check is checkObjectSchema(s), answered from memory when s was checked
// before.
func (c *schemaSet) check(s json.RawMessage) error {
	if c.last != nil && bytes.Equal(s, c.last) {
		return nil
	}
	if _, ok := c.seen[string(s)]; ok {
		return nil
	}
	if err := checkObjectSchema(s); err != nil {
		return err
	}
	if c.last != nil {
		if c.seen == nil {
			c.seen = map[string]struct{}{}
		}
		c.seen[string(c.last)] = struct{}{}
	}
	c.last = s
	return nil
}

// prepare validates t and returns the entry to store (its chain not yet
// built). checked holds the input schemas this Add call has validated.
func (r *Registry) prepare(t *Tool, checked *schemaSet) (*entry, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: tool is nil", ErrInvalidTool)
	}
	c := *t
	c.BaseName = t.Name
	if err := checkName(t.Name); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	p := r.prefix
	if t.Prefix != nil {
		p = *t.Prefix
	}
	c.Name = decorate(p, t.Name)
	if err := checkName(c.Name); err != nil {
		return nil, fmt.Errorf("tool %q (prefix %q): %w", t.Name, p, err)
	}
	if c.Handler == nil {
		return nil, fmt.Errorf("%w: tool %q: Handler is nil; expected a function", ErrInvalidTool, c.Name)
	}
	if c.Timeout < 0 {
		return nil, fmt.Errorf("%w: tool %q: Timeout is %s; expected zero (none) or a positive duration", ErrInvalidTool, c.Name, c.Timeout)
	}
	switch {
	case c.Source == "":
		c.Source = SourceLocal
	case c.Source == SourceLocal:
	case strings.HasPrefix(c.Source, SourceProxyPrefix) && len(c.Source) > len(SourceProxyPrefix):
	default:
		return nil, fmt.Errorf("%w: tool %q: Source is %q; expected %q or %q followed by a server name", ErrInvalidTool, c.Name, c.Source, SourceLocal, SourceProxyPrefix)
	}
	if len(c.InputSchema) == 0 {
		c.InputSchema = defaultInputSchema
	} else if err := checked.check(c.InputSchema); err != nil {
		return nil, fmt.Errorf("%w: tool %q: InputSchema: %w", ErrInvalidTool, c.Name, err)
	}
	for i, es := range c.Errors {
		if es.Type == "" || (es.Status != 0 && (es.Status < 400 || es.Status > 599)) {
			return nil, fmt.Errorf("%w: tool %q: Errors[%d]: expected a non-empty Type and a Status of 0 or 400–599, got %q and %d", ErrInvalidTool, c.Name, i, es.Type, es.Status)
		}
	}
	c.Errors = slices.Clone(c.Errors)
	if err := checkTraceArgs(c.InputSchema, c.TraceArgs); err != nil {
		return nil, fmt.Errorf("%w: tool %q: TraceArgs: %w", ErrInvalidTool, c.Name, err)
	}
	c.TraceArgs = slices.Clone(c.TraceArgs)
	c.Calls = slices.Clone(c.Calls)
	c.Via = slices.Clone(c.Via)
	if err := checkFieldErrorTypes(c.InputSchema, c.FieldErrorTypes, c.Errors); err != nil {
		return nil, fmt.Errorf("%w: tool %q: FieldErrorTypes: %w", ErrInvalidTool, c.Name, err)
	}
	c.FieldErrorTypes = maps.Clone(c.FieldErrorTypes)
	e := &entry{tool: &c}
	if len(c.OutputSchema) > 0 && c.CheckOutput == nil {
		s, err := r.compiledOutput(c.Name, c.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", ErrInvalidTool, c.Name, err)
		}
		e.out, e.outSrc = s, c.OutputSchema
	}
	return e, nil
}

// compiledOutput compiles an output schema, reusing the compilation of a
// registered tool with the same schema text.
func (r *Registry) compiledOutput(name string, src json.RawMessage) (*jsonschema.Schema, error) {
	r.mu.RLock()
	if e := r.tools[name]; e != nil && e.out != nil && bytes.Equal(e.outSrc, src) {
		r.mu.RUnlock()
		return e.out, nil
	}
	r.mu.RUnlock()
	return compileOutputSchema(name, src)
}

// checkObjectSchema reports whether s is a JSON object with "type":"object",
// as MCP requires of input schemas. The common case (it is) is answered by
// a scan that allocates nothing; only a schema that fails is decoded, to
// say why.
func checkObjectSchema(s json.RawMessage) error {
	if schematype.IsObject(s) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil {
		return fmt.Errorf("expected a JSON object: %w", err)
	}
	if m == nil {
		return errors.New("expected a JSON object, got null")
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ != "object" {
		return fmt.Errorf(`expected "type":"object", got type %s`, string(m["type"]))
	}
	return nil
}

// Remove unregisters the tool with the final name.
func (r *Registry) Remove(name string) error {
	r.mu.Lock()
	e, ok := r.tools[name]
	if !ok {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	r.removeLocked(e)
	fns := r.subscribersLocked()
	r.mu.Unlock()
	if !e.off {
		notify(fns, Change{Removed: []*Tool{e.tool}})
	}
	return nil
}

// removeLocked drops e from every index; r.mu must be held.
func (r *Registry) removeLocked(e *entry) {
	delete(r.tools, e.tool.Name)
	if m := r.byPack[e.tool.Pack]; m != nil {
		delete(m, e.tool.Name)
		if len(m) == 0 {
			delete(r.byPack, e.tool.Pack)
		}
	}
}

// RemovePack unregisters the pack and every tool whose Pack is name. A name
// that is neither a registered pack nor the Pack of any tool is
// ErrUnknownPack. It costs time in proportion to the pack's tools, not to
// the registry's.
func (r *Registry) RemovePack(name string) error {
	r.mu.Lock()
	_, found := r.packs[name]
	delete(r.packs, name)
	m := r.byPack[name]
	ch := Change{Removed: make([]*Tool, 0, len(m))}
	for _, e := range m {
		if !e.off {
			ch.Removed = append(ch.Removed, e.tool)
		}
		r.removeLocked(e)
		found = true
	}
	if !found {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownPack, name)
	}
	fns := r.subscribersLocked()
	r.mu.Unlock()
	slices.SortFunc(ch.Removed, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	notify(fns, ch)
	return nil
}

// Lookup returns the enabled tool registered under the final name. The Tool
// is shared with the Registry and must not be modified. A disabled tool is
// not found (see ListAll and IsEnabled for administration).
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	if !ok || e.off {
		return nil, false
	}
	return e.tool, true
}

// List returns the enabled tools sorted by final name. The Tools are
// shared with the Registry and must not be modified.
func (r *Registry) List() []*Tool {
	return r.list(false)
}

// ListAll returns every registered tool, disabled ones included, sorted by
// final name: for administration (a catalogue's admin page, ot.tools of a
// host that shows switches). IsEnabled tells which are on.
func (r *Registry) ListAll() []*Tool {
	return r.list(true)
}

func (r *Registry) list(all bool) []*Tool {
	r.mu.RLock()
	out := make([]*Tool, 0, len(r.tools))
	for _, e := range r.tools {
		if all || !e.off {
			out = append(out, e.tool)
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Packs returns the registered packs sorted by name, each with its enabled
// tools (final names) sorted by name. A disabled pack is listed with no
// tools.
func (r *Registry) Packs() []*Pack {
	r.mu.RLock()
	byName := make(map[string]*Pack, len(r.packs))
	for _, p := range r.packs {
		byName[p.name] = &Pack{Name: p.name, Description: p.description}
	}
	for name, p := range byName {
		for _, e := range r.byPack[name] {
			if !e.off {
				p.Tools = append(p.Tools, e.tool)
			}
		}
	}
	r.mu.RUnlock()
	out := make([]*Pack, 0, len(byName))
	for _, p := range byName {
		sort.Slice(p.Tools, func(i, j int) bool { return p.Tools[i].Name < p.Tools[j].Name })
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// checkTraceArgs holds every name of TraceArgs to be a property of the
// input schema, named once.
func checkTraceArgs(inputSchema json.RawMessage, names []string) error {
	if len(names) == 0 {
		return nil
	}
	props, err := inputProperties(inputSchema)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if _, ok := props[n]; !ok || seen[n] {
			return fmt.Errorf("[%d]: expected a property of the input schema named once, got %q", i, n)
		}
		seen[n] = true
	}
	return nil
}

// checkFieldErrorTypes checks that every argument named is a property of
// the input schema and every type is declared in errs.
func checkFieldErrorTypes(inputSchema json.RawMessage, m map[string]result.ErrorType, errs []ErrorSpec) error {
	if len(m) == 0 {
		return nil
	}
	props, err := inputProperties(inputSchema)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if _, ok := props[name]; !ok {
			return fmt.Errorf("[%q]: expected a property of the input schema, got %q", name, name)
		}
		if !slices.ContainsFunc(errs, func(e ErrorSpec) bool { return e.Type == m[name] }) {
			return fmt.Errorf("[%q]: error type %q is not declared in Errors; declare it with its HTTP status", name, m[name])
		}
	}
	return nil
}

// inputProperties reads the top-level properties of an input schema.
func inputProperties(inputSchema json.RawMessage) (map[string]json.RawMessage, error) {
	var root struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, fmt.Errorf("reading the input schema's properties: %w", err)
	}
	return root.Properties, nil
}
