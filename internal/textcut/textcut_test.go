package textcut_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/textcut"
)

func ExampleRunes() {
	fmt.Println(textcut.Runes("héllo wörld", 6))
	fmt.Println(textcut.Runes("héllo", 5))
	// Output:
	// héllo…
	// héllo
}

// Property: the result has at most n runes, is valid UTF-8 when s is, is s
// itself when s fits, and otherwise is a prefix of s followed by "…".
func TestRunesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		n := rapid.IntRange(0, 20).Draw(t, "n")
		got := textcut.Runes(s, n)
		assert.LessOrEqual(t, utf8.RuneCountInString(got), max(n, 0))
		assert.True(t, utf8.ValidString(got) || !utf8.ValidString(s))
		switch {
		case n < 1:
			assert.Empty(t, got)
		case utf8.RuneCountInString(s) <= n:
			assert.Equal(t, s, got)
		default:
			assert.True(t, strings.HasSuffix(got, "…"))
			assert.True(t, strings.HasPrefix(s, strings.TrimSuffix(got, "…")))
		}
	})
}
