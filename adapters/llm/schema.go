package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
)

// Action says what an export did about something a provider cannot take
// as the tool declares it.
type Action string

const (
	// Adapted: rewritten into a form the provider takes that accepts the
	// same calls, or more (a oneOf as an anyOf, an optional property as a
	// required nullable one in strict mode, a default folded into the
	// description). Calls are still checked against the tool's own schema.
	Adapted Action = "adapted"
	// Dropped: a keyword the provider does not take was left out. The
	// model no longer sees the constraint; the registry still enforces it
	// when the call arrives, and its validation failure tells the model.
	Dropped Action = "dropped"
	// Excluded: the tool cannot be expressed at all and is not exported.
	Excluded Action = "excluded"
)

// Issue is one thing an export changed or could not express, for one
// tool. Nothing is left out without an Issue saying so.
type Issue struct {
	// Tool is the registry name of the tool.
	Tool string `json:"tool"`
	// Path is a JSON Pointer into the tool's input schema; empty for the
	// tool itself (its name, its schema as a whole).
	Path string `json:"path,omitempty"`
	// Keyword is the JSON Schema keyword concerned, if one is.
	Keyword string `json:"keyword,omitempty"`
	// Action is what the export did.
	Action Action `json:"action"`
	// Detail says why, in words.
	Detail string `json:"detail"`
}

// String is the issue on one line: `tool /path keyword: action: detail`.
func (i Issue) String() string {
	var sb strings.Builder
	sb.WriteString(i.Tool)
	if i.Path != "" {
		sb.WriteString(" " + i.Path)
	}
	if i.Keyword != "" {
		sb.WriteString(" " + i.Keyword)
	}
	sb.WriteString(": " + string(i.Action) + ": " + i.Detail)
	return sb.String()
}

// Limits of the schemas read and written.
const (
	// maxSchemaBytes caps a tool's input schema; a larger one is excluded.
	maxSchemaBytes = 4 << 20
	// maxSchemaNodes caps the schema nodes after $ref inlining, so that
	// shared definitions cannot multiply into an unbounded schema.
	maxSchemaNodes = 100_000
	// OpenAI strict mode: at most 5000 properties, 10 levels of nesting and
	// 1000 enum values in one schema.
	strictMaxProperties = 5000
	strictMaxDepth      = 10
	strictMaxEnumValues = 1000
)

// conv collects the issues of converting one tool's schema.
type conv struct {
	tool     string
	issues   []Issue
	excluded bool
	freeForm bool // a free-form object was sent as a string (strict mode)
	nodes    int
	props    int
	enums    int
}

func (c *conv) note(path, keyword string, a Action, format string, args ...any) {
	if a == Excluded {
		c.excluded = true
	}
	c.issues = append(c.issues, Issue{Tool: c.tool, Path: path, Keyword: keyword, Action: a, Detail: fmt.Sprintf(format, args...)})
}

// parseSchema reads a tool's input schema (numbers kept exact) and
// inlines its local $refs. An empty schema is an object without
// properties.
func (c *conv) parseSchema(raw json.RawMessage) (map[string]any, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, true
	}
	if len(t) > maxSchemaBytes {
		c.note("", "", Excluded, "the input schema is %d bytes; at most %d are exported", len(t), maxSchemaBytes)
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		c.note("", "", Excluded, "the input schema is not JSON: %v", err)
		return nil, false
	}
	root, ok := v.(map[string]any)
	if !ok {
		c.note("", "", Excluded, "the input schema must be a JSON object, got %s", jsonKind(v))
		return nil, false
	}
	defs := map[string]any{}
	for _, k := range []string{"$defs", "definitions"} {
		if m, ok := root[k].(map[string]any); ok {
			for name, d := range m {
				defs["#/"+k+"/"+jsonptr.Escape(name)] = d
			}
		}
	}
	in, ok := c.inline(root, defs, nil, "").(map[string]any)
	if !ok || c.excluded {
		return nil, false
	}
	delete(in, "$defs")
	delete(in, "definitions")
	return in, true
}

// schemaMaps are the keywords whose value is a map of schemas, schemaLists
// those whose value is a list of schemas, schemaOne those whose value is
// one schema.
var (
	schemaMaps  = []string{"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
	schemaLists = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
	schemaOne   = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"}
)

// inline returns n with every local $ref (to #/$defs/… or
// #/definitions/…) replaced by a copy of its target, the $ref's sibling
// keywords kept beside it. A recursive or non-local $ref excludes the tool.
func (c *conv) inline(n any, defs map[string]any, stack []string, path string) any {
	c.nodes++
	if c.nodes > maxSchemaNodes {
		if c.nodes == maxSchemaNodes+1 {
			c.note("", "$ref", Excluded, "the schema has more than %d nodes once its $refs are inlined", maxSchemaNodes)
		}
		return n
	}
	m, ok := n.(map[string]any)
	if !ok {
		return n
	}
	out := make(map[string]any, len(m))
	if ref, ok := m["$ref"].(string); ok {
		target, found := defs[ref]
		switch {
		case !found:
			c.note(path, "$ref", Excluded, "%q is not a definition of this schema (only #/$defs/… and #/definitions/… are followed)", ref)
			return n
		case slices.Contains(stack, ref):
			c.note(path, "$ref", Excluded, "%q refers to itself: a recursive schema cannot be inlined", ref)
			return n
		}
		resolved := c.inline(target, defs, append(stack, ref), path)
		if rm, ok := resolved.(map[string]any); ok {
			for k, v := range rm {
				out[k] = v
			}
		} else if len(m) == 1 {
			return resolved
		}
	}
	for k, v := range m {
		if k == "$ref" {
			continue
		}
		switch {
		case slices.Contains(schemaMaps, k):
			if k == "$defs" || k == "definitions" {
				continue // inlined where used
			}
			if sm, ok := v.(map[string]any); ok {
				o := make(map[string]any, len(sm))
				for name, s := range sm {
					o[name] = c.inline(s, defs, stack, path+"/"+k+"/"+jsonptr.Escape(name))
				}
				v = o
			}
		case slices.Contains(schemaLists, k):
			if sl, ok := v.([]any); ok {
				o := make([]any, len(sl))
				for i, s := range sl {
					o[i] = c.inline(s, defs, stack, fmt.Sprintf("%s/%s/%d", path, k, i))
				}
				v = o
			}
		case slices.Contains(schemaOne, k):
			v = c.inline(v, defs, stack, path+"/"+k)
		}
		out[k] = v
	}
	return out
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// types returns the schema's "type" as a list ("string" or ["string",
// "null"]); ok is false when the keyword is absent or malformed.
func types(n map[string]any) (ts []string, ok bool) {
	switch t := n["type"].(type) {
	case string:
		return []string{t}, true
	case []any:
		for _, e := range t {
			s, isStr := e.(string)
			if !isStr {
				return nil, false
			}
			ts = append(ts, s)
		}
		return ts, len(ts) > 0
	}
	return nil, false
}

// isObjectSchema reports a schema describing objects.
func isObjectSchema(n map[string]any) bool {
	if ts, ok := types(n); ok {
		return slices.Contains(ts, "object")
	}
	_, hasProps := n["properties"]
	return hasProps
}

// requiredSet is the schema's "required" list as a set.
func requiredSet(n map[string]any) map[string]bool {
	req := map[string]bool{}
	if l, ok := n["required"].([]any); ok {
		for _, e := range l {
			if s, ok := e.(string); ok {
				req[s] = true
			}
		}
	}
	return req
}

// acceptsNull reports whether the schema lets null through at its top
// level: a "null" type, a null in its enum or const, or an anyOf/oneOf
// branch that does.
func acceptsNull(n any) bool {
	m, ok := n.(map[string]any)
	if !ok {
		return n == true
	}
	if ts, ok := types(m); ok && !slices.Contains(ts, "null") {
		return false // every other keyword applies beside the type
	}
	if ts, ok := types(m); ok && slices.Contains(ts, "null") {
		if e, ok := m["enum"].([]any); ok && !slices.Contains(e, nil) {
			return false
		}
		return true
	}
	if e, ok := m["enum"].([]any); ok && slices.Contains(e, nil) {
		return true
	}
	if c, ok := m["const"]; ok && c == nil {
		return true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if l, ok := m[k].([]any); ok {
			for _, b := range l {
				if acceptsNull(b) {
					return true
				}
			}
		}
	}
	_, typed := m["type"]
	_, enum := m["enum"]
	_, cnst := m["const"]
	_, any1 := m["anyOf"]
	_, one := m["oneOf"]
	return !typed && !enum && !cnst && !any1 && !one && !isObjectSchema(m)
}

// withSentence appends a sentence to the schema's description: how a
// default or an enum the provider cannot carry still reaches the model.
func withSentence(n map[string]any, sentence string) {
	d, _ := n["description"].(string)
	d = strings.TrimSpace(d)
	if d != "" && !strings.HasSuffix(d, ".") {
		d += "."
	}
	if d != "" {
		d += " "
	}
	n["description"] = d + sentence
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// typedBranch gives an anyOf/oneOf branch without a type of its own the
// type of the schema holding it (which applies to the branch anyway), so
// that providers wanting a type in every schema take it.
func typedBranch(parent, branch map[string]any) map[string]any {
	t, ok := parent["type"]
	if !ok {
		return branch
	}
	for _, k := range []string{"type", "enum", "const", "anyOf", "oneOf"} {
		if _, has := branch[k]; has {
			return branch
		}
	}
	out := make(map[string]any, len(branch)+1)
	for k, v := range branch {
		out[k] = v
	}
	out["type"] = t
	return out
}
