package pgstore_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// earlierCatalogue makes in schema the catalogue an earlier version of
// the store left: the migrations up to and including upTo applied, as
// tern records them.
func earlierCatalogue(t *testing.T, dsn, schema string, upTo int) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	ident := pgx.Identifier{schema}.Sanitize()
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+ident+"; SET search_path = "+ident)
	require.NoError(t, err)
	entries, err := os.ReadDir("migrations")
	require.NoError(t, err)
	for _, e := range entries[:upTo] {
		sql, err := os.ReadFile("migrations/" + e.Name())
		require.NoError(t, err)
		create, _, _ := strings.Cut(string(sql), "---- create above / drop below ----")
		_, err = conn.Exec(ctx, create)
		require.NoError(t, err, e.Name())
	}
	_, err = conn.Exec(ctx, `CREATE TABLE catalogue_schema_version (version int4 NOT NULL)`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO catalogue_schema_version VALUES ($1)`, upTo)
	require.NoError(t, err)
	return conn
}

// A catalogue made before tool ids were unique per bundle and bundles had
// a slug_since (migrations 001 and 002) is migrated at Open: its records
// are kept, a bundle's slugSince reads as the time of its id (not its
// createdAt, which an import takes from its archive), and a copy of
// its bundle under a new id, with the same tool ids, imports.
func TestOpen_MigratesAnEarlierCatalogue(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	ctx := context.Background()
	conn := earlierCatalogue(t, dsn, schema, 2)
	bid, tid := uuid.Must(catalogue.NewID()), uuid.Must(catalogue.NewID())
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	_, err := conn.Exec(ctx, `INSERT INTO catalogue_bundles (id, slug, display_name, description, is_enabled, created_at, modified_at)
		VALUES ($1, 'web', 'Web', '', true, $2, $2)`, bid, at)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO catalogue_tools (bundle_id, slug, version, id, spec, is_enabled, created_at, modified_at)
		VALUES ($1, 'echo', '1', $2, $3, true, $4, $4)`, bid, tid,
		`{"displayName":"Echo","description":"","isEnabled":true,"type":"go","argSchema":{"type":"object"},"goImpl":{"func":"echo"}}`, at)
	require.NoError(t, err)

	s := open(t, dsn, schema, nil)
	defer s.Close()
	key := catalogue.ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
	tool, err := s.GetTool(ctx, key)
	require.NoError(t, err, "records of the earlier version are kept")
	assert.Equal(t, tid, tool.ID)
	b, err := s.GetBundle(ctx, bid)
	require.NoError(t, err)
	assert.True(t, b.SlugSince.Equal(catalogue.IDTime(bid)), "a bundle written before slug_since was kept has held its slug since its id was made")
	assert.False(t, b.SlugSince.Equal(at))

	cp := b
	cp.ID = uuid.Must(catalogue.NewID())
	tool.BundleID = cp.ID
	require.NoError(t, s.ImportBundle(ctx, cp, []catalogue.Tool{tool}), "a copy keeps its tools' ids")
	got, err := s.GetTool(ctx, catalogue.ToolKey{BundleID: cp.ID, Slug: "echo", Version: "1"})
	require.NoError(t, err)
	assert.Equal(t, tid, got.ID)
}
