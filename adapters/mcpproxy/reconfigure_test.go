package mcpproxy_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// httpRemote serves a testmcp server named name over streamable HTTP on
// 127.0.0.1 and counts the MCP sessions clients use (distinct session
// ids in requests).
func httpRemote(t *testing.T, name string) (url string, sessions *atomic.Int32) {
	t.Helper()
	srv := testmcp.New(testmcp.Options{Name: name})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var n atomic.Int32
	var mu sync.Mutex
	seen := map[string]bool{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			mu.Lock()
			if !seen[id] {
				seen[id] = true
				n.Add(1)
			}
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL + "/mcp", &n
}

func TestReconfigure_AddsRemovesAndKeepsServers(t *testing.T) {
	reg := newRegistry()
	keepURL, keepSessions := httpRemote(t, "keep")
	goneURL, _ := httpRemote(t, "gone")
	newURL, _ := httpRemote(t, "new")
	p := newProxy(t, reg, []mcpproxy.Config{
		{Name: "keep", URL: keepURL},
		{Name: "gone", URL: goneURL},
	}, mcpproxy.Options{})
	require.Equal(t, mcpproxy.Connected, statusOf(t, p, "keep").State)
	require.NotEmpty(t, proxiedNames(reg, "gone"))
	require.Equal(t, int32(1), keepSessions.Load())

	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{
		{Name: "keep", URL: keepURL},
		{Name: "added", URL: newURL},
	}))

	assert.Empty(t, proxiedNames(reg, "gone"), "a removed server's tools are gone")
	assert.Len(t, proxiedNames(reg, "added"), len(testmcp.BaseTools()), "a new server's tools are registered")
	assert.Len(t, proxiedNames(reg, "keep"), len(testmcp.BaseTools()))
	var names []string
	for _, st := range p.Status() {
		names = append(names, st.Name)
	}
	assert.Equal(t, []string{"added", "keep"}, names)
	assert.Equal(t, int32(1), keepSessions.Load(), "an unchanged server keeps its session")
	assert.Equal(t, 1, statusOf(t, p, "keep").Connects)
	res, err := reg.Invoke(callCtx(t), "added.echo", json.RawMessage(`{"text":"hi"}`))
	require.NoError(t, err)
	assert.Equal(t, "hi", res.Value)
	res, err = reg.Invoke(callCtx(t), "gone.echo", json.RawMessage(`{"text":"hi"}`))
	require.ErrorIs(t, err, registry.ErrUnknownTool)
	assert.False(t, res.Success)
}

func TestReconfigure_ChangedServerSwapsToolsInOneStep(t *testing.T) {
	reg := newRegistry()
	oldURL, _ := httpRemote(t, "old-remote")
	newURL, _ := httpRemote(t, "new-remote")
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "srv", URL: oldURL}}, mcpproxy.Options{})
	require.Equal(t, "old-remote 1.0.0", statusOf(t, p, "srv").Remote)

	var changes []registry.Change
	var mu sync.Mutex
	cancel := reg.Subscribe(func(c registry.Change) {
		mu.Lock()
		changes = append(changes, c)
		mu.Unlock()
	})
	defer cancel()

	// Callers keep calling through the change; none may fail.
	stop := make(chan struct{})
	var failures, calls atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := reg.Invoke(context.Background(), "srv.echo", json.RawMessage(`{"text":"x"}`))
				calls.Add(1)
				if err != nil || !res.Success {
					failures.Add(1)
				}
			}
		}()
	}
	for calls.Load() < 20 {
		runtime.Gosched()
	}
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{{Name: "srv", URL: newURL}}))
	before := calls.Load()
	for calls.Load() < before+20 {
		runtime.Gosched()
	}
	close(stop)
	wg.Wait()

	assert.Zero(t, failures.Load(), "no call fails while a changed server is swapped (%d calls)", calls.Load())
	assert.Equal(t, "new-remote 1.0.0", statusOf(t, p, "srv").Remote)
	assert.Len(t, proxiedNames(reg, "srv"), len(testmcp.BaseTools()))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, changes, 1, "the tools are replaced in one registry change")
	assert.Empty(t, changes[0].Removed)
	assert.Len(t, changes[0].Added, len(testmcp.BaseTools()))
}

// slowRemote is a remote with one tool, "slow", that answers "done" once
// released; started receives a value when a call begins.
type slowRemote struct {
	url     string
	started chan struct{}
	release chan struct{}
}

func newSlowRemote(t *testing.T) *slowRemote {
	t.Helper()
	r := &slowRemote{started: make(chan struct{}, 8), release: make(chan struct{})}
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.started <- struct{}{}
			select {
			case <-r.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	r.url = startHTTP(t, srv, nil).URL + "/mcp"
	return r
}

func TestReconfigure_RemovedServerFinishesCallsInFlight(t *testing.T) {
	reg := newRegistry()
	slow := newSlowRemote(t)
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "slow", URL: slow.url}}, mcpproxy.Options{})
	require.Equal(t, mcpproxy.Connected, statusOf(t, p, "slow").State)

	type answer struct {
		res result.Result[any]
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := reg.Invoke(callCtx(t), "slow.slow", nil)
		got <- answer{res, err}
	}()
	<-slow.started
	require.NoError(t, p.Reconfigure(callCtx(t), nil), "Reconfigure does not wait for calls in flight")
	assert.Empty(t, proxiedNames(reg, "slow"), "the removed server's tools are gone at once")
	assert.Empty(t, p.Status())
	close(slow.release)
	a := <-got
	require.NoError(t, a.err)
	require.True(t, a.res.Success, "the call in flight finishes: %s", a.res.Error)
	assert.Equal(t, "done", a.res.Value)
}

func TestReconfigure_InvalidChangesNothing(t *testing.T) {
	reg := newRegistry()
	url, sessions := httpRemote(t, "r")
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "r", URL: url}}, mcpproxy.Options{})
	err := p.Reconfigure(callCtx(t), []mcpproxy.Config{
		{Name: "r", URL: url},
		{Name: "bad name!", URL: url},
		{Name: "both", URL: url, Command: []string{"x"}},
	})
	require.ErrorIs(t, err, mcpproxy.ErrInvalidConfig)
	var ce *mcpproxy.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "servers[1]")
	assert.Contains(t, err.Error(), `"both"`)
	assert.Len(t, proxiedNames(reg, "r"), len(testmcp.BaseTools()))
	assert.Equal(t, int32(1), sessions.Load())
	assert.Len(t, p.Status(), 1)
}

func TestReconfigure_AfterCloseIsErrClosed(t *testing.T) {
	reg := newRegistry()
	p := newProxy(t, reg, nil, mcpproxy.Options{})
	require.NoError(t, p.Close())
	require.ErrorIs(t, p.Reconfigure(callCtx(t), nil), mcpproxy.ErrClosed)
}

func TestReconfigure_FromEmptyAndSecretsRedacted(t *testing.T) {
	const secret = "rec0nf-secret-token-99aa"
	reg := newRegistry()
	logger, logs := captureLogger()
	var statuses []mcpproxy.Status
	var mu sync.Mutex
	p := newProxy(t, reg, nil, mcpproxy.Options{Logger: logger, Backoff: mcpproxy.Backoff{Initial: waitBound, MaxTries: 1},
		OnStatus: func(s mcpproxy.Status) {
			mu.Lock()
			statuses = append(statuses, s)
			mu.Unlock()
		}})
	// The remote refuses the token and echoes it in its answer.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad token "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	t.Cleanup(ts.Close)
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{
		{Name: "sec", URL: ts.URL + "/mcp?key=" + secret, Headers: map[string]string{"Authorization": "Bearer " + secret}},
	}))
	st := statusOf(t, p, "sec")
	assert.Equal(t, mcpproxy.Disconnected, st.State)
	assert.NotEmpty(t, st.LastError)
	assert.NotContains(t, st.LastError, secret)
	assert.NotContains(t, logs.String(), secret)
	assert.Contains(t, logs.String(), "sec")
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, statuses, "a server added by Reconfigure reports its status")
	for _, s := range statuses {
		assert.NotContains(t, s.LastError, secret)
	}
}

func TestReconfigure_ConcurrentCallsSerialisedAndCloseStopsAll(t *testing.T) {
	base := runtime.NumGoroutine()
	reg := newRegistry()
	a := newMemRemote(testmcp.Options{Name: "a"})
	b := newMemRemote(testmcp.Options{Name: "b"})
	p, err := mcpproxy.New(context.Background(), reg, nil, bounded(mcpproxy.Options{Logger: slog.New(slog.DiscardHandler)}))
	require.NoError(t, err)
	// Configs with a Transport always count as changed: every call
	// restarts the servers it keeps.
	sets := [][]mcpproxy.Config{
		{{Name: "x", Transport: a.factory}},
		{{Name: "x", Transport: b.factory}, {Name: "y", Transport: a.factory}},
		{{Name: "y", Transport: b.factory}},
		nil,
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Reconfigure(callCtx(t), sets[i%len(sets)]); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Reconfigure: %v", err)
	}
	// Whatever order they ran in, the registry holds exactly the packs of
	// the servers the proxy reports connected.
	var want []string
	for _, st := range p.Status() {
		if st.State == mcpproxy.Connected {
			want = append(want, st.Name)
		}
	}
	var got []string
	for _, pk := range reg.Packs() {
		got = append(got, pk.Name)
	}
	assert.Equal(t, want, got)
	closeBounded(t, p)
	assert.Empty(t, reg.List(), "Close removes every proxied tool")
	assert.LessOrEqual(t, waitGoroutines(base), base, "Close stops every goroutine, retired servers' included")
	require.ErrorIs(t, p.Reconfigure(callCtx(t), nil), mcpproxy.ErrClosed)
}

func TestReconfigure_ChangedServerThatCannotConnectDropsOldTools(t *testing.T) {
	reg := newRegistry()
	url, _ := httpRemote(t, "r")
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "r", URL: url}}, mcpproxy.Options{Backoff: mcpproxy.Backoff{Initial: waitBound, MaxTries: 1}})
	require.Len(t, proxiedNames(reg, "r"), len(testmcp.BaseTools()))
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/mcp"
	dead.Close()

	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{{Name: "r", URL: deadURL}}))
	assert.Equal(t, mcpproxy.Disconnected, statusOf(t, p, "r").State, "the status is the new server's")
	// The old server finishes (no call in flight) and removes its tools
	// in the background.
	ctx := callCtx(t)
	for len(proxiedNames(reg, "r")) > 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the old server's tools were never removed")
		case <-time.After(5 * time.Millisecond):
		}
	}
	res, err := reg.Invoke(callCtx(t), "r.echo", nil)
	require.ErrorIs(t, err, registry.ErrUnknownTool)
	assert.False(t, res.Success)
}
