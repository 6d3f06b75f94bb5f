package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
)

// tsClientDir is the TypeScript-SDK test client shared with examples/server
// (its script, pinned package.json and package-lock.json); .ci/run
// installs its node_modules.
var tsClientDir = filepath.Join("..", "..", "examples", "server", "testdata", "tsclient")

// TestTSClientAcceptsEveryOutputShape runs the real TypeScript-SDK client
// (@modelcontextprotocol/sdk) over streamable HTTP against tools with
// hand-written output schemas of every form (integer, boolean, array with
// $defs references, a nullable object, the true schema, an object, a
// string) and without one. The client lists the tools (its tools/list
// schema requires "type":"object" at the root of every output schema) and
// then validates every structuredContent against the listed schema with
// Ajv, as MCP hosts do: every call must be accepted. Skipped, saying how
// to install it, when Node, npm or the client's modules are missing.
func TestTSClientAcceptsEveryOutputShape(t *testing.T) {
	const install = "npm ci --prefix examples/server/testdata/tsclient (from the module root)"
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("needs Node.js (20 or later) and npm; install them, then run: " + install)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("needs npm; install it, then run: " + install)
	}
	if _, err := os.Stat(filepath.Join(tsClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the TypeScript-SDK client's modules are not installed; run: " + install)
	}

	tools, want := kindTools(t)
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	require.NoError(t, reg.Add(tools...))
	hs := httptest.NewServer(mcpserver.HTTPHandler(mcpserver.NewServer(reg, mcpserver.Options{Logger: discardLogger()}), mcpserver.HTTPOptions{}))
	defer hs.Close()

	var calls []map[string]any
	for _, tool := range tools {
		calls = append(calls, map[string]any{"name": tool.Name})
	}
	spec, err := json.Marshal(map[string]any{"url": hs.URL, "calls": calls})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", string(spec))
	cmd.Dir = tsClientDir
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "TypeScript client failed (ctx: %v)\nstderr:\n%s", ctx.Err(), stderr.String())

	var rep struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Calls []struct {
			Name   string              `json:"name"`
			OK     bool                `json:"ok"`
			Error  string              `json:"error"`
			Result *sdk.CallToolResult `json:"result"`
		} `json:"calls"`
		Errors []string `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "client output: %s\nstderr: %s", stdout.String(), stderr.String())
	assert.Len(t, rep.Tools, len(tools), "the client parsed every listed tool")
	require.Len(t, rep.Calls, len(tools))
	assert.Empty(t, rep.Errors)
	for _, c := range rep.Calls {
		require.True(t, c.OK, "the TypeScript client accepted %s; it said: %s", c.Name, c.Error)
		w := want[c.Name]
		assert.Equal(t, w.isError, c.Result.IsError, c.Name)
		require.Len(t, c.Result.Content, 1, c.Name)
		assert.Equal(t, w.text, c.Result.Content[0].(*sdk.TextContent).Text, c.Name)
		if w.structured == "" {
			assert.Nil(t, c.Result.StructuredContent, c.Name)
		} else {
			jsonEq(t, json.RawMessage(w.structured), c.Result.StructuredContent)
		}
	}
}
