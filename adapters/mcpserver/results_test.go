package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// kindTool is a hand-built tool with a hand-written output schema (or
// none) returning v; the registry checks v against the schema.
func kindTool(name, schema string, v result.Result[any]) *registry.Tool {
	t := &registry.Tool{
		Name:        name,
		Description: "Returns a fixed " + name + " value.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return v, nil
		},
	}
	if schema != "" {
		t.OutputSchema = json.RawMessage(schema)
	}
	return t
}

// kindWant is what a client gets from one tool of kindTools.
type kindWant struct {
	text       string
	structured string // JSON; "" for none
	isError    bool
}

// kindTools returns one tool of every result kind, with and without an
// output schema (hand-written ones of every form, and those registry.Func
// generates), and what a client must receive from each.
func kindTools(t testing.TB) ([]*registry.Tool, map[string]kindWant) {
	type doc struct {
		ID string `json:"id"`
	}
	tools := []*registry.Tool{
		kindTool("number_schema", `{"type":"integer","minimum":0}`, result.Ok[any](42)),
		kindTool("bool_schema", `{"type":"boolean"}`, result.Ok[any](true)),
		kindTool("array_schema", `{"type":"array","items":{"$ref":"#/$defs/doc"},"$defs":{"doc":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}}}`,
			result.Ok[any]([]doc{{ID: "a"}, {ID: "b"}})),
		kindTool("nullable_schema", `{"type":["object","null"]}`, result.Ok[any](nil).WithMessage("Nothing left.")),
		kindTool("any_schema", `true`, result.Ok[any]("free text")),
		kindTool("object_schema", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, result.Ok[any](doc{ID: "x"})),
		kindTool("string_schema", `{"type":"string"}`, result.Ok[any]("# Title")),
		kindTool("number_free", "", result.Ok[any](7.5)),
		kindTool("array_free", "", result.Ok[any]([]string{"x", "y"})),
		kindTool("nil_free", "", result.Ok[any](nil)),
		kindTool("object_free", "", result.Ok[any](map[string]int{"n": 1})),
		kindTool("string_free", "", result.Ok[any]("plain")),
		kindTool("raw_string_free", "", result.Ok[any](json.RawMessage(`"proxied text"`))),
		kindTool("failure_schema", `{"type":"integer"}`, result.Failure[any]("no such thing", result.NotFound)),
		mustFunc(t, "func_int", func(context.Context, NoArgs) (result.Result[int], error) { return result.Ok(3), nil }, registry.ToolOptions{Doc: "Three."}),
		mustFunc(t, "func_bool", func(context.Context, NoArgs) (result.Result[bool], error) { return result.Ok(false), nil }, registry.ToolOptions{Doc: "False."}),
		mustFunc(t, "func_strings", func(context.Context, NoArgs) (result.Result[[]string], error) {
			return result.Ok([]string{"a"}), nil
		}, registry.ToolOptions{Doc: "A list."}),
		mustFunc(t, "func_struct", func(context.Context, NoArgs) (result.Result[Stats], error) {
			return result.Ok(Stats{Count: 1, Sum: 2}), nil
		}, registry.ToolOptions{Doc: "A struct."}),
	}
	want := map[string]kindWant{
		"number_schema":   {text: `42`, structured: `{"value":42}`},
		"bool_schema":     {text: `true`, structured: `{"value":true}`},
		"array_schema":    {text: `[{"id":"a"},{"id":"b"}]`, structured: `{"value":[{"id":"a"},{"id":"b"}]}`},
		"nullable_schema": {text: `Nothing left.`, structured: `{"value":null}`},
		"any_schema":      {text: `free text`, structured: `{"value":"free text"}`},
		"object_schema":   {text: `{"id":"x"}`, structured: `{"id":"x"}`},
		"string_schema":   {text: `# Title`},
		"number_free":     {text: `7.5`, structured: `{"value":7.5}`},
		"array_free":      {text: `["x","y"]`, structured: `{"value":["x","y"]}`},
		"nil_free":        {text: `null`},
		"object_free":     {text: `{"n":1}`, structured: `{"n":1}`},
		"string_free":     {text: `plain`},
		"raw_string_free": {text: `proxied text`},
		"failure_schema":  {text: `no such thing`, isError: true},
		"func_int":        {text: `3`, structured: `{"value":3}`},
		"func_bool":       {text: `false`, structured: `{"value":false}`},
		"func_strings":    {text: `["a"]`, structured: `{"value":["a"]}`},
		"func_struct":     {text: `{"count":1,"sum":2}`, structured: `{"count":1,"sum":2}`},
	}
	return tools, want
}

// compileListed compiles a listed output schema as a client would.
func compileListed(t *testing.T, name string, schema any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(schema)
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	url := "mem://client/" + name + ".json"
	require.NoError(t, c.AddResource(url, doc))
	s, err := c.Compile(url)
	require.NoError(t, err, "%s: listed output schema compiles: %s", name, b)
	return s
}

// TestResultsEveryClientAccepts: over a real go-sdk client, every listed
// output schema has "type":"object" at the root with object property
// schemas (as the TypeScript SDK requires of tools/list), every success of
// a tool with an output schema carries structuredContent that validates
// against the listed schema, structuredContent is always a JSON object,
// text tools have neither, and failures carry none.
func TestResultsEveryClientAccepts(t *testing.T) {
	tools, want := kindTools(t)
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	require.NoError(t, reg.Add(tools...))
	s := newSession(t, reg, mcpserver.Options{})
	listed := s.tools(t)
	require.Len(t, listed, len(want))
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			lt := listed[name]
			require.NotNil(t, lt)
			res, err := s.call(t, name, nil)
			require.NoError(t, err)
			assert.Equal(t, w.isError, res.IsError)
			assert.Equal(t, w.text, text(t, res))
			if w.structured == "" {
				assert.Nil(t, res.StructuredContent)
			} else {
				jsonEq(t, json.RawMessage(w.structured), res.StructuredContent)
				var obj map[string]any
				b, _ := json.Marshal(res.StructuredContent)
				require.NoError(t, json.Unmarshal(b, &obj), "structuredContent is a JSON object")
			}
			if lt.OutputSchema == nil {
				return
			}
			var root struct {
				Type       string         `json:"type"`
				Properties map[string]any `json:"properties"`
			}
			b, err := json.Marshal(lt.OutputSchema)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &root))
			assert.Equal(t, "object", root.Type, "output schema root type: %s", b)
			for p, ps := range root.Properties {
				_, ok := ps.(map[string]any)
				assert.True(t, ok, "property %q schema is an object: %s", p, b)
			}
			if res.IsError {
				return
			}
			require.NotNil(t, res.StructuredContent, "a tool with an output schema returns structuredContent")
			sc, _ := json.Marshal(res.StructuredContent)
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc))
			require.NoError(t, err)
			assert.NoError(t, compileListed(t, name, lt.OutputSchema).Validate(doc), "structuredContent %s against %s", sc, b)
		})
	}
	for _, n := range []string{"string_schema", "string_free", "nil_free", "object_free", "number_free"} {
		assert.Nil(t, listed[n].OutputSchema, "%s advertises no output schema", n)
	}
}

// TestValueContradictingObjectSchemaIsProtocolError: a value the registry
// let through that is not an object while the tool's schema says object
// (a hand-built tool with CheckOutput that disagrees with its schema) is a
// JSON-RPC error naming the problem in the log, never a result the client
// would reject.
func TestValueContradictingObjectSchemaIsProtocolError(t *testing.T) {
	tool := kindTool("liar", `{"type":"object"}`, result.Ok[any](5))
	tool.CheckOutput = func(any) error { return nil }
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	require.NoError(t, reg.Add(tool))
	logs := &syncBuffer{}
	s := newSession(t, reg, mcpserver.Options{Logger: slogTo(logs)})
	_, err := s.call(t, "liar", nil)
	require.Error(t, err)
	assert.Contains(t, logs.String(), "requires a JSON object, got a number")
}
