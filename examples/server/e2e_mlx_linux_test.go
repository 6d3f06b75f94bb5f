//go:build linux

package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
)

// The seed's mlxctl server is one command: -stdio -packs mlx -name
// mlxctl, the models and command from -config. A client loads a model
// (the command is a fake model server built here), is told port_busy on
// a second load, and a restarted server unloads what the first started.
func TestE2E_MLXServer(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fakeserver")
	build := exec.Command("go", "build", "-o", fake, "../../packs/mlx/testdata/fakeserver")
	build.Env = goEnv // the go command's cache, not the tests' empty one
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout) // the build does not count
	defer cancel()
	cfgPath := filepath.Join(dir, "mlx.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("mlx:\n  command: ["+strconv.Quote(fake)+", --model, \"{model}\", --port, \"{port}\"]\n  models: [mlx-community/Qwen3-4B-4bit]\n  start_timeout: 10s\n"), 0o600))
	// From the top of the range: the mlx pack's own tests take ports from
	// the bottom, and may run at the same time.
	port := 0
	for p := 8139; p >= 8100 && port == 0; p-- {
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			_ = ln.Close()
			port = p
		}
	}
	if port == 0 {
		t.Skip("every port of 8100–8139 is taken on this machine")
	}
	connect := func(ctx context.Context) *sdk.ClientSession {
		cmd := exec.Command(binPath, "-stdio", "-packs", "mlx", "-name", "mlxctl", "-config", cfgPath)
		cmd.Env = serverEnv("http://127.0.0.1:1")
		cmd.Stderr = &syncBuffer{}
		cs, err := newClient().Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
		require.NoError(t, err)
		return cs
	}
	call := func(cs *sdk.ClientSession, tool string, a map[string]any) *sdk.CallToolResult {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: a})
		require.NoError(t, err)
		return res
	}
	cs := connect(ctx)
	assert.Equal(t, "mlxctl", cs.InitializeResult().ServerInfo.Name)
	res := call(cs, "mlx.load", map[string]any{"model": "mlx-community/Qwen3-4B-4bit", "port": port})
	require.False(t, res.IsError, "%v", res.Content)
	sc, _ := json.Marshal(res.StructuredContent)
	assert.Contains(t, string(sc), `"ok":true`)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
		defer cancel()
		cs := connect(ctx)
		defer cs.Close()
		_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "mlx.unload", Arguments: map[string]any{"port": port}})
	})

	res = call(cs, "mlx.load", map[string]any{"model": "mlx-community/Qwen3-4B-4bit", "port": port})
	assert.True(t, res.IsError)
	assert.Equal(t, "port_busy", res.Meta[mcpserver.MetaErrorType])
	res = call(cs, "mlx.load", map[string]any{"model": "other", "port": 8200})
	assert.Equal(t, "invalid_port", res.Meta[mcpserver.MetaErrorType])
	require.NoError(t, cs.Close())

	cs = connect(ctx)
	defer cs.Close()
	res = call(cs, "mlx.unload", map[string]any{"port": port})
	require.False(t, res.IsError, "%v", res.Content)
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err == nil {
		_ = c.Close()
		t.Fatalf("port %d still answers after unload", port)
	}
	res = call(cs, "mlx.unload", map[string]any{"port": port})
	assert.Equal(t, "not_listening", res.Meta[mcpserver.MetaErrorType])
}
