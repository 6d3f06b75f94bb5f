package searchindex

import (
	"hash/maphash"
	"math/bits"
	"slices"

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

// index is the in-memory index. It is not safe for concurrent use; Store
// guards it.
type index struct {
	seed     maphash.Seed
	docs     []doc // by slot; removed tools leave dead slots until compact
	slots    map[catalogue.ToolKey]int32
	bundles  map[uuid.UUID]*bundleState
	grams    map[uint32][]int32 // byte trigram of the lower-cased text → slots, ascending
	words    map[string]int32   // word → id
	wordDocs [][]int32          // word id → slots, ascending
	trie     *trieNode
	dead     int
}

func newIndex(seed maphash.Seed) *index {
	return &index{seed: seed, slots: map[catalogue.ToolKey]int32{}, bundles: map[uuid.UUID]*bundleState{},
		grams: map[uint32][]int32{}, words: map[string]int32{}, trie: newTrie()}
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

func (ix *index) textSum(t *catalogue.Tool) uint64 {
	var h maphash.Hash
	h.SetSeed(ix.seed)
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

// put adds or replaces a tool.
func (ix *index) put(t *catalogue.Tool) {
	key := t.Key()
	sum := ix.textSum(t)
	if slot, ok := ix.slots[key]; ok {
		d := &ix.docs[slot]
		if d.sum == sum {
			d.enabled, d.time = t.IsEnabled, t.ModifiedAt.UnixNano()
			return
		}
		ix.remove(key)
	}
	a, b := views(t)
	ix.add(doc{key: key, bundle: ix.bundle(key.BundleID), time: t.ModifiedAt.UnixNano(), enabled: t.IsEnabled,
		alive: true, sum: sum, views: [2]search.Prepared{search.Prepare(a), search.Prepare(b)}})
}

// add indexes a prepared doc in a new slot.
func (ix *index) add(d doc) {
	slot := int32(len(ix.docs))
	ix.docs = append(ix.docs, d)
	ix.slots[d.key] = slot
	v := &ix.docs[slot].views
	for _, s := range []string{v[0].Name(), v[0].Description()} {
		for i := 0; i+3 <= len(s); i++ {
			g := uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2])
			l := ix.grams[g]
			if n := len(l); n == 0 || l[n-1] != slot {
				ix.grams[g] = append(l, slot)
			}
		}
	}
	addWord := func(w string) {
		id, ok := ix.words[w]
		if !ok {
			id = int32(len(ix.wordDocs))
			ix.words[w] = id
			ix.wordDocs = append(ix.wordDocs, nil)
			ix.trie.insert(w, id)
		}
		if l := ix.wordDocs[id]; len(l) == 0 || l[len(l)-1] != slot {
			ix.wordDocs[id] = append(l, slot)
		}
	}
	v[0].Words(addWord)
	// Whole names: fuzzy matching also measures a term against a whole
	// name of several words.
	addWord(v[0].Name())
	addWord(v[1].Name())
}

// remove drops a tool; its slot stays dead until compact.
func (ix *index) remove(key catalogue.ToolKey) {
	slot, ok := ix.slots[key]
	if !ok {
		return
	}
	delete(ix.slots, key)
	ix.docs[slot] = doc{key: key}
	ix.dead++
	if ix.dead > 1024 && ix.dead > len(ix.slots) {
		ix.compact()
	}
}

// compact rebuilds the postings from the live docs.
func (ix *index) compact() {
	fresh := newIndex(ix.seed)
	fresh.bundles = ix.bundles
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
func (b bitset) set(i int32) { b[i>>6] |= 1 << (uint(i) & 63) }

func (b bitset) and(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}

func (b bitset) setAll(l []int32) {
	for _, i := range l {
		b.set(i)
	}
}

func (b bitset) each(f func(i int32)) {
	for w, x := range b {
		for x != 0 {
			f(int32(w*64 + bits.TrailingZeros64(x)))
			x &= x - 1
		}
	}
}

// candidates returns a superset of the slots matching every term, or nil
// when no term narrows the search (every term shorter than 3 bytes: each
// live slot is then a candidate).
func (ix *index) candidates(sq *search.Query) bitset {
	var out bitset
	for i, term := range sq.Terms() {
		k := sq.FuzzyEdits(i)
		if len(term) < 3 && k == 0 {
			continue // too short to narrow with trigrams; such a term matches by substring only
		}
		set := newBitset(len(ix.docs))
		if len(term) >= 3 {
			set.setAll(ix.substring(term))
		}
		if k > 0 {
			ix.trie.fuzzy([]rune(term), k, func(w int32) { set.setAll(ix.wordDocs[w]) })
		}
		if out == nil {
			out = set
		} else {
			out.and(set)
		}
	}
	return out
}

// substring returns the slots whose text holds every trigram of term
// (ascending): a superset of those holding term.
func (ix *index) substring(term string) []int32 {
	lists := make([][]int32, 0, len(term)-2)
	for i := 0; i+3 <= len(term); i++ {
		l := ix.grams[uint32(term[i])<<16|uint32(term[i+1])<<8|uint32(term[i+2])]
		if len(l) == 0 {
			return nil
		}
		lists = append(lists, l)
	}
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	out := slices.Clone(lists[0])
	for _, l := range lists[1:] {
		out = intersect(out, l)
		if len(out) == 0 {
			return nil
		}
	}
	return out
}

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

// search ranks the visible tools matching q; hits' ref is the slot.
func (ix *index) search(q *Query) ([]hit, *Cursor) {
	sq := search.NewQuery(q.Text)
	tp := newTop(q)
	if sq.Empty() {
		return nil, nil
	}
	consider := func(slot int32) {
		d := &ix.docs[slot]
		if !d.alive || !d.bundle.known || d.bundle.deleted || (!q.IncludeDisabled && !(d.enabled && d.bundle.enabled)) {
			return
		}
		s1, _ := sq.ScorePrepared(&d.views[0])
		s2, _ := sq.ScorePrepared(&d.views[1])
		if sc := max(s1, s2); sc > 0 {
			tp.add(hit{score: sc, time: d.time, key: d.key, ref: int(slot)})
		}
	}
	if c := ix.candidates(sq); c != nil {
		c.each(consider)
	} else {
		for i := range ix.docs {
			consider(int32(i))
		}
	}
	return tp.result(q.Limit)
}

// live returns the number of indexed tools.
func (ix *index) live() int { return len(ix.slots) }
