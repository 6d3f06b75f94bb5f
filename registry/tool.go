package registry

import (
	"context"
	"encoding/json"
	"time"

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

// Tool is one callable tool: what a model is shown (name, title,
// description, schemas, hints), where it comes from (pack, source), how a
// person reads it (Usage, Errors) and how it runs (Timeout, Decode,
// CheckOutput, Handler). It is plain data: build one with Func or by hand,
// and read the registered copy with Registry.Lookup or List.
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
	// OutputSchema, when set, is the JSON Schema of a successful value.
	// Unless CheckOutput is set, every successful value is checked against
	// it before it leaves the pipeline; it is compiled once, at
	// registration.
	OutputSchema json.RawMessage
	// Annotations are the MCP hints.
	Annotations Annotations
	// Pack is the name of the pack the tool belongs to, if any.
	Pack string
	// Source is SourceLocal or "proxy:{server}"; empty means local (the
	// Registry stores SourceLocal).
	Source string
	// Usage is introspection text for people and for tools that describe
	// tools (signature, arguments, returns, an example call).
	Usage Usage
	// Errors declares the error types the tool's failures may carry beyond
	// the result package's own, each with the HTTP status a REST adapter
	// answers it with.
	Errors []ErrorSpec
	// FieldErrorTypes gives a failed argument validation a contract's own
	// error type instead of validation_error: when the problems include
	// one of these top-level arguments (JSON names, properties of
	// InputSchema), the failure takes the type of the first such argument
	// in the order the problems are listed; its error_data still lists
	// the problems (every one, or past args.MaxFieldErrors the first ones
	// and every top-level argument's). Declare each type in Errors (with
	// its HTTP status).
	FieldErrorTypes map[string]result.ErrorType
	// TraceArgs names the top-level arguments (JSON names, properties of
	// InputSchema) whose values a tracing middleware may record as span
	// attributes. By default no argument value leaves the call: name only
	// arguments that never carry secrets or personal data.
	TraceArgs []string
	// Timeout, when positive, bounds each call of this tool.
	Timeout time.Duration
	// Via are the IDs of the registries a tool served by another host came
	// through, the one nearest its origin first (set by adapters/mcpproxy
	// from the remote's listing). A server adapter lists them, then this
	// registry's ID, with the tool; a proxy finding its own registry's ID
	// among them does not serve the tool again — hosts proxying each other
	// would otherwise mirror each other's tools without end.
	Via []string
	// Calls names the tools the handler calls through this registry (a
	// snippet's steps): final names, undecorated names under a prefix or
	// aliases, as for Pin. Invoke holds them in the same instant it looks
	// the call up (Call.Pinned), with the tools their own Calls name, so
	// that a change made while the call runs — a reload between two of
	// its calls — neither takes one away nor swaps one for a new version
	// (or an alias for a new target) half-way. A call of such a tool
	// arriving while an Update runs waits for it to end (see Update).
	Calls []string
	// Inline runs the handler on the caller's goroutine. By default a call
	// that has a time limit or a cancellable context runs the handler on a
	// goroutine of its own, so that Invoke returns the moment the context
	// is done even when the handler ignores it; that hand-off costs about
	// a microsecond per call. A tool whose handler returns promptly once
	// its context is done (or is always fast) can set Inline to save it:
	// the deadline and cancellation still reach the handler through ctx,
	// and a handler that returns ctx's DeadlineExceeded still gives the
	// timeout failure, but Invoke waits for the handler to return.
	Inline bool
	// Disabled, when not empty, registers the tool switched off by its
	// source — a catalogue tool switched off in the catalogue —, saying
	// how to switch it on there. Such a tool is served as one switched off
	// with SetEnabled is: absent from List, Packs and Lookup, listed by
	// ListAll with IsEnabled false, and a call of it (or of an alias of it)
	// is a failed Result of type unavailable whose message names the tool
	// and ends with this text — not "unknown tool", since the user can
	// switch it on. SetEnabled cannot switch it on: its source registers
	// it again without Disabled.
	Disabled string
	// Decode, when set, decodes and validates raw arguments before the
	// middleware chain runs. It returns *args.ValidationError for bad input.
	Decode func(raw json.RawMessage) (any, error)
	// CheckOutput, when set, checks every successful value instead of the
	// compiled OutputSchema (a non-nil error is a protocol failure wrapping
	// ErrInvalidOutput). Func sets it to a check of the Go value against the
	// result type's rules, which agrees with the OutputSchema it generates
	// and costs no marshalling. Set it to nil after replacing OutputSchema
	// on such a tool, so that the new schema is compiled and used.
	CheckOutput func(value any) error
	// Handler runs the call.
	Handler Handler
}

// Annotations are the MCP tool hints. A nil pointer means "not stated", which
// MCP clients read as the protocol default. Set one with new: ReadOnly:
// new(true).
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

// Usage is a tool's introspection text.
type Usage struct {
	// Signature is the Go signature of a typed tool, e.g.
	// "greet(ctx context.Context, a main.GreetArgs) (result.Result[string], error)".
	Signature string
	// Args is the arguments' Markdown ("## Arguments" and one line per field).
	Args string
	// Returns names the result type, e.g. "result.Result[string]".
	Returns string
	// Example is an example call, e.g. `greet(name="Ada")`.
	Example string
}

// ErrorSpec declares one error type a tool's failures may carry.
type ErrorSpec struct {
	// Type is the failure's error_type.
	Type result.ErrorType
	// Status is the HTTP status a REST adapter answers with (400–599); 0
	// leaves the choice to the adapter.
	Status int
	// Description says when the tool reports it.
	Description string
}

// Call is one invocation as a Handler sees it.
type Call struct {
	// Tool is the registered tool (final name in Tool.Name).
	Tool *Tool
	// Raw is the arguments JSON as received. Handlers and middleware added
	// with Use see it after the size and depth caps and Tool.Decode passed
	// it; middleware added with UseOuter sees it before (ArgsChecked).
	Raw json.RawMessage
	// Args is the decoded, validated arguments value produced by Tool.Decode
	// (for example an A for a typed tool); nil when the tool has no Decode.
	Args any

	reg     *Registry   // the registry running the call, for Logger
	ctx     callContext // the handler's context; part of Call so it costs no allocation
	checked bool        // Raw passed the caps and Tool.Decode
	pinned  *Pinned     // Tool.Calls held at the lookup; nil without Calls
}

// Pinned is the registry as the call found it: Registry.Invoke's calls,
// with the tools Tool.Calls names held from the instant Invoke looked the
// call up (see Pin). A handler that calls those tools through it finishes
// on them whatever a reload changes meanwhile. Nil when the tool names no
// Calls or the call did not come through Invoke.
func (c *Call) Pinned() *Pinned {
	if c == nil {
		return nil
	}
	return c.pinned
}

// ArgsChecked reports whether the call's arguments passed the registry's
// size and depth caps and Tool.Decode. It is always true in handlers and in
// middleware added with Use; middleware added with UseOuter reads it after
// the call to tell a call refused for its arguments (false) from one that
// ran, before reading Raw itself.
func (c *Call) ArgsChecked() bool { return c != nil && c.checked }

// Handler runs a call. A domain failure is a failed Result with a nil error; a
// non-nil error is a protocol failure.
type Handler func(ctx context.Context, c *Call) (result.Result[any], error)

// Middleware wraps a Handler, net/http style.
type Middleware func(next Handler) Handler
