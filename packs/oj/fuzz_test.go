package oj_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/packs/oj"
)

// FuzzConvert: HTML conversion never panics, never returns an empty text,
// and the tag-stripping fallback never leaves '<' or '>'.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{"<b>bold</b>", "", "   ", "plain", "<p>a<ul><li>x</ul>", "<table><tr><td>1</td></tr></table>",
		"<pre><code>x < y</code></pre>", "<!-- c -->", "<script>x</script>", "&lt;&#0;&bogus;", "<a href=\"javascript:x\">l</a>", "<img src=x onerror=y>"} {
		f.Add(s)
	}
	c := oj.NewConverter()
	f.Fuzz(func(t *testing.T, s string) {
		if out := c.Convert(s); out == "" {
			t.Fatalf("empty conversion of %q", s)
		}
		if p := oj.StripTags(s); strings.ContainsAny(p, "<>") {
			t.Fatalf("StripTags(%q) = %q keeps an angle bracket", s, p)
		}
	})
}

// FuzzTruncate: the cap holds, the cut is a prefix on a UTF-8 boundary, and
// truncation is idempotent.
func FuzzTruncate(f *testing.F) {
	f.Add("short", 0)
	f.Add("é", oj.MaxOutputBytes)
	f.Add("問", oj.MaxOutputBytes-1)
	f.Add("a", oj.MaxOutputBytes+1)
	f.Fuzz(func(t *testing.T, unit string, n int) {
		if unit == "" || n < 0 || n > 3*oj.MaxOutputBytes || len(unit)*n > 4*oj.MaxOutputBytes {
			return
		}
		s := strings.Repeat(unit, n)
		out := oj.Truncate(s)
		if len(s) <= oj.MaxOutputBytes {
			if out != s {
				t.Fatal("short input changed")
			}
		} else {
			body, ok := strings.CutSuffix(out, oj.TruncatedSuffix)
			if !ok || len(body) > oj.MaxOutputBytes || !strings.HasPrefix(s, body) {
				t.Fatalf("bad truncation: %d bytes", len(out))
			}
			if utf8.ValidString(s) && !utf8.ValidString(out) {
				t.Fatal("cut inside a character")
			}
		}
		if oj.Truncate(out) != out {
			t.Fatal("not idempotent")
		}
	})
}
