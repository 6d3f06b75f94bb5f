package mcpproxy_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
)

// waitBound bounds every wait for an asynchronous event, every forwarded
// call and every connection attempt of the tests (newProxy sets it as
// Options.CallTimeout and Options.ConnectTimeout unless a test sets its
// own), so that a hang fails in seconds instead of after the 5-minute
// DefaultCallTimeout. It is a safety net, never an assertion about speed.
const waitBound = 20 * time.Second

// fastBackoff keeps reconnection tests short.
var fastBackoff = mcpproxy.Backoff{Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond}

func newRegistry() *registry.Registry {
	return registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
}

// logBuffer is a goroutine-safe log sink.
type logBuffer struct{ testlog.Buffer }

func captureLogger() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

// memRemote is an in-process go-sdk server reached over in-memory
// transports; every connection attempt gets a new transport pair.
type memRemote struct {
	srv      *mcp.Server
	down     atomic.Bool
	attempts atomic.Int32
	connects atomic.Int32
	mu       sync.Mutex
	sessions []*mcp.ServerSession
}

func newMemRemote(opts testmcp.Options) *memRemote {
	return &memRemote{srv: testmcp.New(opts)}
}

func (m *memRemote) factory(ctx context.Context) (mcp.Transport, error) {
	m.attempts.Add(1)
	if m.down.Load() {
		return nil, errors.New("remote is down")
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := m.srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	m.connects.Add(1)
	m.mu.Lock()
	m.sessions = append(m.sessions, ss)
	m.mu.Unlock()
	return ct, nil
}

// dropAll closes every server-side session: the proxy sees its session end.
func (m *memRemote) dropAll() {
	m.mu.Lock()
	ss := m.sessions
	m.sessions = nil
	m.mu.Unlock()
	for _, s := range ss {
		_ = s.Close()
	}
}

// statusLog records status changes for waiting on them.
type statusLog struct {
	ch chan mcpproxy.Status
}

func newStatusLog() *statusLog { return &statusLog{ch: make(chan mcpproxy.Status, 1024)} }

func (l *statusLog) record(s mcpproxy.Status) {
	select {
	case l.ch <- s:
	default:
	}
}

// waitFor reads status changes until one of server name satisfies ok.
func (l *statusLog) waitFor(t *testing.T, name string, what string, ok func(mcpproxy.Status) bool) mcpproxy.Status {
	t.Helper()
	timeout := time.After(waitBound)
	for {
		select {
		case s := <-l.ch:
			if s.Name == name && ok(s) {
				return s
			}
		case <-timeout:
			t.Fatalf("server %q never reached: %s", name, what)
		}
	}
}

func statusOf(t *testing.T, p *mcpproxy.Proxy, name string) mcpproxy.Status {
	t.Helper()
	for _, s := range p.Status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for %q", name)
	return mcpproxy.Status{}
}

// proxiedNames lists the registry's tools with the given source.
func proxiedNames(reg *registry.Registry, server string) []string {
	var out []string
	for _, t := range reg.List() {
		if t.Source == registry.SourceProxyPrefix+server {
			out = append(out, t.Name)
		}
	}
	return out
}

// waitGoroutines waits (bounded) until the goroutine count is back to at
// most n and returns the final count.
func waitGoroutines(n int) int {
	deadline := time.Now().Add(waitBound)
	for {
		g := runtime.NumGoroutine()
		if g <= n || time.Now().After(deadline) {
			return g
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func newProxy(t *testing.T, reg *registry.Registry, cfgs []mcpproxy.Config, opts mcpproxy.Options) *mcpproxy.Proxy {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts = bounded(opts)
	p, err := mcpproxy.New(context.Background(), reg, cfgs, opts)
	require.NoError(t, err)
	t.Cleanup(func() { closeBounded(t, p) })
	return p
}

// bounded sets waitBound as the call and connect timeouts when opts leaves
// them at their (long) defaults.
func bounded(opts mcpproxy.Options) mcpproxy.Options {
	if opts.CallTimeout == 0 {
		opts.CallTimeout = waitBound
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = waitBound
	}
	return opts
}

// callCtx is the context of a call made by a test: it ends with the test,
// and after waitBound at the latest.
func callCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitBound)
	t.Cleanup(cancel)
	return ctx
}

// startHTTP serves srv over streamable HTTP on 127.0.0.1; wrap, when set,
// wraps the MCP handler (to check or copy request headers).
func startHTTP(t *testing.T, srv *mcp.Server, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts
}

// closeBounded closes p, failing the test (instead of hanging it) when Close
// does not return within waitBound.
func closeBounded(t *testing.T, p *mcpproxy.Proxy) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		_ = p.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(waitBound):
		t.Errorf("Proxy.Close did not return within %v", waitBound)
	}
}

// sdkServed is a server config reaching reg served by the official SDK
// (adapters/mcpserver) over an in-memory connection; mcpgoServed (in
// mcpgo_test.go) one served by mark3labs/mcp-go over streamable HTTP.
func sdkServed(_ *testing.T, name string, reg *registry.Registry) mcpproxy.Config {
	return mcpproxy.Config{Name: name, Transport: inMemory(mcpserver.NewServer(reg, mcpserver.Options{}))}
}

// servedBy are the ways a host serves its registry that the loop
// protections must hold for, each a subtest of the tests that range over
// them.
var servedBy = []struct {
	name  string
	serve func(t *testing.T, name string, reg *registry.Registry) mcpproxy.Config
}{{"go-sdk", sdkServed}, {"mcp-go", mcpgoServed}}

// proxyEachOther makes one proxy two (as server "two") and two proxy one
// (as "one"), each reaching the other's registry as serve serves it, and
// waits until one serves onOne and two serves onTwo.
func proxyEachOther(t *testing.T, serve func(*testing.T, string, *registry.Registry) mcpproxy.Config, one, two *registry.Registry, onOne, onTwo string) {
	t.Helper()
	newProxy(t, one, []mcpproxy.Config{serve(t, "two", two)}, mcpproxy.Options{})
	newProxy(t, two, []mcpproxy.Config{serve(t, "one", one)}, mcpproxy.Options{})
	require.Eventually(t, func() bool {
		_, _, a := one.Resolve(onOne)
		_, _, b := two.Resolve(onTwo)
		return a && b
	}, waitBound, 10*time.Millisecond)
}

// addSnippets serves defs as reg's snippet pack.
func addSnippets(t *testing.T, reg *registry.Registry, defs map[string]snippet.Definition) {
	t.Helper()
	p, err := snippet.Pack(defs, reg)
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
}
