package format_test

import (
	"strings"

	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// tb is what helpers need; *testing.T and *rapid.T both have it.
type tb interface {
	require.TestingT
	Helper()
}

func ptr[T any](v T) *T { return &v }

// parse parses md as GitHub-flavoured Markdown (tables included).
func parse(md string) (ast.Node, []byte) {
	src := []byte(md)
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src)), src
}

// gfmTable returns the header cell count, the number of body rows and the
// text of every body cell of md's first GFM table; ok is false when md has
// no table.
func gfmTable(md string) (cols, rows int, cells [][]string, ok bool) {
	doc, src := parse(md)
	var table *extast.Table
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if tb, isTable := n.(*extast.Table); entering && isTable && table == nil {
			table = tb
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if table == nil {
		return 0, 0, nil, false
	}
	for row := table.FirstChild(); row != nil; row = row.NextSibling() {
		n := row.ChildCount()
		if _, isHeader := row.(*extast.TableHeader); isHeader {
			cols = n
			continue
		}
		rows++
		var rowCells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			rowCells = append(rowCells, cellText(c, src))
		}
		cells = append(cells, rowCells)
	}
	return cols, rows, cells, true
}

// mustTable is gfmTable failing t when md has no table.
func mustTable(t tb, md string) (cols, rows int, cells [][]string) {
	t.Helper()
	cols, rows, cells, ok := gfmTable(md)
	require.True(t, ok, "no GFM table in:\n%s", md)
	return cols, rows, cells
}

func cellText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if tx, isText := c.(*ast.Text); entering && isText {
			b.Write(tx.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	// GFM turns an escaped pipe back into a pipe inside a cell.
	return strings.ReplaceAll(b.String(), `\|`, "|")
}

// topBlocks returns the kinds of md's first n top-level blocks and the item
// count of its first list.
func topBlocks(md string, n int) (kinds []ast.NodeKind, items int) {
	doc, _ := parse(md)
	for c := doc.FirstChild(); c != nil && len(kinds) < n; c = c.NextSibling() {
		kinds = append(kinds, c.Kind())
		if l, isList := c.(*ast.List); isList && items == 0 {
			items = l.ChildCount()
		}
	}
	return kinds, items
}
