package othost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/result"
)

// With stats.dsn two hosts record into one PostgreSQL table: ot.stats on
// either counts the calls of both. A reload back to files keeps working
// and the DSN never appears in a refusal.
func TestSetup_StatsOnPostgresSharedByHosts(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	t.Setenv("STATS_DSN", dsn)
	config := "stats: {enabled: true, dsn: \"${STATS_DSN}\", schema: " + schema + ", max_conns: 2}\n"
	a, b := newFixture(t, config), newFixture(t, config)
	for range 3 {
		_, ok, _ := a.call(t, "add", `{"a":1,"b":2}`)
		require.True(t, ok)
	}
	for range 2 {
		_, ok, _ := b.call(t, "add", `{"a":1,"b":2}`)
		require.True(t, ok)
	}
	require.NoError(t, a.w.Recorder().Flush(t.Context()))
	v, ok, msg := b.call(t, "ot.stats", `{"tool":"add"}`)
	require.True(t, ok, msg)
	assert.Equal(t, 5, yamlOf(t, v)["total_calls"], "b's ot.stats counts a's calls too")

	// Back to files: the next calls go to stats.dir.
	writeConfig(t, a.dir, "stats: {enabled: true, dir: st}\n")
	require.NoError(t, a.host.Reload(t.Context()))
	_, ok, _ = a.call(t, "add", `{"a":1,"b":2}`)
	require.True(t, ok)
	v, ok, msg = a.call(t, "ot.stats", `{"tool":"add"}`)
	require.True(t, ok, msg)
	assert.Equal(t, 1, yamlOf(t, v)["total_calls"], "the files hold only the call made after the reload")

	// A database that cannot be reached refuses the configuration, names
	// the key and keeps the DSN's password out of the error.
	t.Setenv("STATS_DSN", "postgres://stats:hunter2-secret@127.0.0.1:1/none?connect_timeout=2")
	writeConfig(t, a.dir, "stats: {enabled: true, dsn: \"${STATS_DSN}\"}\n")
	err := a.host.Reload(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stats.dsn")
	assert.NotContains(t, err.Error(), "hunter2-secret")
	v, ok, msg = a.call(t, "ot.stats", `{"tool":"add"}`)
	require.True(t, ok, msg)
	assert.Equal(t, 1, yamlOf(t, v)["total_calls"], "the previous configuration stays in force")
}

// With output.dsn a large output stored through one host is paged
// through another: both keep their stored outputs in one database.
func TestSetup_OutputOnPostgresSharedByHosts(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	t.Setenv("OUTPUT_DSN", dsn)
	config := "output: {max_inline_bytes: 1000, dsn: \"${OUTPUT_DSN}\", schema: " + schema + "}\n"
	a, b := newFixture(t, config), newFixture(t, config)
	v, ok, _ := a.call(t, "lines", `{"count":50000}`)
	require.True(t, ok)
	st, isStored := v.(results.Stored)
	require.True(t, isStored, "got %T", v)
	entries, err := os.ReadDir(a.dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotEqual(t, "results", e.Name(), "nothing is written to output.dir")
	}
	v, ok, msg := b.call(t, "ot.result", `{"handle":"`+st.Handle+`","offset":49999,"limit":5}`)
	require.True(t, ok, msg)
	page := yamlOf(t, v)
	assert.Equal(t, []any{"line 49999", "line 50000"}, page["lines"])
	assert.Equal(t, 50000, page["total_lines"])

	// A database that cannot be reached refuses the configuration by key,
	// without the password; the previous store goes on serving.
	t.Setenv("OUTPUT_DSN", "postgres://out:hunter2-secret@127.0.0.1:1/none?connect_timeout=2")
	writeConfig(t, b.dir, "output: {max_inline_bytes: 1000, dsn: \"${OUTPUT_DSN}\"}\n")
	err = b.host.Reload(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "output.dsn")
	assert.NotContains(t, err.Error(), "hunter2-secret")
	_, ok, msg = b.call(t, "ot.result", `{"handle":"`+st.Handle+`","offset":1,"limit":1}`)
	require.True(t, ok, msg)
}

// The database going away under a host: ot.health shows it (postgresql:
// degraded), calls go on (a large output is returned inline rather than
// lost), ot.stats and ot.result answer
// "unavailable, try again in a moment" — not an internal error, not "not
// found" — and once it is back both answer again, the calls made
// meanwhile counted.
func TestSetup_DatabaseAwayIsUnavailable(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	outage, via := pgtest.NewOutage(t, dsn)
	t.Setenv("PG_DSN", via)
	f := newFixture(t, "stats: {enabled: true, dsn: \"${PG_DSN}\", schema: "+schema+", flush_interval: 1h}\n"+
		"output: {max_inline_bytes: 1000, dsn: \"${PG_DSN}\", schema: "+schema+"}\n")
	v, ok, _ := f.call(t, "lines", `{"count":5000}`)
	require.True(t, ok)
	st, isStored := v.(results.Stored)
	require.True(t, isStored, "got %T", v)
	health := func() any {
		t.Helper()
		v, ok, msg := f.call(t, "ot.health", `{}`)
		require.True(t, ok, msg)
		return yamlOf(t, v)["postgresql"]
	}
	assert.Equal(t, map[string]any{"status": "ok", "databases": map[string]any{"stats": "reachable", "output": "reachable"}}, health())

	outage.Down()
	assert.Equal(t, map[string]any{"status": "degraded", "databases": map[string]any{"stats": "unreachable", "output": "unreachable"}}, health(),
		"ot.health says the databases cannot be reached")
	_, ok, _ = f.call(t, "add", `{"a":1,"b":2}`)
	require.True(t, ok, "a call does not need the database")
	v, ok, _ = f.call(t, "lines", `{"count":200}`)
	require.True(t, ok)
	assert.IsType(t, "", v, "an output that cannot be stored is returned as it is")
	for _, c := range []struct{ tool, args, want string }{
		{"ot.result", `{"handle":"` + st.Handle + `","offset":10,"limit":1}`, "the output store cannot be reached right now"},
		{"ot.stats", `{}`, "the statistics store did not answer"},
	} {
		res, err := f.reg.Invoke(t.Context(), c.tool, json.RawMessage(c.args))
		require.NoError(t, err, c.tool)
		assert.False(t, res.Success, c.tool)
		assert.Equal(t, result.Unavailable, res.ErrorType, c.tool)
		assert.Contains(t, res.Error, c.want, c.tool)
	}

	outage.Up()
	assert.Equal(t, "ok", health().(map[string]any)["status"], "the databases are back")
	v, ok, msg := f.call(t, "ot.result", `{"handle":"`+st.Handle+`","offset":10,"limit":1}`)
	require.True(t, ok, msg)
	assert.Equal(t, []any{"line 10"}, yamlOf(t, v)["lines"])
	v, ok, msg = f.call(t, "ot.stats", `{"tool":"add"}`)
	require.True(t, ok, msg)
	assert.Equal(t, 1, yamlOf(t, v)["total_calls"], "the call made while the database was away is counted")
}

// Reloads that change only output settings a store on PostgreSQL does not
// connect with (max_inline_bytes, ttl, dir) reuse its connection pool: 20
// of them leave the database with no more connections of the store than
// its max_conns, where each used to open a pool of its own and keep it a
// minute. Outputs stored before the reloads still page, and a change of
// max_conns opens a new pool.
func TestSetup_OutputReloadsKeepThePostgresPool(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	t.Setenv("OUTPUT_DSN", dsn)
	config := func(inline, conns int) string {
		return fmt.Sprintf("output: {max_inline_bytes: %d, dir: d%d, dsn: \"${OUTPUT_DSN}\", schema: %s, max_conns: %d}\n", inline, inline, schema, conns)
	}
	a := newFixture(t, config(1000, 2))
	v, ok, _ := a.call(t, "lines", `{"count":3000}`)
	require.True(t, ok)
	first, isStored := v.(results.Stored)
	require.True(t, isStored, "got %T", v)
	db, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	conns := func() int {
		var n int
		require.NoError(t, db.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, "pgresults:"+schema).Scan(&n))
		return n
	}
	for i := range 20 {
		writeConfig(t, a.dir, config(1000+i%2*1000, 2))
		require.NoError(t, a.host.Reload(t.Context()))
		v, ok, msg := a.call(t, "lines", `{"count":3000}`)
		require.True(t, ok, msg)
		_, isStored := v.(results.Stored)
		require.True(t, isStored, "got %T", v)
	}
	assert.LessOrEqual(t, conns(), 2, "one pool of max_conns 2, not one per reload")
	v, ok, msg := a.call(t, "ot.result", `{"handle":"`+first.Handle+`","offset":2999,"limit":5}`)
	require.True(t, ok, msg)
	assert.Equal(t, []any{"line 2999", "line 3000"}, yamlOf(t, v)["lines"])

	// max_conns is a connection setting: a new pool.
	writeConfig(t, a.dir, config(1000, 3))
	require.NoError(t, a.host.Reload(t.Context()))
	v, ok, msg = a.call(t, "ot.result", `{"handle":"`+first.Handle+`","offset":1,"limit":1}`)
	require.True(t, ok, msg)
	assert.Equal(t, []any{"line 1"}, yamlOf(t, v)["lines"])
}
