package search

import (
	"strings"
	"testing"
)

// FuzzRank ranks arbitrary queries against arbitrary items (invalid UTF-8
// included): never a panic; an item named like the query ranks first;
// every match's score is positive; line search agrees that a line equal to
// a one-term query matches.
func FuzzRank(f *testing.F) {
	for _, s := range [][3]string{
		{"scaffoldl", "code.scaffold", "Create a project."},
		{"frirecrawl", "firecrawl", "Crawl sites."},
		{"web fetch", "web.fetch", "Fetch a page."},
		{"İstanbul", "istanbul", "Ünïcode ẞ"},
		{"\xff\xfe", "a\xffb", "\x00"},
		{"a", "A", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, query, name, desc string) {
		items := []Item{{Name: "other.tool", Description: desc}, {Name: name, Description: desc}, {Name: query}}
		ms := Rank(query, items)
		if strings.TrimSpace(query) == "" {
			if ms != nil {
				t.Fatalf("blank query %q matched", query)
			}
			return
		}
		if strings.TrimSpace(query) == query && len(ms) == 0 {
			t.Fatalf("query %q does not find the item named like it", query)
		}
		for _, m := range ms {
			if m.Score <= 0 || m.Rule == NoMatch {
				t.Fatalf("match with score %d rule %v", m.Score, m.Rule)
			}
		}
		if strings.TrimSpace(query) == query && ms[0].Rule != Exact {
			t.Fatalf("query %q: first match %q is %v, not exact", query, ms[0].Item.Name, ms[0].Rule)
		}
		if len(strings.Fields(query)) == 1 {
			if _, r := NewQuery(query).ScoreLine(query); r == NoMatch {
				t.Fatalf("line %q does not match itself", query)
			}
		}
	})
}

// FuzzIndexEqualsScan: for any query and items (invalid UTF-8, camelCase,
// any script), an Index with postings ranks exactly as scoring every item
// on its own text does.
func FuzzIndexEqualsScan(f *testing.F) {
	for _, s := range [][3]string{
		{"webfetch", "webFetch", "Fetch a page."},
		{"refnud", "pay.refund", "Refunds an invoice."},
		{"invoic", "billing", "Sends the invoice."},
		{"\xff\xfe", "a\xffb", "\x00"},
		{"İ", "İstanbul", "ıi"},
		{"ab cd", "ab_cd", "ab cd"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, query, name, desc string) {
		items := []Item{{Name: name, Description: desc}, {Name: desc, Description: name}, {Name: query}, {Name: "other.tool", Description: "x " + desc}}
		got := newIndex(items, true).Rank(query)
		want := scanRank(items, query)
		if len(got) != len(want) {
			t.Fatalf("query %q: index %d matches, scan %d", query, len(got), len(want))
		}
		for i := range got {
			if got[i].Index != want[i].Index || got[i].Score != want[i].Score || got[i].Rule != want[i].Rule {
				t.Fatalf("query %q: match %d differs: index %+v, scan %+v", query, i, got[i], want[i])
			}
		}
	})
}
