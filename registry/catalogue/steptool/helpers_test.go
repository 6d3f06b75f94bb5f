package steptool_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/steptool"
	"github.com/toolpack-go/toolpack/result"
)

// call is one call a recording tool received.
type call struct {
	Tool string
	Args string // the raw JSON arguments
}

// host is a real registry whose tools record their calls, and a steptool
// Invoker running steps through it.
type host struct {
	reg   *registry.Registry
	inv   *steptool.Invoker
	mu    sync.Mutex
	calls []call
}

type replyFunc func(ctx context.Context, tool string, raw json.RawMessage) (result.Result[any], error)

func newHost(t testing.TB) *host {
	t.Helper()
	h := &host{reg: registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})}
	inv, err := steptool.New(steptool.Options{Tools: h.reg})
	require.NoError(t, err)
	h.inv = inv
	return h
}

// add registers a tool that records its calls and answers with reply.
func (h *host) add(t testing.TB, name string, reply replyFunc) {
	t.Helper()
	require.NoError(t, h.reg.Add(&registry.Tool{
		Name:        name,
		Description: "records its calls",
		Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			h.mu.Lock()
			h.calls = append(h.calls, call{Tool: name, Args: string(c.Raw)})
			h.mu.Unlock()
			return reply(ctx, name, c.Raw)
		},
	}))
}

// addSteps registers a catalogue steps tool as a registry tool named
// name, run by the host's Invoker (what a host's catalogue binding does).
func (h *host) addSteps(t testing.TB, name string, tool catalogue.Tool) {
	t.Helper()
	require.NoError(t, h.reg.Add(&registry.Tool{
		Name:        name,
		Description: "a catalogue steps tool",
		InputSchema: tool.ArgSchema,
		Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			return h.inv.Invoke(ctx, tool, c.Raw)
		},
	}))
}

func (h *host) recorded() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]call(nil), h.calls...)
}

func ok(v any) replyFunc {
	return func(context.Context, string, json.RawMessage) (result.Result[any], error) {
		return result.Ok(v), nil
	}
}

// stepsTool is a stored steps tool with the given argSchema and body.
func stepsTool(t testing.TB, slug, argSchema, body string) catalogue.Tool {
	t.Helper()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	bid, err := catalogue.NewID()
	require.NoError(t, err)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tool := catalogue.Tool{ID: id, BundleID: bid, Slug: slug, Version: "1", CreatedAt: now, ModifiedAt: now,
		ToolSpec: catalogue.ToolSpec{DisplayName: slug, IsEnabled: true, Type: catalogue.TypeSteps,
			ArgSchema: json.RawMessage(argSchema), StepsImpl: &catalogue.StepsImpl{Body: body}}}
	require.NoError(t, tool.ToolSpec.Validate())
	return tool
}

// weatherSchema: city required, unit defaulting to "C".
const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","default":"C"}},"required":["city"]}`

const weatherBody = `r = geo.lookup(city={{ city }})
w = weather.now(lat=r.lat, lon=r.lon, unit="{{ unit }}")
fmt.temp(value=w.temp, unit=w.unit, place=r.name)
`
