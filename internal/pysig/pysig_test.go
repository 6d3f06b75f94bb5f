package pysig

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
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
