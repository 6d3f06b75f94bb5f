package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolpack-go/toolpack/adapters/llm"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// Every tool of every pack, in every format, unmarshals into the official
// SDK's parameter type and marshals back to the same JSON.
func TestExport_EveryPackToolRoundTripsThroughSDKTypes(t *testing.T) {
	reg := allPacks(t)
	require.Greater(t, len(reg.List()), 20)
	cases := []struct {
		f      llm.Format
		strict bool
		sdk    func() any
	}{
		{llm.OpenAIChat, false, func() any { return new(openai.ChatCompletionToolUnionParam) }},
		{llm.OpenAIChat, true, func() any { return new(openai.ChatCompletionToolUnionParam) }},
		{llm.OpenAIResponses, false, func() any { return new(responses.ToolUnionParam) }},
		{llm.OpenAIResponses, true, func() any { return new(responses.ToolUnionParam) }},
		{llm.Anthropic, false, func() any { return new(anthropic.ToolUnionParam) }},
		{llm.Gemini, false, func() any { return new(genai.FunctionDeclaration) }},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/strict=%v", tc.f, tc.strict), func(t *testing.T) {
			defs, err := llm.Export(reg, tc.f, llm.Options{Strict: tc.strict})
			require.NoError(t, err)
			for _, is := range defs.Issues {
				assert.NotEqual(t, llm.Excluded, is.Action, "a pack tool cannot be exported: %s", is)
			}
			require.Len(t, defs.Tools, len(reg.List()))
			for _, d := range defs.Tools {
				p := tc.sdk()
				require.NoError(t, json.Unmarshal(d.JSON, p), d.Tool)
				back, err := json.Marshal(p)
				require.NoError(t, err)
				assert.JSONEq(t, normJSON(t, d.JSON), normJSON(t, back), d.Tool)
			}
			// The whole list unmarshals as the request's tools.
			switch tc.f {
			case llm.OpenAIChat:
				var tools []openai.ChatCompletionToolUnionParam
				require.NoError(t, json.Unmarshal(defs.JSON(), &tools))
				assert.Len(t, tools, len(defs.Tools))
			case llm.Gemini:
				var decls []*genai.FunctionDeclaration
				require.NoError(t, json.Unmarshal(defs.JSON(), &decls))
				assert.Len(t, decls, len(defs.Tools))
			}
		})
	}
}

// Gemini declarations hold only what genai.Schema has fields for: decoding
// with unknown fields refused finds no keyword Gemini does not take.
func TestExport_GeminiOnlySupportedKeywords(t *testing.T) {
	defs, err := llm.Export(allPacks(t), llm.Gemini, llm.Options{})
	require.NoError(t, err)
	for _, d := range defs.Tools {
		dec := json.NewDecoder(bytes.NewReader(d.JSON))
		dec.DisallowUnknownFields()
		var fd genai.FunctionDeclaration
		require.NoError(t, dec.Decode(&fd), "%s: %s", d.Tool, d.JSON)
		if fd.Parameters != nil {
			checkGemini(t, d.Tool, fd.Parameters)
		}
	}
}

// A keyword Gemini takes, holding a value its Schema type cannot decode (a
// schema written by hand or by a remote server: "minimum": ""), is
// dropped and reported, not sent to be refused by the provider.
func TestExport_GeminiKeywordOfTheWrongTypeDropped(t *testing.T) {
	tool := &registry.Tool{Name: "odd", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"integer","minimum":"","maximum":1e400,"description":"ok"},
		"s":{"type":"string","minLength":1.5,"maxLength":3,"title":7,"pattern":"^a"}}}`)}
	defs, err := llm.ExportTools([]*registry.Tool{tool}, llm.Gemini, llm.Options{})
	require.NoError(t, err)
	require.Len(t, defs.Tools, 1)
	dec := json.NewDecoder(bytes.NewReader(defs.Tools[0].JSON))
	dec.DisallowUnknownFields()
	var fd genai.FunctionDeclaration
	require.NoError(t, dec.Decode(&fd), "%s", defs.Tools[0].JSON)
	n, s := fd.Parameters.Properties["n"], fd.Parameters.Properties["s"]
	assert.Nil(t, n.Minimum)
	assert.Nil(t, n.Maximum)
	assert.Equal(t, "ok", n.Description)
	assert.Nil(t, s.MinLength)
	require.NotNil(t, s.MaxLength)
	assert.EqualValues(t, 3, *s.MaxLength)
	assert.Empty(t, s.Title)
	assert.Equal(t, "^a", s.Pattern)
	var dropped []string
	for _, is := range defs.Issues {
		if is.Action == llm.Dropped {
			dropped = append(dropped, is.Path+" "+is.Keyword+": "+is.Detail)
		}
	}
	assert.ElementsMatch(t, []string{
		`/properties/n minimum: Gemini takes minimum as a number, got ""`,
		`/properties/n maximum: Gemini takes maximum as a number, got 1e400`,
		`/properties/s minLength: Gemini takes minLength as a whole number, got 1.5`,
		`/properties/s title: Gemini takes title as a string, got 7`,
	}, dropped)
}

func checkGemini(t *testing.T, tool string, s *genai.Schema) {
	t.Helper()
	valid := []genai.Type{genai.TypeString, genai.TypeNumber, genai.TypeInteger, genai.TypeBoolean, genai.TypeArray, genai.TypeObject, genai.TypeNULL}
	if s.Type == "" {
		assert.NotEmpty(t, s.AnyOf, "%s: a schema without type or anyOf", tool)
	} else {
		assert.Contains(t, valid, s.Type, tool)
	}
	for _, p := range s.Properties {
		checkGemini(t, tool, p)
	}
	if s.Items != nil {
		checkGemini(t, tool, s.Items)
	}
	for _, b := range s.AnyOf {
		checkGemini(t, tool, b)
	}
}

// Names: OpenAI and Anthropic take no dots, so dotted names are sent with
// '_' and looked up back; Gemini keeps them.
func TestExport_NamesFitEachProviderAndMapBack(t *testing.T) {
	reg := allPacks(t)
	for _, f := range llm.Formats() {
		defs, err := llm.Export(reg, f, llm.Options{})
		require.NoError(t, err)
		seen := map[string]bool{}
		for _, d := range defs.Tools {
			assert.False(t, seen[d.Name], "%s: name %q given twice", f, d.Name)
			seen[d.Name] = true
			back, ok := defs.Lookup(d.Name)
			require.True(t, ok)
			assert.Equal(t, d.Tool, back)
			if f == llm.Gemini {
				assert.Equal(t, d.Tool, d.Name)
			} else {
				assert.Regexp(t, `^[a-zA-Z0-9_-]{1,64}$`, d.Name)
			}
		}
		got, ok := defs.Lookup(map[bool]string{true: "ot.tools", false: "ot_tools"}[f == llm.Gemini])
		require.True(t, ok, f)
		assert.Equal(t, "ot.tools", got)
	}
}

// Two registry names that sanitize alike get distinct provider names; the
// one the provider takes as it is keeps it.
func TestExport_NameCollisionsStayApart(t *testing.T) {
	mk := func(name string) *registry.Tool {
		return &registry.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
	}
	long := strings.Repeat("x", 70)
	defs, err := llm.ExportTools([]*registry.Tool{mk("a.b"), mk("a_b"), mk(long + ".1"), mk(long + ".2")}, llm.Anthropic, llm.Options{})
	require.NoError(t, err)
	require.Len(t, defs.Tools, 4)
	names := map[string]string{}
	for _, d := range defs.Tools {
		names[d.Tool] = d.Name
		assert.LessOrEqual(t, len(d.Name), 64)
	}
	assert.Equal(t, "a_b", names["a_b"])
	assert.NotEqual(t, "a_b", names["a.b"])
	assert.NotEqual(t, names[long+".1"], names[long+".2"])
	renamed := 0
	for _, is := range defs.Issues {
		if is.Action == llm.Adapted && is.Path == "" {
			renamed++
		}
	}
	assert.Equal(t, 3, renamed, "every renamed tool is reported")
}

// What strict mode cannot say is reported per tool, and such a tool is
// left out; what it can say differently is adapted and reported.
func TestExport_StrictReportsWhatItCannotExpress(t *testing.T) {
	tools := []*registry.Tool{
		{Name: "map_tool", InputSchema: json.RawMessage(`{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`)},
		{Name: "any_tool", InputSchema: json.RawMessage(`{"type":"object","properties":{"v":{}},"required":["v"]}`)},
		{Name: "fine_tool", InputSchema: json.RawMessage(`{"type":"object","properties":{
			"q":{"type":"string","minLength":1,"description":"Query"},
			"n":{"type":"integer","default":10},
			"url":{"type":"string","format":"uri"},
			"mode":{"oneOf":[{"const":"a"},{"const":"b"}]}},"required":["q"],"additionalProperties":false}`)},
	}
	defs, err := llm.ExportTools(tools, llm.OpenAIChat, llm.Options{Strict: true})
	require.NoError(t, err)
	require.Len(t, defs.Tools, 2)
	assert.Equal(t, "fine_tool", defs.Tools[0].Tool)
	assert.Equal(t, "map_tool", defs.Tools[1].Tool)

	byTool := map[string][]llm.Issue{}
	for _, is := range defs.Issues {
		byTool[is.Tool] = append(byTool[is.Tool], is)
	}
	assert.True(t, hasIssue(byTool["map_tool"], "/properties/labels", "type", llm.Adapted), "a free-form object goes as its JSON text")
	assert.Contains(t, string(defs.Tools[1].JSON), `"labels":{"description":"A JSON object, written as a string.","type":["string","null"]}`)
	assert.True(t, hasIssue(byTool["any_tool"], "/properties/v", "type", llm.Excluded))
	fine := byTool["fine_tool"]
	assert.True(t, hasIssue(fine, "/properties/q", "minLength", llm.Dropped))
	assert.True(t, hasIssue(fine, "/properties/n", "default", llm.Adapted))
	assert.True(t, hasIssue(fine, "/properties/n", "required", llm.Adapted))
	assert.True(t, hasIssue(fine, "/properties/url", "format", llm.Dropped))
	assert.True(t, hasIssue(fine, "/properties/mode", "oneOf", llm.Adapted))

	var tool struct {
		Function struct {
			Strict     bool           `json:"strict"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	}
	require.NoError(t, json.Unmarshal(defs.Tools[0].JSON, &tool))
	assert.True(t, tool.Function.Strict)
	p := tool.Function.Parameters
	assert.ElementsMatch(t, []any{"mode", "n", "q", "url"}, p["required"])
	props := p["properties"].(map[string]any)
	assert.Equal(t, []any{"integer", "null"}, props["n"].(map[string]any)["type"])
	assert.Contains(t, props["n"].(map[string]any)["description"], "Default: 10.")
	assert.Equal(t, "string", props["q"].(map[string]any)["type"], "a required property stays non-null")
	mode := props["mode"].(map[string]any)["anyOf"].([]any)
	assert.Contains(t, mode, map[string]any{"type": "null"})
}

func hasIssue(is []llm.Issue, path, keyword string, a llm.Action) bool {
	return slices.ContainsFunc(is, func(i llm.Issue) bool { return i.Path == path && i.Keyword == keyword && i.Action == a })
}

// Every strict-mode schema of every pack satisfies the strict-mode rules,
// checked independently of the converter.
func TestExport_StrictSatisfiesEveryRule(t *testing.T) {
	for _, f := range []llm.Format{llm.OpenAIChat, llm.OpenAIResponses} {
		defs, err := llm.Export(allPacks(t), f, llm.Options{Strict: true})
		require.NoError(t, err)
		for _, d := range defs.Tools {
			var v map[string]any
			require.NoError(t, json.Unmarshal(d.JSON, &v))
			params := v["parameters"]
			if f == llm.OpenAIChat {
				params = v["function"].(map[string]any)["parameters"]
			}
			for _, problem := range strictProblems(params, "", 1) {
				t.Errorf("%s %s: %s", f, d.Tool, problem)
			}
		}
	}
}

var strictAllowed = map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "anyOf": true, "enum": true, "const": true, "description": true, "pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minItems": true, "maxItems": true}

// strictProblems lists every way s breaks OpenAI's strict-mode rules.
func strictProblems(s any, path string, depth int) []string {
	m, ok := s.(map[string]any)
	if !ok {
		return []string{path + ": not a schema object"}
	}
	var out []string
	for k := range m {
		if !strictAllowed[k] {
			out = append(out, fmt.Sprintf("%s: keyword %s not supported", path, k))
		}
	}
	_, typed := m["type"]
	_, enum := m["enum"]
	_, cnst := m["const"]
	_, anyOf := m["anyOf"]
	if !typed && !enum && !cnst && !anyOf {
		out = append(out, path+": no type")
	}
	isObj := m["type"] == "object" || slices.Contains(toList(m["type"]), "object")
	if isObj {
		if depth > 10 {
			out = append(out, path+": nested more than 10 levels")
		}
		props, ok := m["properties"].(map[string]any)
		if !ok {
			out = append(out, path+": properties missing")
		}
		if m["additionalProperties"] != false {
			out = append(out, path+": additionalProperties is not false")
		}
		req := toList(m["required"])
		for name, p := range props {
			if !slices.Contains(req, name) {
				out = append(out, fmt.Sprintf("%s: property %s not required", path, name))
			}
			out = append(out, strictProblems(p, path+"/properties/"+name, depth+1)...)
		}
	}
	if it, ok := m["items"]; ok {
		out = append(out, strictProblems(it, path+"/items", depth)...)
	}
	for i, b := range toAnyList(m["anyOf"]) {
		out = append(out, strictProblems(b, fmt.Sprintf("%s/anyOf/%d", path, i), depth)...)
	}
	return out
}

func toAnyList(v any) []any { l, _ := v.([]any); return l }

func toList(v any) []string {
	var out []string
	for _, e := range toAnyList(v) {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Gemini: type lists become one type and nullable, enums of non-strings go
// into the description, exclusive integer bounds become inclusive ones,
// $refs are inlined and recursive ones exclude the tool.
func TestExport_GeminiExpressesNullabilityItsWay(t *testing.T) {
	tools := []*registry.Tool{
		{Name: "g.tool", Description: "Does g.", InputSchema: json.RawMessage(`{"type":"object","$defs":{"day":{"type":"string","enum":["mon","tue",null]}},
			"properties":{"n":{"type":["integer","null"],"exclusiveMinimum":0},"level":{"enum":[1,2,3]},"day":{"$ref":"#/$defs/day"},
			"tags":{"type":"array","items":{"type":"string"}}},"required":["n"]}`)},
		{Name: "rec", InputSchema: json.RawMessage(`{"type":"object","$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`)},
		{Name: "dash", InputSchema: json.RawMessage(`{"type":"object","properties":{"max-results":{"type":"integer"}}}`)},
	}
	defs, err := llm.ExportTools(tools, llm.Gemini, llm.Options{})
	require.NoError(t, err)
	require.Len(t, defs.Tools, 1)
	var fd genai.FunctionDeclaration
	require.NoError(t, json.Unmarshal(defs.Tools[0].JSON, &fd))
	assert.Equal(t, "g.tool", fd.Name)
	n := fd.Parameters.Properties["n"]
	assert.Equal(t, genai.TypeInteger, n.Type)
	require.NotNil(t, n.Nullable)
	assert.True(t, *n.Nullable)
	require.NotNil(t, n.Minimum)
	assert.Equal(t, 1.0, *n.Minimum)
	day := fd.Parameters.Properties["day"]
	assert.Equal(t, []string{"mon", "tue"}, day.Enum)
	assert.True(t, *day.Nullable)
	assert.Contains(t, fd.Parameters.Properties["level"].Description, "One of: 1, 2, 3.")
	assert.Equal(t, []string{"n"}, fd.Parameters.Required)
	assert.NotContains(t, string(defs.Tools[0].JSON), "$ref")
	var excluded []string
	for _, is := range defs.Issues {
		if is.Action == llm.Excluded {
			excluded = append(excluded, is.Tool)
		}
	}
	assert.ElementsMatch(t, []string{"rec", "dash"}, excluded)
}

// A bad format or strict mode outside OpenAI is an error naming it.
func TestExport_BadOptions(t *testing.T) {
	_, err := llm.ExportTools(nil, "cohere", llm.Options{})
	require.ErrorContains(t, err, `got "cohere"`)
	_, err = llm.ExportTools(nil, llm.Anthropic, llm.Options{Strict: true})
	require.ErrorContains(t, err, "Options.Strict")
}

// A tool without arguments still has an object schema with properties
// where the provider wants one, and no parameters for Gemini.
func TestExport_EmptyArguments(t *testing.T) {
	tool, err := registry.Func("noargs", func(_ context.Context, _ struct{}) (result.Result[string], error) { return result.Ok("ok"), nil }, registry.ToolOptions{Doc: "No args."})
	require.NoError(t, err)
	for _, f := range llm.Formats() {
		defs, err := llm.ExportTools([]*registry.Tool{tool}, f, llm.Options{})
		require.NoError(t, err)
		require.Len(t, defs.Tools, 1, f)
		s := string(defs.Tools[0].JSON)
		if f == llm.Gemini {
			assert.NotContains(t, s, "parameters")
		} else {
			assert.Contains(t, s, `"properties":{}`, f)
		}
	}
}
