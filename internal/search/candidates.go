package search

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// The Index's postings narrow a query to the items that can match before
// any is scored. A term matches an item only if it occurs in the item's
// name or description (every rule but Fuzzy needs that), or is within its
// edit threshold of a word of them (or of the start of one), or of the
// whole name. So the items a term can match are:
//
//   - for a term of letters and digits, those having a word that holds
//     it — the words found through their trigrams (or bigram, or byte),
//     their items through the words' posting lists — and, among
//     the few items with a camelCase field, where a term may span two
//     words, those whose text holds every trigram of the term;
//   - for another term of three bytes or more, those whose text holds
//     every trigram of the term (shorter ones narrow nothing);
//   - for a fuzzy term, those holding a vocabulary word within the
//     threshold (each distinct word measured once, then its items taken
//     from its posting list), and those whose name is within the
//     threshold in length (the whole-name rule).
//
// The candidates of a query are the intersection over its terms; they are
// scored exactly as a full scan scores them, in index order, so the
// results are the same as a scan's — a property the tests check — at the
// cost of the candidates only. For a term of letters and digits, what the
// word postings told (which items have it as a word, hold it, start with
// it) is kept per item (term.holds), so scoring a candidate reads flags
// rather than searching its text.

// postings are the Index's inverted lists; every list is ascending.
type postings struct {
	grams map[uint32][]int32 // trigram of the lower-cased name or description → items
	// joinedGrams is grams for the items with a field whose words touch
	// (camelCase): a term of letters and digits may span two of their
	// words, so their words' postings do not say whether they hold it.
	joinedGrams map[uint32][]int32
	joined      []int32         // the items of joinedGrams
	words       [][]int32       // vocabulary id → items having the word (name or description)
	inName      [][]int32       // vocabulary id → items whose name has the word
	inDesc      [][]int32       // vocabulary id → items whose description has the word
	first       [][]int32       // vocabulary id → items whose name begins with the word
	masks       []uint64        // vocabulary id → the word's runes, as bits rune%64
	byLength    map[int][]int32 // rune count of a name of several words → items
	// wordGrams: trigram, bigram or byte (see bigram) → vocabulary ids of the
	// words holding it, so that the words holding a term are found without
	// reading every word.
	wordGrams map[uint32][]int32
	vocab     []string // vocabulary id → the word
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

// bigram and unigram are the keys of the two bytes, or the byte, of s at i
// in postings.wordGrams: their high bits keep them apart from every
// trigram and from each other.
func bigram(s string, i int) uint32 {
	return 1<<31 | uint32(s[i])<<8 | uint32(s[i+1])
}

func unigram(s string, i int) uint32 {
	return 1<<30 | uint32(s[i])
}

func (ix *Index) buildPostings() {
	p := postings{grams: map[uint32][]int32{}, words: make([][]int32, len(ix.vocab)), inName: make([][]int32, len(ix.vocab)),
		first: make([][]int32, len(ix.vocab)), inDesc: make([][]int32, len(ix.vocab)), masks: make([]uint64, len(ix.vocab)), byLength: map[int][]int32{},
		joinedGrams: map[uint32][]int32{}, wordGrams: map[uint32][]int32{}, vocab: make([]string, len(ix.vocab))}
	add := func(list []int32, item int32) []int32 {
		if n := len(list); n > 0 && list[n-1] == item {
			return list
		}
		return append(list, item)
	}
	for id, w := range ix.vocab {
		p.masks[id] = runeMask(w)
		s := string(w)
		p.vocab[id] = s
		for j := 0; j+3 <= len(s); j++ {
			g := trigram(s, j)
			p.wordGrams[g] = add(p.wordGrams[g], int32(id))
		}
		for j := 0; j+2 <= len(s); j++ {
			g := bigram(s, j)
			p.wordGrams[g] = add(p.wordGrams[g], int32(id))
		}
		for j := 0; j < len(s); j++ {
			g := unigram(s, j)
			p.wordGrams[g] = add(p.wordGrams[g], int32(id))
		}
	}
	for i := range ix.prep {
		item := int32(i)
		joined := !ix.prep[i].name.unjoined || !ix.prep[i].desc.unjoined
		if joined {
			p.joined = append(p.joined, item)
		}
		for fi, f := range []*field{&ix.prep[i].name, &ix.prep[i].desc} {
			for j := 0; j+3 <= len(f.s); j++ {
				g := trigram(f.s, j)
				p.grams[g] = add(p.grams[g], item)
				if joined {
					p.joinedGrams[g] = add(p.joinedGrams[g], item)
				}
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
		if name := &ix.prep[i].name; len(name.words) > 0 && name.words[0].start == 0 {
			p.first[name.ids[0]] = append(p.first[name.ids[0]], item)
		}
		if name := &ix.prep[i].name; len(name.words) > 1 {
			n := utf8.RuneCountInString(name.s)
			p.byLength[n] = append(p.byLength[n], item)
		}
	}
	ix.post = p
}

// fewCandidates is the number of candidates below which candidates stops
// narrowing them by further terms.
const fewCandidates = 32

// candidates returns the items that can match q, ascending, and whether
// the list applies (false: every item must be scored).
func (ix *Index) candidates(q *Query, sc *scratch) ([]int32, bool) {
	if ix.post.grams == nil { // built without postings
		return nil, false
	}
	var out []int32
	narrowed := false
	for _, ti := range q.distinct {
		if narrowed && len(out) <= fewCandidates {
			// Scoring these few on their text costs less than narrowing
			// by the remaining terms; those terms are scored without
			// what narrowing would have told (term.holds, absent).
			break
		}
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
// is too short to narrow anything (under three bytes, not all letters or
// digits).
func (ix *Index) termCandidates(q *Query, ti int, sc *scratch) ([]int32, bool) {
	t := &q.terms[ti]
	if len(t.s) < 3 && !t.alnum {
		return nil, false
	}
	var subs []int32
	if t.alnum {
		// Letters and digits only: the items holding the term are those
		// having a word that holds it, found through the words' postings,
		// and, among the items whose words touch (camelCase), those holding
		// its trigrams (all of them for a shorter term).
		words := ix.wordsHolding(t, sc)
		holds := sc.holdBuf(len(ix.prep))
		subs = ix.holding(t, words, holds, sc)
		joined := ix.post.joined
		if len(t.s) >= 3 {
			joined = gramItems(ix.post.joinedGrams, t.s, sc)
		}
		subs = union2(&sc.arena, subs, joined)
		if len(subs) > 0 {
			t.holds = holds
		}
	} else {
		subs = gramItems(ix.post.grams, t.s, sc)
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

// Bits of term.holds.
const (
	nameHolds = 1 << iota
	descHolds
	nameWord   // the name has the term as one of its words (term.id)
	descWord   // the description has it as one of its words
	namePrefix // the name's first word begins with the term, at the name's start
)

// holding sets in holds, per item, whether its name and its description
// have the term t, a run of letters and digits, as one of their words
// (nameWord, descWord: from the word's postings), whether they hold it
// (nameHolds, descHolds) as one of the words does, and whether the name
// starts with it (namePrefix: its first word does, at the name's start);
// words are the words holding t (see wordsHolding), whose postings give
// their items. It returns the items holding t in one of their words,
// ascending. In a field whose words never touch (field.unjoined) that is
// exactly whether the field's text holds t, or starts with it, since t
// cannot span a separator; scoring reads it for such fields instead of
// searching their text, which saves reading the text of every candidate.
func (ix *Index) holding(t *term, words []int32, holds []uint8, sc *scratch) []int32 {
	if t.id >= 0 {
		for _, it := range ix.post.inName[t.id] {
			holds[it] |= nameWord
		}
		for _, it := range ix.post.inDesc[t.id] {
			holds[it] |= descWord
		}
	}
	for _, id := range words {
		for _, it := range ix.post.inName[id] {
			holds[it] |= nameHolds
		}
		for _, it := range ix.post.inDesc[id] {
			holds[it] |= descHolds
		}
		if strings.HasPrefix(ix.post.vocab[id], t.s) {
			for _, it := range ix.post.first[id] {
				holds[it] |= namePrefix
			}
		}
	}
	switch {
	case len(words) == 0:
		return nil
	case len(words) == 1:
		return ix.post.words[words[0]]
	case len(words) <= 8:
		var items []int32
		for _, id := range words {
			items = union2(&sc.arena, items, ix.post.words[id])
		}
		return items
	}
	// Many words (a short term inside many): one pass over the flags
	// costs less than merging their lists.
	start := len(sc.arena)
	for it, h := range holds {
		if h&(nameHolds|descHolds) != 0 {
			sc.arena = append(sc.arena, int32(it))
		}
	}
	return sc.arena[start:len(sc.arena):len(sc.arena)]
}

// wordsHolding returns the vocabulary ids of the words holding t, found
// through their trigrams or, for a shorter term, its bigram or byte.
func (ix *Index) wordsHolding(t *term, sc *scratch) []int32 {
	var cands []int32
	if len(t.s) == 1 {
		cands = ix.post.wordGrams[unigram(t.s, 0)]
	} else if len(t.s) == 2 {
		cands = ix.post.wordGrams[bigram(t.s, 0)]
	} else {
		cands = gramItems(ix.post.wordGrams, t.s, sc)
	}
	start := len(sc.arena)
	for _, id := range cands {
		if strings.Contains(ix.post.vocab[id], t.s) {
			sc.arena = append(sc.arena, id)
		}
	}
	return sc.arena[start:len(sc.arena):len(sc.arena)]
}

// gramItems intersects the lists of grams of every trigram of s (three
// bytes or more), shortest first: what holds s, and a few more that hold
// its trigrams elsewhere.
func gramItems(grams map[uint32][]int32, s string, sc *scratch) []int32 {
	var lists [][]int32
	for j := 0; j+3 <= len(s); j++ {
		l, ok := grams[trigram(s, j)]
		if !ok {
			return nil
		}
		lists = append(lists, l)
	}
	if len(lists) == 0 {
		return nil
	}
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	out := lists[0]
	for _, l := range lists[1:] {
		out = intersect(&sc.arena, out, l)
		if len(out) == 0 {
			break
		}
	}
	return out
}

// holdBuf returns a cleared buffer of n flags, kept in the scratch for the
// query's lifetime.
func (sc *scratch) holdBuf(n int) []uint8 { return nextBuf(&sc.holds, n) }

// scoreBuf returns a cleared buffer of n scores, kept in the scratch for
// the query's lifetime.
func (sc *scratch) scoreBuf(n int) []int16 { return nextBuf(&sc.scores, n) }

// nextBuf returns the next cleared buffer of n elements of bufs, reusing
// one a previous query left there when it is large enough.
func nextBuf[T uint8 | int16](bufs *[][]T, n int) []T {
	for len(*bufs) < cap(*bufs) {
		*bufs = (*bufs)[:len(*bufs)+1]
		if b := (*bufs)[len(*bufs)-1]; cap(b) >= n {
			b = b[:n]
			clear(b)
			(*bufs)[len(*bufs)-1] = b
			return b
		}
	}
	b := make([]T, n)
	*bufs = append(*bufs, b)
	return b
}

// intersect returns the items in both ascending lists, appended to the
// arena (earlier lists cut from it stay valid when it grows). When one list
// is much longer than the other (a rare trigram against one in every
// description), it gallops through the longer one: the cost follows the
// shorter list rather than the sum of both.
func intersect(arena *[]int32, a, b []int32) []int32 {
	if len(a) > len(b) {
		a, b = b, a
	}
	start := len(*arena)
	out := *arena
	if len(b) > 16*len(a) {
		for _, x := range a {
			// Gallop: double the step until past x, then binary search.
			step, hi := 1, 0
			for hi < len(b) && b[hi] < x {
				hi += step
				step *= 2
			}
			lo := max(0, hi-step/2)
			j, found := slices.BinarySearch(b[lo:min(hi+1, len(b))], x)
			if found {
				out = append(out, x)
			}
			b = b[lo+j:]
			if len(b) == 0 {
				break
			}
		}
	} else {
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
