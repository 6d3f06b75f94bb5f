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
