// Package registry holds tools, packs and the one invoke pipeline every call
// goes through.
//
// SKELETON: the registry helper completes this package; the exported API below
// is the contract other packages build against.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

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

// Protocol errors returned by Registry methods; check with errors.Is.
var (
	// ErrUnknownTool: Invoke, Lookup or Remove named no registered tool.
	ErrUnknownTool = errors.New("registry: unknown tool")
	// ErrNameClash: a tool or pack with that final name is already registered.
	ErrNameClash = errors.New("registry: name already registered")
	// ErrInvalidName: a final tool name does not match [A-Za-z0-9_.-]{1,128}.
	ErrInvalidName = errors.New("registry: invalid tool name")
	// ErrInvalidOutput: a tool's value does not match its output schema.
	ErrInvalidOutput = errors.New("registry: output does not match the output schema")
)

// Annotations are the MCP tool hints. A nil pointer means "not stated", which
// MCP clients read as the protocol default.
type Annotations struct {
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
	OpenWorld   *bool
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
	// InputSchema is the JSON Schema of the arguments (type object).
	InputSchema json.RawMessage
	// OutputSchema, when set, is the JSON Schema every successful value must
	// match before it leaves the pipeline.
	OutputSchema json.RawMessage
	// Annotations are the MCP hints.
	Annotations Annotations
	// Pack is the name of the pack the tool belongs to, if any.
	Pack string
	// Source is SourceLocal or "proxy:{server}"; empty means local.
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
}

// Options configure a Registry. The zero value is usable.
type Options struct {
	// Prefix, when non-nil, is the default name prefix. When nil the
	// MCP_TOOL_PREFIX environment variable is read once by New, and
	// FallbackPrefix is used when it is unset.
	Prefix *string
	// FallbackPrefix is the host's default prefix, used only when Prefix is
	// nil and MCP_TOOL_PREFIX is unset (a user-provided value is preserved).
	FallbackPrefix string
	// Logger receives tool logs; nil means slog.Default().
	Logger *slog.Logger
	// Instructions fill in results that carry no instruction.
	Instructions result.Instructions
	// Timeout, when positive, bounds every call (a Tool.Timeout wins).
	Timeout time.Duration
	// Decode bounds argument decoding.
	Decode args.DecodeOptions
}

// Pack is a named group of tools.
type Pack struct {
	Name        string
	Description string
	Tools       []*Tool
}

// Registry holds tools and runs calls. It is safe for concurrent use.
type Registry struct {
	opts   Options
	prefix string
	log    *slog.Logger

	mu    sync.RWMutex
	tools map[string]*Tool
	mw    []Middleware
	subs  map[int]func()
	next  int
}

// Bool returns a pointer to b, for Annotations and other optional flags.
func Bool(b bool) *bool { return &b }

// String returns a pointer to s, for Tool.Prefix and Options.Prefix.
func String(s string) *string { return &s }

// Subscribe registers fn to be called (outside any lock) after the set of
// tools changes through Add, AddPack or Remove. The returned function
// unsubscribes. Adapters use it for list-changed notifications.
func (r *Registry) Subscribe(fn func()) (cancel func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subs == nil {
		r.subs = map[int]func(){}
	}
	id := r.next
	r.next++
	r.subs[id] = fn
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.subs, id)
	}
}

// New returns an empty Registry.
func New(opts Options) *Registry {
	r := &Registry{opts: opts, tools: map[string]*Tool{}, log: opts.Logger}
	if r.log == nil {
		r.log = slog.Default()
	}
	switch {
	case opts.Prefix != nil:
		r.prefix = *opts.Prefix
	default:
		if v, ok := os.LookupEnv("MCP_TOOL_PREFIX"); ok {
			r.prefix = v
		} else {
			r.prefix = opts.FallbackPrefix
		}
	}
	return r
}

// Use appends middleware; the first added is the outermost.
func (r *Registry) Use(mw ...Middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mw = append(r.mw, mw...)
}

// Add registers tools; a clash or invalid name is an error and nothing of
// that call is registered.
func (r *Registry) Add(tools ...*Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range tools {
		c := *t
		p := r.prefix
		if t.Prefix != nil {
			p = *t.Prefix
		}
		c.BaseName = t.Name
		if p != "" {
			c.Name = p + "_" + t.Name
		}
		if _, ok := r.tools[c.Name]; ok {
			return fmt.Errorf("%w: %q", ErrNameClash, c.Name)
		}
		r.tools[c.Name] = &c
	}
	return nil
}

// AddPack registers every tool of p with Tool.Pack set to p.Name.
func (r *Registry) AddPack(p *Pack) error {
	ts := make([]*Tool, len(p.Tools))
	for i, t := range p.Tools {
		c := *t
		c.Pack = p.Name
		ts[i] = &c
	}
	return r.Add(ts...)
}

// Remove unregisters the tool with the final name.
func (r *Registry) Remove(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	delete(r.tools, name)
	return nil
}

// Lookup returns the tool registered under the final name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// List returns the registered tools sorted by final name.
func (r *Registry) List() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Invoke runs one call through the pipeline.
func (r *Registry) Invoke(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error) {
	t, ok := r.Lookup(name)
	if !ok {
		return result.Result[any]{}, fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	c := &Call{Tool: t, Raw: raw}
	if t.Decode != nil {
		a, err := t.Decode(raw)
		if err != nil {
			var ve *args.ValidationError
			if errors.As(err, &ve) {
				return args.Failure[any](ve), nil
			}
			return result.Result[any]{}, err
		}
		c.Args = a
	}
	h := t.Handler
	r.mu.RLock()
	for i := len(r.mw) - 1; i >= 0; i-- {
		h = r.mw[i](h)
	}
	r.mu.RUnlock()
	res, err := h(ctx, c)
	if err != nil {
		return result.Result[any]{}, err
	}
	return result.Apply(r.opts.Instructions, res), nil
}

// ToolOptions describe a typed tool built by Func.
type ToolOptions struct {
	Title       string
	Doc         string
	Annotations Annotations
	Prefix      *string
	Example     string
	Timeout     time.Duration
}

// Func builds a Tool from a typed function; schemas and description come
// from A (and R when it is a struct).
func Func[A, R any](name string, fn func(ctx context.Context, a A) (result.Result[R], error), o ToolOptions) (*Tool, error) {
	in, err := args.SchemaFor[A]()
	if err != nil {
		return nil, fmt.Errorf("registry: tool %q: %w", name, err)
	}
	desc, err := args.Describe[A](o.Doc)
	if err != nil {
		return nil, fmt.Errorf("registry: tool %q: %w", name, err)
	}
	dec := args.DecodeOptions{}
	return &Tool{
		Name: name, Title: o.Title, Description: desc, InputSchema: in,
		Annotations: o.Annotations, Prefix: o.Prefix, Example: o.Example, Timeout: o.Timeout,
		Source: SourceLocal,
		Decode: func(raw json.RawMessage) (any, error) { return args.Decode[A](raw, dec) },
		Handler: func(ctx context.Context, c *Call) (result.Result[any], error) {
			res, err := fn(ctx, c.Args.(A))
			return res.Any(), err
		},
	}, nil
}
