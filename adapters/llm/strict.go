package llm

import (
	"fmt"
	"maps"
	"slices"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
)

// OpenAI strict mode takes these keywords (beside the structural ones
// handled on their own) and these string formats.
var (
	strictKeep    = []string{"description", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "enum", "const"}
	strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
	// metaKeywords say nothing about the values: left out silently.
	metaKeywords = []string{"$schema", "$id", "$comment"}
	jsonTypes    = []string{"string", "number", "integer", "boolean", "object", "array", "null"}
)

// strictRoot converts a tool's input schema to OpenAI strict mode: every
// object closed (additionalProperties false) with properties present and
// all of them required, the optional ones made nullable (a null from the
// model is then read as absent), and only the keywords strict mode takes.
func (c *conv) strictRoot(root map[string]any) map[string]any {
	if !isObjectSchema(root) {
		c.note("", "type", Excluded, "strict mode needs an object at the root")
		return nil
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if _, ok := root[k]; ok {
			c.note("", k, Dropped, "strict mode takes no %s at the root; the registry still checks it", k)
			delete(root, k)
		}
	}
	out := c.strict(root, "", 1)
	if c.props > strictMaxProperties {
		c.note("", "properties", Excluded, "strict mode takes at most %d properties in all, the schema has %d", strictMaxProperties, c.props)
	}
	if c.enums > strictMaxEnumValues {
		c.note("", "enum", Excluded, "strict mode takes at most %d enum values in all, the schema has %d", strictMaxEnumValues, c.enums)
	}
	return out
}

func (c *conv) strict(n map[string]any, path string, depth int) map[string]any {
	out := map[string]any{}
	ts, typed := types(n)
	if _, ok := n["type"]; ok && !typed {
		c.note(path, "type", Excluded, "expected a type name or a list of them, got %s", compactJSON(n["type"]))
	}
	for _, t := range ts {
		if !slices.Contains(jsonTypes, t) {
			c.note(path, "type", Excluded, "unknown type %q", t)
		}
	}
	object := isObjectSchema(n)
	if object && freeForm(n) {
		return c.strictFreeForm(n, path, ts)
	}
	if object && depth > strictMaxDepth {
		c.note(path, "", Excluded, "strict mode nests objects at most %d levels deep", strictMaxDepth)
		return out
	}
	for _, k := range slices.Sorted(maps.Keys(n)) {
		v := n[k]
		switch {
		case k == "type":
			out[k] = v
		case k == "properties" || k == "required":
			// below, for objects
		case k == "additionalProperties":
			if v != false {
				c.note(path, k, Excluded, "strict mode closes every object; a tool taking properties it does not name cannot be expressed")
			}
		case k == "items":
			item, ok := v.(map[string]any)
			if !ok {
				c.note(path, k, Excluded, "strict mode needs a schema for array items, got %s", compactJSON(v))
				continue
			}
			out[k] = c.strict(item, path+"/items", depth)
		case k == "anyOf" || k == "oneOf":
			l, ok := v.([]any)
			if !ok {
				c.note(path, k, Excluded, "expected a list of schemas")
				continue
			}
			branches := make([]any, 0, len(l))
			for i, b := range l {
				bm, ok := b.(map[string]any)
				if !ok {
					c.note(fmt.Sprintf("%s/%s/%d", path, k, i), "", Excluded, "strict mode needs a schema object in every branch, got %s", compactJSON(b))
					continue
				}
				branches = append(branches, c.strict(typedBranch(n, bm), fmt.Sprintf("%s/%s/%d", path, k, i), depth))
			}
			if k == "oneOf" {
				c.note(path, k, Adapted, "oneOf sent as anyOf (strict mode has no oneOf); the registry still checks that exactly one branch matches")
			}
			out["anyOf"] = branches
		case k == "enum":
			if l, ok := v.([]any); ok {
				c.enums += len(l)
			}
			out[k] = v
		case k == "format":
			if f, _ := v.(string); slices.Contains(strictFormats, f) {
				out[k] = v
			} else {
				c.note(path, k, Dropped, "strict mode takes no format %s; the registry still checks it", compactJSON(v))
			}
		case k == "default":
			c.note(path, k, Adapted, "strict mode takes no default; it is stated in the description")
		case slices.Contains(strictKeep, k):
			out[k] = v
		case slices.Contains(metaKeywords, k):
		default:
			c.note(path, k, Dropped, "strict mode does not take %s; the registry still checks it", k)
		}
	}
	if d, ok := n["default"]; ok {
		withSentence(out, "Default: "+compactJSON(d)+".")
	}
	_, hasEnum := n["enum"]
	_, hasConst := n["const"]
	_, hasAny := out["anyOf"]
	if !typed && !hasEnum && !hasConst && !hasAny && !object {
		c.note(path, "type", Excluded, "strict mode needs a type for every value; this one takes any JSON value")
	}
	if !object {
		return out
	}
	if !typed {
		out["type"] = "object"
	}
	props, _ := n["properties"].(map[string]any)
	req := requiredSet(n)
	outProps := make(map[string]any, len(props))
	names := slices.Sorted(maps.Keys(props))
	c.props += len(names)
	for _, name := range names {
		p := path + "/properties/" + jsonptr.Escape(name)
		pm, ok := props[name].(map[string]any)
		if !ok {
			c.note(p, "", Excluded, "strict mode needs a schema object for every property, got %s", compactJSON(props[name]))
			continue
		}
		ps := c.strict(pm, p, depth+1)
		if !req[name] && !acceptsNull(pm) {
			nullable(ps)
			c.note(p, "required", Adapted, "optional: sent as required and nullable, and a null is read as absent")
		}
		outProps[name] = ps
	}
	out["properties"] = outProps
	reqList := make([]any, len(names))
	for i, name := range names {
		reqList[i] = name
	}
	out["required"] = reqList
	out["additionalProperties"] = false
	return out
}

// nullable makes a converted strict schema also accept null.
func nullable(s map[string]any) {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(t, "null")
		}
	}
	if e, ok := s["enum"].([]any); ok && !slices.Contains(e, nil) {
		s["enum"] = append(e, nil)
	}
	if cv, ok := s["const"]; ok {
		delete(s, "const")
		s["enum"] = []any{cv, nil}
	}
	if l, ok := s["anyOf"].([]any); ok {
		if _, typed := s["type"]; !typed {
			s["anyOf"] = append(l, map[string]any{"type": "null"})
		}
	}
}

// freeForm reports an object schema naming no properties and not closed:
// it takes any object (or any with values of one schema).
func freeForm(n map[string]any) bool {
	props, _ := n["properties"].(map[string]any)
	_, pattern := n["patternProperties"]
	return len(props) == 0 && !pattern && n["additionalProperties"] != false
}

// strictFreeForm sends a free-form object, which strict mode cannot say
// (it closes every object), as a string holding the object's JSON; a
// Dispatcher made from the export reads such a string back as the object.
func (c *conv) strictFreeForm(n map[string]any, path string, ts []string) map[string]any {
	out := map[string]any{"type": "string"}
	if slices.Contains(ts, "null") {
		out["type"] = []any{"string", "null"}
	}
	if d, ok := n["description"].(string); ok {
		out["description"] = d
	}
	withSentence(out, "A JSON object, written as a string.")
	c.freeForm = true
	c.note(path, "type", Adapted, "strict mode closes every object, so this object of any properties is sent as a string holding its JSON, and read back as the object")
	return out
}
