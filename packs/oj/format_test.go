package oj_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj"
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
		assert.Equal(t, want, oj.EncodeComponent(in), in)
	}
	// url.PathEscape differs (it keeps ':' and '@', for example).
	assert.NotEqual(t, url.PathEscape("a:b@c"), oj.EncodeComponent("a:b@c"))
}

func TestEncode_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		enc := oj.EncodeComponent(s)
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

// ---- Nullable display, tags, percentages ----

func problemFixture() *oj.Problem {
	return &oj.Problem{ID: "1", Source: "leetcode", Title: "Two Sum", Difficulty: ptr("Easy"), ACRate: ptr(57.0),
		Tags: []string{"Array", "Hash Table"}, Link: ptr("https://l/1"), Content: "plain"}
}

func TestFormat_MissingValuesShowNA(t *testing.T) {
	conv := oj.NewConverter()
	p := &oj.Problem{ID: "1", Source: "s", Title: "T", Content: "x"}
	assert.Equal(t, "# T\n\n- Source: s | ID: 1 | Difficulty: N/A\n- Tags: N/A\n- Link: N/A\n- AC Rate: N/A\n\n---\n\nx", oj.FormatProblem(conv, p))
	p.Tags = []string{}
	assert.Contains(t, oj.FormatProblem(conv, p), "- Tags: N/A\n")
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "nulls"})
	assert.Equal(t, "# Bare\n\n- Source: leetcode | ID: nulls | Difficulty: N/A\n- Tags: N/A\n- Link: N/A\n- AC Rate: N/A\n\n---\n\nplain text, no markup", md)
}

func TestFormat_TagsJoinedWithCommaSpace(t *testing.T) {
	md := oj.FormatProblem(oj.NewConverter(), problemFixture())
	assert.Contains(t, md, "\n- Tags: Array, Hash Table\n")
}

func TestFormat_ACRateOneDecimal(t *testing.T) {
	assert.Equal(t, "57.0%", oj.FormatPercent(57))
	assert.Equal(t, "57.1%", oj.FormatPercent(57.123))
	assert.Equal(t, "100.0%", oj.FormatPercent(100))
	assert.Equal(t, "79.1%", oj.FormatPercent(0.791*100))
	assert.Equal(t, "100.0%", oj.FormatPercent(1.0*100))
	assert.Contains(t, oj.FormatProblem(oj.NewConverter(), problemFixture()), "\n- AC Rate: 57.0%\n")
}

func TestFormat_PercentProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.Float64Range(0, 1).Draw(t, "similarity")
		s := oj.FormatPercent(v * 100)
		require.True(t, strings.HasSuffix(s, "%"))
		num := strings.TrimSuffix(s, "%")
		dot := strings.IndexByte(num, '.')
		require.Equal(t, len(num)-2, dot, "exactly one decimal: %s", s)
		f, err := strconv.ParseFloat(num, 64)
		require.NoError(t, err)
		require.InDelta(t, v*100, f, 0.05+1e-9)
	})
}

func TestFormat_ProblemHeaderProperty(t *testing.T) {
	conv := oj.NewConverter()
	rapid.Check(t, func(t *rapid.T) {
		word := rapid.StringMatching(`[A-Za-z0-9 ]{1,12}`)
		p := &oj.Problem{ID: word.Draw(t, "id"), Source: word.Draw(t, "source"), Title: word.Draw(t, "title"), Content: word.Draw(t, "content")}
		if rapid.Bool().Draw(t, "d") {
			p.Difficulty = ptr(word.Draw(t, "difficulty"))
		}
		if rapid.Bool().Draw(t, "a") {
			p.ACRate = ptr(rapid.Float64Range(0, 100).Draw(t, "ac"))
		}
		p.Tags = rapid.SliceOfN(word, 0, 4).Draw(t, "tags")
		lines := strings.Split(oj.FormatProblem(conv, p), "\n")
		require.Equal(t, "# "+p.Title, lines[0])
		require.Equal(t, "", lines[1])
		require.True(t, strings.HasPrefix(lines[2], "- Source: "+p.Source+" | ID: "+p.ID+" | Difficulty: "))
		require.True(t, strings.HasPrefix(lines[3], "- Tags: "))
		if len(p.Tags) == 0 {
			require.Equal(t, "- Tags: N/A", lines[3])
		} else {
			require.Equal(t, "- Tags: "+strings.Join(p.Tags, ", "), lines[3])
		}
		require.True(t, strings.HasPrefix(lines[4], "- Link: "))
		if p.ACRate == nil {
			require.Equal(t, "- AC Rate: N/A", lines[5])
		} else {
			require.Equal(t, "- AC Rate: "+oj.FormatPercent(*p.ACRate), lines[5])
		}
		require.Equal(t, []string{"", "---", ""}, lines[6:9])
	})
}

// ---- Grouping ----

func TestGroupThousands_Examples(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12984: "12,984",
		100000: "100,000", 1234567: "1,234,567", 18446744073709551615: "18,446,744,073,709,551,615"} {
		assert.Equal(t, want, oj.GroupThousands(n))
	}
}

func TestGroupThousands_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Uint64().Draw(t, "n")
		s := oj.GroupThousands(n)
		back, err := strconv.ParseUint(strings.ReplaceAll(s, ",", ""), 10, 64)
		require.NoError(t, err)
		require.Equal(t, n, back)
		groups := strings.Split(s, ",")
		require.True(t, len(groups[0]) >= 1 && len(groups[0]) <= 3)
		for _, g := range groups[1:] {
			require.Len(t, g, 3)
		}
	})
}

// ---- Truncation ----

func TestTruncate_ShortOutputUnchanged(t *testing.T) {
	s := strings.Repeat("a", oj.MaxOutputBytes)
	assert.Equal(t, s, oj.Truncate(s))
}

func TestTruncate_CutsAtUTF8BoundaryAndAppendsMarker(t *testing.T) {
	s := strings.Repeat("a", oj.MaxOutputBytes+1)
	assert.Equal(t, strings.Repeat("a", oj.MaxOutputBytes)+"\n\n... (truncated)", oj.Truncate(s))
	// A 3-byte character straddling the limit is dropped whole.
	s = strings.Repeat("a", oj.MaxOutputBytes-1) + "問" + "tail"
	assert.Equal(t, strings.Repeat("a", oj.MaxOutputBytes-1)+"\n\n... (truncated)", oj.Truncate(s))
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "big"})
	assert.True(t, strings.HasSuffix(md, oj.TruncatedSuffix))
	assert.LessOrEqual(t, len(md), oj.MaxOutputBytes+len(oj.TruncatedSuffix))
	assert.True(t, utf8.ValidString(md))
}

func TestTruncate_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		unit := rapid.SampledFrom([]string{"a", "é", "問", "😀", "ab\n"}).Draw(t, "unit")
		n := rapid.IntRange(0, 2*oj.MaxOutputBytes/len(unit)).Draw(t, "n")
		s := rapid.StringMatching(`[a-z]{0,3}`).Draw(t, "head") + strings.Repeat(unit, n)
		out := oj.Truncate(s)
		require.True(t, utf8.ValidString(out))
		if len(s) <= oj.MaxOutputBytes {
			require.Equal(t, s, out)
		} else {
			body := strings.TrimSuffix(out, oj.TruncatedSuffix)
			require.NotEqual(t, out, body, "marker appended")
			require.LessOrEqual(t, len(body), oj.MaxOutputBytes)
			require.Greater(t, len(body), oj.MaxOutputBytes-utf8.UTFMax)
			require.True(t, strings.HasPrefix(s, body))
		}
		require.Equal(t, out, oj.Truncate(out), "truncating twice changes nothing")
	})
}
