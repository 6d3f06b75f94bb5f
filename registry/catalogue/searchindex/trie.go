package searchindex

import "slices"

// trieNode is a node of the vocabulary trie: every distinct word of the
// indexed tools (as fuzzy matching sees words), and every whole name.
type trieNode struct {
	r    rune
	word int32 // the word ending here, or -1
	kids []*trieNode
}

func newTrie() *trieNode { return &trieNode{word: -1} }

// insert adds word with id; the word must not be present yet.
func (n *trieNode) insert(word string, id int32) {
	for _, r := range word {
		i, ok := slices.BinarySearchFunc(n.kids, r, func(k *trieNode, r rune) int { return int(k.r) - int(r) })
		if !ok {
			n.kids = slices.Insert(n.kids, i, &trieNode{r: r, word: -1})
		}
		n = n.kids[i]
	}
	n.word = id
}

// each calls f with every word of the subtree.
func (n *trieNode) each(f func(int32)) {
	if n.word >= 0 {
		f(n.word)
	}
	for _, k := range n.kids {
		k.each(f)
	}
}

// fuzzy calls f with every word w such that term is within k edits
// (optimal string alignment, as internal/search measures) of w or of a
// prefix of w: exactly the words fuzzy matching may accept, a superset
// of those it does accept for a given item.
func (n *trieNode) fuzzy(term []rune, k int, f func(int32)) {
	m := len(term)
	col := make([]int, m+1)
	for i := range col {
		col[i] = min(i, k+1)
	}
	w := &fuzzyWalk{term: term, k: k, f: f, cols: [][]int{col}}
	for _, kid := range n.kids {
		w.walk(kid, 1, 0)
	}
}

type fuzzyWalk struct {
	term []rune
	k    int
	f    func(int32)
	cols [][]int // cols[j][i]: distance between term[:i] and the path's first j runes, capped at k+1
}

func (w *fuzzyWalk) walk(n *trieNode, j int, parent rune) {
	m, inf := len(w.term), w.k+1
	if len(w.cols) <= j {
		w.cols = append(w.cols, make([]int, m+1))
	}
	prev, cur := w.cols[j-1], w.cols[j]
	var prev2 []int
	if j >= 2 {
		prev2 = w.cols[j-2]
	}
	cur[0] = min(j, inf)
	low := cur[0]
	for i := 1; i <= m; i++ {
		cost := 1
		if w.term[i-1] == n.r {
			cost = 0
		}
		d := min(prev[i]+1, cur[i-1]+1, prev[i-1]+cost)
		if i > 1 && j > 1 && w.term[i-1] == parent && w.term[i-2] == n.r {
			d = min(d, prev2[i-2]+1)
		}
		d = min(d, inf)
		cur[i] = d
		low = min(low, d)
	}
	if cur[m] <= w.k { // the term is within k of this prefix: every word below matches
		n.each(w.f)
		return
	}
	if low > w.k {
		return
	}
	for _, kid := range n.kids {
		w.walk(kid, j+1, n.r)
	}
}
