package registry

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/result"
)

// logBuffer is a goroutine-safe buffer for a slog JSON handler.
type logBuffer struct{ testlog.Buffer }

type logRecord struct {
	Level string `json:"level"`
	Msg   string `json:"msg"`
	Tool  string `json:"tool"`
	Stack string `json:"stack"`
	Type  string `json:"error_type"`
}

// records parses every JSON log line written so far.
func (b *logBuffer) records(t *testing.T) []logRecord {
	t.Helper()
	var out []logRecord
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var r logRecord
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		out = append(out, r)
	}
	return out
}

// newLogger returns a logger at TRACE writing JSON lines to a buffer.
func newLogger() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: LevelTrace})), b
}

// levelName is how slog's JSON handler prints a level.
func levelName(l slog.Level) string { return l.String() }

// rawTool returns a tool over raw JSON with the given handler.
func rawTool(name string, h Handler) *Tool {
	return &Tool{Name: name, Description: name + " tool", Handler: h}
}

func okHandler(v any) Handler {
	return func(ctx context.Context, c *Call) (result.Result[any], error) {
		return result.Ok(v), nil
	}
}

// noPrefix is an Options with the prefix explicitly disabled, so that tests
// do not depend on MCP_TOOL_PREFIX.
func noPrefix() Options { return Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)} }
