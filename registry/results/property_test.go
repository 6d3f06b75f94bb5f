package results_test

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry/results"
)

// linesOf is the line semantics the store promises: split after '\n', no
// empty line after a final '\n', none at all in an empty text.
func linesOf(text string) []string {
	if text == "" {
		return []string{}
	}
	parts := strings.Split(text, "\n")
	for i := range len(parts) - 1 { // a line ended by "\r\n" reads without its '\r'
		parts[i] = strings.TrimSuffix(parts[i], "\r")
	}
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// genText draws a text of random lines (any characters but '\n', some
// empty, some with '\r'), with or without a final '\n'.
func genText(t *rapid.T) string {
	line := rapid.OneOf(
		rapid.StringMatching(`[a-z0-9 ]{0,12}`),
		rapid.StringMatching(`[^\n]{0,30}`),
		rapid.Just(""),
		rapid.StringMatching(`[ab]{1,3}\r`),
	)
	lines := rapid.SliceOfN(line, 0, 60).Draw(t, "lines")
	text := strings.Join(lines, "\n")
	if rapid.Bool().Draw(t, "final newline") {
		text += "\n"
	}
	return text
}

// Property (issue 11): for random lines, any offset and limit return
// exactly the slice of the lines they name, with total_lines, returned and
// has_more to match.
func TestProperty_PagingEqualsSlicing(t *testing.T) {
	st := openStore(t, results.Options{})
	rapid.Check(t, func(t *rapid.T) {
		text := genText(t)
		want := linesOf(text)
		s, err := st.Put(context.Background(), strings.NewReader(text))
		require.NoError(t, err)
		require.Equal(t, len(want), s.TotalLines)
		n := len(want)
		off := rapid.IntRange(1, n+3).Draw(t, "offset")
		lim := rapid.IntRange(1, n+3).Draw(t, "limit")
		p, err := st.Query(context.Background(), results.Request{Handle: s.Handle, Offset: off, Limit: lim})
		require.NoError(t, err)
		from, to := min(off-1, n), min(off-1+lim, n)
		require.Equal(t, want[from:to], p.Lines)
		require.Equal(t, to-from, p.Returned)
		require.Equal(t, n, p.TotalLines)
		require.Equal(t, off, p.Offset)
		require.Equal(t, to < n, p.HasMore)
	})
}

// Property (issue 11): with a regular expression, the page is the same
// slice of the matching lines, and line_numbers say where they are.
func TestProperty_SearchEqualsFilteredSlicing(t *testing.T) {
	st := openStore(t, results.Options{})
	rapid.Check(t, func(t *rapid.T) {
		text := genText(t)
		all := linesOf(text)
		pattern := rapid.SampledFrom([]string{"a", "^b", "[0-9]$", "x|y", "(?i)A.", "^$", "é", `\r$`, "."}).Draw(t, "search")
		re := regexp.MustCompile(pattern)
		var want []string
		var nums []int
		for i, l := range all {
			if re.MatchString(l) {
				want = append(want, l)
				nums = append(nums, i+1)
			}
		}
		s, err := st.Put(context.Background(), strings.NewReader(text))
		require.NoError(t, err)
		n := len(want)
		off := rapid.IntRange(1, n+3).Draw(t, "offset")
		lim := rapid.IntRange(1, n+3).Draw(t, "limit")
		p, err := st.Query(context.Background(), results.Request{Handle: s.Handle, Offset: off, Limit: lim, Search: pattern})
		require.NoError(t, err)
		from, to := min(off-1, n), min(off-1+lim, n)
		require.Equal(t, append([]string{}, want[from:to]...), p.Lines)
		require.Equal(t, append([]int{}, nums[from:to]...), p.LineNumbers)
		require.Equal(t, to-from, p.Returned)
		require.Equal(t, len(all), p.TotalLines)
		require.Equal(t, to < n, p.HasMore)
	})
}

// Property: a fuzzy search returns every line holding the text (any case)
// first, shorter lines (which the text covers more of) before longer ones
// and otherwise in line order, and each returned line at most once.
func TestProperty_FuzzyHoldersFirst(t *testing.T) {
	st := openStore(t, results.Options{})
	rapid.Check(t, func(t *rapid.T) {
		text := genText(t)
		all := linesOf(text)
		q := rapid.StringMatching(`[a-z0-9]{1,6}`).Draw(t, "search")
		var holders []int
		for i, l := range all {
			if strings.Contains(strings.ToLower(l), q) {
				holders = append(holders, i+1)
			}
		}
		s, err := st.Put(context.Background(), strings.NewReader(text))
		require.NoError(t, err)
		p, err := st.Query(context.Background(), results.Request{Handle: s.Handle, Offset: 1, Limit: 1000, Search: q, Fuzzy: true})
		require.NoError(t, err)
		slices.SortStableFunc(holders, func(a, b int) int {
			return cmp.Compare(utf8.RuneCountInString(all[a-1]), utf8.RuneCountInString(all[b-1]))
		})
		require.GreaterOrEqual(t, len(p.LineNumbers), len(holders))
		require.Equal(t, append([]int{}, holders...), append([]int{}, p.LineNumbers[:len(holders)]...))
		seen := map[int]bool{}
		for i, ln := range p.LineNumbers {
			require.False(t, seen[ln])
			seen[ln] = true
			require.Equal(t, all[ln-1], p.Lines[i])
		}
	})
}
