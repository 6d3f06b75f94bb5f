package mcpproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
)

// A call made inside a span carries its trace to the remote server —
// W3C traceparent in the request's _meta (any transport) and in the HTTP
// headers (streamable HTTP) — so that the remote's spans join the caller's
// trace; a call without a span carries none.
func TestCall_CarriesTheTraceToTheRemote(t *testing.T) {
	var mu sync.Mutex
	var metaSeen, headerSeen []string
	remote := mcp.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
	remote.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tp, _ := req.Params.Meta["traceparent"].(string)
			mu.Lock()
			metaSeen = append(metaSeen, tp)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	ts := startHTTP(t, remote, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body struct {
				Method string `json:"method"`
			}
			if r.Method == http.MethodPost {
				var buf []byte
				buf, r.Body = peekBody(r)
				_ = json.Unmarshal(buf, &body)
			}
			if body.Method == "tools/call" {
				mu.Lock()
				headerSeen = append(headerSeen, r.Header.Get("Traceparent"))
				mu.Unlock()
			}
			h.ServeHTTP(w, r)
		})
	})
	reg := newRegistry()
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "traced", URL: ts.URL}}, mcpproxy.Options{})
	require.Eventually(t, func() bool { return statusOf(t, p, "traced").State == mcpproxy.Connected }, waitBound, 10*time.Millisecond)

	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(callCtx(t), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	res, err := reg.Invoke(ctx, "traced.echo", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	res, err = reg.Invoke(callCtx(t), "traced.echo", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)

	mu.Lock()
	defer mu.Unlock()
	want := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	assert.Equal(t, []string{want, ""}, metaSeen, "_meta: the span's trace, then none")
	assert.Equal(t, []string{want, ""}, headerSeen, "HTTP headers likewise")
}

// peekBody reads a request's body (capped) and returns it with a body
// that reads the same bytes again.
func peekBody(r *http.Request) ([]byte, io.ReadCloser) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	_ = r.Body.Close()
	return b, io.NopCloser(bytes.NewReader(b))
}
