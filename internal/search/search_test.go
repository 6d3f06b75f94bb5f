package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/benchtool"
)

// catalogue is a small set of items like the ones ot.help searches.
func catalogue() []Item {
	return []Item{
		{Name: "brave.search", Description: "Search the web with Brave.", Kind: "tool"},
		{Name: "brave.web_search", Description: "Web search returning snippets.", Kind: "tool"},
		{Name: "brave", Description: "Brave Search API tools.", Kind: "pack"},
		{Name: "web.fetch", Description: "Fetch a page and convert it to Markdown.", Kind: "tool"},
		{Name: "web", Description: "Fetch and read web pages.", Kind: "pack"},
		{Name: "firecrawl.scrape", Description: "Scrape a page with Firecrawl.", Kind: "tool"},
		{Name: "firecrawl", Description: "Firecrawl crawling and scraping.", Kind: "pack"},
		{Name: "code.scaffold", Description: "Create a project from a template.", Kind: "tool"},
		{Name: "ws", Description: "alias of brave.web_search", Kind: "alias"},
		{Name: "pkg_versions", Description: "Latest versions of packages.", Kind: "snippet"},
	}
}

func names(ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Item.Name
	}
	return out
}

// Seed 001, Unified Help, "Fuzzy matching with typos": scaffoldl and
// frirecrawl find scaffold and firecrawl, sorted by match score.
func TestRank_FuzzyMatchingWithTypos(t *testing.T) {
	ms := Rank("scaffoldl", catalogue())
	require.NotEmpty(t, ms)
	assert.Equal(t, "code.scaffold", ms[0].Item.Name)
	assert.Equal(t, Fuzzy, ms[0].Rule)

	ms = Rank("frirecrawl", catalogue())
	require.Len(t, ms, 2, names(ms))
	// The pack's whole name is one edit away; the tool has it as a word:
	// both match, the pack first (name and word score alike, then by name).
	assert.Equal(t, []string{"firecrawl", "firecrawl.scrape"}, names(ms))
	for i := 1; i < len(ms); i++ {
		assert.GreaterOrEqual(t, ms[i-1].Score, ms[i].Score, "sorted by score")
	}
}

// Seed 001, Unified Help, "Fuzzy search": web fetch finds the items having
// both words, the one with both in its name first.
func TestRank_MultiWordQuery(t *testing.T) {
	ms := Rank("web fetch", catalogue())
	assert.Equal(t, []string{"web.fetch", "web"}, names(ms))
	assert.Greater(t, ms[0].Score, ms[1].Score)
	for _, m := range ms {
		assert.NotEqual(t, "brave.web_search", m.Item.Name, "has web but not fetch")
	}
}

// Seed 001, Unified Help, "No matches".
func TestRank_NoMatches(t *testing.T) {
	assert.Empty(t, Rank("xyznonexistent", catalogue()))
}

// An empty or blank query matches nothing (callers list everything
// themselves).
func TestRank_EmptyQuery(t *testing.T) {
	assert.Nil(t, Rank("", catalogue()))
	assert.Nil(t, Rank("  \t", catalogue()))
}

// The rules rank exact > prefix > whole word in name > whole word in
// description > substring > fuzzy.
func TestRank_RuleOrder(t *testing.T) {
	items := []Item{
		{Name: "zz.fuzzy", Description: "matches by a typo of serch only"}, // fuzzy (desc word "serch")
		{Name: "zz.sub", Description: "researching things"},                // substring in description
		{Name: "zz.desc", Description: "a search tool"},                    // whole word in description
		{Name: "zz.search", Description: "x"},                              // whole word in name
		{Name: "search_all", Description: "x"},                             // prefix
		{Name: "search", Description: "x"},                                 // exact
	}
	ms := Rank("search", items)
	assert.Equal(t, []string{"search", "search_all", "zz.search", "zz.desc", "zz.sub", "zz.fuzzy"}, names(ms))
	assert.Equal(t, []Rule{Exact, Prefix, NameWord, DescriptionWord, Substring, Fuzzy},
		[]Rule{ms[0].Rule, ms[1].Rule, ms[2].Rule, ms[3].Rule, ms[4].Rule, ms[5].Rule})
}

// A substring of the name scores more than one of the description.
func TestRank_NameSubstringBeforeDescriptionSubstring(t *testing.T) {
	ms := Rank("earc", []Item{{Name: "a", Description: "research"}, {Name: "b.search"}})
	assert.Equal(t, []string{"b.search", "a"}, names(ms))
	assert.Equal(t, []int{NameSubstringScore, DescSubstringScore}, []int{ms[0].Score, ms[1].Score})
}

// Matching ignores case; camelCase and separators split words.
func TestRank_CaseAndWords(t *testing.T) {
	items := []Item{{Name: "Web.FetchPage"}, {Name: "webFetch"}, {Name: "other", Description: "Uses WebFetch"}}
	ms := Rank("fetch", items)
	assert.Equal(t, []string{"webFetch", "Web.FetchPage", "other"}, names(ms), "equal scores: the shorter name first")
	assert.Equal(t, NameWord, ms[0].Rule)
	assert.Equal(t, NameWord, ms[1].Rule)
	assert.Equal(t, DescriptionWord, ms[2].Rule)
	// A run of whole words counts as a whole word.
	ms = Rank("web_search", catalogue())
	require.NotEmpty(t, ms)
	assert.Equal(t, "brave.web_search", ms[0].Item.Name)
	assert.Equal(t, NameWord, ms[0].Rule)
	assert.Equal(t, Exact, Rank("BRAVE", catalogue())[0].Rule)
}

// Equal scores: the more recent item first, then the shorter name (the
// query is more of it: "stats" finds ot.stats before
// examples.text-stats.1), then by name, then by input position.
func TestRank_TieBreakShorterNameFirst(t *testing.T) {
	ms := Rank("stats", []Item{{Name: "examples.text-stats.1"}, {Name: "ot.stats"}, {Name: "aa.stats"}})
	assert.Equal(t, []string{"aa.stats", "ot.stats", "examples.text-stats.1"}, names(ms))
	assert.Equal(t, ms[0].Score, ms[2].Score, "a tie, broken by length")
}

// Equal scores: the more recent item first, then by name, then by input
// position.
func TestRank_TieBreakRecencyThenName(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	items := []Item{
		{Name: "b.tool", Description: "x"},
		{Name: "a.tool", Description: "x"},
		{Name: "c.tool", Description: "x", Time: t0},
		{Name: "d.tool", Description: "x", Time: t0.Add(time.Hour)},
		{Name: "a.tool", Description: "y"},
	}
	ms := Rank("tool", items)
	assert.Equal(t, []string{"d.tool", "c.tool", "a.tool", "a.tool", "b.tool"}, names(ms))
	assert.Equal(t, []int{3, 2, 1, 4, 0}, []int{ms[0].Index, ms[1].Index, ms[2].Index, ms[3].Index, ms[4].Index})
}

// Short terms are never matched fuzzily; long ones allow two edits.
func TestRank_FuzzyThreshold(t *testing.T) {
	items := []Item{{Name: "fetch"}, {Name: "abc"}, {Name: "scaffolding"}}
	assert.Empty(t, Rank("abd", items), "3 letters: no fuzzy")
	assert.Equal(t, []string{"fetch"}, names(Rank("fecth", items)), "transposition is one edit")
	assert.Empty(t, Rank("fxcxh", items), "two edits on 5 letters")
	assert.Equal(t, []string{"scaffolding"}, names(Rank("scafolxing", items)), "two edits on 10 letters")
	// A typo in the start of a long word (prefix distance).
	ms := Rank("scafold", items)
	require.Len(t, ms, 1)
	assert.Equal(t, NamePrefixFuzzyScore, ms[0].Score)
}

func TestRank_IndexReuseAndLen(t *testing.T) {
	ix := NewIndex(catalogue())
	assert.Equal(t, 10, ix.Len())
	assert.Equal(t, names(Rank("brave", catalogue())), names(ix.Rank("brave")))
	assert.Equal(t, "brave", ix.Rank("brave")[0].Item.Name)
	s, r := NewQuery("brave").Score(Item{Name: "brave"})
	assert.Equal(t, ExactScore, s)
	assert.Equal(t, Exact, r)
	assert.Equal(t, "prefix", Prefix.String())
	assert.Equal(t, "no_match", NoMatch.String())
}

// Seed 001, Query Stored Results, "Query with fuzzy matching": a search for
// config finds configuration, and lines come back sorted by score.
func TestLines_FuzzySortedByScore(t *testing.T) {
	lines := []string{
		"starting up",
		"loaded configuration from disk",
		"config ok",
		"nothing here",
		"bad confgiuration value",
	}
	ms := Lines("config", lines)
	require.Len(t, ms, 3)
	assert.Equal(t, 3, ms[0].Line, "whole word first")
	assert.Equal(t, "config ok", ms[0].Text)
	assert.Equal(t, 2, ms[1].Line, "then inside a word")
	assert.Equal(t, 5, ms[2].Line, "then the start of a word with a typo")
	assert.Equal(t, []int{DescriptionWordScore, DescSubstringScore, DescPrefixFuzzyScore}, []int{ms[0].Score, ms[1].Score, ms[2].Score})
	ms = Lines("configuration", lines)
	require.Len(t, ms, 2)
	assert.Equal(t, []int{2, 5}, []int{ms[0].Line, ms[1].Line}, "exact word, then a typo")
	assert.Greater(t, ms[0].Score, ms[1].Score)
	assert.Nil(t, Lines(" ", lines))
	s, r := NewQuery("disk config").ScoreLine("loaded configuration from disk")
	assert.Equal(t, DescriptionWordScore+DescSubstringScore, s)
	assert.Equal(t, Substring, r)
}

// osaRef is the textbook optimal string alignment distance (full table).
func osaRef(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// The banded, bounded distance agrees with the full table, capped at k+1,
// for the whole word and for its closest prefix.
func TestOSA_AgreesWithFullTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := []rune(rapid.StringOfN(rapid.RuneFrom([]rune("abcé")), 0, 9, -1).Draw(t, "a"))
		b := []rune(rapid.StringOfN(rapid.RuneFrom([]rune("abcé")), 0, 9, -1).Draw(t, "b"))
		k := rapid.IntRange(0, 3).Draw(t, "k")
		var rows [3][]int
		full, prefix := osa(a, b, k, &rows)
		assert.Equal(t, min(osaRef(a, b), k+1), full, "full")
		want := k + 1
		for j := 0; j <= len(b); j++ {
			want = min(want, osaRef(a, b[:j]))
		}
		assert.Equal(t, want, prefix, "prefix")
	})
}

var nameGen = rapid.StringMatching(`[a-z][a-z0-9]{1,6}([._-][a-z][a-z0-9]{1,6}){0,2}`)

func itemsGen() *rapid.Generator[[]Item] {
	return rapid.Custom(func(t *rapid.T) []Item {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		out := make([]Item, n)
		for i := range out {
			out[i] = Item{
				Name:        nameGen.Draw(t, "name"),
				Description: rapid.StringMatching(`([a-z]{1,8} ){0,5}`).Draw(t, "desc"),
			}
			if rapid.Bool().Draw(t, "timed") {
				out[i].Time = time.Unix(rapid.Int64Range(0, 5).Draw(t, "time"), 0)
			}
		}
		return out
	})
}

// Property: an item whose name is the query always ranks first.
func TestRankProperty_ExactNameFirst(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := itemsGen().Draw(t, "items")
		target := Item{Name: nameGen.Draw(t, "target"), Time: time.Unix(rapid.Int64Range(0, 5).Draw(t, "ttime"), 0)}
		at := rapid.IntRange(0, len(items)).Draw(t, "at")
		items = slices.Insert(items, at, target)
		query := target.Name
		if rapid.Bool().Draw(t, "upper") {
			query = strings.ToUpper(query)
		}
		ms := Rank(query, items)
		require.NotEmpty(t, ms)
		assert.True(t, strings.EqualFold(ms[0].Item.Name, target.Name), "first is %q, query %q", ms[0].Item.Name, query)
		assert.Equal(t, Exact, ms[0].Rule)
	})
}

// Property: adding an item never changes the relative order of the
// others, and the others keep their scores.
func TestRankProperty_AddingAnItemKeepsOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := itemsGen().Draw(t, "items")
		query := rapid.SampledFrom([]string{"a", "ab", "abc.d", "web fetch", "search", "xy_z", "abcdefgh"}).Draw(t, "query")
		extra := Item{Name: nameGen.Draw(t, "extra"), Description: "whatever"}
		before := Rank(query, items)
		after := Rank(query, append(slices.Clone(items), extra))
		var kept []Match
		for _, m := range after {
			if m.Index != len(items) {
				kept = append(kept, m)
			}
		}
		assert.Equal(t, before, kept)
	})
}

// typo applies one edit (insert, delete, replace, swap) to s.
func typo(t *rapid.T, s string) string {
	r := []rune(s)
	letters := []rune("abcdefghijklmnopqrstuvwxyz0123456789")
	switch rapid.IntRange(0, 3).Draw(t, "edit") {
	case 0:
		i := rapid.IntRange(0, len(r)).Draw(t, "at")
		r = slices.Insert(r, i, rapid.SampledFrom(letters).Draw(t, "c"))
	case 1:
		i := rapid.IntRange(0, len(r)-1).Draw(t, "at")
		r = slices.Delete(r, i, i+1)
	case 2:
		i := rapid.IntRange(0, len(r)-1).Draw(t, "at")
		r[i] = rapid.SampledFrom(letters).Draw(t, "c")
	case 3:
		i := rapid.IntRange(0, len(r)-2).Draw(t, "at")
		r[i], r[i+1] = r[i+1], r[i]
	}
	return string(r)
}

// Property: any single-typo variant of a name of 5 or more characters
// finds that name.
func TestRankProperty_SingleTypoFindsName(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := itemsGen().Draw(t, "items")
		name := rapid.StringMatching(`[a-z][a-z0-9]{4,10}([._-][a-z][a-z0-9]{1,8}){0,2}`).Draw(t, "name")
		items = append(items, Item{Name: name})
		query := typo(t, name)
		found := false
		for _, m := range Rank(query, items) {
			if m.Index == len(items)-1 {
				found = true
			}
		}
		assert.True(t, found, "query %q does not find %q", query, name)
	})
}

// Ranking 10,000 tools per query, against a baseline in the same loop
// (benchtool.Interleave: "ratio" is ours over the baseline): a
// case-insensitive substring filter over the same names (what ot.tools'
// pattern does), which finds no typos and ranks nothing.
func BenchmarkRank10k(b *testing.B) {
	items := benchItems(10000)
	queries := []string{"search", "web fetch", "scaffoldl", "tool 42", "xyznonexistent"}
	for _, q := range queries {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			ix := NewIndex(items)
			lowered := make([]string, len(items))
			for i, it := range items {
				lowered[i] = strings.ToLower(it.Name)
			}
			var sink int
			mOurs, _ := benchtool.Interleave(b, func() { sink += len(ix.Rank(q)) }, func() {
				lq := strings.ToLower(q)
				for _, n := range lowered {
					if strings.Contains(n, lq) {
						sink++
					}
				}
			})
			b.ReportMetric(float64(mOurs.Nanoseconds()), "rank-ns")
			_ = sink
		})
	}
}

// BenchmarkRankCold includes building the index (Rank on a plain slice).
func BenchmarkRankCold10k(b *testing.B) {
	items := benchItems(10000)
	for b.Loop() {
		_ = Rank("scaffoldl", items)
	}
}

func benchItems(n int) []Item {
	words := []string{"search", "fetch", "web", "page", "convert", "markdown", "crawl", "scrape", "list", "files", "read", "write", "query", "database", "issue", "github", "repo", "commit", "branch", "merge"}
	out := make([]Item, n)
	for i := range out {
		w1, w2, w3 := words[i%len(words)], words[(i/len(words))%len(words)], words[(i*7)%len(words)]
		out[i] = Item{
			Name:        fmt.Sprintf("pack%d.%s_%s", i%97, w1, w2),
			Description: fmt.Sprintf("Tool %d: %s the %s of a %s and return what it finds, with paging and limits.", i, w1, w2, w3),
			Kind:        "tool",
		}
	}
	return out
}

// An item named like the whole query ranks first however many terms the
// query has, even when another item matches every term (a fuzz finding:
// twelve "0" terms against an item named "0" summed past ExactScore).
func TestRank_ExactNameFirstWhateverTheTerms(t *testing.T) {
	for _, n := range []int{2, 11, 12, 40} {
		query := strings.TrimSpace(strings.Repeat("web ", n))
		ms := Rank(query, []Item{{Name: "web", Description: "web"}, {Name: query}})
		require.Len(t, ms, 2, "terms: %d", n)
		assert.Equal(t, query, ms[0].Item.Name, "terms: %d", n)
		assert.Equal(t, Exact, ms[0].Rule)
		assert.Greater(t, ms[0].Score, ms[1].Score)
	}
}

// Property: RankTop(q, k) is the first k of Rank(q), and its total is the
// number of matches.
func TestRankTopProperty_FirstKOfRank(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := itemsGen().Draw(t, "items")
		ix := NewIndex(items)
		q := rapid.StringMatching(`[a-z.]{1,6}( [a-z]{1,5})?`).Draw(t, "query")
		k := rapid.IntRange(0, 15).Draw(t, "k")
		all := ix.Rank(q)
		top, total := ix.RankTop(q, k)
		assert.Equal(t, len(all), total)
		want := all[:min(k, len(all))]
		if len(want) == 0 {
			want = nil
		}
		if len(top) == 0 {
			top = nil
		}
		assert.Equal(t, want, top)
	})
}
