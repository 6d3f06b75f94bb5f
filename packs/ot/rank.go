package ot

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// DefaultRank is the ranking ot.help uses when Config.Rank is nil. It is
// simple and dependency-free, so that the pack works on its own; a host
// passes a richer ranking (prefix > whole word > fuzzy > recency) through
// Config.Rank.
//
// The query and the items are compared case-insensitively, as words
// (split at anything that is not a letter or digit). From best to worst:
//
//	1000  the name is the query
//	 800  the name starts with the query
//	 700  a word of the name is the query
//	 600  the name contains the query
//	 550  the name without separators is the query without them ("webfetch")
//	 400+ every query word is in the name or the description (more in the name is better)
//	 200+ every query word is within a few edits (Levenshtein distance up to
//	      a quarter of its length, at least 1 from 4 letters) of a word of
//	      the name or the description, or the whole query of the whole name
//	      ("scaffoldl" finds scaffold, "frirecrawl" firecrawl); fewer edits
//	      and name matches rank higher
//
// Items matching nothing are left out; ties keep the items' order.
func DefaultRank(query string, items []SearchItem) []Hit {
	q := strings.ToLower(strings.TrimSpace(query))
	qWords := words(q)
	if len(qWords) == 0 {
		return nil
	}
	qJoined := strings.Join(qWords, "")
	var hits []Hit
	for i, it := range items {
		if s := rankOne(q, qWords, qJoined, it); s > 0 {
			hits = append(hits, Hit{Index: i, Score: s})
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return hits
}

func rankOne(q string, qWords []string, qJoined string, it SearchItem) float64 {
	name := strings.ToLower(it.Name)
	nWords := words(name)
	switch {
	case name == q:
		return 1000
	case strings.HasPrefix(name, q):
		return 800 - lenPenalty(name, q)
	case slices.Contains(nWords, q):
		return 700 - lenPenalty(name, q)
	case strings.Contains(name, q):
		return 600 - lenPenalty(name, q)
	case strings.Join(nWords, "") == qJoined:
		return 550
	}
	desc := strings.ToLower(it.Description)
	dWords := words(desc)
	inName, inAny := 0, 0
	for _, w := range qWords {
		switch {
		case strings.Contains(name, w):
			inName++
			inAny++
		case strings.Contains(desc, w):
			inAny++
		}
	}
	if inAny == len(qWords) {
		return 400 + 100*float64(inName)/float64(len(qWords))
	}
	// Fuzzy: the whole query against the whole name, then word by word.
	if d, ok := within(qJoined, strings.Join(nWords, "")); ok {
		return 300 - 20*float64(d)
	}
	total, nameHits := 0, 0
	for _, w := range qWords {
		best, fromName := -1, false
		for _, nw := range nWords {
			if d, ok := within(w, nw); ok && (best < 0 || d < best) {
				best, fromName = d, true
			}
		}
		if best != 0 {
			for _, dw := range dWords {
				if d, ok := within(w, dw); ok && (best < 0 || d < best) {
					best, fromName = d, false
				}
			}
		}
		if best < 0 {
			return 0
		}
		total += best
		if fromName {
			nameHits++
		}
	}
	return 200 + 50*float64(nameHits)/float64(len(qWords)) - 10*float64(total)
}

// lenPenalty prefers names close in length to the query (at most 99).
func lenPenalty(name, q string) float64 {
	return float64(min(len(name)-len(q), 99))
}

// words splits s at every rune that is not a letter or digit.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// maxEdits is the typo budget of a word: a quarter of its length, at
// least 1 from 4 letters, none below.
func maxEdits(n int) int {
	if n < 4 {
		return 0
	}
	return max(1, n/4)
}

// within reports the edit distance between a (the query word) and b when
// it is within a's budget.
func within(a, b string) (int, bool) {
	ra, rb := []rune(a), []rune(b)
	budget := maxEdits(len(ra))
	if budget == 0 || abs(len(ra)-len(rb)) > budget {
		return 0, false
	}
	d := levenshtein(ra, rb, budget)
	return d, d <= budget
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// levenshtein is the edit distance of a and b, or a value above budget
// as soon as every alignment exceeds it.
func levenshtein(a, b []rune, budget int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > budget {
			return budget + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
