// Package search ranks named things — tools, packs, snippets, aliases,
// catalogue entries — against what a person or a model typed, so that the
// thing they meant comes first even when they typed only part of its name,
// a word of its description, or a typo.
//
// # Ranking
//
// A query is split into terms at white space; an item matches when every
// term matches its name or its description (case-insensitive). Each term
// scores by the best rule it meets, strongest first:
//
//	Prefix           the name starts with the term           ("brave" → brave.search)
//	NameWord         the term is a whole word of the name     ("search" → brave.web_search)
//	DescriptionWord  the term is a whole word of the description
//	Substring        the term occurs in the name (scores more) or the description
//	Fuzzy            the term is within a small edit distance of the name, of one
//	                 of its words or of the start of one ("scaffoldl" → scaffold,
//	                 "frirecrawl" → firecrawl), then of a description word
//
// An item's score is the sum of its terms' scores, so a query whose words
// all sit in the name ranks that item above one that has them in its
// description. A query equal to an item's whole name (Exact) outranks
// every other match. Equal scores are ordered by Item.Time (recent first),
// then by the name's length (shorter first: "stats" is more of ot.stats
// than of examples.text-stats.1), then by name, then by position in the
// input: the order is total and stable, and an item's score never depends
// on the other items.
//
// Words are runs of letters and digits; a lower-case letter followed by an
// upper-case one also starts a word, so "webFetch" has the words web and
// fetch. Dots, underscores, dashes and spaces separate words.
//
// # Typos
//
// Fuzzy matching counts the edits between the term and a word: inserting,
// deleting or replacing one character, or swapping two adjacent ones, is
// one edit (the optimal string alignment distance, a restricted
// Damerau–Levenshtein distance). A term of fewer than 4 characters is
// never matched fuzzily (too many short words are one edit apart); 4 to 7
// characters allow 1 edit; 8 or more allow 2. Terms longer than
// MaxFuzzyRunes are matched literally only, which bounds the cost. The
// distance is computed here rather than with a library because Rank needs
// a bounded computation (it stops as soon as the threshold is exceeded),
// the distance to a word's prefix from the same table, and no allocation
// per comparison; the edit-distance packages for Go compute the full
// table, allocate per call, and either lack transpositions or prefixes.
//
// # Indexes
//
// An Index of 64 items or more also keeps inverted lists — the trigrams
// of every name and description, the items of every word, the words of
// every trigram — and scores only the items a query can match: those
// having a word that holds a term (or, across a camelCase run, holding its
// trigrams), or, for a term that may match fuzzily, a word within its
// threshold (each distinct word measured once). What the lists say about
// each candidate (has the term as a word, holds it, starts with it) is
// read when scoring instead of searching the candidate's text. The
// results are exactly a full scan's; on 10,000 tools a query costs a
// fraction of scoring them all, and building the index about 4 times
// more (BENCHMARKS.md).
//
// # Lines
//
// NewQuery(q).ScoreLine and Lines apply the same rules to lines of text
// (each line is searched like a description): ot.result's fuzzy search
// finds "configuration" for "config" and "confgiuration" too, sorted by
// score.
package search

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Rule names the kind of match that decided a term's score.
type Rule int

// The rules, weakest first.
const (
	// NoMatch: the item does not match.
	NoMatch Rule = iota
	// Fuzzy: a term is within the edit-distance threshold of the name, a
	// word of it or the start of one, or of a description word.
	Fuzzy
	// Substring: a term occurs in the name or the description.
	Substring
	// DescriptionWord: a term is a whole word (or run of whole words) of
	// the description.
	DescriptionWord
	// NameWord: a term is a whole word (or run of whole words) of the name.
	NameWord
	// Prefix: the name starts with a term.
	Prefix
	// Exact: the whole query is the item's name (case-insensitive).
	Exact
)

// String returns the rule's name in lower case ("prefix", "fuzzy", …).
func (r Rule) String() string {
	switch r {
	case Fuzzy:
		return "fuzzy"
	case Substring:
		return "substring"
	case DescriptionWord:
		return "description_word"
	case NameWord:
		return "name_word"
	case Prefix:
		return "prefix"
	case Exact:
		return "exact"
	}
	return "no_match"
}

// Scores of the rules for one term. An item's score is the sum over the
// query's terms; an item named like the whole query scores ExactScore
// (more for a query of over 11 terms: always above any sum of terms).
const (
	ExactScore           = 1000
	PrefixScore          = 90
	NameWordScore        = 80
	DescriptionWordScore = 70
	NameSubstringScore   = 65
	DescSubstringScore   = 60
	// Fuzzy scores lose FuzzyEditCost per edit beyond the first.
	NameFuzzyScore       = 40
	NamePrefixFuzzyScore = 35
	DescFuzzyScore       = 30
	DescPrefixFuzzyScore = 25
	FuzzyEditCost        = 10
)

// MaxFuzzyRunes is the longest term matched fuzzily; longer terms match
// literally only.
const MaxFuzzyRunes = 64

// Item is one thing to search.
type Item struct {
	// Name is what the item is called (a tool, pack, snippet or alias
	// name).
	Name string
	// Description is searched too, with lower scores.
	Description string
	// Kind groups results for display ("tool", "pack", "snippet",
	// "alias"); it does not affect the score.
	Kind string
	// Time, when set, breaks ties: a more recent item ranks first. The
	// zero time is the oldest.
	Time time.Time
}

// Match is one item that matched.
type Match struct {
	// Index is the item's position in the slice given to Rank or NewIndex.
	Index int
	// Item is the item.
	Item Item
	// Score is the sum of the terms' scores (ExactScore, or more, for an exact
	// name); higher is better.
	Score int
	// Rule is the weakest rule among the terms: Exact, or the rule that
	// the least well matched term met.
	Rule Rule
}

// Rank returns the items matching query, best first (see the package
// documentation). An empty or blank query matches nothing. Use an Index
// to rank the same items against many queries.
func Rank(query string, items []Item) []Match {
	return newIndex(items, false).Rank(query)
}

// Index holds items prepared for ranking: lower-cased text and word
// boundaries computed once. It is immutable and safe for concurrent use.
type Index struct {
	items  []Item
	prep   []prepared
	vocab  [][]rune // every distinct word of the items, by id
	wordID map[string]int32
	post   postings // inverted lists that narrow a query to its candidates
	// order, kept with the postings, is each item's rank among all by
	// compareMatches' tie-breaks (time, name, position), so that ordering
	// matches compares two integers rather than two names.
	order []int32
	pool  sync.Pool // *scratch, reused by queries
}

// scratch is a query's working memory on an Index: the distance memo and
// an arena for candidate lists, reused across queries so that a search
// allocates next to nothing.
type scratch struct {
	memo   []uint8
	arena  []int32
	scores [][]int16 // per absent term: name then description fuzzy scores
	holds  [][]uint8 // per term of letters and digits: term.holds
}

type prepared struct {
	name, desc field
	idx        int32 // the item's position in an Index
}

// field is a lower-cased text with its word spans (byte offsets). In an
// Index, ids holds each word's vocabulary id, so that a query measures the
// edit distance to each distinct word once, however many items share it.
type field struct {
	s     string
	words []span
	ids   []int32
	// unjoined is set by an Index when no two words of s touch (nothing
	// like the camelCase "webFetch"): a term of letters and digits only
	// that is not itself one of the words cannot be a whole word here.
	unjoined bool
}

// setUnjoined records whether the field's words all have separators
// between them.
func (f *field) setUnjoined() {
	for i := 1; i < len(f.words); i++ {
		if f.words[i].start == f.words[i-1].end {
			return
		}
	}
	f.unjoined = true
}

type span struct{ start, end int32 }

// NewIndex prepares items for ranking; the slice is kept, not copied, and
// must not be modified while the Index is in use.
func NewIndex(items []Item) *Index {
	return newIndex(items, len(items) >= minPostingItems)
}

// minPostingItems is the fewest items for which NewIndex builds postings:
// below it, scoring every item costs less than narrowing them.
const minPostingItems = 64

// newIndex is NewIndex, with or without postings (a one-shot Rank needs
// none: building them costs more than one scan).
func newIndex(items []Item, withPostings bool) *Index {
	ix := &Index{items: items, prep: make([]prepared, len(items))}
	ids := map[string]int32{}
	var words []span // one backing array for the words of all items
	var idBuf []int32
	add := func(text string) field {
		f := newField(text, words)
		words = f.words[len(f.words):]
		f.words = f.words[:len(f.words):len(f.words)]
		if cap(idBuf)-len(idBuf) < len(f.words) {
			idBuf = make([]int32, 0, max(1024, len(f.words)))
		}
		for _, w := range f.words {
			word := f.s[w.start:w.end]
			id, ok := ids[word]
			if !ok {
				id = int32(len(ix.vocab))
				ids[word] = id
				ix.vocab = append(ix.vocab, []rune(word))
			}
			idBuf = append(idBuf, id)
		}
		f.ids = idBuf[len(idBuf)-len(f.words) : len(idBuf) : len(idBuf)]
		return f
	}
	for i, it := range items {
		ix.prep[i] = prepared{name: add(it.Name), desc: add(it.Description), idx: int32(i)}
		ix.prep[i].name.setUnjoined()
		ix.prep[i].desc.setUnjoined()
	}
	ix.wordID = ids
	if withPostings {
		ix.buildPostings()
		ix.order = tieOrder(items)
	}
	return ix
}

// Len returns the number of items.
func (ix *Index) Len() int { return len(ix.items) }

// Rank returns the items matching query, best first.
func (ix *Index) Rank(query string) []Match {
	q := NewQuery(query)
	if q.Empty() {
		return nil
	}
	sc := ix.prepare(q)
	defer ix.release(q, sc)
	var out []Match
	for i := range ix.each(q, sc) {
		score, rule := q.score(&ix.prep[i])
		if rule == NoMatch {
			continue
		}
		out = append(out, Match{Index: i, Item: ix.items[i], Score: score, Rule: rule})
	}
	slices.SortFunc(out, ix.compare)
	return out
}

// compare is compareMatches, through the Index's order when it has one.
func (ix *Index) compare(a, b Match) int {
	if ix.order == nil {
		return compareMatches(a, b)
	}
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(ix.order[a.Index], ix.order[b.Index])
}

// RankTop returns the k best items matching query, best first — the
// first k of Rank — and how many matched in all. It keeps only k matches
// while it scans, so a query matching most of a large index costs no sort
// of every match. k < 1 returns no items, only the count.
func (ix *Index) RankTop(query string, k int) (top []Match, total int) {
	q := NewQuery(query)
	if q.Empty() {
		return nil, 0
	}
	sc := ix.prepare(q)
	defer ix.release(q, sc)
	k = max(k, 0)
	h := make([]Match, 0, min(k, len(ix.prep)))
	for i := range ix.each(q, sc) {
		score, rule := q.score(&ix.prep[i])
		if rule == NoMatch {
			continue
		}
		total++
		m := Match{Index: i, Score: score, Rule: rule}
		switch {
		case len(h) < k:
			m.Item = ix.items[i]
			h = append(h, m)
			ix.heapUp(h, len(h)-1)
		case k > 0 && score >= h[0].Score:
			m.Item = ix.items[i]
			if ix.compare(m, h[0]) < 0 {
				h[0] = m
				ix.heapDown(h, 0)
			}
		}
	}
	slices.SortFunc(h, ix.compare)
	return h, total
}

// prepare readies q for this Index: its vocabulary, the distance memo and
// the terms' word ids. The scratch goes back with release.
func (ix *Index) prepare(q *Query) *scratch {
	sc, _ := ix.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	n := len(q.terms) * len(ix.vocab)
	if cap(sc.memo) < n {
		sc.memo = make([]uint8, n)
	}
	sc.memo = sc.memo[:n]
	clear(sc.memo)
	sc.arena = sc.arena[:0]
	sc.scores = sc.scores[:0]
	sc.holds = sc.holds[:0]
	q.vocab, q.memo = ix.vocab, sc.memo
	for i := range q.terms {
		if id, ok := ix.wordID[q.terms[i].s]; ok {
			q.terms[i].id = id
		}
	}
	return sc
}

// release returns a query's scratch; q must not be used on it again.
func (ix *Index) release(q *Query, sc *scratch) {
	q.memo = nil
	if cap(sc.arena) > 1<<22 || cap(sc.memo) > 1<<22 { // an outsized query's: let it go
		return
	}
	ix.pool.Put(sc)
}

// each yields the positions of the items that can match q, ascending: its
// candidates, or every item when no term narrows them.
func (ix *Index) each(q *Query, sc *scratch) func(yield func(int) bool) {
	c, ok := ix.candidates(q, sc)
	return func(yield func(int) bool) {
		if !ok {
			for i := range ix.prep {
				if !yield(i) {
					return
				}
			}
			return
		}
		for _, i := range c {
			if !yield(int(i)) {
				return
			}
		}
	}
}

// The heap of RankTop keeps the worst kept match at its root.
func (ix *Index) heapUp(h []Match, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if ix.compare(h[i], h[p]) <= 0 {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (ix *Index) heapDown(h []Match, i int) {
	for {
		l, w := 2*i+1, i
		if l < len(h) && ix.compare(h[l], h[w]) > 0 {
			w = l
		}
		if r := l + 1; r < len(h) && ix.compare(h[r], h[w]) > 0 {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// tieOrder ranks the items by compareMatches' tie-breaks: time (recent
// first), name, then position.
func tieOrder(items []Item) []int32 {
	byTie := make([]int32, len(items))
	for i := range byTie {
		byTie[i] = int32(i)
	}
	slices.SortFunc(byTie, func(a, b int32) int {
		return compareMatches(Match{Index: int(a), Item: items[a]}, Match{Index: int(b), Item: items[b]})
	})
	order := make([]int32, len(items))
	for r, i := range byTie {
		order[i] = int32(r)
	}
	return order
}

// compareMatches orders by score (high first), time (recent first), name
// length (shorter first: the query is more of it), name, then input
// position: a total order.
func compareMatches(a, b Match) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := b.Item.Time.Compare(a.Item.Time); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.Item.Name), len(b.Item.Name)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Item.Name, b.Item.Name); c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}

// Query is a parsed query. Build one with NewQuery and use it for many
// items or lines; it keeps scratch space, so it is not safe for concurrent
// use (Index.Rank builds its own).
type Query struct {
	whole string // the lower-cased, trimmed query
	terms []term
	// distinct are the positions in terms of the first occurrence of each
	// term; scoring matches those and counts each term.times times.
	distinct []int
	rows     [3][]int // edit-distance scratch rows
	runes    []rune   // scratch for a word's runes
	// With an Index: its vocabulary and, per term and word id, the
	// distances once measured (0: not yet; else memoKnown|full<<3|prefix).
	vocab [][]rune
	memo  []uint8
}

const memoKnown = 0x80

type term struct {
	s     string // lower-cased
	times int    // how many times the query has it (on its first occurrence)
	r     []rune
	fuzzy int // edits allowed (0: none)
	// alnum: the term is letters and digits only.
	alnum bool
	// absent is set by an Index when no item's text holds the term, so
	// only fuzzy rules can match it.
	absent bool
	// fuzzyScores, set by an Index for an absent term, is each item's
	// fuzzy score for the term (0: no match), computed from the postings
	// of the words within the threshold instead of item by item.
	fuzzyScores []int16
	// holds, set by an Index for a term of letters and digits that some
	// item's text holds, says per item whether its name and its description
	// have the term as a word (nameWord, descWord), whether they hold it
	// (nameHolds, descHolds) and whether the name starts with it
	// (namePrefix); the last two answer for fields whose words never touch.
	// See Index.holding.
	holds []uint8
	// id is the term's vocabulary id when it is itself a word of an
	// Index's items, else -1: a field holding that word has the term as a
	// whole word, without searching its text.
	id int32
}

// NewQuery parses a query: lower-cased and split into terms at white space.
func NewQuery(query string) *Query {
	q := &Query{whole: lower(strings.TrimSpace(query))}
	for _, t := range strings.Fields(q.whole) {
		r := []rune(t)
		alnum := true
		for _, c := range r {
			if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
				alnum = false
				break
			}
		}
		q.terms = append(q.terms, term{s: t, r: r, fuzzy: threshold(len(r)), id: -1, alnum: alnum, times: 1})
	}
	// A term given again scores again, but is matched once ("e e e …"
	// costs what "e" does).
	for i := range q.terms {
		first := slices.IndexFunc(q.terms[:i], func(o term) bool { return o.s == q.terms[i].s })
		if first < 0 {
			q.distinct = append(q.distinct, i)
		} else {
			q.terms[first].times++
		}
	}
	return q
}

// Empty reports whether the query has no terms.
func (q *Query) Empty() bool { return len(q.terms) == 0 }

// threshold is the number of edits a term of n runes tolerates.
func threshold(n int) int {
	switch {
	case n < 4 || n > MaxFuzzyRunes:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// Score scores one item against the query, as Rank does.
func (q *Query) Score(it Item) (int, Rule) {
	p := prepared{name: newField(it.Name, nil), desc: newField(it.Description, nil)}
	return q.score(&p)
}

func (q *Query) score(p *prepared) (int, Rule) {
	if len(q.terms) == 0 {
		return 0, NoMatch
	}
	if q.whole == p.name.s {
		return q.exactScore(), Exact
	}
	total, weakest := 0, Exact
	for _, i := range q.distinct {
		s, r := q.termScore(i, p)
		if r == NoMatch {
			return 0, NoMatch
		}
		total += s * q.terms[i].times
		weakest = min(weakest, r)
	}
	return total, weakest
}

// exactScore is the score of an item named like the whole query:
// ExactScore, or more for a query of so many terms that another item
// matching each of them by prefix could reach ExactScore ("0 0 0 … 0"
// against an item named "0"), so that the exact name always ranks first.
func (q *Query) exactScore() int {
	return max(ExactScore, PrefixScore*len(q.terms)+1)
}

// termScore is the best score of one term against an item.
func (q *Query) termScore(ti int, p *prepared) (int, Rule) {
	t := &q.terms[ti]
	name, desc := &p.name, &p.desc
	if !t.absent {
		if t.prefixOf(name, p.idx) {
			return PrefixScore, Prefix
		}
		if t.hasWord(name, p.idx, nameWord) {
			return NameWordScore, NameWord
		}
		inName := t.find(name, p.idx, nameHolds)
		if inName >= 0 && t.mayBeWords(name) && name.wholeWords(t.s, inName) {
			return NameWordScore, NameWord
		}
		if t.hasWord(desc, p.idx, descWord) {
			return DescriptionWordScore, DescriptionWord
		}
		inDesc := t.find(desc, p.idx, descHolds)
		if inDesc >= 0 && t.mayBeWords(desc) && desc.wholeWords(t.s, inDesc) {
			return DescriptionWordScore, DescriptionWord
		}
		if inName >= 0 {
			return NameSubstringScore, Substring
		}
		if inDesc >= 0 {
			return DescSubstringScore, Substring
		}
	}
	if t.fuzzy == 0 {
		return 0, NoMatch
	}
	if t.fuzzyScores != nil {
		if s := int(t.fuzzyScores[p.idx]); s > 0 {
			return s, Fuzzy
		}
		return 0, NoMatch
	}
	if s := q.fuzzyField(ti, name, NameFuzzyScore, NamePrefixFuzzyScore, true); s > 0 {
		return s, Fuzzy
	}
	if s := q.fuzzyField(ti, desc, DescFuzzyScore, DescPrefixFuzzyScore, false); s > 0 {
		return s, Fuzzy
	}
	return 0, NoMatch
}

// prefixOf reports whether the name f of item idx starts with the term:
// from an Index's term.holds for a name whose words never touch, else
// from its text.
func (t *term) prefixOf(f *field, idx int32) bool {
	if t.holds != nil && f.unjoined {
		return t.holds[idx]&namePrefix != 0
	}
	return strings.HasPrefix(f.s, t.s)
}

// hasWord reports whether the term is one of the words of f, a field of
// item idx: from an Index's term.holds when it has them, else from f's
// word ids.
func (t *term) hasWord(f *field, idx int32, bit uint8) bool {
	if t.id < 0 {
		return false
	}
	if t.holds != nil {
		return t.holds[idx]&bit != 0
	}
	return slices.Contains(f.ids, t.id)
}

// find returns where t occurs in f, a field of item idx, or -1. For a
// field whose words never touch, an Index's term.holds says whether it
// does without reading the text; the position is then reported as 0: it
// is only needed to check for whole words, which in such a field the word
// ids answer (mayBeWords is false for the terms holds is kept for).
func (t *term) find(f *field, idx int32, bit uint8) int {
	if t.holds != nil && f.unjoined {
		if t.holds[idx]&bit != 0 {
			return 0
		}
		return -1
	}
	return strings.Index(f.s, t.s)
}

// mayBeWords reports whether t can be a whole word or run of whole words
// of f at all. A field whose words all have separators between them holds
// a letters-and-digits term as a whole word only if the term is one of
// its words — which the word-id check already answered.
func (t *term) mayBeWords(f *field) bool {
	return !(f.unjoined && t.alnum)
}

// fuzzyField returns the best fuzzy score of t against f's words (and,
// when whole, against all of f), or 0.
func (q *Query) fuzzyField(ti int, f *field, full, prefix int, whole bool) int {
	t := &q.terms[ti]
	best := 0
	consider := func(d, base int) {
		if d <= t.fuzzy {
			best = max(best, base-FuzzyEditCost*(d-1))
		}
	}
	if whole && len(f.words) > 1 {
		if n := utf8.RuneCountInString(f.s); n-len(t.r) <= t.fuzzy && len(t.r)-n <= t.fuzzy {
			d, _ := q.distance(t, f.s)
			consider(d, full)
		}
	}
	for wi, w := range f.words {
		if int(w.end-w.start)+t.fuzzy < len(t.r) { // too short even for a prefix match (bytes ≥ runes)
			continue
		}
		var d, pd int
		if f.ids != nil && int(f.ids[wi]) < len(q.vocab) {
			d, pd = q.vocabDistance(ti, f.ids[wi])
		} else {
			d, pd = q.distance(t, f.s[w.start:w.end])
		}
		consider(d, full)
		consider(pd, prefix)
		if best == full {
			break
		}
	}
	return best
}

// vocabDistance is distance for a word of the Index's vocabulary, measured
// once per query.
func (q *Query) vocabDistance(ti int, id int32) (full, prefix int) {
	m := &q.memo[ti*len(q.vocab)+int(id)]
	if *m&memoKnown == 0 {
		full, prefix := osa(q.terms[ti].r, q.vocab[id], q.terms[ti].fuzzy, &q.rows)
		*m = memoKnown | uint8(full)<<3 | uint8(prefix)
	}
	return int(*m>>3) & 7, int(*m & 7)
}

// distance returns the edit distance between t and s, and between t and
// the closest prefix of s; either is t.fuzzy+1 when it exceeds t.fuzzy.
func (q *Query) distance(t *term, s string) (full, prefix int) {
	q.runes = q.runes[:0]
	for _, r := range s {
		q.runes = append(q.runes, r)
	}
	return osa(t.r, q.runes, t.fuzzy, &q.rows)
}

// ScoreLine scores a line of text against the query: every term must
// occur in it, as a whole word (DescriptionWordScore), inside a word
// (DescSubstringScore) or within the fuzzy threshold of a word or the
// start of one. It returns 0 and NoMatch for a line that does not match.
func (q *Query) ScoreLine(line string) (int, Rule) {
	if len(q.terms) == 0 {
		return 0, NoMatch
	}
	f := newField(line, nil)
	total, weakest := 0, Exact
	for _, i := range q.distinct {
		t := &q.terms[i]
		s, r := 0, NoMatch
		if at := strings.Index(f.s, t.s); at >= 0 {
			s, r = DescSubstringScore, Substring
			if f.wholeWords(t.s, at) {
				s, r = DescriptionWordScore, DescriptionWord
			}
		} else if t.fuzzy > 0 {
			if fs := q.fuzzyField(i, &f, DescFuzzyScore, DescPrefixFuzzyScore, false); fs > 0 {
				s, r = fs, Fuzzy
			}
		}
		if r == NoMatch {
			return 0, NoMatch
		}
		total += s * t.times
		weakest = min(weakest, r)
	}
	return total, weakest
}

// LineMatch is one line that matched.
type LineMatch struct {
	// Line is the line's 1-based number.
	Line int
	// Text is the line.
	Text string
	// Score is its score; higher is better.
	Score int
}

// Lines returns the lines matching query (see Query.ScoreLine), best
// first; equal scores keep the lines' order. An empty query matches
// nothing.
func Lines(query string, lines []string) []LineMatch {
	q := NewQuery(query)
	if q.Empty() {
		return nil
	}
	var out []LineMatch
	for i, l := range lines {
		if s, r := q.ScoreLine(l); r != NoMatch {
			out = append(out, LineMatch{Line: i + 1, Text: l, Score: s})
		}
	}
	slices.SortStableFunc(out, func(a, b LineMatch) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// newField lower-cases s rune by rune (so byte offsets of the words refer
// to the lowered text) and records its words, appended to words.
func newField(s string, words []span) field {
	base := len(words)
	if ascii(s) {
		return newASCIIField(s, words, base)
	}
	var b strings.Builder
	b.Grow(len(s))
	start := -1
	prevLower := false
	for _, r := range s {
		pos := b.Len()
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !alnum:
			if start >= 0 {
				words = append(words, span{int32(start), int32(pos)})
				start = -1
			}
		case start < 0:
			start = pos
		case prevLower && unicode.IsUpper(r): // camelCase boundary
			words = append(words, span{int32(start), int32(pos)})
			start = pos
		}
		prevLower = alnum && unicode.IsLower(r)
		b.WriteRune(unicode.ToLower(r))
	}
	if start >= 0 {
		words = append(words, span{int32(start), int32(b.Len())})
	}
	return field{s: b.String(), words: words[base:]}
}

// newASCIIField is newField for ASCII text, byte by byte. Text without
// upper-case letters is kept as it is; other text is copied once, lowered
// from its first upper-case letter on.
func newASCIIField(s string, words []span, base int) field {
	if words == nil { // a Prepare: one allocation, not one per doubling
		words = make([]span, 0, asciiWords(s))
	}
	var low strings.Builder
	lowering := false
	start := -1
	prevLower := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		isLower, isUpper := 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z'
		alnum := isLower || isUpper || ('0' <= c && c <= '9')
		switch {
		case !alnum:
			if start >= 0 {
				words = append(words, span{int32(start), int32(i)})
				start = -1
			}
		case start < 0:
			start = i
		case prevLower && isUpper:
			words = append(words, span{int32(start), int32(i)})
			start = i
		}
		prevLower = isLower
		if isUpper {
			c += 'a' - 'A'
			if !lowering {
				lowering = true
				low.Grow(len(s))
				low.WriteString(s[:i])
			}
		}
		if lowering {
			low.WriteByte(c)
		}
	}
	if start >= 0 {
		words = append(words, span{int32(start), int32(len(s))})
	}
	ls := s
	if lowering {
		ls = low.String()
	}
	return field{s: ls, words: words[base:]}
}

// asciiWords counts the words newASCIIField finds in s.
func asciiWords(s string) int {
	n := 0
	in, prevLower := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		isLower, isUpper := 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z'
		alnum := isLower || isUpper || ('0' <= c && c <= '9')
		if alnum && (!in || prevLower && isUpper) {
			n++
		}
		in, prevLower = alnum, isLower
	}
	return n
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lower lower-cases s rune by rune, as newField does.
func lower(s string) string {
	return strings.Map(unicode.ToLower, s)
}

// wholeWords reports whether t occurs in f at a word start and ends at a
// word end, trying every occurrence from the first one, at.
func (f *field) wholeWords(t string, at int) bool {
	for at >= 0 {
		if f.startsWord(at) && f.endsWord(at+len(t)) {
			return true
		}
		next := strings.Index(f.s[at+1:], t)
		if next < 0 {
			return false
		}
		at += 1 + next
	}
	return false
}

func (f *field) startsWord(pos int) bool {
	_, ok := slices.BinarySearchFunc(f.words, pos, func(w span, p int) int { return cmp.Compare(int(w.start), p) })
	return ok
}

func (f *field) endsWord(pos int) bool {
	_, ok := slices.BinarySearchFunc(f.words, pos, func(w span, p int) int { return cmp.Compare(int(w.end), p) })
	return ok
}

// osa computes the optimal string alignment distance between a and b,
// bounded by k: full is the distance to all of b, prefix the smallest
// distance to a prefix of b; each is k+1 when larger than k. It fills only
// the band of cells within k of the diagonal and stops when a whole row
// exceeds k. rows is reused scratch space.
func osa(a, b []rune, k int, rows *[3][]int) (full, prefix int) {
	m, n := len(a), len(b)
	inf := k + 1
	if m-n > k { // even the whole of b is too short
		return inf, inf
	}
	for i := range rows {
		if cap(rows[i]) < n+1 {
			rows[i] = make([]int, n+1)
		}
		rows[i] = rows[i][:n+1]
	}
	prev2, prev, cur := rows[0], rows[1], rows[2]
	for j := 0; j <= n; j++ {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= m; i++ {
		lo, hi := max(1, i-k), min(n, i+k)
		for j := range cur {
			cur[j] = inf
		}
		if i <= k {
			cur[0] = i
		}
		rowMin := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			d = min(d, inf)
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin > k {
			return inf, inf
		}
		prev2, prev, cur = prev, cur, prev2
	}
	// prev is row m.
	full = inf
	if n-m <= k {
		full = prev[n]
	}
	prefix = inf
	for j := max(0, m-k); j <= min(n, m+k); j++ {
		prefix = min(prefix, prev[j])
	}
	return full, prefix
}

// Prepared is an Item prepared for repeated scoring: its text lower-cased
// and its words found once. Build one with Prepare; it is immutable and
// safe for concurrent use.
type Prepared struct {
	p prepared
}

// Prepare prepares an item for Query.ScorePrepared.
func Prepare(it Item) Prepared {
	return Prepared{p: prepared{name: newField(it.Name, nil), desc: newField(it.Description, nil)}}
}

// Name returns the item's name as the ranking sees it: lower-cased rune by
// rune (invalid UTF-8 becomes U+FFFD).
func (p *Prepared) Name() string { return p.p.name.s }

// Description returns the item's description as the ranking sees it.
func (p *Prepared) Description() string { return p.p.desc.s }

// Words calls f with every word of the name, then of the description, as
// fuzzy matching sees them (lower-cased; see the package doc for what a
// word is). A word occurring twice is passed twice.
func (p *Prepared) Words(f func(word string)) {
	for _, fd := range []*field{&p.p.name, &p.p.desc} {
		for _, w := range fd.words {
			f(fd.s[w.start:w.end])
		}
	}
}

// ScorePrepared scores a prepared item; it equals Score of the item the
// Prepared was made from.
func (q *Query) ScorePrepared(p *Prepared) (int, Rule) {
	return q.score(&p.p)
}

// Text returns the whole query as the ranking compares it with a name for
// an Exact match: lower-cased rune by rune and trimmed of white space.
func (q *Query) Text() string { return q.whole }

// Terms returns the query's terms, lower-cased, in order.
func (q *Query) Terms() []string {
	out := make([]string, len(q.terms))
	for i, t := range q.terms {
		out[i] = t.s
	}
	return out
}

// FuzzyEdits returns the edits term i of Terms tolerates in fuzzy
// matching (0: the term matches literally only).
func (q *Query) FuzzyEdits(i int) int { return q.terms[i].fuzzy }

// Vocab numbers the distinct words of many prepared items, so that a
// query measures its edit distance to each distinct word once however
// many items hold it (as an Index does). Unlike an Index it grows: items
// are prepared one at a time. It is not safe for concurrent use while it
// grows; the caller guards it.
type Vocab struct {
	ids   map[string]int32
	words [][]rune
}

// NewVocab returns an empty vocabulary.
func NewVocab() *Vocab { return &Vocab{ids: map[string]int32{}} }

// Len returns the number of distinct words.
func (v *Vocab) Len() int { return len(v.words) }

// Word returns the word numbered id (0 ≤ id < Len), lower-cased.
func (v *Vocab) Word(id int) string { return string(v.words[id]) }

// Prepare prepares an item as Prepare does, adding its new words to the
// vocabulary. Score it with a Query that called UseVocab with v.
func (v *Vocab) Prepare(it Item) Prepared {
	return v.Intern(Prepare(it))
}

// Intern numbers the words of an item made by Prepare, adding its new
// words to the vocabulary: v.Intern(Prepare(it)) is v.Prepare(it). It lets
// a caller prepare many items concurrently (Prepare is a pure function)
// and number them one at a time.
func (v *Vocab) Intern(p Prepared) Prepared {
	for _, f := range []*field{&p.p.name, &p.p.desc} {
		f.ids = make([]int32, len(f.words))
		for i, w := range f.words {
			word := f.s[w.start:w.end]
			id, ok := v.ids[word]
			if !ok {
				id = int32(len(v.words))
				v.ids[word] = id
				v.words = append(v.words, []rune(word))
			}
			f.ids[i] = id
		}
	}
	return p
}

// UseVocab makes the query remember its edit distances to the words of v
// (scoring items prepared with v.Prepare is then much cheaper when many
// share words). v must not grow while the query is in use; scores are the
// same with or without it.
func (q *Query) UseVocab(v *Vocab) {
	q.vocab = v.words
	q.memo = make([]uint8, len(q.terms)*len(v.words))
}
