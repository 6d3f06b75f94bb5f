package main

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stoppedCountText is what the client of a count call stopped at the end
// of the shutdown grace reads, over REST (the 503) and MCP alike.
const stoppedCountText = `the server is shutting down and stopped the call to tool "count" before it finished`

// mcpCall is the outcome of one MCP tool call.
type mcpCall struct {
	res *sdk.CallToolResult
	err error
}

// slowCount calls count for twice the shutdown grace (100 × 100 ms) on a
// client of newProgressClient and returns when the call is under way (its
// first progress notification arrived); the outcome comes on the channel.
func slowCount(t *testing.T, ctx context.Context, cs *sdk.ClientSession, underWay <-chan struct{}) <-chan mcpCall {
	t.Helper()
	done := make(chan mcpCall, 1)
	params := &sdk.CallToolParams{Name: "count", Arguments: map[string]any{"n": 100, "delay_ms": 100}}
	params.SetProgressToken("stop")
	go func() {
		res, err := cs.CallTool(ctx, params)
		done <- mcpCall{res, err}
	}()
	select {
	case <-underWay:
	case c := <-done:
		t.Fatalf("the call ended before the shutdown: %+v", c)
	case <-ctx.Done():
		t.Fatal("the call never got under way")
	}
	return done
}

// newProgressClient is an MCP client that signals underWay at the first
// progress notification it receives.
func newProgressClient() (*sdk.Client, <-chan struct{}) {
	underWay := make(chan struct{}, 1)
	return sdk.NewClient(&sdk.Implementation{Name: "e2e-stop-client", Version: "v0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
			select {
			case underWay <- struct{}{}:
			default:
			}
		},
	}), underWay
}

// requireStoppedAnswer asserts c is the tool error result of a count call
// stopped because the server is shutting down.
func requireStoppedAnswer(t *testing.T, c mcpCall, logs string) {
	t.Helper()
	require.NoError(t, c.err, "an answer, not a lost connection\nstderr:\n%s", logs)
	require.NotNil(t, c.res)
	assert.True(t, c.res.IsError, "a tool error result")
	assert.Equal(t, stoppedCountText, textOf(t, c.res))
	assert.Equal(t, "unavailable", c.res.Meta["toolpack/error_type"])
}

// An MCP call (streamable HTTP, go-sdk client) still running when the
// shutdown grace ends is stopped and answered — a tool error result saying
// the server is shutting down, REST's words — before the connections
// close, as a REST call is; it used to run on its session's context, out
// of reach of the stop, and its client saw the connection end without an
// answer. The log says the server stopped it, never that the caller
// cancelled.
func TestE2E_MCPCallStillRunningAtTheEndOfTheGraceIsAnswered(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	s := startHTTP(t, ctx, serverEnv(startBackend(t)))
	client, underWay := newProgressClient()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.base + mcpPath, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close() }()

	done := slowCount(t, ctx, cs, underWay)
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case c := <-done:
		requireStoppedAnswer(t, c, s.stderr.String())
	case <-ctx.Done():
		t.Fatalf("no answer\nstderr:\n%s", s.stderr)
	}
	waitStopped(t, ctx, s)
	assert.Contains(t, s.stderr.String(), "Tool count stopped: the server is shutting down")
	assert.NotContains(t, s.stderr.String(), "cancelled by the caller")
}

// The same over stdio: SIGTERM stops the reading, the call under way gets
// the grace, and at its end it is stopped and answered before the session
// ends; it used to be cancelled with the session, its answer never
// written.
func TestE2E_StdioCallStillRunningAtTheEndOfTheGraceIsAnswered(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	cmd := exec.Command(binPath, "-stdio")
	cmd.Env = serverEnv(startBackend(t))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client, underWay := newProgressClient()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close() }()

	done := slowCount(t, ctx, cs, underWay)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case c := <-done:
		requireStoppedAnswer(t, c, stderr.String())
	case <-ctx.Done():
		t.Fatalf("no answer\nstderr:\n%s", stderr)
	}
	_ = cs.Close()
	assert.Contains(t, stderr.String(), "Tool count stopped: the server is shutting down")
	assert.NotContains(t, stderr.String(), "cancelled by the caller")
	assert.Contains(t, stderr.String(), "stdio session ended")
}
