package format_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj/internal/format"
)

// ---- Nullable display, tags, percentages ----

func problemFixture() *format.Problem {
	return &format.Problem{ID: "1", Source: "leetcode", Title: "Two Sum", Difficulty: ptr("Easy"), ACRate: ptr(57.0),
		Tags: []string{"Array", "Hash Table"}, Link: ptr("https://l/1"), Content: "plain"}
}

func TestFormat_MissingValuesShowNA(t *testing.T) {
	p := &format.Problem{ID: "1", Source: "s", Title: "T"}
	assert.Equal(t, "# T\n\n- Source: s | ID: 1 | Difficulty: N/A\n- Tags: N/A\n- Link: N/A\n- AC Rate: N/A\n\n---\n\nx", format.RenderProblem(p, "x"))
	p.Tags = []string{}
	assert.Contains(t, format.RenderProblem(p, "x"), "- Tags: N/A\n")
}

func TestFormat_TagsJoinedWithCommaSpace(t *testing.T) {
	md := format.RenderProblem(problemFixture(), "plain")
	assert.Contains(t, md, "\n- Tags: Array, Hash Table\n")
}

func TestFormat_ACRateOneDecimal(t *testing.T) {
	assert.Equal(t, "57.0%", format.Percent(57))
	assert.Equal(t, "57.1%", format.Percent(57.123))
	assert.Equal(t, "100.0%", format.Percent(100))
	assert.Equal(t, "79.1%", format.Percent(0.791*100))
	assert.Equal(t, "100.0%", format.Percent(1.0*100))
	assert.Contains(t, format.RenderProblem(problemFixture(), "plain"), "\n- AC Rate: 57.0%\n")
}

func TestFormat_PercentProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.Float64Range(0, 1).Draw(t, "similarity")
		s := format.Percent(v * 100)
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
	rapid.Check(t, func(t *rapid.T) {
		word := rapid.StringMatching(`[A-Za-z0-9 ]{1,12}`)
		p := &format.Problem{ID: word.Draw(t, "id"), Source: word.Draw(t, "source"), Title: word.Draw(t, "title"), Content: word.Draw(t, "content")}
		if rapid.Bool().Draw(t, "d") {
			p.Difficulty = ptr(word.Draw(t, "difficulty"))
		}
		if rapid.Bool().Draw(t, "a") {
			p.ACRate = ptr(rapid.Float64Range(0, 100).Draw(t, "ac"))
		}
		p.Tags = rapid.SliceOfN(word, 0, 4).Draw(t, "tags")
		lines := strings.Split(format.RenderProblem(p, p.Content), "\n")
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
			require.Equal(t, "- AC Rate: "+format.Percent(*p.ACRate), lines[5])
		}
		require.Equal(t, []string{"", "---", ""}, lines[6:9])
	})
}

// ---- Grouping ----

func TestGroupThousands_Examples(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12984: "12,984",
		100000: "100,000", 1234567: "1,234,567", 18446744073709551615: "18,446,744,073,709,551,615"} {
		assert.Equal(t, want, format.GroupThousands(n))
	}
}

func TestGroupThousands_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Uint64().Draw(t, "n")
		s := format.GroupThousands(n)
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
	s := strings.Repeat("a", format.MaxOutputBytes)
	assert.Equal(t, s, format.Truncate(s))
}

func TestTruncate_CutsAtUTF8BoundaryAndAppendsMarker(t *testing.T) {
	keep := format.MaxOutputBytes - len(format.TruncatedSuffix)
	s := strings.Repeat("a", format.MaxOutputBytes+1)
	assert.Equal(t, strings.Repeat("a", keep)+"\n\n... (truncated)", format.Truncate(s))
	// A 3-byte character straddling the cut is dropped whole.
	s = strings.Repeat("a", keep-1) + "問" + strings.Repeat("z", 100)
	assert.Equal(t, strings.Repeat("a", keep-1)+"\n\n... (truncated)", format.Truncate(s))
}

// TestTruncate_CapHoldsForEveryInput: no output exceeds MaxOutputBytes, not
// even one that already ends with the truncation marker (inputs of every
// length around the cap that end with the marker).
func TestTruncate_CapHoldsForEveryInput(t *testing.T) {
	for over := -len(format.TruncatedSuffix); over <= len(format.TruncatedSuffix)+1; over++ {
		s := strings.Repeat("a", format.MaxOutputBytes-len(format.TruncatedSuffix)+over) + format.TruncatedSuffix
		out := format.Truncate(s)
		assert.LessOrEqual(t, len(out), format.MaxOutputBytes, "input %d bytes", len(s))
		assert.Equal(t, out, format.Truncate(out))
		if len(s) <= format.MaxOutputBytes {
			assert.Equal(t, s, out)
		}
	}
}

func TestTruncate_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		unit := rapid.SampledFrom([]string{"a", "é", "問", "😀", "ab\n", format.TruncatedSuffix}).Draw(t, "unit")
		n := rapid.IntRange(0, 2*format.MaxOutputBytes/len(unit)).Draw(t, "n")
		// An input may already end with the marker, at any length near the cap.
		tail := rapid.SampledFrom([]string{"", format.TruncatedSuffix, "\n\n... (trunc"}).Draw(t, "tail")
		s := rapid.StringMatching(`[a-z]{0,3}`).Draw(t, "head") + strings.Repeat(unit, n) + tail
		out := format.Truncate(s)
		require.True(t, utf8.ValidString(out))
		require.LessOrEqual(t, len(out), format.MaxOutputBytes, "the cap holds")
		if len(s) <= format.MaxOutputBytes {
			require.Equal(t, s, out)
		} else {
			body, marked := strings.CutSuffix(out, format.TruncatedSuffix)
			require.True(t, marked, "marker appended")
			keep := format.MaxOutputBytes - len(format.TruncatedSuffix)
			require.LessOrEqual(t, len(body), keep)
			require.Greater(t, len(body), keep-utf8.UTFMax)
			require.True(t, strings.HasPrefix(s, body))
		}
		require.Equal(t, out, format.Truncate(out), "truncating twice changes nothing")
	})
}
