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

// A server busy with a call is not pinged: one that cannot answer a ping
// until its call ends (a busy event loop) keeps its session and the call
// completes, instead of being dropped by missed pings mid-call.
func TestKeepAlive_BusyServerNotDroppedMidCall(t *testing.T) {
	remote := mcp.NewServer(&mcp.Implementation{Name: "busy", Version: "1"}, nil)
	remote.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(600 * time.Millisecond)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	var calling atomic.Bool
	stop := make(chan struct{})
	ts := startHTTP(t, remote, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				var body struct {
					Method string `json:"method"`
				}
				var buf []byte
				buf, r.Body = peekBody(r)
				_ = json.Unmarshal(buf, &body)
				if body.Method == "ping" && calling.Load() {
					select { // no answer while the call runs
					case <-r.Context().Done():
					case <-stop:
					}
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	})
	t.Cleanup(func() { close(stop) })
	reg := newRegistry()
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "busy", URL: ts.URL}}, mcpproxy.Options{KeepAlive: 50 * time.Millisecond})
	require.Eventually(t, func() bool { return statusOf(t, p, "busy").State == mcpproxy.Connected }, waitBound, 10*time.Millisecond)
	calling.Store(true)
	res, err := reg.Invoke(callCtx(t), "busy.slow", nil)
	calling.Store(false)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	require.Equal(t, mcpproxy.Connected, statusOf(t, p, "busy").State, "not dropped while the call ran")
}
