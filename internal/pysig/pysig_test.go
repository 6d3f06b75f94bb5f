package pysig

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Types and defaults read as seed 001's signatures show them.
func TestPyTypeAndRepr(t *testing.T) {
	for want, s := range map[string]map[string]any{
		"str": {"type": "string"}, "int": {"type": "integer"}, "float": {"type": "number"},
		"bool": {"type": "boolean"}, "list": {"type": "array"}, "dict": {"type": "object"},
		"str | None": {"type": []any{"string", "null"}}, "int | str": {"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}},
		"Any": {},
	} {
		assert.Equal(t, want, PyType(s))
	}
	assert.Equal(t, "Any", PyType(nil))
	for want, v := range map[string]any{
		"None": nil, "True": true, "False": false, "'it\\'s'": "it's", "10": 10.0, "0.5": 0.5,
		"['a', 1]": []any{"a", 1.0}, "{'a': 1, 'b': None}": map[string]any{"b": nil, "a": 1.0},
	} {
		assert.Equal(t, want, PyRepr(v))
	}
}

// Params keeps the order of "properties" (a duplicated key counts once,
// where it first appears), marks the required ones, and reads defaults and
// descriptions; Signature puts the required ones first.
func TestParams_SchemaOrder(t *testing.T) {
	ps := Params(json.RawMessage(`{"type":"object","properties":{
		"z":{"type":"string","description":"  last\n letter "},
		"a":{"type":"integer","default":3},
		"z":{"type":"string"},
		"m":true},"required":["m","nope"]}`))
	assert.Equal(t, []Param{
		{Name: "z", Type: "str", Description: "", Required: false},
		{Name: "a", Type: "int", Default: float64(3), HasDefault: true},
		{Name: "m", Type: "Any", Required: true},
		{Name: "nope", Type: "Any", Required: true},
	}, ps, "the second z, which encoding/json keeps, gives its schema; its place is the first's")
	assert.Equal(t, "f(m: Any, nope: Any, z: str = '...', a: int = 3)", Signature("f", ps))
	assert.Equal(t, []string{"m: (no description)", "nope: (no description)", "z: (no description)", "a: (no description)"},
		[]string{ArgLine(ps[2]), ArgLine(ps[3]), ArgLine(ps[0]), ArgLine(ps[1])})
	assert.Nil(t, Params(json.RawMessage(`[1]`)))
	assert.Equal(t, []Param{{Name: "a", Type: "str"}}, Params(json.RawMessage(`{"properties":{"a":{"type":"string"}},"required":true}`)),
		"a \"required\" that is not a list requires nothing; the properties are still read")
	assert.Empty(t, Params(json.RawMessage(`{"type":"object"}`)))
}

// A property given by reference — pydantic's "$defs" and "$ref", an
// optional one as anyOf with null, allOf around a reference — reads as
// the type it refers to, with its description when the property has
// none; an enum or const as the kind of its values; a reference that
// loops or points at nothing as Any.
func TestParams_ReferencesFollowed(t *testing.T) {
	ps := Params(json.RawMessage(`{"type":"object","properties":{
		"p":{"$ref":"#/$defs/Point"},
		"q":{"anyOf":[{"$ref":"#/$defs/Point"},{"type":"null"}],"default":null},
		"color":{"$ref":"#/$defs/Color"},
		"r":{"allOf":[{"$ref":"#/$defs/Point"}],"description":"its own"},
		"mode":{"enum":["fast","exact"]},
		"n":{"const":3},
		"x":{"enum":[1.5,"a",null]},
		"loop":{"$ref":"#/$defs/Loop"},
		"gone":{"$ref":"#/$defs/Nope"},
		"far":{"$ref":"other.json#/a"}},
		"required":["p"],
		"$defs":{"Point":{"type":"object","description":"A point."},"Color":{"$ref":"#/$defs/Name"},
			"Name":{"type":"string","enum":["red","green"],"description":"A colour name."},"Loop":{"$ref":"#/$defs/Loop"}}}`))
	got := map[string][2]string{}
	for _, p := range ps {
		got[p.Name] = [2]string{p.Type, p.Description}
	}
	assert.Equal(t, map[string][2]string{
		"p": {"dict", "A point."}, "q": {"dict | None", ""}, "color": {"str", "A colour name."}, "r": {"dict", "its own"},
		"mode": {"str", ""}, "n": {"int", ""}, "x": {"float | str | None", ""}, "loop": {"Any", ""}, "gone": {"Any", ""}, "far": {"Any", ""},
	}, got)
	assert.Equal(t, "f(p: dict, q: dict | None = None, color: str = '...', r: dict = '...', mode: str = '...', n: int = '...', "+
		"x: float | str | None = '...', loop: Any = '...', gone: Any = '...', far: Any = '...')", Signature("f", ps))
	assert.Equal(t, "dict", PyType(map[string]any{"$ref": "#/$defs/A", "$defs": map[string]any{"A": map[string]any{"type": "object"}}}),
		"PyType resolves within the schema it is given")
}

// Alternatives that refer to alternatives multiply at every level: a
// type name visits a bounded number of subschemas, so such a schema (a
// remote server's, say) costs little and reads as what was found.
func TestParams_AlternativesThatMultiplyAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"properties":{"x":{"$ref":"#/$defs/A0"}},"$defs":{`)
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"A%d":{"anyOf":[`, i)
		for j := range 8 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"$ref":"#/$defs/A%d"}`, i+1)
		}
		b.WriteString("]}")
	}
	b.WriteString(`,"A40":{"type":"string"}}}`)
	ps := Params(json.RawMessage(b.String()))
	require.Len(t, ps, 1)
	assert.Equal(t, "Any", ps[0].Type, "deeper than the references followed")
}

func FuzzParams(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","description":"d","default":"x"},"b":{"$ref":"#/$defs/B"}},"required":["a"],"$defs":{"B":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}`,
		`{"properties":{"e":{"enum":[1,"a",null,true,[1],{"k":1}]},"c":{"const":1.5},"l":{"allOf":[{},{"$ref":"#"}]}}}`,
		`{"properties":{"x":{"$ref":"#/properties/x"}},"required":["x","y",1]}`,
		`[]`, `{"properties":true}`, `{"properties":{"a":false}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		ps := Params(json.RawMessage(schema))
		seen := map[string]bool{}
		for _, p := range ps {
			if p.Type == "" {
				t.Fatalf("parameter %q has no type", p.Name)
			}
			if seen[p.Name] {
				t.Fatalf("parameter %q listed twice", p.Name)
			}
			seen[p.Name] = true
			_ = ArgLine(p)
		}
		_ = Signature("f", ps)
	})
}
