package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

// ToolOptions describe a typed tool built by Func or declared with Declare.
// The zero value gives an untitled tool without annotations, using the
// registry's default prefix, timeout and the args package's default decode
// bounds.
type ToolOptions struct {
	// Title is a short human-readable title.
	Title string
	// Doc is the tool's documentation text; the description is Doc followed
	// by the arguments' schema Markdown (args.Describe). Go has no runtime
	// docstrings, so the text is passed in. Use the undecorated tool name in
	// it: the prefix is an implementation detail.
	Doc string
	// Description, when non-empty, is the tool's whole description, used as
	// it is instead of Doc and the arguments' Markdown (for a tool whose
	// wording is fixed by a specification; the arguments are still
	// documented in the input schema).
	Description string
	// Annotations are the MCP hints.
	Annotations Annotations
	// Prefix overrides the registry's default prefix when non-nil; a pointer
	// to "" disables prefixing for this tool.
	Prefix *string
	// Example is an example call, for introspection.
	Example string
	// Timeout, when positive, bounds each call of this tool.
	Timeout time.Duration
	// Inline runs the handler on the caller's goroutine (see Tool.Inline):
	// for a fast handler, or one that returns promptly when its context
	// is done.
	Inline bool
	// Decode bounds this tool's argument decoding; zero fields take the args
	// package's defaults, negative ones are refused (ErrInvalidTool).
	Decode args.DecodeOptions
	// Errors declares the error types the tool's failures may carry beyond
	// the result package's own, with their HTTP statuses (Tool.Errors).
	Errors []ErrorSpec
	// FieldErrorTypes maps top-level arguments to the error type a failed
	// validation of them takes (Tool.FieldErrorTypes).
	FieldErrorTypes map[string]result.ErrorType
	// TraceArgs names the top-level arguments whose values tracing may
	// record on the call's span (Tool.TraceArgs).
	TraceArgs []string
}

// Func builds a Tool from a typed function. The input schema, the argument
// Markdown and the description come from A (args.SchemaFor, args.Describe).
// The output schema is R's (args.OutputSchemaOf: what encoding/json writes
// for an R, so a *T result has T's schema and nil collections are null),
// for every R but interfaces (any) and json.RawMessage, and every
// successful value is checked before it leaves the pipeline
// (Tool.CheckOutput, args.ValidateOutputOf, which agrees with that schema).
// Raw arguments are decoded with args.Decode into an A.
//
// When A has an args.Consent field (seed 004 "Explicit Use Pattern"), the
// description carries the "REQUIRES EXPLICIT USER INSTRUCTION" warning (added
// by args.Describe) and Annotations.Destructive defaults to true unless o
// states it.
//
// Errors name the tool: an invalid undecorated name (ErrInvalidName), a nil
// fn, a negative ToolOptions.Timeout or Decode cap (ErrInvalidTool, naming
// the field), or a schema the args package cannot build (such as an
// unsupported validate tag).
func Func[A, R any](name string, fn func(ctx context.Context, a A) (result.Result[R], error), o ToolOptions) (*Tool, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: tool %q: function is nil", ErrInvalidTool, name)
	}
	if o.Timeout < 0 {
		return nil, fmt.Errorf("%w: tool %q: ToolOptions.Timeout is %s; expected zero (none) or a positive duration", ErrInvalidTool, name, o.Timeout)
	}
	if o.Decode.MaxBytes < 0 {
		return nil, fmt.Errorf("%w: tool %q: ToolOptions.Decode.MaxBytes is %d; expected zero (args.DefaultMaxBytes) or a positive number of bytes", ErrInvalidTool, name, o.Decode.MaxBytes)
	}
	if o.Decode.MaxDepth < 0 {
		return nil, fmt.Errorf("%w: tool %q: ToolOptions.Decode.MaxDepth is %d; expected zero (args.DefaultMaxDepth) or a positive number of levels", ErrInvalidTool, name, o.Decode.MaxDepth)
	}
	in, err := args.SchemaFor[A]()
	if err != nil {
		return nil, fmt.Errorf("registry: tool %q: input schema: %w", name, err)
	}
	desc := o.Description
	if desc == "" {
		var err error
		if desc, err = args.Describe[A](o.Doc); err != nil {
			return nil, fmt.Errorf("registry: tool %q: description: %w", name, err)
		}
	}
	md, err := args.Markdown[A]()
	if err != nil {
		return nil, fmt.Errorf("registry: tool %q: arguments Markdown: %w", name, err)
	}
	ta, tr := reflect.TypeFor[A](), reflect.TypeFor[R]()
	t := &Tool{
		Name:        name,
		Title:       o.Title,
		Description: desc,
		InputSchema: in,
		Annotations: o.Annotations,
		Prefix:      o.Prefix,
		Source:      SourceLocal,
		Usage: Usage{
			Signature: fmt.Sprintf("%s(ctx context.Context, a %s) (result.Result[%s], error)", name, ta, tr),
			Args:      md,
			Returns:   fmt.Sprintf("result.Result[%s]", tr),
			Example:   o.Example,
		},
		Errors:          slices.Clone(o.Errors),
		TraceArgs:       slices.Clone(o.TraceArgs),
		FieldErrorTypes: maps.Clone(o.FieldErrorTypes),
		Timeout:         o.Timeout,
		Inline:          o.Inline,
	}
	if _, ok := args.ConsentPhrase(ta); ok && t.Annotations.Destructive == nil {
		t.Annotations.Destructive = new(true)
	}
	if hasOutputSchema(tr) {
		out, err := args.OutputSchemaOf(tr)
		if err != nil {
			return nil, fmt.Errorf("registry: tool %q: output schema: %w", name, err)
		}
		t.OutputSchema = out
		t.CheckOutput = func(v any) error { return args.ValidateOutputOf(tr, v) }
	}
	dec := o.Decode
	t.Decode = func(raw json.RawMessage) (any, error) {
		a, err := args.Decode[A](raw, dec)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	t.Handler = func(ctx context.Context, c *Call) (result.Result[any], error) {
		a, ok := c.Args.(A)
		if !ok {
			return result.Result[any]{}, fmt.Errorf("registry: tool %q: arguments are %T; expected %s (was Call.Args replaced by a middleware?)", c.Tool.Name, c.Args, ta)
		}
		res, err := fn(ctx, a)
		if err != nil {
			return result.Result[any]{}, err
		}
		return res.Any(), nil
	}
	return t, nil
}

// hasOutputSchema reports whether a result type says what its values look
// like: every supported type but interfaces (any) and json.RawMessage,
// whose values can be any JSON.
func hasOutputSchema(t reflect.Type) bool {
	return t.Kind() != reflect.Interface && t != reflect.TypeFor[json.RawMessage]()
}

// errNilFunc is recorded by DeclareIn for a nil function.
var errNilFunc = errors.New("function is nil")
