package mcpproxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/result"
)

// A connected server that stops answering without closing its connection
// (a process stopped, a network path lost) is found gone by the pings
// (Options.KeepAlive): it shows disconnected and its tools answer
// unavailable at once, instead of showing connected until a call happens
// to fail.
func TestKeepAlive_SilentServerShownDisconnected(t *testing.T) {
	remote := mcp.NewServer(&mcp.Implementation{Name: "silent", Version: "1"}, nil)
	remote.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	var silent atomic.Bool
	stop := make(chan struct{})
	ts := startHTTP(t, remote, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if silent.Load() && r.Method == http.MethodPost {
				select { // no answer, the connection left open
				case <-r.Context().Done():
				case <-stop:
				}
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	t.Cleanup(func() { close(stop) }) // before startHTTP's Close, which waits for the handlers
	reg := newRegistry()
	statuses := newStatusLog()
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "silent", URL: ts.URL}},
		mcpproxy.Options{KeepAlive: 50 * time.Millisecond, ConnectTimeout: 500 * time.Millisecond,
			Backoff: mcpproxy.Backoff{Initial: 50 * time.Millisecond, Max: 200 * time.Millisecond}, OnStatus: statuses.record})
	require.Eventually(t, func() bool { return statusOf(t, p, "silent").State == mcpproxy.Connected }, waitBound, 10*time.Millisecond)
	require.NotEmpty(t, proxiedNames(reg, "silent"))

	silent.Store(true)
	statuses.waitFor(t, "silent", "disconnected", func(s mcpproxy.Status) bool { return s.State == mcpproxy.Disconnected })
	res, err := reg.Invoke(callCtx(t), "silent.echo", nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	require.Equal(t, result.Unavailable, res.ErrorType, "answered at once: the server is known to be gone")

	// Answering again, it is connected again (reconnection with back-off).
	silent.Store(false)
	require.Eventually(t, func() bool { return statusOf(t, p, "silent").State == mcpproxy.Connected }, waitBound, 10*time.Millisecond)
}
