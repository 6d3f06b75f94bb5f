// Package jsonptr writes JSON Pointers (RFC 6901), the locations the
// project's errors name ("/items/2/name"), and moves a JSON Schema's local
// references when the schema is placed inside a larger document.
package jsonptr

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// escaper writes a reference token: "~" as "~0", then "/" as "~1".
var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// Escape writes one reference token of a pointer: "a/b~c" → "a~1b~0c".
func Escape(token string) string { return escaper.Replace(token) }

// unescaper reads a reference token back: "~1" as "/", then "~0" as "~".
var unescaper = strings.NewReplacer("~1", "/", "~0", "~")

// Unescape reads one reference token of a pointer: "a~1b~0c" → "a/b~c".
func Unescape(token string) string { return unescaper.Replace(token) }

// FromTokens joins reference tokens into a pointer: ["a/b", "2"] →
// "/a~1b/2"; none → "" (the whole document).
func FromTokens(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escaper.Replace(t))
	}
	return b.String()
}

// RebaseRefs moves the local references of the JSON Schema m (decoded
// into maps and slices) under base, the pointer ("#/components/schemas/x",
// "#/properties/value") where m is placed inside a larger document:
// "$ref": "#/$defs/a" becomes base + "/$defs/a", and "#" (or "") base
// itself, so that each still points where it did. Only the values of
// keywords that hold subschemas (JSON Schema drafts 4 to 2020-12) are
// visited; values of other keywords (enum, const, default, examples, …)
// are data and are never rewritten. A subschema with its own "$id" (other
// than a plain-name fragment) starts a resource of its own, whose
// references are relative to it: it is left alone. References that are not
// local ("other.json#/a") are left alone too.
func RebaseRefs(m map[string]any, base string) {
	EachSchema(m, func(sub map[string]any) {
		if ref, ok := sub["$ref"].(string); ok {
			switch {
			case ref == "" || ref == "#": // the document itself
				sub["$ref"] = base
			case strings.HasPrefix(ref, "#/"):
				sub["$ref"] = base + ref[1:]
			}
		}
	})
}

// EachSchema calls fn with the JSON Schema m (decoded into maps and
// slices) and each of its subschemas: the values of keywords that hold
// subschemas (JSON Schema drafts 4 to 2020-12), never the values of other
// keywords (enum, const, default, examples, …), which are data. A
// subschema with its own "$id" (other than a plain-name fragment) starts
// a resource of its own, whose references are relative to it: it and its
// subschemas are not visited.
func EachSchema(m map[string]any, fn func(map[string]any)) {
	fn(m)
	visit := func(v any) {
		sub, ok := v.(map[string]any)
		if !ok {
			return
		}
		if id, ok := sub["$id"].(string); ok && !strings.HasPrefix(id, "#") {
			return
		}
		EachSchema(sub, fn)
	}
	for k, v := range m {
		switch k {
		case "additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if", "not",
			"propertyNames", "then", "unevaluatedItems", "unevaluatedProperties":
			visit(v)
		case "allOf", "anyOf", "oneOf", "prefixItems", "items": // items: a schema or (drafts 4–2019) an array of them
			if a, ok := v.([]any); ok {
				for _, e := range a {
					visit(e)
				}
			} else {
				visit(v)
			}
		case "$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties":
			if mm, ok := v.(map[string]any); ok {
				for _, e := range mm {
					visit(e)
				}
			}
		}
	}
}

// Resolve returns the value a local reference ("#", "#/$defs/a~1b")
// points at in doc (decoded into maps and slices); ok is false when the
// reference is not local or points at nothing.
func Resolve(doc any, ref string) (v any, ok bool) {
	switch {
	case ref == "#" || ref == "":
		return doc, true
	case !strings.HasPrefix(ref, "#/"):
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = Unescape(tok)
		switch c := cur.(type) {
		case map[string]any:
			if cur, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// RefCycle returns a chain of local references in the schema m ("#",
// "" — the document itself — or "#/…") that comes back to where it
// started through references alone ("#/$defs/a" whose target is
// {"$ref": "#/$defs/a"}), or nil: no value
// can be checked against such a schema, and no document can show it (an
// OpenAPI reader reports an infinite circular reference). Recursion
// through a keyword ({"properties": {"next": {"$ref": "#"}}}) is no such
// chain.
// Each reference is followed once: a long chain costs its length.
func RefCycle(m map[string]any) []string {
	var chain []string
	ends := map[string]bool{} // references known to end at a schema that is no reference
	EachSchema(m, func(sub map[string]any) {
		var seen []string
		onChain := map[string]bool{}
		defer func() {
			if chain == nil {
				for _, r := range seen {
					ends[r] = true
				}
			}
		}()
		for cur := sub; chain == nil; {
			ref, ok := cur["$ref"].(string)
			if !ok || (ref != "#" && ref != "" && !strings.HasPrefix(ref, "#/")) || ends[ref] {
				return
			}
			if onChain[ref] {
				chain = append(seen, ref)
				return
			}
			seen = append(seen, ref)
			onChain[ref] = true
			target, found := Resolve(m, ref)
			if cur, ok = target.(map[string]any); !found || !ok {
				return
			}
		}
	})
	return chain
}

// DescribeCycle says what a chain RefCycle returned is: `the reference
// "#/$defs/a" leads back to itself through references alone (#/$defs/a →
// #/$defs/b → #/$defs/a)`, the empty reference written "".
func DescribeCycle(chain []string) string {
	shown := make([]string, len(chain))
	for i, r := range chain {
		shown[i] = cmp.Or(r, `""`)
	}
	return fmt.Sprintf("the reference %q leads back to itself through references alone (%s)", chain[0], strings.Join(shown, " → "))
}

// Dangling returns a local reference ("#/…") in the schema m that
// points at no schema — at nothing, or at a value that is neither an
// object nor a boolean ("#/type") — or "" when every one points at a
// schema. Only m's own references are checked, as EachSchema visits them.
func Dangling(m map[string]any) string {
	bad := ""
	EachSchema(m, func(sub map[string]any) {
		if ref, ok := sub["$ref"].(string); ok && bad == "" && strings.HasPrefix(ref, "#/") {
			switch target, found := Resolve(m, ref); target.(type) {
			case map[string]any, bool:
				if found {
					return
				}
			}
			bad = ref
		}
	})
	return bad
}
