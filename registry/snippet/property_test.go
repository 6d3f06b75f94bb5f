package snippet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

// The generated programs' parameters: a string and an integer with
// defaults, and a required one taking any JSON.
var genParams = map[string]snippet.Param{
	"ps":   {Default: "d<ef>"},
	"pn":   {Default: 3},
	"preq": {},
}

// stepValue is what the recording tools return for the call with index i:
// references into it are predictable.
func stepValue(i int) map[string]any {
	return map[string]any{"step": i, "list": []any{i, "x"}, "s": "str"}
}

// gen builds a random program text and the arguments each call must
// receive, given the parameter values.
type gen struct {
	t        *rapid.T
	vals     map[string]any // parameter values after defaults, as JSON data
	assigned []string       // names assigned so far, by step
	stepOf   map[string]int
}

var strAlphabet = []rune(`ab "\<>&é	/{}z`)

func (g *gen) str(label string) string {
	return rapid.StringOfN(rapid.RuneFrom(strAlphabet), 0, 6, -1).Draw(g.t, label)
}

// textOf is the run-time text of a value inside a string.
func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// bodyString writes s as a string literal of a body: JSON, with every {
// escaped so that none starts a placeholder.
func bodyString(s string) string {
	return strings.ReplaceAll(jsonText(s), "{", `\u007b`)
}

func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// value returns a value's source text and the JSON data it stands for.
func (g *gen) value(depth int) (string, any) {
	kinds := []string{"int", "dec", "str", "bool", "null", "ph", "tmpl"}
	if len(g.assigned) > 0 {
		kinds = append(kinds, "ref", "ref")
	}
	if depth < 3 {
		kinds = append(kinds, "arr", "obj")
	}
	params := []string{"ps", "pn", "preq"}
	switch rapid.SampledFrom(kinds).Draw(g.t, "kind") {
	case "int":
		n := rapid.IntRange(-1000, 1000).Draw(g.t, "int")
		return strconv.Itoa(n), n
	case "dec":
		return "2.50", 2.5
	case "str":
		s := g.str("str")
		return bodyString(s), s
	case "bool":
		b := rapid.Bool().Draw(g.t, "bool")
		return strconv.FormatBool(b), b
	case "null":
		return "null", nil
	case "ph":
		p := rapid.SampledFrom(params).Draw(g.t, "param")
		return "{{ " + p + " }}", g.vals[p]
	case "tmpl":
		p := rapid.SampledFrom(params).Draw(g.t, "param")
		pre, post := g.str("pre"), g.str("post")
		src := bodyString(pre)
		src = src[:len(src)-1] + "{{" + p + "}}" + bodyString(post)[1:]
		return src, pre + textOf(g.vals[p]) + post
	case "ref":
		name := rapid.SampledFrom(g.assigned).Draw(g.t, "ref")
		data := stepValue(g.stepOf[name])
		switch rapid.IntRange(0, 3).Draw(g.t, "path") {
		case 0:
			return name, data
		case 1:
			return name + ".step", data["step"]
		case 2:
			return name + ".list[1]", "x"
		default:
			return name + `["s"]`, "str"
		}
	case "arr":
		n := rapid.IntRange(0, 3).Draw(g.t, "len")
		var parts []string
		out := []any{}
		for range n {
			s, v := g.value(depth + 1)
			parts = append(parts, s)
			out = append(out, v)
		}
		return "[" + strings.Join(parts, g.sep()) + "]", out
	default:
		n := rapid.IntRange(0, 3).Draw(g.t, "len")
		var parts []string
		out := map[string]any{}
		for i := range n {
			k := fmt.Sprintf("k%d", i)
			s, v := g.value(depth + 1)
			parts = append(parts, `"`+k+`": `+s)
			out[k] = v
		}
		return "{" + strings.Join(parts, g.sep()) + "}", out
	}
}

// sep is a comma with random white space, comments and newlines (all
// allowed inside brackets).
func (g *gen) sep() string {
	return rapid.SampledFrom([]string{",", ", ", " ,", ",\n  ", ", # note\n"}).Draw(g.t, "sep")
}

type wantCall struct {
	tool string
	args map[string]any
}

// program returns the body and the calls it must make.
func (g *gen) program() (string, []wantCall) {
	n := rapid.IntRange(1, 6).Draw(g.t, "steps")
	var b strings.Builder
	var want []wantCall
	for i := range n {
		if rapid.Bool().Draw(g.t, "blank") {
			b.WriteString(rapid.SampledFrom([]string{"\n", "# comment {{ nope }}\n", "   \n"}).Draw(g.t, "filler"))
		}
		tool := rapid.SampledFrom([]string{"t.a", "t-b", "echo"}).Draw(g.t, "tool")
		assign := ""
		if rapid.Bool().Draw(g.t, "assign") {
			assign = fmt.Sprintf("v%d", i)
			b.WriteString(assign + rapid.SampledFrom([]string{" = ", "=", "\t= "}).Draw(g.t, "eq"))
		}
		b.WriteString(tool + "(")
		nargs := rapid.IntRange(0, 4).Draw(g.t, "nargs")
		args := map[string]any{}
		for j := range nargs {
			if j > 0 {
				b.WriteString(g.sep())
			}
			name := fmt.Sprintf("a%d", j)
			src, v := g.value(0)
			b.WriteString(name + rapid.SampledFrom([]string{"=", " = "}).Draw(g.t, "aeq") + src)
			args[name] = v
		}
		if nargs > 0 && rapid.Bool().Draw(g.t, "trailing") {
			b.WriteString(",")
		}
		b.WriteString(")" + rapid.SampledFrom([]string{"", "  # done", " "}).Draw(g.t, "end") + "\n")
		want = append(want, wantCall{tool: tool, args: args})
		if assign != "" {
			g.assigned = append(g.assigned, assign)
			g.stepOf[assign] = i
		}
	}
	return b.String(), want
}

func stepReply(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
	return result.Ok[any](stepValue(i)), nil
}

// Property: a random valid program, run against a recording registry,
// calls its tools in order, each with the arguments the program says
// (placeholders, templates and references evaluated), and running the
// program's expansion (Expand) without parameters sends the very same
// calls.
func TestRunProperty_CallsInOrderWithExpectedArguments(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		given := map[string]any{"preq": rapid.SampledFrom([]any{"req", 7, []any{"a", 1}, map[string]any{"k": "v"}}).Draw(rt, "preq")}
		vals := map[string]any{"ps": "d<ef>", "pn": 3, "preq": given["preq"]}
		if rapid.Bool().Draw(rt, "give_ps") {
			s := rapid.StringOfN(rapid.RuneFrom(strAlphabet), 0, 5, -1).Draw(rt, "ps")
			given["ps"], vals["ps"] = s, s
		}
		if rapid.Bool().Draw(rt, "give_pn") {
			n := rapid.IntRange(-50, 50).Draw(rt, "pn")
			given["pn"], vals["pn"] = n, n
		}
		g := &gen{t: rt, vals: vals, stepOf: map[string]int{}}
		body, want := g.program()

		s, err := snippet.Parse("prop", snippet.Definition{Params: genParams, Body: body})
		require.NoError(rt, err, body)
		rec := newRecorder(rt, stepReply, "t.a", "t-b", "echo")
		res, err := s.Run(context.Background(), rec.reg, given)
		require.NoError(rt, err, body)
		require.True(rt, res.Success, res.Error)
		assert.Equal(rt, stepValue(len(want)-1), res.Value, "the last call's value")
		calls := rec.recorded()
		require.Len(rt, calls, len(want), body)
		for i, c := range calls {
			assert.Equal(rt, want[i].tool, c.Tool, "call %d", i)
			wantJSON, err := json.Marshal(want[i].args)
			require.NoError(rt, err)
			assert.JSONEq(rt, string(wantJSON), c.Args, "call %d of\n%s", i, body)
		}

		expanded, err := s.Expand(given)
		require.NoError(rt, err)
		s2, err := snippet.Parse("expanded", snippet.Definition{Body: expanded})
		require.NoError(rt, err, expanded)
		rec2 := newRecorder(rt, stepReply, "t.a", "t-b", "echo")
		_, err = s2.Run(context.Background(), rec2.reg, nil)
		require.NoError(rt, err)
		assert.Equal(rt, calls, rec2.recorded(), "expansion of\n%s", body)
	})
}

// Property: the input schema (compiled by the JSON Schema library the
// registry uses) accepts exactly the arguments DecodeArguments accepts.
func TestSchemaProperty_AgreesWithDecode(t *testing.T) {
	s, err := snippet.Parse("brv_research", snippet.Definition{
		Params: map[string]snippet.Param{
			"topic": {}, "count": {Default: 5}, "ratio": {Default: 0.5}, "tag": {Default: "x"},
			"on": {Default: true}, "list": {Default: []any{}}, "obj": {Default: map[string]any{}},
		},
		Body: "a()",
	})
	require.NoError(t, err)
	sch := compile(t, s.InputSchema())
	values := []string{`"s"`, `3`, `3.0`, `2.5`, `-1`, `true`, `null`, `[]`, `[1]`, `{}`, `{"a":1}`}
	keys := []string{"topic", "count", "ratio", "tag", "on", "list", "obj", "extra"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 5).Draw(rt, "n")
		var parts []string
		used := map[string]bool{}
		for range n {
			k := rapid.SampledFrom(keys).Draw(rt, "key")
			if used[k] {
				continue
			}
			used[k] = true
			parts = append(parts, `"`+k+`":`+rapid.SampledFrom(values).Draw(rt, "value"))
		}
		raw := "{" + strings.Join(parts, ",") + "}"
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
		require.NoError(rt, err)
		schemaOK := sch.Validate(inst) == nil
		_, decErr := s.DecodeArguments(json.RawMessage(raw))
		assert.Equal(rt, schemaOK, decErr == nil, "%s: schema %v, decode %v", raw, schemaOK, decErr)
	})
}
