package jsonptr_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
)

// Tokens are escaped as RFC 6901 says ("~" first, so "/" never becomes
// "~01"), and joined with a leading "/" each; no token is the whole
// document.
func TestEscapeAndFromTokens(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a/b": "a~1b", "~": "~0", "~1": "~01", "/~": "~1~0", "é x": "é x"} {
		assert.Equal(t, want, jsonptr.Escape(in), in)
		assert.Equal(t, in, jsonptr.Unescape(want), "Unescape reads back %q", want)
	}
	assert.Equal(t, "~1", jsonptr.Unescape("~01"), "~0 read after ~1, never twice")
	assert.Equal(t, "", jsonptr.FromTokens(nil))
	assert.Equal(t, "/a~1b/2/", jsonptr.FromTokens([]string{"a/b", "2", ""}))
}

func ExampleFromTokens() {
	fmt.Println(jsonptr.FromTokens([]string{"items", "2", "a/b"}))
	// Output: /items/2/a~1b
}

// RebaseRefs rewrites the local references of every subschema — under
// properties, $defs, items (one or many), allOf, not … — and leaves alone
// what is data (const, default, enum, examples), references that are not
// local, and a nested resource with its own "$id".
func TestRebaseRefs_OnlySchemaLocationsAndLocalReferences(t *testing.T) {
	decode := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := decode(`{"$ref":"#","properties":{"a":{"$ref":"#/$defs/A"},"b":{"items":[{"$ref":"#/$defs/A"}]},"c":{"items":{"$ref":""}}},
		"$defs":{"A":{"allOf":[{"not":{"$ref":"#/definitions/B"}}]}},
		"default":{"$ref":"#/$defs/A"},"const":{"$ref":"#"},"enum":[{"$ref":"#/x"}],"examples":[{"$ref":"#/x"}],
		"patternProperties":{"^x":{"$ref":"other.json#/a"}},
		"dependentSchemas":{"d":{"$id":"https://example.test/d","$ref":"#/inner"}},
		"additionalProperties":{"$id":"#frag","$ref":"#/$defs/A"}}`)
	jsonptr.RebaseRefs(m, "#/components/schemas/t.input")
	want := decode(`{"$ref":"#/components/schemas/t.input","properties":{"a":{"$ref":"#/components/schemas/t.input/$defs/A"},
		"b":{"items":[{"$ref":"#/components/schemas/t.input/$defs/A"}]},"c":{"items":{"$ref":"#/components/schemas/t.input"}}},
		"$defs":{"A":{"allOf":[{"not":{"$ref":"#/components/schemas/t.input/definitions/B"}}]}},
		"default":{"$ref":"#/$defs/A"},"const":{"$ref":"#"},"enum":[{"$ref":"#/x"}],"examples":[{"$ref":"#/x"}],
		"patternProperties":{"^x":{"$ref":"other.json#/a"}},
		"dependentSchemas":{"d":{"$id":"https://example.test/d","$ref":"#/inner"}},
		"additionalProperties":{"$id":"#frag","$ref":"#/components/schemas/t.input/$defs/A"}}`)
	assert.Equal(t, want, m)
}

// Resolve follows a local reference through objects and arrays, tokens
// unescaped as RFC 6901 says; anything else points at nothing.
func TestResolve_LocalReferences(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"$defs":{"a/b":{"c~d":[10,{"e":true}]}},"x":null}`), &doc); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]any{
		"#/$defs/a~1b/c~0d/0": float64(10), "#/$defs/a~1b/c~0d/1/e": true, "#/x": nil,
	} {
		got, ok := jsonptr.Resolve(doc, ref)
		assert.True(t, ok, ref)
		assert.Equal(t, want, got, ref)
	}
	got, ok := jsonptr.Resolve(doc, "#")
	assert.True(t, ok)
	assert.Equal(t, doc, got)
	for _, ref := range []string{"#/nope", "#/$defs/a/b", "#/$defs/a~1b/c~0d/2", "#/$defs/a~1b/c~0d/01", "#/$defs/a~1b/c~0d/-1",
		"#/x/y", "other.json#/x", "#x", "#/$defs/a~1b/c~0d/0/z"} {
		_, ok := jsonptr.Resolve(doc, ref)
		assert.False(t, ok, ref)
	}
}

// A long chain of references that ends (each definition referring to the
// next) is followed once, not once from each of its links: it is checked
// at the cost of its length.
func TestRefCycle_LongReferenceChainFollowedOnce(t *testing.T) {
	var b strings.Builder
	const n = 20000
	b.WriteString(`{"type":"object","properties":{"p":{"$ref":"#/$defs/A0"}},"$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"A%d":{"$ref":"#/$defs/A%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"A%d":{"type":"string"}}}`, n)
	m := map[string]any{}
	require.NoError(t, json.Unmarshal([]byte(b.String()), &m))
	assert.Nil(t, jsonptr.RefCycle(m))
	m["$defs"].(map[string]any)[fmt.Sprintf("A%d", n)] = map[string]any{"$ref": "#/$defs/A0"}
	chain := jsonptr.RefCycle(m)
	require.NotNil(t, chain, "closing the chain makes a cycle")
	assert.Equal(t, chain[0], chain[len(chain)-1])
}

// Dangling names a local reference that points at nothing, or at a value
// that is no schema, and nothing when every one points at a schema; references that are not local, and those
// inside a subschema with an "$id" of its own, are not its to check.
func TestDangling_LocalReferencesThatPointAtNothing(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`: "",
		`{"properties":{"next":{"$ref":"#"}}}`:                                                      "",
		`{"properties":{"p":{"$ref":"#/$defs/Missing"}}}`:                                           "#/$defs/Missing",
		`{"items":[{"$ref":"#/items/3"}]}`:                                                          "#/items/3",
		`{"properties":{"a~b":{"type":"string"},"p":{"$ref":"#/properties/a~0b"}}}`:                 "",
		`{"properties":{"p":{"$ref":"other.json#/x"}}}`:                                             "",
		`{"properties":{"p":{"$id":"https://x.test/s","$ref":"#/nowhere"}}}`:                        "",
		`{"properties":{"p":{"default":{"$ref":"#/nowhere"}}}}`:                                     "",
		`{"type":"object","properties":{"p":{"$ref":"#/type"}}}`:                                    "#/type",
		`{"properties":{"p":{"$ref":"#/$defs/no"}},"$defs":{"no":false}}`:                           "",
	} {
		m := map[string]any{}
		require.NoError(t, json.Unmarshal([]byte(schema), &m))
		assert.Equal(t, want, jsonptr.Dangling(m), schema)
	}
}

// A reference to the document itself written "" (as "#") loops when the
// document is that reference alone.
func TestRefCycle_EmptyReferenceIsTheDocument(t *testing.T) {
	chain := jsonptr.RefCycle(map[string]any{"$ref": ""})
	assert.Equal(t, []string{"", ""}, chain)
	assert.Equal(t, `the reference "" leads back to itself through references alone ("" → "")`, jsonptr.DescribeCycle(chain))
	assert.Equal(t, `the reference "#/$defs/a" leads back to itself through references alone (#/$defs/a → #/$defs/b → #/$defs/a)`,
		jsonptr.DescribeCycle([]string{"#/$defs/a", "#/$defs/b", "#/$defs/a"}))
	assert.Nil(t, jsonptr.RefCycle(map[string]any{"type": "object", "properties": map[string]any{"next": map[string]any{"$ref": ""}}}),
		"recursion through a property")
}
