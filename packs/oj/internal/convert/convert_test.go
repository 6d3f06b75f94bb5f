package convert_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj/internal/convert"
)

func TestConvert_HTMLBecomesMarkdown(t *testing.T) {
	c := convert.New()
	assert.Equal(t, "**bold**", c.Convert("<b>bold</b>"))
	md := c.Convert("<p>Given <code>nums</code>, return <em>x</em>.</p><ul><li>one</li></ul><pre>a\nb</pre>")
	assert.Contains(t, md, "`nums`")
	assert.Contains(t, md, "*x*")
	assert.Contains(t, md, "- one")
	assert.NotContains(t, md, "<")
}

func TestConvert_TextWithoutMarkupUnchanged(t *testing.T) {
	c := convert.New()
	for _, s := range []string{"plain", "a < b and c > d", "x<3", "**already markdown** _x_ \\* 1 < 2", "  spaced  \n"} {
		assert.Equal(t, s, c.Convert(s))
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Filter(func(s string) bool { return strings.TrimSpace(s) != "" && !convert.HasMarkup(s) }).Draw(t, "s")
		require.Equal(t, s, c.Convert(s))
	})
}

func TestConvert_EmptyOrWhitespaceIsNoDescription(t *testing.T) {
	c := convert.New()
	for _, s := range []string{"", " ", "\n\t ", "\u00a0"} {
		assert.Equal(t, "No description available.", c.Convert(s), "%q", s)
	}
}

func TestConvert_FallbackStripsTags(t *testing.T) {
	c := convert.New()
	// Converts to nothing: falls back to the stripped text, or to the
	// placeholder when no text remains.
	assert.Equal(t, "No description available.", c.Convert("<div></div>"))
	assert.Equal(t, "No description available.", c.Convert("<script>alert(1)</script>"))
	assert.Equal(t, "a &lt; b", convert.StripTags("<p>a &lt; b</p>"))
	assert.Equal(t, "x", convert.StripTags("<b>x</b><!-- c --><br/>"))
}

func TestConvert_NeverPanicsAndLeavesNoTagsInFallbackProperty(t *testing.T) {
	c := convert.New()
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.StringMatching(`(<[a-z/!]{0,4}[ >]?|[a-z&;<>" ]{0,5}){0,12}`)).Draw(t, "html")
		out := c.Convert(s)
		require.NotEmpty(t, out)
		plain := convert.StripTags(s)
		require.NotContains(t, plain, "<")
		require.NotContains(t, plain, ">")
	})
}

// TestConvert_MemoNeverChangesResult: a Converter with a memo (small, so
// entries are evicted and recomputed) returns exactly what a Converter
// without one returns, for every statement of a sequence with repeats.
func TestConvert_MemoNeverChangesResult(t *testing.T) {
	withMemo, without := convert.New(convert.WithCacheBytes(2048)), convert.New(convert.WithCacheBytes(-1))
	rapid.Check(t, func(t *rapid.T) {
		pool := rapid.SliceOfN(rapid.OneOf(
			rapid.StringMatching(`(<[a-z/!]{0,4}[ >]?|[a-z&;<>" ]{0,5}){0,12}`),
			rapid.StringMatching(`<p>[a-z ]{0,40}<(b|code|em)>[a-z]{1,10}</(b|code|em)></p>`),
		), 1, 6).Draw(t, "pool")
		for range rapid.IntRange(1, 20).Draw(t, "calls") {
			s := rapid.SampledFrom(pool).Draw(t, "html")
			require.Equal(t, without.Convert(s), withMemo.Convert(s), "%q", s)
		}
	})
}
