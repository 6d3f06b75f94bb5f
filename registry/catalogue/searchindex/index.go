package searchindex

import (
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/toolpack-go/toolpack/internal/search"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// bundleState is what visibility needs of a bundle.
type bundleState struct {
	known   bool // the bundle was seen (a tool may arrive before it)
	enabled bool
	deleted bool // soft-deleted or reaped
}

// doc is one indexed tool version.
type doc struct {
	key     catalogue.ToolKey
	bundle  *bundleState
	time    int64
	enabled bool
	alive   bool
	sum     uint64 // hash of the searched text, to tell a flag change from a new body
	views   [2]search.Prepared
}

// slotMeta is what a search reads of every candidate, kept apart from the
// docs in a compact array (reading 100,000 docs' headers would miss the
// cache on each).
type slotMeta struct {
	time         int64
	bundle       *bundleState
	name0, name1 uint32 // hashes of the lower-cased names, to find an exact name
	enabled      bool
	alive        bool
}

// index is the in-memory index. It is not safe for concurrent use; Store
// guards it.
type index struct {
	seed    maphash.Seed
	docs    []doc      // by slot; removed tools leave dead slots until compact
	meta    []slotMeta // by slot
	slots   map[catalogue.ToolKey]int32
	bundles map[uuid.UUID]*bundleState
	// Substring candidates: the text's runs (maximal runs of letters and
	// digits, lower-cased), each with the slots holding it, and the byte
	// trigrams of the distinct runs.
	runs     map[string]int32 // run → id
	runText  []string         // run id → run
	runDocs  [][]int32        // run id → slots, ascending
	nameDocs [][]int32        // run id → slots holding it in the slug or display name
	// run id → slots whose slug or display name starts with the run (a
	// name that starts with a term starts with the term's first run).
	firstDocs [][]int32
	// run id → some tool splits the run into several words (camelCase):
	// a term inside the run may be a whole word there. A term strictly
	// inside a run that is never split can match it only as a substring.
	camel   []bool
	wordBuf []string           // scratch of add
	grams   map[uint32][]int32 // trigram → run ids, ascending
	// Fuzzy candidates: every distinct word (as the ranking splits words),
	// matched with its prefixes, and every whole name, matched whole (the
	// ranking measures a term against a whole name, not its prefixes).
	vocab *search.Vocab
	trie  *trieNode
	names *trieNode
	dead  int
	bulk  *bulkLoad // non-nil while the index is being built (startBulk)
}

// newIndex returns an empty index with room for n tools.
func newIndex(seed maphash.Seed, n int) *index {
	return &index{seed: seed, docs: make([]doc, 0, n), meta: make([]slotMeta, 0, n), slots: make(map[catalogue.ToolKey]int32, n), bundles: map[uuid.UUID]*bundleState{},
		runs: map[string]int32{}, grams: map[uint32][]int32{}, vocab: search.NewVocab(), trie: newTrie(), names: newTrie()}
}

func (ix *index) bundle(id uuid.UUID) *bundleState {
	b := ix.bundles[id]
	if b == nil {
		b = &bundleState{}
		ix.bundles[id] = b
	}
	return b
}

// setBundle records a bundle's state.
func (ix *index) setBundle(b *catalogue.Bundle) {
	st := ix.bundle(b.ID)
	*st = bundleState{known: true, enabled: b.IsEnabled, deleted: b.SoftDeletedAt != nil}
}

// dropBundle records that a bundle is gone (reaped).
func (ix *index) dropBundle(id uuid.UUID) {
	st := ix.bundle(id)
	*st = bundleState{known: true, deleted: true}
}

// textSum hashes the searched text of t.
func textSum(seed maphash.Seed, t *catalogue.Tool) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, s := range []string{t.Slug, t.DisplayName, t.Description} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	for _, s := range t.Tags {
		h.WriteString(s)
		h.WriteByte(1)
	}
	return h.Sum64()
}

// prepped is what indexing a tool needs that depends on the tool alone:
// prepTool makes it, concurrently for many tools when an index is built.
type prepped struct {
	sum   uint64
	views [2]search.Prepared // not yet numbered against the vocabulary
	done  bool               // views are prepared (a tool whose text is unchanged needs none)
}

// prepTool hashes t's searched text and prepares its two views.
func prepTool(seed maphash.Seed, t *catalogue.Tool) prepped {
	a, b := views(t)
	return prepped{sum: textSum(seed, t), views: [2]search.Prepared{search.Prepare(a), search.Prepare(b)}, done: true}
}

// put adds or replaces a tool.
func (ix *index) put(t *catalogue.Tool) {
	ix.putPrepped(t, prepped{sum: textSum(ix.seed, t)})
}

// putPrepped adds or replaces a tool whose text p was hashed (and maybe
// prepared) with ix.seed.
func (ix *index) putPrepped(t *catalogue.Tool, p prepped) {
	key := t.Key()
	sum := p.sum
	if slot, ok := ix.slots[key]; ok {
		d := &ix.docs[slot]
		if d.sum == sum {
			d.enabled, d.time = t.IsEnabled, t.ModifiedAt.UnixNano()
			ix.meta[slot].enabled, ix.meta[slot].time = d.enabled, d.time
			return
		}
		ix.remove(key)
	}
	ix.add(doc{key: key, bundle: ix.bundle(key.BundleID), time: t.ModifiedAt.UnixNano(), enabled: t.IsEnabled,
		alive: true, sum: sum, views: ix.prepare(t, p)})
}

// add indexes a prepared doc in a new slot.
func (ix *index) add(d doc) {
	slot := int32(len(ix.docs))
	ix.docs = append(ix.docs, d)
	ix.slots[d.key] = slot
	v := &ix.docs[slot].views
	ix.meta = append(ix.meta, slotMeta{time: d.time, bundle: d.bundle, enabled: d.enabled, alive: d.alive,
		name0: ix.nameHash(v[0].Name()), name1: ix.nameHash(v[1].Name())})
	// The words of the slug view (its name, then its description, which
	// holds the display name) partition its runs in order: a run made of
	// more than one word is split by camelCase.
	words := ix.wordBuf[:0]
	v[0].Words(func(w string) { words = append(words, w) })
	ix.wordBuf = words
	wi, aligned := 0, true
	split := func(r string) bool {
		if aligned && wi < len(words) && words[wi] == r {
			wi++
			return false
		}
		n := 0
		for aligned && wi < len(words) && n < len(r) {
			n += len(words[wi])
			wi++
		}
		aligned = aligned && n == len(r) // else assume every later run split
		return true
	}
	for i, text := range []string{v[0].Name(), v[1].Name(), v[0].Description()} {
		first := i < 2 && startsAlnum(text)
		eachRun(text, func(r string) {
			id, ok := ix.runs[r]
			if !ok {
				id = ix.newRun(r)
			}
			if i != 1 && split(r) {
				ix.camel[id] = true
			}
			if l := ix.runDocs[id]; len(l) == 0 || l[len(l)-1] != slot {
				ix.runDocs[id] = append(l, slot)
			}
			if l := ix.nameDocs[id]; i < 2 && (len(l) == 0 || l[len(l)-1] != slot) {
				ix.nameDocs[id] = append(l, slot)
			}
			if l := ix.firstDocs[id]; first && (len(l) == 0 || l[len(l)-1] != slot) {
				ix.firstDocs[id] = append(l, slot)
			}
			first = false
		})
	}
	// Whole names: fuzzy matching also measures a term against a whole
	// name of several words. (Insertion is idempotent.)
	if ix.bulk != nil {
		ix.bulk.names = append(ix.bulk.names, v[0].Name(), v[1].Name())
		return
	}
	ix.names.insert(v[0].Name())
	ix.names.insert(v[1].Name())
}

// prepare numbers a tool's two views against the vocabulary (preparing
// them first unless p holds them), adding new words to the trie.
func (ix *index) prepare(t *catalogue.Tool, p prepped) [2]search.Prepared {
	if !p.done {
		a, b := views(t)
		p.views = [2]search.Prepared{search.Prepare(a), search.Prepare(b)}
	}
	n := ix.vocab.Len()
	out := [2]search.Prepared{ix.vocab.Intern(p.views[0]), ix.vocab.Intern(p.views[1])}
	if ix.bulk == nil {
		for id := n; id < ix.vocab.Len(); id++ {
			ix.trie.insert(ix.vocab.Word(id))
		}
	}
	return out
}

// bulkLoad is an index being built from a whole listing: the tries are
// built once at the end (finishBulk) from every word and name, rather than
// by one insertion each.
type bulkLoad struct {
	names []string
}

// startBulk defers trie building until finishBulk; ix must be empty.
func (ix *index) startBulk() { ix.bulk = &bulkLoad{} }

// finishBulk builds the tries of the words and names added since
// startBulk. The result equals inserting them one by one: a radix tree
// is determined by the set of its words.
func (ix *index) finishBulk() {
	words := make([]string, ix.vocab.Len())
	for i := range words {
		words[i] = ix.vocab.Word(i)
	}
	ix.trie = buildTrie(words)
	ix.names = buildTrie(ix.bulk.names)
	ix.bulk = nil
}

func (ix *index) newRun(r string) int32 {
	id := int32(len(ix.runText))
	ix.runs[r] = id
	ix.runText = append(ix.runText, r)
	ix.runDocs = append(ix.runDocs, nil)
	ix.nameDocs = append(ix.nameDocs, nil)
	ix.firstDocs = append(ix.firstDocs, nil)
	ix.camel = append(ix.camel, false)
	for i := 0; i+3 <= len(r); i++ {
		g := gram(r[i:])
		if l := ix.grams[g]; len(l) == 0 || l[len(l)-1] != id {
			ix.grams[g] = append(l, id)
		}
	}
	return id
}

func (ix *index) nameHash(s string) uint32 { return uint32(maphash.String(ix.seed, s)) }

func gram(s string) uint32 { return uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2]) }

// alnum is the ranking's notion of a word character.
func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// wholeRun reports whether s is one run of letters and digits.
func wholeRun(s string) bool {
	n, all := 0, false
	eachRun(s, func(r string) { n, all = n+1, len(r) == len(s) })
	return n == 1 && all
}

// startsAlnum reports whether s starts with a letter or digit (then its
// first run starts at 0).
func startsAlnum(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && alnum(r)
}

// eachRun calls f with every maximal run of letters and digits of s.
func eachRun(s string, f func(string)) {
	start := -1
	for i, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' {
				if start < 0 {
					start = i
				}
				continue
			}
		} else if alnum(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		f(s[start:])
	}
}

// remove drops a tool; its slot stays dead until compact.
func (ix *index) remove(key catalogue.ToolKey) {
	slot, ok := ix.slots[key]
	if !ok {
		return
	}
	delete(ix.slots, key)
	ix.docs[slot] = doc{key: key}
	ix.meta[slot] = slotMeta{}
	ix.dead++
	if ix.dead > 1024 && ix.dead > len(ix.slots) {
		ix.compact()
	}
}

// compact rebuilds the postings from the live docs. The vocabulary and
// the trie only grow (a word no tool holds any more costs a little memory
// and yields no candidate); Resync starts them afresh.
func (ix *index) compact() {
	fresh := newIndex(ix.seed, len(ix.slots))
	fresh.bundles, fresh.vocab, fresh.trie, fresh.names, fresh.bulk = ix.bundles, ix.vocab, ix.trie, ix.names, ix.bulk
	for i := range ix.docs {
		if ix.docs[i].alive {
			fresh.add(ix.docs[i])
		}
	}
	*ix = *fresh
}

// bitset is a set of slots.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// scratch is a search's reusable memory (Store pools them), so that a
// query allocates next to nothing: the garbage collector, which must
// mark the whole index, then runs rarely.
type scratch struct {
	words  []uint64 // backing of the query's bitsets
	list   []candidate
	out    []candidate
	bucket []uint8
}

// bitset returns a cleared set of n slots from the scratch memory.
func (sc *scratch) bitset(n int) bitset {
	need := (n + 63) / 64
	if cap(sc.words)-len(sc.words) < need {
		sc.words = make([]uint64, 0, max(2*cap(sc.words), 8*need))
	}
	b := sc.words[len(sc.words) : len(sc.words)+need]
	sc.words = sc.words[:len(sc.words)+need]
	clear(b)
	return b
}

func (sc *scratch) reset() {
	sc.words, sc.list, sc.out, sc.bucket = sc.words[:0], sc.list[:0], sc.out[:0], sc.bucket[:0]
}
func (b bitset) set(i int32) { b[i>>6] |= 1 << (uint(i) & 63) }

func (b bitset) and(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}

func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

func (b bitset) setAll(l []int32) {
	for _, i := range l {
		b.set(i)
	}
}

// eachDesc calls f with every slot of the set, highest first.
func (b bitset) eachDesc(f func(i int32)) {
	for w := len(b) - 1; w >= 0; w-- {
		for x := b[w]; x != 0; {
			h := 63 - bits.LeadingZeros64(x)
			f(int32(w*64 + h))
			x &^= 1 << uint(h)
		}
	}
}

// termSets are a term's candidates, split by where the term may hit:
// supersets of the slots holding it literally (anywhere, or in the slug
// or display name) and of those it fuzzy-matches (anywhere, or in a
// name). They bound a slot's score before it is computed.
type termSets struct {
	lit, nameLit, fz, nameFz bitset
	// word and nameWord are the subsets of lit and nameLit where the term
	// may be a whole word (or run of words); the same sets when the term
	// is not a single run of letters and digits.
	word, nameWord bitset
	// prefix is a superset of the slots whose slug or display name starts
	// with the term; nil when the term cannot narrow it (its first run is
	// shorter than 3 bytes, or it starts with a separator).
	prefix bitset
	// term is the term; loose is set when lit may hold slots without it
	// (a term of several runs, "get-wea": lit holds the slots with all its
	// runs, in any order). A slot of lit that fz lacks must then be
	// checked to hold the term before it is scored.
	term  string
	loose bool
}

// holds reports whether slot's text may match the term: always for a
// term whose sets are exact, else when the term may match it fuzzily or
// its text holds the term.
func (t *termSets) holds(ix *index, slot int32) bool {
	if !t.loose || t.fz.has(slot) {
		return true
	}
	v := &ix.docs[slot].views[0] // its name is the slug, its description holds the display name and the rest
	return strings.Contains(v.Name(), t.term) || strings.Contains(v.Description(), t.term)
}

// terms returns each term's sets; nil for a term that narrows nothing.
func (ix *index) terms(sq *search.Query, sc *scratch) []*termSets {
	out := make([]*termSets, len(sq.Terms()))
	for i, term := range sq.Terms() {
		n := len(ix.docs)
		ts := &termSets{lit: sc.bitset(n), nameLit: sc.bitset(n), fz: sc.bitset(n), nameFz: sc.bitset(n)}
		if !ix.substring(term, ts.lit, ts.nameLit) {
			continue // the term's literal matches are not narrowed: it constrains nothing
		}
		ts.word, ts.nameWord = ts.lit, ts.nameLit
		ts.term, ts.loose = term, !wholeRun(term)
		if wholeRun(term) {
			ts.word, ts.nameWord = sc.bitset(n), sc.bitset(n)
			for _, r := range ix.pieceRuns(term) {
				if ix.runText[r] == term || ix.camel[r] {
					ts.word.setAll(ix.runDocs[r])
					ts.nameWord.setAll(ix.nameDocs[r])
				}
			}
		}
		if startsAlnum(term) {
			var p string
			eachRun(term, func(r string) {
				if p == "" {
					p = r
				}
			})
			if p != "" {
				ts.prefix = sc.bitset(n)
				for _, r := range ix.pieceRuns(p) {
					if strings.HasPrefix(ix.runText[r], p) {
						ts.prefix.setAll(ix.firstDocs[r])
					}
				}
			}
		}
		if k := sq.FuzzyEdits(i); k > 0 {
			narrowed := true
			add := func(prefix string) {
				narrowed = narrowed && ix.substring(prefix, ts.fz, ts.nameFz)
			}
			ix.trie.fuzzy([]rune(term), k, false, add)
			ix.names.fuzzy([]rune(term), k, true, add)
			if !narrowed {
				continue
			}
		}
		out[i] = ts
	}
	return out
}

// exactBound is the bound of a slot one of whose names is the whole
// query: an Exact match outranks everything.
const exactBound = math.MaxInt32

// bound is an upper bound of the slot's score from the term sets: the
// best rule each term may still meet there, summed (or exactBound when a
// name is the whole query, lower-cased and trimmed as the ranking does).
func (ix *index) bound(ts []*termSets, slot int32, whole string, wholeHash uint32) int32 {
	if m := &ix.meta[slot]; m.name0 == wholeHash || m.name1 == wholeHash {
		if d := &ix.docs[slot]; d.views[0].Name() == whole || d.views[1].Name() == whole {
			return exactBound
		}
	}
	total := int32(0)
	for _, t := range ts {
		switch {
		case t == nil || t.nameLit.has(slot) && (t.prefix == nil || t.prefix.has(slot)):
			total += search.PrefixScore
		case t.nameWord.has(slot):
			total += search.NameWordScore // a word of a name, not at its start
		case t.word.has(slot):
			total += search.DescriptionWordScore
		case t.nameLit.has(slot):
			total += search.NameSubstringScore // inside a word of a name
		case t.lit.has(slot):
			total += search.DescSubstringScore
		case t.nameFz.has(slot):
			total += search.NameFuzzyScore // not literal: fuzzy, at least one edit
		default:
			total += search.DescFuzzyScore
		}
	}
	return total
}

// substring adds to set a superset of the slots whose text holds s, and
// reports false when it cannot narrow (s has no run of letters and
// digits): then every slot may hold s.
//
// A text holding s holds each maximal run of letters and digits of s
// inside one of its own runs; runs are found by their trigrams. A piece
// that a separator of s follows ends its run of the text, one that a
// separator precedes starts it: "get-wea" needs a run ending in "get"
// and one starting with "wea".
func (ix *index) substring(s string, set, nameSet bitset) bool {
	type piece struct {
		p          string
		start, end bool // the text's run must start, end with p
	}
	var pieces []piece
	at := 0
	eachRun(s, func(p string) {
		i := at + strings.Index(s[at:], p)
		at = i + len(p)
		pieces = append(pieces, piece{p: p, start: i > 0, end: at < len(s)})
	})
	if len(pieces) == 0 {
		return false
	}
	if len(pieces) == 1 {
		ix.pieceDocs(pieces[0].p, pieces[0].start, pieces[0].end, set, nameSet)
		return true
	}
	// Every piece must be in some run: intersect the pieces' sets, then
	// add the intersection to set (which may hold other strings' slots).
	var all, names bitset
	for _, p := range pieces {
		ps, pn := newBitset(len(ix.docs)), newBitset(len(ix.docs))
		ix.pieceDocs(p.p, p.start, p.end, ps, pn)
		if all == nil {
			all, names = ps, pn
		} else {
			all.and(ps)
			names.and(pn)
		}
	}
	set.or(all)
	nameSet.or(names)
	return true
}

// pieceDocs adds to set the slots holding a run that contains p (p has
// no separator), starts with it when start is set and ends with it when
// end is set, and to nameSet those holding such a run in a name.
func (ix *index) pieceDocs(p string, start, end bool, set, nameSet bitset) {
	for _, r := range ix.pieceRuns(p) {
		if text := ix.runText[r]; start && !strings.HasPrefix(text, p) || end && !strings.HasSuffix(text, p) {
			continue
		}
		set.setAll(ix.runDocs[r])
		nameSet.setAll(ix.nameDocs[r])
	}
}

// pieceRuns returns the runs containing p (no separator), found by their
// trigrams, or for p shorter than 3 bytes by reading every distinct run.
func (ix *index) pieceRuns(p string) []int32 {
	if len(p) < 3 {
		var runs []int32
		for r, text := range ix.runText {
			if strings.Contains(text, p) {
				runs = append(runs, int32(r))
			}
		}
		return runs
	}
	lists := make([][]int32, 0, len(p)-2)
	for i := 0; i+3 <= len(p); i++ {
		l := ix.grams[gram(p[i:])]
		if len(l) == 0 {
			return nil // no run holds p
		}
		lists = append(lists, l)
	}
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	runs := slices.Clone(lists[0])
	for _, l := range lists[1:] {
		runs = intersect(runs, l)
	}
	n := 0
	for _, r := range runs {
		if strings.Contains(ix.runText[r], p) {
			runs[n] = r
			n++
		}
	}
	return runs[:n]
}

// candidate is a slot to score and the bound of its score.
type candidate struct {
	bound int32
	slot  int32
}

// search ranks the visible tools matching q; hits' ref is the slot.
//
// Candidates are the slots every narrowing term may match. They are
// scored best bound first and, within a bound, from the newest slot
// (slots are mostly in modifiedAt order): once the page is full, a
// candidate whose bound is below the page's worst score, or equal to it
// but older, cannot enter and is skipped unscored.
func (ix *index) search(q *Query, sc *scratch) ([]hit, *Cursor) {
	defer sc.reset()
	sq := search.NewQuery(q.Text)
	sq.UseVocab(ix.vocab)
	tp := newTop(q)
	if sq.Empty() {
		return nil, nil
	}
	ts := ix.terms(sq, sc)
	whole := sq.Text()
	wholeHash := ix.nameHash(whole)
	if len(ts) == 1 && ts[0] != nil {
		ix.searchTerm(q, sq, ts[0], whole, wholeHash, tp, sc)
		return tp.result(q.Limit)
	}
	var cand bitset
	for _, t := range ts {
		if t == nil {
			continue
		}
		set := sc.bitset(len(ix.docs))
		copy(set, t.lit)
		set.or(t.fz)
		if cand == nil {
			cand = set
		} else {
			cand.and(set)
		}
	}
	list := sc.list[:0]
	visit := func(slot int32) {
		m := &ix.meta[slot]
		if !ix.visible(m, q) {
			return
		}
		for _, t := range ts {
			if t != nil && !t.holds(ix, slot) {
				return
			}
		}
		list = append(list, candidate{bound: ix.bound(ts, slot, whole, wholeHash), slot: slot})
	}
	if cand == nil {
		list = slices.Grow(list, len(ix.docs))
		for i := len(ix.docs) - 1; i >= 0; i-- {
			visit(int32(i))
		}
	} else {
		cand.eachDesc(visit)
	}
	sc.list = list
	for _, c := range byBound(list, sc) {
		if tp.full() {
			w := &tp.h[0]
			if int(c.bound) < w.score {
				break // sorted by bound: no later candidate can enter
			}
			if int(c.bound) == w.score && ix.meta[c.slot].time < w.time {
				continue
			}
		}
		d := &ix.docs[c.slot]
		s1, _ := sq.ScorePrepared(&d.views[0])
		s2, _ := sq.ScorePrepared(&d.views[1])
		if sc := max(s1, s2); sc > 0 {
			tp.add(hit{score: sc, time: d.time, key: d.key, ref: int(c.slot)})
		}
	}
	return tp.result(q.Limit)
}

// visible reports whether a slot's tool may be returned for q.
func (ix *index) visible(m *slotMeta, q *Query) bool {
	return m.alive && m.bundle.known && !m.bundle.deleted && (q.IncludeDisabled || m.enabled && m.bundle.enabled)
}

// searchTerm is search for a query of one narrowing term. Its bound
// (see bound) takes few values, each given by membership of a set, so
// the candidates are taken level by level, best bound first, each level
// a difference of bitsets computed word by word, and each read newest
// slot first: the search stops at the first level that cannot enter the
// page, and never reads the candidates below it.
func (ix *index) searchTerm(q *Query, sq *search.Query, t *termSets, whole string, wholeHash uint32, tp *top, sc *scratch) {
	n := len(ix.docs)
	cand := sc.bitset(n)
	copy(cand, t.lit)
	cand.or(t.fz)
	// Name-prefix candidates: the first level, holding the exact names
	// (a name equal to the query holds it and starts with it).
	top := sc.bitset(n)
	copy(top, t.nameLit)
	if t.prefix != nil {
		top.and(t.prefix)
	}
	top.and(cand)
	levels := [...]struct {
		set   bitset
		bound int32
	}{
		{top, search.PrefixScore}, {t.nameWord, search.NameWordScore}, {t.word, search.DescriptionWordScore},
		{t.nameLit, search.NameSubstringScore}, {t.lit, search.DescSubstringScore},
		{t.nameFz, search.NameFuzzyScore}, {cand, search.DescFuzzyScore},
	}
	score := func(slot int32, bound int32) {
		m := &ix.meta[slot]
		if !ix.visible(m, q) {
			return
		}
		if tp.full() {
			if w := &tp.h[0]; int(bound) < w.score || int(bound) == w.score && m.time < w.time {
				return
			}
		}
		if !t.holds(ix, slot) {
			return
		}
		d := &ix.docs[slot]
		s1, _ := sq.ScorePrepared(&d.views[0])
		s2, _ := sq.ScorePrepared(&d.views[1])
		if sc := max(s1, s2); sc > 0 {
			tp.add(hit{score: sc, time: d.time, key: d.key, ref: int(slot)})
		}
	}
	// Exact names first: they outrank every other match.
	var exact []int32
	top.eachDesc(func(slot int32) {
		if m := &ix.meta[slot]; m.name0 == wholeHash || m.name1 == wholeHash {
			if d := &ix.docs[slot]; d.views[0].Name() == whole || d.views[1].Name() == whole {
				exact = append(exact, slot)
			}
		}
	})
	seen := sc.bitset(n) // slots already read
	for _, slot := range exact {
		score(slot, exactBound)
		seen.set(slot)
	}
	level := sc.bitset(n)
	for _, l := range levels {
		if tp.full() && int(l.bound) < tp.h[0].score {
			return // no candidate of this level or below can enter
		}
		for i := range level {
			level[i] = l.set[i] & cand[i] &^ seen[i]
			seen[i] |= level[i]
		}
		level.eachDesc(func(slot int32) { score(slot, l.bound) })
	}
}

// byBound orders candidates by bound, highest first, keeping the order of
// equal bounds (a counting sort: a query yields few distinct bounds).
func byBound(list []candidate, sc *scratch) []candidate {
	var vals []int32 // distinct bounds, in order of appearance
	bucket := slices.Grow(sc.bucket[:0], len(list))[:len(list)]
	sc.bucket = bucket
	for i := range list {
		k := slices.Index(vals, list[i].bound)
		if k < 0 {
			if len(vals) == 255 {
				slices.SortStableFunc(list, func(a, b candidate) int { return int(b.bound) - int(a.bound) })
				return list
			}
			k = len(vals)
			vals = append(vals, list[i].bound)
		}
		bucket[i] = uint8(k)
	}
	if len(vals) <= 1 {
		return list
	}
	// start[k]: where bucket k begins, buckets ordered by bound descending.
	order := make([]int, len(vals))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return int(vals[b]) - int(vals[a]) })
	count := make([]int, len(vals))
	for _, k := range bucket {
		count[k]++
	}
	start, at := make([]int, len(vals)), 0
	for _, k := range order {
		start[k] = at
		at += count[k]
	}
	out := slices.Grow(sc.out[:0], len(list))[:len(list)]
	sc.out = out
	for i, k := range bucket {
		out[start[k]] = list[i]
		start[k]++
	}
	return out
}

// live returns the number of indexed tools.
func (ix *index) live() int { return len(ix.slots) }

// intersect keeps in a (reused) the elements also in b; both ascending.
func intersect(a, b []int32) []int32 {
	n, j := 0, 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) {
			break
		}
		if b[j] == x {
			a[n] = x
			n++
		}
	}
	return a[:n]
}
