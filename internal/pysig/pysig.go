// Package pysig writes JSON Schema types and JSON values the way seed 001's
// tool signatures show them: Python-style type names (str, int, float, bool,
// list, dict, None, Any, unions with " | ") and Python literals for
// defaults. Both the proxy (signatures of remote tools) and the ot pack
// (signatures of any tool) use it, so a signature reads the same whichever
// wrote it.
package pysig

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
)

// PyType names a schema's type the Python way (str, int, float, bool, list,
// dict, None); unions (a list of types, anyOf, oneOf, an enum of several
// kinds) are joined with " | "; unknown is "Any". A local "$ref"
// ("#/$defs/Item") is followed within s itself, an allOf by its first
// part of a known type, a const or enum by the kind of its values.
func PyType(s map[string]any) string { return typeIn(s, s, 0, new(maxTypeVisits)) }

// maxRefDepth bounds the references and combinators typeIn follows (a
// recursive schema ends there, as Any).
const maxRefDepth = 16

// maxTypeVisits bounds the subschemas one type name visits: alternatives
// that refer to alternatives would otherwise multiply at every level.
const maxTypeVisits = 256

// typeIn is PyType of s, a subschema of root, its local references
// resolved in root; budget counts down the subschemas it may still visit.
func typeIn(root, s map[string]any, depth int, budget *int) string {
	if s == nil || depth > maxRefDepth || *budget <= 0 {
		return "Any"
	}
	*budget--
	one := func(t string) string {
		switch t {
		case "string":
			return "str"
		case "integer":
			return "int"
		case "number":
			return "float"
		case "boolean":
			return "bool"
		case "array":
			return "list"
		case "object":
			return "dict"
		case "null":
			return "None"
		}
		return "Any"
	}
	sub := func(v any) string {
		m, _ := v.(map[string]any)
		return typeIn(root, m, depth+1, budget)
	}
	var parts []string
	switch t := s["type"].(type) {
	case string:
		parts = append(parts, one(t))
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				parts = append(parts, one(str))
			}
		}
	}
	if len(parts) == 0 {
		if ref, ok := s["$ref"].(string); ok {
			if target, ok := jsonptr.Resolve(root, ref); ok {
				parts = append(parts, sub(target))
			}
		}
	}
	if len(parts) == 0 {
		for _, key := range []string{"anyOf", "oneOf"} {
			if alts, ok := s[key].([]any); ok {
				for _, a := range alts {
					parts = append(parts, sub(a))
				}
			}
		}
	}
	if len(parts) == 0 {
		if all, ok := s["allOf"].([]any); ok {
			for _, a := range all {
				if t := sub(a); t != "Any" {
					parts = append(parts, t)
					break
				}
			}
		}
	}
	if len(parts) == 0 {
		if c, ok := s["const"]; ok {
			parts = append(parts, valueType(c))
		} else if e, ok := s["enum"].([]any); ok {
			for _, v := range e {
				parts = append(parts, valueType(v))
			}
		}
	}
	if len(parts) == 0 {
		return "Any"
	}
	seen := map[string]bool{}
	out := parts[:0]
	for _, p := range parts {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return strings.Join(out, " | ")
}

// valueType is the Python type of a JSON value (a whole number is int).
func valueType(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case string:
		return "str"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "int"
		}
		return "float"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "int"
		}
		return "float"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return "Any"
}

// PyRepr writes a JSON default the Python way.
func PyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(x) + "'"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = PyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = PyRepr(k) + ": " + PyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	js, err := json.Marshal(v)
	if err != nil {
		return "'...'"
	}
	return string(js)
}

// Param is one parameter of a tool, read from its input schema.
type Param struct {
	// Name is the property's name.
	Name string
	// Type is the property schema's PyType.
	Type string
	// Description is the property's description on one line.
	Description string
	// Required reports whether the schema's "required" lists it.
	Required bool
	// Default is the decoded default; meaningful when HasDefault.
	Default any
	// HasDefault reports whether the property states a default.
	HasDefault bool
}

// Params reads the parameters of an object schema in the order its
// "properties" lists them (the order its author chose, which a decoded map
// would lose), each once. A name that "required" lists without a property
// follows them, of type Any. A schema that cannot be read gives none.
func Params(schema json.RawMessage) []Param {
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var req []any
	_ = json.Unmarshal(s["required"], &req) // anything but a list requires nothing
	required := map[string]bool{}
	var reqOrder []string
	for _, r := range req {
		if name, ok := r.(string); ok && !required[name] {
			required[name] = true
			reqOrder = append(reqOrder, name)
		}
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(s["properties"], &props)
	var root map[string]any // what local references resolve in, when there are any
	if bytes.Contains(schema, []byte(`"$ref"`)) {
		_ = json.Unmarshal(schema, &root)
	}
	keys := objectKeys(s["properties"])
	out := make([]Param, 0, len(keys)+len(reqOrder))
	for _, k := range keys {
		var p map[string]any
		_ = json.Unmarshal(props[k], &p) // a boolean schema reads as no keywords
		desc, _ := p["description"].(string)
		if desc == "" {
			desc = refDescription(root, p)
		}
		def, hasDef := p["default"]
		out = append(out, Param{Name: k, Type: typeIn(root, p, 0, new(maxTypeVisits)), Description: strings.Join(strings.Fields(desc), " "),
			Required: required[k], Default: def, HasDefault: hasDef})
	}
	for _, r := range reqOrder {
		if _, ok := props[r]; !ok {
			out = append(out, Param{Name: r, Type: PyType(nil), Required: true})
		}
	}
	return out
}

// refDescription is the description of what p's local "$ref" points at
// (following references up to maxRefDepth), or "".
func refDescription(root, p map[string]any) string {
	for range maxRefDepth {
		ref, ok := p["$ref"].(string)
		if !ok {
			return ""
		}
		target, found := jsonptr.Resolve(root, ref)
		if p, ok = target.(map[string]any); !found || !ok {
			return ""
		}
		if d, ok := p["description"].(string); ok && d != "" {
			return d
		}
	}
	return ""
}

// objectKeys returns the keys of a JSON object in document order, each
// once.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// CallOrder returns ps with the required parameters first and the
// optional ones after them, each group in its order in ps: the order of a
// signature, where no parameter without a default follows one with it.
func CallOrder(ps []Param) []Param {
	out := make([]Param, 0, len(ps))
	for _, p := range ps {
		if p.Required {
			out = append(out, p)
		}
	}
	for _, p := range ps {
		if !p.Required {
			out = append(out, p)
		}
	}
	return out
}

// Signature writes name(params) as seed 001 shows a call signature: the
// parameters in CallOrder, a required one as "name: type", an optional
// one as "name: type = default", with '...' when it states no default.
func Signature(name string, ps []Param) string {
	parts := make([]string, 0, len(ps))
	for _, p := range CallOrder(ps) {
		s := p.Name + ": " + p.Type
		if !p.Required {
			d := "'...'"
			if p.HasDefault {
				d = PyRepr(p.Default)
			}
			s += " = " + d
		}
		parts = append(parts, s)
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// ArgLine is p as seed 001's argument lists show it: "name: description",
// or "name: (no description)".
func ArgLine(p Param) string {
	if p.Description == "" {
		return p.Name + ": (no description)"
	}
	return p.Name + ": " + p.Description
}
