package catalogue

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// stepsBody is a PUT body of a steps tool: two steps, the second fed by
// the first, placeholders naming argSchema properties (unit has a default).
const stepsBody = `{"displayName": "Weather in a city", "isEnabled": true, "type": "steps",
 "argSchema": {"type": "object",
               "properties": {"city": {"type": "string"}, "unit": {"type": "string", "default": "C"}},
               "required": ["city"]},
 "outputSchema": {"type": "object"},
 "stepsImpl": {"body": "r = geo.lookup(city={{ city }})\nweather.now(lat=r.lat, lon=r.lon, unit=\"{{ unit }}\")\n"}}`

func stepsSpec(body string) ToolSpec {
	return ToolSpec{
		DisplayName: "Steps", IsEnabled: true, Type: TypeSteps,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","default":"C"},"note":{"type":"string"}},"required":["city"]}`),
		StepsImpl: &StepsImpl{Body: body},
	}
}

// A steps tool decodes from its PUT body: stepsImpl.body is kept as
// written.
func TestDecodeToolSpec_StepsImpl(t *testing.T) {
	spec, err := DecodeToolSpec(strings.NewReader(stepsBody))
	require.NoError(t, err)
	assert.Equal(t, TypeSteps, spec.Type)
	require.NotNil(t, spec.StepsImpl)
	assert.Equal(t, "r = geo.lookup(city={{ city }})\nweather.now(lat=r.lat, lon=r.lon, unit=\"{{ unit }}\")\n", spec.StepsImpl.Body)
	assert.Nil(t, spec.GoImpl)
	assert.Nil(t, spec.HTTPImpl)
}

// stepsImpl is strict: an unknown member, a missing or non-string body
// are each a field error.
func TestDecodeToolSpec_StepsImplStrict(t *testing.T) {
	for name, c := range map[string]struct{ impl, field, want string }{
		"unknown field": {`{"body":"a()","steps":[]}`, "stepsImpl.steps", "unknown field; expected one of: body"},
		"missing body":  {`{}`, "stepsImpl.body", "required"},
		"body a number": {`{"body":1}`, "stepsImpl.body", "expected a string, got a number"},
		"not an object": {`"a()"`, "stepsImpl", "expected a JSON object, got a string"},
	} {
		t.Run(name, func(t *testing.T) {
			body := strings.Replace(stepsBody, `{"body": "r = geo.lookup(city={{ city }})\nweather.now(lat=r.lat, lon=r.lon, unit=\"{{ unit }}\")\n"}`, c.impl, 1)
			require.NotEqual(t, stepsBody, body)
			_, err := DecodeToolSpec(strings.NewReader(body))
			fields := decodeErrFields(t, err)
			assert.Contains(t, fields[c.field], c.want, "%v", fields)
		})
	}
}

// stepsImpl is required for type steps and refused on go and http tools;
// a steps tool takes no goImpl or httpImpl.
func TestValidate_StepsImplOnlyForTypeSteps(t *testing.T) {
	s := stepsSpec("a(x={{ city }})")
	s.StepsImpl = nil
	assert.Contains(t, decodeErrFields(t, s.Validate())["stepsImpl"], `expected an object for a tool of type "steps"`)

	h := httpSpec("Echo")
	h.StepsImpl = &StepsImpl{Body: "a()"}
	assert.Contains(t, decodeErrFields(t, h.Validate())["stepsImpl"], `expected no stepsImpl for a tool of type "http"`)
	g := ToolSpec{DisplayName: "Add", IsEnabled: true, Type: TypeGo, ArgSchema: json.RawMessage(`{"type":"object"}`),
		GoImpl: &GoImpl{Func: "add"}, StepsImpl: &StepsImpl{Body: "a()"}}
	assert.Contains(t, decodeErrFields(t, g.Validate())["stepsImpl"], `expected no stepsImpl for a tool of type "go"`)

	s = stepsSpec("a(x={{ city }})")
	s.GoImpl = &GoImpl{Func: "add"}
	s.HTTPImpl = httpSpec("x").HTTPImpl
	f := decodeErrFields(t, s.Validate())
	assert.Contains(t, f["goImpl"], "expected no goImpl")
	assert.Contains(t, f["httpImpl"], "expected no httpImpl")

	require.NoError(t, stepsSpec("a(x={{ city }})").Validate())
}

// A placeholder naming no argSchema property is a 400 naming the line and
// the column; so is every other syntax or reference problem of the body.
func TestValidate_StepsBodyProblemsNameLineAndColumn(t *testing.T) {
	s := stepsSpec("r = a(x={{ city }})\nb(y={{ ctiy }})\n")
	f := decodeErrFields(t, s.Validate())
	assert.Contains(t, f["stepsImpl.body"], `line 2, column 8: unknown parameter "ctiy" in {{ ctiy }}; parameters: city`)

	f = decodeErrFields(t, stepsSpec("r = a(x=1)\nb(y=q.z)\nc(\n").Validate())
	assert.Contains(t, f["stepsImpl.body"], `line 2, column 5: "q" is not assigned before this line`)

	f = decodeErrFields(t, stepsSpec("a(x=1) b()").Validate())
	assert.Contains(t, f["stepsImpl.body"], "line 1, column 8: expected the end of the line")

	f = decodeErrFields(t, stepsSpec("# nothing\n").Validate())
	assert.Contains(t, f["stepsImpl.body"], "body has no tool call")
}

// A placeholder whose argument a call may leave out (not required, no
// default) is refused: a missing value is never sent as null.
func TestValidate_StepsOptionalPlaceholderNeedsDefault(t *testing.T) {
	f := decodeErrFields(t, stepsSpec("a(x={{ city }}, y={{ unit }}, z=\"{{ note }}\")\nb(z={{ note }})").Validate())
	problems := f["stepsImpl.body"]
	assert.Contains(t, problems, `line 1, column 34: {{ note }} names an argument a call may leave out; list "note" in the argSchema's "required" or give the property a "default"`)
	assert.Equal(t, 1, strings.Count(problems, "{{ note }}"), "reported once: %s", problems)
	assert.NotContains(t, problems, "unit", "unit has a default")
}

// The argSchema of a steps tool is an object schema with properties.
func TestValidate_StepsArgSchemaNeedsProperties(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"object"}`:                              `expected "properties"`,
		`{"type":"object","properties":null}`:            `expected "properties"`,
		`{"type":"object","properties":{"a":1}}`:         `properties["a"]: expected a schema (an object or a boolean), got a number`,
		`{"type":"object","properties":{},"required":3}`: `"required" (an array of strings)`,
		`{"type":"string","properties":{"city":true}}`:   `expected "type": "object" at the root`,
	} {
		s := stepsSpec("a(x=1)")
		s.ArgSchema = json.RawMessage(schema)
		assert.Contains(t, decodeErrFields(t, s.Validate())["argSchema"], want, schema)
	}
	s := stepsSpec("a()")
	s.ArgSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	require.NoError(t, s.Validate(), "no parameters is fine for a body without placeholders")
}

// Caps: the body's size and its number of calls.
func TestValidate_StepsCaps(t *testing.T) {
	big := "a(x=\"" + strings.Repeat("x", MaxStepsBodyBytes) + "\")"
	assert.Contains(t, decodeErrFields(t, stepsSpec(big).Validate())["stepsImpl.body"],
		fmt.Sprintf("expected at most %d bytes, got %d", MaxStepsBodyBytes, len(big)))

	var b strings.Builder
	for range MaxSteps {
		b.WriteString("a(x={{ city }})\n")
	}
	require.NoError(t, stepsSpec(b.String()).Validate(), "exactly MaxSteps calls")
	b.WriteString("a()\n")
	assert.Contains(t, decodeErrFields(t, stepsSpec(b.String()).Validate())["stepsImpl.body"],
		fmt.Sprintf("expected at most %d tool calls, got %d", MaxSteps, MaxSteps+1))
}

// Every problem of a PUT is listed at once: the body's, the schema's and
// the other fields'.
func TestValidate_StepsEveryProblemListed(t *testing.T) {
	body := strings.NewReader(`{"displayName": "", "isEnabled": true, "type": "steps",
	 "argSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
	 "outputSchema": {"type": 12},
	 "stepsImpl": {"body": "a(x={{ town }}, y={{ city }})\nb(y={{ cty }}, z=r)\n"},
	 "goImpl": {"func": "add"}}`)
	_, err := DecodeToolSpec(body)
	f := decodeErrFields(t, err)
	assert.Contains(t, f["displayName"], "non-empty")
	assert.Contains(t, f["outputSchema"], "valid JSON Schema")
	assert.Contains(t, f["goImpl"], "expected no goImpl")
	assert.Contains(t, f["stepsImpl.body"], `line 1, column 8: unknown parameter "town"`)
	assert.Contains(t, f["stepsImpl.body"], `line 2, column 8: unknown parameter "cty"`)
	assert.Contains(t, f["stepsImpl.body"], `line 2, column 18: "r" is not assigned`)
}

// An unknown type names all three types.
func TestValidate_TypeListsSteps(t *testing.T) {
	s := stepsSpec("a()")
	s.Type = "graph"
	assert.Contains(t, decodeErrFields(t, s.Validate())["type"], `expected "go", "http" or "steps", got "graph"`)
}

// ReadStepParams reads names (sorted), required and defaults (compact).
func TestReadStepParams(t *testing.T) {
	sp, err := ReadStepParams(json.RawMessage(`{"type":"object","properties":{"b":{"default": [1, 2]},"a":true,"my-arg":{}},"required":["a","zz"]}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "my-arg"}, sp.Names)
	assert.Equal(t, map[string]bool{"a": true, "zz": true}, sp.Required)
	assert.Equal(t, map[string]json.RawMessage{"b": json.RawMessage(`[1,2]`)}, sp.Defaults)
}

// Property: a body calling n tools, each with a placeholder of a required
// property, is valid exactly when n ≤ MaxSteps; a placeholder naming a
// property that does not exist is always refused, at its line.
func TestValidate_StepsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, MaxSteps+3).Draw(t, "n")
		bad := rapid.IntRange(-1, n-1).Draw(t, "badLine") // -1: none
		var b strings.Builder
		for i := range n {
			param := "city"
			if i == bad {
				param = "nowhere"
			}
			fmt.Fprintf(&b, "r%d = t%d(x={{ %s }})\n", i, i, param)
		}
		err := stepsSpec(b.String()).Validate()
		if bad < 0 && n <= MaxSteps {
			if err != nil {
				t.Fatalf("valid body refused: %v", err)
			}
			return
		}
		if err == nil {
			t.Fatalf("n=%d bad=%d accepted", n, bad)
		}
		if bad >= 0 && !strings.Contains(err.Error(), fmt.Sprintf("line %d, column", bad+1)) {
			t.Fatalf("error does not name line %d: %v", bad+1, err)
		}
	})
}

// Known names exactly the three types.
func TestToolType_Known(t *testing.T) {
	for _, typ := range []ToolType{TypeGo, TypeHTTP, TypeSteps} {
		assert.True(t, typ.Known(), typ)
	}
	for _, typ := range []ToolType{"", "graph", "Steps", "go "} {
		assert.False(t, typ.Known(), typ)
	}
}

// A stored steps tool reads back whole, also after reopening the store.
func TestFileStore_StepsToolRoundTrips(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, newFakeClock().Now)
	b := mustBundle(t, s, "weather")
	key := ToolKey{BundleID: b, Slug: "now", Version: "1"}
	put, err := s.PutTool(ctx, key, stepsSpec("r = geo.lookup(city={{ city }})\n"))
	require.NoError(t, err)
	got, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, put.StepsImpl, got.StepsImpl)
	require.NoError(t, s.Close())
	again := openFile(t, dir, newFakeClock().Now)
	got, err = again.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, TypeSteps, got.Type)
	assert.Equal(t, "r = geo.lookup(city={{ city }})\n", got.StepsImpl.Body)
	assert.Empty(t, again.Problems())
}

// A property default of a steps tool must be valid against the
// property's schema: a call leaving the argument out gets it, so a bad
// default is refused at PUT, named by its path, with every bad default
// listed — including properties whose names need escaping in a JSON
// Pointer and defaults checked through a $ref.
func TestValidate_StepsDefaultsMatchTheirSchema(t *testing.T) {
	s := stepsSpec("a(x={{ city }}, y={{ unit }}, z={{ n }}, w={{ c }})")
	s.ArgSchema = json.RawMessage(`{"type":"object",
	  "$defs": {"small": {"type": "integer", "maximum": 9}},
	  "properties": {"city": {"type": "string"},
	    "unit": {"type": "string", "enum": ["C", "F"], "default": "K"},
	    "n": {"$ref": "#/$defs/small", "default": 12},
	    "c": {"type": "string", "default": "ok"},
	    "a/b~c é": {"type": "boolean", "default": "yes"}},
	  "required": ["city"]}`)
	f := decodeErrFields(t, s.Validate())
	assert.Contains(t, f[`argSchema.properties["unit"].default`], `expected a value the property's schema accepts (a call leaving "unit" out gets it)`)
	assert.Contains(t, f[`argSchema.properties["unit"].default`], `gets it): value must be one of 'C', 'F'`)
	assert.Contains(t, f[`argSchema.properties["n"].default`], "maximum: got 12, want 9")
	assert.Contains(t, f[`argSchema.properties["a/b~c é"].default`], "boolean")
	assert.NotContains(t, f, `argSchema.properties["c"].default`, "a valid default passes")

	ok := stepsSpec("a(x={{ city }}, y={{ unit }})")
	require.NoError(t, ok.Validate(), "the fixture's default C is valid")
}

// A steps tool whose argSchema holds a number the validator is not given
// (here a multipleOf past ±1,000,000, with a default to check against it)
// is refused under argSchema, naming where — never a panic: the defaults
// are checked with a compiler made like every other, which refuses the
// number before compiling.
func TestValidate_StepsDefaultsAgainstAHugeBoundRefused(t *testing.T) {
	s := stepsSpec("a(x={{ n }})")
	s.ArgSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","multipleOf":1e1000001,"default":3}}}`)
	f := decodeErrFields(t, s.Validate())
	assert.Contains(t, f["argSchema"], `at "/properties/n/multipleOf": expected a number written with at most 400 digits`)
	assert.NotContains(t, f, `argSchema.properties["n"].default`)
}
