package mcpproxy_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func invokePID(t *testing.T, reg *registry.Registry) int {
	t.Helper()
	res, err := reg.Invoke(callCtx(t), "child.pid", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	pid, err := strconv.Atoi(res.Value.(string))
	require.NoError(t, err)
	return pid
}

func TestStdioChildProcessKilledAndReconnected(t *testing.T) {
	bin := testServer(t)
	failFile := filepath.Join(t.TempDir(), "refuse-to-start")
	reg := newRegistry()
	log := newStatusLog()
	p := newProxy(t, reg, []mcpproxy.Config{{
		Name:    "child",
		Command: []string{bin},
		Env:     map[string]string{"TESTSERVER_FAILFILE": failFile},
	}}, mcpproxy.Options{Backoff: fastBackoff, OnStatus: log.record})

	st := statusOf(t, p, "child")
	require.Equal(t, mcpproxy.Connected, st.State, st.LastError)
	assert.Equal(t, mcpproxy.TransportStdio, st.Transport)
	assert.Equal(t, "testserver 1.0.0", st.Remote)
	assert.Len(t, proxiedNames(reg, "child"), len(testmcp.BaseTools()))

	res, err := reg.Invoke(callCtx(t), "child.echo", json.RawMessage(`{"text":"over stdio"}`))
	require.NoError(t, err)
	assert.Equal(t, "over stdio", res.Value)
	res, err = reg.Invoke(callCtx(t), "child.add", json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"sum": json.Number("3")}, res.Value)
	_, err = reg.Invoke(callCtx(t), "child.broken", nil)
	require.Error(t, err)

	// Kill the child; restarts fail while the fail file exists.
	pid1 := invokePID(t, reg)
	require.NotEqual(t, os.Getpid(), pid1, "the tools run in the child")
	require.NoError(t, os.WriteFile(failFile, nil, 0o600))
	proc, err := os.FindProcess(pid1)
	require.NoError(t, err)
	require.NoError(t, proc.Kill())
	log.waitFor(t, "child", "disconnected", func(s mcpproxy.Status) bool { return s.State == mcpproxy.Disconnected })
	// Wait for a failed restart so that the state is settled.
	log.waitFor(t, "child", "a failed restart", func(s mcpproxy.Status) bool {
		return s.State == mcpproxy.Disconnected && s.LastError != "" && s.LastError != "connection closed by the server"
	})

	res, err = reg.Invoke(callCtx(t), "child.echo", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `MCP server "child" is disconnected`)
	assert.Equal(t, mcpproxy.HealthDegraded, p.Health())

	// Let it start again: the proxy reconnects to a new process.
	require.NoError(t, os.Remove(failFile))
	log.waitFor(t, "child", "reconnected", func(s mcpproxy.Status) bool {
		return s.State == mcpproxy.Connected && s.Connects >= 2
	})
	pid2 := invokePID(t, reg)
	assert.NotEqual(t, pid1, pid2)
	assert.Equal(t, mcpproxy.HealthOK, p.Health())
}

func TestStdioMissingCommandIsDisconnected(t *testing.T) {
	reg := newRegistry()
	logger, logs := captureLogger()
	missing := filepath.Join(t.TempDir(), "no-such-server")
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "ghost", Command: []string{missing}}},
		mcpproxy.Options{Logger: logger, Backoff: mcpproxy.Backoff{Initial: waitBound}})
	st := statusOf(t, p, "ghost")
	assert.Equal(t, mcpproxy.Disconnected, st.State)
	assert.Contains(t, st.LastError, "no-such-server")
	assert.Contains(t, logs.String(), "level=WARN")
	assert.Empty(t, proxiedNames(reg, "ghost"))
}

// A reload that changes a command server's description only keeps its
// child process; one that changes its env starts a new child, and a
// tool held across the change (a snippet's later step) is served by it
// once the old child is gone.
func TestStdioReconfigureDescriptionKeepsChildEnvChangeServesHeldTools(t *testing.T) {
	bin := testServer(t)
	reg := newRegistry()
	cfg := mcpproxy.Config{Name: "child", Command: []string{bin}, Env: map[string]string{"X_V": "1"}, Description: "Old."}
	p := newProxy(t, reg, []mcpproxy.Config{cfg}, mcpproxy.Options{})
	pid := invokePID(t, reg)
	held := reg.Pin("child.pid")

	cfg.Description = "New."
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{cfg}))
	assert.Equal(t, pid, invokePID(t, reg), "a description-only change keeps the child")
	assert.Equal(t, "New.", packDescription(t, reg, "child"))
	assert.Equal(t, 1, statusOf(t, p, "child").Connects)

	cfg.Env = map[string]string{"X_V": "2"}
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{cfg}))
	newPID := invokePID(t, reg)
	require.NotEqual(t, pid, newPID, "an env change starts a new child")
	old, err := os.FindProcess(pid)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return errors.Is(old.Signal(syscall.Signal(0)), os.ErrProcessDone) }, waitBound, 10*time.Millisecond, "the old child never ended")

	res, err := held.Invoke(callCtx(t), "child.pid", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, strconv.Itoa(newPID), res.Value, "the held tool is served by the new child")
}

// A stdio server answering with a message larger than one stdio message
// may be (the go-sdk reads at most 16 MiB per message) gets a failure
// that says so, of type upstream_failure — the stream cannot be read past
// it, so the connection is dropped and reconnected, and the next call
// works.
func TestStdioAnswerOverTheMessageCapSaysSo(t *testing.T) {
	bin := testServer(t)
	reg := newRegistry()
	log := newStatusLog()
	newProxy(t, reg, []mcpproxy.Config{{Name: "child", Command: []string{bin}}},
		mcpproxy.Options{Backoff: fastBackoff, OnStatus: log.record, MaxResultBytes: 64 << 20})
	pid1 := invokePID(t, reg)

	res, err := reg.Invoke(callCtx(t), "child.huge", json.RawMessage(`{"bytes":17000000}`))
	require.NoError(t, err)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType, res.Error)
	assert.Contains(t, res.Error, `MCP server "child" answered the call of "huge" with a message over 16 MiB`)

	log.waitFor(t, "child", "reconnected", func(s mcpproxy.Status) bool {
		return s.State == mcpproxy.Connected && s.Connects >= 2
	})
	assert.NotEqual(t, pid1, invokePID(t, reg))
}

// A Command server inherits only InheritedEnv's variables from the host
// (as the official MCP SDKs do), never the rest of the host's environment
// (its own bearer token, a DSN, other servers' keys), plus its Env, which
// wins over an inherited variable; inherited shell functions are skipped.
func TestStdioChildInheritsOnlyTheDefaultEnvironment(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the inherited variables checked are the POSIX ones")
	}
	const hostSecret = "host-5ecret-bearer-7731"
	bin := testServer(t)
	home := t.TempDir()
	t.Setenv("TOOLPACK_AUTH_TOKEN", hostSecret)
	t.Setenv("MCPPROXY_TEST_UNLISTED", "unlisted-value-42")
	t.Setenv("HOME", home)
	t.Setenv("USER", "host-user-name")
	t.Setenv("TERM", "() { echo exported-function; }")
	stderr := &logBuffer{}
	reg := newRegistry()
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "child", Command: []string{bin},
		Env: map[string]string{"TESTSERVER_ENV_DUMP": "1", "CHILD_SETTING": "configured-value-5", "USER": "configured-user"}}},
		mcpproxy.Options{Stderr: stderr})
	require.Equal(t, mcpproxy.Connected, statusOf(t, p, "child").State, statusOf(t, p, "child").LastError)
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "testserver env: end") },
		waitBound, 10*time.Millisecond, "the child never wrote its environment")

	// The child's environment may hold anything of the test process's:
	// failures name variables, never print their values.
	env := map[string]string{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if kv, ok := strings.CutPrefix(line, "testserver env: "); ok && kv != "end" {
			k, v, _ := strings.Cut(kv, "=")
			_, twice := env[k]
			require.False(t, twice, "%s is set once", k)
			env[k] = v
		}
	}
	has := func(k string) bool { _, ok := env[k]; return ok }
	assert.False(t, strings.Contains(stderr.String(), hostSecret), "the host's secrets are not inherited")
	assert.False(t, has("TOOLPACK_AUTH_TOKEN"), "TOOLPACK_AUTH_TOKEN is not inherited")
	assert.False(t, has("MCPPROXY_TEST_UNLISTED"), "a variable not in InheritedEnv is not inherited")
	assert.False(t, has("TERM"), "an exported shell function is not inherited")
	assert.Equal(t, os.Getenv("PATH"), env["PATH"])
	assert.Equal(t, home, env["HOME"])
	// Configured values are secrets: the forwarded stderr shows them redacted.
	assert.Equal(t, "[REDACTED]", env["CHILD_SETTING"], "the configured env is passed")
	assert.Equal(t, "[REDACTED]", env["USER"], "the configured env wins over the inherited variable")
	assert.Equal(t, "1", env["TESTSERVER_ENV_DUMP"])
	allowed := append(mcpproxy.InheritedEnv(), "TESTSERVER_ENV_DUMP", "CHILD_SETTING")
	var extra []string
	for k := range env {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	assert.Empty(t, extra, "nothing else is inherited")
}

// A variable InheritEnv names reaches the child as the host has it, and is
// no secret: a tool's result echoing its value comes back whole, as does
// the child's stderr, while an Env value of the same server is still
// redacted.
func TestStdioChildInheritEnvIsPassedAndNotRedacted(t *testing.T) {
	const plain = "/tmp/inherited-plain-setting-77"
	bin := testServer(t)
	t.Setenv("TESTMCP_SECRETS_DIR", plain)
	t.Setenv("MCPPROXY_TEST_UNLISTED", "unlisted-value-42")
	stderr := &logBuffer{}
	reg := newRegistry()
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "child", Command: []string{bin},
		InheritEnv: []string{"TESTMCP_SECRETS_DIR", "MCPPROXY_TEST_NOT_SET"},
		Env:        map[string]string{"TESTSERVER_ENV_DUMP": "1", "TESTMCP_SECRET_KEY": "configured-key-5150"}}},
		mcpproxy.Options{Stderr: stderr})
	require.Equal(t, mcpproxy.Connected, statusOf(t, p, "child").State, statusOf(t, p, "child").LastError)
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "testserver env: end") },
		waitBound, 10*time.Millisecond, "the child never wrote its environment")
	assert.Contains(t, stderr.String(), "testserver env: TESTMCP_SECRETS_DIR="+plain+"\n")
	assert.NotContains(t, stderr.String(), "MCPPROXY_TEST_UNLISTED", "a variable InheritEnv does not name is not inherited")
	assert.NotContains(t, stderr.String(), "MCPPROXY_TEST_NOT_SET", "a named variable the host has not set is left out")

	res, err := reg.Invoke(callCtx(t), "child.leak_ok", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	text, _ := res.Value.(string)
	assert.Contains(t, text, "hello "+plain+"; split ", "an inherited value is not redacted from a result")
	assert.Contains(t, text, "hello [REDACTED]; split [REDACTED]", "an Env value still is")
	assert.NotContains(t, text, "configured-key-5150")
}

// A short env value that is no credential ("exit") is not redacted from
// inside the server's own name in the log.
func TestShortEnvValueLeavesServerNameInLogsAlone(t *testing.T) {
	bin := testServer(t)
	logger, logs := captureLogger()
	p := newProxy(t, newRegistry(), []mcpproxy.Config{{Name: "secexit", Command: []string{bin},
		Env: map[string]string{"ECHO_MODE": "exit"}}}, mcpproxy.Options{Logger: logger})
	require.Equal(t, mcpproxy.Connected, statusOf(t, p, "secexit").State)
	assert.Contains(t, logs.String(), "mcp_server=secexit")
	assert.NotContains(t, logs.String(), "[REDACTED]")
}
