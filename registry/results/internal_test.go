package results

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// pieces runs the segmenter over text, fed in chunks of the given sizes
// (cycled), and returns the pieces it cut.
func pieces(t require.TestingT, text []byte, max int64, chunks []int) [][]byte {
	var idx bytes.Buffer
	w := bufio.NewWriter(&idx)
	s := &segmenter{w: w, max: max, budget: math.MaxInt64}
	rest := text
	for i := 0; len(rest) > 0; i++ {
		n := len(rest)
		if len(chunks) > 0 {
			n = min(n, max1(chunks[i%len(chunks)]))
		}
		k, err := s.write(rest[:n])
		require.NoError(t, err)
		require.Equal(t, n, k, "no budget: every byte taken")
		rest = rest[n:]
	}
	lines, size, err := s.finish(false)
	require.NoError(t, err)
	require.NoError(t, w.Flush())
	require.Equal(t, int64(len(text)), size)
	starts := decodeEntries(idx.Bytes(), nil)
	require.Len(t, starts, int(lines))
	starts = append(starts, size)
	out := make([][]byte, lines)
	for i := range out {
		out[i] = text[starts[i]:starts[i+1]]
	}
	return out
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// checkPieces checks the segmenter's promises on one text.
func checkPieces(t require.TestingT, text []byte, max int64, ps [][]byte) {
	require.Equal(t, text, bytes.Join(ps, nil), "the pieces make up the text")
	for i, p := range ps {
		require.NotEmpty(t, p)
		body := trimNLBytes(p) // as a page reads it
		require.NotContains(t, string(p[:len(p)-1]), "\n", "a '\\n' ends a piece")
		require.LessOrEqual(t, int64(len(body)), max, "piece %d", i)
		if p[len(p)-1] != '\n' && i < len(ps)-1 { // cut, not at a '\n'
			require.Greater(t, int64(len(body)), max-4, "cut only when full")
		}
		if len(body) == 0 && i > 0 {
			prev := ps[i-1]
			require.Equal(t, byte('\n'), prev[len(prev)-1], "piece %d: an empty line follows a line break, never a piece cut when full", i)
		}
	}
	if utf8.Valid(text) {
		for _, p := range ps {
			require.True(t, utf8.Valid(p), "a valid text is cut between characters: %q", p)
		}
		got := make([]string, len(ps))
		for i, p := range ps {
			got[i] = string(trimNLBytes(p))
		}
		require.Equal(t, referenceLines(string(text), int(max)), got, "the lines a page reads")
	}
}

// referenceLines is what the package documentation promises a valid
// UTF-8 text reads as, written plainly: split after each '\n' (no empty
// line after a final one), a line ended by "\r\n" without its '\r', and a
// line longer than max bytes in pieces of at most max bytes, cut between
// characters.
func referenceLines(text string, max int) []string {
	out := []string{}
	if text == "" {
		return out
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if i < len(lines)-1 || strings.HasSuffix(text, "\n") {
			l = strings.TrimSuffix(l, "\r")
		}
		for len(l) > max {
			n := max
			for n > 0 && !utf8.RuneStart(l[n]) {
				n--
			}
			out = append(out, l[:n])
			l = l[n:]
		}
		out = append(out, l)
	}
	return out
}

// A line of exactly the piece size ended by "\r\n" is one line, as with
// "\n" (it read as two, the second one empty); a '\r' after a full piece
// that ends no line starts the next piece — however the text arrives.
func TestSegmenter_CRLFAfterAFullPiece(t *testing.T) {
	full := strings.Repeat("x", 64)
	for text, want := range map[string][]string{
		full + "\r\ntail":     {full, "tail"},
		full + "\ntail":       {full, "tail"},
		full + "\r\n":         {full},
		full + "\r\n\r\n":     {full, ""},
		full + "\rtail":       {full, "\rtail"},
		full + "\r":           {full, "\r"},
		full + "\r\r\n":       {full, "\r"},
		full + "x\r\n":        {full, "x"},
		full[1:] + "\r\r\n":   {full[1:] + "\r"},
		full + full + "\r\nb": {full, full, "b"},
	} {
		for _, chunk := range []int{1, 2, 63, 64, 65, 66, 1000} {
			ps := pieces(t, []byte(text), 64, []int{chunk})
			got := make([]string, len(ps))
			for i, p := range ps {
				got[i] = string(trimNLBytes(p))
			}
			assert.Equal(t, want, got, "%q in chunks of %d", text, chunk)
			checkPieces(t, []byte(text), 64, ps)
		}
	}
}

// Property: the segmenter's pieces make up the text, end at '\n' or when
// full, never exceed MaxLineBytes, never split a character of valid UTF-8,
// and leave a line that fits whole — however the text arrives in chunks.
func TestProperty_Segmenter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := int64(rapid.IntRange(minLineBytes, minLineBytes+40).Draw(t, "max"))
		part := rapid.OneOf(
			rapid.StringMatching(`[a-z]{0,150}`),
			rapid.Just("\n"),
			rapid.StringMatching(`[é€𝄞a]{0,80}`),
			rapid.StringMatching(`.{0,100}`),
		)
		text := []byte(strings.Join(rapid.SliceOfN(part, 0, 12).Draw(t, "parts"), ""))
		if rapid.Bool().Draw(t, "invalid bytes") {
			text = append(text, rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, "bytes")...)
		}
		chunks := rapid.SliceOfN(rapid.IntRange(1, 70), 1, 5).Draw(t, "chunks")
		ps := pieces(t, text, max, chunks)
		checkPieces(t, text, max, ps)
		for _, l := range linesOfBytes(text) {
			if int64(len(l)) <= max {
				require.True(t, hasPiece(ps, l), "line %q fits and is one piece", l)
			}
		}
	})
}

func linesOfBytes(text []byte) [][]byte {
	if len(text) == 0 {
		return nil
	}
	ls := bytes.Split(text, []byte("\n"))
	if len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func hasPiece(ps [][]byte, l []byte) bool {
	for _, p := range ps {
		if bytes.Equal(bytes.TrimSuffix(p, []byte("\n")), l) {
			return true
		}
	}
	return false
}

// A cut output drops its open piece: the stored text ends at the last
// piece boundary.
func TestSegmenter_FinishCut(t *testing.T) {
	var idx bytes.Buffer
	w := bufio.NewWriter(&idx)
	s := &segmenter{w: w, max: 64, budget: math.MaxInt64}
	_, err := s.write([]byte("one\ntwo\nthr"))
	require.NoError(t, err)
	lines, size, err := s.finish(true)
	require.NoError(t, err)
	assert.Equal(t, int64(2), lines)
	assert.Equal(t, int64(len("one\ntwo\n")), size)

	s = &segmenter{w: w, max: 64, budget: math.MaxInt64}
	_, err = s.write([]byte("one\ntwo\n"))
	require.NoError(t, err)
	lines, size, err = s.finish(true)
	require.NoError(t, err)
	assert.Equal(t, int64(2), lines, "nothing open: nothing dropped")
	assert.Equal(t, int64(8), size)
}

// The header round-trips, and parseHeader refuses values that disagree.
func TestHeader_RoundTripAndChecks(t *testing.T) {
	h := header{created: 1e18, expires: 1e18 + 3600e9, size: 1000, lines: 20, maxLine: 64, flags: flagJSON}
	got, err := parseHeader(h.marshal())
	require.NoError(t, err)
	assert.Equal(t, h, got)

	for name, bad := range map[string]header{
		"expires before created": {created: 10, expires: 5, size: 10, lines: 1, maxLine: 64},
		"more lines than bytes":  {created: 1, expires: 2, size: 3, lines: 4, maxLine: 64},
		"too few lines":          {created: 1, expires: 2, size: 1000, lines: 2, maxLine: 64},
		"bytes without lines":    {created: 1, expires: 2, size: 1, lines: 0, maxLine: 64},
		"line size too small":    {created: 1, expires: 2, size: 10, lines: 1, maxLine: 8},
		"unknown flag":           {created: 1, expires: 2, size: 10, lines: 1, maxLine: 64, flags: 1 << 7},
	} {
		_, err := parseHeader(bad.marshal())
		assert.ErrorIs(t, err, errHeader, name)
	}
	b := h.marshal()
	b[50] = 1 // reserved
	binary.LittleEndian.PutUint32(b[60:], crc32.ChecksumIEEE(b[:60]))
	_, err = parseHeader(b)
	assert.ErrorIs(t, err, errHeader)
	_, err = parseHeader(b[:10])
	assert.ErrorIs(t, err, errHeader)
}

// The built-in fuzzy scorer: a line holding the text scores 1; one edit
// (insert, delete, replace, swap) scores 1 − 1/n; beyond n/4 edits, or
// for a text under four characters any edit, no match.
func TestFuzzy_Scores(t *testing.T) {
	f := newFuzzy("config")
	for line, want := range map[string]float64{
		"configuration": 1,
		"CONFIG":        1,
		"a cofnig here": 1 - 1.0/6, // swap
		"confg":         1 - 1.0/6, // delete
		"confiig":       1 - 1.0/6, // insert
		"conbig":        1 - 1.0/6, // replace
		"the Cönfig":    1 - 1.0/6,
		"conf":          -1, // two deletions
		"nothing":       -1,
		"":              -1,
		"gifnoc":        -1,
	} {
		got, ok := f.score([]byte(line))
		if want < 0 {
			assert.False(t, ok, "%q scored %v", line, got)
			continue
		}
		assert.True(t, ok, line)
		assert.InDelta(t, want, got, 2*coverageWeight, line)
	}
	// As many edits away, the line the text covers more of scores higher;
	// one edit more always scores lower.
	exact, _ := f.score([]byte("config"))
	longer, _ := f.score([]byte("configuration loaded"))
	typo, _ := f.score([]byte("confg"))
	assert.Equal(t, 1.0, exact)
	assert.Greater(t, exact, longer)
	assert.Greater(t, longer, typo)
	short := newFuzzy("abc")
	_, ok := short.score([]byte("xabcx"))
	assert.True(t, ok)
	_, ok = short.score([]byte("abd"))
	assert.False(t, ok, "three characters allow no edit")
	uni := newFuzzy("ÉCOLE")
	_, ok = uni.score([]byte("l'école"))
	assert.True(t, ok, "case-insensitive beyond ASCII")
}

// osaDistance is the textbook table the bit-parallel scorer must agree
// with: the fewest edits (insert, delete, replace, swap of neighbours)
// turning q into some part of t, case-insensitively.
func osaDistance(q, t string) int {
	lower := func(s string) []rune {
		rs := []rune(s)
		for i, r := range rs {
			rs[i] = unicode.ToLower(r)
		}
		return rs
	}
	qr, tr := lower(q), lower(t)
	m := len(qr)
	rows := make([][]int, len(tr)+1)
	for i := range rows {
		rows[i] = make([]int, m+1)
	}
	for j := range m + 1 {
		rows[0][j] = j
	}
	best := m
	for i := 1; i <= len(tr); i++ {
		for j := 1; j <= m; j++ {
			v := rows[i-1][j-1]
			if qr[j-1] != tr[i-1] {
				v++
			}
			v = min(v, rows[i-1][j]+1, rows[i][j-1]+1)
			if i > 1 && j > 1 && qr[j-1] == tr[i-2] && qr[j-2] == tr[i-1] {
				v = min(v, rows[i-2][j-2]+1)
			}
			rows[i][j] = v
		}
		best = min(best, rows[i][m])
	}
	return best
}

// Property: the bit-parallel distance equals the table's, for texts of 1
// to 64 characters and any line.
func TestProperty_FuzzyDistanceAgreesWithTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alpha := rapid.SampledFrom([]string{`[abAB]`, `[abcé É]`, `[a-z]`, `.`}).Draw(t, "alphabet")
		q := rapid.StringMatching(alpha+`{1,12}`).Draw(t, "q")
		if rapid.Bool().Draw(t, "long") {
			q = rapid.StringMatching(`[ab]{50,64}`).Draw(t, "long q")
		}
		line := rapid.StringMatching(alpha+`{0,40}`).Draw(t, "line")
		f := newFuzzy(q)
		d, runes := f.distance([]byte(line))
		require.Equal(t, osaDistance(q, line), d, "q=%q line=%q", q, line)
		require.Equal(t, utf8.RuneCountInString(line), runes)
	})
}

// The preview of an output too large to return and not stored ends on a
// line, or, with no line end in reach, on a whole character: a character
// cut at the limit is dropped, and an invalid byte earlier in the text is
// no reason to cut further.
func TestUnstored_PreviewCut(t *testing.T) {
	text := "abc\xffdef" + strings.Repeat("é", 40) // no line end; an invalid byte early
	res := unstored(text, 20)
	preview := res.ErrorData.(map[string]any)["preview"].(string)
	assert.Equal(t, text[:19], preview, "20 bytes would cut an é in two: 19")
	res = unstored("line one\nline two\nline three", 20)
	assert.Equal(t, "line one\nline two", res.ErrorData.(map[string]any)["preview"])
	assert.Equal(t, 3, res.ErrorData.(map[string]any)["total_lines"])
}

// Property: with a budget (the Store's MaxOutputBytes), the segmenter
// keeps a prefix of the pieces it cuts without one — all of them when the
// text fits — whose text and index (header, an entry a piece, the final
// entry) are within the cap, and it stops no earlier than it must: the
// next piece, with the entry and first character of the one after, would
// pass the cap. However the text arrives in chunks.
func TestProperty_SegmenterBudget(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := int64(rapid.IntRange(minLineBytes, minLineBytes+40).Draw(t, "max"))
		part := rapid.OneOf(
			rapid.SampledFrom([]string{"\n", "\r\n", "\r", "\n\n\n\n"}),
			rapid.StringMatching(`[a-z]{0,150}`),
			rapid.StringMatching(`[é€𝄞a]{0,80}`),
			rapid.Custom(func(t *rapid.T) string { return strings.Repeat("x", int(max)+rapid.IntRange(-2, 2).Draw(t, "d")) }),
		)
		text := []byte(strings.Join(rapid.SliceOfN(part, 0, 16).Draw(t, "parts"), ""))
		capBytes := int64(rapid.IntRange(int(minOutputBytes(int(max))), int(minOutputBytes(int(max)))+9*len(text)+10).Draw(t, "cap"))
		chunks := rapid.SliceOfN(rapid.IntRange(1, 200), 1, 4).Draw(t, "chunks")

		all := pieces(t, text, max, nil)
		var idx bytes.Buffer
		w := bufio.NewWriter(&idx)
		s := &segmenter{w: w, max: max, budget: capBytes - headerSize - entrySize}
		cut := false
		for i, rest := 0, text; len(rest) > 0; i++ {
			n := min(len(rest), chunks[i%len(chunks)])
			k, err := s.write(rest[:n])
			require.NoError(t, err)
			if k < n {
				cut = true
				break
			}
			rest = rest[n:]
		}
		lines, size, err := s.finish(cut)
		require.NoError(t, err)
		require.NoError(t, w.Flush())

		footprint := size + indexSize(lines)
		require.LessOrEqual(t, footprint, capBytes, "text and index within the cap")
		starts := decodeEntries(idx.Bytes(), nil)
		require.GreaterOrEqual(t, int64(len(starts)), lines)
		var off int64
		for i := range lines {
			require.Equal(t, off, starts[i], "piece %d starts where it does without a budget", i)
			off += int64(len(all[i]))
		}
		require.Equal(t, off, size, "the text kept is its first pieces")
		if !cut {
			require.Equal(t, int64(len(all)), lines, "a text within the cap is kept whole")
			return
		}
		require.Less(t, lines, int64(len(all)), "a cut drops at least a piece")
		// The piece dropped is the one open at the cut: it did not fit, or
		// did but the next one, which tells where it ends, could not start
		// (an entry and its first character, up to 4 bytes).
		require.Greater(t, footprint+entrySize+int64(len(all[lines]))+entrySize+utf8.UTFMax, capBytes, "cut no earlier than needed")
	})
}

// An output whose full line piece ends with "\r\n" (spanning
// MaxLineBytes+2 bytes) records a line size one larger in its header, so
// that a build reading spans of at most maxLine+1 — one sharing the
// directory or the database, or the build rolled back to — reads it
// instead of removing it as damaged; an output without such a piece
// records MaxLineBytes as before.
func TestStore_HeaderReadableByTheBuildBeforeCRLFSpans(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(t.Context(), Options{Dir: dir, MaxLineBytes: 64})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	for text, want := range map[string]int64{
		strings.Repeat("a", 64) + "\r\ntail\n" + strings.Repeat("b", 64) + "\r\n": 65,
		strings.Repeat("a", 64) + "\ntail\r\n" + strings.Repeat("b", 70) + "\r\n": 64,
	} {
		s, err := st.Put(t.Context(), strings.NewReader(text))
		require.NoError(t, err)
		raw, err := os.ReadFile(filepath.Join(dir, s.Handle+extIndex))
		require.NoError(t, err)
		h, err := parseHeader(raw[:headerSize])
		require.NoError(t, err)
		assert.Equal(t, want, h.maxLine, "%q", text)
		// What the build before checked: every span at most maxLine+1, and
		// the lines able to hold the text.
		starts := decodeEntries(raw[headerSize:], nil)
		for i := 1; i < len(starts); i++ {
			assert.LessOrEqual(t, starts[i]-starts[i-1], h.maxLine+1, "%q line %d", text, i)
		}
		assert.Less(t, (h.size-1)/(h.maxLine+1), h.lines, "%q", text)
	}
}
