package search

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// scanRank is Rank the plain way: every item scored on its own text by
// Query.Score, without the Index's postings, word ids or field flags.
func scanRank(items []Item, query string) []Match {
	q := NewQuery(query)
	if q.Empty() {
		return nil
	}
	var out []Match
	for i, it := range items {
		if score, rule := q.Score(it); rule != NoMatch {
			out = append(out, Match{Index: i, Item: it, Score: score, Rule: rule})
		}
	}
	slices.SortFunc(out, compareMatches)
	return out
}

var propWords = strings.Fields("web fetch search brave firecrawl scaffold config weather forecast invoice refund ÉtÉ café naïve get list x ab id url")

func genText(t *rapid.T, label string, sep string) string {
	n := rapid.IntRange(0, 6).Draw(t, label+"-n")
	parts := make([]string, n)
	for i := range parts {
		w := rapid.SampledFrom(propWords).Draw(t, label+"-w")
		switch rapid.IntRange(0, 5).Draw(t, label+"-case") {
		case 0:
			w = strings.ToUpper(w)
		case 1:
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		parts[i] = w
	}
	return strings.Join(parts, sep)
}

// genQuery draws a query: words of the items, their prefixes, typos,
// substrings across separators, short terms, several terms.
func genQuery(t *rapid.T) string {
	n := rapid.IntRange(1, 3).Draw(t, "terms")
	terms := make([]string, n)
	for i := range terms {
		w := []rune(rapid.SampledFrom(propWords).Draw(t, "qw"))
		switch rapid.IntRange(0, 5).Draw(t, "edit") {
		case 0: // prefix
			w = w[:rapid.IntRange(1, len(w)).Draw(t, "cut")]
		case 1: // replace a rune
			if len(w) > 0 {
				w[rapid.IntRange(0, len(w)-1).Draw(t, "at")] = rapid.RuneFrom([]rune("aeiouxz_é")).Draw(t, "r")
			}
		case 2: // swap two
			if len(w) > 1 {
				j := rapid.IntRange(0, len(w)-2).Draw(t, "sw")
				w[j], w[j+1] = w[j+1], w[j]
			}
		case 3: // drop one
			if len(w) > 1 {
				j := rapid.IntRange(0, len(w)-1).Draw(t, "dr")
				w = append(w[:j:j], w[j+1:]...)
			}
		case 4: // join with the next word across a separator
			w = append(w, []rune("_"+rapid.SampledFrom(propWords).Draw(t, "qw2"))...)
		}
		terms[i] = string(w)
	}
	return strings.Join(terms, " ")
}

// The Index never changes a result: Rank and RankTop with its postings,
// word ids, field flags, term flags and tie order equal a scan that scores every item on its own
// text, for any items and query.
func TestCandidatesPreserveResults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(t, "items")
		items := make([]Item, n)
		for i := range items {
			items[i] = Item{Name: genText(t, "name", rapid.SampledFrom([]string{"_", ".", "-", ""}).Draw(t, "sep")), Description: genText(t, "desc", " ")}
			if rapid.Bool().Draw(t, "timed") { // ties are broken by time, then name
				items[i].Time = time.Unix(int64(rapid.IntRange(0, 2).Draw(t, "time")), 0)
			}
		}
		ix := newIndex(items, true) // postings even for a few items
		query := genQuery(t)
		want := scanRank(items, query)
		got := ix.Rank(query)
		require.Equal(t, want, got, "query %q", query)
		k := rapid.IntRange(0, 5).Draw(t, "k")
		top, total := ix.RankTop(query, k)
		require.Equal(t, len(want), total)
		if m := min(k, len(want)); m == 0 {
			require.Empty(t, top)
		} else {
			require.Equal(t, want[:m], top)
		}
	})
}

// BenchmarkNewIndex10k is the cost of building an Index of 10,000 items
// with its postings (what progressive disclosure pays after a registry
// change), beside building it without them.
func BenchmarkNewIndex10k(b *testing.B) {
	items := benchItems(10000)
	b.Run("baseline=without-postings", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = newIndex(items, false)
		}
	})
	b.Run("with-postings", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = newIndex(items, true)
		}
	})
}

// intersect equals the plain set intersection for any ascending lists,
// whether it merges them or gallops through a much longer one.
func TestIntersect_EqualsSetIntersection(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		set := func(label string, n int) []int32 {
			m := map[int32]bool{}
			for _, v := range rapid.SliceOfN(rapid.Int32Range(0, 2000), 0, n).Draw(t, label) {
				m[v] = true
			}
			out := make([]int32, 0, len(m))
			for v := range m {
				out = append(out, v)
			}
			slices.Sort(out)
			return out
		}
		a, b := set("a", 8), set("b", 1500)
		if rapid.Bool().Draw(t, "swap") {
			a, b = b, a
		}
		var want []int32
		for _, v := range a {
			if _, ok := slices.BinarySearch(b, v); ok {
				want = append(want, v)
			}
		}
		var arena []int32
		got := intersect(&arena, a, b)
		if len(want) == 0 {
			require.Empty(t, got)
		} else {
			require.Equal(t, want, got)
		}
	})
}

// A query's score is the sum of its terms' scores, a term given twice
// counting twice (each distinct term is matched once, then counted as often
// as it is given), and its rule the weakest of theirs; with an Index as
// without.
func TestScoreProperty_EveryTermCountsEachTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		it := Item{Name: genText(t, "name", "_"), Description: genText(t, "desc", " ")}
		n := rapid.IntRange(1, 5).Draw(t, "terms")
		terms := make([]string, n)
		for i := range terms {
			terms[i] = rapid.SampledFrom(propWords).Draw(t, "term")
		}
		query := strings.Join(terms, " ")
		low := NewQuery(it.Name).Text()
		if slices.Contains(terms, low) || query == low {
			return // an exact name scores as a whole
		}
		want, weakest := 0, Exact
		for _, term := range terms {
			s, r := NewQuery(term).Score(it)
			if r == NoMatch {
				want, weakest = 0, NoMatch
				break
			}
			want += s
			weakest = min(weakest, r)
		}
		got, rule := NewQuery(query).Score(it)
		require.Equal(t, want, got, "query %q", query)
		require.Equal(t, weakest, rule, "query %q", query)
		ms := newIndex([]Item{it}, true).Rank(query)
		if weakest == NoMatch {
			require.Empty(t, ms)
		} else {
			require.Len(t, ms, 1)
			require.Equal(t, want, ms[0].Score)
		}
	})
}
