package snippet_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry/snippet"
)

// FuzzParse feeds arbitrary bodies to the parser. It must never panic;
// every error is a *ParseError of the snippet whose line (when it has one)
// lies in the body; a body that parses expands with a value for the
// required parameter to a body that parses too, calling the same tools.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"results = brave.search(query=\"{{ topic }}\", count={{ count }})\nllm.transform(input=results, prompt=\"Extract key findings\")\n",
		"r = add(a={{ count }}, b={{ count }})\n",
		"# c\nr = a(x=[1, {\"k\": r2}], y=\"\\u00e9{{topic}}\")\n",
		"r = a()\nb(x=r.items[0].url, y=r[\"k-1\"], z=r)\n",
		"a(\n  x=1,\n  y=2,\n)\n",
		"a(x=01)", "a(x=\"", "a() b()", "r = = a()", "{{", "a(x={{ topic", "r = a()\nr = a()",
		"a(x=[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]])", "\xff", "a(x=\"\\",
	} {
		f.Add(s)
	}
	params := map[string]snippet.Param{"topic": {}, "count": {Default: 5}}
	f.Fuzz(func(t *testing.T, body string) {
		s, err := snippet.Parse("fz", snippet.Definition{Params: params, Body: body})
		if err != nil {
			lines := strings.Count(body, "\n") + 1
			for _, e := range unwrapAll(err) {
				var pe *snippet.ParseError
				if !errors.As(e, &pe) {
					t.Fatalf("error %v is not a *ParseError", e)
				}
				if pe.Snippet != "fz" || pe.Msg == "" {
					t.Fatalf("error without snippet or message: %#v", pe)
				}
				if pe.Line < 0 || pe.Line > lines || (pe.Line > 0 && pe.Column < 1) {
					t.Fatalf("position %d:%d outside a body of %d lines: %v", pe.Line, pe.Column, lines, pe)
				}
				if !errors.Is(e, snippet.ErrInvalid) {
					t.Fatalf("%v does not wrap ErrInvalid", e)
				}
			}
			return
		}
		exp, err := s.Expand(map[string]any{"topic": "x\"{{y}}"})
		if err != nil {
			t.Fatalf("expand: %v", err)
		}
		s2, err := snippet.Parse("fz2", snippet.Definition{Body: exp})
		if err != nil {
			t.Fatalf("the expansion of %q does not parse: %v\n%s", body, err, exp)
		}
		if a, b := s.Tools(), s2.Tools(); strings.Join(a, ",") != strings.Join(b, ",") {
			t.Fatalf("tools %v became %v", a, b)
		}
	})
}

// FuzzDecodeArguments feeds arbitrary bytes as a snippet tool's arguments:
// never a panic; either values for every parameter or a validation error
// listing at least one field error.
func FuzzDecodeArguments(f *testing.F) {
	for _, s := range []string{`{"topic":"go"}`, `{"topic":1,"count":2}`, `{"count":2.5}`, `{"topic":"a","topic":"b"}`, `[]`, `{`, ``, `{"x":1} 1`, `null`} {
		f.Add([]byte(s))
	}
	s, err := snippet.Parse("brv_research", brvResearch())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		vals, err := s.DecodeArguments(json.RawMessage(raw))
		if err != nil {
			var ve *args.ValidationError
			if !errors.As(err, &ve) || len(ve.Errors) == 0 {
				t.Fatalf("error %v is not a validation error with fields", err)
			}
			return
		}
		if _, ok := vals["topic"]; !ok {
			t.Fatalf("accepted %q without the required topic", raw)
		}
		if _, ok := vals["count"].(json.Number); !ok {
			t.Fatalf("count is %T", vals["count"])
		}
		// Accepted values run (against a registry without the tools: the
		// first call is an unknown tool, never a panic).
		_, _ = s.Run(context.Background(), newRegistry(), vals)
	})
}
