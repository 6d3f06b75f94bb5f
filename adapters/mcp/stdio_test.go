package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tpmcp "github.com/toolpack-go/toolpack/adapters/mcp"
)

// stdioChildEnv makes the test binary act as a ServeStdio server.
const stdioChildEnv = "TPMCP_TEST_STDIO_CHILD"

// TestServeStdio re-runs this test binary as a child process that serves
// the test registry with ServeStdio on its real stdin/stdout, and talks to
// it with the SDK's CommandTransport.
func TestServeStdio(t *testing.T) {
	if os.Getenv(stdioChildEnv) == "1" {
		srv := tpmcp.NewServer(newTestRegistry(t), nil, tpmcp.Options{Display: tpmcp.DisplayValue, Logger: discardLogger()})
		if err := tpmcp.ServeStdio(context.Background(), srv); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
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
	require.NoError(t, cs.Close())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode(), "ServeStdio returned nil when stdin closed")
}
