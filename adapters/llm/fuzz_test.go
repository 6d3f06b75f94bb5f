package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/toolpack-go/toolpack/adapters/llm"
	"github.com/toolpack-go/toolpack/registry"
)

// FuzzExportSchema: whatever input schema a tool declares (a catalogue or
// proxied tool's is anyone's), every format's export never panics, writes
// valid JSON, keeps strict mode's rules and Gemini's keywords — or leaves
// the tool out with an Excluded issue.
func FuzzExportSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`,
		`{"type":"object","properties":{"n":{"type":["integer","null"],"exclusiveMinimum":0,"default":3}}}`,
		`{"type":"object","$defs":{"d":{"enum":["a",null]}},"properties":{"d":{"$ref":"#/$defs/d"},"e":{"oneOf":[{"const":1},{"type":"string"}]}}}`,
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}},"l":{"type":"array","items":{"type":"object","properties":{"x":{}}}}}}`,
		`{"allOf":[{"type":"object"}],"properties":{"a-b":{"type":"boolean"}}}`,
		`{"type":"object","properties":{"x":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"object","properties":{"y":{"$ref":"#/$defs/x"}}}}}`,
		`[]`, `{"type":"string"}`, `{"properties":{"a":true,"b":false}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		tool := &registry.Tool{Name: "fuzz.tool", Description: "d", InputSchema: schema}
		for _, tc := range []struct {
			f      llm.Format
			strict bool
		}{{llm.OpenAIChat, true}, {llm.OpenAIResponses, false}, {llm.Anthropic, false}, {llm.Gemini, false}} {
			defs, err := llm.ExportTools([]*registry.Tool{tool}, tc.f, llm.Options{Strict: tc.strict})
			if err != nil {
				t.Fatal(err)
			}
			excluded := false
			for _, is := range defs.Issues {
				excluded = excluded || is.Action == llm.Excluded
			}
			if excluded != (len(defs.Tools) == 0) {
				t.Fatalf("%s: excluded=%v but %d tools exported", tc.f, excluded, len(defs.Tools))
			}
			for _, d := range defs.Tools {
				if !json.Valid(d.JSON) {
					t.Fatalf("%s: invalid JSON %s", tc.f, d.JSON)
				}
				switch {
				case tc.strict:
					var v struct {
						Function struct {
							Parameters any `json:"parameters"`
						} `json:"function"`
					}
					if err := json.Unmarshal(d.JSON, &v); err != nil {
						t.Fatal(err)
					}
					if ps := strictProblems(v.Function.Parameters, "", 1); len(ps) > 0 {
						t.Fatalf("strict rules broken for %s: %v\n%s", schema, ps, d.JSON)
					}
				case tc.f == llm.Gemini:
					dec := json.NewDecoder(bytes.NewReader(d.JSON))
					dec.DisallowUnknownFields()
					var fd genai.FunctionDeclaration
					if err := dec.Decode(&fd); err != nil {
						t.Fatalf("gemini: %v\n%s", err, d.JSON)
					}
				}
			}
		}
	})
}

// FuzzDispatchArguments: whatever arguments text a model sends, strict or
// lenient reading never panics and every call gets an outcome with text.
func FuzzDispatchArguments(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":2}`, `{"a":"5","b":"6"}`, `"{\"a\":1}"`, ``, `null`, `{"query":"x","limit":null,"filter":{"lang":null}}`,
		`{"query":"x","filter":"{\"lang\":\"en\"}","limit":"1e3"}`, `{"a":"9007199254740993","b":"-0"}`, `[1,2]`, `{"a":1}{"b":2}`} {
		f.Add(s)
	}
	fx := newFixture(f)
	defs, err := llm.Export(fx.reg, llm.OpenAIChat, llm.Options{Strict: true})
	if err != nil {
		f.Fatal(err)
	}
	d := llm.NewDispatcher(fx.reg, defs, llm.DispatchOptions{Lenient: true})
	f.Fuzz(func(t *testing.T, args string) {
		outs, err := d.Dispatch(context.Background(), []llm.ToolCall{{ID: "1", Name: "calc_add", Arguments: args}, {ID: "2", Name: "search", Arguments: args}})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			if o.Text() == "" && !(o.Result.Success && o.Result.Value == "") {
				t.Fatalf("no text for %q: %+v", args, o)
			}
		}
		if _, err := d.Messages(outs); err != nil {
			t.Fatal(err)
		}
	})
}
