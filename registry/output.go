package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

// refusingLoader refuses every external reference: an output schema must be
// self-contained, and compiling one must never read files or the network.
type refusingLoader struct{}

// Load refuses url with an error naming it.
func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %q is not allowed; output schemas must be self-contained", url)
}

// compileOutputSchema compiles an output schema once; the result is cached on
// the Tool by the caller.
func compileOutputSchema(name string, src json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("OutputSchema is not valid JSON: %w", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if _, isBool := doc.(bool); !isBool {
			return nil, errors.New("OutputSchema: expected a JSON object (or boolean) schema")
		}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refusingLoader{})
	url := "mem://toolpack/" + name + "/output.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("OutputSchema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("OutputSchema does not compile: %w", err)
	}
	return s, nil
}

// validateOutput checks v against s. It marshals v once and reads it back in
// the schema library's form (numbers kept exact).
func validateOutput(s *jsonschema.Schema, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("value cannot be marshalled to JSON: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("value marshals to invalid JSON: %w", err)
	}
	return s.Validate(doc)
}

// outputSchemas memoises outputSchemaOf per result type. Like the args
// package's schema cache it holds a pure function of a Go type, so it
// never changes an answer; it spares a catalogue of thousands of tools
// of one result type a decode and re-encode of the same schema per tool.
var outputSchemas sync.Map // reflect.Type → *outputSchema

type outputSchema struct {
	once sync.Once
	s    json.RawMessage
	err  error
}

// outputSchemaOf is the output schema Func declares for the struct type
// t: args.SchemaOf(t) with optional collections made nullable. Every tool
// of one result type shares the returned bytes, as they share the input
// schema args.SchemaFor returns; neither may be modified.
func outputSchemaOf(t reflect.Type) (json.RawMessage, error) {
	v, ok := outputSchemas.Load(t)
	if !ok {
		v, _ = outputSchemas.LoadOrStore(t, &outputSchema{})
	}
	o := v.(*outputSchema)
	o.once.Do(func() {
		s, err := args.SchemaOf(t)
		if err == nil {
			s, err = nullableCollections(s)
		}
		o.s, o.err = s, err
	})
	return o.s, o.err
}

// nullableCollections adapts a schema generated from a Go result type to
// what encoding/json writes for it: a nil slice or map is written as null,
// so every array or map property that is not required also accepts null
// (the validator accepts a nil slice or map unless the field is required).
// Numbers are kept exact.
func nullableCollections(src json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	markNullable(doc)
	return json.Marshal(doc)
}

// markNullable walks a schema, widening the type of optional array and map
// properties to also accept null.
func markNullable(node any) {
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	if props, ok := m["properties"].(map[string]any); ok {
		required := map[string]bool{}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		for name, p := range props {
			ps, ok := p.(map[string]any)
			if !ok || required[name] {
				continue
			}
			_, hasProps := ps["properties"]
			switch ps["type"] {
			case "array":
				ps["type"] = []any{"array", "null"}
			case "object":
				if !hasProps {
					ps["type"] = []any{"object", "null"}
				}
			}
		}
	}
	for _, v := range m {
		switch v := v.(type) {
		case map[string]any:
			markNullable(v)
			for _, p := range v {
				markNullable(p)
			}
		case []any:
			for _, e := range v {
				markNullable(e)
			}
		}
	}
}

// outputStage returns the tool's handler wrapped in output validation:
// Tool.CheckOutput when set, else the compiled OutputSchema. Tools without
// either pay nothing.
func outputStage(e *entry) Handler {
	h, name := e.tool.Handler, e.tool.Name
	if check := e.tool.CheckOutput; check != nil {
		return func(ctx context.Context, c *Call) (result.Result[any], error) {
			res, err := h(ctx, c)
			if err != nil || !res.Success {
				return res, err
			}
			if verr := check(res.Value); verr != nil {
				return result.Result[any]{}, fmt.Errorf("%w: tool %q: %w", ErrInvalidOutput, name, verr)
			}
			return res, nil
		}
	}
	s := e.out
	if s == nil {
		return h
	}
	return func(ctx context.Context, c *Call) (result.Result[any], error) {
		res, err := h(ctx, c)
		if err != nil || !res.Success {
			return res, err
		}
		if verr := validateOutput(s, res.Value); verr != nil {
			return result.Result[any]{}, fmt.Errorf("%w: tool %q: %w", ErrInvalidOutput, name, verr)
		}
		return res, nil
	}
}
