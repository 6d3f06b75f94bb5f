// Package pgtest gives the PostgreSQL stores' tests their database: the
// DSN from the environment (.ci/run starts PostgreSQL 15 and sets it; the
// tests skip without it) and a fresh schema per test, dropped when the
// test ends.
package pgtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the environment variable holding the test database's DSN.
const EnvDSN = "TOOLPACK_TEST_PG_DSN"

// DSN returns the test database's DSN, or skips t saying why.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL to test against (.ci/run starts one)", EnvDSN)
	}
	return dsn
}

// FreshSchema is a new, empty schema name, dropped with everything in it
// when t ends.
func FreshSchema(t testing.TB, dsn string) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	t.Cleanup(func() { DropSchema(dsn, schema) })
	return schema
}

// DropSchema removes schema and everything in it, ignoring failures.
func DropSchema(dsn, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}

// StartWriter runs this test binary again as a writer process: only the
// test named test, with env added to its environment, and waits until the
// writer prints a line holding ready (the point the test kills it from).
// The caller kills the process and Waits for it.
func StartWriter(t testing.TB, test, env, ready string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if strings.Contains(lines.Text(), ready) {
			return cmd
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	t.Fatalf("the writer %s ended without printing %q", test, ready)
	return nil
}
