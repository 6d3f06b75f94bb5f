package mcpproxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

// swapRemote is a testmcp server on 127.0.0.1 over streamable HTTP that
// counts the MCP sessions clients open and close, and records the X-V
// header of the last tools/call request.
type swapRemote struct {
	url     string
	opened  atomic.Int32 // distinct session ids seen
	deleted atomic.Int32 // sessions closed by their client (DELETE)
	mu      sync.Mutex
	lastV   string
}

func newSwapRemote(t *testing.T) *swapRemote {
	t.Helper()
	return serveSwapRemote(t, testmcp.New(testmcp.Options{Name: "swap"}))
}

// serveSwapRemote serves srv as a swapRemote.
func serveSwapRemote(t *testing.T, srv *mcp.Server) *swapRemote {
	t.Helper()
	r := &swapRemote{}
	seen := map[string]bool{}
	ts := startHTTP(t, srv, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.mu.Lock()
			if id := req.Header.Get("Mcp-Session-Id"); id != "" && !seen[id] {
				seen[id] = true
				r.opened.Add(1)
			}
			if req.Method == http.MethodPost {
				r.lastV = req.Header.Get("X-V")
			}
			r.mu.Unlock()
			if req.Method == http.MethodDelete {
				r.deleted.Add(1)
			}
			h.ServeHTTP(w, req)
		})
	})
	r.url = ts.URL + "/mcp"
	return r
}

func (r *swapRemote) lastHeader() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastV
}

// waitDeleted waits (bounded) until the remote has seen n sessions closed.
func (r *swapRemote) waitDeleted(t *testing.T, n int32) {
	t.Helper()
	require.Eventually(t, func() bool { return r.deleted.Load() >= n }, waitBound, 5*time.Millisecond,
		"the old session is never closed")
}

func sumOf(t *testing.T, res result.Result[any]) string {
	t.Helper()
	js, err := json.Marshal(res.Value)
	require.NoError(t, err)
	return string(js)
}

func withHeader(name, url, v string) mcpproxy.Config {
	return mcpproxy.Config{Name: name, URL: url, Headers: map[string]string{"X-V": v}}
}

// A tool held across a reload (a snippet's later step) of a server whose
// headers changed is served, by the new connection, once the old one is
// closed.
func TestReconfigure_HeldToolOfChangedServerServedAfterSwap(t *testing.T) {
	reg := newRegistry()
	remote := newSwapRemote(t)
	p := newProxy(t, reg, []mcpproxy.Config{withHeader("srv", remote.url, "1")}, mcpproxy.Options{})
	held := reg.Pin("srv.add")
	res, err := held.Invoke(callCtx(t), "srv.add", json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	require.True(t, res.Success, "%s", res.Error)

	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{withHeader("srv", remote.url, "2")}))
	remote.waitDeleted(t, 1) // the old connection is gone

	res, err = held.Invoke(callCtx(t), "srv.add", json.RawMessage(`{"a":3,"b":4}`))
	require.NoError(t, err)
	require.True(t, res.Success, "a held tool of a changed server is served after the swap: %s", res.Error)
	assert.JSONEq(t, `{"sum":7}`, sumOf(t, res))
	assert.Equal(t, "2", remote.lastHeader(), "served by the new connection")

	// And again after a second change: the chain of replacements is followed.
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{withHeader("srv", remote.url, "3")}))
	remote.waitDeleted(t, 2)
	res, err = held.Invoke(callCtx(t), "srv.add", json.RawMessage(`{"a":1,"b":1}`))
	require.NoError(t, err)
	require.True(t, res.Success, "%s", res.Error)
	assert.Equal(t, "3", remote.lastHeader())
	assert.Equal(t, mcpproxy.Connected, statusOf(t, p, "srv").State)
}

// A tool held across a reload that removes its server fails, saying the
// server was removed (not that it is disconnected).
func TestReconfigure_HeldToolOfRemovedServerSaysRemoved(t *testing.T) {
	reg := newRegistry()
	remote := newSwapRemote(t)
	p := newProxy(t, reg, []mcpproxy.Config{withHeader("srv", remote.url, "1")}, mcpproxy.Options{})
	held := reg.Pin("srv.add")

	require.NoError(t, p.Reconfigure(callCtx(t), nil))
	remote.waitDeleted(t, 1)

	res, err := held.Invoke(callCtx(t), "srv.add", json.RawMessage(`{"a":3,"b":4}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, "removed from the configuration")
	assert.NotContains(t, res.Error, "disconnected")
}

// Callers, some holding the tools they found as a snippet does, keep
// calling while the server's headers change 100 times: no call fails.
func TestReconfigure_CallsAcrossRepeatedHeaderChangesNeverFail(t *testing.T) {
	reg := newRegistry()
	remote := newSwapRemote(t)
	p := newProxy(t, reg, []mcpproxy.Config{withHeader("srv", remote.url, "0")}, mcpproxy.Options{})

	ctx := callCtx(t)
	stop := make(chan struct{})
	var calls, failures atomic.Int64
	var mu sync.Mutex
	var firstFailure string
	fail := func(what string) {
		if failures.Add(1) == 1 {
			mu.Lock()
			firstFailure = what
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				// Half the workers hold the tool for a few calls, as a
				// snippet holds its tools across a reload.
				var invoke func(context.Context, string, json.RawMessage) (result.Result[any], error) = reg.Invoke
				n := 1
				if w%2 == 1 {
					invoke, n = reg.Pin("srv.add").Invoke, 4
				}
				for range n {
					res, err := invoke(ctx, "srv.add", json.RawMessage(`{"a":1,"b":2}`))
					calls.Add(1)
					switch {
					case err != nil:
						fail(err.Error())
					case !res.Success:
						fail(fmt.Sprintf("%s", res.Error))
					}
				}
			}
		})
	}
	for i := range 100 {
		require.NoError(t, p.Reconfigure(ctx, []mcpproxy.Config{withHeader("srv", remote.url, fmt.Sprint(i%2))}))
	}
	close(stop)
	wg.Wait()

	assert.Positive(t, calls.Load())
	assert.Zero(t, failures.Load(), "no call fails while the server is swapped 100 times (%d calls); first failure: %s", calls.Load(), firstFailure)
	assert.Equal(t, mcpproxy.Connected, statusOf(t, p, "srv").State)
	assert.Len(t, proxiedNames(reg, "srv"), len(testmcp.BaseTools()))
}

// A change of a server's description only keeps its connection and
// updates its pack's description.
func TestReconfigure_DescriptionOnlyChangeKeepsConnection(t *testing.T) {
	reg := newRegistry()
	remote := newSwapRemote(t)
	cfg := withHeader("srv", remote.url, "1")
	cfg.Description = "Old words."
	p := newProxy(t, reg, []mcpproxy.Config{cfg}, mcpproxy.Options{})
	require.Equal(t, int32(1), remote.opened.Load())
	held := reg.Pin("srv.add")

	var changes atomic.Int32
	cancel := reg.Subscribe(func(registry.Change) { changes.Add(1) })
	defer cancel()
	cfg.Description = "New words."
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{cfg}))

	assert.Equal(t, "New words.", packDescription(t, reg, "srv"))
	assert.Equal(t, int32(1), changes.Load(), "the pack is replaced once")
	res, err := held.Invoke(callCtx(t), "srv.add", json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	require.True(t, res.Success, "%s", res.Error)
	assert.Equal(t, int32(1), remote.opened.Load(), "no new connection")
	assert.Zero(t, remote.deleted.Load(), "the connection is not closed")
	assert.Equal(t, 1, statusOf(t, p, "srv").Connects)

	// Back to the built description (none given).
	cfg.Description = ""
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{cfg}))
	assert.Contains(t, packDescription(t, reg, "srv"), `Tools of the MCP server "srv"`)
	assert.Equal(t, int32(1), remote.opened.Load())
}

func packDescription(t *testing.T, reg *registry.Registry, name string) string {
	t.Helper()
	for _, pk := range reg.Packs() {
		if pk.Name == name {
			return pk.Description
		}
	}
	t.Fatalf("no pack %q", name)
	return ""
}

// A changed server's tools are served from the moment they replace the
// old ones: a call made at once (here by a subscriber, on the goroutine
// that registered them, before that goroutine goes on) does not find the
// new server without its session.
func TestReconfigure_ReplacedToolsServedFromTheirRegistration(t *testing.T) {
	reg := newRegistry()
	remote := newSwapRemote(t)
	p := newProxy(t, reg, []mcpproxy.Config{withHeader("srv", remote.url, "1")}, mcpproxy.Options{})

	got := make(chan result.Result[any], 1)
	cancel := reg.Subscribe(func(c registry.Change) {
		for _, tl := range c.Added {
			if tl.Name == "srv.add" {
				res, _ := tl.Handler(callCtx(t), &registry.Call{Raw: json.RawMessage(`{"a":1,"b":2}`)})
				select {
				case got <- res:
				default:
				}
			}
		}
	})
	defer cancel()
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{withHeader("srv", remote.url, "2")}))
	select {
	case res := <-got:
		require.True(t, res.Success, "%s", res.Error)
		assert.JSONEq(t, `{"sum":3}`, sumOf(t, res))
	case <-time.After(waitBound):
		t.Fatal("the new tools were never registered")
	}
}

// A tool held across two changes, called by a registry subscriber while
// the third server registers its tools (the proxy holds its pack lock
// then), is forwarded without a deadlock.
func TestReconfigure_HeldToolForwardedFromSubscriberWithoutDeadlock(t *testing.T) {
	reg := newRegistry()
	remote := newSwapRemote(t)
	p := newProxy(t, reg, []mcpproxy.Config{withHeader("srv", remote.url, "1")}, mcpproxy.Options{})
	held := reg.Pin("srv.add")
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{withHeader("srv", remote.url, "2")}))
	remote.waitDeleted(t, 1) // the first server is retired: its tools forward

	got := make(chan result.Result[any], 1)
	cancel := reg.Subscribe(func(c registry.Change) {
		if len(c.Added) == 0 {
			return
		}
		res, _ := held.Invoke(callCtx(t), "srv.add", json.RawMessage(`{"a":2,"b":2}`))
		select {
		case got <- res:
		default:
		}
	})
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Reconfigure(callCtx(t), []mcpproxy.Config{withHeader("srv", remote.url, "3")}) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitBound):
		t.Fatal("Reconfigure deadlocked")
	}
	res := <-got
	require.True(t, res.Success, "%s", res.Error)
	assert.JSONEq(t, `{"sum":4}`, sumOf(t, res))
}

// A snippet running across a reload that changes its server's headers
// finishes: its second step, holding the old server's tool, is served
// although the old connection closed during the first (the audit's
// "remote.add failed: ... removed from the configuration").
func TestReconfigure_SnippetAcrossHeaderChangeFinishes(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "count", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "4"}}, StructuredContent: map[string]any{"n": 4}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ A, B float64 }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil
		})
	remote := serveSwapRemote(t, srv)
	reg := newRegistry()
	p := newProxy(t, reg, []mcpproxy.Config{withHeader("remote", remote.url, "1")}, mcpproxy.Options{})
	// gate waits until the old connection is closed, so that the last
	// step surely comes after it.
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "gate", Tools: []*registry.Tool{{Name: "gate.closed", Description: "d",
		Handler: func(ctx context.Context, _ *registry.Call) (result.Result[any], error) {
			for remote.deleted.Load() < 1 {
				select {
				case <-ctx.Done():
					return result.Failure[any]("the old connection never closed", result.Timeout), nil
				case <-time.After(5 * time.Millisecond):
				}
			}
			return result.Ok[any]("closed"), nil
		}}}}))
	addSnippets(t, reg, map[string]snippet.Definition{"slow": {Body: "r = remote.count()\ngate.closed()\nremote.add(a=r.n, b=1)"}})

	got := make(chan result.Result[any], 1)
	go func() {
		res, _ := reg.Invoke(callCtx(t), "snippet.slow", nil)
		got <- res
	}()
	<-started
	require.NoError(t, p.Reconfigure(callCtx(t), []mcpproxy.Config{withHeader("remote", remote.url, "2")}))
	close(release) // the first step ends; the old connection then closes (gate)
	res := <-got
	require.True(t, res.Success, "%s", res.Error)
	assert.Equal(t, "5", res.Value)
	assert.Equal(t, "2", remote.lastHeader(), "the second step went to the new connection")
}
