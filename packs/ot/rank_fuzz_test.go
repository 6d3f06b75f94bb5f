package ot_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/toolpack-go/toolpack/packs/ot"
)

// FuzzDefaultRank ranks a fixed catalogue and one arbitrary item against
// an arbitrary query (ot.help's query argument): DefaultRank never
// panics; its hits name each item at most once, within the slice, with
// scores above 0 and at most 1000, best first and ties in the items'
// order; an item whose name is the query (case and surrounding spaces
// aside) scores 1000.
func FuzzDefaultRank(f *testing.F) {
	for _, c := range [][3]string{
		{"scaffoldl", "scaffold", "Create a project"}, {"webfetch", "web_fetch", "Fetch a page"},
		{"  ADD ", "add", ""}, {"ÉTÉ été", "été", "saison"}, {"\xff\xfe", "\xff", "\x00"},
		{"a-b_c d", "a.b.c", "d e f"}, {"frirecrawl", "firecrawl", "crawl"}, {"", "x", "y"},
		{strings.Repeat("ab", 40), strings.Repeat("ab", 41), strings.Repeat("b a", 30)},
	} {
		f.Add(c[0], c[1], c[2])
	}
	items := []ot.SearchItem{
		{Kind: ot.KindTool, Name: "add", Description: "Add two numbers"},
		{Kind: ot.KindTool, Name: "web_fetch", Description: "Fetch a web page as text"},
		{Kind: ot.KindTool, Name: "scaffold", Description: "Create a project from a template"},
		{Kind: ot.KindTool, Name: "", Description: ""},
	}
	f.Fuzz(func(t *testing.T, query, name, desc string) {
		all := append(items[:len(items):len(items)], ot.SearchItem{Kind: ot.KindTool, Name: name, Description: desc})
		hits := ot.DefaultRank(query, all)
		seen := map[int]bool{}
		for i, h := range hits {
			if h.Index < 0 || h.Index >= len(all) || seen[h.Index] {
				t.Fatalf("%q: hit %+v is not one item of %d", query, h, len(all))
			}
			seen[h.Index] = true
			if !(h.Score > 0 && h.Score <= 1000) {
				t.Fatalf("%q: hit %+v scores out of (0, 1000]", query, h)
			}
			if i > 0 && (h.Score > hits[i-1].Score || h.Score == hits[i-1].Score && h.Index < hits[i-1].Index) {
				t.Fatalf("%q: hits out of order: %+v", query, hits)
			}
		}
		q := strings.ToLower(strings.TrimSpace(query))
		if q != "" && strings.ToLower(name) == q && strings.ContainsFunc(q, isWordRune) {
			if !seen[len(all)-1] || hits[0].Score != 1000 {
				t.Fatalf("%q: the item named so is not a best hit of 1000: %+v", query, hits)
			}
		}
	})
}

// isWordRune is a rune of a word to DefaultRank: a query without any has
// no hits.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
