package format_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/toolpack-go/toolpack/packs/oj/internal/format"
)

// FuzzTruncate: the cap holds for every input (an input ending with the
// marker included: a negative n appends TruncatedSuffix to |n| units), the
// cut is a prefix on a UTF-8 boundary, and truncation is idempotent.
func FuzzTruncate(f *testing.F) {
	f.Add("short", 0)
	f.Add("é", format.MaxOutputBytes)
	f.Add("問", format.MaxOutputBytes-1)
	f.Add("a", format.MaxOutputBytes+1)
	f.Add("a", -(format.MaxOutputBytes - 10))
	f.Add("a", -(format.MaxOutputBytes - len(format.TruncatedSuffix) + 1))
	f.Fuzz(func(t *testing.T, unit string, n int) {
		marked := n < 0
		if marked {
			n = -n
		}
		if unit == "" || n < 0 || n > 3*format.MaxOutputBytes || len(unit)*n > 4*format.MaxOutputBytes {
			return
		}
		s := strings.Repeat(unit, n)
		if marked {
			s += format.TruncatedSuffix
		}
		out := format.Truncate(s)
		if len(out) > format.MaxOutputBytes {
			t.Fatalf("output of %d bytes over the cap (input %d bytes)", len(out), len(s))
		}
		if len(s) <= format.MaxOutputBytes {
			if out != s {
				t.Fatal("short input changed")
			}
		} else {
			body, ok := strings.CutSuffix(out, format.TruncatedSuffix)
			if !ok || !strings.HasPrefix(s, body) {
				t.Fatalf("bad truncation: %d bytes", len(out))
			}
			if utf8.ValidString(s) && !utf8.ValidString(out) {
				t.Fatal("cut inside a character")
			}
		}
		if format.Truncate(out) != out {
			t.Fatal("not idempotent")
		}
	})
}

// FuzzRenderProblem: whatever the backend sends in the header fields, the
// problem keeps the header template: nine fixed lines, parsed by goldmark
// (GFM) as a level-1 heading, a four-item list and a thematic break.
func FuzzRenderProblem(f *testing.F) {
	f.Add("Two Sum", "leetcode", "1", "Easy", "https://leetcode.com/problems/two-sum/", "Array", "Hash Table", "body")
	f.Add("Two\nSum", "a\rb", "1\r\n2", "\u2028", "x\u0085y", "", "|", "")
	f.Add("#", "- x", "* y", "---", "[l](u)", "<b>", "`", "===")
	f.Add("\x00\x1b[31m", "\x7f", "\xff", "\t", "\v\f", "\u2029", "\\", "\n# not a heading")
	f.Fuzz(func(t *testing.T, title, source, id, difficulty, link, tag1, tag2, content string) {
		p := &format.Problem{Title: title, Source: source, ID: id, Difficulty: &difficulty, Link: &link, Tags: []string{tag1, tag2}, ACRate: ptr(57.0)}
		md := format.RenderProblem(p, content)
		lines := strings.SplitN(md, "\n", 10)
		if len(lines) < 10 {
			t.Fatalf("fewer than ten lines:\n%q", md)
		}
		for i, prefix := range []string{"# ", "", "- Source: ", "- Tags: ", "- Link: ", "- AC Rate: 57.0%", "", "---", ""} {
			if !strings.HasPrefix(lines[i], prefix) || (prefix == "" && lines[i] != "") || (prefix == "---" && lines[i] != "---") {
				t.Fatalf("line %d is %q, want prefix %q:\n%q", i, lines[i], prefix, md)
			}
			if strings.ContainsAny(lines[i], "\r\x00") {
				t.Fatalf("line %d keeps a control character: %q", i, lines[i])
			}
		}
		kinds, items := topBlocks(md, 3)
		if !slices.Equal(kinds, []ast.NodeKind{ast.KindHeading, ast.KindList, ast.KindThematicBreak}) || items != 4 {
			t.Fatalf("header parsed as %v with %d list items:\n%q", kinds, items, md)
		}
	})
}

// FuzzRenderTables: whatever the backend sends in the cells, the similar
// table has 7 columns and the status table 4, one row per result in order
// (checked with goldmark's GFM tables: the row number and the similarity,
// or the counts, stay in their columns).
func FuzzRenderTables(f *testing.F) {
	f.Add("two sum", "1.2.3", "leetcode", "167", "Two Sum II", "Medium", "https://x/", 0.791, uint64(12984), uint8(3))
	f.Add("q\n\n| a | b |", "1\n|", "a|b", `\|`, "x\ny", "`|`", "\r", 1.0, uint64(0), uint8(1))
	f.Add("", "", `\`, `a\\|b`, "|||", "- x", "<!--", 0.0, uint64(1<<63), uint8(7))
	f.Fuzz(func(t *testing.T, query, version, source, id, title, difficulty, link string, sim float64, total uint64, n uint8) {
		rows := int(n%8) + 1
		sr := &format.SimilarResponse{RewrittenQuery: query}
		st := &format.StatusResponse{Version: version}
		for i := range rows {
			sr.Results = append(sr.Results, format.SimilarResult{Source: source, ID: id, Title: title, Difficulty: &difficulty, Link: &link, Similarity: sim})
			st.Platforms = append(st.Platforms, format.PlatformStatus{Source: source, Total: total, MissingContent: uint64(i), NotEmbedded: total / 2})
		}
		check := func(md string, wantCols int, row func(i int, cells []string) bool) {
			cols, got, cells, ok := gfmTable(md)
			if !ok || cols != wantCols || got != rows {
				t.Fatalf("table with %d columns and %d rows (want %d and %d):\n%q", cols, got, wantCols, rows, md)
			}
			for i, c := range cells {
				if !row(i, c) {
					t.Fatalf("row %d is %q:\n%q", i, c, md)
				}
			}
		}
		check(format.RenderSimilar(sr), 7, func(i int, c []string) bool {
			return c[0] == strconv.Itoa(i+1) && c[5] == format.Percent(sim*100)
		})
		check(format.RenderStatus(st), 4, func(i int, c []string) bool {
			return c[1] == format.GroupThousands(total) && c[2] == strconv.Itoa(i) && c[3] == format.GroupThousands(total/2)
		})
	})
}
