package steptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

// Defaults of Options.
const (
	// DefaultMaxTools is the number of compiled tools kept when
	// Options.MaxTools is zero.
	DefaultMaxTools = 256
	// DefaultMaxArgsBytes caps the arguments when Options.MaxArgsBytes is
	// zero.
	DefaultMaxArgsBytes = 1 << 20
)

// ErrTypeOutputMismatch is the error type of a failed Result whose last
// step answered a value that does not match the tool's outputSchema. Its
// ErrorData is a []catalogue.Violation. It is the same error type
// package httptool uses for its tools.
const ErrTypeOutputMismatch = catalogue.ErrTypeOutputMismatch

// Sentinel errors of the error Invoke and New return.
var (
	// ErrInvalidTool: the tool is not a steps tool, or its definition
	// breaks the catalogue's rules (catalogue.ToolSpec.Validate; the
	// catalogue.ErrInvalid it reports is wrapped too).
	ErrInvalidTool = errors.New("steptool: invalid tool")
	// ErrInvalidOptions is wrapped by every error New returns.
	ErrInvalidOptions = errors.New("steptool: invalid options")
)

// Options configure an Invoker.
type Options struct {
	// Tools runs each step; required. In a host it is the
	// *registry.Registry, so that a step may call any registry tool (a Go
	// tool, a pack's tool, another catalogue tool, a snippet) and passes
	// the whole pipeline (argument validation, middleware, statistics).
	Tools snippet.Invoker
	// MaxTools caps the compiled tools kept (parsed body, argument
	// defaults, compiled output schema); the least recently used is
	// dropped beyond it. Zero means DefaultMaxTools.
	MaxTools int
	// MaxArgsBytes caps the arguments of a call. Zero means
	// DefaultMaxArgsBytes.
	MaxArgsBytes int64
	// Logger receives one Debug record per call (Warn when it fails):
	// the tool, its version, the duration and a failure's error type,
	// never arguments, values or a failure's text (which may quote them).
	// Nil means no logging.
	Logger *slog.Logger
}

// Invoker runs catalogue tools of type "steps". It has the shape of
// catalogueapi.Invoker. It is safe for concurrent use.
type Invoker struct {
	tools   snippet.Invoker
	maxArgs int64
	max     int
	log     *slog.Logger

	cache *lru.Cache[cacheKey, *entry] // compiled tools, least recently used dropped first
}

type cacheKey struct {
	id       uuid.UUID
	version  string
	modified int64 // ModifiedAt in Unix nanoseconds: a rewritten body compiles anew
}

// entry is a compiled tool.
type entry struct {
	key      cacheKey
	body     *snippet.Snippet
	defaults map[string]any // argument defaults, as JSON data
	out      *jsonschema.Schema
}

// New returns an Invoker. It fails, wrapping ErrInvalidOptions, without
// Options.Tools or on a negative MaxTools or MaxArgsBytes.
func New(opts Options) (*Invoker, error) {
	var errs []error
	if opts.Tools == nil {
		errs = append(errs, fmt.Errorf("%w: Tools is nil; expected the Invoker that runs each step (a *registry.Registry)", ErrInvalidOptions))
	}
	if opts.MaxTools < 0 {
		errs = append(errs, fmt.Errorf("%w: MaxTools is %d; expected zero (default) or positive", ErrInvalidOptions, opts.MaxTools))
	}
	if opts.MaxArgsBytes < 0 {
		errs = append(errs, fmt.Errorf("%w: MaxArgsBytes is %d; expected zero (default) or positive", ErrInvalidOptions, opts.MaxArgsBytes))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	inv := &Invoker{tools: opts.Tools, maxArgs: opts.MaxArgsBytes, max: opts.MaxTools, log: opts.Logger}
	if inv.maxArgs == 0 {
		inv.maxArgs = DefaultMaxArgsBytes
	}
	if inv.max == 0 {
		inv.max = DefaultMaxTools
	}
	if inv.log == nil {
		inv.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if inv.cache, err = lru.New[cacheKey, *entry](inv.max); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return inv, nil
}

// Invoke runs a steps tool with args (a JSON object already validated
// against the tool's argSchema; it is decoded again defensively). Each
// argument the call leaves out takes its property's "default"; the body's
// placeholders take the arguments; each step is one Invoke of
// Options.Tools, in order, and the tool's Result is the last step's.
//
//   - Arguments that are not a JSON object, or are over MaxArgsBytes, are a
//     failed Result of type validation_error; no step runs.
//   - A step that fails stops the sequence: the Result is the step's
//     failure (its error type and data kept) with the error text
//     `steps "name": line N: tool failed: …`, name being the tool as
//     its caller called it (catalogue.CalledAs: the registry name
//     cataloguehost gives each call, else slug@version).
//   - A reference an earlier result cannot satisfy, or steps tools and
//     snippets calling each other more than snippet.MaxNesting deep (a
//     tool calling itself), is a failure of type snippet.ErrorType.
//   - A last value that does not match the tool's outputSchema is a
//     failure of type ErrTypeOutputMismatch naming the JSON Pointer and
//     keyword of each violation, never the value.
//
// A step calling a tool the registry does not serve is a failure of type
// unavailable naming the line (step names are resolved as the registry
// resolves an alias's target: undecorated names reach their tools under a
// prefix).
//
// The error is non-nil for a tool that cannot run as defined
// (ErrInvalidTool), for a step's other protocol errors (an output that
// breaks its schema, …, wrapped and naming the line) and when ctx ends: the sequence stops
// before the next step, and errors.Is(err, context.Canceled) (or
// DeadlineExceeded) holds.
func (inv *Invoker) Invoke(ctx context.Context, tool catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	if tool.Type != catalogue.TypeSteps || tool.StepsImpl == nil {
		return result.Result[any]{}, fmt.Errorf("%w: tool %q has type %q; expected %q with a stepsImpl", ErrInvalidTool, tool.Slug, tool.Type, catalogue.TypeSteps)
	}
	e, err := inv.entryFor(&tool)
	if err != nil {
		return result.Result[any]{}, err
	}
	start := time.Now()
	res, err := inv.call(ctx, e, catalogue.CalledAs(ctx, tool.Key()), args)
	level := slog.LevelDebug
	if err != nil || !res.Success {
		level = slog.LevelWarn
	}
	if inv.log.Enabled(ctx, level) {
		attrs := []slog.Attr{slog.String("tool", tool.Slug), slog.String("version", tool.Version),
			slog.Duration("duration", time.Since(start))}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		} else if !res.Success {
			// The type only: a failure's text may quote a step's answer
			// or arguments (the caller reads it; the log must not).
			attrs = append(attrs, slog.String("error_type", string(res.ErrorType)))
		}
		inv.log.LogAttrs(ctx, level, "catalogue steps tool call", attrs...)
	}
	return res, err
}

// call runs the entry's body; name is the tool as the caller knows it
// (catalogue.CalledAs), for the errors.
func (inv *Invoker) call(ctx context.Context, e *entry, name string, raw json.RawMessage) (result.Result[any], error) {
	if int64(len(raw)) > inv.maxArgs {
		return result.Failuref[any](result.ValidationError, "arguments: %d bytes; expected at most %d", len(raw), inv.maxArgs), nil
	}
	vals, err := decodeArgs(raw)
	if ve, ok := errors.AsType[*args.ValidationError](err); ok {
		return args.Failure[any](ve), nil // every field, as the registry's own refusal
	}
	if err != nil {
		return result.Failure[any]("arguments: "+err.Error(), result.ValidationError), nil
	}
	for name, d := range e.defaults {
		if _, given := vals[name]; !given {
			vals[name] = d
		}
	}
	res, err := e.body.Named(name).RunChecked(ctx, inv.tools, vals)
	if err != nil || !res.Success || e.out == nil {
		return res, err
	}
	data, err := jsonData(res.Value)
	if err != nil {
		return result.Result[any]{}, fmt.Errorf("steps tool %q: the last step's value cannot be read as JSON: %w", name, err)
	}
	if err := catalogue.ValidateValue(e.out, data); err != nil {
		return catalogue.OutputMismatch(fmt.Sprintf("steps tool %q: the last step's value", name), err), nil
	}
	return res, nil
}

// decodeArgs reads a JSON object (empty means {}), numbers as
// json.Number. Text that is not UTF-8 is refused naming the field (JSON
// must be UTF-8; encoding/json would make U+FFFD of the bytes).
func decodeArgs(raw []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	if ve := args.CheckUTF8(raw); ve != nil {
		return nil, ve
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errors.New("expected a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("expected one JSON object, got more data after it")
	}
	return m, nil
}

// jsonData is a value as JSON data (what a schema validates): a Go
// struct is read through its JSON form.
func jsonData(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// compile checks the tool against every catalogue rule and builds its
// entry. Errors wrap ErrInvalidTool.
func compile(tool *catalogue.Tool) (*entry, error) {
	label := tool.Slug + "@" + tool.Version
	if err := tool.ToolSpec.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidTool, label, err)
	}
	body, sp, err := catalogue.ParseSteps(label, tool.ToolSpec)
	if err != nil { // Validate has parsed it already
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidTool, label, err)
	}
	e := &entry{key: keyOf(tool), body: body, defaults: make(map[string]any, len(sp.Defaults))}
	for name, raw := range sp.Defaults {
		d, err := decodeData(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: argSchema.properties[%q].default: %w", ErrInvalidTool, label, name, err)
		}
		e.defaults[name] = d
	}
	if len(tool.OutputSchema) > 0 && !bytes.Equal(bytes.TrimSpace(tool.OutputSchema), []byte("null")) {
		if e.out, err = catalogue.CompileSchema(tool.OutputSchema); err != nil {
			return nil, fmt.Errorf("%w: %s: outputSchema: %w", ErrInvalidTool, label, err)
		}
	}
	return e, nil
}

// decodeData reads one JSON value (a default of the argSchema), numbers
// as json.Number; data after it is refused.
func decodeData(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("expected one JSON value, got more data after it")
	}
	return v, nil
}

func keyOf(tool *catalogue.Tool) cacheKey {
	return cacheKey{tool.ID, tool.Version, tool.ModifiedAt.UnixNano()}
}

// entryFor returns the cached entry of a tool, compiling it on first use.
// A tool version's body does not change after its PUT, so the tool's ID,
// Version and ModifiedAt key it.
func (inv *Invoker) entryFor(tool *catalogue.Tool) (*entry, error) {
	k := keyOf(tool)
	if e, ok := inv.cache.Get(k); ok {
		return e, nil
	}
	// Compile outside any lock: other tools' calls must not wait for a
	// schema to compile.
	e, err := compile(tool)
	if err != nil {
		return nil, err
	}
	if prev, ok, _ := inv.cache.PeekOrAdd(k, e); ok { // another call compiled it meanwhile
		return prev, nil
	}
	return e, nil
}

// Cached reports how many tools have a compiled entry (at most MaxTools).
func (inv *Invoker) Cached() int { return inv.cache.Len() }
