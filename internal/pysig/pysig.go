// Package pysig writes JSON Schema types and JSON values the way seed 001's
// tool signatures show them: Python-style type names (str, int, float, bool,
// list, dict, None, Any, unions with " | ") and Python literals for
// defaults. Both the proxy (signatures of remote tools) and the ot pack
// (signatures of any tool) use it, so a signature reads the same whichever
// wrote it.
package pysig

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// PyType names a schema's type the Python way (str, int, float, bool, list,
// dict, None); unions are joined with " | "; unknown is "Any".
func PyType(s map[string]any) string {
	if s == nil {
		return "Any"
	}
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
		for _, key := range []string{"anyOf", "oneOf"} {
			if alts, ok := s[key].([]any); ok {
				for _, a := range alts {
					m, _ := a.(map[string]any)
					parts = append(parts, PyType(m))
				}
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
