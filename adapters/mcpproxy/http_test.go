package mcpproxy_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
	"github.com/toolpack-go/toolpack/result"
)

func TestStreamableHTTPWithAuthHeader(t *testing.T) {
	const (
		token      = "s3cret-token-7f3a9c"
		wrongToken = "wr0ng-token-81bd2e"
		querySec   = "qu3ry-secret-5521"
	)
	srv := testmcp.New(testmcp.Options{Name: "httpserver"})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var refused atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	reg := newRegistry()
	logger, logs := captureLogger()
	p := newProxy(t, reg, []mcpproxy.Config{
		{Name: "api", URL: ts.URL + "/mcp?key=" + querySec, Headers: map[string]string{"Authorization": "Bearer " + token}},
		{Name: "denied", URL: ts.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer " + wrongToken}},
	}, mcpproxy.Options{Logger: logger, Backoff: mcpproxy.Backoff{Initial: waitBound, MaxTries: 1}})

	api := statusOf(t, p, "api")
	require.Equal(t, mcpproxy.Connected, api.State, api.LastError)
	assert.Equal(t, mcpproxy.TransportHTTP, api.Transport)
	assert.Equal(t, "httpserver 1.0.0", api.Remote)
	res, err := reg.Invoke(callCtx(t), "api.echo", json.RawMessage(`{"text":"over http"}`))
	require.NoError(t, err)
	assert.Equal(t, "over http", res.Value)
	res, err = reg.Invoke(callCtx(t), "api.fail", nil)
	require.NoError(t, err)
	assert.Equal(t, testmcp.FailText, res.Error)

	denied := statusOf(t, p, "denied")
	assert.Equal(t, mcpproxy.Disconnected, denied.State)
	assert.NotEmpty(t, denied.LastError)
	assert.Positive(t, refused.Load(), "the wrong header reached the server and was refused")
	assert.Empty(t, proxiedNames(reg, "denied"))
	assert.Contains(t, logs.String(), "cannot connect to MCP server; marked disconnected")

	require.NoError(t, p.Close())
	everything := logs.String() + fmt.Sprintf("%+v", p.Status())
	for _, secret := range []string{token, wrongToken, querySec} {
		assert.NotContains(t, everything, secret, "a secret leaked into logs or status")
	}
	assert.Contains(t, logs.String(), "MCP server connected", "the logs were captured")
}

func TestStreamableHTTPServerDownIsUnavailableThenReconnects(t *testing.T) {
	srv := testmcp.New(testmcp.Options{Name: "httpserver"})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	addr := ts.Listener.Addr().String()

	reg := newRegistry()
	log := newStatusLog()
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "api", URL: ts.URL + "/mcp"}},
		mcpproxy.Options{Backoff: fastBackoff, OnStatus: log.record})
	require.Equal(t, mcpproxy.Connected, statusOf(t, p, "api").State)

	// The server goes away: its connections (including the client's
	// standing SSE stream) are cut and the port is closed.
	ts.CloseClientConnections()
	ts.Close()
	res, err := reg.Invoke(callCtx(t), "api.echo", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err, "an unreachable server is a domain failure, not a protocol error")
	assert.Equal(t, result.Unavailable, res.ErrorType)
	// Usually the failed request tells first ("could not be reached"); if
	// the broken SSE stream ended the session first, the server is already
	// marked disconnected. Either way: unavailable, at once.
	assert.Contains(t, res.Error, `MCP server "api"`)
	st := statusOf(t, p, "api")
	assert.Equal(t, mcpproxy.Disconnected, st.State, "marked at once by the failed call")

	res, err = reg.Invoke(callCtx(t), "api.echo", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `MCP server "api" is disconnected`)

	// The server comes back on the same address.
	l, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	ts2 := httptest.NewUnstartedServer(h)
	ts2.Listener.Close()
	ts2.Listener = l
	ts2.Start()
	t.Cleanup(func() {
		ts2.CloseClientConnections()
		ts2.Close()
	})
	log.waitFor(t, "api", "reconnected", func(s mcpproxy.Status) bool {
		return s.State == mcpproxy.Connected && s.Connects >= 2
	})
	res, err = reg.Invoke(callCtx(t), "api.echo", json.RawMessage(`{"text":"back"}`))
	require.NoError(t, err)
	assert.Equal(t, "back", res.Value)
	require.NoError(t, p.Close())
}
