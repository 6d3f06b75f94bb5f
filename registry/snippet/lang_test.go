package snippet_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
)

func parseBody(t *testing.T, body string, params map[string]snippet.Param) (*snippet.Snippet, error) {
	t.Helper()
	return snippet.Parse("s", snippet.Definition{Body: body, Params: params})
}

// The body language: comments, blank lines, dotted tool names, dashed
// argument names, calls spread over lines inside the parentheses, trailing
// commas, every JSON literal, nested arrays and objects, placeholders
// alone and inside strings, references with paths.
func TestParse_AcceptsTheLanguage(t *testing.T) {
	body := `# research a topic
r = brave.search(query="{{ topic }} news", count={{ n }})   # first

x = web-tools.fetch_v2(
    url=r.items[0].url,       # a path
    opts={"depth": [1, 2.5, -3e2, true, false, null], "k": {{ n }}},
    raw=r["odd-key"],
    list=[r, "{{ topic }}", {{ topic }}],
    max-bytes=1000,
)
done()
`
	s, err := parseBody(t, body, map[string]snippet.Param{"topic": {}, "n": {Default: 3}})
	require.NoError(t, err)
	assert.Equal(t, []string{"brave.search", "web-tools.fetch_v2", "done"}, s.Tools())
}

// Parse errors name the snippet, the line and the column, and say what
// was expected; they wrap ErrInvalid and are *ParseError values.
func TestParse_ErrorsNameSnippetAndLine(t *testing.T) {
	params := map[string]snippet.Param{"topic": {}, "count": {Default: 5}}
	cases := []struct {
		name, body, want string
	}{
		{"unknown placeholder", `r = a(q="{{ topc }}")`, `snippet "s": line 1, column 13: unknown parameter "topc" in {{ topc }}; parameters: topic, count`},
		{"unknown placeholder alone", "a()\nb(n={{ cnt }})", `snippet "s": line 2, column 8: unknown parameter "cnt"`},
		{"undefined reference", `a(x=r)`, `snippet "s": line 1, column 5: "r" is not assigned before this line; there are no names assigned so far`},
		{"reference on its own line", `r = a(x=r.items)`, `line 1, column 9: "r" is not assigned before this line`},
		{"reference to a later name", "a(x=later)\nlater = b()", `line 1, column 5: "later" is not assigned before this line`},
		{"duplicate assignment", "r = a()\nr = b()", `snippet "s": line 2, column 1: "r" is already assigned on line 1; use a new name`},
		{"duplicate argument", `a(x=1, x=2)`, `line 1, column 8: argument "x" is given twice`},
		{"duplicate key", `a(x={"k": 1, "k": 2})`, `line 1, column 14: object key "k" is given twice`},
		{"unclosed string", "a(q=\"abc)\nb()", `line 1, column 5: string literal is not closed on its line`},
		{"missing parenthesis", `a(x=1`, `line 1, column 6: expected , or ) after the value of "x", got end of body`},
		{"body ends early before a newline", "a(x=1\n", `line 1, column 6: expected , or ) after the value of "x", got end of body`},
		{"body ends early before blank lines", "r = a(x=1)\nb(y=\n  \n\n", `line 2, column 5: expected a value (a JSON literal, {{ param }} or a name assigned earlier), got end of body`},
		{"two calls on a line", `a() b()`, `line 1, column 5: expected the end of the line after the call of a, got 'b'; write one call per line`},
		{"not a call", `r = 5`, `line 1, column 6: expected ( after the tool name "5", got end of body`},
		{"no tool", `r = (x=1)`, `line 1, column 5: expected a tool name after ` + "`r =`" + `, got '('`},
		{"no parenthesis", `r = tool`, `line 1, column 9: expected ( after the tool name "tool", got end of body`},
		{"bad number", `a(x=01)`, `line 1, column 5: "01" is not a JSON number`},
		{"bad value", `a(x=@)`, `line 1, column 5: expected a value (a JSON literal, {{ param }} or a name assigned earlier), got '@'`},
		{"bad escape", `a(x="\q")`, `line 1, column 6: invalid string literal`},
		{"escape cut by a placeholder", `a(x="ab\u{{ count }}")`, `line 1, column 8: invalid string literal: a \u escape needs four hexadecimal digits; a placeholder cannot be part of one`},
		{"escape cut short by a placeholder", `a(x="\u12{{ count }}")`, `line 1, column 6: invalid string literal: a \u escape needs four hexadecimal digits`},
		{"escaped backslash before u and a placeholder", `a(x="\\u{{ count }}\q")`, `line 1, column 20: invalid string literal: 'q' in string escape code`},
		{"placeholder in key", `a(x={"{{ topic }}": 1})`, `line 1, column 7: placeholders are not allowed in object keys`},
		{"unclosed placeholder", `a(x="{{ topic")`, `line 1, column 14: expected }} to close {{ topic, got '"'`},
		{"literal assigned", `true = a()`, `line 1, column 1: "true" is a JSON literal and cannot be a name`},
		{"dotted name assigned", `a.b = c()`, `line 1, column 1: "a.b" cannot be assigned to`},
		{"bad index", `r = a()` + "\n" + `b(x=r[-1])`, `line 2, column 7: expected an index (0 to 999999999) or a quoted key after [`},
		{"empty body", "# nothing\n\n", `snippet "s": body has no tool call`},
		{"column counts characters", `a(x="é", y=@)`, `line 1, column 12: expected a value`},
		{"single-quoted string", `a(x='abc')`, `line 1, column 5: expected a value, got a single quote; strings are JSON strings, in double quotes ("text")`},
		{"Python True", `a(x=True)`, `line 1, column 5: True is not a value here; values are JSON, so write true`},
		{"Python None in an array", `a(x=[1, None])`, `line 1, column 9: None is not a value here; values are JSON, so write null`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseBody(t, c.body, params)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.ErrorIs(t, err, snippet.ErrInvalid)
			var pe *snippet.ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "s", pe.Snippet)
		})
	}
}

// Several problems are reported at once: each unknown name, each
// duplicate, each bad parameter.
func TestParse_ReportsEveryProblem(t *testing.T) {
	_, err := snippet.Parse("multi", snippet.Definition{
		Params: map[string]snippet.Param{"bad name": {}, "ok": {Default: make(chan int)}},
		Body:   "r = a(x={{ nope }})\nr = b(y=q)\n",
	})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		`snippet "multi": param "bad name": a parameter name is a letter or _`,
		`snippet "multi": param "ok": default cannot be written as JSON`,
		`snippet "multi": line 1, column 12: unknown parameter "nope"`,
		`snippet "multi": line 2, column 9: "q" is not assigned before this line; names assigned so far: r`,
		`snippet "multi": line 2, column 1: "r" is already assigned on line 1`,
	} {
		assert.Contains(t, msg, want)
	}
}

// The name must make a valid tool name snippet.{name}.
func TestParse_Name(t *testing.T) {
	for _, bad := range []string{"", "has space", "ümlaut", strings.Repeat("n", 121)} {
		_, err := snippet.Parse(bad, snippet.Definition{Body: "a()"})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "the name must be 1 to 120 characters from [A-Za-z0-9_.-]")
	}
	_, err := snippet.Parse(strings.Repeat("n", 120), snippet.Definition{Body: "a()"})
	assert.NoError(t, err)
}

// A default must be JSON; a nil value (here a nil pointer) is refused, as
// it would be indistinguishable from "required". A null default is said
// with NullDefault.
func TestParse_Defaults(t *testing.T) {
	var nilPtr *int
	_, err := snippet.Parse("d", snippet.Definition{Params: map[string]snippet.Param{"p": {Default: nilPtr}}, Body: "a()"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `param "p": default is a nil value; leave the default out to make the parameter required, or give snippet.NullDefault for a null default`)
}

// A null default (NullDefault, or the raw JSON null a host holding JSON
// passes, as a configuration's `default: null` gives it) makes the
// parameter optional: the schema says default null and requires nothing,
// any type may be given, and a call leaving it out runs with null.
func TestParse_NullDefault(t *testing.T) {
	for name, def := range map[string]any{"NullDefault": snippet.NullDefault, "raw": json.RawMessage(" null ")} {
		t.Run(name, func(t *testing.T) {
			rec := newRecorder(t, nil, "t")
			s, err := snippet.Parse("n", snippet.Definition{
				Params: map[string]snippet.Param{"o": {Description: "optional", Default: def}, "r": {}},
				Body:   "t(o={{ o }}, r={{ r }})",
			})
			require.NoError(t, err)
			ps := s.Params()
			require.Len(t, ps, 2)
			assert.Equal(t, snippet.ParamInfo{Name: "r", Required: true}, ps[0], "required parameters come first")
			assert.Equal(t, snippet.ParamInfo{Name: "o", Description: "optional"}, ps[1])
			assert.JSONEq(t, `{"type":"object","properties":{"r":{},"o":{"description":"optional","default":null}},"required":["r"],"additionalProperties":false}`,
				string(s.InputSchema()))
			assert.Equal(t, `{"type":"object","properties":{"r":{},"o":{"description":"optional","default":null}},"required":["r"],"additionalProperties":false}`,
				string(s.InputSchema()), "the properties are in the parameters' order")

			res, err := s.Run(context.Background(), rec.reg, map[string]any{"r": 1})
			require.NoError(t, err)
			require.True(t, res.Success, res.Error)
			res, err = s.Run(context.Background(), rec.reg, map[string]any{"r": 1, "o": map[string]any{"k": "v"}})
			require.NoError(t, err)
			require.True(t, res.Success, res.Error)
			calls := rec.recorded()
			require.Len(t, calls, 2)
			assert.JSONEq(t, `{"o":null,"r":1}`, calls[0].Args, "left out, the parameter is null")
			assert.JSONEq(t, `{"o":{"k":"v"},"r":1}`, calls[1].Args, "given, it may be of any type")
		})
	}
}

// Caps: body size, lines, calls, nesting depth, reference path length,
// parameters.
func TestParse_Caps(t *testing.T) {
	cases := []struct {
		name string
		def  snippet.Definition
		want string
	}{
		{"body bytes", snippet.Definition{Body: "a()\n" + strings.Repeat("#", snippet.MaxBodyBytes)}, "body is 65540 bytes; at most 65536 are accepted"},
		{"lines", snippet.Definition{Body: "a()" + strings.Repeat("\n", snippet.MaxLines) + "#"}, "body has 1001 lines; at most 1000 are accepted"},
		{"depth of empty lists", snippet.Definition{Body: "a(x=" + strings.Repeat("[", snippet.MaxDepth+1) + strings.Repeat("]", snippet.MaxDepth+1) + ")"}, "values nest more than 16 levels deep"},
		{"calls", snippet.Definition{Body: strings.Repeat("a()\n", snippet.MaxCalls+1)}, "line 101, column 1: more than 100 tool calls"},
		{"depth", snippet.Definition{Body: "a(x=" + strings.Repeat("[", snippet.MaxDepth+2) + strings.Repeat("]", snippet.MaxDepth+2) + ")"}, "values nest more than 16 levels deep"},
		{"path", snippet.Definition{Body: "r = a()\nb(x=r" + strings.Repeat(".f", snippet.MaxDepth+1) + ")"}, "line 2, column 5: reference r.f.f"},
		{"params", snippet.Definition{Body: "a()", Params: manyParams(snippet.MaxParams + 1)}, "65 parameters; at most 64 are accepted"},
		{"invalid UTF-8", snippet.Definition{Body: "a()\nb(x=\"\xff\")"}, "line 2, column 6: body is not valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := snippet.Parse("cap", c.def)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	// At the caps, a body is accepted.
	_, err := snippet.Parse("cap", snippet.Definition{Body: strings.Repeat("a()\n", snippet.MaxCalls)})
	assert.NoError(t, err)
	_, err = snippet.Parse("cap", snippet.Definition{Body: "a(x=" + strings.Repeat("[", snippet.MaxDepth) + "1" + strings.Repeat("]", snippet.MaxDepth) + ")"})
	assert.NoError(t, err, "16 nested lists, a value in the innermost")
	// MaxLines lines, the last ended by a line break as a YAML block
	// scalar (|) ends it.
	_, err = snippet.Parse("cap", snippet.Definition{Body: "a()\n" + strings.Repeat("# note\n", snippet.MaxLines-1)})
	assert.NoError(t, err)
}

func manyParams(n int) map[string]snippet.Param {
	m := map[string]snippet.Param{}
	for i := range n {
		m[fmt.Sprintf("p%d", i)] = snippet.Param{}
	}
	return m
}

// Past MaxErrors problems, Parse says there are more instead of listing
// them all.
func TestParse_ErrorCountCapped(t *testing.T) {
	_, err := parseBody(t, "a("+strings.Repeat("x={{ u }}, ", 1)+")\n"+strings.Repeat("b(y={{ u }})\n", 30), nil)
	require.Error(t, err)
	var n int
	for _, e := range unwrapAll(err) {
		var pe *snippet.ParseError
		if errors.As(e, &pe) {
			n++
		}
	}
	assert.Equal(t, snippet.MaxErrors+1, n)
	assert.Contains(t, err.Error(), "more problems were found; only the first 10 are reported")
}

func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Params are listed required first, then optional, each by name, with
// types inferred from the defaults.
func TestParse_ParamsOrderAndTypes(t *testing.T) {
	s, err := snippet.Parse("p", snippet.Definition{
		Params: map[string]snippet.Param{
			"zeta": {}, "alpha": {},
			"i": {Default: 5}, "f": {Default: 2.5}, "s": {Default: "x"}, "b": {Default: false},
			"a": {Default: []string{"x"}}, "o": {Default: map[string]int{"k": 1}},
		},
		Body: "t()",
	})
	require.NoError(t, err)
	var got []string
	for _, p := range s.Params() {
		got = append(got, p.Name+":"+p.Type)
	}
	assert.Equal(t, []string{"alpha:", "zeta:", "a:array", "b:boolean", "f:number", "i:integer", "o:object", "s:string"}, got)
}

// CheckName is the one rule for snippet names (Parse and the host
// configuration use it): exactly the names whose tool snippet.{name} the
// registry accepts; the error names the snippet and says what is allowed.
func TestCheckName_IsTheRegistryRuleForSnippetTools(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.OneOf(rapid.StringMatching(`[A-Za-z0-9_.-]{0,130}`), rapid.String()).Draw(t, "name")
		err := snippet.CheckName(name)
		require.Equal(t, name != "" && registry.ValidName(snippet.ToolPrefix+name), err == nil, "%q: %v", name, err)
		if err != nil {
			require.ErrorIs(t, err, snippet.ErrInvalid)
			require.Contains(t, err.Error(), fmt.Sprintf("snippet %q: the name must be 1 to %d characters from [A-Za-z0-9_.-]", name, snippet.MaxNameLen))
		}
	})
	assert.Equal(t, 120, snippet.MaxNameLen)
}
