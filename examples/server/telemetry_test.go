package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// With OTEL_EXPORTER_OTLP_ENDPOINT set, the server traces every tool call
// (span named after the tool) and exports spans and metrics over
// OTLP/HTTP; stopping it flushes them. Without the variable the server
// logs no telemetry line (see the other end-to-end tests' environment).
func TestE2E_OpenTelemetryExport(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	var mu sync.Mutex
	var paths, spans []string
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, r.URL.Path)
		var req coltrace.ExportTraceServiceRequest
		if r.URL.Path == "/v1/traces" && proto.Unmarshal(body, &req) == nil {
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						spans = append(spans, s.Name)
					}
				}
			}
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer col.Close()
	env := append(serverEnv(startBackend(t)), "OTEL_EXPORTER_OTLP_ENDPOINT="+col.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
	s := startHTTP(t, ctx, env)
	assert.Contains(t, s.stderr.String(), "OpenTelemetry export on")

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/tools/get_problem/invoke", strings.NewReader(`{"source":"leetcode","id":"1"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	waitStopped(t, ctx, s)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, paths, "/v1/traces")
	assert.Contains(t, paths, "/v1/metrics")
	assert.Contains(t, spans, "get_problem")
	assert.Empty(t, s.stdout.String(), "nothing on stdout")
}

// OpenTelemetry's own failures (a collector away) reach the server's log,
// sparingly: the 1st, 2nd and 4th of four.
func TestExportErrors_LoggedSparingly(t *testing.T) {
	var buf strings.Builder
	h := exportErrors(context.Background(), slog.New(slog.NewTextHandler(&buf, nil)))
	for range 4 {
		h.Handle(errors.New("failed to upload metrics: connection refused"))
	}
	assert.Equal(t, 3, strings.Count(buf.String(), "OpenTelemetry export failed"), buf.String())
	assert.Contains(t, buf.String(), "failed_tries=4")
}

// The OpenTelemetry SDK's own messages go to the server's log (not Go's
// standard logger), and secrets in its settings never do: a malformed
// OTEL_EXPORTER_OTLP_HEADERS value holding an API key stops the start
// naming the variable, not the key (the SDK logged it and exported
// without the header); a missing certificate file is the SDK's warning
// in the server's log format.
func TestE2E_OpenTelemetrySDKMessagesWithoutSecrets(t *testing.T) {
	bad := exec.Command(binPath, "-addr", "127.0.0.1:0")
	bad.Env = append(serverEnv(""), "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_HEADERS=x-api-key=TOPSECRET%ZZ-KEY-2")
	var badErr strings.Builder
	bad.Stderr = &badErr
	err := bad.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "stderr:\n%s", badErr.String())
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, badErr.String(), "OTEL_EXPORTER_OTLP_HEADERS: entry 1 (x-api-key): the value is not valid percent-encoding")
	assert.NotContains(t, badErr.String(), "TOPSECRET")
	assert.NotContains(t, badErr.String(), "KEY-2")

	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 8<<20))
		w.WriteHeader(http.StatusOK)
	}))
	defer col.Close()
	// A setting the SDK reads and complains about while running: its
	// message reaches the server's log without the values it quotes.
	env := append(serverEnv(startBackend(t)), "OTEL_EXPORTER_OTLP_ENDPOINT="+col.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_EXPORTER_OTLP_CERTIFICATE=/nonexistent/collector-ca.pem", "OTEL_EXPORTER_OTLP_HEADERS=x-api-key=TOPSECRET-KEY-2")
	s := startHTTP(t, ctx, env)
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	waitStopped(t, ctx, s)
	out := s.stderr.String()
	assert.Contains(t, out, `msg="OpenTelemetry: read tls ca cert file"`, "the SDK's message, in the server's log format")
	assert.NotContains(t, out, "TOPSECRET")
	assert.NotContains(t, out, "KEY-2")
}

// SIGTERM lets the calls running finish within the grace: an MCP call and
// a REST call in flight get their answers, and their spans reach the
// collector before the exporters shut down; the session's event stream
// does not hold the shutdown up. Before, every request was cancelled at
// the signal: the MCP client got "request terminated without response"
// and no span of the call was ever exported.
func TestE2E_SIGTERMLetsRunningCallsFinishAndExportsTheirSpans(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	colURL, spanNames := spanCollector(t)
	env := append(serverEnv(startBackend(t)), "OTEL_EXPORTER_OTLP_ENDPOINT="+colURL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
	s := startHTTP(t, ctx, env)

	progressed := make(chan struct{}, 100)
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-client", Version: "v0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		}})
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	mcpDone := make(chan error, 1)
	go func() {
		params := &sdk.CallToolParams{Name: "count", Arguments: map[string]any{"n": 30, "delay_ms": 100}}
		params.SetProgressToken("p1")
		res, err := cs.CallTool(ctx, params)
		if err == nil && res.IsError {
			err = fmt.Errorf("failed: %v", res.Content)
		}
		mcpDone <- err
	}()
	restDone := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/tools/count/invoke", strings.NewReader(`{"n":30,"delay_ms":100}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
			}
		}
		restDone <- err
	}()
	select { // the MCP call is under way (3 s): it reported progress
	case <-progressed:
	case <-ctx.Done():
		t.Fatal("no progress from the call")
	}
	// The REST call, sent at the same time, is under way too, and the
	// client's event stream (opened after initialize, on its own) is open:
	// one opened after the signal would be refused, as any new connection.
	time.Sleep(time.Second)
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	assert.NoError(t, <-mcpDone, "the MCP call in flight gets its answer")
	assert.NoError(t, <-restDone, "the REST call in flight gets its answer")
	waitStopped(t, ctx, s)
	spans := spanNames()
	counts := 0
	for _, n := range spans {
		if n == "count" {
			counts++
		}
	}
	assert.Equal(t, 2, counts, "both calls' spans exported: %v", spans)
}

// spanCollector is an OTLP/HTTP collector on 127.0.0.1: its URL, and the
// names of the spans it received so far.
func spanCollector(t *testing.T) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var spans []string
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		var req coltrace.ExportTraceServiceRequest
		if r.URL.Path == "/v1/traces" && proto.Unmarshal(body, &req) == nil {
			mu.Lock()
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						spans = append(spans, s.Name)
					}
				}
			}
			mu.Unlock()
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(col.Close)
	return col.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(spans)
	}
}

// Under progressive disclosure the three meta-tools are traced too
// (search_tools and describe_tool left no span; call_tool's tool is the
// child of its span), and a visible tool's call once, not also as its
// copy among the meta-tools.
func TestE2E_ProgressiveDisclosureMetaToolsTraced(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	colURL, spanNames := spanCollector(t)
	env := append(serverEnv(startBackend(t)), "OTEL_EXPORTER_OTLP_ENDPOINT="+colURL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
	s := startHTTP(t, ctx, env, "-disclosure", "progressive", "-visible-tools", "echo")
	for _, c := range []struct{ tool, body string }{
		{"search_tools", `{"query":"echo"}`},
		{"describe_tool", `{"name":"echo"}`},
		{"call_tool", `{"name":"echo","arguments":{"text":"hi"}}`},
		{"echo", `{"text":"visible"}`},
	} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/tools/"+c.tool+"/invoke", strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", c.tool, body)
	}
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	waitStopped(t, ctx, s)
	spans := spanNames()
	for _, want := range []string{"search_tools", "describe_tool", "call_tool", "echo"} {
		assert.Contains(t, spans, want)
	}
	echoes := 0
	for _, n := range spans {
		if n == "echo" {
			echoes++
		}
	}
	assert.Equal(t, 2, echoes, "echo through call_tool and echo called as a visible tool, once each: %v", spans)
}

// waitStopped waits for the server to exit cleanly, within ctx.
func waitStopped(t *testing.T, ctx context.Context, s *httpServer) {
	t.Helper()
	select {
	case err := <-s.done:
		require.NoError(t, err, "stderr:\n%s", s.stderr)
	case <-ctx.Done():
		t.Fatal("server did not stop")
	}
}

// A call still running when the shutdown grace ends is stopped and
// answered — REST 503 unavailable, "the server is shutting down" — before
// the connections close; it used to get no answer at all (the connection
// closed under it), and the log blamed the caller.
func TestE2E_CallStillRunningAtTheEndOfTheGraceIsAnswered(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	s := startHTTP(t, ctx, serverEnv(startBackend(t)))
	type answer struct {
		status int
		body   string
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		// 100 × 100 ms: twice the grace.
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/tools/count/invoke", strings.NewReader(`{"n":100,"delay_ms":100}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		done <- answer{resp.StatusCode, string(body), err}
	}()
	time.Sleep(500 * time.Millisecond) // the call is under way
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	a := <-done
	require.NoError(t, a.err, "an answer, not a closed connection")
	assert.Equal(t, http.StatusServiceUnavailable, a.status, a.body)
	assert.Contains(t, a.body, `"error_type":"unavailable"`)
	assert.Contains(t, a.body, "the server is shutting down")
	waitStopped(t, ctx, s)
	assert.NotContains(t, s.stderr.String(), "cancelled by the caller")
	assert.Contains(t, s.stderr.String(), "Tool count stopped: the server is shutting down")
}
