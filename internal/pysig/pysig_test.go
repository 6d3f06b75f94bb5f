package pysig

import (
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
