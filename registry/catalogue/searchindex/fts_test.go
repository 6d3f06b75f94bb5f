package searchindex_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/search"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex/ftsindex"
)

// newFTSWorld is a world whose writes go through both indexes: the
// in-memory index wraps the FTS5 index, which wraps the memStore.
func newFTSWorld(t require.TestingT) (*world, *ftsindex.Store) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	mem := newMemStore(c.now)
	fts, err := ftsindex.Wrap(context.Background(), mem, ftsindex.Options{})
	require.NoError(t, err)
	idx, err := searchindex.Wrap(context.Background(), fts, searchindex.Options{})
	require.NoError(t, err)
	return &world{clock: c, mem: mem, idx: idx, scan: searchindex.NewScan(mem)}, fts
}

// literal reports whether every term of query occurs in the tool's slug,
// display name, description or tags, lower-cased as the ranking does.
func literal(query string, tool *catalogue.Tool) bool {
	text := strings.Map(unicode.ToLower, tool.Slug+"\n"+tool.DisplayName+"\n"+tool.Description+"\n"+strings.Join(tool.Tags, " "))
	for _, term := range search.NewQuery(query).Terms() {
		if !strings.Contains(text, term) {
			return false
		}
	}
	return true
}

// TestFTSEqualsScanOnLiteralMatches is the FTS5 index's contract: over
// random catalogues, writes and queries, it returns exactly the tools
// the scan (and so the in-memory index) returns that hold every term
// literally, in the same order, page by page; only typo-only matches are
// missing.
func TestFTSEqualsScanOnLiteralMatches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w, fts := newFTSWorld(t)
		for range rapid.IntRange(1, 3).Draw(t, "rounds") {
			for range rapid.IntRange(1, 30).Draw(t, "writes") {
				w.write(t)
			}
			for range 4 {
				var text string
				if rapid.Bool().Draw(t, "names") {
					text = drawNameQuery(t, w)
				} else {
					text = drawQuery(t)
				}
				q := searchindex.Query{Text: text, IncludeDisabled: rapid.Bool().Draw(t, "includeDisabled"), Limit: rapid.IntRange(1, 7).Draw(t, "limit")}
				var want []catalogue.Tool
				for _, tool := range all(t, w.scan, q) {
					if literal(text, &tool) {
						want = append(want, tool)
					}
				}
				got := all(t, fts, q)
				require.Equal(t, keysOf(want), keysOf(got), "query %q includeDisabled=%v", text, q.IncludeDisabled)
				require.Equal(t, want, got, "query %q: tool data", text)
			}
		}
		require.NoError(t, fts.Resync(context.Background()))
		text := drawQuery(t)
		q := searchindex.Query{Text: text, IncludeDisabled: true, Limit: 3}
		var want []catalogue.Tool
		for _, tool := range all(t, w.scan, q) {
			if literal(text, &tool) {
				want = append(want, tool)
			}
		}
		require.Equal(t, keysOf(want), keysOf(all(t, fts, q)), "after Resync, query %q", text)
	})
}

// TestFTSMissesTypoOnlyMatches: the documented difference — a tool
// matched only through a typo is found by the in-memory index, not by
// FTS5; the literal match is found by both, ranked alike.
func TestFTSMissesTypoOnlyMatches(t *testing.T) {
	w, fts := newFTSWorld(t)
	ctx := context.Background()
	b := catalogue.ToolKey{BundleID: uuid.New(), Slug: "weather-now", Version: "1"}
	_, _, err := w.idx.PutBundle(ctx, b.BundleID, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true})
	require.NoError(t, err)
	_, err = w.idx.PutTool(ctx, b, catalogue.ToolSpec{DisplayName: "Weather now", Description: "Current conditions.", IsEnabled: true, Type: catalogue.TypeGo})
	require.NoError(t, err)

	q := searchindex.Query{Text: "wether", Limit: 10}
	byIndex, err := w.idx.Search(ctx, q)
	require.NoError(t, err)
	require.Len(t, byIndex.Tools, 1, "the in-memory index matches the typo")
	byFTS, err := fts.Search(ctx, q)
	require.NoError(t, err)
	require.Empty(t, byFTS.Tools, "FTS5 retrieves literal substrings only")

	q.Text = "WEATH cond"
	byIndex, err = w.idx.Search(ctx, q)
	require.NoError(t, err)
	byFTS, err = fts.Search(ctx, q)
	require.NoError(t, err)
	require.Len(t, byFTS.Tools, 1)
	require.Equal(t, byIndex, byFTS)
}

// TestFTSInvalidQuery: bad queries are refused with the field named, as
// every Searcher does.
func TestFTSInvalidQuery(t *testing.T) {
	_, fts := newFTSWorld(t)
	_, err := fts.Search(context.Background(), searchindex.Query{Text: "  ", Limit: 0})
	require.ErrorIs(t, err, searchindex.ErrInvalidQuery)
	require.ErrorContains(t, err, "Text:")
	require.ErrorContains(t, err, "Limit:")
}
