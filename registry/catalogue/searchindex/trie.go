package searchindex

import "slices"

// trieNode is a node of the vocabulary trie, path-compressed (a radix
// tree): every distinct word of the indexed tools (as fuzzy matching sees
// words), and every whole name. A node's label is the runes of the edge
// into it.
type trieNode struct {
	label []rune
	word  bool // a word ends here
	kids  []*trieNode
}

func newTrie() *trieNode { return &trieNode{} }

func (n *trieNode) kid(r rune) (int, bool) {
	return slices.BinarySearchFunc(n.kids, r, func(k *trieNode, r rune) int { return int(k.label[0]) - int(r) })
}

// insert adds word.
func (n *trieNode) insert(word string) {
	rs := []rune(word)
	for len(rs) > 0 {
		i, ok := n.kid(rs[0])
		if !ok {
			n.kids = slices.Insert(n.kids, i, &trieNode{label: rs, word: true})
			return
		}
		k := n.kids[i]
		c := 0
		for c < len(k.label) && c < len(rs) && k.label[c] == rs[c] {
			c++
		}
		if c < len(k.label) { // split the edge at c
			tail := &trieNode{label: k.label[c:], word: k.word, kids: k.kids}
			*k = trieNode{label: k.label[:c:c], kids: []*trieNode{tail}}
		}
		n, rs = k, rs[c:]
	}
	n.word = true
}

// buildTrie returns the trie of words (in any order, duplicates allowed):
// the trie inserting each of them into an empty one would give, built in
// one pass over the sorted words. words is sorted in place.
func buildTrie(words []string) *trieNode {
	slices.Sort(words) // byte order of UTF-8 is code point order
	words = slices.Compact(words)
	rs := make([][]rune, len(words))
	for i, w := range words {
		rs[i] = []rune(w)
	}
	root := newTrie()
	root.fill(rs, 0)
	return root
}

// fill adds below n the words ws, sorted, distinct, all sharing the prefix
// of length depth that leads to n.
func (n *trieNode) fill(ws [][]rune, depth int) {
	if len(ws) > 0 && len(ws[0]) == depth {
		n.word = true
		ws = ws[1:]
	}
	for len(ws) > 0 {
		r := ws[0][depth]
		j := 1
		for j < len(ws) && ws[j][depth] == r {
			j++
		}
		group := ws[:j]
		first, last := group[0], group[j-1]
		l := depth + 1
		for l < len(first) && l < len(last) && first[l] == last[l] {
			l++
		}
		kid := &trieNode{label: first[depth:l:l]}
		kid.fill(group, l)
		n.kids = append(n.kids, kid)
		ws = ws[j:]
	}
}

// fuzzy calls f with the shortest prefixes p of words such that term is
// within k edits (optimal string alignment, as internal/search measures)
// of p. Every word w that term is within k edits of, or of a prefix of,
// starts with one of them: exactly the words fuzzy matching may accept.
//
// With whole, f is called instead with the entries themselves within k
// edits of term (no prefix stands for the entries below it).
func (n *trieNode) fuzzy(term []rune, k int, whole bool, f func(prefix string)) {
	m := len(term)
	col := make([]int, m+1)
	for i := range col {
		col[i] = min(i, k+1)
	}
	w := &fuzzyWalk{term: term, k: k, whole: whole, f: f, cols: [][]int{col}}
	for _, kid := range n.kids {
		w.walk(kid)
	}
}

type fuzzyWalk struct {
	term  []rune
	k     int
	whole bool // match entries whole, not their prefixes
	f     func(string)
	cols  [][]int // cols[j][i]: distance between term[:i] and path[:j], capped at k+1
	path  []rune
}

// walk extends the path by n's label, one rune (one DP column) at a time.
func (w *fuzzyWalk) walk(n *trieNode) {
	base := len(w.path)
	defer func() { w.path = w.path[:base] }()
	m, inf := len(w.term), w.k+1
	for _, r := range n.label {
		w.path = append(w.path, r)
		j := len(w.path)
		if len(w.cols) <= j {
			w.cols = append(w.cols, make([]int, m+1))
		}
		prev, cur := w.cols[j-1], w.cols[j]
		cur[0] = min(j, inf)
		low := cur[0]
		for i := 1; i <= m; i++ {
			cost := 1
			if w.term[i-1] == r {
				cost = 0
			}
			d := min(prev[i]+1, cur[i-1]+1, prev[i-1]+cost)
			if i > 1 && j > 1 && w.term[i-1] == w.path[j-2] && w.term[i-2] == r {
				d = min(d, w.cols[j-2][i-2]+1)
			}
			d = min(d, inf)
			cur[i] = d
			low = min(low, d)
		}
		if !w.whole && cur[m] <= w.k { // the term is within k of this prefix: every word below matches
			w.f(string(w.path))
			return
		}
		if low > w.k {
			return
		}
	}
	if w.whole && n.word && w.cols[len(w.path)][m] <= w.k {
		w.f(string(w.path))
	}
	for _, kid := range n.kids {
		w.walk(kid)
	}
}
