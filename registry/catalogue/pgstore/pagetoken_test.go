package pgstore_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/registry/catalogue/pgstore"
	"github.com/toolpack-go/toolpack/registry/catalogue/storetest"
)

// The page token key is made once per catalogue, by whichever host asks
// first (hosts asking at once included), and is then the same for every
// host on the schema and after they restart; another schema (another
// catalogue) has its own. API handlers signed with it accept each other's
// page tokens on every paged listing, and after a restart.
func TestPageTokenKey_SharedByHostsAndKept(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx := context.Background()
	a, b := open(t, dsn, schema, nil), open(t, dsn, schema, nil)
	first := storetest.SharedPageTokenKey(t, a, b)

	bid, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = a.PutBundle(ctx, bid, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	bid2, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = a.PutBundle(ctx, bid2, catalogue.BundleSpec{Slug: "more", DisplayName: "More", IsEnabled: true})
	require.NoError(t, err)
	spec := catalogue.ToolSpec{DisplayName: "Tool", Description: "A tool.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}
	for _, slug := range []string{"tool-x", "tool-y"} {
		_, err := a.PutTool(ctx, catalogue.ToolKey{BundleID: bid, Slug: slug, Version: "1"}, spec)
		require.NoError(t, err)
	}
	listings := []string{"/tools?recommendedPageSize=1", "/tools/search?q=tool&pageSize=1", "/bundles?pageSize=1"}
	handler := func(s *pgstore.Store) *catalogueapi.Handler {
		key, err := s.PageTokenKey(ctx)
		require.NoError(t, err)
		h, err := catalogueapi.New(catalogueapi.Options{Store: s, PageTokenKey: key, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		return h
	}
	ha, hb := handler(a), handler(b)
	toks := make([]string, len(listings))
	for i, l := range listings {
		rec := serve(ha, http.MethodGet, l, "")
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", l, rec.Body)
		var page struct{ NextPageToken string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
		require.NotEmpty(t, page.NextPageToken, l)
		toks[i] = page.NextPageToken
		rec = serve(hb, http.MethodGet, l+"&pageToken="+toks[i], "")
		assert.Equal(t, http.StatusOK, rec.Code, "the other host, %s: %s", l, rec.Body)
	}

	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	again := open(t, dsn, schema, nil)
	defer again.Close()
	key, err := again.PageTokenKey(ctx)
	require.NoError(t, err)
	assert.Equal(t, first, key, "the key outlives a restart")
	hr := handler(again)
	for i, l := range listings {
		rec := serve(hr, http.MethodGet, l+"&pageToken="+toks[i], "")
		assert.Equal(t, http.StatusOK, rec.Code, "a restarted host, %s: %s", l, rec.Body)
	}

	other := open(t, dsn, pgtest.FreshSchema(t, dsn), nil)
	defer other.Close()
	otherKey, err := other.PageTokenKey(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, first, otherKey, "another catalogue, another key")
}
