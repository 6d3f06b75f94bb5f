package catalogueapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

// quiet discards logs.
var quiet = slog.New(slog.DiscardHandler)

// pagedListings are the three listings that give page tokens, each with
// a page size small enough to leave a next page.
var pagedListings = []string{"/tools?recommendedPageSize=1", "/tools/search?q=tool&pageSize=1", "/bundles?pageSize=1"}

// handlerOn is an API handler on store signed with the key the store
// keeps.
func handlerOn(t *testing.T, store interface {
	catalogue.Store
	catalogue.PageTokenKeeper
}) *catalogueapi.Handler {
	t.Helper()
	key, err := store.PageTokenKey(context.Background())
	require.NoError(t, err)
	h, err := catalogueapi.New(catalogueapi.Options{Store: store, PageTokenKey: key, Logger: quiet})
	require.NoError(t, err)
	return h
}

// nextTokens returns the nextPageToken of each paged listing on h.
func nextTokens(t *testing.T, h http.Handler) []string {
	t.Helper()
	toks := make([]string, len(pagedListings))
	for i, l := range pagedListings {
		rec := serve(h, http.MethodGet, l, "")
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", l, rec.Body)
		var page struct{ NextPageToken string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
		require.NotEmpty(t, page.NextPageToken, "%s has a next page", l)
		toks[i] = page.NextPageToken
	}
	return toks
}

// acceptsTokens asserts that h pages on with each token.
func acceptsTokens(t *testing.T, h http.Handler, toks []string, who string) {
	t.Helper()
	for i, l := range pagedListings {
		rec := serve(h, http.MethodGet, l+"&pageToken="+toks[i], "")
		assert.Equal(t, http.StatusOK, rec.Code, "%s, %s: %s", who, l, rec.Body)
	}
}

// Handlers on file stores sharing one directory (two hosts, or one
// restarted) sign page tokens with the key the store keeps: a token one
// returned is accepted by the other and after a restart, on every paged
// listing; a handler left with its own random key refuses it.
func TestPageTokens_FileStoreKeySharedAndKept(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *catalogue.FileStore {
		s, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1, Logger: quiet})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	first, second := open(), open()
	for _, slug := range []string{"a", "b"} {
		id := newID(t)
		_, _, err := first.PutBundle(ctx, id, catalogue.BundleSpec{Slug: slug, DisplayName: slug, IsEnabled: true})
		require.NoError(t, err)
		for _, tool := range []string{"tool-x", "tool-y"} {
			var spec catalogue.ToolSpec
			require.NoError(t, json.Unmarshal([]byte(toolBody("Tool "+tool, "echo", true)), &spec))
			_, err := first.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: tool, Version: "1"}, spec)
			require.NoError(t, err)
		}
	}
	a, b := handlerOn(t, first), handlerOn(t, second)
	acceptsTokens(t, b, nextTokens(t, a), "the other host")
	toks := nextTokens(t, b)
	acceptsTokens(t, a, toks, "the other host")

	require.NoError(t, first.Close())
	require.NoError(t, second.Close())
	acceptsTokens(t, handlerOn(t, open()), toks, "a restarted host")

	own, err := catalogueapi.New(catalogueapi.Options{Store: open(), Logger: quiet})
	require.NoError(t, err)
	rec := serve(own, http.MethodGet, pagedListings[0]+"&pageToken="+toks[0], "")
	assert.Equal(t, http.StatusBadRequest, rec.Code, "a handler with a random key of its own refuses the token")
}
