package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
	"github.com/toolpack-go/toolpack/registry"
)

// e2eTimeout bounds each end-to-end test (process start, calls, shutdown).
const e2eTimeout = 30 * time.Second

// binPath is the server binary built once by TestMain.
var binPath string

// cacheHome is the user cache directory of the servers the tests run.
var cacheHome string

// goEnv is the environment the tests were given, for the go commands
// they run (builds): XDG_CACHE_HOME, under which the go command keeps its
// build cache, is moved for the tests themselves.
var goEnv []string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolpack-server-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "server")
	// The build below runs in the environment as it was given, before
	// XDG_CACHE_HOME is moved: the go command's cache is under it, and
	// under the moved one (empty) every run built the module and its
	// dependencies from nothing, minutes on a busy machine.
	goEnv = os.Environ()
	// The server keeps stored outputs (and, when enabled, statistics) under
	// the user cache directory when no -config names one: the tests' go to
	// the temporary directory, for run in this process and the binaries.
	cacheHome = filepath.Join(dir, "cache")
	if err := os.Setenv("XDG_CACHE_HOME", cacheHome); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// A fuzzing worker process runs only the fuzz target, which needs no
	// binary: building (and linking) it in every worker kept the fuzzer
	// from ever getting past its first inputs.
	flag.Parse()
	fuzzWorker := false
	if fw := flag.Lookup("test.fuzzworker"); fw != nil {
		fuzzWorker = fw.Value.String() == "true"
	}
	goBin, err := exec.LookPath("go")
	if err == nil && !fuzzWorker {
		cmd := exec.Command(goBin, "build", "-o", binPath, ".")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		cmd.Env = goEnv
		err = cmd.Run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "building the server binary:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// startBackend starts the OJ mock backend on 127.0.0.1 and returns its URL.
func startBackend(t *testing.T) string {
	t.Helper()
	hs := httptest.NewServer(mockbackend.New(mockbackend.Options{}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// testHandler is the server's HTTP handler (guard, path check, /mcp, REST,
// /healthz) for reg, built as run builds it from argv's flags.
func testHandler(t testing.TB, reg *registry.Registry, srv *sdk.Server, proxy *mcpproxy.Proxy, log *slog.Logger, argv ...string) http.Handler {
	t.Helper()
	cfg, err := parseFlags(argv, io.Discard)
	require.NoError(t, err)
	hs, closeAPI, err := newHTTPServer(context.Background(), cfg, reg, srv, proxy, nil, nil, nil, nil, log)
	require.NoError(t, err)
	t.Cleanup(closeAPI)
	return hs.Handler
}

// serverEnv is the environment of a server process using the mock backend,
// with the example tools included.
func serverEnv(backendURL string) []string {
	env := []string{"OJ_BASE_URL=" + backendURL, example.EnvIncludeExampleTools + "=true", "XDG_CACHE_HOME=" + cacheHome}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "SYSTEMROOT"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env // no MCP_TOOL_PREFIX: tool names are the packs' own
}

// syncBuffer is a goroutine-safe buffer for a child's stderr.
type syncBuffer struct{ testlog.Buffer }

var listenLine = regexp.MustCompile(`msg="serving HTTP" addr=(127\.0\.0\.1:\d+)`)

// httpServer is a running server binary in HTTP mode.
type httpServer struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan error
}

// startHTTP starts the binary on a free 127.0.0.1 port, reads the address
// it logs and waits until /healthz answers 200, all within the deadline.
func startHTTP(t *testing.T, ctx context.Context, env []string, extra ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"-addr", "127.0.0.1:0"}, extra...)...)
	cmd.Env = env
	s := &httpServer{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	pr, pw := io.Pipe()
	cmd.Stdout = s.stdout
	cmd.Stderr = io.MultiWriter(s.stderr, pw)
	require.NoError(t, cmd.Start())
	go func() { s.done <- cmd.Wait(); _ = pw.Close() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-s.done
		}
	})

	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case a := <-addr:
		s.base = "http://" + a
	case err := <-s.done:
		t.Fatalf("server exited before listening: %v\nstderr:\n%s", err, s.stderr)
	case <-ctx.Done():
		t.Fatalf("server did not log its address in time\nstderr:\n%s", s.stderr)
	}

	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/healthz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("/healthz not ready in time (last error %v)\nstderr:\n%s", err, s.stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
