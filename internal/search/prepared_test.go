package search_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/search"
)

// TestScorePreparedEqualsScore: an item prepared once (alone or against
// a shared Vocab that many items grew) scores exactly as Score scores it,
// for any query.
func TestScorePreparedEqualsScore(t *testing.T) {
	words := []string{"weather", "wether", "webSearch", "web", "fetch", "Résumé", "straße", "a1", "go", "日本", "file.read", "readfile", "x"}
	text := func(t *rapid.T, label string) string {
		return rapid.StringOf(rapid.SampledFrom([]rune("abcé. -_Xw日"))).Draw(t, label+"-noise") + " " +
			rapid.SampledFrom(words).Draw(t, label+"-a") + rapid.SampledFrom([]string{" ", "-", "", "."}).Draw(t, label+"-sep") +
			rapid.SampledFrom(words).Draw(t, label+"-b")
	}
	rapid.Check(t, func(t *rapid.T) {
		v := search.NewVocab()
		var items []search.Item
		var preps, alone []search.Prepared
		for range rapid.IntRange(1, 6).Draw(t, "items") {
			it := search.Item{Name: text(t, "name"), Description: text(t, "desc")}
			items = append(items, it)
			preps = append(preps, v.Prepare(it))
			alone = append(alone, search.Prepare(it))
		}
		query := rapid.SampledFrom(words).Draw(t, "q") + rapid.SampledFrom([]string{"", "e", "r"}).Draw(t, "typo") + " " + rapid.SampledFrom(words).Draw(t, "q2")
		q, qv := search.NewQuery(query), search.NewQuery(query)
		qv.UseVocab(v)
		for i, it := range items {
			s, r := q.Score(it)
			s1, r1 := q.ScorePrepared(&alone[i])
			s2, r2 := qv.ScorePrepared(&preps[i])
			require.Equal(t, []any{s, r}, []any{s1, r1}, "Prepare: %q vs %+v", query, it)
			require.Equal(t, []any{s, r}, []any{s2, r2}, "Vocab: %q vs %+v", query, it)
		}
	})
}
