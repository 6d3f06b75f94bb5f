package catalogueapi_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
)

// forEachSearcher runs a search scenario against the full scan (no
// Options.Searcher) and against the in-memory index.
func forEachSearcher(t *testing.T, run func(t *testing.T, newEnv func(*testing.T, catalogueapi.Options) *env)) {
	t.Run("scan", func(t *testing.T) { run(t, newEnv) })
	t.Run("index", func(t *testing.T) { run(t, newIndexedEnv) })
}

// newIndexedEnv is newEnv with the file store wrapped by a search index
// that serves GET /tools/search.
func newIndexedEnv(t *testing.T, opts catalogueapi.Options) *env {
	t.Helper()
	dir := t.TempDir()
	fs, err := catalogue.OpenFileStore(context.Background(), dir, catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	require.NoError(t, err)
	st, err := searchindex.Wrap(context.Background(), fs, searchindex.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	opts.Store, opts.Searcher = st, st
	inv := &testInvoker{}
	logs := &syncBuffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	if opts.Invoker == nil {
		opts.Invoker = inv
	}
	h, err := catalogueapi.New(opts)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/tools/", http.StripPrefix("/tools", h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &env{t: t, url: srv.URL + "/tools", dir: dir, store: fs, h: h, inv: inv, logs: logs}
}

// recordingSearcher answers with a fixed page and records the queries.
type recordingSearcher struct {
	queries []searchindex.Query
	page    searchindex.Page
	err     error
}

func (r *recordingSearcher) Search(_ context.Context, q searchindex.Query) (searchindex.Page, error) {
	r.queries = append(r.queries, q)
	return r.page, r.err
}

// TestSearchUsesOptionsSearcher: with Options.Searcher set, the handler
// asks it (not the store), passes q, includeDisabled and pageSize, and
// turns its Next cursor into a signed token that comes back as After.
func TestSearchUsesOptionsSearcher(t *testing.T) {
	next := &searchindex.Cursor{Score: 90, Time: 12345, Key: catalogue.ToolKey{BundleID: uuid.New(), Slug: "wéather", Version: "1.0"}}
	rs := &recordingSearcher{page: searchindex.Page{Tools: []catalogue.Tool{{Slug: "from-searcher", Version: "1"}}, Next: next}}
	e := newEnv(t, catalogueapi.Options{Searcher: rs})
	r := e.do("GET", "/tools/search?q=weather+now&includeDisabled=true&pageSize=7", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.Equal(t, "from-searcher", r.body["tools"].([]any)[0].(map[string]any)["slug"])
	require.Len(t, rs.queries, 1)
	assert.Equal(t, searchindex.Query{Text: "weather now", IncludeDisabled: true, Limit: 7}, rs.queries[0])
	tok := r.body["nextPageToken"].(string)

	rs.page = searchindex.Page{}
	r = e.do("GET", "/tools/search?q=weather+now&includeDisabled=true&pageSize=3&pageToken="+tok, "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.Equal(t, []any{}, r.body["tools"], "an empty page is an empty list, not null")
	assert.Nil(t, r.body["nextPageToken"])
	require.Len(t, rs.queries, 2)
	assert.Equal(t, next, rs.queries[1].After, "the token carries the searcher's cursor back")

	// The token is bound to the query's filters, whatever the searcher.
	r = e.do("GET", "/tools/search?q=weather&includeDisabled=true&pageToken="+tok, "")
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, []string{"pageToken"}, r.fields())
	assert.Len(t, rs.queries, 2, "a refused token never reaches the searcher")
}

// TestSearchSearcherErrors: a searcher's store failures map like the
// store's own (closed store → 503), its invalid-query error to 400.
func TestSearchSearcherErrors(t *testing.T) {
	rs := &recordingSearcher{err: catalogue.ErrClosed}
	e := newEnv(t, catalogueapi.Options{Searcher: rs})
	assert.Equal(t, http.StatusServiceUnavailable, e.do("GET", "/tools/search?q=x", "").status)
	rs.err = searchindex.ErrInvalidQuery
	r := e.do("GET", "/tools/search?q=x", "")
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, []string{"q"}, r.fields())

	// A database that cannot be reached: 503 with Retry-After, not 500.
	rs.err = fmt.Errorf("pgstore: searching: %w: %w", catalogue.ErrUnavailable, errors.New("dial tcp 127.0.0.1:5432: connect: connection refused"))
	r = e.do("GET", "/tools/search?q=x", "")
	assert.Equal(t, http.StatusServiceUnavailable, r.status)
	assert.Equal(t, "unavailable", r.errType())
	assert.Equal(t, "5", r.header.Get("Retry-After"))
	assert.Contains(t, r.body["error"], "cannot be reached")
	assert.NotContains(t, string(r.raw), "5432", "the cause is logged, not sent")
}

// TestSearchIndexFollowsAPIWrites: writes through the API reach the index
// at once (new tool, tool disabled, bundle disabled, bundle deleted).
func TestSearchIndexFollowsAPIWrites(t *testing.T) {
	e := newIndexedEnv(t, catalogueapi.Options{})
	a := e.bundle("a")
	assert.Empty(t, searchSlugs(t, e, "q=radar"))
	e.tool(a, "radar", "1", toolBody("Radar", "echo", true))
	e.tool(a, "radar-map", "1", toolBody("Radar map", "echo", true))
	assert.Equal(t, []string{"radar", "radar-map"}, searchSlugs(t, e, "q=radar"))
	require.Equal(t, http.StatusOK, e.do("PATCH", toolPath(a, "radar", "1"), `{"isEnabled":false}`).status)
	assert.Equal(t, []string{"radar-map"}, searchSlugs(t, e, "q=radar"))
	require.Equal(t, http.StatusOK, e.do("PATCH", "/bundles/"+a.String(), `{"isEnabled":false}`).status)
	assert.Empty(t, searchSlugs(t, e, "q=radar"))
	assert.Len(t, searchSlugs(t, e, "q=radar&includeDisabled=true"), 2)
	require.Equal(t, http.StatusOK, e.do("DELETE", "/bundles/"+a.String(), "").status)
	assert.Empty(t, searchSlugs(t, e, "q=radar&includeDisabled=true"), "soft-deleted bundles are never searched")
}

// TestSearchIndexPagingWhileDataChanges: paging through the index while
// tools are added and deleted between pages returns every tool that
// stayed exactly once, in order.
func TestSearchIndexPagingWhileDataChanges(t *testing.T) {
	e := newIndexedEnv(t, catalogueapi.Options{})
	a := e.bundle("a")
	stay := []string{"tool-a", "tool-b", "tool-c", "tool-d", "tool-e", "tool-f"}
	for _, s := range stay {
		e.tool(a, s, "1", toolBody("Tool "+s, "echo", true))
	}
	n := 0
	got := e.listAll("/tools/search?q=tool", "tools", 2, func() {
		n++
		e.tool(a, "tool-new"+itoa(n), "1", toolBody("Tool new", "echo", true))
		require.Equal(t, http.StatusNoContent, e.do("DELETE", toolPath(a, "tool-new"+itoa(n), "1"), "").status)
		e.tool(a, "tool-late"+itoa(n), "1", toolBody("Tool late", "echo", true))
	})
	seen := map[string]int{}
	for _, g := range got {
		seen[g]++
	}
	for _, s := range stay {
		assert.Equal(t, 1, seen[s+"@1"], "%s in %v", s, got)
	}
	for g, c := range seen {
		assert.Equal(t, 1, c, "%s repeated", g)
	}
}
