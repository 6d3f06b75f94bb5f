package mcpproxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

// Two hosts proxying each other, a snippet on each calling the other's
// (ping → two.snippet.pong → one.snippet.ping → …), stop at the snippets'
// bound: the depth travels with each forwarded call (registry.MetaCallDepth)
// instead of starting again at zero on the other host, which recursed
// until file descriptors ran out.
func TestCall_DepthTravelsAcrossHostsProxyingEachOther(t *testing.T) {
	for _, by := range servedBy {
		t.Run(by.name, func(t *testing.T) {
			one, two := newRegistry(), newRegistry()
			addSnippets(t, one, map[string]snippet.Definition{"ping": {Body: "two.snippet.pong()"}})
			addSnippets(t, two, map[string]snippet.Definition{"pong": {Body: "one.snippet.ping()"}})
			proxyEachOther(t, by.serve, one, two, "two.snippet.pong", "one.snippet.ping")

			res, err := one.Invoke(callCtx(t), "snippet.ping", nil)
			require.NoError(t, err)
			require.False(t, res.Success)
			assert.Contains(t, res.Error, "deep through other servers")
			assert.Contains(t, res.Error, "does a snippet call itself?")
		})
	}
}

// A call already registry.MaxCallDepth deep is not forwarded, and the
// remote counts on from the depth the call came with (a hop adds no
// level: a chain of snippets is as deep across servers as on one host).
func TestCall_TooDeepIsNotForwarded(t *testing.T) {
	remote := newRegistry()
	require.NoError(t, remote.AddPack(&registry.Pack{Name: "r", Tools: []*registry.Tool{{Name: "echo", Description: "d",
		Handler: func(ctx context.Context, _ *registry.Call) (result.Result[any], error) {
			return result.Ok[any](registry.CallDepth(ctx)), nil
		}}}}))
	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{{Name: "far", Transport: inMemory(mcpserver.NewServer(remote, mcpserver.Options{}))}}, mcpproxy.Options{})
	require.Eventually(t, func() bool { _, _, ok := reg.Resolve("far.echo"); return ok }, waitBound, 10*time.Millisecond)

	res, err := reg.Invoke(registry.WithCallDepth(callCtx(t), registry.MaxCallDepth-1), "far.echo", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, json.Number(strconv.Itoa(registry.MaxCallDepth-1)), res.Value, "the remote's handler sees the depth the call came with")
	res, err = reg.Invoke(registry.WithCallDepth(callCtx(t), registry.MaxCallDepth), "far.echo", nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Contains(t, res.Error, "do servers call each other in a loop?")
}

// A chain of snippets as deep as MaxNesting runs through a proxied server
// as it runs on one host: the hop adds no level (it used one up, so the
// chain that ran directly failed through the proxy).
func TestCall_HopAddsNoNestingLevel(t *testing.T) {
	remote := newRegistry()
	defs := map[string]snippet.Definition{}
	for i := 1; i <= snippet.MaxNesting; i++ {
		body := fmt.Sprintf("snippet.s%d()", i+1)
		if i == snippet.MaxNesting {
			body = "leaf()"
		}
		defs[fmt.Sprintf("s%d", i)] = snippet.Definition{Body: body}
	}
	addSnippets(t, remote, defs)
	require.NoError(t, remote.Add(&registry.Tool{Name: "leaf", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
		return result.Ok[any]("leaf"), nil
	}}))
	res, err := remote.Invoke(callCtx(t), "snippet.s1", nil)
	require.NoError(t, err)
	require.True(t, res.Success, "directly: %s", res.Error)

	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{{Name: "two", Transport: inMemory(mcpserver.NewServer(remote, mcpserver.Options{}))}}, mcpproxy.Options{})
	require.Eventually(t, func() bool { _, _, ok := reg.Resolve("two.snippet.s1"); return ok }, waitBound, 10*time.Millisecond)
	res, err = reg.Invoke(callCtx(t), "two.snippet.s1", nil)
	require.NoError(t, err)
	assert.True(t, res.Success, "through the proxy: %s", res.Error)
}

// A run of snippets spread over hosts proxying each other is held to one
// budget of calls (snippet.MaxRunCalls), as on one host: each forwarded
// call carries the calls left (toolpack/call_budget) and its result the
// calls it started (toolpack/calls_used). Each host counted from zero
// before: snippets of ten steps four levels deep made over 12,000 calls.
func TestCall_BudgetHeldAcrossHosts(t *testing.T) {
	for _, by := range servedBy {
		t.Run(by.name, func(t *testing.T) {
			one, two := newRegistry(), newRegistry()
			var leaves atomic.Int64
			require.NoError(t, two.Add(&registry.Tool{Name: "leaf", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
				leaves.Add(1)
				return result.Ok[any]("leaf"), nil
			}}))
			ten := func(call string) snippet.Definition { return snippet.Definition{Body: strings.Repeat(call+"\n", 10)} }
			addSnippets(t, one, map[string]snippet.Definition{"l1": ten("two.snippet.l2()"), "l3": ten("two.snippet.l4()")})
			addSnippets(t, two, map[string]snippet.Definition{"l2": ten("one.snippet.l3()"), "l4": ten("leaf()")})
			proxyEachOther(t, by.serve, one, two, "two.snippet.l2", "one.snippet.l3")

			res, err := one.Invoke(callCtx(t), "snippet.l1", nil)
			require.NoError(t, err)
			require.False(t, res.Success)
			assert.Contains(t, res.Error, "the most one run may")
			assert.Less(t, leaves.Load(), int64(snippet.MaxRunCalls), "the leaves are within the one run's budget")
		})
	}
}
