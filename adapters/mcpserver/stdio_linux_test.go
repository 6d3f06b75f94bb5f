//go:build linux

package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeStdio_SocketStdin: a socket stdin (what Node.js-based MCP hosts
// give their servers) cannot be opened again, so the transport switches its
// open file to non-blocking mode for the session; the child exits 0 only if
// the mode is blocking again after the session.
func TestServeStdio_SocketStdin(t *testing.T) {
	if os.Getenv(stdioChildEnv) == "1" {
		serveStdioChild(t)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	ours, theirs := os.NewFile(uintptr(fds[0]), "client-end"), os.NewFile(uintptr(fds[1]), "server-stdin")
	defer ours.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestServeStdio_SocketStdin$")
	cmd.Env = append(os.Environ(), stdioChildEnv+"=1")
	cmd.Stdin = theirs
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	require.NoError(t, theirs.Close())
	out := bufio.NewReader(stdout)
	call := func(line string) map[string]any {
		_, err := io.WriteString(ours, line+"\n")
		require.NoError(t, err)
		resp, err := out.ReadString('\n')
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(resp), &m))
		return m
	}
	m := call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"s","version":"0"}}}`)
	require.Contains(t, m, "result")
	_, err = io.WriteString(ours, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(t, err)
	m = call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stdin_mode","arguments":{}}}`)
	content := m["result"].(map[string]any)["content"].([]any)
	assert.Equal(t, "non-blocking", content[0].(map[string]any)["text"], "the socket is read through the poller during the session")
	require.NoError(t, syscall.Shutdown(int(fds[0]), syscall.SHUT_WR)) // end of input
	require.NoError(t, cmd.Wait())
	assert.Equal(t, childOK, cmd.ProcessState.ExitCode(), "stdin is blocking again after the session")
}
