package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With catalogue.dsn the catalogue lives in PostgreSQL: a tool PUT
// through one server process is served by a second process started on
// the same database, called there over REST; a later PUT reaches the
// running second process within moments, and so does a built-in bundle's
// switch, though the two share no directory; page tokens one server gave
// out are accepted by the other; the DSN never reaches a log. Skipped without TOOLPACK_TEST_PG_DSN (.ci/run sets it).
func TestRun_CatalogueOnPostgreSQLSharedByTwoServers(t *testing.T) {
	dsn := os.Getenv("TOOLPACK_TEST_PG_DSN")
	if dsn == "" {
		t.Skip("TOOLPACK_TEST_PG_DSN is not set: no PostgreSQL to test against (.ci/run starts one)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "e2e_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err == nil {
			_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
			_ = conn.Close(context.Background())
		}
	})
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("catalogue: {dir: cat, dsn: \"${CAT_DSN}\", schema: "+schema+", max_conns: 4}\n"), 0o600))
	env := append(serverEnv(startBackend(t)), "CAT_DSN="+dsn)

	a := startHTTP(t, ctx, env, "-config", cfgPath)
	waitLog(t, ctx, a, "catalogue ready", 1)
	bid := putMathBundle(t, ctx, a.base)
	putSumTool(t, ctx, a.base, bid, "1")
	code, _ := doJSON(t, ctx, http.MethodPut, a.base+"/tools/bundles/"+bid.String()+"/tools/sum/version/1", `{"displayName":"Sum","description":"again",
		"isEnabled":true,"type":"go","argSchema":{"type":"object","properties":{}},"goImpl":{"func":"add"}}`)
	assert.Equal(t, http.StatusConflict, code, "<slug, version> is unique in the database")

	code, health := doJSON(t, ctx, http.MethodGet, a.base+"/healthz", "")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, map[string]any{"status": "ok", "databases": map[string]any{"catalogue": "reachable"}}, health["postgresql"],
		"/healthz checks the catalogue's database")

	putSumTool(t, ctx, a.base, bid, "2")
	toks := pageTokens(t, ctx, a.base)

	// The second server is another host: its catalogue.dir is its own.
	cfg2 := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg2, []byte("catalogue: {dir: cat, dsn: \"${CAT_DSN}\", schema: "+schema+", max_conns: 4}\n"), 0o600))
	second := startHTTP(t, ctx, env, "-config", cfg2)
	waitLog(t, ctx, second, "catalogue ready", 1)
	code, out := restInvoke(t, ctx, second.base, "math.sum.1", `{"a":40,"b":2}`)
	require.Equal(t, http.StatusOK, code, "the second server serves the tool the first stored: %v", out)
	assert.Equal(t, float64(42), out["value"])
	// Page tokens are signed with the key the database keeps: the first
	// server's tokens, given out before the second started, are accepted
	// there (another host, or a restart).
	acceptsPageTokens(t, ctx, second.base, toks, "another server on the database")

	// A change made through the first server now reaches the running
	// second one within a second or so (LISTEN/NOTIFY), its registry
	// included.
	putSumTool(t, ctx, a.base, bid, "3")
	waitServed(t, ctx, second, "math.sum.3", http.StatusOK)

	// A built-in bundle switched off through the first server is off on
	// the second, though they share no directory: the built-ins' switches
	// live in the database too.
	code, _ = doJSON(t, ctx, http.MethodPatch, a.base+"/tools/bundles/"+builtInBundleID.String(), `{"isEnabled":false}`)
	require.Equal(t, http.StatusOK, code)
	waitServed(t, ctx, second, "examples.add.1", http.StatusServiceUnavailable) // disabled, not unknown
	code, _ = doJSON(t, ctx, http.MethodPatch, second.base+"/tools/bundles/"+builtInBundleID.String(), `{"isEnabled":true}`)
	require.Equal(t, http.StatusOK, code)
	waitServed(t, ctx, a, "examples.add.1", http.StatusOK)

	// The catalogue's cross-process race, through the two servers: both
	// PUT the same <slug, version> at once, round after round; exactly
	// one wins each round (201, the other 409) and the stored tool is the
	// winner's.
	for round := range 25 {
		url := "/tools/bundles/" + bid.String() + "/tools/race/version/" + strconv.Itoa(round)
		codes := make(chan [2]int, 2)
		for i, srv := range []*httpServer{a, second} {
			go func() {
				code, _ := doJSON(t, ctx, http.MethodPut, srv.base+url, `{"displayName":"by `+strconv.Itoa(i)+`","description":"race",
					"isEnabled":true,"type":"go","argSchema":{"type":"object","properties":{}},"goImpl":{"func":"add"}}`)
				codes <- [2]int{i, code}
			}()
		}
		r1, r2 := <-codes, <-codes
		winner := -1
		for _, r := range [][2]int{r1, r2} {
			switch r[1] {
			case http.StatusCreated:
				require.Equal(t, -1, winner, "round %d: two winners", round)
				winner = r[0]
			case http.StatusConflict:
			default:
				t.Fatalf("round %d: server %d answered %d", round, r[0], r[1])
			}
		}
		require.NotEqual(t, -1, winner, "round %d: no winner", round)
		_, got := doJSON(t, ctx, http.MethodGet, a.base+url, "")
		assert.Equal(t, "by "+strconv.Itoa(winner), got["displayName"], "round %d: the stored tool is the winner's", round)
	}

	for _, s := range []*httpServer{a, second} {
		assert.NotContains(t, s.stderr.String(), dsn)
	}
}
