package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"

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
	select {
	case err := <-s.done:
		require.NoError(t, err, "stderr:\n%s", s.stderr)
	case <-ctx.Done():
		t.Fatal("server did not stop")
	}
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
	select {
	case err := <-s.done:
		require.NoError(t, err, "stderr:\n%s", s.stderr)
	case <-ctx.Done():
		t.Fatal("server did not stop")
	}
	out := s.stderr.String()
	assert.Contains(t, out, `msg="OpenTelemetry: read tls ca cert file"`, "the SDK's message, in the server's log format")
	assert.NotContains(t, out, "TOPSECRET")
	assert.NotContains(t, out, "KEY-2")
}
