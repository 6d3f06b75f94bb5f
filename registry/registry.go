package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

// Source values of Tool.Source.
const (
	// SourceLocal marks a tool implemented in this process.
	SourceLocal = "local"
	// SourceProxyPrefix starts the source of a tool forwarded to a remote MCP
	// server: "proxy:{server}".
	SourceProxyPrefix = "proxy:"
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
	// ErrNameClash: a tool or pack with that final name is already registered.
	ErrNameClash = errors.New("registry: name already registered")
	// ErrInvalidName: a final tool name does not match [A-Za-z0-9_.-]{1,128}.
	ErrInvalidName = errors.New("registry: invalid tool name")
	// ErrInvalidTool: a tool cannot be registered for a reason other than its
	// name (no handler, a schema that is not a JSON object or does not
	// compile, a negative timeout, an unknown source).
	ErrInvalidTool = errors.New("registry: invalid tool")
	// ErrInvalidOutput: a tool's value does not match its output schema.
	ErrInvalidOutput = errors.New("registry: output does not match the output schema")
)

// Annotations are the MCP tool hints. A nil pointer means "not stated", which
// MCP clients read as the protocol default.
type Annotations struct {
	// ReadOnly: the tool does not modify its environment.
	ReadOnly *bool
	// Destructive: the tool may perform destructive updates.
	Destructive *bool
	// Idempotent: calling the tool again with the same arguments has no
	// additional effect.
	Idempotent *bool
	// OpenWorld: the tool interacts with an open world of external entities.
	OpenWorld *bool
}

// Call is one invocation as a Handler sees it.
type Call struct {
	// Tool is the registered tool (final name in Tool.Name).
	Tool *Tool
	// Raw is the arguments JSON as received (after size/depth checks).
	Raw json.RawMessage
	// Args is the decoded, validated arguments value produced by Tool.Decode
	// (for example an A for a typed tool); nil when the tool has no Decode.
	Args any
}

// Handler runs a call. A domain failure is a failed Result with a nil error; a
// non-nil error is a protocol failure.
type Handler func(ctx context.Context, c *Call) (result.Result[any], error)

// Middleware wraps a Handler, net/http style.
type Middleware func(next Handler) Handler

// Tool is one callable tool.
type Tool struct {
	// Name is the tool's name. Before registration it is the undecorated name;
	// on a tool returned by a Registry it is the final (prefixed) name.
	Name string
	// BaseName is the undecorated name, set by the Registry.
	BaseName string
	// Prefix overrides the registry's default prefix for this tool when
	// non-nil; a pointer to "" disables prefixing.
	Prefix *string
	// Title is a short human-readable title.
	Title string
	// Description is the full description shown to models.
	Description string
	// InputSchema is the JSON Schema of the arguments (type object). When
	// empty, the Registry stores {"type":"object","properties":{}}.
	InputSchema json.RawMessage
	// OutputSchema, when set, is the JSON Schema every successful value must
	// match before it leaves the pipeline. It is compiled once, at
	// registration (or by Func at construction).
	OutputSchema json.RawMessage
	// Annotations are the MCP hints.
	Annotations Annotations
	// Pack is the name of the pack the tool belongs to, if any.
	Pack string
	// Source is SourceLocal or "proxy:{server}"; empty means local (the
	// Registry stores SourceLocal).
	Source string
	// Signature, Args, Returns and Example are introspection text (ot.tools).
	Signature, Args, Returns, Example string
	// Timeout, when positive, bounds each call of this tool.
	Timeout time.Duration
	// Decode, when set, decodes and validates raw arguments before the
	// middleware chain runs. It returns *args.ValidationError for bad input.
	Decode func(raw json.RawMessage) (any, error)
	// Handler runs the call.
	Handler Handler

	// out caches the compiled OutputSchema; outSrc is the text it was
	// compiled from, so that a changed OutputSchema is compiled again.
	out    *jsonschema.Schema
	outSrc json.RawMessage
	// outTyped marks an OutputSchema that Func generated from the Go result
	// type (outSrc holds it): values are checked with args.Validate, which
	// the args agreement property makes equivalent to the schema, without
	// marshalling them. A changed OutputSchema is compiled instead.
	outTyped bool
}

// Options configure a Registry. The zero value is usable: no prefix unless
// MCP_TOOL_PREFIX is set, slog.Default() for logs, no default instructions,
// no timeout, the args package's default size and depth caps.
type Options struct {
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
	// Timeout, when positive, bounds every call (a Tool.Timeout wins).
	Timeout time.Duration
	// Decode bounds the raw arguments of every call before Tool.Decode runs:
	// MaxBytes (zero: args.DefaultMaxBytes) and MaxDepth (zero:
	// args.DefaultMaxDepth). A typed tool's own decoder applies its
	// ToolOptions.Decode bounds as well, so the smaller limit wins.
	Decode args.DecodeOptions
}

// Pack is a named group of tools.
type Pack struct {
	// Name identifies the pack; it follows the tool-name rules.
	Name string
	// Description says what the pack is for.
	Description string
	// Tools are the pack's tools (undecorated names before registration).
	Tools []*Tool
}

// entry is a registered tool with its precomputed pipeline. An entry is
// never modified after it is stored: Use replaces entries.
type entry struct {
	tool *Tool
	// core is the tool's handler wrapped in output validation.
	core Handler
	// h is the whole chain: built-in stages and middleware around core. It
	// is rebuilt when middleware is added, never per call.
	h Handler
}

type packInfo struct {
	name, description string
}

type subscriber struct {
	id int
	fn func()
}

// Registry holds tools and runs calls. It is safe for concurrent use.
type Registry struct {
	opts     Options
	prefix   string
	log      *slog.Logger
	maxBytes int
	maxDepth int

	mu    sync.RWMutex
	tools map[string]*entry
	packs map[string]packInfo
	mw    []Middleware
	subs  []subscriber
	next  int
}

// Bool returns a pointer to b, for Annotations and other optional flags.
func Bool(b bool) *bool { return &b }

// String returns a pointer to s, for Tool.Prefix and Options.Prefix.
func String(s string) *string { return &s }

// New returns an empty Registry. It reads MCP_TOOL_PREFIX once, here, when
// opts.Prefix is nil.
func New(opts Options) *Registry {
	r := &Registry{
		opts:     opts,
		tools:    map[string]*entry{},
		packs:    map[string]packInfo{},
		log:      opts.Logger,
		maxBytes: opts.Decode.MaxBytes,
		maxDepth: opts.Decode.MaxDepth,
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.maxBytes <= 0 {
		r.maxBytes = args.DefaultMaxBytes
	}
	if r.maxDepth <= 0 {
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

// Prefix returns the default name prefix this Registry applies.
func (r *Registry) Prefix() string { return r.prefix }

// Subscribe registers fn to be called (outside any lock) after the set of
// tools changes through Add, AddPack, Remove or RemovePack. Subscribers are
// called in the order they subscribed, on the goroutine that made the change.
// The returned function unsubscribes; calling it twice is harmless.
func (r *Registry) Subscribe(fn func()) (cancel func()) {
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

// notify calls fns; the caller must not hold r.mu.
func notify(fns []func()) {
	for _, fn := range fns {
		fn()
	}
}

// subscribersLocked snapshots the subscriber functions; r.mu must be held.
func (r *Registry) subscribersLocked() []func() {
	if len(r.subs) == 0 {
		return nil
	}
	fns := make([]func(), len(r.subs))
	for i, s := range r.subs {
		fns[i] = s.fn
	}
	return fns
}

// Use appends middleware; the first added is the outermost of the added
// ones. Middleware sees calls whose arguments are already decoded and
// validated (Call.Args set); see the package documentation for where it sits
// in the pipeline. The chain of every tool is rebuilt here, once, not per
// call. Nil entries are ignored.
func (r *Registry) Use(mw ...Middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range mw {
		if m != nil {
			r.mw = append(r.mw, m)
		}
	}
	// Entries are immutable once published (Invoke reads them without the
	// lock), so each gets a fresh entry with the new chain.
	for n, e := range r.tools {
		r.tools[n] = &entry{tool: e.tool, core: e.core, h: r.chainLocked(e.core)}
	}
}

// chainLocked builds the full pipeline around core; r.mu must be held.
//
// Outermost first: Logging, Recover, limits+decode, user middleware,
// Timeout, Recover, output validation (inside core), handler.
func (r *Registry) chainLocked(core Handler) Handler {
	h := Recover(r.log)(core)
	h = Timeout(r.opts.Timeout)(h)
	for i := len(r.mw) - 1; i >= 0; i-- {
		h = r.mw[i](h)
	}
	h = r.decodeStage(h)
	h = Recover(r.log)(h)
	return Logging(r.log)(h)
}

// Add registers tools. Every problem of the call is reported (joined): an
// invalid final name (ErrInvalidName), a clash with a registered tool or
// another tool of the same call (ErrNameClash), or an invalid tool
// (ErrInvalidTool). On any error nothing of that call is registered.
//
// Add stores a copy of each tool with Name set to the final name, BaseName to
// the undecorated name and Source to SourceLocal when empty; the caller's
// Tool values are not modified.
func (r *Registry) Add(tools ...*Tool) error {
	return r.add(nil, tools)
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
	return r.add(&packInfo{name: p.Name, description: p.Description}, ts)
}

func (r *Registry) add(pack *packInfo, tools []*Tool) error {
	var errs []error
	prepared := make([]*Tool, 0, len(tools))
	for i, t := range tools {
		c, err := r.prepare(t)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool #%d: %w", i, err))
			continue
		}
		prepared = append(prepared, c)
	}

	r.mu.Lock()
	if pack != nil {
		if _, ok := r.packs[pack.name]; ok {
			errs = append(errs, fmt.Errorf("%w: pack %q", ErrNameClash, pack.name))
		}
	}
	seen := make(map[string]bool, len(prepared))
	for _, t := range prepared {
		if _, ok := r.tools[t.Name]; ok {
			errs = append(errs, fmt.Errorf("%w: tool %q", ErrNameClash, t.Name))
		} else if seen[t.Name] {
			errs = append(errs, fmt.Errorf("%w: tool %q appears twice in one call", ErrNameClash, t.Name))
		}
		seen[t.Name] = true
	}
	if len(errs) > 0 {
		r.mu.Unlock()
		return errors.Join(errs...)
	}
	if pack != nil {
		r.packs[pack.name] = *pack
	}
	for _, t := range prepared {
		core := outputStage(t)
		r.tools[t.Name] = &entry{tool: t, core: core, h: r.chainLocked(core)}
	}
	fns := r.subscribersLocked()
	r.mu.Unlock()
	if len(prepared) > 0 || pack != nil {
		notify(fns)
	}
	return nil
}

var defaultInputSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// prepare validates t and returns the copy to store.
func (r *Registry) prepare(t *Tool) (*Tool, error) {
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
	} else if err := checkObjectSchema(c.InputSchema); err != nil {
		return nil, fmt.Errorf("%w: tool %q: InputSchema: %w", ErrInvalidTool, c.Name, err)
	}
	switch {
	case len(c.OutputSchema) == 0:
		c.out, c.outSrc, c.outTyped = nil, nil, false
	case c.outTyped && bytes.Equal(c.outSrc, c.OutputSchema):
		// Generated by Func from the result type: checked with args.Validate.
	case c.out == nil || !bytes.Equal(c.outSrc, c.OutputSchema):
		s, err := compileOutputSchema(c.Name, c.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", ErrInvalidTool, c.Name, err)
		}
		c.out, c.outSrc, c.outTyped = s, c.OutputSchema, false
	}
	return &c, nil
}

// checkObjectSchema reports whether s is a JSON object with "type":"object",
// as MCP requires of input schemas.
func checkObjectSchema(s json.RawMessage) error {
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
	if _, ok := r.tools[name]; !ok {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	delete(r.tools, name)
	fns := r.subscribersLocked()
	r.mu.Unlock()
	notify(fns)
	return nil
}

// RemovePack unregisters the pack and every tool whose Pack is name. A name
// that is neither a registered pack nor the Pack of any tool is
// ErrUnknownPack.
func (r *Registry) RemovePack(name string) error {
	r.mu.Lock()
	_, found := r.packs[name]
	delete(r.packs, name)
	for n, e := range r.tools {
		if e.tool.Pack == name {
			delete(r.tools, n)
			found = true
		}
	}
	if !found {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownPack, name)
	}
	fns := r.subscribersLocked()
	r.mu.Unlock()
	notify(fns)
	return nil
}

// Lookup returns the tool registered under the final name. The Tool is shared
// with the Registry and must not be modified.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// List returns the registered tools sorted by final name. The Tools are
// shared with the Registry and must not be modified.
func (r *Registry) List() []*Tool {
	r.mu.RLock()
	out := make([]*Tool, 0, len(r.tools))
	for _, e := range r.tools {
		out = append(out, e.tool)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Packs returns the registered packs sorted by name, each with its
// registered tools (final names) sorted by name.
func (r *Registry) Packs() []*Pack {
	r.mu.RLock()
	byName := make(map[string]*Pack, len(r.packs))
	for _, p := range r.packs {
		byName[p.name] = &Pack{Name: p.name, Description: p.description}
	}
	for _, e := range r.tools {
		if p, ok := byName[e.tool.Pack]; ok {
			p.Tools = append(p.Tools, e.tool)
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

var emptyObject = json.RawMessage(`{}`)

// Invoke runs one call through the pipeline: look up → size/depth caps and
// Tool.Decode → middleware → handler (under the timeout) → output validation
// → default instructions.
//
// Domain failures, including invalid arguments (error type
// validation_error), a recovered panic (internal_error) and a call that ran
// out of time (timeout), come back as a failed Result with a nil error. A
// non-nil error is a protocol failure: an unknown tool (ErrUnknownTool), a
// context already done before the call or cancelled during it (wrapping
// context.Canceled or context.DeadlineExceeded), an output that does not
// match the output schema (ErrInvalidOutput), or an error returned by the
// handler. Empty raw arguments (nil or zero length) mean "no arguments" and
// are read as {}.
func (r *Registry) Invoke(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error) {
	if err := ctx.Err(); err != nil {
		return result.Result[any]{}, fmt.Errorf("registry: tool %q not called: %w", name, err)
	}
	r.mu.RLock()
	e := r.tools[name]
	r.mu.RUnlock()
	if e == nil {
		return result.Result[any]{}, fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	if len(raw) == 0 {
		raw = emptyObject
	}
	res, err := e.h(ctx, &Call{Tool: e.tool, Raw: raw})
	if err != nil {
		return result.Result[any]{}, err
	}
	return result.Apply(r.opts.Instructions, res), nil
}

// decodeStage enforces the registry's size and depth caps and runs
// Tool.Decode; a *args.ValidationError becomes a validation_error failure.
func (r *Registry) decodeStage(next Handler) Handler {
	maxBytes, maxDepth := r.maxBytes, r.maxDepth
	return func(ctx context.Context, c *Call) (result.Result[any], error) {
		if ve := checkLimits(c.Raw, maxBytes, maxDepth); ve != nil {
			return args.Failure[any](ve), nil
		}
		if c.Tool.Decode != nil {
			a, err := c.Tool.Decode(c.Raw)
			if err != nil {
				var ve *args.ValidationError
				if errors.As(err, &ve) {
					return args.Failure[any](ve), nil
				}
				return result.Result[any]{}, fmt.Errorf("registry: tool %q: decode arguments: %w", c.Tool.Name, err)
			}
			c.Args = a
		}
		return next(ctx, c)
	}
}
