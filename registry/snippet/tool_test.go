package snippet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

type addArgs struct {
	A int `json:"a" validate:"required"`
	B int `json:"b" validate:"required"`
}

func addTool(t *testing.T, reg *registry.Registry) {
	t.Helper()
	require.NoError(t, registry.AddFunc(reg, "add", func(ctx context.Context, a addArgs) (result.Result[int], error) {
		return result.Ok(a.A + a.B), nil
	}, registry.ToolOptions{Doc: "Adds two numbers."}))
}

// twice is the example snippet.
var twice = snippet.Definition{
	Description: "Add a number to itself",
	Params:      map[string]snippet.Param{"n": {Description: "The number", Default: 21}},
	Body:        "r = add(a={{ n }}, b={{ n }})\n",
}

// Snippets are served as tools snippet.{name}: registered as pack
// "snippet", called through Registry.Invoke like any tool, with the
// defaults and with given values.
func TestPack_SnippetsAsTools(t *testing.T) {
	reg := newRegistry()
	addTool(t, reg)
	p, err := snippet.Pack(map[string]snippet.Definition{"twice": twice, "brv_research": brvResearch()}, reg)
	require.NoError(t, err)
	assert.Equal(t, "snippet", p.Name)
	require.NoError(t, reg.AddPack(p))
	tl, ok := reg.Lookup("snippet.twice")
	require.True(t, ok)
	assert.Equal(t, "snippet", tl.Pack)
	assert.Equal(t, registry.SourceLocal, tl.Source)
	_, ok = reg.Lookup("snippet.brv_research")
	assert.True(t, ok)

	res, err := reg.Invoke(context.Background(), "snippet.twice", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, 42, res.Value)

	res, err = reg.Invoke(context.Background(), "snippet.twice", json.RawMessage(`{"n":4}`))
	require.NoError(t, err)
	assert.Equal(t, 8, res.Value)

	res, err = reg.Invoke(context.Background(), "snippet.twice", json.RawMessage(`{"n":"x","m":1}`))
	require.NoError(t, err)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Equal(t, "invalid arguments: m: unknown parameter; parameters: n; n: expected an integer, got a string", res.Error)
}

// The input schema comes from the params: no default → required; defaults,
// descriptions and inferred types carried; additionalProperties false.
func TestTool_InputSchema(t *testing.T) {
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"type": "object",
		"properties": {
			"topic": {"description": "Topic to research"},
			"count": {"type": "integer", "description": "Number of sources", "default": 5}
		},
		"required": ["topic"],
		"additionalProperties": false
	}`, string(s.InputSchema()))

	none, err := snippet.Parse("none", snippet.Definition{Body: "a()"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{},"additionalProperties":false}`, string(none.InputSchema()))
}

// The tool's description carries the body; Usage has a signature, one line
// per parameter and an example call with the defaults.
func TestTool_DescriptionAndUsage(t *testing.T) {
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	tl := s.Tool(newRegistry())
	assert.Equal(t, "snippet.brv_research", tl.Name)
	assert.Equal(t, "Search web and extract structured findings\n\n"+
		"A snippet: runs these tool calls in order and returns the last call's result.\n\n"+
		"```\n"+
		"results = brave.search(query=\"{{ topic }}\", count={{ count }})\n"+
		"llm.transform(input=results, prompt=\"Extract key findings\")\n"+
		"```", tl.Description)
	assert.Equal(t, "snippet.brv_research(topic: Any, count: int = 5)", tl.Usage.Signature)
	assert.Equal(t, "topic: Topic to research\ncount: Number of sources", tl.Usage.Args)
	assert.Equal(t, `snippet.brv_research(topic="<topic>", count=5)`, tl.Usage.Example)
	assert.Equal(t, "the result of the last call (llm.transform)", tl.Usage.Returns)
	assert.Equal(t, []registry.ErrorSpec{{Type: snippet.ErrorType, Description: tl.Errors[0].Description}}, tl.Errors)
}

// Pack reports every problem of every definition, in name order, and then
// returns no pack; ReplacePack swaps a good one in one step.
func TestPack_ErrorsAndReplace(t *testing.T) {
	reg := newRegistry()
	addTool(t, reg)
	_, err := snippet.Pack(map[string]snippet.Definition{
		"b_bad": {Body: "add(a={{ x }})"},
		"a_bad": {Body: "r = add(a=1, b=1"},
		"good":  twice,
	}, reg)
	require.Error(t, err)
	assert.ErrorIs(t, err, snippet.ErrInvalid)
	assert.Equal(t, `snippet "a_bad": line 1, column 17: expected , or ) after the value of "b", got end of body`+"\n"+
		`snippet "b_bad": line 1, column 10: unknown parameter "x" in {{ x }}; there are no parameters`, err.Error())

	_, err = snippet.Pack(nil, nil)
	assert.EqualError(t, err, "snippet: Pack needs an Invoker (a *registry.Registry), got nil")

	p1, err := snippet.Pack(map[string]snippet.Definition{"twice": twice}, reg)
	require.NoError(t, err)
	require.NoError(t, reg.ReplacePack(p1))
	changed := twice
	changed.Body = "add(a={{ n }}, b=1)"
	p2, err := snippet.Pack(map[string]snippet.Definition{"twice": changed, "three": {Body: "add(a=1, b=2)"}}, reg)
	require.NoError(t, err)
	require.NoError(t, reg.ReplacePack(p2))
	res, err := reg.Invoke(context.Background(), "snippet.twice", nil)
	require.NoError(t, err)
	assert.Equal(t, 22, res.Value)
	res, err = reg.Invoke(context.Background(), "snippet.three", nil)
	require.NoError(t, err)
	assert.Equal(t, 3, res.Value)

	empty, err := snippet.Pack(map[string]snippet.Definition{}, reg)
	require.NoError(t, err)
	assert.Empty(t, empty.Tools)
}

// DecodeArguments reads strict JSON: every problem is a field error.
func TestDecodeArguments(t *testing.T) {
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	vals, err := s.DecodeArguments(json.RawMessage(`{"topic":"Go"}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"topic": "Go", "count": json.Number("5")}, vals)
	vals, err = s.DecodeArguments(json.RawMessage(`{"topic":{"nested":[1]},"count":3.0}`))
	require.NoError(t, err, "a required parameter takes any JSON; 3.0 is an integer")
	assert.Equal(t, json.Number("3.0"), vals["count"])

	cases := map[string]args.FieldError{
		`{"topic":"a","topic":"b"}`: {Field: "topic", Rule: "duplicate", Message: "is given twice"},
		`[1]`:                       {Rule: "type", Message: "the arguments must be a JSON object"},
		`{"topic":`:                 {Rule: "syntax", Message: "the arguments are not valid JSON: they end too early"},
		`{"topic":"a"} {}`:          {Rule: "syntax", Message: "the arguments have data after the JSON object"},
		`{"topic":"a","count":2.5}`: {Field: "count", Rule: "type", Message: "expected an integer, got a number"},
		`{"count":null}`:            {Field: "count", Rule: "type", Message: "expected an integer, got null"},
	}
	for raw, want := range cases {
		_, err := s.DecodeArguments(json.RawMessage(raw))
		var ve *args.ValidationError
		require.ErrorAs(t, err, &ve, raw)
		assert.Equal(t, want, ve.Errors[0], raw)
	}
}

// compile compiles a schema with the library the registry uses for
// output schemas.
func compile(t testing.TB, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("snippet.json", doc))
	sch, err := c.Compile("snippet.json")
	require.NoError(t, err)
	return sch
}

// A step given arguments its tool refuses fails the snippet as a
// validation failure that names the snippet and the line: the field
// problems are the step's (here "a" of add, fed from the untyped
// parameter n), and the text a client shows keeps saying where they are.
func TestPack_StepValidationFailureNamesTheLine(t *testing.T) {
	reg := newRegistry()
	addTool(t, reg)
	p, err := snippet.Pack(map[string]snippet.Definition{"loose": {
		Description: "Adds n to one",
		Params:      map[string]snippet.Param{"n": {Description: "untyped"}},
		Body:        "one = add(a=1, b=1)\nadd(a={{ n }}, b=one)\n",
	}}, reg)
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))

	res, err := reg.Invoke(context.Background(), "snippet.loose", json.RawMessage(`{"n":"3"}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Equal(t, `snippet "loose": line 2: add failed: invalid arguments: a: expected integer, got string "3"`, res.Error)
	assert.Equal(t, `snippet "loose": line 2: add failed: invalid arguments (1 problem):`+"\n"+
		`- a: expected integer, got string "3" [type]`, toolmsg.FailureText(res))
}
