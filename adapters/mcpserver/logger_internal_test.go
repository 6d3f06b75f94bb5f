package mcpserver

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/testlog"
)

// TestSDKLoggerKeepsServerFailuresAtTheirLevel: the SDK logger demotes a
// client's mistakes and session chatter, never the server's own
// failures, which stay ERROR (and WARN) for the operator.
func TestSDKLoggerKeepsServerFailuresAtTheirLevel(t *testing.T) {
	var buf testlog.Buffer
	log := sdkLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.Error("server connect failed", "error", "boom")
	log.Error("jsonrpc2 internal error", "error", "boom")
	log.Warn("keepalive ping failed; tolerating below threshold")
	log.Error("method invalid during initialization", "method", "tools/list")
	log.Warn(`rejecting request with protocol version "2026-07-28": this server is stateful; set StreamableHTTPOptions.Stateless = true to accept it`)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`level=ERROR msg="server connect failed"`,
		`level=ERROR msg="jsonrpc2 internal error"`,
		`level=WARN msg="keepalive ping failed`,
		`level=DEBUG msg="method invalid during initialization"`,
		`level=DEBUG msg="rejecting request with protocol version`,
	}
	if assert.Len(t, lines, len(want)) {
		for i, w := range want {
			assert.Contains(t, lines[i], w)
		}
	}
}
