package mcpproxy_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpgo"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

// serveMCPGo serves reg on mark3labs/mcp-go (adapters/mcpgo) over
// streamable HTTP on 127.0.0.1 and returns its URL.
func serveMCPGo(t *testing.T, reg *registry.Registry) string {
	t.Helper()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(mcpgo.NewServer(reg, mcpgo.Options{Logger: slog.New(slog.DiscardHandler)})))
	t.Cleanup(hs.Close)
	return hs.URL
}

// proxyEachOtherOnMCPGo is proxyEachOther with each host served by
// mcp-go instead of the official SDK.
func proxyEachOtherOnMCPGo(t *testing.T, one, two *registry.Registry, onOne, onTwo string) {
	t.Helper()
	newProxy(t, one, []mcpproxy.Config{{Name: "two", URL: serveMCPGo(t, two)}}, mcpproxy.Options{})
	newProxy(t, two, []mcpproxy.Config{{Name: "one", URL: serveMCPGo(t, one)}}, mcpproxy.Options{})
	require.Eventually(t, func() bool {
		_, _, a := one.Resolve(onOne)
		_, _, b := two.Resolve(onTwo)
		return a && b
	}, waitBound, 10*time.Millisecond)
}

// Hosts served by mcp-go are as safe in a loop as those served by the
// official SDK: the listing names the registries a tool came through
// (toolpack/hosts), so neither host mirrors its own tools back; each
// forwarded call carries its depth, so ping-pong snippets stop at the
// bound; and its calls left, so a run spread over both is held to one
// budget. mcp-go hosts had none of the three.
func TestMCPGo_HostsProxyingEachOtherServeEachOthersOwnToolsOnce(t *testing.T) {
	one, two := newRegistry(), newRegistry()
	require.NoError(t, one.AddPack(&registry.Pack{Name: "a", Tools: []*registry.Tool{localTool("a.x")}}))
	require.NoError(t, two.AddPack(&registry.Pack{Name: "b", Tools: []*registry.Tool{localTool("b.y")}}))
	proxyEachOtherOnMCPGo(t, one, two, "two.b.y", "one.a.x")
	time.Sleep(300 * time.Millisecond) // time for any mirroring to show
	assert.Equal(t, []string{"two.b.y"}, proxiedNames(one, "two"))
	assert.Equal(t, []string{"one.a.x"}, proxiedNames(two, "one"))
}

func TestMCPGo_HostProxyingItselfServesNothingTwice(t *testing.T) {
	reg := newRegistry()
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "a", Tools: []*registry.Tool{localTool("a.x")}}))
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "self", URL: serveMCPGo(t, reg)}}, mcpproxy.Options{})
	require.Eventually(t, func() bool { return statusOf(t, p, "self").State == mcpproxy.Connected }, waitBound, 10*time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	assert.Empty(t, proxiedNames(reg, "self"))
}

func TestMCPGo_DepthTravelsAcrossHostsProxyingEachOther(t *testing.T) {
	one, two := newRegistry(), newRegistry()
	addSnippets(t, one, map[string]snippet.Definition{"ping": {Body: "two.snippet.pong()"}})
	addSnippets(t, two, map[string]snippet.Definition{"pong": {Body: "one.snippet.ping()"}})
	proxyEachOtherOnMCPGo(t, one, two, "two.snippet.pong", "one.snippet.ping")

	res, err := one.Invoke(callCtx(t), "snippet.ping", nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Contains(t, res.Error, "deep through other servers")
}

func TestMCPGo_BudgetHeldAcrossHosts(t *testing.T) {
	one, two := newRegistry(), newRegistry()
	var leaves atomic.Int64
	require.NoError(t, two.Add(&registry.Tool{Name: "leaf", Description: "d", Handler: func(_ context.Context, _ *registry.Call) (result.Result[any], error) {
		leaves.Add(1)
		return result.Ok[any]("leaf"), nil
	}}))
	ten := func(call string) snippet.Definition { return snippet.Definition{Body: strings.Repeat(call+"\n", 10)} }
	addSnippets(t, one, map[string]snippet.Definition{"l1": ten("two.snippet.l2()"), "l3": ten("two.snippet.l4()")})
	addSnippets(t, two, map[string]snippet.Definition{"l2": ten("one.snippet.l3()"), "l4": ten("leaf()")})
	proxyEachOtherOnMCPGo(t, one, two, "two.snippet.l2", "one.snippet.l3")

	res, err := one.Invoke(callCtx(t), "snippet.l1", nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Contains(t, res.Error, "the most one run may")
	assert.Less(t, leaves.Load(), int64(snippet.MaxRunCalls), "the leaves are within the one run's budget")
}
