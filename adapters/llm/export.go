package llm

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolpack-go/toolpack/registry"
)

// Format names a provider's tool format.
type Format string

// The formats Export writes.
const (
	// OpenAIChat is a Chat Completions function tool:
	// {"type":"function","function":{"name","description","parameters","strict"}}.
	OpenAIChat Format = "openai-chat"
	// OpenAIResponses is a Responses API function tool:
	// {"type":"function","name","description","parameters","strict"}.
	OpenAIResponses Format = "openai-responses"
	// Anthropic is a Messages API tool: {"name","description","input_schema"}.
	Anthropic Format = "anthropic"
	// Gemini is a function declaration: {"name","description","parameters"},
	// its parameters a Gemini Schema.
	Gemini Format = "gemini"
)

// Formats lists every format, in a fixed order.
func Formats() []Format { return []Format{OpenAIChat, OpenAIResponses, Anthropic, Gemini} }

// Options tune an export. The zero value exports every tool given in the
// format's plain form.
type Options struct {
	// Strict writes OpenAI tools in strict mode ("strict": true), their
	// schemas rewritten to satisfy every strict-mode rule. A Dispatcher
	// made from such an export reads a null for an optional field as
	// absent. Only the OpenAI formats have it: with another format it is
	// an error.
	Strict bool
}

// Definition is one exported tool.
type Definition struct {
	// Name is the name the provider knows the tool by: the registry name,
	// or, where the provider refuses some of its characters (OpenAI and
	// Anthropic take no dots), a sanitized form of it.
	Name string
	// Tool is the tool's registry name.
	Tool string
	// JSON is the tool definition in the provider's JSON, ready to be
	// unmarshalled into the provider SDK's tool parameter type.
	JSON json.RawMessage
}

// Definitions is a registry's tools in one provider's format.
type Definitions struct {
	// Format is the provider format.
	Format Format
	// Strict reports an OpenAI strict-mode export.
	Strict bool
	// Tools are the exported tools, sorted by registry name.
	Tools []Definition
	// Issues lists, per tool, what was adapted or dropped to fit the
	// provider and which tools were left out (Action Excluded) and why.
	Issues []Issue

	byName map[string]int // provider name → index in Tools
	// schemas are the tools' own input schemas (parsed, $refs inlined),
	// by registry name: what a Dispatcher reads calls against.
	schemas map[string]map[string]any
	// textObjects names the tools with a free-form object sent as a JSON
	// string (strict mode), which calls must read back.
	textObjects map[string]bool
}

// JSON returns the tools as one JSON array: the "tools" of a provider
// request (for Gemini, the function_declarations of one Tool).
func (d *Definitions) JSON() json.RawMessage {
	out := []byte{'['}
	for i, t := range d.Tools {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, t.JSON...)
	}
	return append(out, ']')
}

// Lookup returns the registry name of the tool the provider calls name.
func (d *Definitions) Lookup(name string) (tool string, ok bool) {
	i, ok := d.byName[name]
	if !ok {
		return "", false
	}
	return d.Tools[i].Tool, true
}

// Export writes the registry's enabled tools in format f.
func Export(reg *registry.Registry, f Format, opts Options) (*Definitions, error) {
	return ExportTools(reg.List(), f, opts)
}

// ExportTools writes the given tools in format f. Tools the format cannot
// express are left out and reported in Issues; the error is for a bad
// format or option only.
func ExportTools(tools []*registry.Tool, f Format, opts Options) (*Definitions, error) {
	var rule nameRule
	switch f {
	case OpenAIChat, OpenAIResponses, Anthropic:
		rule = dashRule
	case Gemini:
		rule = geminiRule
	default:
		return nil, fmt.Errorf("llm: format: expected one of %v, got %q", Formats(), f)
	}
	if opts.Strict && f != OpenAIChat && f != OpenAIResponses {
		return nil, fmt.Errorf("llm: Options.Strict: strict mode is OpenAI's (formats %s and %s), got format %q", OpenAIChat, OpenAIResponses, f)
	}
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, func(a, b *registry.Tool) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	names := make([]string, len(sorted))
	for i, t := range sorted {
		names[i] = t.Name
	}
	provider := assignNames(names, rule)
	d := &Definitions{Format: f, Strict: opts.Strict, byName: map[string]int{}, schemas: map[string]map[string]any{}, textObjects: map[string]bool{}}
	for _, t := range sorted {
		c := &conv{tool: t.Name}
		pname, named := provider[t.Name]
		switch {
		case !named:
			c.note("", "", Excluded, "no %s name could be made for it that another tool does not take", f)
		case pname != t.Name:
			c.note("", "", Adapted, "named %q: %s does not take the name as it is", pname, f)
		}
		own, ok := c.parseSchema(t.InputSchema)
		var def json.RawMessage
		if ok && named {
			def = c.definition(f, opts.Strict, pname, t.Description, clone(own))
		}
		d.Issues = append(d.Issues, c.issues...)
		if c.excluded || def == nil {
			continue
		}
		d.byName[pname] = len(d.Tools)
		d.schemas[t.Name] = own
		if c.freeForm {
			d.textObjects[t.Name] = true
		}
		d.Tools = append(d.Tools, Definition{Name: pname, Tool: t.Name, JSON: def})
	}
	return d, nil
}

// definition writes one tool in format f; nil when it cannot be.
func (c *conv) definition(f Format, strict bool, name, description string, schema map[string]any) json.RawMessage {
	var params map[string]any
	switch {
	case f == Gemini:
		params = c.geminiRoot(schema)
	case strict:
		params = c.strictRoot(schema)
	default:
		params = c.plainRoot(schema, f)
	}
	if c.excluded {
		return nil
	}
	var v any
	switch f {
	case OpenAIChat:
		fn := map[string]any{"name": name, "parameters": params, "strict": strict}
		if description != "" {
			fn["description"] = description
		}
		v = map[string]any{"type": "function", "function": fn}
	case OpenAIResponses:
		tool := map[string]any{"type": "function", "name": name, "parameters": params, "strict": strict}
		if description != "" {
			tool["description"] = description
		}
		v = tool
	case Anthropic:
		tool := map[string]any{"name": name, "input_schema": params}
		if description != "" {
			tool["description"] = description
		}
		v = tool
	case Gemini:
		decl := map[string]any{"name": name}
		if description != "" {
			decl["description"] = description
		}
		if params != nil {
			decl["parameters"] = params
		}
		v = decl
	}
	b, err := json.Marshal(v)
	if err != nil {
		c.note("", "", Excluded, "the definition does not marshal: %v", err)
		return nil
	}
	return b
}

// plainRoot is the tool's own schema with the root made an object with
// properties present, as every provider wants; for Anthropic, root
// combinators (which it refuses) are dropped.
func (c *conv) plainRoot(root map[string]any, f Format) map[string]any {
	if !isObjectSchema(root) {
		c.note("", "type", Excluded, "%s needs an object at the root", f)
		return nil
	}
	if _, ok := root["type"]; !ok {
		root["type"] = "object"
	}
	if _, ok := root["properties"]; !ok {
		root["properties"] = map[string]any{}
	}
	if f == Anthropic {
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if _, ok := root[k]; ok {
				c.note("", k, Dropped, "Anthropic takes no %s at the root of input_schema; the registry still checks it", k)
				delete(root, k)
			}
		}
	}
	for _, k := range metaKeywords {
		delete(root, k)
	}
	return root
}

// clone deep-copies a parsed schema, so that conversions never touch the
// schema kept for reading calls.
func clone(v map[string]any) map[string]any {
	return cloneAny(v).(map[string]any)
}

func cloneAny(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = cloneAny(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = cloneAny(e)
		}
		return l
	default:
		return v
	}
}
