package snippet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// PackName is the name of the pack Pack builds.
const PackName = "snippet"

// ToolPrefix starts the name of every snippet tool: snippet.{name}.
const ToolPrefix = PackName + "."

// MaxNameLen is the longest snippet name (120): its tool, snippet.{name},
// is then as long as a tool name may be (registry.MaxNameLen).
const MaxNameLen = registry.MaxNameLen - len(ToolPrefix)

// CheckName is the one rule for a snippet's name, used by Parse and by
// the host configuration (registry/hostconfig): 1 to MaxNameLen
// characters from [A-Za-z0-9_.-], exactly the names whose tool
// snippet.{name} the registry accepts (registry.ValidName). The error, a
// *ParseError wrapping ErrInvalid, names the snippet and says what is
// allowed; nil means the name is valid.
func CheckName(name string) error {
	if name != "" && registry.ValidName(ToolPrefix+name) {
		return nil
	}
	return &ParseError{Kind: KindSnippet, Snippet: name,
		Msg: fmt.Sprintf("the name must be 1 to %d characters from [A-Za-z0-9_.-] (the snippet is the tool %s{name})", MaxNameLen, ToolPrefix)}
}

// InputSchema returns the JSON Schema of the snippet's arguments: an
// object with one property per parameter (its description; for an
// optional one its default and the type inferred from it; a required one
// accepts any JSON value), the required parameters listed in "required",
// and additionalProperties false.
func (s *Snippet) InputSchema() json.RawMessage {
	type prop struct {
		Type        string `json:"type,omitempty"`
		Description string `json:"description,omitempty"`
		Default     any    `json:"default,omitempty"`
	}
	// The properties are written in the parameters' order (required ones
	// first, as in the signature), which a map would lose: clients list
	// the arguments in the schema's order.
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range s.params {
		pr := prop{Type: p.Type, Description: p.Description, Default: p.Default}
		switch {
		case p.Required:
			required = append(required, p.Name)
		case p.Default == nil:
			pr.Default = json.RawMessage("null") // NullDefault: say it, omitempty would not
		}
		if i > 0 {
			b.WriteByte(',')
		}
		mustEncode(&b, s.name, p.Name)
		b.WriteByte(':')
		mustEncode(&b, s.name, pr)
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":`)
		mustEncode(&b, s.name, required)
	}
	b.WriteString(`,"additionalProperties":false}`)
	return b.Bytes()
}

// mustEncode appends the JSON of v, which is JSON data and so always
// encodes.
func mustEncode(b *bytes.Buffer, name string, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("snippet %q: input schema: %v", name, err))
	}
	b.Write(raw)
}

// DecodeArguments reads a call's raw JSON arguments: an object whose keys
// are parameters, checked as Run checks values, with the defaults filled
// in. Bad input is a *args.ValidationError listing every problem (syntax,
// not an object, a key given twice, unknown, missing or mistyped
// parameters); the value is a map[string]any of JSON data.
func (s *Snippet) DecodeArguments(raw json.RawMessage) (map[string]any, error) {
	in, fe := decodeObject(raw)
	if fe != nil {
		return nil, &args.ValidationError{Errors: []args.FieldError{*fe}}
	}
	vals, ve := s.values(in)
	if ve != nil {
		return nil, ve
	}
	return vals, nil
}

// decodeObject reads a JSON object with numbers as json.Number, refusing
// duplicate keys and trailing data.
func decodeObject(raw []byte) (map[string]any, *args.FieldError) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	syntax := func(err error) *args.FieldError {
		msg := err.Error()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "they end too early"
		}
		return &args.FieldError{Rule: "syntax", Message: "the arguments are not valid JSON: " + msg}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &args.FieldError{Rule: "type", Message: "the arguments must be a JSON object"}
	}
	out := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		k, _ := tok.(string) // object keys are always strings
		if _, dup := out[k]; dup {
			return nil, &args.FieldError{Field: k, Rule: "duplicate", Message: "is given twice"}
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, syntax(err)
		}
		out[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &args.FieldError{Rule: "syntax", Message: "the arguments have data after the JSON object"}
	}
	return out, nil
}

// Tool returns the snippet as a tool named snippet.{name} (see
// ToolPrefix) that runs it through inv: its input schema is InputSchema,
// its description the snippet's description followed by the body, its
// Usage a signature, one line per parameter and an example call with the
// defaults. It is meant for a pack (Pack builds one).
func (s *Snippet) Tool(inv Invoker) *registry.Tool {
	var desc strings.Builder
	if s.def.Description != "" {
		desc.WriteString(s.def.Description)
		desc.WriteString("\n\n")
	}
	desc.WriteString("A snippet: runs these tool calls in order and returns the last call's result.\n\n```\n")
	desc.WriteString(strings.TrimRight(s.def.Body, "\n"))
	desc.WriteString("\n```")
	name := ToolPrefix + s.name
	sig, argLines := s.signature(name)
	calls := make([]string, len(s.prog.steps))
	for i, st := range s.prog.steps {
		calls[i] = st.tool
	}
	return &registry.Tool{
		Name:        name,
		Description: desc.String(),
		InputSchema: s.InputSchema(),
		Source:      registry.SourceLocal,
		Usage: registry.Usage{
			Signature: sig,
			Args:      argLines,
			Returns:   "the result of the last call (" + s.prog.steps[len(s.prog.steps)-1].tool + ")",
			Example:   s.exampleCall(name),
		},
		Errors: []registry.ErrorSpec{{Type: ErrorType, Description: "a reference names a field or element the earlier result does not have, or snippets run each other too deep"}},
		Decode: func(raw json.RawMessage) (any, error) { return s.DecodeArguments(raw) },
		Calls:  calls,
		Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			vals, ok := c.Args.(map[string]any)
			if !ok {
				return result.Result[any]{}, fmt.Errorf("%s: arguments are %T; expected the map DecodeArguments returns (was Call.Args replaced by a middleware?)", s.label(), c.Args)
			}
			return s.run(ctx, pinnedAtLookup(c, inv), vals)
		},
	}
}

// signature is the Python-style signature other introspected tools show
// (required parameters first, optional ones with their defaults) and one
// "name: description" line per parameter.
func (s *Snippet) signature(name string) (sig, lines string) {
	params := make([]string, len(s.params))
	ls := make([]string, len(s.params))
	for i, p := range s.params {
		t := map[string]string{"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict", "": "Any"}[p.Type]
		params[i] = p.Name + ": " + t
		if !p.Required {
			params[i] += " = " + compactJSON(p.Default)
		}
		d := strings.Join(strings.Fields(p.Description), " ")
		if d == "" {
			d = "(no description)"
		}
		ls[i] = p.Name + ": " + d
	}
	return name + "(" + strings.Join(params, ", ") + ")", strings.Join(ls, "\n")
}

// exampleCall is `snippet.name(req="<req>", opt=default)`.
func (s *Snippet) exampleCall(name string) string {
	parts := make([]string, len(s.params))
	for i, p := range s.params {
		v := compactJSON("<" + p.Name + ">")
		if !p.Required {
			v = compactJSON(p.Default)
		}
		parts[i] = p.Name + "=" + v
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// Pack parses every definition and returns pack "snippet" with one tool
// per snippet (Tool), sorted by name, running through inv. Every problem
// of every definition is reported (joined, in name order) and then no pack
// is returned: a host reloading its configuration keeps the previous pack
// (Registry.ReplacePack) until the definitions are fixed. No definitions
// give an empty pack.
func Pack(defs map[string]Definition, inv Invoker) (*registry.Pack, error) {
	if inv == nil {
		return nil, errors.New("snippet: Pack needs an Invoker (a *registry.Registry), got nil")
	}
	p := &registry.Pack{Name: PackName, Description: "Snippets: named sequences of tool calls from the host configuration."}
	var errs []error
	for _, name := range slices.Sorted(mapKeys(defs)) {
		s, err := Parse(name, defs[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.Tools = append(p.Tools, s.Tool(inv))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// pinnedAtLookup is inv, or, when inv is the registry running c, the
// registry as c found it (Call.Pinned): the steps' tools held from the
// instant the snippet was looked up, so that a reload landing before the
// handler starts cannot take one of them away.
func pinnedAtLookup(c *registry.Call, inv Invoker) Invoker {
	if p := c.Pinned(); p != nil {
		if r, ok := inv.(*registry.Registry); ok && p.Registry() == r {
			return p
		}
	}
	return inv
}
