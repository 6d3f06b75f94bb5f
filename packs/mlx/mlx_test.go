//go:build linux

package mlx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/internal/contracttest"
	"github.com/toolpack-go/toolpack/packs/mlx"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

var quiet = slog.New(slog.DiscardHandler)

// fakeServer is the path of the fake model server the tests build.
var fakeServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mlx-fake")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeServer = filepath.Join(dir, "fakeserver")
	out, err := exec.Command("go", "build", "-o", fakeServer, "./testdata/fakeserver").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the fake model server: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// freePort is a port of 8100–8139 on which nothing listens.
func freePort(t *testing.T) int {
	t.Helper()
	for p := 8100; p <= 8139; p++ {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		_ = ln.Close()
		return p
	}
	t.Skip("every port of 8100–8139 is taken on this machine")
	return 0
}

func listening(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 300*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// setup is a registry holding an mlx pack whose command is the fake
// server with extra flags; the state file is the test's own.
type setup struct {
	reg   *registry.Registry
	cfg   mlx.Config
	state string
}

func newSetup(t *testing.T, extra ...string) *setup {
	t.Helper()
	s := &setup{state: filepath.Join(t.TempDir(), "state", "mlx.json")}
	s.cfg = mlx.Config{
		Command:      append([]string{fakeServer, "--model", "{model}", "--port", "{port}"}, extra...),
		Models:       []string{"mlx-community/Qwen3-4B", "tiny"},
		StartTimeout: 5 * time.Second,
		StopTimeout:  2 * time.Second,
		StateFile:    s.state,
		Logger:       quiet,
	}
	s.reg = s.registry(t)
	return s
}

// registry is a fresh registry with a fresh pack on the same
// configuration: a restarted host.
func (s *setup) registry(t *testing.T) *registry.Registry {
	t.Helper()
	p, err := mlx.New(s.cfg)
	require.NoError(t, err)
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, reg.AddPack(p))
	return reg
}

func call(t *testing.T, reg *registry.Registry, tool string, a map[string]any) result.Result[any] {
	t.Helper()
	raw, err := json.Marshal(a)
	require.NoError(t, err)
	r, err := reg.Invoke(context.Background(), tool, raw)
	require.NoError(t, err)
	return r
}

// unloadAtEnd stops whatever the test left on the port.
func unloadAtEnd(t *testing.T, s *setup, port int) {
	t.Cleanup(func() {
		_, _ = s.reg.Invoke(context.Background(), "mlx.unload", json.RawMessage(`{"port":`+strconv.Itoa(port)+`}`))
	})
}

// The generated schemas equal the contract's (seed 003), key order aside,
// and the declared errors carry the contract's HTTP statuses.
func TestContract_SchemasAndErrorsEqualSeed(t *testing.T) {
	p, err := mlx.New(mlx.Config{Models: []string{"m"}, StateFile: filepath.Join(t.TempDir(), "s.json")})
	require.NoError(t, err)
	contracttest.Check(t, p, "testdata/contract.json")
}

// Load starts the configured command with the model and port as single
// arguments and answers once the server accepts connections; the server
// is recorded in the state file. Unload stops it and forgets it.
func TestLoad_StartsServerAndUnloadStopsIt(t *testing.T) {
	s := newSetup(t)
	port := freePort(t)
	unloadAtEnd(t, s, port)

	r := call(t, s.reg, "mlx.load", map[string]any{"model": "mlx-community/Qwen3-4B", "port": port})
	require.True(t, r.Success, r.Error)
	out := r.Value.(mlx.LoadOutput)
	assert.Equal(t, mlx.LoadOutput{OK: true, Message: out.Message, Port: port, Model: "mlx-community/Qwen3-4B"}, out)
	assert.Contains(t, out.Message, strconv.Itoa(port))
	assert.True(t, listening(port))

	st := readState(t, s.state)
	require.Contains(t, st, strconv.Itoa(port))
	rec := st[strconv.Itoa(port)]
	assert.Equal(t, "mlx-community/Qwen3-4B", rec.Model)
	assert.Equal(t, []string{fakeServer, "--model", "mlx-community/Qwen3-4B", "--port", strconv.Itoa(port)}, rec.Cmdline, "one argv element per word")

	r = call(t, s.reg, "mlx.unload", map[string]any{"port": port})
	require.True(t, r.Success, r.Error)
	assert.Equal(t, mlx.UnloadOutput{OK: true, Message: r.Value.(mlx.UnloadOutput).Message, Port: port}, r.Value)
	assert.False(t, listening(port))
	assert.False(t, processRuns(rec.PID))
	assert.NotContains(t, readState(t, s.state), strconv.Itoa(port))
}

type record struct {
	PID     int      `json:"pid"`
	Model   string   `json:"model"`
	Cmdline []string `json:"cmdline"`
}

func readState(t *testing.T, path string) map[string]record {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var st map[string]record
	require.NoError(t, json.Unmarshal(b, &st))
	return st
}

// processRuns reports whether pid is a live process (a zombie is not).
func processRuns(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func eventuallyGone(t *testing.T, pid int) {
	t.Helper()
	assert.Eventually(t, func() bool { return !processRuns(pid) }, 5*time.Second, 20*time.Millisecond, "process %d still runs", pid)
}

// Something already listening on the port is port_busy, and nothing is
// started.
func TestLoad_PortBusy(t *testing.T) {
	s := newSetup(t)
	port := freePort(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	require.NoError(t, err)
	defer ln.Close()
	r := call(t, s.reg, "mlx.load", map[string]any{"model": "tiny", "port": port})
	require.False(t, r.Success)
	assert.Equal(t, mlx.ErrPortBusy, r.ErrorType)
	assert.Contains(t, r.Error, strconv.Itoa(port))
	_, err = os.Stat(s.state)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing recorded")
}

// A model that is not configured is model_not_found, naming the models
// that are.
func TestLoad_ModelNotFound(t *testing.T) {
	s := newSetup(t)
	port := freePort(t)
	r := call(t, s.reg, "mlx.load", map[string]any{"model": "gpt-5", "port": port})
	require.False(t, r.Success)
	assert.Equal(t, mlx.ErrModelNotFound, r.ErrorType)
	assert.Contains(t, r.Error, `"gpt-5"`)
	assert.Contains(t, r.Error, "tiny")
	assert.False(t, listening(port))
}

// A server that exits, or never answers within StartTimeout, is
// launch_failed quoting the end of its stderr; one that never answers is
// killed, not left behind.
func TestLoad_LaunchFailed(t *testing.T) {
	t.Run("exits", func(t *testing.T) {
		s := newSetup(t, "--exit")
		r := call(t, s.reg, "mlx.load", map[string]any{"model": "tiny", "port": freePort(t)})
		require.False(t, r.Success)
		assert.Equal(t, mlx.ErrLaunchFailed, r.ErrorType)
		assert.Contains(t, r.Error, "exited")
		assert.Contains(t, r.Error, "cannot load model tiny: out of memory", "the stderr tail")
	})
	t.Run("never answers", func(t *testing.T) {
		pidfile := filepath.Join(t.TempDir(), "pid")
		s := newSetup(t, "--silent", "--pidfile", pidfile)
		s.cfg.StartTimeout = 2 * time.Second // long enough for the process to start and write its pid on a loaded machine
		reg := s.registry(t)
		r := call(t, reg, "mlx.load", map[string]any{"model": "tiny", "port": freePort(t)})
		require.False(t, r.Success)
		assert.Equal(t, mlx.ErrLaunchFailed, r.ErrorType)
		assert.Contains(t, r.Error, "did not answer")
		pid := readPid(t, pidfile)
		eventuallyGone(t, pid)
	})
	t.Run("no such program", func(t *testing.T) {
		s := newSetup(t)
		s.cfg.Command = []string{filepath.Join(t.TempDir(), "mlx_lm.server"), "--port", "{port}"}
		r := call(t, s.registry(t), "mlx.load", map[string]any{"model": "tiny", "port": freePort(t)})
		require.False(t, r.Success)
		assert.Equal(t, mlx.ErrLaunchFailed, r.ErrorType)
	})
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(string(b))
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)
	return pid
}

// A load whose context ends stops the process it started and returns the
// context's error.
func TestLoad_CancelStopsTheProcess(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	s := newSetup(t, "--silent", "--pidfile", pidfile)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.reg.Invoke(ctx, "mlx.load", json.RawMessage(fmt.Sprintf(`{"model":"tiny","port":%d}`, freePort(t))))
		done <- err
	}()
	pid := readPid(t, pidfile)
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("load did not return after its context was cancelled")
	}
	eventuallyGone(t, pid)
}

// A port outside 8100–8139 is invalid_port with every field problem
// listed; over HTTP it is 400 with the problems as details. Nothing is
// started.
func TestLoad_InvalidPort(t *testing.T) {
	s := newSetup(t)
	for _, port := range []int{8099, 8140, 0, -1, 65536} {
		r := call(t, s.reg, "mlx.load", map[string]any{"model": "", "port": port})
		require.False(t, r.Success)
		assert.Equal(t, mlx.ErrInvalidPort, r.ErrorType, "port %d", port)
		assert.Contains(t, r.Error, "port")
		assert.Contains(t, r.Error, "model", "every problem listed")
		r = call(t, s.reg, "mlx.unload", map[string]any{"port": port})
		assert.Equal(t, mlx.ErrInvalidPort, r.ErrorType, "unload port %d", port)
	}
	r := call(t, s.reg, "mlx.load", map[string]any{"model": "tiny", "port": "8100"})
	assert.Equal(t, mlx.ErrInvalidPort, r.ErrorType, "a string is not a port")
	r = call(t, s.reg, "mlx.load", map[string]any{"model": "tiny"})
	assert.Equal(t, mlx.ErrInvalidPort, r.ErrorType, "a missing port")

	api := httptest.NewServer(httpapi.New(s.reg, httpapi.Options{Logger: quiet}))
	defer api.Close()
	status, body := post(t, api.URL+"/tools/mlx.load/invoke", `{"model":"","port":9000}`)
	assert.Equal(t, http.StatusBadRequest, status, body)
	var got struct {
		ErrorType string `json:"error_type"`
		Details   []struct {
			Field string `json:"field"`
		} `json:"details"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Equal(t, "invalid_port", got.ErrorType)
	var fields []string
	for _, d := range got.Details {
		fields = append(fields, d.Field)
	}
	assert.ElementsMatch(t, []string{"model", "port"}, fields)
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// Nothing listening on the port is not_listening, and a stale record of
// a server that died is dropped.
func TestUnload_NotListening(t *testing.T) {
	s := newSetup(t)
	port := freePort(t)
	r := call(t, s.reg, "mlx.unload", map[string]any{"port": port})
	require.False(t, r.Success)
	assert.Equal(t, mlx.ErrNotListening, r.ErrorType)

	r = call(t, s.reg, "mlx.load", map[string]any{"model": "tiny", "port": port})
	require.True(t, r.Success, r.Error)
	pid := readState(t, s.state)[strconv.Itoa(port)].PID
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	require.Eventually(t, func() bool { return !listening(port) }, 5*time.Second, 20*time.Millisecond)
	r = call(t, s.reg, "mlx.unload", map[string]any{"port": port})
	assert.Equal(t, mlx.ErrNotListening, r.ErrorType)
	assert.NotContains(t, readState(t, s.state), strconv.Itoa(port), "the stale record is dropped")
}

// A restarted host (a new pack on the same state file) unloads the
// server the previous one started: nothing is orphaned.
func TestUnload_AfterHostRestart(t *testing.T) {
	s := newSetup(t)
	port := freePort(t)
	unloadAtEnd(t, s, port)
	r := call(t, s.reg, "mlx.load", map[string]any{"model": "tiny", "port": port})
	require.True(t, r.Success, r.Error)
	pid := readState(t, s.state)[strconv.Itoa(port)].PID

	restarted := s.registry(t)
	r = call(t, restarted, "mlx.unload", map[string]any{"port": port})
	require.True(t, r.Success, r.Error)
	assert.False(t, listening(port))
	eventuallyGone(t, pid)
}

// A server that ignores SIGTERM is killed after StopTimeout, and the
// answer says so.
func TestUnload_ForcedAfterStopTimeout(t *testing.T) {
	s := newSetup(t, "--ignore-term")
	s.cfg.StopTimeout = 300 * time.Millisecond
	s.reg = s.registry(t)
	port := freePort(t)
	unloadAtEnd(t, s, port)
	r := call(t, s.reg, "mlx.load", map[string]any{"model": "tiny", "port": port})
	require.True(t, r.Success, r.Error)
	pid := readState(t, s.state)[strconv.Itoa(port)].PID
	r = call(t, s.reg, "mlx.unload", map[string]any{"port": port})
	require.True(t, r.Success, r.Error)
	assert.Contains(t, r.Value.(mlx.UnloadOutput).Message, "killed")
	assert.False(t, listening(port))
	eventuallyGone(t, pid)
}

// A server this pack did not start is left running: unload refuses with
// permission_denied, whether nothing is on record for the port or the
// recorded pid now belongs to another program.
func TestUnload_NeverStopsAServerItDidNotStart(t *testing.T) {
	s := newSetup(t)
	port := freePort(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	r := call(t, s.reg, "mlx.unload", map[string]any{"port": port})
	require.False(t, r.Success)
	assert.Equal(t, result.PermissionDenied, r.ErrorType)
	assert.True(t, listening(port), "left running")

	// A record whose pid is this test process (another program's
	// command line): still refused, and the test survives.
	require.NoError(t, os.MkdirAll(filepath.Dir(s.state), 0o700))
	st := fmt.Sprintf(`{"%d":{"pid":%d,"model":"tiny","cmdline":[%q,"--port","%d"],"started":"2026-01-01T00:00:00Z"}}`, port, os.Getpid(), fakeServer, port)
	require.NoError(t, os.WriteFile(s.state, []byte(st), 0o600))
	r = call(t, s.reg, "mlx.unload", map[string]any{"port": port})
	assert.Equal(t, result.PermissionDenied, r.ErrorType)
	assert.True(t, listening(port))
}

// A state file that is not what the pack writes is a clear failure, not
// a guess, and not a panic.
func TestUnload_CorruptStateFile(t *testing.T) {
	s := newSetup(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(s.state), 0o700))
	require.NoError(t, os.WriteFile(s.state, []byte(`{"8100": {"pid": "x"}`), 0o600))
	_, err := s.reg.Invoke(context.Background(), "mlx.unload", json.RawMessage(`{"port":8100}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "state file")
}

// A bad Config is an error naming the field.
func TestNew_BadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  mlx.Config
		want string
	}{
		{mlx.Config{}, "Config.Models"},
		{mlx.Config{Models: []string{"m"}, Command: []string{}}, "Config.Command"},
		{mlx.Config{Models: []string{"m"}, Command: []string{" "}}, "Config.Command"},
		{mlx.Config{Models: []string{"m"}, StartTimeout: -1}, "Config.StartTimeout"},
		{mlx.Config{Models: []string{"m"}, StopTimeout: -1}, "Config.StopTimeout"},
	} {
		_, err := mlx.New(c.cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
	}
}

// Every error code of the contract is reached through MCP (the failure's
// error type in its _meta) and through HTTP (the contract's
// status).
func TestErrors_ThroughMCPAndHTTP(t *testing.T) {
	busy := freePort(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(busy))
	require.NoError(t, err)
	defer ln.Close()
	s := newSetup(t, "--exit")
	free := freePort(t)
	cases := []struct {
		tool, args string
		typ        string
		status     int
	}{
		{"mlx.load", `{"model":"tiny","port":8000}`, "invalid_port", 400},
		{"mlx.load", `{"model":"nope","port":8100}`, "model_not_found", 404},
		{"mlx.load", fmt.Sprintf(`{"model":"tiny","port":%d}`, busy), "port_busy", 409},
		{"mlx.load", fmt.Sprintf(`{"model":"tiny","port":%d}`, free), "launch_failed", 500},
		{"mlx.unload", `{"port":8200}`, "invalid_port", 400},
		{"mlx.unload", fmt.Sprintf(`{"port":%d}`, free), "not_listening", 404},
	}
	for _, tool := range []string{"mlx.load", "mlx.unload"} {
		var mine []contracttest.Case
		for _, c := range cases {
			if c.tool == tool {
				var a map[string]any
				require.NoError(t, json.Unmarshal([]byte(c.args), &a))
				mine = append(mine, contracttest.Case{Args: a, Type: c.typ, Status: c.status})
			}
		}
		contracttest.Codes(t, s.reg, tool, func(i int) (contracttest.Case, bool) {
			if i >= len(mine) {
				return contracttest.Case{}, false
			}
			return mine[i], true
		})
	}
}
