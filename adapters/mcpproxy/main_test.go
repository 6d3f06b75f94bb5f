package mcpproxy_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// testServerDir holds the stdio test server, built on first use (fuzzing
// workers and tests without a child process never build it).
var (
	testServerDir   string
	testServerOnce  sync.Once
	testServerBin   string
	testServerBuild error
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpproxy-testserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpproxy tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	testServerDir = dir
	return m.Run()
}

// testServer returns the path of the stdio test server binary, building it
// the first time.
func testServer(t *testing.T) string {
	t.Helper()
	testServerOnce.Do(func() {
		bin := filepath.Join(testServerDir, "testserver")
		cmd := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "./internal/testserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			testServerBuild = fmt.Errorf("building the test server: %v\n%s", err, out)
			return
		}
		testServerBin = bin
	})
	if testServerBuild != nil {
		t.Fatal(testServerBuild)
	}
	return testServerBin
}
