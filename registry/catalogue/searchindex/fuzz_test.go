package searchindex_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
)

// FuzzSearchQuery: any query text gives the index exactly the full
// scan's results (the oracle), or the same ErrInvalidQuery; never a
// panic. The catalogue mixes ASCII, camelCase, separators, non-ASCII and
// near-miss words.
func FuzzSearchQuery(f *testing.F) {
	for _, s := range []string{"weather", "wether", "get-wea", "webSearch", "file.read", "readfile", "résumé",
		"STRASSE straße", "日本", "a", "ma", "x y z", "  ", "", "\xff", "weathr forecst", "ecoh", "db-", "ǅemal"} {
		f.Add(s, false)
	}
	w := newWorld(f)
	ctx := context.Background()
	b, off := uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{b, off} {
		_, _, err := w.idx.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true})
		require.NoError(f, err)
	}
	for i, word := range vocab {
		w.clock.t = w.clock.t.Add(time.Duration(i%3) * time.Millisecond)
		spec := catalogue.ToolSpec{DisplayName: word + " " + vocab[(i+7)%len(vocab)], Description: "does " + vocab[(i+3)%len(vocab)] + " with " + vocab[(i+11)%len(vocab)],
			Tags: []string{vocab[(i+5)%len(vocab)]}, IsEnabled: i%5 != 0, Type: catalogue.TypeGo}
		bundle := b
		if i%4 == 0 {
			bundle = off
		}
		_, err := w.idx.PutTool(ctx, catalogue.ToolKey{BundleID: bundle, Slug: fmt.Sprintf("t%d-%s", i, "x"), Version: "1"}, spec)
		require.NoError(f, err)
	}
	_, err := w.idx.SetBundleEnabled(ctx, off, false)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, text string, includeDisabled bool) {
		q := searchindex.Query{Text: text, IncludeDisabled: includeDisabled, Limit: 5}
		_, scanErr := w.scan.Search(ctx, q)
		_, idxErr := w.idx.Search(ctx, q)
		if scanErr != nil || idxErr != nil {
			require.True(t, errors.Is(scanErr, searchindex.ErrInvalidQuery), "%v", scanErr)
			require.Equal(t, scanErr, idxErr)
			return
		}
		checkEqual(t, w.scan, w.idx, text, includeDisabled, 5)
	})
}
