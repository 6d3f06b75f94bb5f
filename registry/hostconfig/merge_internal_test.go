package hostconfig

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"
)

// genValue generates a YAML value: a mapping (keys from a small set, so
// that two values share keys), a list, or a scalar, nested up to depth.
func genValue(depth int) *rapid.Generator[any] {
	scalar := rapid.OneOf(
		rapid.Map(rapid.IntRange(-5, 5), func(i int) any { return i }),
		rapid.Map(rapid.SampledFrom([]string{"a", "b", "x y", ""}), func(s string) any { return s }),
		rapid.Just[any](nil),
		rapid.Just[any](true),
	)
	if depth == 0 {
		return scalar
	}
	key := rapid.SampledFrom([]string{"k1", "k2", "k3", "k4"})
	return rapid.OneOf(
		scalar,
		rapid.Map(rapid.SliceOfN(genValue(depth-1), 0, 3), func(s []any) any { return s }),
		rapid.Map(rapid.MapOfN(key, genValue(depth-1), 0, 4), func(m map[string]any) any { return m }),
		rapid.Map(rapid.MapOfN(key, genValue(depth-1), 1, 4), func(m map[string]any) any { return m }),
	)
}

// modelMerge is the documented rule: two mappings merge key by key,
// recursively; anything else is replaced by the later value.
func modelMerge(a, b any) any {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if !okA || !okB {
		return b
	}
	out := maps.Clone(ma)
	for k, v := range mb {
		if old, ok := out[k]; ok {
			out[k] = modelMerge(old, v)
		} else {
			out[k] = v
		}
	}
	return out
}

// TestMerge_DeepMapsReplaceListsAndScalars checks the merge of parsed
// YAML trees against the model for any values: mappings deep-merged,
// lists and scalars (null included) replaced, a later value winning.
func TestMerge_DeepMapsReplaceListsAndScalars(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOfN(rapid.MapOfN(rapid.SampledFrom([]string{"k1", "k2", "k3"}), genValue(3), 0, 3), 1, 4).Draw(t, "files")
		l := &loader{origin: map[*yaml.Node]*source{}}
		var merged *yaml.Node
		var want any
		for i, v := range vals {
			b, err := yaml.Marshal(v)
			require.NoError(t, err)
			var doc yaml.Node
			require.NoError(t, yaml.Unmarshal(b, &doc))
			root := doc.Content[0]
			merged = l.merge(merged, root, nil)
			if i == 0 {
				want = map[string]any(v)
			} else {
				want = modelMerge(want, map[string]any(v))
			}
		}
		var got any
		require.NoError(t, merged.Decode(&got))
		require.Equal(t, normalise(want), normalise(got))
	})
}

// normalise makes empty mappings and nil comparable after a YAML round
// trip.
func normalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalise(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(e)
		}
		return out
	}
	return v
}

// TestMerge_FilesLeftToRightMainLast checks the same rule through Load:
// aliases and stats spread over a main file and two includes equal the
// model's merge of include 1, include 2, then the main file.
func TestMerge_FilesLeftToRightMainLast(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"a", "b", "c", "d"})
		tool := rapid.SampledFrom([]string{"t1", "t2", "t3"})
		var files [3]map[string]any
		var texts [3]string
		for i := range files {
			aliases := rapid.MapOfN(name, tool, 0, 3).Draw(t, fmt.Sprintf("aliases%d", i))
			m := map[string]any{}
			var lines []string
			if len(aliases) > 0 || rapid.Bool().Draw(t, fmt.Sprintf("hasAliases%d", i)) {
				am := map[string]any{}
				var parts []string
				for k, v := range aliases {
					am[k] = v
					parts = append(parts, k+": "+v)
				}
				m["aliases"] = am
				lines = append(lines, "aliases: {"+strings.Join(parts, ", ")+"}")
			}
			if n := rapid.IntRange(-1, 9).Draw(t, fmt.Sprintf("cpc%d", i)); n >= 0 {
				m["stats"] = map[string]any{"context_per_call": n}
				lines = append(lines, fmt.Sprintf("stats: {context_per_call: %d}", n))
			}
			files[i], texts[i] = m, strings.Join(lines, "\n")+"\n"
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "i1.yaml"), []byte(texts[0]), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "i2.yaml"), []byte(texts[1]), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.yaml"), []byte("include: [i1.yaml, i2.yaml]\n"+texts[2]), 0o600))
		cfg, err := Load(filepath.Join(dir, "main.yaml"), LoadOptions{})
		require.NoError(t, err)
		want := modelMerge(modelMerge(files[0], files[1]), files[2]).(map[string]any)
		wantAliases := map[string]string{}
		if am, ok := want["aliases"].(map[string]any); ok {
			for k, v := range am {
				wantAliases[k] = v.(string)
			}
		}
		require.Equal(t, wantAliases, cfg.Aliases)
		wantCPC := DefaultContextPerCall
		if sm, ok := want["stats"].(map[string]any); ok {
			wantCPC = sm["context_per_call"].(int)
		}
		require.Equal(t, wantCPC, cfg.Stats.ContextPerCall)
	})
}

// TestExpand_EscapedTextIsLiteral: any text with each $ written as $$ comes
// out of expansion unchanged, and a ${NAME} next to it is replaced.
func TestExpand_EscapedTextIsLiteral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[a-z${}:\-_ ]{0,20}`).Draw(t, "text")
		lookup := func(n string) (string, bool) { return "V", n == "X" }
		left := MaxExpandedBytes
		out, _, problem := expand(strings.ReplaceAll(s, "$", "$$"), lookup, MaxExpandedValueBytes, &left)
		require.Empty(t, problem)
		require.Equal(t, s, out)
		out, expanded, problem := expand(strings.ReplaceAll(s, "$", "$$")+"${X}", lookup, MaxExpandedValueBytes, &left)
		require.Empty(t, problem)
		require.True(t, expanded)
		require.Equal(t, s+"V", out)
	})
}
