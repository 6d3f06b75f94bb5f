package mcpproxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
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
	res, err := reg.Invoke(context.Background(), "api.echo", json.RawMessage(`{"text":"over http"}`))
	require.NoError(t, err)
	assert.Equal(t, "over http", res.Value)
	res, err = reg.Invoke(context.Background(), "api.fail", nil)
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
