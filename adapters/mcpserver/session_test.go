package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linesAtOrAbove returns the log lines of out at INFO, WARN or ERROR.
func linesAtOrAbove(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "level=INFO") || strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			lines = append(lines, l)
		}
	}
	return lines
}

// A call its client cancels (notifications/cancelled) is logged once, by
// the registry's Logging at INFO ("cancelled by the caller": nothing for
// an operator to act on); the adapter adds only a DEBUG line, not a WARN.
func TestCancelledCallIsLoggedOnceAtTheRegistrysLevel(t *testing.T) {
	logs := &syncBuffer{}
	b := newBlocker()
	cs := stopServer(t, b, nil, logs)
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
		out <- err
	}()
	wait(t, b.started, "the call started")
	cancel()
	require.ErrorIs(t, wait(t, out, "the client's call returned"), context.Canceled)
	require.ErrorIs(t, wait(t, b.cause, "the tool saw the cancellation"), context.Canceled)
	eventually(t, "the adapter saw the call end", func() bool {
		return strings.Contains(logs.String(), `msg="mcpserver: tool call cancelled"`)
	})
	lines := linesAtOrAbove(logs.String())
	require.Len(t, lines, 1, "one line at INFO or above: %s", logs.String())
	assert.Contains(t, lines[0], `level=INFO msg="Tool block cancelled by the caller`)
	assert.Contains(t, logs.String(), `level=DEBUG msg="mcpserver: tool call cancelled" tool=block`)
}
