package mcpproxy_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func localTool(name string) *registry.Tool {
	return &registry.Tool{Name: name, Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
		return result.Ok[any](name), nil
	}}
}

// Hosts proxying each other serve each other's own tools, once: a tool
// that comes back to the host it started from (its registry's ID in the
// listing's toolpack/hosts) is not served again. Before, each host
// mirrored the other's mirror of itself under ever longer names
// (two.one.two.…) until the 128-character cap, reconnecting several times
// a second; and once settled they stay quiet.
func TestLoop_HostsProxyingEachOtherServeEachOthersOwnToolsOnce(t *testing.T) {
	for _, by := range servedBy {
		t.Run(by.name, func(t *testing.T) {
			one, two := newRegistry(), newRegistry()
			require.NoError(t, one.AddPack(&registry.Pack{Name: "a", Tools: []*registry.Tool{localTool("a.x")}}))
			require.NoError(t, two.AddPack(&registry.Pack{Name: "b", Tools: []*registry.Tool{localTool("b.y")}}))
			proxyEachOther(t, by.serve, one, two, "two.b.y", "one.a.x")
			time.Sleep(300 * time.Millisecond) // time for any mirroring to show
			assert.Equal(t, []string{"two.b.y"}, proxiedNames(one, "two"))
			assert.Equal(t, []string{"one.a.x"}, proxiedNames(two, "one"))
			// Settled: a refresh that finds the same tools leaves the pack as
			// it is, so neither host tells the other its list changed (they
			// answered each other's notifications with refreshes for ever,
			// 20 a second).
			var changes atomic.Int32
			for _, reg := range []*registry.Registry{one, two} {
				cancel := reg.Subscribe(func(registry.Change) { changes.Add(1) })
				defer cancel()
			}
			time.Sleep(500 * time.Millisecond)
			assert.Zero(t, changes.Load(), "no tool list changes once settled")
			res, err := one.Invoke(callCtx(t), "two.b.y", nil)
			require.NoError(t, err)
			assert.True(t, res.Success, res.Error)
		})
	}
}

// A host configured to proxy itself serves none of its own tools again.
func TestLoop_HostProxyingItselfServesNothingTwice(t *testing.T) {
	for _, by := range servedBy {
		t.Run(by.name, func(t *testing.T) {
			reg := newRegistry()
			require.NoError(t, reg.AddPack(&registry.Pack{Name: "a", Tools: []*registry.Tool{localTool("a.x")}}))
			log, buf := captureLogger()
			p := newProxy(t, reg, []mcpproxy.Config{by.serve(t, "self", reg)}, mcpproxy.Options{Logger: log})
			require.Eventually(t, func() bool { return statusOf(t, p, "self").State == mcpproxy.Connected }, waitBound, 10*time.Millisecond)
			time.Sleep(300 * time.Millisecond)
			assert.Empty(t, proxiedNames(reg, "self"))
			for _, tl := range reg.List() {
				assert.False(t, strings.HasPrefix(tl.Name, "self."), tl.Name)
			}
			assert.Contains(t, buf.String(), "this host's own, served back to it")
		})
	}
}
