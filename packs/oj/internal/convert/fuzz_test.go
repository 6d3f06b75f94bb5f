package convert_test

import (
	"strings"
	"testing"

	"github.com/toolpack-go/toolpack/packs/oj/internal/convert"
)

// FuzzConvert: HTML conversion never panics, never returns an empty text,
// and the tag-stripping fallback never leaves '<' or '>'.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{"<b>bold</b>", "", "   ", "plain", "<p>a<ul><li>x</ul>", "<table><tr><td>1</td></tr></table>",
		"<pre><code>x < y</code></pre>", "<!-- c -->", "<script>x</script>", "&lt;&#0;&bogus;", "<a href=\"javascript:x\">l</a>", "<img src=x onerror=y>"} {
		f.Add(s)
	}
	c := convert.New()
	f.Fuzz(func(t *testing.T, s string) {
		if out := c.Convert(s); out == "" {
			t.Fatalf("empty conversion of %q", s)
		}
		if p := convert.StripTags(s); strings.ContainsAny(p, "<>") {
			t.Fatalf("StripTags(%q) = %q keeps an angle bracket", s, p)
		}
	})
}
