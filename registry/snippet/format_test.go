package snippet_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/toolpack-go/toolpack/registry/snippet"
)

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

// seedFullOutput is the text of seed 001's "Snippet output format".
const seedFullOutput = `name: brv_research
description: Search web and extract structured findings
params:
  topic: {description: "Topic to research"}
  count: {default: 5, description: "Number of sources"}
body: |
  results = brave.search(query="{{ topic }}", count={{ count }})
  llm.transform(input=results, prompt="Extract key findings")

# Example with defaults:
# $brv_research topic=Python
# Expands to:
results = brave.search(query="Python", count=5)
llm.transform(input=results, prompt="Extract key findings")`

// Seed 001, Snippet Introspection, "Snippet output format": the full
// definition in the seed's layout, exactly.
func TestFormat_SnippetOutputFormat(t *testing.T) {
	s, err := snippet.Parse("brv_research", brvResearch())
	require.NoError(t, err)
	out, err := s.Format(map[string]any{"topic": "Python"})
	require.NoError(t, err)
	assert.Equal(t, seedFullOutput, out)

	// The YAML part parses back to the definition.
	head, _, ok := strings.Cut(out, "\n\n# Example with defaults:")
	require.True(t, ok)
	var got struct {
		Name        string
		Description string
		Params      map[string]struct {
			Default     any
			Description string
		}
		Body string
	}
	require.NoError(t, yaml.Unmarshal([]byte(head+"\n"), &got))
	assert.Equal(t, "brv_research", got.Name)
	assert.Equal(t, brvResearch().Description, got.Description)
	assert.Equal(t, brvResearch().Body, got.Body)
	assert.Equal(t, 5, got.Params["count"].Default)
	assert.Nil(t, got.Params["topic"].Default)
	assert.Equal(t, "Topic to research", got.Params["topic"].Description)
}
