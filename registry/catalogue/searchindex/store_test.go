package searchindex_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
)

func goTool(name string) catalogue.ToolSpec {
	return catalogue.ToolSpec{DisplayName: name, IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object"}`), GoImpl: &catalogue.GoImpl{Func: "noop"}}
}

func openFile(t *testing.T, dir string) *catalogue.FileStore {
	t.Helper()
	fs, err := catalogue.OpenFileStore(context.Background(), dir, catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	require.NoError(t, err)
	return fs
}

func slugs(t *testing.T, s searchindex.Searcher, q string) []string {
	t.Helper()
	p, err := s.Search(context.Background(), searchindex.Query{Text: q, Limit: 100})
	require.NoError(t, err)
	out := []string{}
	for _, tl := range p.Tools {
		out = append(out, tl.Slug)
	}
	return out
}

// TestWrapBuildsFromFileStoreAndResyncSeesOtherProcesses: Wrap indexes
// what the data directory already holds; writes by another store on the
// same directory appear after Resync, and a tool deleted there is left
// out of pages even before.
func TestWrapBuildsFromFileStoreAndResyncSeesOtherProcesses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first := openFile(t, dir)
	b := uuid.Must(uuid.NewV7())
	_, _, err := first.PutBundle(ctx, b, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true})
	require.NoError(t, err)
	_, err = first.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: "radar", Version: "1"}, goTool("Radar"))
	require.NoError(t, err)

	st, err := searchindex.Wrap(ctx, openFile(t, dir), searchindex.Options{})
	require.NoError(t, err)
	defer st.Close()
	assert.Equal(t, []string{"radar"}, slugs(t, st, "radar"), "built from the store at start")

	_, err = first.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: "radar-map", Version: "1"}, goTool("Radar map"))
	require.NoError(t, err)
	require.NoError(t, first.DeleteTool(ctx, catalogue.ToolKey{BundleID: b, Slug: "radar", Version: "1"}))
	assert.Empty(t, slugs(t, st, "radar"), "a tool deleted elsewhere is not served; the new one awaits Resync")
	require.NoError(t, st.Resync(ctx))
	assert.Equal(t, []string{"radar-map"}, slugs(t, st, "radar"))
	require.NoError(t, first.Close())
}

// TestBackgroundResyncAndClose: Options.ResyncInterval picks up other
// processes' writes by itself; Close stops it and closes the store.
func TestBackgroundResyncAndClose(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	other := openFile(t, dir)
	defer other.Close()
	st, err := searchindex.Wrap(ctx, openFile(t, dir), searchindex.Options{ResyncInterval: 5 * time.Millisecond})
	require.NoError(t, err)
	b := uuid.Must(uuid.NewV7())
	_, _, err = other.PutBundle(ctx, b, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true})
	require.NoError(t, err)
	_, err = other.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: "sonar", Version: "1"}, goTool("Sonar"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return st.Len() == 1 }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, st.Close())
	_, err = st.GetBundle(ctx, b)
	assert.ErrorIs(t, err, catalogue.ErrClosed, "Close closes the wrapped store")
}

// TestSearchReturnsCurrentToolData: usage recorded after indexing shows
// in results (tools are read back from the store).
func TestSearchReturnsCurrentToolData(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	b := uuid.New()
	_, _, err := w.idx.PutBundle(ctx, b, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true})
	require.NoError(t, err)
	key := catalogue.ToolKey{BundleID: b, Slug: "echo", Version: "1"}
	_, err = w.idx.PutTool(ctx, key, goTool("Echo"))
	require.NoError(t, err)
	require.NoError(t, w.idx.RecordUsage(ctx, key, w.clock.t))
	require.NoError(t, w.idx.RecordUsage(ctx, key, w.clock.t))
	p, err := w.idx.Search(ctx, searchindex.Query{Text: "echo", Limit: 1})
	require.NoError(t, err)
	require.Len(t, p.Tools, 1)
	assert.Equal(t, int64(2), p.Tools[0].CallCount)
}

// TestWrapAndQueryErrors: bad options and bad queries give errors naming
// the field; never a panic.
func TestWrapAndQueryErrors(t *testing.T) {
	_, err := searchindex.Wrap(context.Background(), nil, searchindex.Options{})
	assert.ErrorContains(t, err, "store")
	_, err = searchindex.Wrap(context.Background(), newMemStore(time.Now), searchindex.Options{ResyncInterval: -1})
	assert.ErrorContains(t, err, "ResyncInterval")
	w := newWorld(t)
	for _, q := range []searchindex.Query{{Text: "", Limit: 1}, {Text: " \t", Limit: 1}, {Text: "\xff", Limit: 1},
		{Text: "x", Limit: 0}, {Text: "x", Limit: searchindex.MaxLimit + 1}} {
		for _, s := range []searchindex.Searcher{w.idx, w.scan} {
			_, err := s.Search(context.Background(), q)
			require.Error(t, err, "%+v", q)
			assert.True(t, errors.Is(err, searchindex.ErrInvalidQuery))
			assert.Regexp(t, `Text|Limit`, err.Error())
		}
	}
}

// TestWrapFailsWhenStoreFails: a store that cannot list gives Wrap's
// error, wrapped.
func TestWrapFailsWhenStoreFails(t *testing.T) {
	fs := openFile(t, t.TempDir())
	require.NoError(t, fs.Close())
	_, err := searchindex.Wrap(context.Background(), fs, searchindex.Options{})
	assert.ErrorIs(t, err, catalogue.ErrClosed)
}

// An imported bundle's tools are found at once.
func TestImportedBundleIsIndexed(t *testing.T) {
	ctx := context.Background()
	s, err := searchindex.Wrap(ctx, openFile(t, t.TempDir()), searchindex.Options{})
	require.NoError(t, err)
	defer s.Close()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	tid, err := catalogue.NewID()
	require.NoError(t, err)
	now := time.Now().UTC().Truncate(time.Microsecond)
	require.NoError(t, s.ImportBundle(ctx,
		catalogue.Bundle{ID: id, BundleSpec: catalogue.BundleSpec{Slug: "imp", DisplayName: "Imp", IsEnabled: true}, CreatedAt: now, ModifiedAt: now},
		[]catalogue.Tool{{ID: tid, BundleID: id, Slug: "forecast", Version: "1", ToolSpec: goTool("Forecast"), CreatedAt: now, ModifiedAt: now}}))
	assert.Equal(t, []string{"forecast"}, slugs(t, s, "forecast"))
}

// TestWrapStopsWhenContextEnds: building the index of a large catalogue
// (its text prepared on several goroutines) stops at the context's end
// with its error, and Resync then keeps the index it had.
func TestWrapStopsWhenContextEnds(t *testing.T) {
	f := newFixture(t, 5000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := searchindex.Wrap(ctx, f.store, searchindex.Options{})
	require.ErrorIs(t, err, context.Canceled)

	st, err := searchindex.Wrap(context.Background(), f.store, searchindex.Options{})
	require.NoError(t, err)
	q := searchindex.Query{Text: f.queries[0], Limit: 50}
	before, err := st.Search(context.Background(), q)
	require.NoError(t, err)
	require.NotEmpty(t, before.Tools)
	require.ErrorIs(t, st.Resync(ctx), context.Canceled)
	after, err := st.Search(context.Background(), q)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}
