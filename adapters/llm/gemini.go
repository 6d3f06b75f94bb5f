package llm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
)

// Gemini's Schema (an OpenAPI 3.0 subset) takes these keywords as they
// are, and these string formats.
var (
	geminiKeep    = []string{"description", "title", "default", "pattern", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "minProperties", "maxProperties"}
	geminiFormats = []string{"enum", "date-time", "date", "time", "email", "byte", "password", "int32", "int64", "float", "double", "uuid", "duration"}
)

// geminiFits reports whether v can be given to Gemini as keyword k (its
// Schema type decodes strings, whole numbers and finite numbers), and
// what it takes otherwise. A schema the registry serves may hold anything
// under a keyword (a remote server's, written by hand).
func geminiFits(k string, v any) (string, bool) {
	switch k {
	case "description", "title", "pattern":
		_, ok := v.(string)
		return "a string", ok
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		n, ok := v.(json.Number)
		if !ok {
			return "a whole number", false
		}
		_, err := strconv.ParseInt(string(n), 10, 64)
		return "a whole number", err == nil
	case "minimum", "maximum":
		n, ok := v.(json.Number)
		if !ok {
			return "a number", false
		}
		_, err := strconv.ParseFloat(string(n), 64)
		return "a number", err == nil
	}
	return "", true // default: any JSON value
}

// geminiParamName: a letter or underscore, then letters, digits and
// underscores, at most 64 in all.
func geminiParamName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// geminiRoot converts a tool's input schema to a Gemini Schema: one
// upper-case type per schema, nullability as "nullable", no $ref (already
// inlined), only the keywords Gemini takes. It returns nil for a tool
// without parameters, which Gemini declares without a schema.
func (c *conv) geminiRoot(root map[string]any) map[string]any {
	if !isObjectSchema(root) {
		c.note("", "type", Excluded, "Gemini needs an object at the root")
		return nil
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if _, ok := root[k]; ok {
			c.note("", k, Dropped, "Gemini takes no %s at the root; the registry still checks it", k)
			delete(root, k)
		}
	}
	out := c.gemini(root, "", true)
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil
	}
	return out
}

func (c *conv) gemini(n map[string]any, path string, root bool) map[string]any {
	out := map[string]any{}
	ts, typed := types(n)
	if _, ok := n["type"]; ok && !typed {
		c.note(path, "type", Excluded, "expected a type name or a list of them, got %s", compactJSON(n["type"]))
	}
	var nonNull []string
	null := false
	for _, t := range ts {
		switch {
		case t == "null":
			null = true
		case slices.Contains(jsonTypes, t):
			nonNull = append(nonNull, t)
		default:
			c.note(path, "type", Excluded, "unknown type %q", t)
		}
	}
	switch {
	case len(nonNull) == 1:
		out["type"] = strings.ToUpper(nonNull[0])
	case len(nonNull) > 1:
		branches := make([]any, len(nonNull))
		for i, t := range nonNull {
			branches[i] = map[string]any{"type": strings.ToUpper(t)}
		}
		out["anyOf"] = branches
		c.note(path, "type", Adapted, "a list of types sent as anyOf (Gemini takes one type per schema)")
	case null:
		out["type"] = "NULL"
	}
	if null && len(nonNull) > 0 {
		out["nullable"] = true
	}
	object := isObjectSchema(n)
	if object && !typed {
		out["type"] = "OBJECT"
	}
	for _, k := range slices.Sorted(maps.Keys(n)) {
		v := n[k]
		switch {
		case k == "type" || k == "properties" || k == "required":
		case k == "additionalProperties":
			if v != false {
				c.note(path, k, Dropped, "Gemini declares only named properties; the registry still takes the others")
			}
		case k == "items":
			item, ok := v.(map[string]any)
			if !ok {
				c.note(path, k, Dropped, "Gemini needs a schema for array items, got %s", compactJSON(v))
				continue
			}
			out[k] = c.gemini(item, path+"/items", false)
		case k == "anyOf" || k == "oneOf":
			l, ok := v.([]any)
			if !ok {
				c.note(path, k, Excluded, "expected a list of schemas")
				continue
			}
			var branches []any
			for i, b := range l {
				bp := fmt.Sprintf("%s/%s/%d", path, k, i)
				bm, ok := b.(map[string]any)
				if !ok {
					c.note(bp, "", Excluded, "Gemini needs a schema object in every branch, got %s", compactJSON(b))
					continue
				}
				if ts, ok := types(bm); ok && len(ts) == 1 && ts[0] == "null" && len(bm) == 1 {
					out["nullable"] = true
					continue
				}
				branches = append(branches, c.gemini(typedBranch(n, bm), bp, false))
			}
			if k == "oneOf" {
				c.note(path, k, Adapted, "oneOf sent as anyOf (Gemini has no oneOf); the registry still checks that exactly one branch matches")
			}
			if prev, ok := out["anyOf"].([]any); ok {
				branches = append(prev, branches...)
			}
			if len(branches) > 0 {
				out["anyOf"] = branches
			}
		case k == "enum" || k == "const":
			c.geminiEnum(n, out, path, k, v)
		case k == "format":
			if f, _ := v.(string); slices.Contains(geminiFormats, f) {
				out[k] = v
			} else {
				c.note(path, k, Dropped, "Gemini takes no format %s; the registry still checks it", compactJSON(v))
			}
		case k == "exclusiveMinimum" || k == "exclusiveMaximum":
			c.geminiExclusive(n, out, path, k, v)
		case k == "examples":
			if l, ok := v.([]any); ok && len(l) > 0 {
				out["example"] = l[0]
				c.note(path, k, Adapted, "the first of the examples sent as Gemini's example")
			}
		case slices.Contains(geminiKeep, k):
			if want, ok := geminiFits(k, v); ok {
				out[k] = v
			} else {
				c.note(path, k, Dropped, "Gemini takes %s as %s, got %s", k, want, compactJSON(v))
			}
		case slices.Contains(metaKeywords, k):
		default:
			c.note(path, k, Dropped, "Gemini does not take %s; the registry still checks it", k)
		}
	}
	_, hasType := out["type"]
	_, hasAny := out["anyOf"]
	if !hasType && !hasAny {
		if t := valuesType(n); t != "" {
			out["type"] = t
		} else {
			c.note(path, "type", Excluded, "Gemini needs a type for every value; this one takes any JSON value")
		}
	}
	if !object {
		return out
	}
	props, _ := n["properties"].(map[string]any)
	req := requiredSet(n)
	outProps := make(map[string]any, len(props))
	var reqList []any
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p := path + "/properties/" + jsonptr.Escape(name)
		if !geminiParamName(name) {
			c.note(p, "", Excluded, "Gemini property names start with a letter or underscore and hold only letters, digits and underscores (at most 64); %q does not", name)
			continue
		}
		pm, ok := props[name].(map[string]any)
		if !ok {
			c.note(p, "", Excluded, "Gemini needs a schema object for every property, got %s", compactJSON(props[name]))
			continue
		}
		outProps[name] = c.gemini(pm, p, false)
		if req[name] {
			reqList = append(reqList, name)
		}
	}
	if len(outProps) > 0 || root {
		out["properties"] = outProps
	}
	if len(reqList) > 0 {
		out["required"] = reqList
	}
	return out
}

// geminiEnum carries enum and const: Gemini's enum holds strings only, so
// a string enum (or const) is kept, a null in it becomes nullable, and an
// enum of other values is stated in the description instead.
func (c *conv) geminiEnum(n, out map[string]any, path, k string, v any) {
	values, ok := v.([]any)
	if k == "const" {
		values, ok = []any{v}, true
		if _, hasEnum := n["enum"]; hasEnum {
			return // the enum says it
		}
	}
	if !ok {
		c.note(path, k, Excluded, "expected a list of values")
		return
	}
	var strs []any
	allStrings := true
	for _, e := range values {
		switch e := e.(type) {
		case nil:
			out["nullable"] = true
		case string:
			strs = append(strs, e)
		default:
			allStrings = false
		}
	}
	if allStrings {
		out["enum"] = strs
		if k == "const" {
			c.note(path, k, Adapted, "const sent as an enum of one value")
		}
		return
	}
	parts := make([]string, len(values))
	for i, e := range values {
		parts[i] = compactJSON(e)
	}
	withSentence(out, "One of: "+strings.Join(parts, ", ")+".")
	c.note(path, k, Adapted, "Gemini's enum holds strings only; the values are stated in the description and the registry still checks them")
}

// geminiExclusive carries an exclusive bound: on integers as the next
// inclusive one, otherwise dropped.
func (c *conv) geminiExclusive(n, out map[string]any, path, k string, v any) {
	num, ok := v.(json.Number)
	ts, _ := types(n)
	if ok && slices.Contains(ts, "integer") && !slices.Contains(ts, "number") {
		if i, err := num.Int64(); err == nil {
			if k == "exclusiveMinimum" {
				out["minimum"] = i + 1
			} else {
				out["maximum"] = i - 1
			}
			c.note(path, k, Adapted, "sent as the inclusive bound next to it (Gemini has no exclusive bounds)")
			return
		}
	}
	c.note(path, k, Dropped, "Gemini has no exclusive bounds; the registry still checks it")
}

// valuesType is the one Gemini type of every non-null value of the
// schema's enum or const ("" when they differ or there are none).
func valuesType(n map[string]any) string {
	values, _ := n["enum"].([]any)
	if c, ok := n["const"]; ok {
		values = append(values, c)
	}
	t := ""
	for _, v := range values {
		var vt string
		switch v := v.(type) {
		case nil:
			continue
		case string:
			vt = "STRING"
		case bool:
			vt = "BOOLEAN"
		case json.Number:
			vt = "NUMBER"
			if _, err := v.Int64(); err == nil {
				vt = "INTEGER"
			}
		default:
			return ""
		}
		switch {
		case t == "" || t == vt:
			t = vt
		case t == "INTEGER" && vt == "NUMBER" || t == "NUMBER" && vt == "INTEGER":
			t = "NUMBER"
		default:
			return ""
		}
	}
	return t
}
