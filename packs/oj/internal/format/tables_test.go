package format_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark/ast"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj/internal/format"
)

func TestSimilar_TableHas7ColumnsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(t, "rows")
		resp := &format.SimilarResponse{RewrittenQuery: rapid.StringMatching(`[a-z ]{1,20}`).Draw(t, "q")}
		for range n {
			cell := rapid.StringMatching(`[A-Za-z0-9 |_\-]{1,12}`)
			// The title's text is compared after Markdown parsing, so it
			// has no emphasis characters ("_-_" renders as an emphasised
			// "-"); pipes, which must not split the cell, stay.
			title := rapid.StringMatching(`[A-Za-z0-9 |\-]{1,12}`)
			r := format.SimilarResult{
				Source: cell.Draw(t, "source"), ID: cell.Draw(t, "id"), Title: title.Draw(t, "title"),
				Similarity: rapid.Float64Range(0, 1).Draw(t, "sim"),
			}
			if rapid.Bool().Draw(t, "hasDifficulty") {
				r.Difficulty = ptr(cell.Draw(t, "difficulty"))
			}
			resp.Results = append(resp.Results, r)
		}
		md := format.RenderSimilar(resp)
		if n == 0 {
			require.True(t, strings.HasSuffix(md, "|------|\n"))
			return
		}
		cols, rows, cells := mustTable(t, md)
		require.Equal(t, 7, cols)
		require.Equal(t, n, rows)
		for i, row := range cells {
			require.Len(t, row, 7)
			require.Equal(t, strings.TrimSpace(resp.Results[i].Title), row[3])
			require.Equal(t, format.Percent(resp.Results[i].Similarity*100), row[5])
		}
	})
}

func TestStatus_TableHas4ColumnsAndOneRowPerPlatformProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 10).Draw(t, "platforms")
		s := &format.StatusResponse{Version: rapid.StringMatching(`[0-9]\.[0-9]{1,2}\.[0-9]`).Draw(t, "version")}
		for range n {
			s.Platforms = append(s.Platforms, format.PlatformStatus{
				Source: rapid.StringMatching(`[a-z|]{1,10}`).Draw(t, "source"),
				Total:  rapid.Uint64().Draw(t, "total"), MissingContent: rapid.Uint64Range(0, 5000).Draw(t, "mc"),
				NotEmbedded: rapid.Uint64Range(0, 1e7).Draw(t, "ne"),
			})
		}
		md := format.RenderStatus(s)
		require.True(t, strings.HasPrefix(md, "# OJ Platform Status (v"+s.Version+")\n"))
		cols, rows, cells := mustTable(t, md)
		require.Equal(t, 4, cols)
		require.Equal(t, n, rows)
		for i, row := range cells {
			require.Equal(t, format.GroupThousands(s.Platforms[i].Total), row[1])
		}
	})
}

// TestFormat_HeaderFieldsCleanedLikeCells: line breaks, other control
// characters and Unicode line separators in any header field become
// spaces, so the header keeps its template (heading, four-item list,
// thematic break) and the status and similar headers stay one line.
func TestFormat_HeaderFieldsCleanedLikeCells(t *testing.T) {
	p := &format.Problem{ID: "1\n2", Source: "lee\rtcode", Title: "Two\nSum\u2028x\u0085y", Difficulty: ptr("Ea\vsy"),
		Tags: []string{"A\nB", "C"}, Link: ptr("https://x/\n# evil")}
	md := format.RenderProblem(p, "body")
	assert.Equal(t, "# Two Sum x y\n\n- Source: lee tcode | ID: 1 2 | Difficulty: Ea sy\n- Tags: A B, C\n"+
		"- Link: https://x/ # evil\n- AC Rate: N/A\n\n---\n\nbody", md)
	kinds, items := topBlocks(md, 3)
	assert.Equal(t, []ast.NodeKind{ast.KindHeading, ast.KindList, ast.KindThematicBreak}, kinds)
	assert.Equal(t, 4, items)

	md = format.RenderStatus(&format.StatusResponse{Version: "1\n\n| x | y | z | w |"})
	assert.True(t, strings.HasPrefix(md, "# OJ Platform Status (v1  | x | y | z | w |)\n\n| Platform |"), md)
	md = format.RenderSimilar(&format.SimilarResponse{RewrittenQuery: "q\r\n\r\n| 1 | a | b | c | d | e | f |"})
	assert.True(t, strings.HasPrefix(md, "# Similar Problems\n\nQuery: q    | 1 | a"), md)
	_, rows, _ := mustTable(t, md)
	assert.Zero(t, rows, "the query added no row")
}

// TestFormat_InlineAndCellCleaning: what Inline and Cell change, and that
// they return clean text unchanged (no copy).
func TestFormat_InlineAndCellCleaning(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "a|b": "a|b", "a\nb": "a b", "a\r\nb": "a  b", "\x00\x1b\x7f": "   ",
		"x\u0085\u2028\u2029y": "x   y", "tab\there": "tab here", "é 問 😀": "é 問 😀", "bad\xffutf8": "bad\xffutf8",
	} {
		assert.Equal(t, want, format.Inline(in), "%q", in)
		assert.Equal(t, strings.ReplaceAll(want, "|", `\|`), format.Cell(in), "%q", in)
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		in, cell := format.Inline(s), format.Cell(s)
		require.False(t, strings.ContainsAny(in, "\r\n\u2028\u2029\u0085"))
		require.Equal(t, strings.Count(s, "|"), strings.Count(cell, `\|`))
		require.Equal(t, in, strings.ReplaceAll(cell, `\|`, "|"))
	})
}
