package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

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

// outputStage returns t.Handler, wrapped in output validation when t has a
// compiled output schema. Tools without one pay nothing.
func outputStage(t *Tool) Handler {
	h, s, name := t.Handler, t.out, t.Name
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
