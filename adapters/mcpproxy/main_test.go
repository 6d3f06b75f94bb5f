package mcpproxy_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// testServerBin is the stdio test server built once by TestMain.
var testServerBin string

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
	testServerBin = filepath.Join(dir, "testserver")
	cmd := exec.Command("go", "build", "-buildvcs=false", "-o", testServerBin, "./internal/testserver")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpproxy tests: building the test server:", err)
		return 1
	}
	return m.Run()
}

// testServer returns the path of the built test server binary.
func testServer(t *testing.T) string {
	t.Helper()
	if testServerBin == "" {
		t.Fatal("the test server was not built")
	}
	return testServerBin
}
