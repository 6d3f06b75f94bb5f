package snippet_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/snippet"
)

// Seed 001, "Snippet output format": the expansion with defaults of
// brv_research.
func TestExpand_WithDefaults(t *testing.T) {
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	out, err := s.Expand(map[string]any{"topic": "Python"})
	require.NoError(t, err)
	assert.Equal(t, "results = brave.search(query=\"Python\", count=5)\n"+
		"llm.transform(input=results, prompt=\"Extract key findings\")\n", out)
	out, err = s.Expand(map[string]any{"topic": "Go", "count": 2})
	require.NoError(t, err)
	assert.Contains(t, out, `brave.search(query="Go", count=2)`)
}

// The substitution rules: a placeholder standing alone becomes the value's
// JSON; inside a string literal it becomes the value's text (a string's
// characters, any other value's JSON), escaped for the string. Comments
// and layout are kept; placeholders in comments are not touched.
func TestExpand_SubstitutionRules(t *testing.T) {
	s, err := snippet.Parse("rules", snippet.Definition{
		Params: map[string]snippet.Param{"s": {}, "o": {}, "n": {Default: 2.5}},
		Body: "# {{ s }} stays\n" +
			"a(x={{ s }}, y=\"<{{ s }}>!\", z={{ o }},\n" +
			"  w=\"n={{ o }}\", c={{n}}, d=\"{{ n }}\")\n",
	})
	require.NoError(t, err)
	out, err := s.Expand(map[string]any{"s": "say \"hi\" <b>\n", "o": map[string]any{"k": []any{1, true}}})
	require.NoError(t, err)
	assert.Equal(t, "# {{ s }} stays\n"+
		`a(x="say \"hi\" <b>\n", y="<say \"hi\" <b>\n>!", z={"k":[1,true]},`+"\n"+
		`  w="n={\"k\":[1,true]}", c=2.5, d="2.5")`+"\n", out)

	// The expansion is a body without placeholders that parses.
	_, err = snippet.Parse("expanded", snippet.Definition{Body: out})
	assert.NoError(t, err)
}

// Expand checks the values as a call does.
func TestExpand_ChecksValues(t *testing.T) {
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	_, err = s.Expand(nil)
	assert.EqualError(t, err, `snippet "brv_research": invalid arguments: topic: is required`)
	_, err = s.Expand(map[string]any{"topic": "x", "count": "many"})
	assert.EqualError(t, err, `snippet "brv_research": invalid arguments: count: expected an integer, got a string`)
}

// Example: required parameters take the given example or "<name>"; the
// call shows strings bare unless they need quotes.
func TestExample(t *testing.T) {
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	ex, err := s.Example(nil)
	require.NoError(t, err)
	assert.Equal(t, "$brv_research topic=<topic>", ex.Call)
	assert.Contains(t, ex.Expanded, `query="<topic>", count=5`)

	ex, err = s.Example(map[string]any{"topic": "machine learning", "count": 3})
	require.NoError(t, err)
	assert.Equal(t, `$brv_research topic="machine learning" count=3`, ex.Call)
	assert.Contains(t, ex.Expanded, `query="machine learning", count=3`)

	_, err = s.Example(map[string]any{"topik": "x"})
	assert.EqualError(t, err, `snippet "brv_research": example value for unknown parameter "topik"; parameters: topic, count`)
}

// Format of a snippet without parameters or description, and with string
// and structured defaults.
func TestFormat_OtherShapes(t *testing.T) {
	s, err := snippet.Parse("bare", snippet.Definition{Body: "a()"})
	require.NoError(t, err)
	out, err := s.Format(nil)
	require.NoError(t, err)
	assert.Equal(t, "name: bare\ndescription: \"\"\nparams: {}\nbody: |-\n  a()\n\n# Example with defaults:\n# $bare\n# Expands to:\na()", out)

	s, err = snippet.Parse("rich", snippet.Definition{
		Description: "Has: a colon",
		Params: map[string]snippet.Param{
			"q":    {Default: "go lang"},
			"tags": {Default: []any{"a", 1.5}, Description: "Tags"},
			"opt":  {Default: map[string]any{"k": true}},
		},
		Body: "a(q=\"{{ q }}\", t={{ tags }}, o={{ opt }})\n",
	})
	require.NoError(t, err)
	out, err = s.Format(nil)
	require.NoError(t, err)
	assert.Equal(t, `name: rich
description: 'Has: a colon'
params:
  opt: {default: {k: true}}
  q: {default: "go lang"}
  tags: {default: ["a", 1.5], description: "Tags"}
body: |
  a(q="{{ q }}", t={{ tags }}, o={{ opt }})

# Example with defaults:
# $rich
# Expands to:
a(q="go lang", t=["a",1.5], o={"k":true})`, out)
}

// A value holding "{{" expands to text that parses back to the same value:
// the brace that would open a placeholder is written \u007b.
func TestExpand_ValuesWithBraces(t *testing.T) {
	rec := newRecorder(t, nil, "a")
	s, err := snippet.Parse("braces", snippet.Definition{
		Params: map[string]snippet.Param{"v": {}},
		Body:   "a(x={{ v }}, y=\"{{ v }}{\", z=\"{{ v }}\")\n",
	})
	require.NoError(t, err)
	v := map[string]any{"v": "{{p}} {"}
	out, err := s.Expand(v)
	require.NoError(t, err)
	assert.Equal(t, `a(x="\u007b{p}} {", y="\u007b{p}} \u007b{", z="\u007b{p}} \u007b")`+"\n", out)
	_, err = s.Run(context.Background(), rec.reg, v)
	require.NoError(t, err)
	s2, err := snippet.Parse("expanded", snippet.Definition{Body: out})
	require.NoError(t, err)
	_, err = s2.Run(context.Background(), rec.reg, nil)
	require.NoError(t, err)
	calls := rec.recorded()
	require.Len(t, calls, 2)
	assert.Equal(t, `{"x":"{{p}} {","y":"{{p}} {{","z":"{{p}} {"}`, calls[0].Args)
	assert.Equal(t, calls[0].Args, calls[1].Args)
}
