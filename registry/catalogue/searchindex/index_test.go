package searchindex_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// TestIndexCompactsAfterManyDeletes: once most indexed tools are deleted
// the index rebuilds its postings; it still answers as the scan, for
// the tools that stayed and for tools put afterwards.
func TestIndexCompactsAfterManyDeletes(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	b := uuid.New()
	_, _, err := w.idx.PutBundle(ctx, b, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true})
	require.NoError(t, err)
	spec := func(i int) catalogue.ToolSpec {
		return catalogue.ToolSpec{DisplayName: fmt.Sprintf("Weather station %d", i), Description: "reads the weatherVane " + vocab[i%len(vocab)],
			IsEnabled: true, Type: catalogue.TypeGo}
	}
	for i := range 3000 {
		_, err := w.idx.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: fmt.Sprintf("tool-%d", i), Version: "1"}, spec(i))
		require.NoError(t, err)
	}
	for i := range 2900 {
		require.NoError(t, w.idx.DeleteTool(ctx, catalogue.ToolKey{BundleID: b, Slug: fmt.Sprintf("tool-%d", i), Version: "1"}))
	}
	for i := 3000; i < 3050; i++ {
		_, err := w.idx.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: fmt.Sprintf("tool-%d", i), Version: "1"}, spec(i))
		require.NoError(t, err)
	}
	require.Equal(t, 150, w.idx.Len())
	for _, q := range []string{"weather", "wether", "vane", "station 29", "tool-29", "weathervane", "map", "ecoh", "日本"} {
		checkEqual(t, w.scan, w.idx, q, false, 7)
	}
}
