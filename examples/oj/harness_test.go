package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
)

// ourBin is the examples/oj binary built by TestMain.
var ourBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ojexample")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ourBin = filepath.Join(dir, "oj")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	build := exec.Command(goBin, "build", "-o", ourBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building examples/oj:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// refBin returns the reference server named by OJ_REF_BIN, or skips.
func refBin(tb testing.TB) string {
	tb.Helper()
	p := os.Getenv("OJ_REF_BIN")
	if p == "" {
		tb.Skip("OJ_REF_BIN is not set: no reference server to compare with")
	}
	return p
}

// backend starts the fixture backend on 127.0.0.1.
func backend(tb testing.TB, token string) (*mockbackend.Backend, string) {
	tb.Helper()
	b := mockbackend.New(mockbackend.Options{Token: token})
	srv := httptest.NewServer(b)
	tb.Cleanup(srv.Close)
	return b, srv.URL
}

// connect starts bin as a stdio MCP server and returns a client session.
// extraEnv entries are added to the environment (RUST_LOG=off by default).
func connect(tb testing.TB, bin string, args []string, extraEnv ...string) *sdk.ClientSession {
	tb.Helper()
	s, _ := connectCmd(tb, bin, args, extraEnv...)
	return s
}

// connectCmd is connect that also returns the started server process.
func connectCmd(tb testing.TB, bin string, args []string, extraEnv ...string) (*sdk.ClientSession, *exec.Cmd) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "RUST_LOG=off"), extraEnv...)
	client := sdk.NewClient(&sdk.Implementation{Name: "oj-test", Version: "1"}, nil)
	// 2025-06-18: the reference (rmcp) answers only the initialize
	// handshake, not the newer server/discover probe.
	s, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		tb.Fatalf("connect to %s: %v", bin, err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s, cmd
}

// protocolVersion is the MCP version the test client asks for.
const protocolVersion = "2025-06-18"

// outcome is what a client sees of one call.
type outcome struct {
	Text     string
	IsError  bool
	Protocol string // JSON-RPC error text, when the call failed as a protocol error
}

func call(tb testing.TB, s *sdk.ClientSession, name string, args map[string]any) outcome {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return outcome{Protocol: err.Error()}
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return outcome{Text: b.String(), IsError: res.IsError}
}
