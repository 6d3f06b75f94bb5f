package pgstore_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/registry/catalogue/pgstore"
)

// With the tools table locked elsewhere (LOCK TABLE … IN ACCESS EXCLUSIVE
// MODE held by another session), the store's reads and writes end at the
// statement timeout as catalogue.ErrUnavailable and catalogue.ErrTimeout —
// the database is there (Ping answers) but did not answer in time — and
// the API's GET, PUT and PATCH answer 503 with Retry-After saying the
// database is busy, not that it cannot be reached. Once the lock is gone
// they succeed.
func TestLockedTable_BusyNotUnreachable(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx := context.Background()
	s, err := pgstore.Open(ctx, dsn, pgstore.Options{Schema: schema, Logger: slog.New(slog.DiscardHandler),
		StatementTimeout: 300 * time.Millisecond, FlushInterval: -1, ReapInterval: -1, MaxConns: 4})
	require.NoError(t, err)
	defer s.Close()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = s.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	spec := catalogue.ToolSpec{DisplayName: "Echo", Description: "Echoes.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}
	key := catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "1"}
	_, err = s.PutTool(ctx, key, spec)
	require.NoError(t, err)
	api, err := catalogueapi.New(catalogueapi.Options{Store: s, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)

	holder, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer holder.Close(ctx)
	tx, err := holder.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck // released below, or at the test's end
	_, err = tx.Exec(ctx, `LOCK TABLE `+pgx.Identifier{schema, "catalogue_tools"}.Sanitize()+` IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)

	require.NoError(t, s.Ping(ctx), "the database answers: it is reachable")
	_, err = s.GetTool(ctx, key)
	assert.ErrorIs(t, err, catalogue.ErrUnavailable)
	assert.ErrorIs(t, err, catalogue.ErrTimeout)

	toolURL := "/bundles/" + id.String() + "/tools/echo/version/"
	body, _ := json.Marshal(spec)
	for _, c := range []struct{ method, path, body string }{
		{http.MethodGet, toolURL + "1", ""},
		{http.MethodGet, "/tools", ""},
		{http.MethodPut, toolURL + "2", string(body)},
		{http.MethodPatch, toolURL + "1", `{"isEnabled":false}`},
	} {
		rec := serve(api, c.method, c.path, c.body)
		assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "%s %s: %s", c.method, c.path, rec.Body)
		assert.Equal(t, "5", rec.Header().Get("Retry-After"), "%s %s", c.method, c.path)
		var eb catalogueapi.ErrorBody
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &eb))
		assert.Equal(t, "unavailable", eb.ErrorType)
		assert.Equal(t, "the catalogue's database is busy: it did not answer in time; retry in a few seconds", eb.Error, "%s %s", c.method, c.path)
	}

	require.NoError(t, tx.Rollback(ctx))
	rec := serve(api, http.MethodGet, toolURL+"1", "")
	assert.Equal(t, http.StatusOK, rec.Code, "%s", rec.Body)
}

// serve sends one request to the API handler.
func serve(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
