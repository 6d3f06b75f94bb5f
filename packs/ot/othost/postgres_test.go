package othost_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
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
