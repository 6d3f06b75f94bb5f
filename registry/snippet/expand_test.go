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

// brvResearch is seed 001's example snippet.
func brvResearch() snippet.Definition {
	return snippet.Definition{
		Description: "Search web and extract structured findings",
		Params: map[string]snippet.Param{
			"topic": {Description: "Topic to research"},
			"count": {Description: "Number of sources", Default: 5},
		},
		Body: "results = brave.search(query=\"{{ topic }}\", count={{ count }})\n" +
			"llm.transform(input=results, prompt=\"Extract key findings\")\n",
	}
}
