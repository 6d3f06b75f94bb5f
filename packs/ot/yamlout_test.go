package ot

import (
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry"
)

// plain is the value renderYAML's output must parse back to.
func plain(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ToValidUTF8(x, "\uFFFD")
	case text:
		return strings.ToValidUTF8(string(x), "\uFFFD")
	case quoted:
		return strings.ToValidUTF8(string(x), "\uFFFD")
	case decimal:
		if math.IsNaN(x.v) || math.IsInf(x.v, 0) || x.prec < 0 {
			return x.v
		}
		r, _ := strconv.ParseFloat(strconv.FormatFloat(x.v, 'f', x.prec, 64), 64)
		return r
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = plain(s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	case object:
		out := map[string]any{}
		for _, f := range x {
			out[strings.ToValidUTF8(f.key, "\uFFFD")] = plain(f.val)
		}
		return out
	case blockObject:
		return plain(object(x))
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return int(n)
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// roundTrip renders v, parses it back and compares it with plain(v).
func roundTrip(v any) (string, error) {
	s, err := renderYAML(v)
	if err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	var got any
	if err := yaml.Unmarshal([]byte(s), &got); err != nil {
		return s, fmt.Errorf("output does not parse: %w\n%s", err, s)
	}
	want := plain(v)
	if !equalValues(got, want) {
		return s, fmt.Errorf("round trip changed the value:\n got %#v\nwant %#v\nYAML:\n%s", got, want, s)
	}
	return s, nil
}

// equalValues compares decoded YAML with the expected value (YAML gives
// ints for integers; NaN equals NaN).
func equalValues(got, want any) bool {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		return ok && (g == w || math.IsNaN(g) && math.IsNaN(w))
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !equalValues(g[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !equalValues(gv, wv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

// flowDepth is the deepest nesting of flow collections in a document.
func flowDepth(n *yaml.Node, cur int) int {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		if n.Style&yaml.FlowStyle != 0 && len(n.Content) > 0 {
			cur++
		}
	}
	best := cur
	for _, c := range n.Content {
		best = max(best, flowDepth(c, cur))
	}
	return best
}

func TestYAML_FlowStyleFormatting(t *testing.T) {
	// A simple object: one flow line.
	s, err := roundTrip(object{{"status", "ok"}, {"tool_count", 15}})
	require.NoError(t, err)
	assert.Equal(t, "{status: ok, tool_count: 15}\n", s)

	// A list of objects: a block sequence of flow items.
	s, err = roundTrip([]any{
		object{{"name", "a"}, {"description", text("first, with a comma")}},
		object{{"name", "b"}, {"description", text("second: with a colon")}},
	})
	require.NoError(t, err)
	assert.Equal(t, "- {name: a, description: \"first, with a comma\"}\n- {name: b, description: \"second: with a colon\"}\n", s)

	// Nested objects: block at the top, flow values.
	s, err = roundTrip(object{
		{"registry", object{{"status", "ok"}}},
		{"proxy", object{{"servers", object{{"x", "connected"}}}}},
	})
	require.NoError(t, err)
	assert.Equal(t, "registry: {status: ok}\nproxy: {servers: {x: connected}}\n", s)

	// A value too wide for one line is block, its values flow again.
	long := object{}
	for i := range 10 {
		long = append(long, field{fmt.Sprintf("server_%d", i), "disconnected"})
	}
	s, err = roundTrip(object{{"proxy", object{{"status", "degraded"}, {"servers", long}}}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(s, "proxy:\n  status: degraded\n  servers:\n    server_0: disconnected\n"), s)

	// Multi-line text in block context is a literal block.
	s, err = roundTrip(object{{"body", "a()\nb()\n"}, {"x", object{{"y", 1}}}})
	require.NoError(t, err)
	assert.Equal(t, "body: |\n  a()\n  b()\nx: {y: 1}\n", s)
}

func TestYAML_Readability(t *testing.T) {
	// However deep the value, flow style never nests more than two levels,
	// and the output parses back to the same value.
	rapid.Check(t, func(t *rapid.T) {
		v := genValue(t, 0)
		s, err := roundTrip(v)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
			t.Fatal(err)
		}
		if d := flowDepth(&doc, 0); d > 2 {
			t.Fatalf("flow nests %d levels:\n%s", d, s)
		}
	})
}

// genValue draws a value of the output model, at most 5 levels deep.
func genValue(t *rapid.T, depth int) any {
	kinds := 9
	if depth >= 5 {
		kinds = 6
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return rapid.String().Draw(t, "string")
	case 1:
		return text(rapid.String().Draw(t, "text"))
	case 2:
		return rapid.Int().Draw(t, "int")
	case 3:
		return rapid.Bool().Draw(t, "bool")
	case 4:
		return decimal{rapid.Float64Range(-1e9, 1e9).Draw(t, "float"), rapid.IntRange(0, 3).Draw(t, "prec")}
	case 5:
		// A configured number, decoded exactly.
		if rapid.Bool().Draw(t, "whole") {
			return json.Number(strconv.FormatInt(rapid.Int64().Draw(t, "n"), 10))
		}
		return json.Number(strconv.FormatFloat(rapid.Float64Range(-1e300, 1e300).Draw(t, "f"), 'g', -1, 64))
	case 6:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		out := make([]any, n)
		for i := range out {
			out[i] = genValue(t, depth+1)
		}
		return out
	default:
		ks := rapid.SliceOfDistinct(rapid.String(), func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }).Draw(t, "keys")
		if len(ks) > 4 {
			ks = ks[:4]
		}
		o := object{}
		for _, k := range ks {
			o = append(o, field{k, genValue(t, depth+1)})
		}
		if rapid.Bool().Draw(t, "block") {
			return blockObject(o)
		}
		return o
	}
}

// FuzzYAMLOutput renders what ot.tools, ot.snippets and ot.config make of
// arbitrary names and texts, and checks that it parses back to the same
// values.
func FuzzYAMLOutput(f *testing.F) {
	for _, s := range [][4]string{
		{"brave.search", "Search the web.", "query: the query", "brave.search(query=\"x\")"},
		{"a", "multi\nline\n", "x: y, z", ""},
		{"weird: key", "- not a list", "# not a comment", "{not: flow}"},
		{"true", "null", "~", "'"},
		{"x", "trailing space ", "\ttab", "\r\n"},
		{"\x00", "\xff\xfe", "\u2028", "\ufeff"},
		{"<<", "&anchor", "*alias", "!tag"},
		{"1.0.0", "0x1F", "1e3", ".inf"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, name, desc, arg, example string) {
		tool := &registry.Tool{
			Name: name, BaseName: name, Description: desc, Source: "proxy:" + name,
			Usage: registry.Usage{Signature: name + "(" + arg + ")", Args: arg, Returns: desc, Example: example},
		}
		for _, v := range []any{
			[]any{toolEntry(tool, InfoMin), toolEntry(tool, InfoFull)},
			[]string{name, desc, arg, example},
			object{{name, text(desc)}, {name + "2", text(arg)}},
			object{
				{"aliases", object{{name, example}}},
				{"snippets", object{{name, object{{"description", text(desc)}}}}},
				{"servers", []string{arg}},
			},
			blockObject{{"timestamp", "2026-01-01T00:00:00Z"}, {"topic", name}, {"message", desc}},
			object{{"name", name}, {"params", blockObject{{arg, object{{"default", example}, {"description", text(desc)}}}}}, {"body", desc}},
		} {
			if _, err := roundTrip(v); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestYAML_DecimalsKeepTheirType: a whole float stays a float.
func TestYAML_DecimalsKeepTheirType(t *testing.T) {
	s, err := renderYAML(object{{"a", decimal{100, 1}}, {"b", decimal{math.NaN(), 1}}, {"c", 2.5}, {"d", 3.0}})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(s), &m))
	assert.Equal(t, 100.0, m["a"])
	assert.True(t, math.IsNaN(m["b"].(float64)))
	assert.Equal(t, 2.5, m["c"])
	assert.Equal(t, 3, m["d"], "a configured whole number reads as an integer")
	// Configured values of any type go through the library.
	s, err = renderYAML(object{{"default", map[string]any{"k": []int{1, 2}}}})
	require.NoError(t, err)
	assert.Equal(t, "default: {k: [1, 2]}\n", s)
}

// TestYAML_ConfiguredNumbersStayNumbers: numbers decoded exactly from a
// configuration (json.Number), alone or inside a configured object or
// list, are written as YAML numbers that read back as the same values.
func TestYAML_ConfiguredNumbersStayNumbers(t *testing.T) {
	s, err := renderYAML(object{
		{"int", json.Number("21")},
		{"neg", json.Number("-7")},
		{"float", json.Number("2.5")},
		{"exp", json.Number("1e3")},
		{"big", json.Number("123456789012345678901234567890")},
		{"uint", json.Number("18446744073709551615")},
		{"pastInt", json.Number("9223372036854775808")},
		{"nested", map[string]any{"b": []any{json.Number("1"), "2"}, "a": json.Number("0.5")}},
		{"notANumber", json.Number("twelve")},
	})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(s, "int: 21\n"), s)
	assert.Contains(t, s, "\nbig: 123456789012345678901234567890\n", "every digit is kept in the text")
	assert.Contains(t, s, "\nnested: {a: 0.5, b: [1, \"2\"]}\n")
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(s), &m))
	assert.Equal(t, 21, m["int"])
	assert.Equal(t, -7, m["neg"])
	assert.Equal(t, 2.5, m["float"])
	assert.Equal(t, 1000.0, m["exp"])
	assert.Equal(t, map[string]any{"a": 0.5, "b": []any{1, "2"}}, m["nested"])
	assert.Equal(t, "twelve", m["notANumber"])
	assert.InDelta(t, 1.2345678901234568e29, m["big"], 1e15)
	// From 2^63 to 2^64-1 a YAML reader takes the text for an integer:
	// tagged a float, it was written "!!float 9223372036854775808", which
	// yaml.v3 refused to read back.
	assert.Contains(t, s, "\nuint: 18446744073709551615\n")
	assert.Contains(t, s, "\npastInt: 9223372036854775808\n")
	assert.Equal(t, uint64(18446744073709551615), m["uint"])
	assert.Equal(t, uint64(9223372036854775808), m["pastInt"])
}

// TestYAML_StringsStayStringsForYAML11Readers: a string a YAML 1.1 reader
// (PyYAML's safe_load) would take for a boolean, a number or null is
// quoted, as a key, in a flow list and in block context, so that the
// alias "no" stays a name and the line "10:30" stays text.
func TestYAML_StringsStayStringsForYAML11Readers(t *testing.T) {
	ambiguous := []string{"0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060", "yes", "No", "ON", "off", "0500", "-0_7", "0b101", "1_000", "1:20", "10:30", "190:20:30.15", "-.5", "1.", "=", "~", "Null"}
	plain := []string{"yes please", "no-op", "on.off", "1.0.0", "a=b", "onion", "Y2K", "y", "N"}
	for _, s := range ambiguous {
		out, err := renderYAML(object{{s, s}, {"list", []string{s, "x"}}})
		require.NoError(t, err)
		want := fmt.Sprintf("%[1]q: %[1]q\nlist: [%[1]q, x]\n", s)
		assert.Equal(t, want, out, "%q", s)
	}
	for _, s := range plain {
		out, err := renderYAML(object{{s, s}, {"list", []string{s, "x"}}})
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("%[1]s: %[1]s\nlist: [%[1]s, x]\n", s), out, "%q needs no quotes", s)
	}
}

// TestYAML_PyYAMLReadsTheSameStrings reads the output with PyYAML itself
// when python3 and its yaml module are installed (skipped otherwise).
func TestYAML_PyYAMLReadsTheSameStrings(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-c", "import yaml").Run() != nil {
		t.Skip("python3 with PyYAML is not installed: the YAML 1.1 reading is checked by TestYAML_StringsStayStringsForYAML11Readers alone")
	}
	var values []string
	rapid.Check(t, func(t *rapid.T) {
		values = append(values, rapid.OneOf(rapid.String(), rapid.StringMatching(`[-+0-9_:.xboOeEyYnN=~]{1,8}`),
			rapid.SampledFrom([]string{"yes", "no", "on", "off", "y", "n", "true", "null", "=", "<<", "1:20", "0500"})).Draw(t, "s"))
	})
	var o object
	for i, s := range values {
		o = append(o, field{fmt.Sprintf("k%d", i), []string{s}}, field{strings.ToValidUTF8(s, "\uFFFD") + fmt.Sprintf("#%d", i), i})
	}
	out, err := renderYAML(o)
	require.NoError(t, err)
	// Only the k<i> keys: a drawn string that starts with k makes another
	// key (its "s#i") start with k too.
	cmd := exec.Command(py, "-c", `import sys, yaml, json, re
d = yaml.safe_load(sys.stdin.read())
print(json.dumps({k: v for k, v in d.items() if isinstance(k, str) and re.fullmatch(r"k[0-9]+", k)}))`)
	cmd.Stdin = strings.NewReader(out)
	got, err := cmd.Output()
	require.NoError(t, err, "PyYAML could not read:\n%s", out)
	var m map[string][]any
	require.NoError(t, json.Unmarshal(got, &m))
	for i, s := range values {
		want := strings.ToValidUTF8(s, "\uFFFD")
		assert.Equal(t, []any{want}, m[fmt.Sprintf("k%d", i)], "value %q", s)
	}
}

// A long list written a chunk at a time (the library keeps a whole
// document's events, ~17 KB an item) is byte for byte the text the whole
// document makes: a top-level list or the list ending a top-level object,
// of objects (flow or, when deeper or with multi-line text, block), of
// scalars, or mixed, with any text in them.
func TestYAML_ChunkedListEqualsTheWholeDocument(t *testing.T) {
	word := rapid.OneOf(rapid.SampledFrom([]string{"", "no", "10:30", "a: b", "- x", "#c", "line\nnext", "end\n", "  lead", "tail ", "é\u2028", "<<", "null", "{x}", "'q'", "\"d\""}),
		rapid.String())
	rapid.Check(t, func(rt *rapid.T) {
		item := func(rt *rapid.T, label string) any {
			switch rapid.IntRange(0, 4).Draw(rt, label+"kind") {
			case 0:
				return word.Draw(rt, label+"s")
			case 1:
				return object{{"tool", word.Draw(rt, label+"t")}, {"calls", rapid.Int64Range(0, 1<<40).Draw(rt, label+"c")},
					{"rate", decimal{rapid.Float64Range(0, 100).Draw(rt, label+"r"), 1}}}
			case 2:
				return object{{"name", word.Draw(rt, label+"n")}, {"description", text(word.Draw(rt, label+"d"))}}
			case 3:
				return object{{"name", word.Draw(rt, label+"n")}, {"args", object{{"deep", object{{"er", []any{word.Draw(rt, label+"e")}}}}}}}
			default:
				return []any{word.Draw(rt, label+"l")}
			}
		}
		n := rapid.IntRange(0, 40).Draw(rt, "n")
		list := make([]any, n)
		objects := true // every item a flow object: always block sequence items
		for i := range list {
			list[i] = item(rt, fmt.Sprint(i))
			if o, ok := list[i].(object); !ok || len(o) != 3 || o[0].key != "tool" {
				objects = false
			}
		}
		var v any = list
		if rapid.Bool().Draw(rt, "strings") { // ot.tools(info=list): names
			names := make([]string, n)
			for i := range names {
				names[i] = word.Draw(rt, fmt.Sprint("name", i))
			}
			v, objects = names, false
		}
		if rapid.Bool().Draw(rt, "inObject") {
			key := rapid.SampledFrom([]string{"tools", "", "a: b", "- x", "list"}).Draw(rt, "key")
			v = object{{"period", word.Draw(rt, "period")}, {"desc", text(rapid.SampledFrom([]string{"a\nb:\n- c", "x", "tools:\n- y"}).Draw(rt, "desc"))},
				{"total_calls", int64(n)}, {key, v}}
			if key != "tools" && key != "list" {
				objects = false // a key the library quotes, or none: written whole
			}
		}
		whole, err := renderWhole(v)
		require.NoError(rt, err)
		per := rapid.IntRange(1, 7).Draw(rt, "per")
		chunked, inChunks, err := renderChunks(v, per)
		require.NoError(rt, err)
		require.Equal(rt, whole, chunked, "chunks of %d", per)
		if objects && n > per {
			require.True(rt, inChunks, "a long list of objects is written in chunks")
		}
	})
	// ot.stats over many tools: written in chunks, the same text.
	rows := make([]any, 3*chunkItems+5)
	for i := range rows {
		rows[i] = object{{"tool", fmt.Sprintf("pack.tool_%d", i)}, {"calls", int64(i)}, {"success_rate", decimal{99.5, 1}}}
	}
	v := object{{"period", "all"}, {"tools", rows}}
	whole, err := renderWhole(v)
	require.NoError(t, err)
	chunked, inChunks, err := renderChunks(v, chunkItems)
	require.NoError(t, err)
	assert.True(t, inChunks)
	assert.Equal(t, whole, chunked)

	// ot.tools(info=list) over a large catalogue: names, also in chunks.
	names := make([]string, 3*chunkItems+5)
	for i := range names {
		names[i] = fmt.Sprintf("pack.tool_%d", i)
	}
	whole, err = renderWhole(names)
	require.NoError(t, err)
	chunked, inChunks, err = renderChunks(names, chunkItems)
	require.NoError(t, err)
	assert.True(t, inChunks)
	assert.Equal(t, whole, chunked)

	// An empty last key keeps the head; a head whose text holds "b:\n- c"
	// before a list written flow is not mistaken for a block list.
	for _, v := range []any{
		object{{"period", "all"}, {"", rows}},
		object{{"desc", text("a\nb:\n- c")}, {"list", []any{"x", "y", strings.Repeat("long ", 30)}}},
	} {
		whole, err := renderWhole(v)
		require.NoError(t, err)
		for _, per := range []int{1, 2, 3} {
			chunked, _, err := renderChunks(v, per)
			require.NoError(t, err)
			assert.Equal(t, whole, chunked, "chunks of %d", per)
		}
	}
}
