package snippet_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// call is one call a recording tool received.
type call struct {
	Tool string
	Args string // the raw JSON arguments
}

// recorder is a real registry whose tools record their calls.
type recorder struct {
	reg   *registry.Registry
	mu    sync.Mutex
	calls []call
}

// newRecorder registers each tool under its name; reply computes its
// Result from the call's index (0-based, over all tools) and arguments.
func newRecorder(t require.TestingT, reply func(i int, tool string, raw json.RawMessage) (result.Result[any], error), tools ...string) *recorder {
	r := &recorder{reg: newRegistry()}
	for _, name := range tools {
		name := name
		err := r.reg.Add(&registry.Tool{
			Name:        name,
			Description: "records its calls",
			Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
				r.mu.Lock()
				i := len(r.calls)
				r.calls = append(r.calls, call{Tool: name, Args: string(c.Raw)})
				r.mu.Unlock()
				if reply == nil {
					return result.Ok[any](map[string]any{"tool": name, "i": i}), nil
				}
				return reply(i, name, c.Raw)
			},
		})
		require.NoError(t, err)
	}
	return r
}

func (r *recorder) recorded() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
}

// newRegistry is a registry without prefix that logs nowhere.
func newRegistry() *registry.Registry {
	return registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
}

// withAdd registers add(a, b int) on reg.
func withAdd(t require.TestingT, reg *registry.Registry) *registry.Registry {
	type addArgs struct {
		A int `json:"a" validate:"required"`
		B int `json:"b" validate:"required"`
	}
	require.NoError(t, registry.AddFunc(reg, "add", func(ctx context.Context, a addArgs) (result.Result[int], error) {
		return result.Ok(a.A + a.B), nil
	}, registry.ToolOptions{}))
	return reg
}
