package search

import (
	"math/bits"
	"slices"
	"unicode/utf8"
)

// The Index's postings narrow a query to the items that can match before
// any is scored. A term matches an item only if it occurs in the item's
// name or description (every rule but Fuzzy needs that), or is within its
// edit threshold of a word of them (or of the start of one), or of the
// whole name. So the items a term can match are:
//
//   - those whose text holds every trigram of the term (a term of three
//     bytes or more; shorter ones narrow nothing);
//   - for a fuzzy term, those holding a vocabulary word within the
//     threshold (each distinct word measured once, then its items taken
//     from its posting list), and those whose name is within the
//     threshold in length (the whole-name rule).
//
// The candidates of a query are the intersection over its terms; they are
// scored exactly as a full scan scores them, in index order, so the
// results are the same as a scan's — a property the tests check — at the
// cost of the candidates only.

// postings are the Index's inverted lists; every list is ascending.
type postings struct {
	grams    map[uint32][]int32 // trigram of the lower-cased name or description → items
	words    [][]int32          // vocabulary id → items having the word (name or description)
	inName   [][]int32          // vocabulary id → items whose name has the word
	inDesc   [][]int32          // vocabulary id → items whose description has the word
	masks    []uint64           // vocabulary id → the word's runes, as bits rune%64
	byLength map[int][]int32    // rune count of a name of several words → items
}

// runeMask sets bit r%64 for every rune r of w.
func runeMask(w []rune) uint64 {
	var m uint64
	for _, r := range w {
		m |= 1 << (uint(r) % 64)
	}
	return m
}

func trigram(s string, i int) uint32 {
	return uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2])
}

func (ix *Index) buildPostings() {
	p := postings{grams: map[uint32][]int32{}, words: make([][]int32, len(ix.vocab)), inName: make([][]int32, len(ix.vocab)),
		inDesc: make([][]int32, len(ix.vocab)), masks: make([]uint64, len(ix.vocab)), byLength: map[int][]int32{}}
	for id, w := range ix.vocab {
		p.masks[id] = runeMask(w)
	}
	add := func(list []int32, item int32) []int32 {
		if n := len(list); n > 0 && list[n-1] == item {
			return list
		}
		return append(list, item)
	}
	for i := range ix.prep {
		item := int32(i)
		for fi, f := range []*field{&ix.prep[i].name, &ix.prep[i].desc} {
			for j := 0; j+3 <= len(f.s); j++ {
				g := trigram(f.s, j)
				p.grams[g] = add(p.grams[g], item)
			}
			in := p.inName
			if fi == 1 {
				in = p.inDesc
			}
			for _, id := range f.ids {
				p.words[id] = add(p.words[id], item)
				in[id] = add(in[id], item)
			}
		}
		if name := &ix.prep[i].name; len(name.words) > 1 {
			n := utf8.RuneCountInString(name.s)
			p.byLength[n] = append(p.byLength[n], item)
		}
	}
	ix.post = p
}

// candidates returns the items that can match q, ascending, and whether
// the list applies (false: every item must be scored).
func (ix *Index) candidates(q *Query, sc *scratch) ([]int32, bool) {
	if ix.post.grams == nil { // built without postings
		return nil, false
	}
	var out []int32
	narrowed := false
	for ti := range q.terms {
		c, ok := ix.termCandidates(q, ti, sc)
		if !ok {
			continue
		}
		if !narrowed {
			out, narrowed = c, true
		} else {
			out = intersect(&sc.arena, out, c)
		}
		if len(out) == 0 {
			return nil, true
		}
	}
	return out, narrowed
}

// termCandidates returns the items term ti can match; false when the term
// is too short to narrow anything.
func (ix *Index) termCandidates(q *Query, ti int, sc *scratch) ([]int32, bool) {
	t := &q.terms[ti]
	if len(t.s) < 3 {
		return nil, false
	}
	var lists [][]int32
	for j := 0; j+3 <= len(t.s); j++ {
		l, ok := ix.post.grams[trigram(t.s, j)]
		if !ok {
			lists = nil
			break
		}
		lists = append(lists, l)
	}
	var subs []int32
	if lists != nil {
		slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
		subs = lists[0]
		for _, l := range lists[1:] {
			subs = intersect(&sc.arena, subs, l)
			if len(subs) == 0 {
				break
			}
		}
	}
	// No item's text holds the term: scoring skips the literal rules.
	t.absent = len(subs) == 0
	if t.fuzzy == 0 {
		return subs, true
	}
	union := subs
	// For an absent term only the fuzzy rules can match, and each item's
	// score follows from the words within the threshold: it is computed
	// here from their postings (name words first, as fuzzyField does)
	// rather than item by item.
	var nameScore, descScore []int16
	if t.absent {
		buf := sc.scoreBuf(2 * len(ix.prep))
		nameScore, descScore = buf[:len(ix.prep)], buf[len(ix.prep):]
	}
	fuzzyScore := func(d, base int) int16 {
		if d > t.fuzzy {
			return 0
		}
		return int16(base - FuzzyEditCost*(d-1))
	}
	// A word within k edits of the term (or with a start within k) lacks
	// at most k of the term's distinct runes: each one it lacks costs an
	// edit. Bits shared by several runes only let more words through.
	tmask := runeMask(t.r)
	for id, w := range ix.vocab {
		if len(w)+t.fuzzy < len(t.r) { // too short even for a prefix match
			continue
		}
		if bits.OnesCount64(tmask&^ix.post.masks[id]) > t.fuzzy {
			continue
		}
		d, pd := q.vocabDistance(ti, int32(id))
		if d > t.fuzzy && pd > t.fuzzy {
			continue
		}
		union = union2(&sc.arena, union, ix.post.words[id])
		if t.absent {
			ns := max(fuzzyScore(d, NameFuzzyScore), fuzzyScore(pd, NamePrefixFuzzyScore))
			for _, it := range ix.post.inName[id] {
				nameScore[it] = max(nameScore[it], ns)
			}
			ds := max(fuzzyScore(d, DescFuzzyScore), fuzzyScore(pd, DescPrefixFuzzyScore))
			for _, it := range ix.post.inDesc[id] {
				descScore[it] = max(descScore[it], ds)
			}
		}
	}
	for n := len(t.r) - t.fuzzy; n <= len(t.r)+t.fuzzy; n++ {
		union = union2(&sc.arena, union, ix.post.byLength[n])
		if t.absent {
			// The whole-name rule: the distance to the name as a whole.
			for _, it := range ix.post.byLength[n] {
				d, _ := q.distance(t, ix.prep[it].name.s)
				nameScore[it] = max(nameScore[it], fuzzyScore(d, NameFuzzyScore))
			}
		}
	}
	if t.absent {
		for _, it := range union {
			if nameScore[it] == 0 {
				nameScore[it] = descScore[it]
			}
		}
		t.fuzzyScores = nameScore
	}
	return union, true
}

// scoreBuf returns a cleared buffer of n scores, kept in the scratch for
// the query's lifetime.
func (sc *scratch) scoreBuf(n int) []int16 {
	for len(sc.scores) < cap(sc.scores) {
		sc.scores = sc.scores[:len(sc.scores)+1]
		if b := sc.scores[len(sc.scores)-1]; cap(b) >= n {
			b = b[:n]
			clear(b)
			sc.scores[len(sc.scores)-1] = b
			return b
		}
	}
	b := make([]int16, n)
	sc.scores = append(sc.scores, b)
	return b
}

// intersect returns the items in both ascending lists, appended to the
// arena (earlier lists cut from it stay valid when it grows).
func intersect(arena *[]int32, a, b []int32) []int32 {
	start := len(*arena)
	out := *arena
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	*arena = out
	return out[start:len(out):len(out)]
}

// union2 returns the items of either ascending list, ascending and once
// each, appended to the arena; an empty list returns the other as it is.
func union2(arena *[]int32, a, b []int32) []int32 {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	}
	start := len(*arena)
	out := *arena
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	out = append(out, b[j:]...)
	*arena = out
	return out[start:len(out):len(out)]
}
