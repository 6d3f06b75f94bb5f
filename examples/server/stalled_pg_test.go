package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
)

// A database that keeps its connections open but stops answering (a
// frozen server, a hung proxy) fails ot.stats, ot.result and the
// catalogue API after the statement timeout and a margin, as
// unavailable, instead of holding the requests; and a server asked to
// stop then exits within its grace and the stores' close grace, not after
// every close has waited for the silent database. Skipped without
// TOOLPACK_TEST_PG_DSN (.ci/run sets it).
func TestRun_StalledDatabaseFailsCallsAndShutdownIsBounded(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	out, via := pgtest.NewOutage(t, dsn)
	schema := pgtest.FreshSchema(t, dsn)
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	db := `{dsn: "${DB}", schema: ` + schema + `, statement_timeout: 300ms}`
	outDB := `{dsn: "${DB}", schema: ` + schema + `, statement_timeout: 300ms, max_inline_bytes: 1000}`
	require.NoError(t, os.WriteFile(cfgPath, []byte("catalogue: "+db+"\noutput: "+outDB+"\nstats: {enabled: true, dsn: \"${DB}\", schema: "+schema+
		", statement_timeout: 300ms, flush_interval: 200ms}\n"), 0o600))
	s := startHTTP(t, ctx, append(serverEnv(startBackend(t)), "DB="+via+"&connect_timeout=2"), "-config", cfgPath)
	waitLog(t, ctx, s, "catalogue ready", 1)
	code, stored := restInvoke(t, ctx, s.base, "lines", `{"count":500}`)
	require.Equal(t, http.StatusOK, code)
	value, _ := stored["value"].(map[string]any)
	handle, _ := value["handle"].(string)
	require.NotEmpty(t, handle, "a large output is stored: %v", stored)

	out.Silence()
	type answer struct {
		what string
		code int
		body map[string]any
		took time.Duration
	}
	answers := make(chan answer, 3)
	ask := func(what string, do func() (int, map[string]any)) {
		go func() {
			t0 := time.Now()
			code, body := do()
			answers <- answer{what, code, body, time.Since(t0)}
		}()
	}
	ask("ot.stats", func() (int, map[string]any) { return restInvoke(t, ctx, s.base, "ot.stats", `{}`) })
	ask("ot.result", func() (int, map[string]any) {
		return restInvoke(t, ctx, s.base, "ot.result", `{"handle":"`+handle+`","offset":400}`)
	})
	ask("catalogue list", func() (int, map[string]any) {
		return doJSON(t, ctx, http.MethodGet, s.base+"/tools/bundles?pageSize=10", "")
	})
	for range 3 {
		select {
		case a := <-answers:
			t.Logf("%s: %d after %v: %v", a.what, a.code, a.took.Round(time.Millisecond), a.body)
			assert.Contains(t, []int{http.StatusServiceUnavailable, http.StatusUnprocessableEntity}, a.code, "%s: a failure of the moment", a.what)
			assert.Less(t, a.took, 15*time.Second, a.what)
		case <-time.After(60 * time.Second):
			t.Fatal("a request to a server whose database stopped answering is still waiting after 60 s")
		}
	}

	t0 := time.Now()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.done:
		took := time.Since(t0)
		t.Logf("exited %v after SIGTERM", took.Round(time.Millisecond))
		assert.Less(t, took, shutdownGrace+closeGrace+5*time.Second, "shutdown bounded by its graces")
	case <-time.After(60 * time.Second):
		t.Fatal("the server is still running 60 s after SIGTERM")
	}
}
