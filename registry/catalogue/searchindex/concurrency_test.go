package searchindex_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
)

// TestConcurrentSearchWritesAndResync: searches, writes and resyncs run
// at once without data races (run with -race); afterwards the index
// answers as the scan.
func TestConcurrentSearchWritesAndResync(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	b := uuid.New()
	_, _, err := w.idx.PutBundle(ctx, b, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				key := catalogue.ToolKey{BundleID: b, Slug: fmt.Sprintf("weather-%d-%d", g, i), Version: "1"}
				_, err := w.idx.PutTool(ctx, key, catalogue.ToolSpec{DisplayName: "Weather " + vocab[i%len(vocab)], IsEnabled: true, Type: catalogue.TypeGo})
				assert.NoError(t, err)
				if i%3 == 0 {
					assert.NoError(t, w.idx.DeleteTool(ctx, key))
				}
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 100 {
			_, err := w.idx.Search(ctx, searchindex.Query{Text: "wether", Limit: 10})
			assert.NoError(t, err)
		}
	}()
	go func() {
		defer wg.Done()
		for range 5 {
			assert.NoError(t, w.idx.Resync(ctx))
		}
	}()
	wg.Wait()
	checkEqual(t, w.scan, w.idx, "weather", false, 13)
	checkEqual(t, w.scan, w.idx, "wether map", true, 13)
}
