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
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/telemetry"
	"github.com/toolpack-go/toolpack/result"
)

// A call made inside a span carries its trace to the remote server —
// W3C traceparent in the request's _meta (any transport) and in the HTTP
// headers (streamable HTTP) — so that the remote's spans join the caller's
// trace; a call without a span carries the caller's own trace context
// from its request, and none when the request has none.
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
	// Without a span (a host that does not trace), the caller's own trace
	// context as its request carried it.
	callers := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	res, err = reg.Invoke(registry.WithRequest(callCtx(t), &registry.RequestInfo{Transport: "mcp", Meta: map[string]any{"traceparent": callers}}), "traced.echo", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)

	mu.Lock()
	defer mu.Unlock()
	want := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	assert.Equal(t, []string{want, "", callers}, metaSeen, "_meta: the span's trace, then none, then the caller's")
	assert.Equal(t, []string{want, "", callers}, headerSeen, "HTTP headers likewise")
}

// peekBody reads a request's body (capped) and returns it with a body
// that reads the same bytes again.
func peekBody(r *http.Request) ([]byte, io.ReadCloser) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	_ = r.Body.Close()
	return b, io.NopCloser(bytes.NewReader(b))
}

// A proxying host that does not trace passes its caller's trace on as
// received: the W3C trace context (traceparent, tracestate) of the MCP
// request's _meta, or else of the HTTP headers (REST, streamable HTTP),
// goes to the remote, so that the remote's span joins the caller's trace.
// A malformed traceparent is not forwarded; a call without one starts a
// trace of its own at the remote.
func TestCall_UntracedHostForwardsTheCallersTrace(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
		parent  = "00-" + traceID + "-" + spanID + "-01"
	)
	// Host B traces its calls into memory; its tool notes the traceparent
	// its request carried.
	spans := tracetest.NewSpanRecorder()
	mw, err := telemetry.Middleware(telemetry.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider()})
	require.NoError(t, err)
	b := newRegistry()
	b.UseOuter(mw)
	var mu sync.Mutex
	var seen []string
	require.NoError(t, b.Add(&registry.Tool{Name: "echo", Description: "Echoes.",
		Handler: func(ctx context.Context, _ *registry.Call) (result.Result[any], error) {
			tp, _ := registry.Request(ctx).Meta["traceparent"].(string)
			mu.Lock()
			seen = append(seen, tp)
			mu.Unlock()
			return result.Ok[any]("ok"), nil
		}}))

	// Host A, without telemetry, proxies B and is served over MCP.
	a := newRegistry()
	newProxy(t, a, []mcpproxy.Config{{Name: "remote", Transport: inMemory(mcpserver.NewServer(b, mcpserver.Options{}))}}, mcpproxy.Options{})
	require.Eventually(t, func() bool { _, _, ok := a.Resolve("remote.echo"); return ok }, waitBound, 10*time.Millisecond)
	st, ct := mcp.NewInMemoryTransports()
	_, err = mcpserver.NewServer(a, mcpserver.Options{}).Connect(callCtx(t), st, nil)
	require.NoError(t, err)
	agent, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(callCtx(t), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = agent.Close() })

	call := func(meta mcp.Meta) sdktrace.ReadOnlySpan {
		t.Helper()
		spans.Reset()
		res, err := agent.CallTool(callCtx(t), &mcp.CallToolParams{Name: "remote.echo", Arguments: map[string]any{}, Meta: meta})
		require.NoError(t, err)
		require.False(t, res.IsError)
		ended := spans.Ended()
		require.Len(t, ended, 1)
		return ended[0]
	}

	s := call(mcp.Meta{"traceparent": parent, "tracestate": "vendor=x"})
	assert.Equal(t, traceID, s.SpanContext().TraceID().String(), "B's span joins the caller's trace")
	assert.Equal(t, spanID, s.Parent().SpanID().String(), "as the child of the caller's span")
	assert.Equal(t, "vendor=x", s.Parent().TraceState().String())

	s = call(mcp.Meta{"traceparent": "00-zz-nothex-01"})
	assert.False(t, s.Parent().IsValid(), "a malformed traceparent is not forwarded")

	s = call(nil)
	assert.False(t, s.Parent().IsValid(), "no caller's trace: one of B's own")

	// A call that came over HTTP (REST) carries the trace in its headers.
	spans.Reset()
	header := http.Header{}
	header.Set("Traceparent", parent)
	res, err := a.Invoke(registry.WithRequest(callCtx(t), &registry.RequestInfo{Transport: "http", Header: header}), "remote.echo", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	ended := spans.Ended()
	require.Len(t, ended, 1)
	assert.Equal(t, traceID, ended[0].SpanContext().TraceID().String(), "from the HTTP headers")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{parent, "", "", parent}, seen, "what B received in _meta")
}

// A forwarded call carries its trace in the formats OTEL_PROPAGATORS
// names, the same the telemetry middleware reads: none sends nothing
// (neither a traced host's span nor the caller's context), b3multi sends
// B3 headers instead of traceparent, a list with baggage passes the
// baggage on; unset, traceparent and tracestate only, as before. An
// unknown name is refused by New naming the variable.
func TestCall_PropagatorsFromTheEnvironment(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
		parent  = "00-" + traceID + "-" + spanID + "-01"
	)
	var mu sync.Mutex
	var seen mcp.Meta
	remote := mcp.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
	remote.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			seen = req.Params.Meta
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	tid, _ := trace.TraceIDFromHex(traceID)
	sid, _ := trace.SpanIDFromHex(spanID)
	spanCtx := func() context.Context {
		return trace.ContextWithSpanContext(callCtx(t), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	}
	callersCtx := func() context.Context {
		return registry.WithRequest(callCtx(t), &registry.RequestInfo{Transport: "mcp",
			Meta: map[string]any{"traceparent": parent, "baggage": "tenant=a"}})
	}
	// forwarded returns the trace members of the _meta the remote got.
	forwarded := func(env string, ctx context.Context) map[string]any {
		t.Helper()
		t.Setenv("OTEL_PROPAGATORS", env)
		reg := newRegistry()
		newProxy(t, reg, []mcpproxy.Config{{Name: "traced", Transport: inMemory(remote)}}, mcpproxy.Options{})
		res, err := reg.Invoke(ctx, "traced.echo", nil)
		require.NoError(t, err)
		require.True(t, res.Success, res.Error)
		mu.Lock()
		defer mu.Unlock()
		out := map[string]any{}
		for _, k := range []string{"traceparent", "tracestate", "baggage", "b3", "x-b3-traceid", "x-b3-spanid", "x-b3-sampled"} {
			if v, ok := seen[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	assert.Equal(t, map[string]any{"traceparent": parent}, forwarded("", spanCtx()), "unset: W3C trace context")
	assert.Equal(t, map[string]any{"traceparent": parent}, forwarded("", callersCtx()), "unset: no baggage, as before")
	assert.Empty(t, forwarded("none", spanCtx()), "none: a traced host's span is not sent")
	assert.Empty(t, forwarded("none", callersCtx()), "none: nor the caller's context")
	assert.Equal(t, map[string]any{"x-b3-traceid": traceID, "x-b3-spanid": spanID, "x-b3-sampled": "1"}, forwarded("b3multi", spanCtx()))
	assert.Equal(t, map[string]any{"traceparent": parent, "baggage": "tenant=a"}, forwarded("tracecontext, baggage", callersCtx()))

	t.Setenv("OTEL_PROPAGATORS", "bogus")
	_, err := mcpproxy.New(context.Background(), newRegistry(), nil, mcpproxy.Options{})
	require.ErrorIs(t, err, mcpproxy.ErrInvalidConfig)
	assert.Contains(t, err.Error(), `OTEL_PROPAGATORS="bogus"`)
}
