package catalogueadmin

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A property given by reference ("$ref": "#/$defs/Address") gets the
// fields of what it refers to — a fieldset for an object, a select for an
// enum — with its own description kept; a recursive reference nests only
// as deep as any object, and one that points at nothing is entered as
// JSON. The posted fields read back into the arguments.
func TestFormFields_ReferencesFollowed(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"home":{"$ref":"#/$defs/Address","description":"Where you live."},
		"color":{"$ref":"#/$defs/Color"},
		"tree":{"$ref":"#/$defs/Node"},
		"gone":{"$ref":"#/$defs/Nope"}},
		"required":["home"],
		"$defs":{"Address":{"type":"object","description":"An address.","properties":{"city":{"type":"string"},"zip":{"type":"integer"}},"required":["city"]},
			"Color":{"enum":["red","green"]},
			"Node":{"type":"object","properties":{"n":{"type":"integer"},"next":{"$ref":"#/$defs/Node"}}}}}`)
	fields, msg := formFields(schema, nil)
	require.Empty(t, msg)
	byName := map[string]formField{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	home := byName["home"]
	assert.Equal(t, "object", home.Kind)
	assert.Equal(t, "Where you live.", home.Description, "the property's own description is kept")
	require.Len(t, home.Fields, 2)
	assert.Equal(t, "city", home.Fields[0].Name)
	assert.True(t, home.Fields[0].Required)
	assert.Equal(t, "integer", home.Fields[1].Kind)
	assert.Equal(t, "enum", byName["color"].Kind)
	assert.Equal(t, []string{"red", "green"}, byName["color"].Options)
	assert.Equal(t, "json", byName["gone"].Kind)
	depth, f := 0, byName["tree"]
	for f.Kind == "object" {
		depth++
		f = f.Fields[1] // next
	}
	assert.Equal(t, maxFormDepth, depth, "a recursive reference nests as deep as any object")
	assert.Equal(t, "json", f.Kind)

	args, problems := formArgs(schema, url.Values{"arg.home.city": {"Oslo"}, "arg.home.zip": {"150"}, "arg.color": {"green"}})
	require.Empty(t, problems)
	assert.Equal(t, map[string]any{"home": map[string]any{"city": "Oslo", "zip": int64(150)}, "color": "green"}, args)
}

// The tester refuses a field holding bytes that are not UTF-8 (json.Marshal
// would have sent U+FFFD in their place, the tool running on text nobody
// typed) and a JSON field with more after its value (the rest was
// dropped), each named by the argument's path.
func TestFormArgs_InvalidUTF8AndTrailingJSONRefused(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"l":{"type":"array"},
		"f":{"type":"object","properties":{"city":{"type":"string"}}}}}`)
	args, problems := formArgs(schema, url.Values{"arg.q": {"a\xffb"}, "arg.l": {"[1] [2]"}, "arg.f.city": {"Z\xfcrich"}})
	got := map[string]string{}
	for _, p := range problems {
		got[p.Field] = p.Problem
	}
	assert.Equal(t, map[string]string{
		"q":      "expected text of valid UTF-8, got bytes that are not",
		"l":      `expected one JSON value, got more after it in "[1] [2]"`,
		"f.city": "expected text of valid UTF-8, got bytes that are not",
	}, got)
	assert.Empty(t, args)

	args, problems = formArgs(schema, url.Values{"arg.q": {"d\u00e9j\u00e0"}, "arg.l": {" [1, 2] \n"}, "arg.f.city": {"Z\u00fcrich"}})
	require.Empty(t, problems)
	assert.Equal(t, map[string]any{"q": "d\u00e9j\u00e0", "l": []any{json.Number("1"), json.Number("2")},
		"f": map[string]any{"city": "Z\u00fcrich"}}, args)
}
