package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/jsonnum"
	"github.com/toolpack-go/toolpack/internal/jsonptr"
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
	if ptr, bad := jsonnum.Unreadable(doc); bad {
		return nil, fmt.Errorf("OutputSchema: at %q: expected %s", ptr, jsonnum.Expected)
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
// the schema library's form (numbers kept exact). Errors are
// []Violation-shaped: see outputError.
func validateOutput(s *jsonschema.Schema, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return errMarshal{err}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return errMarshal{err}
	}
	if ptr, bad := jsonnum.Unreadable(doc); bad {
		// Not given to the validator, which reads every number it
		// compares exactly (see internal/jsonnum).
		return &numberError{ptr: ptr}
	}
	return s.Validate(doc)
}

// numberError is a number of a value that is not given to the validator
// (see internal/jsonnum): its pointer.
type numberError struct{ ptr string }

func (e *numberError) Error() string {
	return "at " + strconv.Quote(e.ptr) + ": expected " + jsonnum.Expected
}

// errMarshal marks a value that does not marshal to JSON.
type errMarshal struct{ err error }

func (e errMarshal) Error() string { return "value cannot be marshalled to JSON: " + e.err.Error() }
func (e errMarshal) Unwrap() error { return e.err }

// Violation is one way a tool's value breaks its output rules: where, and
// which rule. It never holds the value, which may carry secrets.
type Violation struct {
	// Location is a JSON Pointer to the offending part of the value ("" for
	// the whole value), e.g. "/items/2/name".
	Location string
	// Rule is the schema keyword or validate rule that failed ("minimum",
	// "required", "enum", "max", …), or "json" when the value cannot be
	// marshalled at all.
	Rule string
}

// OutputError reports a successful value that breaks its tool's output
// schema (or CheckOutput). It is a protocol failure: errors.Is(err,
// ErrInvalidOutput) holds. Its text names the tool, and every violation's
// location and rule — never the value, so it is safe to log; the
// underlying check's own error (which may quote the value) is available
// with errors.As or Unwrap for a program that needs it.
type OutputError struct {
	// Tool is the tool's final name.
	Tool string
	// Violations lists every violation found, in the order found.
	Violations []Violation
	// Err is the check's own error.
	Err error
}

// Error returns "registry: output does not match the output schema: tool
// {name}: {location}: {rule}; …".
func (e *OutputError) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalidOutput.Error())
	b.WriteString(": tool ")
	b.WriteString(strconv.Quote(e.Tool))
	for i, v := range e.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if v.Location == "" {
			b.WriteString("(value)")
		} else {
			b.WriteString(v.Location)
		}
		b.WriteString(": ")
		b.WriteString(v.Rule)
	}
	return b.String()
}

// Is reports whether target is ErrInvalidOutput.
func (e *OutputError) Is(target error) bool { return target == ErrInvalidOutput }

// Unwrap returns the check's own error.
func (e *OutputError) Unwrap() error { return e.Err }

// outputError describes err, an error of an output check, without values.
func outputError(tool string, err error) *OutputError {
	oe := &OutputError{Tool: tool, Err: err}
	var ve *jsonschema.ValidationError
	var ae *args.ValidationError
	var me errMarshal
	var ne *numberError
	switch {
	case errors.As(err, &me):
		oe.Violations = []Violation{{Rule: "json"}}
	case errors.As(err, &ne):
		oe.Violations = []Violation{{Location: ne.ptr, Rule: "number"}}
	case errors.As(err, &ve):
		schemaLeaves(ve, &oe.Violations)
	case errors.As(err, &ae):
		for _, fe := range ae.Errors {
			oe.Violations = append(oe.Violations, Violation{Location: pointerOf(fe.Field), Rule: fe.Rule})
		}
	}
	if len(oe.Violations) == 0 {
		oe.Violations = []Violation{{Rule: "check"}}
	}
	return oe
}

// schemaLeaves appends the innermost errors of a schema validation: they
// name the keywords that failed where they failed.
func schemaLeaves(e *jsonschema.ValidationError, out *[]Violation) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			schemaLeaves(c, out)
		}
		return
	}
	rule := "schema"
	if e.ErrorKind != nil {
		if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
			rule = kp[len(kp)-1]
		}
	}
	*out = append(*out, Violation{Location: jsonptr.FromTokens(e.InstanceLocation), Rule: rule})
}

// pointerOf turns an args field path ("filter.tags[2]", "m[key]") into a
// JSON Pointer ("/filter/tags/2", "/m/key").
func pointerOf(path string) string {
	if path == "" {
		return ""
	}
	var b strings.Builder
	seg := func(s string) {
		b.WriteByte('/')
		b.WriteString(jsonptr.Escape(s))
	}
	start := 0
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '.':
			if i > start {
				seg(path[start:i])
			}
			start = i + 1
		case '[':
			if i > start {
				seg(path[start:i])
			}
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				seg(path[i+1:])
				return b.String()
			}
			seg(path[i+1 : i+end])
			i += end
			start = i + 1
		}
	}
	if start < len(path) {
		seg(path[start:])
	}
	return b.String()
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
				return result.Result[any]{}, outputError(name, verr)
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
			return result.Result[any]{}, outputError(name, verr)
		}
		return res, nil
	}
}
