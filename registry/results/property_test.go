package results_test

import (
	"cmp"
	"context"
	"io"
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

// chunky hands its text out in the chunk sizes given (cycled), so that a
// line break can fall between two writes.
type chunky struct {
	text   string
	chunks []int
	i      int
}

func (c *chunky) Read(p []byte) (int, error) {
	if c.text == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunks[c.i%len(c.chunks)])], c.text)
	c.i++
	c.text = c.text[n:]
	return n, nil
}

// Property: for texts mixing "\n", "\r\n", lone '\r' and lines around the
// piece size (MaxLineBytes 64, so pieces are cut often), arriving in any
// chunks, the stored lines equal the documented split (ReferenceLines):
// after each '\n', without the '\r' of "\r\n", a long line in pieces of
// at most MaxLineBytes cut between characters — no empty line where
// "\r\n" follows a full piece.
func TestProperty_StoredLinesEqualReferenceSplit(t *testing.T) {
	const max = 64
	st := openStore(t, results.Options{MaxLineBytes: max})
	rapid.Check(t, func(t *rapid.T) {
		part := rapid.OneOf(
			rapid.SampledFrom([]string{"\n", "\r\n", "\r", "\r\r\n", "\n\r"}),
			rapid.Custom(func(t *rapid.T) string { // a run of about one, two or three pieces
				n := rapid.SampledFrom([]int{max, 2 * max, 3 * max}).Draw(t, "pieces") + rapid.IntRange(-3, 3).Draw(t, "delta")
				c := rapid.SampledFrom([]string{"x", "x", "é", "€", "𝄞"}).Draw(t, "char")
				return strings.Repeat(c, n/len(c)) + strings.Repeat("x", n%len(c))
			}),
			rapid.StringMatching(`[a-z]{0,10}`),
			rapid.StringMatching(`[é€𝄞a]{0,40}`),
		)
		text := strings.Join(rapid.SliceOfN(part, 0, 20).Draw(t, "parts"), "")
		chunks := rapid.SliceOfN(rapid.IntRange(1, 3*max), 1, 4).Draw(t, "chunks")
		want := results.ReferenceLines(text, max)
		s, err := st.Put(context.Background(), &chunky{text: text, chunks: chunks})
		require.NoError(t, err)
		require.Equal(t, len(want), s.TotalLines)
		p, err := st.Query(context.Background(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10_000})
		require.NoError(t, err)
		require.Equal(t, want, p.Lines)
		empty := []int{}
		for i, l := range want {
			if l == "" {
				empty = append(empty, i+1)
			}
		}
		p, err = st.Query(context.Background(), results.Request{Handle: s.Handle, Offset: 1, Limit: 10_000, Search: "^$"})
		require.NoError(t, err)
		require.Equal(t, empty, p.LineNumbers, "a search reads the same lines")
	})
}
