package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// SchemaProvider is implemented by a type that decodes or encodes itself
// (UnmarshalJSON or UnmarshalText in arguments, MarshalJSON or MarshalText
// in results) to state the JSON Schema of its JSON form. Declare it with a
// value receiver; it is called once, on the zero value, when the schema of
// a type using it is built.
//
//	// Level decodes "low", "mid" or "high" (or null, meaning unset).
//	type Level struct{ … }
//
//	func (l *Level) UnmarshalJSON(b []byte) error { … }
//
//	func (Level) JSONSchema() json.RawMessage {
//		return json.RawMessage(`{"type":["string","null"],"enum":["low","mid","high",null]}`)
//	}
//
// The schema must be a JSON object without "$ref" or "$id" (schemas are
// inlined into the tool's); it may use any keyword — "type" lists with
// "null", anyOf, allOf/if/then — that struct tags cannot express. A field's
// description, default and example tags are merged into it.
//
// For such a type, its own decoding is authoritative: Decode hands it the
// field's JSON (UnmarshalJSON) or string (UnmarshalText) and reports its
// error as a FieldError for that field (rule "type"); it does not check the
// value against the returned schema. The agreement between Decode and the
// schema therefore covers such a field only as far as the type's schema
// states what the type accepts. A type with UnmarshalText and no
// JSONSchema method is described as {"type":"string"}; one with
// UnmarshalJSON (or, in a result, MarshalJSON) and no JSONSchema method is
// refused with an error asking for the method.
type SchemaProvider interface {
	JSONSchema() json.RawMessage
}

// customOf reports whether t decodes (arguments) or encodes (results)
// itself, and with which schema; nil when t has no such methods.
func (b *planBuilder) customOf(t reflect.Type, where string) (*customType, error) {
	if t.Kind() == reflect.Interface {
		return nil, nil
	}
	pt := reflect.PointerTo(t)
	hasSchema := t.Implements(typeSchemaProvider) || pt.Implements(typeSchemaProvider)
	var isJSON, isText bool
	if b.out() {
		switch {
		case t.Implements(typeJSONMarshaler):
			isJSON = true
		case pt.Implements(typeJSONMarshaler):
			return nil, fmt.Errorf("args: %s: %s has MarshalJSON on its pointer receiver, which encoding/json calls only for addressable values; declare it on the value receiver so every result is written the same way: %w", where, t, ErrUnsupportedType)
		case t.Implements(typeTextMarshaler):
			isText = true
		case pt.Implements(typeTextMarshaler):
			return nil, fmt.Errorf("args: %s: %s has MarshalText on its pointer receiver, which encoding/json calls only for addressable values; declare it on the value receiver so every result is written the same way: %w", where, t, ErrUnsupportedType)
		}
	} else {
		switch {
		case t.Implements(typeJSONUnmarshaler) || pt.Implements(typeJSONUnmarshaler):
			isJSON = true
		case t.Implements(typeTextUnmarshaler) || pt.Implements(typeTextUnmarshaler):
			isText = true
		}
	}
	verb := "decodes"
	if b.out() {
		verb = "encodes"
	}
	switch {
	case !isJSON && !isText:
		if hasSchema {
			return nil, fmt.Errorf("args: %s: %s has a JSONSchema method but %s as a plain %s; the method is used only by types with their own JSON or text form (UnmarshalJSON/UnmarshalText, MarshalJSON/MarshalText) — remove it or add one: %w", where, t, verb, t.Kind(), ErrUnsupportedType)
		}
		return nil, nil
	case isJSON && !hasSchema:
		method := "UnmarshalJSON"
		if b.out() {
			method = "MarshalJSON"
		}
		return nil, fmt.Errorf("args: %s: %s has its own %s, so its JSON form is unknown here; add a method `func (%s) JSONSchema() json.RawMessage` returning its JSON Schema (see args.SchemaProvider): %w", where, t, method, t.Name(), ErrUnsupportedType)
	}
	ct := &customType{json: isJSON}
	if !hasSchema {
		ct.schema = obj{{"type", "string"}}
		return ct, nil
	}
	raw, err := callSchema(t)
	if err != nil {
		return nil, fmt.Errorf("args: %s: %s.JSONSchema: %v: %w", where, t, err, ErrUnsupportedType)
	}
	s, err := parseTypeSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("args: %s: %s.JSONSchema: %v: %w", where, t, err, ErrUnsupportedType)
	}
	ct.schema = s
	return ct, nil
}

// callSchema calls JSONSchema on the zero value of t (or a new *t when the
// method has a pointer receiver), turning a panic into an error.
func callSchema(t reflect.Type) (raw json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked on the zero value: %v", r)
		}
	}()
	if t.Implements(typeSchemaProvider) {
		return reflect.Zero(t).Interface().(SchemaProvider).JSONSchema(), nil
	}
	return reflect.New(t).Interface().(SchemaProvider).JSONSchema(), nil
}

// parseTypeSchema checks a type's schema and splits its top level into
// members (values compacted), so tags can be merged in.
func parseTypeSchema(raw json.RawMessage) (obj, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a single JSON value")
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("must return a JSON object, got %s", describeJSON(doc))
	}
	if k := findKey(doc, "$ref", "$dynamicRef", "$id"); k != "" {
		return nil, fmt.Errorf("uses %q; schemas are inlined into the tool's schema, so references would resolve against it — inline the definition", k)
	}
	// Top-level members in their order.
	dec = json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out obj
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if seen[k] {
			return nil, fmt.Errorf("has the key %q twice", k)
		}
		seen[k] = true
		out = append(out, kv{k, compactJSON(v)})
	}
	return out, nil
}

// findKey returns the first of keys used as an object key anywhere in doc.
func findKey(doc any, keys ...string) string {
	switch x := doc.(type) {
	case map[string]any:
		for _, k := range keys {
			if _, ok := x[k]; ok {
				return k
			}
		}
		for _, v := range x {
			if k := findKey(v, keys...); k != "" {
				return k
			}
		}
	case []any:
		for _, v := range x {
			if k := findKey(v, keys...); k != "" {
				return k
			}
		}
	}
	return ""
}

// typeMentionsNull reports whether a type's schema may admit null: it has
// no "type" member, or its "type" lists "null".
func typeMentionsNull(s obj) bool {
	for _, m := range s {
		if m.k != "type" {
			continue
		}
		raw, ok := m.v.(json.RawMessage)
		if !ok {
			return m.v == "null"
		}
		var one string
		if json.Unmarshal(raw, &one) == nil {
			return one == "null"
		}
		var many []string
		if json.Unmarshal(raw, &many) == nil {
			for _, t := range many {
				if t == "null" {
					return true
				}
			}
			return false
		}
		return true
	}
	return true
}

func compactJSON(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return json.RawMessage(raw)
	}
	return json.RawMessage(b.Bytes())
}

// jsonQuote renders s as a JSON string without HTML escaping.
func jsonQuote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
