package cataloguehost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/result"
)

// Funcs holds the Go functions that catalogue tools of type "go" name in
// goImpl.func. It is a registry.Adder, so a function is added the way a
// pack's tools are:
//
//	funcs := cataloguehost.NewFuncs()
//	err := registry.AddFunc(funcs, "add", add, registry.ToolOptions{Description: "Adds a and b"})
//
// A call runs the function's whole pipeline: strict decoding and
// validation of its argument struct, the handler, the check of its
// result. Funcs is safe for concurrent use; add functions before serving.
type Funcs struct {
	reg *registry.Registry
}

// NewFuncs returns an empty set of functions.
func NewFuncs() *Funcs {
	return &Funcs{reg: registry.New(registry.Options{})}
}

// Add registers functions under their names (Tool.Name, no prefix), all
// or nothing; a name already added is an error wrapping
// registry.ErrNameClash.
func (f *Funcs) Add(tools ...*registry.Tool) error {
	cp := make([]*registry.Tool, len(tools))
	for i, t := range tools {
		if t != nil {
			c := *t
			c.Prefix = new("")
			cp[i] = &c
		}
	}
	return f.reg.Add(cp...)
}

// Has reports whether a function of that name is registered.
func (f *Funcs) Has(name string) bool {
	_, ok := f.reg.Lookup(name)
	return ok
}

// Names lists the registered functions, sorted.
func (f *Funcs) Names() []string {
	ts := f.reg.List()
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// Invoke runs function name with raw arguments.
func (f *Funcs) Invoke(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error) {
	return f.reg.Invoke(ctx, name, raw)
}

// Spec returns the definition of a catalogue tool of type "go" that runs
// function name: its argument and output schemas are the function's, its
// description the function's unless description is given. Use it to
// declare built-ins (catalogue.BuiltInTool.Spec) or to PUT a go tool
// whose schema matches its function.
func (f *Funcs) Spec(name, displayName, description string, tags ...string) (catalogue.ToolSpec, error) {
	t, ok := f.reg.Lookup(name)
	if !ok {
		return catalogue.ToolSpec{}, fmt.Errorf("cataloguehost: no function %q registered; registered: %s", name, strings.Join(f.Names(), ", "))
	}
	if description == "" {
		description = t.Description
	}
	return catalogue.ToolSpec{DisplayName: displayName, Description: description, Tags: tags, IsEnabled: true,
		Type: catalogue.TypeGo, ArgSchema: t.InputSchema, OutputSchema: t.OutputSchema,
		GoImpl: &catalogue.GoImpl{Func: name}}, nil
}

// Invoker runs a catalogue tool; the shape of catalogueapi.Invoker.
type Invoker interface {
	// Invoke runs tool with args, a JSON object valid against its
	// argSchema.
	Invoke(ctx context.Context, tool catalogue.Tool, args json.RawMessage) (result.Result[any], error)
}

// ErrTypeOutputMismatch is the error type of a go tool whose value does
// not match the tool's outputSchema (its ErrorData lists the
// catalogue.Violations).
const ErrTypeOutputMismatch = catalogue.ErrTypeOutputMismatch

// Dispatcher runs catalogue tools by type: "go" through Funcs, "http"
// through HTTP, any other type through Types. It implements
// catalogueapi.Invoker.
type Dispatcher struct {
	// Funcs runs go tools; nil makes them unavailable.
	Funcs *Funcs
	// HTTP runs http tools (an *httptool.Invoker); nil makes them
	// unavailable.
	HTTP Invoker
	// Types runs tools of further types (such as multi-step tools).
	Types map[catalogue.ToolType]Invoker

	schemas catalogue.SchemaCache // compiled outputSchemas of go tools
}

// Invoke runs tool. A type with no runner, or a go tool whose function is
// not registered, is a failed Result of type unavailable (the store
// reports such tools disabled, so this happens only in a race with a
// change). A go tool's value is checked against the tool's outputSchema:
// a mismatch is a failed Result of type output_mismatch naming the path.
func (d *Dispatcher) Invoke(ctx context.Context, tool catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	switch tool.Type {
	case catalogue.TypeGo:
		if d.Funcs == nil || tool.GoImpl == nil || !d.Funcs.Has(tool.GoImpl.Func) {
			fn := ""
			if tool.GoImpl != nil {
				fn = tool.GoImpl.Func
			}
			return result.Failure[any](fmt.Sprintf("the Go function %q of tool %s is not registered with this host", fn, catalogue.CalledAs(ctx, tool.Key())),
				result.Unavailable), nil
		}
		res, err := d.Funcs.Invoke(ctx, tool.GoImpl.Func, args)
		if err != nil || !res.Success {
			return res, err
		}
		return d.checkOutput(&tool, res)
	case catalogue.TypeHTTP:
		if d.HTTP == nil {
			return result.Failure[any]("this host runs no http tools", result.Unavailable), nil
		}
		return d.HTTP.Invoke(ctx, tool, args)
	}
	if inv, ok := d.Types[tool.Type]; ok && inv != nil {
		return inv.Invoke(ctx, tool, args)
	}
	return result.Failure[any](fmt.Sprintf("this host runs no tools of type %q", tool.Type), result.Unavailable), nil
}

func (d *Dispatcher) checkOutput(tool *catalogue.Tool, res result.Result[any]) (result.Result[any], error) {
	raw := bytes.TrimSpace(tool.OutputSchema)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return res, nil
	}
	s, err := d.schemas.Compile(raw)
	if err != nil {
		return result.Result[any]{}, fmt.Errorf("cataloguehost: tool %s@%s: stored outputSchema does not compile: %w", tool.Slug, tool.Version, err)
	}
	data, err := json.Marshal(res.Value)
	if err != nil {
		return result.Result[any]{}, fmt.Errorf("cataloguehost: tool %s@%s: value does not marshal: %w", tool.Slug, tool.Version, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return result.Result[any]{}, fmt.Errorf("cataloguehost: tool %s@%s: value does not decode: %w", tool.Slug, tool.Version, err)
	}
	if err := catalogue.ValidateValue(s, inst); err != nil {
		return catalogue.OutputMismatch("the value", err), nil
	}
	return res, nil
}

var errNoStore = errors.New("cataloguehost: Options.Store is required")
