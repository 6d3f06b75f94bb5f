package main

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServesSuiteOverStreamableHTTP: the example listens on the -addr it
// is given, serves /mcp, lists the suite's 13 tools and talks back
// (sampling) to a go-sdk client over streamable HTTP.
func TestServesSuiteOverStreamableHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, io.Discard, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("server ended: %v", err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "v0"}, &sdk.ClientOptions{
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &sdk.TextContent{Text: "hello"}}, nil
		},
	})
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 13)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "hi"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Equal(t, "LLM response: hello", res.Content[0].(*sdk.TextContent).Text)
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "test_image_content", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "image/png", res.Content[0].(*sdk.ImageContent).MIMEType)
	require.NoError(t, cs.Close())
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
}

// TestRejectsStrayArguments: arguments beyond the flags are a usage error.
func TestRejectsStrayArguments(t *testing.T) {
	err := run(context.Background(), []string{"extra"}, io.Discard, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "extra")
}

// TestServesSuiteOverStdio: with -stdio the built command speaks MCP on
// stdin/stdout to a go-sdk client, and logs only to stderr.
func TestServesSuiteOverStdio(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "conformance")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: exec.CommandContext(ctx, bin, "-stdio")}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "test_multiple_content_types", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.Len(t, res.Content, 3)
	assert.Equal(t, "Multiple content types test:", res.Content[0].(*sdk.TextContent).Text)
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "m"}})
	require.NoError(t, err)
	assert.True(t, res.IsError, "a client without elicitation gets a readable failure")
}
