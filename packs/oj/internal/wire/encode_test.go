package wire_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj/internal/wire"
)

// ---- Percent-encoding ----

func TestEncode_MatchesRustUrlencoding(t *testing.T) {
	for in, want := range map[string]string{
		"":             "",
		"two-sum_1.A~": "two-sum_1.A~",
		"a b":          "a%20b",
		"a/b?c#d&e=f+": "a%2Fb%3Fc%23d%26e%3Df%2B",
		"é":            "%C3%A9",
		"😀":            "%F0%9F%98%80",
		"!*'();:@$,[]": "%21%2A%27%28%29%3B%3A%40%24%2C%5B%5D",
		"%":            "%25",
	} {
		assert.Equal(t, want, wire.EncodeComponent(in), in)
	}
	// url.PathEscape differs (it keeps ':' and '@', for example).
	assert.NotEqual(t, url.PathEscape("a:b@c"), wire.EncodeComponent("a:b@c"))
}

func TestEncode_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		enc := wire.EncodeComponent(s)
		// Only unreserved characters and %XX triples with upper-case hex.
		for i := 0; i < len(enc); i++ {
			c := enc[i]
			if c == '%' {
				require.Less(t, i+2, len(enc))
				require.Contains(t, "0123456789ABCDEF", string(enc[i+1]))
				require.Contains(t, "0123456789ABCDEF", string(enc[i+2]))
				i += 2
				continue
			}
			require.True(t, c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", rune(c)), "byte %q", c)
		}
		// Decoding gives the input back, as a path segment and as a query value.
		back, err := url.PathUnescape(enc)
		require.NoError(t, err)
		require.Equal(t, s, back)
		back, err = url.QueryUnescape(enc)
		require.NoError(t, err)
		require.Equal(t, s, back)
		// Each byte is encoded on its own: length is exact.
		n := 0
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", rune(c)) {
				n++
			} else {
				n += 3
			}
		}
		require.Len(t, enc, n)
	})
}

func TestEncode_DotSegments(t *testing.T) {
	for s, want := range map[string]bool{".": true, "..": true, "...": false, "": false, " .": false, "a.b": false, "%2E": false} {
		assert.Equal(t, want, wire.IsDotSegment(s), "%q", s)
	}
	// Encoding keeps dots, so only IsDotSegment stops a dot-segment.
	assert.Equal(t, "..", wire.EncodeComponent(".."))
}
