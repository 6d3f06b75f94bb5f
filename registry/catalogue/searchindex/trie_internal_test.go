package searchindex

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestBuildTrieEqualsInsertion: the trie an index build makes in one pass
// over its sorted words is the trie inserting the words one by one makes
// (same nodes, labels, word marks and child order), whatever the words —
// shared prefixes, words that are prefixes of others, duplicates, the
// empty word, non-ASCII runes — so the bulk build at start and the updates after it
// answer alike.
func TestBuildTrieEqualsInsertion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]rune{'a', 'b', 'c', 'é', 'ß', '中', '1'})
		words := rapid.SliceOfN(rapid.StringOfN(alphabet, 0, 6, -1), 0, 40).Draw(t, "words")
		inserted := newTrie()
		for _, w := range words {
			inserted.insert(w)
		}
		require.Equal(t, inserted, buildTrie(words))
	})
}
