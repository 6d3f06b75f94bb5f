package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
)

// linesAtOrAbove returns the log lines of out at INFO, WARN or ERROR.
func linesAtOrAbove(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "level=INFO") || strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			lines = append(lines, l)
		}
	}
	return lines
}

// A call its client cancels (notifications/cancelled) is logged once, by
// the registry's Logging at INFO ("cancelled by the caller": nothing for
// an operator to act on); the adapter adds only a DEBUG line, not a WARN.
func TestCancelledCallIsLoggedOnceAtTheRegistrysLevel(t *testing.T) {
	logs := &syncBuffer{}
	b := newBlocker()
	cs := stopServer(t, b, nil, logs)
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
		out <- err
	}()
	wait(t, b.started, "the call started")
	cancel()
	require.ErrorIs(t, wait(t, out, "the client's call returned"), context.Canceled)
	require.ErrorIs(t, wait(t, b.cause, "the tool saw the cancellation"), context.Canceled)
	eventually(t, "the adapter saw the call end", func() bool {
		return strings.Contains(logs.String(), `msg="mcpserver: tool call cancelled"`)
	})
	lines := linesAtOrAbove(logs.String())
	require.Len(t, lines, 1, "one line at INFO or above: %s", logs.String())
	assert.Contains(t, lines[0], `level=INFO msg="Tool block cancelled by the caller`)
	assert.Contains(t, logs.String(), `level=DEBUG msg="mcpserver: tool call cancelled" tool=block`)
}

// blockServer serves a registry holding b's tool "block" over streamable
// HTTP (httptest, 127.0.0.1) with opts; registry and adapter log to logs.
func blockServer(t *testing.T, b *blocker, logs *syncBuffer, opts mcpserver.HTTPOptions) (*sdk.Server, *httptest.Server) {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slogTo(logs)})
	require.NoError(t, reg.Add(b.tool("block")))
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: slogTo(logs)})
	opts.Logger = slogTo(logs)
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, opts))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(b.release) }) // first: a call never stopped ends
	return srv, hs
}

// goroutines is the number of goroutines once the test client's idle
// connections are closed.
func goroutines() int {
	http.DefaultClient.CloseIdleConnections()
	return runtime.NumGoroutine()
}

// goroutinesSettle waits until the number of goroutines is at most n,
// and shows them if they do not.
func goroutinesSettle(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for goroutines() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines not back to %d within %v:\n%s", n, testTimeout, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A DELETE of a session with a call under way stops the call — its
// context's cause is ErrSessionEnded, logged by the registry as such at
// INFO, no WARN or ERROR — and returns once the SDK has closed the
// session, without waiting for the call to end on its own; nothing of the
// session is left running. Before, the SDK's close waited for the call,
// which it never cancelled, so the DELETE waited as long as the tool ran.
func TestDeleteSessionStopsItsCallsAndReturnsPromptly(t *testing.T) {
	logs := &syncBuffer{}
	b := newBlocker()
	srv, hs := blockServer(t, b, logs, mcpserver.HTTPOptions{})
	id := initSession(t, hs.URL)
	before := goroutines()

	answered := make(chan rpcAnswer, 1)
	go func() {
		answered <- postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	}()
	wait(t, b.started, "the call started")
	deleted := make(chan int, 1)
	go func() { deleted <- deleteSession(t, hs.URL, id) }()

	assert.Equal(t, http.StatusNoContent, wait(t, deleted, "the DELETE's answer (without the fix it waits for the tool, which waits for the test's end)"))
	cause := wait(t, b.cause, "the tool's cause")
	assert.ErrorIs(t, cause, mcpserver.ErrSessionEnded)
	wait(t, answered, "the call's POST ended")
	assert.Zero(t, countSessions(srv))
	eventually(t, "the registry logged the stop", func() bool {
		return strings.Contains(logs.String(), `level=INFO msg="Tool block stopped: the client ended its MCP session"`)
	})
	assert.NotContains(t, logs.String(), "level=WARN")
	assert.NotContains(t, logs.String(), "level=ERROR")
	goroutinesSettle(t, before)
}

// A DELETE by another user than the session's (refused by the SDK with
// 403) stops none of the session's calls.
func TestDeleteSessionByAnotherUserStopsNothing(t *testing.T) {
	logs := &syncBuffer{}
	b := newBlocker()
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	_, hs := blockServer(t, b, logs, mcpserver.HTTPOptions{Auth: auth.RequireBearerToken(verify, nil)})
	id := initSession(t, hs.URL, "Authorization", "Bearer ann")
	answered := make(chan rpcAnswer, 1)
	go func() {
		answered <- postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`, "Authorization", "Bearer ann")
	}()
	wait(t, b.started, "the call started")
	callCtx := wait(t, b.ctxs, "the call's context")

	req, err := http.NewRequest(http.MethodDelete, hs.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Authorization", "Bearer bob")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	// A DELETE stops calls before the SDK answers it: had bob's stopped
	// ann's call, its context would have ended by now.
	require.NoError(t, callCtx.Err(), "bob's DELETE stopped ann's call: %v", context.Cause(callCtx))

	deleted := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodDelete, hs.URL, nil)
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Authorization", "Bearer ann")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			deleted <- 0
			return
		}
		resp.Body.Close()
		deleted <- resp.StatusCode
	}()
	assert.Equal(t, http.StatusNoContent, wait(t, deleted, "ann's DELETE"))
	assert.ErrorIs(t, wait(t, b.cause, "the tool's cause"), mcpserver.ErrSessionEnded)
	wait(t, answered, "the call's POST ended")
}
