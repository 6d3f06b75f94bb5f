package catalogue_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

func TestViolations_EveryLeafWithPointerAndKeyword(t *testing.T) {
	s, err := catalogue.CompileSchema(json.RawMessage(`{"type":"object","properties":{
		"q":{"type":"string","minLength":2},
		"items":{"type":"array","items":{"type":"object","properties":{"a/b":{"type":"integer"}}}}},
		"required":["q","n"]}`))
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"q":"x","items":[{"a/b":1},{"a/b":"no"}]}`))
	require.NoError(t, err)
	vs := catalogue.Violations(s.Validate(inst))
	got := map[string]string{}
	for _, v := range vs {
		got[v.Pointer] = v.Keyword + ": " + v.Message
	}
	assert.Equal(t, map[string]string{
		"/n":            "required: is required",
		"/q":            "minLength: must be at least 2 characters long, got 1",
		"/items/1/a~1b": "type: expected integer, got string",
	}, got)
	assert.Equal(t, "items[1].a/b", catalogue.FieldPath("/items/1/a~1b"))
	assert.Equal(t, "", catalogue.FieldPath(""))
	assert.Equal(t, "[0]", catalogue.FieldPath("/0"))

	other := catalogue.Violations(errors.New("boom"))
	assert.Equal(t, []catalogue.Violation{{Keyword: "schema", Message: "boom"}}, other)
	assert.Nil(t, catalogue.Violations(nil))
}

// Arguments breaking a catalogue tool's argSchema are told field by field
// in the words the registry's own checks use: each missing required and
// each unknown property named as a field of its own, bounds said as
// bounds, and nothing listed but the failing keywords (no "validation
// failed" for a property whose items fail).
func TestViolations_FieldByFieldInTheRegistrysWords(t *testing.T) {
	s, err := catalogue.CompileSchema(json.RawMessage(`{"type":"object","additionalProperties":false,
		"properties":{
		  "n":{"type":"integer","minimum":0,"maximum":10},
		  "x":{"type":"number","exclusiveMinimum":0.5,"exclusiveMaximum":1e400},
		  "s":{"type":"string","enum":["a","b"]},
		  "t":{"type":"string","maxLength":3},
		  "z":{},
		  "l":{"type":"array","items":{"type":"integer"},"maxItems":2,"minItems":1},
		  "o":{"type":"object","required":["a/b"],"maxProperties":1}},
		"required":["n","s","z"]}`))
	require.NoError(t, err)
	for in, want := range map[string][]string{
		`{}`: {"/n required: is required", "/s required: is required", "/z required: is required"},
		`{"n":11,"s":"c","z":1,"extra":1,"more":2}`: {
			"/extra additionalProperties: unknown field; the schema does not allow it",
			"/more additionalProperties: unknown field; the schema does not allow it",
			"/n maximum: must be at most 10, got 11",
			"/s enum: value must be one of 'a', 'b'"},
		`{"n":-1,"s":"abcd","t":"abcd","z":1,"l":[1,"x",3],"x":0.25,"o":{"c":1,"d":2}}`: {
			"/l maxItems: must have at most 2 items, got 3",
			"/l/1 type: expected integer, got string",
			"/n minimum: must be at least 0, got -1",
			"/o maxProperties: must have at most 1 field, got 2",
			"/o/a~1b required: is required",
			"/s enum: value must be one of 'a', 'b'",
			"/t maxLength: must be at most 3 characters long, got 4",
			"/x exclusiveMinimum: must be greater than 0.5, got 0.25"},
		`{"n":1e400,"x":2e400,"s":"a","z":1}`: {
			"/n maximum: must be at most 10, got 1e+400",
			"/x exclusiveMaximum: must be less than 1e+400, got 2e+400"},
		`{"n":1.5,"s":null,"z":1,"l":[]}`: {
			"/l minItems: must have at least 1 item, got 0",
			"/n type: expected integer, got number",
			"/s type: expected string, got null"},
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		require.NoError(t, err)
		var got []string
		for _, v := range catalogue.Violations(s.Validate(inst)) {
			got = append(got, v.Pointer+" "+v.Keyword+": "+v.Message)
		}
		assert.ElementsMatch(t, want, got, in)
	}
}
