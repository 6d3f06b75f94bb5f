package catalogue_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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

// Through ValidateValue, which knows the schema, an unknown property is
// told with the properties its object may have, as the registry's own
// checks do — at the root and in an object reached through $ref.
func TestValidateValue_UnknownFieldNamesTheAllowedOnes(t *testing.T) {
	s, err := catalogue.CompileSchema(json.RawMessage(`{"type":"object","additionalProperties":false,
		"properties":{"a":{},"o":{"$ref":"#/$defs/o"}},
		"$defs":{"o":{"type":"object","properties":{"k":{},"j":{}},"additionalProperties":false}}}`))
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"b":1,"o":{"z":2}}`))
	require.NoError(t, err)
	var got []string
	for _, v := range catalogue.Violations(catalogue.ValidateValue(s, inst)) {
		got = append(got, v.Pointer+" "+v.Keyword+": "+v.Message)
	}
	assert.ElementsMatch(t, []string{
		"/b additionalProperties: unknown field; expected one of: a, o",
		"/o/z additionalProperties: unknown field; expected one of: j, k",
	}, got)
}

// FuzzViolations: for any schema and any value, ValidateValue and
// Violations never panic (the validator alone panics on 1e1000001 against
// exclusiveMinimum, the first finding, kept in the corpus) and every
// violation is usable: a keyword and a message, and a pointer
// into the value — at the failing value itself, or, for a missing
// required property, at the property's place in an object that lacks it.
func FuzzViolations(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n","m"],"additionalProperties":false}`), []byte(`{"n":4,"x":1}`))
	f.Add([]byte(`{"type":"array","items":{"type":"string","maxLength":2},"maxItems":1}`), []byte(`["abc",1]`))
	f.Add([]byte(`{"$defs":{"p":{"type":"object","required":["a/b~c"]}},"properties":{"o":{"$ref":"#/$defs/p"}}}`), []byte(`{"o":{}}`))
	f.Add([]byte(`{"anyOf":[{"type":"string"},{"type":"number","exclusiveMinimum":1e400}]}`), []byte(`1e300`))
	f.Fuzz(func(t *testing.T, schema, value []byte) {
		s, err := catalogue.CompileSchema(json.RawMessage(schema))
		if err != nil {
			return
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
		if err != nil {
			return
		}
		verr := catalogue.ValidateValue(s, inst)
		vs := catalogue.Violations(verr)
		if verr == nil {
			if vs != nil {
				t.Fatalf("no error, yet violations %+v", vs)
			}
			return
		}
		if len(vs) == 0 {
			t.Fatalf("error %v, no violation", verr)
		}
		for _, v := range vs {
			if v.Keyword == "" || v.Message == "" {
				t.Fatalf("violation without keyword or message: %+v", v)
			}
			if v.Pointer != "" && v.Pointer[0] != '/' {
				t.Fatalf("pointer %q is not a JSON Pointer", v.Pointer)
			}
			_ = catalogue.FieldPath(v.Pointer)
			if v.Keyword == "schema" {
				continue // the whole value, or a keyword the validator does not name
			}
			at, found := resolvePointer(inst, v.Pointer)
			if v.Keyword == "required" {
				if v.Pointer == "" {
					t.Fatalf("required violation on the whole value, not on the missing property: %+v", v)
				}
				parent, _ := resolvePointer(inst, v.Pointer[:strings.LastIndexByte(v.Pointer, '/')])
				if _, isObject := parent.(map[string]any); found || !isObject {
					t.Fatalf("required %q: present %v, parent %T", v.Pointer, found, parent)
				}
				continue
			}
			if !found {
				t.Fatalf("%s violation at %q, which the value does not hold (%v)", v.Keyword, v.Pointer, at)
			}
		}
	})
}

// resolvePointer follows a JSON Pointer into a value decoded by
// jsonschema.UnmarshalJSON.
func resolvePointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// A value holding a number past the validator's bounds (an exponent
// beyond ±400, or more than 400 digits) is refused before the validator
// sees it, as a violation at the number: the validator panics on
// 1e1000001 against a bound and spends 35 ms on each 1e999999. A schema
// with such a number is refused when compiled (the validator would skip
// the bound without a word).
func TestValidateValue_NumbersPastTheBoundsRefused(t *testing.T) {
	s, err := catalogue.CompileSchema(json.RawMessage(`{"type":"object","properties":{
		"x":{"type":"number","exclusiveMinimum":0},"l":{"type":"array","items":{"minimum":0}}}}`))
	require.NoError(t, err)
	for in, at := range map[string]string{
		`{"x":1e1000001}`:   "/x",
		`{"x":-1e-1000001}`: "/x",
		`{"x":1e401}`:       "/x",
		`{"l":[` + strings.Repeat(`1e999999,`, 99) + `1]}`: "/l/0",
		`{"l":[1,` + strings.Repeat("9", 401) + `]}`:       "/l/1",
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
		require.NoError(t, err)
		verr := catalogue.ValidateValue(s, inst)
		var ne *catalogue.NumberError
		require.ErrorAs(t, verr, &ne, in)
		assert.Equal(t, []catalogue.Violation{{Pointer: at, Keyword: "type",
			Message: "expected a number written with at most 400 digits and an exponent between -400 and 400"}},
			catalogue.Violations(verr), in)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"x":1.7976931348623157e308,"l":[4.9e-324, 0]}`))
	require.NoError(t, err)
	assert.NoError(t, catalogue.ValidateValue(s, inst), "every float64 passes")

	_, err = catalogue.CompileSchema(json.RawMessage(`{"properties":{"x":{"minimum":1e1000001}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `at "/properties/x/minimum": expected a number written with at most 400 digits`)
}

// A value breaking its schema at every one of thousands of places gives
// the first MaxViolations violations and one counting the rest.
func TestViolations_CutAtMaxViolations(t *testing.T) {
	s, err := catalogue.CompileSchema(json.RawMessage(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`))
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"tags":[` + strings.Repeat(`1,`, 4999) + `1]}`))
	require.NoError(t, err)
	vs := catalogue.Violations(catalogue.ValidateValue(s, inst))
	require.Len(t, vs, catalogue.MaxViolations+1)
	assert.Equal(t, "/tags/0", vs[0].Pointer)
	last := vs[catalogue.MaxViolations]
	assert.Equal(t, catalogue.KeywordTooManyViolations, last.Keyword)
	assert.Equal(t, "4900 more violations were found and are not listed; fix these and call again", last.Message)

	inst, err = jsonschema.UnmarshalJSON(strings.NewReader(`{"tags":[` + strings.Repeat(`1,`, 99) + `1]}`))
	require.NoError(t, err)
	assert.Len(t, catalogue.Violations(catalogue.ValidateValue(s, inst)), catalogue.MaxViolations, "up to the cap, every one")
}

// One failing keyword may be thousands of violations (an unknown property
// each, a missing required property each): the cap holds for them too,
// the rest counted.
func TestViolations_CutAlsoWithinOneKeyword(t *testing.T) {
	s, err := catalogue.CompileSchema(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`))
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString(`{"q":"x"`)
	for i := range 5000 {
		fmt.Fprintf(&b, `,"k%d":1`, i)
	}
	b.WriteString("}")
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(b.String()))
	require.NoError(t, err)
	vs := catalogue.Violations(catalogue.ValidateValue(s, inst))
	require.Len(t, vs, catalogue.MaxViolations+1)
	assert.Equal(t, catalogue.KeywordTooManyViolations, vs[catalogue.MaxViolations].Keyword)
	assert.Equal(t, "4900 more violations were found and are not listed; fix these and call again", vs[catalogue.MaxViolations].Message)
}

// An output mismatch cut at MaxViolations says how many more there were.
func TestOutputMismatch_CutListSaysHowManyMore(t *testing.T) {
	s, err := catalogue.CompileSchema(json.RawMessage(`{"type":"array","items":{"type":"string"}}`))
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`[` + strings.Repeat(`1,`, 149) + `1]`))
	require.NoError(t, err)
	r := catalogue.OutputMismatch("the result", catalogue.ValidateValue(s, inst))
	assert.True(t, strings.HasSuffix(r.Error, "/99: type; 50 more violations were found and are not listed; fix these and call again"), r.Error)
	assert.NotContains(t, r.Error, "(value): too_many_errors")
}
