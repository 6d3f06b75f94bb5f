package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	require.TestingT
	Helper()
}

// compileSchema compiles a JSON Schema document (draft 2020-12 unless it
// says otherwise) for the equivalence checks below.
func compileSchema(t tb, src []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("mem://test/schema.json", doc))
	s, err := c.Compile("mem://test/schema.json")
	require.NoError(t, err, "schema %s", src)
	return s
}

func jsonDoc(t tb, src string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	require.NoError(t, err, src)
	return v
}

// TestShapeOfOutputSchemas: the output shape follows the root "type" of
// the schema: object → as it is, string → a text tool (nothing
// advertised), anything else → wrapped; bad schemas name the field.
func TestShapeOfOutputSchemas(t *testing.T) {
	for src, want := range map[string]outputShape{
		``:                                     shapeFree,
		`  `:                                   shapeFree,
		`{"type":"object"}`:                    shapeObject,
		`{"properties":{},"type":"object"}`:    shapeObject,
		`{"type":"string"}`:                    shapeFree,
		`{"type":"string","maxLength":3}`:      shapeFree,
		`{"type":"integer"}`:                   shapeWrapped,
		`{"type":"array","items":{}}`:          shapeWrapped,
		`{"type":["object","null"]}`:           shapeWrapped,
		`{"type":["string"]}`:                  shapeWrapped,
		`{"TYPE":"object"}`:                    shapeWrapped, // keywords are case-sensitive
		`{"anyOf":[{"type":"object"}]}`:        shapeWrapped,
		`{}`:                                   shapeWrapped,
		`true`:                                 shapeWrapped,
		`false`:                                shapeWrapped,
		`{"type":"string","type":"object"}`:    shapeObject, // the last key wins, as in every JSON parser clients use
		`{"type":"object","type":"boolean"}`:   shapeWrapped,
		` {"type":"object"} `:                  shapeObject,
		`{"type":"object","x":"<&>"}`:          shapeObject,
		`{"$schema":"x","type":"number"}`:      shapeWrapped,
		`{"type":"null"}`:                      shapeWrapped,
		`{"type":"boolean","description":"b"}`: shapeWrapped,
	} {
		got, err := shapeOf(json.RawMessage(src))
		require.NoError(t, err, src)
		assert.Equal(t, want, got, src)
	}
	for src, want := range map[string]string{
		`{`:        "got invalid JSON",
		`tru`:      "got invalid JSON",
		`[]`:       "an object or a boolean",
		`"object"`: "an object or a boolean",
		`42`:       "an object or a boolean",
		`null`:     "an object or a boolean",
	} {
		_, err := shapeOf(json.RawMessage(src))
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), "field OutputSchema", src)
		assert.Contains(t, err.Error(), want, src)
	}
	_, err := shapeOf(json.RawMessage(`{"description":"` + strings.Repeat("x", maxOutputSchemaBytes) + `"}`))
	assert.ErrorContains(t, err, "expected at most")
}

// TestWrapOutputSchema checks the wrapper's form: the inner schema under
// properties.value, required, no other property; $schema and $id moved to
// the root; local pointer references moved with the schema; data and
// nested resources left alone; numbers exact.
func TestWrapOutputSchema(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"integer", `{"type":"integer","minimum":1}`,
			`{"type":"object","properties":{"value":{"type":"integer","minimum":1}},"required":["value"],"additionalProperties":false}`},
		{"true schema", `true`,
			`{"type":"object","properties":{"value":{}},"required":["value"],"additionalProperties":false}`},
		{"false schema", `false`,
			`{"type":"object","properties":{"value":{"not":{}}},"required":["value"],"additionalProperties":false}`},
		{"dialect and id move to the root", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/out","type":"array"}`,
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/out","type":"object","properties":{"value":{"type":"array"}},"required":["value"],"additionalProperties":false}`},
		{"local references follow the schema", `{"type":"array","items":{"$ref":"#/$defs/item"},"$defs":{"item":{"type":"object","properties":{"next":{"$ref":"#/$defs/item"},"all":{"$ref":"#"}}}}}`,
			`{"type":"object","required":["value"],"additionalProperties":false,"properties":{"value":{"type":"array","items":{"$ref":"#/properties/value/$defs/item"},"$defs":{"item":{"type":"object","properties":{"next":{"$ref":"#/properties/value/$defs/item"},"all":{"$ref":"#/properties/value"}}}}}}}`},
		{"data, anchors, remote references and nested resources are left alone",
			`{"anyOf":[{"$ref":"#anchor"},{"$ref":"other.json#/x"},{"$id":"https://example.com/n","$ref":"#/$defs/a","$defs":{"a":{}}}],"enum":[{"$ref":"#/data"}],"default":{"$ref":"#"}}`,
			`{"type":"object","required":["value"],"additionalProperties":false,"properties":{"value":{"anyOf":[{"$ref":"#anchor"},{"$ref":"other.json#/x"},{"$id":"https://example.com/n","$ref":"#/$defs/a","$defs":{"a":{}}}],"enum":[{"$ref":"#/data"}],"default":{"$ref":"#"}}}}`},
		{"draft-07 definitions, tuple items, dependencies", `{"type":"array","items":[{"$ref":"#/definitions/a"}],"dependencies":{"x":{"$ref":"#/definitions/a"},"y":["x"]},"definitions":{"a":{"type":"integer"}}}`,
			`{"type":"object","required":["value"],"additionalProperties":false,"properties":{"value":{"type":"array","items":[{"$ref":"#/properties/value/definitions/a"}],"dependencies":{"x":{"$ref":"#/properties/value/definitions/a"},"y":["x"]},"definitions":{"a":{"type":"integer"}}}}}`},
		{"exact numbers, no HTML escaping", `{"type":"integer","maximum":12345678901234567890,"description":"<a & b>"}`,
			`{"type":"object","required":["value"],"additionalProperties":false,"properties":{"value":{"type":"integer","maximum":12345678901234567890,"description":"<a & b>"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := wrapOutputSchema(json.RawMessage(c.in))
			require.NoError(t, err)
			assert.JSONEq(t, c.want, string(got))
			assert.NotContains(t, string(got), `\u003c`, "no HTML escaping")
			if strings.Contains(c.in, "12345678901234567890") {
				assert.Contains(t, string(got), "12345678901234567890", "numbers are kept exact")
			}
		})
	}
	for in, want := range map[string]string{
		`{`:         "invalid JSON",
		`[]`:        "an object or a boolean",
		`1`:         "an object or a boolean",
		`{} {}`:     "data after it",
		`{"a":1} x`: "data after it",
	} {
		_, err := wrapOutputSchema(json.RawMessage(in))
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), "field OutputSchema", in)
		assert.Contains(t, err.Error(), want, in)
	}
}

// wrappedAgreement checks that the wrapped schema accepts {"value": v}
// exactly when the schema accepts v, for every value given.
func wrappedAgreement(t tb, schema string, values []string) {
	t.Helper()
	wrapped, err := wrapOutputSchema(json.RawMessage(schema))
	require.NoError(t, err, schema)
	inner, outer := compileSchema(t, []byte(schema)), compileSchema(t, wrapped)
	for _, v := range values {
		innerOK := inner.Validate(jsonDoc(t, v)) == nil
		outerOK := outer.Validate(jsonDoc(t, `{"value":`+v+`}`)) == nil
		require.Equal(t, innerOK, outerOK, "schema %s\nwrapped %s\nvalue %s", schema, wrapped, v)
	}
	require.Error(t, outer.Validate(jsonDoc(t, `{}`)), "value is required")
	if len(values) > 0 {
		require.Error(t, outer.Validate(jsonDoc(t, `{"value":`+values[0]+`,"extra":1}`)), "no other property")
	}
}

// TestPropertyWrappedSchemaAcceptsExactlyWrappedValues: for generated
// schemas (types, unions, arrays, objects, booleans, $defs with local
// references, recursion through "#") and generated values, the wrapped
// schema accepts {"value": v} exactly when the schema accepts v.
func TestPropertyWrappedSchemaAcceptsExactlyWrappedValues(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		defs := map[string]any{
			"pos":  map[string]any{"type": "integer", "minimum": 1},
			"word": map[string]any{"type": "string", "maxLength": 3},
		}
		schema := genSchema(t, 0)
		if m, ok := schema.(map[string]any); ok {
			m["$defs"] = defs
		} else {
			schema = map[string]any{"allOf": []any{schema}, "$defs": defs}
		}
		src, err := json.Marshal(schema)
		require.NoError(t, err)
		values := rapid.SliceOfN(genValue(), 1, 8).Draw(t, "values")
		wrappedAgreement(t, string(src), values)
	})
}

// genSchema draws a schema whose references point at #/$defs/pos,
// #/$defs/word or the root.
func genSchema(t *rapid.T, depth int) any {
	kinds := []string{"type", "types", "bool", "ref"}
	if depth < 3 {
		kinds = append(kinds, "array", "object", "anyOf", "not")
	}
	switch rapid.SampledFrom(kinds).Draw(t, "kind") {
	case "type":
		return map[string]any{"type": rapid.SampledFrom([]string{"integer", "number", "string", "boolean", "null", "array", "object"}).Draw(t, "type")}
	case "types":
		return map[string]any{"type": rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"integer", "string", "boolean", "null", "array", "object"}), 1, 3, rapid.ID[string]).Draw(t, "types")}
	case "bool":
		return rapid.Bool().Draw(t, "bool")
	case "ref":
		return map[string]any{"$ref": rapid.SampledFrom([]string{"#/$defs/pos", "#/$defs/word", "#"}).Draw(t, "ref")}
	case "array":
		return map[string]any{"type": "array", "items": genSchema(t, depth+1), "maxItems": 3}
	case "object":
		return map[string]any{"type": "object", "properties": map[string]any{"a": genSchema(t, depth+1)}, "required": []string{"a"}}
	case "anyOf":
		return map[string]any{"anyOf": []any{genSchema(t, depth+1), genSchema(t, depth+1)}}
	default:
		return map[string]any{"not": genSchema(t, depth+1)}
	}
}

// genValue draws small JSON values that hit the generated schemas' edges.
func genValue() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		return rapid.SampledFrom([]string{
			`0`, `1`, `2`, `-1`, `1.5`, `"a"`, `"abcd"`, `""`, `true`, `false`, `null`,
			`[]`, `[1]`, `[1,"a"]`, `[1,2,3,4]`, `{}`, `{"a":1}`, `{"a":"abc"}`, `{"a":[1]}`, `{"a":{"a":2}}`, `{"b":1}`,
		}).Draw(t, "value")
	})
}

// TestSDKToolAdvertisesByShape: tools/list shows an object schema as it
// is, no schema for a text tool or a tool without one, and the wrapped
// schema otherwise, with the tool's _meta saying so.
func TestSDKToolAdvertisesByShape(t *testing.T) {
	in := json.RawMessage(`{"type":"object","properties":{}}`)
	for out, want := range map[string]string{
		``:                   ``,
		`{"type":"object"}`:  `{"type":"object"}`,
		`{"type":"string"}`:  ``,
		`{"type":"integer"}`: `{"type":"object","properties":{"value":{"type":"integer"}},"required":["value"],"additionalProperties":false}`,
	} {
		st, err := sdkTool(&registry.Tool{Name: "x", InputSchema: in, OutputSchema: json.RawMessage(out)}, "host")
		require.NoError(t, err, out)
		assert.Equal(t, strings.Contains(want, `"value"`), st.Meta[mcpmap.MetaWrapped] == true,
			"a tool whose schema is the wrapper says so in its _meta: %s", out)
		if want == "" {
			assert.Nil(t, st.OutputSchema, out)
			continue
		}
		b, err := json.Marshal(st.OutputSchema)
		require.NoError(t, err)
		assert.JSONEq(t, want, string(b), out)
	}
}

// TestMappingShapes checks structuredContent for every kind of value under
// every output shape: only objects are ever sent, non-objects as
// {"value": …}, strings and nil without a schema have none, and a value
// that contradicts an object schema is a protocol error.
func TestMappingShapes(t *testing.T) {
	type point struct {
		X int `json:"x"`
	}
	values := []struct {
		name string
		v    any
	}{
		{"object", point{X: 1}},
		{"raw object", json.RawMessage(` {"x": 1} `)},
		{"number", 42},
		{"bool", true},
		{"array", []string{"a", "b"}},
		{"string", "hi <b>"},
		{"raw string", json.RawMessage(`"hi"`)},
		{"nil", nil},
		{"raw null", json.RawMessage(`null`)},
	}
	want := map[outputShape]map[string]string{ // "" no structured content; "error" a protocol error
		shapeFree: {
			"object": `{"x":1}`, "raw object": `{"x":1}`, "number": `{"value":42}`, "bool": `{"value":true}`,
			"array": `{"value":["a","b"]}`, "string": "", "raw string": "", "nil": "", "raw null": "",
		},
		shapeObject: {
			"object": `{"x":1}`, "raw object": `{"x":1}`, "number": "error", "bool": "error",
			"array": "error", "string": "error", "raw string": "error", "nil": "error", "raw null": "error",
		},
		shapeWrapped: {
			"object": `{"value":{"x":1}}`, "raw object": `{"value":{"x":1}}`, "number": `{"value":42}`, "bool": `{"value":true}`,
			"array": `{"value":["a","b"]}`, "string": `{"value":"hi <b>"}`, "raw string": `{"value":"hi"}`, "nil": `{"value":null}`, "raw null": `{"value":null}`,
		},
	}
	wantText := map[string]string{
		"object": `{"x":1}`, "raw object": `{"x": 1}`, "number": `42`, "bool": `true`, "array": `["a","b"]`,
		"string": "hi <b>", "raw string": "hi", "nil": "null", "raw null": "null",
	}
	for shape, byValue := range want {
		for _, v := range values {
			t.Run(fmt.Sprintf("shape%d/%s", shape, v.name), func(t *testing.T) {
				out, err := toCallToolResult(result.Ok(v.v), DisplayValue, shape)
				if byValue[v.name] == "error" {
					require.Error(t, err)
					assert.Contains(t, err.Error(), "requires a JSON object")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, wantText[v.name], onlyText(t, out), "the text is the plain value, never the wrapper")
				if byValue[v.name] == "" {
					assert.Nil(t, out.StructuredContent)
					return
				}
				b, err := json.Marshal(out.StructuredContent)
				require.NoError(t, err)
				assert.JSONEq(t, byValue[v.name], string(b))
				// A wrapper says so in the result's _meta; an object sent as
				// it is does not.
				wrapped := strings.HasPrefix(byValue[v.name], `{"value":`)
				assert.Equal(t, wrapped, out.Meta[mcpmap.MetaWrapped] == true, "_meta %v", out.Meta)
			})
		}
	}
	// A failure never carries structured content, whatever the shape.
	for _, shape := range []outputShape{shapeFree, shapeObject, shapeWrapped} {
		out, err := toCallToolResult(result.Failure[any]("no", result.NotFound), DisplayValue, shape)
		require.NoError(t, err)
		assert.True(t, out.IsError)
		assert.Nil(t, out.StructuredContent)
	}
}

// FuzzWrapOutputSchema feeds arbitrary schemas to shapeOf and
// wrapOutputSchema: neither may panic; a wrapped schema is a JSON object
// with "type":"object" whose only property is the required "value", and
// when both the schema and its wrapper compile, the wrapper accepts
// {"value": v} exactly when the schema accepts v for a fixed set of values.
func FuzzWrapOutputSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"integer"}`, `true`, `false`, `{"type":["array","null"],"items":{"$ref":"#/$defs/a"},"$defs":{"a":{"type":"string"}}}`,
		`{"$id":"https://x.example/s","$schema":"https://json-schema.org/draft/2020-12/schema","anyOf":[{"$ref":"#"}]}`,
		`{"type":"object"}`, `{"items":[{"$ref":"#/definitions/d"}],"definitions":{"d":{}}}`,
	} {
		f.Add([]byte(s))
	}
	values := []string{`0`, `1.5`, `"a"`, `true`, `null`, `[]`, `[1,"a"]`, `{}`, `{"a":1}`}
	f.Fuzz(func(t *testing.T, data []byte) {
		shape, err := shapeOf(data)
		if err != nil || shape != shapeWrapped {
			return
		}
		wrapped, err := wrapOutputSchema(data)
		if err != nil {
			return
		}
		var w struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(wrapped, &w); err != nil {
			t.Fatalf("wrapped schema is not a JSON object: %v\n%s", err, wrapped)
		}
		if w.Type != "object" || len(w.Properties) != 1 || w.Properties["value"] == nil || len(w.Required) != 1 || w.Required[0] != "value" {
			t.Fatalf("wrapped schema has the wrong form: %s", wrapped)
		}
		if w.Properties["value"][0] != '{' {
			t.Fatalf("the inner schema is not an object: %s", wrapped)
		}
		inner, ok1 := tryCompile(data)
		outer, ok2 := tryCompile(wrapped)
		if !ok1 || !ok2 {
			return
		}
		for _, v := range values {
			doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(v))
			wdoc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"value":` + v + `}`))
			if (inner.Validate(doc) == nil) != (outer.Validate(wdoc) == nil) {
				t.Fatalf("schema %s and its wrapper %s disagree on %s", data, wrapped, v)
			}
		}
	})
}

// tryCompile compiles src without network or file access.
func tryCompile(src []byte) (*jsonschema.Schema, bool) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return nil, false
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	if c.AddResource("mem://fuzz/schema.json", doc) != nil {
		return nil, false
	}
	s, err := c.Compile("mem://fuzz/schema.json")
	return s, err == nil
}

type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) { return nil, fmt.Errorf("no loading %s", url) }

// shapeOfReference is shapeOf written with encoding/json (exact keys
// through a map, last duplicate wins): the oracle FuzzShapeOf compares the
// one-scan version with.
func shapeOfReference(s []byte) (outputShape, bool) {
	t := bytes.TrimSpace(s)
	if len(t) == 0 {
		return shapeFree, true
	}
	if !json.Valid(t) {
		return 0, false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber() // 1e400 is valid JSON, if not a float64
	var doc any
	if dec.Decode(&doc) != nil {
		return 0, false
	}
	switch v := doc.(type) {
	case bool:
		return shapeWrapped, true
	case map[string]any:
		switch v["type"] {
		case "object":
			return shapeObject, true
		case "string":
			return shapeFree, true
		}
		return shapeWrapped, true
	default:
		return 0, false
	}
}

// FuzzShapeOf checks the one-scan shapeOf against shapeOfReference on
// arbitrary input: same shape for every schema, an error exactly for what
// is not a schema, never a panic.
func FuzzShapeOf(f *testing.F) {
	for _, s := range []string{
		`{"type":"object"}`, `{"typ\u0065":"object"}`, `{"type":"obj\u0065ct"}`, `{"a":{"type":"object"},"type":"string"}`,
		`{"type":"object","type":"array"}`, `{"type":["object"]}`, `{"x":"\"type\":\"object\"","y":[{"type":"object"}]}`,
		` { "type" : "string" } `, `true`, `[]`, `{"type":1,"type":"object"}`, `{"\\":"\\\"","type":"object"}`, `{"maximum":1e400,"type":"object"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := shapeOf(data)
		want, ok := shapeOfReference(data)
		if ok != (err == nil) {
			t.Fatalf("%q: error %v, reference ok %v", data, err, ok)
		}
		if ok && got != want {
			t.Fatalf("%q: shape %d, reference %d", data, got, want)
		}
	})
}
