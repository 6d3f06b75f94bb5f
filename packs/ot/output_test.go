package ot_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// maxFlow is the deepest nesting of non-empty flow collections.
func maxFlow(n *yaml.Node, cur int) int {
	if (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle != 0 && len(n.Content) > 0 {
		cur++
	}
	best := cur
	for _, c := range n.Content {
		best = max(best, maxFlow(c, cur))
	}
	return best
}

func TestYAML_OutputsOfEveryTool(t *testing.T) {
	f := newFixture(t)
	f.results.stored["abc123"] = []string{"a", "b"}
	for _, c := range [][2]string{
		{"ot.tools", `{"info":"full"}`}, {"ot.tools", `{}`}, {"ot.tools", `{"info":"list"}`},
		{"ot.packs", `{}`}, {"ot.aliases", `{}`}, {"ot.aliases", `{"info":"full"}`}, {"ot.snippets", `{}`},
		{"ot.help", `{"query":"search","info":"full"}`}, {"ot.help", `{"query":"search"}`},
		{"ot.config", `{}`}, {"ot.health", `{}`}, {"ot.stats", `{}`}, {"ot.result", `{"handle":"abc123"}`},
	} {
		out := f.ok(t, c[0], c[1])
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(out), &doc), "%s(%s) is YAML:\n%s", c[0], c[1], out)
		assert.LessOrEqual(t, maxFlow(&doc, 0), 2, "%s(%s): at most two levels of flow:\n%s", c[0], c[1], out)
	}
	// A list of objects: block sequence, flow items.
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(f.ok(t, "ot.tools", `{"info":"full"}`)), &doc))
	seq := doc.Content[0]
	assert.Equal(t, yaml.SequenceNode, seq.Kind)
	assert.Zero(t, seq.Style&yaml.FlowStyle, "block sequence")
	for _, item := range seq.Content {
		assert.Equal(t, yaml.FlowStyle, item.Style&yaml.FlowStyle, "flow item")
	}
}
