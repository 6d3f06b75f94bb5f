package snippet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

// textReply makes src answer text (as every proxied MCP tool does) and
// every other tool null.
func textReply(text string) func(int, string, json.RawMessage) (result.Result[any], error) {
	return func(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
		if tool == "src" {
			return result.Ok[any](text), nil
		}
		return result.Ok[any](nil), nil
	}
}

// runRefs runs `r = src()` then `dst(<args>)` with src answering text,
// and returns the Result and the arguments dst received ("" when it was
// not called).
func runRefs(t require.TestingT, text, args string) (result.Result[any], string) {
	rec := newRecorder(t, textReply(text), "src", "dst")
	s, err := snippet.Parse("refs", snippet.Definition{Body: "r = src()\ndst(" + args + ")"})
	require.NoError(t, err)
	res, err := s.Run(context.Background(), rec.reg, nil)
	require.NoError(t, err)
	calls := rec.recorded()
	if len(calls) < 2 {
		return res, ""
	}
	return res, calls[1].Args
}

// A tool answering a JSON object or array as text (a proxied MCP tool's
// text result) is indexed like the value itself: fields, elements and
// paths through strings that hold JSON in turn; large integers and
// decimals pass as written, never rounded; r alone, and a path ending at
// a string, pass the text unchanged.
func TestRun_ReferenceIntoJSONText(t *testing.T) {
	text := " \n{\"name\": \"Ada\", \"id\": 12345678901234567890, \"ratio\": 1.50,\n \"tags\": [\"a\", \"b\"], \"inner\": \"[{\\\"x\\\": 9007199254740993}]\"}\t\n"
	res, got := runRefs(t, text, `name=r.name, id=r.id, ratio=r.ratio, tag=r.tags[1], x=r.inner[0].x, inner=r.inner, whole=r`)
	require.True(t, res.Success, res.Error)
	var args map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(got), &args))
	assert.JSONEq(t, `"Ada"`, string(args["name"]))
	assert.Equal(t, `12345678901234567890`, string(args["id"]), "a large integer passes as written")
	assert.Equal(t, `1.50`, string(args["ratio"]), "a number passes as written")
	assert.JSONEq(t, `"b"`, string(args["tag"]))
	assert.Equal(t, `9007199254740993`, string(args["x"]), "a string holding JSON is read when the path goes into it")
	var inner, whole string
	require.NoError(t, json.Unmarshal(args["inner"], &inner))
	require.NoError(t, json.Unmarshal(args["whole"], &whole))
	assert.Equal(t, `[{"x": 9007199254740993}]`, inner, "a path ending at a string passes the text")
	assert.Equal(t, text, whole, "r alone passes the text unchanged")

	res, got = runRefs(t, `[{"url": "u0"}, {"url": "u1"}]`, `a=r[1].url, n=r[0]`)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, `{"a":"u1","n":{"url":"u0"}}`, got, "an array as text")
}

// A reference into text that is not JSON, or JSON of the other kind,
// fails with ErrorType naming the snippet, the line, the tool and the
// reference, saying the value is text that is not a JSON object (or
// array) and its size, never quoting the text: a tool's answer may hold a
// token or a session id that must not reach an error or a log.
func TestRun_ReferenceIntoTextThatIsNotJSON(t *testing.T) {
	long := "Error: user 1 was not found in the directory; " + strings.Repeat("x", 2000) + " token=hunter2-secret-tail"
	cases := []struct{ text, ref, want string }{
		{"User 1 not found", "r.name", `snippet "refs": line 2: dst: r.name: r is text that is not a JSON object (it is 16 bytes of text holding no JSON object or array)`},
		{"User 1 not found", "r[0]", `snippet "refs": line 2: dst: r[0]: r is text that is not a JSON array (it is 16 bytes of text holding no JSON object or array)`},
		{`[1, 2]`, "r.name", `snippet "refs": line 2: dst: r.name: r is text that is not a JSON object (it holds a JSON array)`},
		{` {"a": 1} `, "r[0]", `snippet "refs": line 2: dst: r[0]: r is text that is not a JSON array (it holds a JSON object)`},
		{`{"a": 1} trailing`, "r.a", `snippet "refs": line 2: dst: r.a: r is text that is not a JSON object (it is 17 bytes of text beginning with '{' that is not valid JSON)`},
		{`{"a": `, "r.a", `snippet "refs": line 2: dst: r.a: r is text that is not a JSON object (it is 5 bytes of text beginning with '{' that is not valid JSON)`},
		{`42`, "r.a", `snippet "refs": line 2: dst: r.a: r is text that is not a JSON object (it is 2 bytes of text holding no JSON object or array)`},
		{"  \n", "r.a", `snippet "refs": line 2: dst: r.a: r is text that is not a JSON object (it is empty)`},
		{`{"a": "plain"}`, "r.a.b", `snippet "refs": line 2: dst: r.a.b: r.a is text that is not a JSON object (it is 5 bytes of text holding no JSON object or array)`},
		{`{"a": 1}`, "r.b", `snippet "refs": line 2: dst: r.b: r has no field "b"`},
		{long, "r.name", `snippet "refs": line 2: dst: r.name: r is text that is not a JSON object (it is 2072 bytes of text holding no JSON object or array)`},
		{"a" + strings.Repeat("é", 21), "r.a", `snippet "refs": line 2: dst: r.a: r is text that is not a JSON object (it is 43 bytes of text holding no JSON object or array)`},
	}
	for i, c := range cases {
		res, got := runRefs(t, c.text, "x="+c.ref)
		assert.False(t, res.Success, c.ref)
		assert.Equal(t, snippet.ErrorType, res.ErrorType, c.ref)
		assert.Equal(t, c.want, res.Error, "case %d: %s", i, c.ref)
		assert.True(t, utf8.ValidString(res.Error))
		assert.NotContains(t, res.Error, "hunter2")
		assert.NotContains(t, res.Error, "not found", "the text is never quoted")
		assert.Empty(t, got, "dst is not called")
	}
}

// jsonData draws JSON data as a decoder with UseNumber makes it: numbers
// as json.Number (large integers and decimals as written included),
// strings (some holding JSON text themselves), odd keys.
func jsonData(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kinds := []string{"num", "str", "bool", "null"}
		if depth < 3 {
			kinds = append(kinds, "arr", "obj", "arr", "obj")
		}
		switch rapid.SampledFrom(kinds).Draw(t, "kind") {
		case "num":
			return json.Number(rapid.SampledFrom([]string{"0", "-7", "1.50", "12345678901234567890", "9007199254740993", "1e400", "-0.0"}).Draw(t, "num"))
		case "str":
			return rapid.SampledFrom([]string{"", "a", "é<&>", `{"k":1}`, `[true]`, "plain text"}).Draw(t, "str")
		case "bool":
			return rapid.Bool().Draw(t, "bool")
		case "null":
			return nil
		case "arr":
			return topData(depth, "arr").Draw(t, "arr")
		default:
			return topData(depth, "obj").Draw(t, "obj")
		}
	})
}

var dataKeys = []string{"k", "items", "odd-key", "a b", "é", ""}

// topData draws an array or an object.
func topData(depth int, kind string) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		n := rapid.IntRange(0, 3).Draw(t, "len")
		if kind == "arr" {
			out := []any{}
			for range n {
				out = append(out, jsonData(depth+1).Draw(t, "elem"))
			}
			return out
		}
		out := map[string]any{}
		for range n {
			out[rapid.SampledFrom(dataKeys).Draw(t, "key")] = jsonData(depth+1).Draw(t, "val")
		}
		return out
	})
}

// refPath draws a reference into v: mostly along what v holds, sometimes
// a field, key or index it does not have.
func refPath(t *rapid.T, v any) string {
	var b strings.Builder
	b.WriteString("r")
	for range rapid.IntRange(0, 4).Draw(t, "steps") {
		if s, ok := v.(string); ok && (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) {
			require.NoError(t, json.Unmarshal([]byte(s), &v))
		}
		switch x := v.(type) {
		case []any:
			i := rapid.IntRange(0, len(x)).Draw(t, "index")
			fmt.Fprintf(&b, "[%d]", i)
			if i == len(x) {
				return b.String()
			}
			v = x[i]
		case map[string]any:
			k := rapid.SampledFrom(dataKeys).Draw(t, "field")
			if k == "k" || k == "items" {
				b.WriteString("." + k)
			} else {
				kj, _ := json.Marshal(k)
				b.WriteString("[" + string(kj) + "]")
			}
			next, ok := x[k]
			if !ok {
				return b.String()
			}
			v = next
		default:
			if rapid.Bool().Draw(t, "index") {
				b.WriteString("[0]")
			} else {
				b.WriteString(".k")
			}
			return b.String()
		}
	}
	return b.String()
}

// Property: any JSON object or array, answered as text (compact or
// indented, with white space around), is indexable exactly like the same
// value answered as a map or slice: the same references succeed with the
// same arguments, and the same ones fail — with the same error, except
// where the reference goes into the text itself.
func TestRunProperty_JSONTextIndexedLikeTheValue(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		v := topData(0, rapid.SampledFrom([]string{"arr", "obj"}).Draw(rt, "top")).Draw(rt, "value")
		var js []byte
		var err error
		if rapid.Bool().Draw(rt, "indent") {
			js, err = json.MarshalIndent(v, "", "  ")
		} else {
			js, err = json.Marshal(v)
		}
		require.NoError(rt, err)
		text := rapid.SampledFrom([]string{"", " ", "\n", "\t\r\n "}).Draw(rt, "pre") + string(js) + rapid.SampledFrom([]string{"", "\n", " \t"}).Draw(rt, "post")
		ref := refPath(rt, v)
		body := "r = src()\ndst(x=" + ref + ")"
		s, err := snippet.Parse("prop", snippet.Definition{Body: body})
		require.NoError(rt, err, body)

		run := func(answer any) (result.Result[any], []call) {
			rec := newRecorder(rt, func(i int, tool string, raw json.RawMessage) (result.Result[any], error) {
				if tool == "src" {
					return result.Ok(answer), nil
				}
				return result.Ok[any](nil), nil
			}, "src", "dst")
			res, err := s.Run(context.Background(), rec.reg, nil)
			require.NoError(rt, err)
			return res, rec.recorded()
		}
		asValue, valueCalls := run(v)
		asText, textCalls := run(text)
		if ref == "r" {
			require.True(rt, asText.Success, asText.Error)
			require.Len(rt, textCalls, 2)
			var got string
			require.NoError(rt, json.Unmarshal([]byte(textCalls[1].Args)[5:len(textCalls[1].Args)-1], &got))
			assert.Equal(rt, text, got, "r alone is the text")
			return
		}
		require.Equal(rt, asValue.Success, asText.Success, "%s on %s: value %q, text %q", ref, js, asValue.Error, asText.Error)
		assert.Equal(rt, valueCalls, textCalls, "%s on %s", ref, js)
		if !asValue.Success {
			assert.Equal(rt, snippet.ErrorType, asText.ErrorType)
			if asValue.Error != asText.Error {
				assert.Contains(rt, asText.Error, ": r is text that is not a JSON ", "only the text itself is described differently")
			}
		}
	})
}
