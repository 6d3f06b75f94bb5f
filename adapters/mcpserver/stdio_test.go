package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// stdioChildEnv makes the test binary act as a ServeStdio server.
const stdioChildEnv = "TPMCP_TEST_STDIO_CHILD"

// Exit codes of the ServeStdio child process.
const (
	childOK          = 0
	childServeFailed = 3
	childStdinLeftNB = 4 // stdin still non-blocking after the session
)

// stdinMode reports the mode of the child's stdin (its own open file) while
// it serves: "blocking" or "non-blocking".
func stdinMode(context.Context, NoArgs) (result.Result[string], error) {
	if stdinNonblocking() {
		return result.Ok("non-blocking"), nil
	}
	return result.Ok("blocking"), nil
}

// serveStdioChild is the child process's whole run: serve, then check that
// stdin's blocking mode was restored.
func serveStdioChild(t *testing.T) {
	mode := mustFunc(t, "stdin_mode", stdinMode, registry.ToolOptions{Doc: "Reports stdin's mode."})
	if err := mcpserver.ServeStdio(context.Background(), newTestRegistry(t, mode), mcpserver.Options{Logger: discardLogger()}); err != nil {
		os.Exit(childServeFailed)
	}
	if stdinNonblocking() {
		os.Exit(childStdinLeftNB)
	}
	os.Exit(childOK)
}

// TestServeStdio re-runs this test binary as a child process that serves
// the test registry with ServeStdio on its real stdin/stdout (pipes: on
// Linux the transport reads the stdin pipe directly, through a file of its
// own), and talks to it with the SDK's CommandTransport. Stdin's own open
// file stays in blocking mode throughout, and the child exits 0 only if it
// is blocking after the session.
func TestServeStdio(t *testing.T) {
	if os.Getenv(stdioChildEnv) == "1" {
		serveStdioChild(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeStdio$")
	cmd.Env = append(os.Environ(), stdioChildEnv+"=1")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Std", "times": 1}})
	require.NoError(t, err)
	assert.Equal(t, "# Hello\n\nHello, Std! ", text(t, res))
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "stdin_mode", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "blocking", text(t, res), "a stdin pipe is never switched: the transport reads a file of its own")
	require.NoError(t, cs.Close())
	assert.Equal(t, childOK, cmd.ProcessState.ExitCode(), "ServeStdio returned nil when stdin closed, and stdin is blocking")
}

// TestServeStdio_RegularFileStdin: a stdin that cannot be polled (here a
// regular file) is read by a goroutine; the session answers and ends at the
// file's end.
func TestServeStdio_RegularFileStdin(t *testing.T) {
	if os.Getenv(stdioChildEnv) == "1" {
		serveStdioChild(t)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}`+"\n"), 0o600))
	f, err := os.Open(in)
	require.NoError(t, err)
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestServeStdio_RegularFileStdin$")
	cmd.Env = append(os.Environ(), stdioChildEnv+"=1")
	cmd.Stdin = f
	out, err := cmd.Output()
	require.NoError(t, err, "the child exits 0 at the end of its stdin file")
	var resp struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(out, &resp), "stdout holds exactly one JSON-RPC message: %q", out)
	assert.Equal(t, 1, resp.ID)
	assert.Contains(t, string(resp.Result), `"serverInfo"`)
}
