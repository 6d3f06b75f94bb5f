package httpapi

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

type noArgs struct{}

func tool(t *testing.T, name string) *registry.Tool {
	t.Helper()
	tl, err := registry.Func(name, func(context.Context, noArgs) (result.Result[string], error) { return result.Ok("x"), nil },
		registry.ToolOptions{Doc: "A test tool."})
	require.NoError(t, err)
	return tl
}

// TestHandler_CloseEndsTheRegistrySubscription: while open, every change
// of the registry reaches the handler's cache; after Close none does (the
// registry no longer holds the handler's callback), Close can be called
// again and concurrently, and the document stays right.
func TestHandler_CloseEndsTheRegistrySubscription(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	h := New(reg, Options{})
	require.NoError(t, reg.Add(tool(t, "one")))
	assert.Equal(t, uint64(1), h.doc.gen.Load(), "the subscription invalidates the cache")

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(h.Close)
	}
	wg.Wait()
	h.Close()
	require.NoError(t, reg.Add(tool(t, "two")))
	require.NoError(t, reg.Remove("one"))
	assert.Equal(t, uint64(1), h.doc.gen.Load(), "no callback after Close")

	doc, err := h.document()
	require.NoError(t, err)
	assert.Contains(t, string(doc), `"/tools/two/invoke"`, "a closed handler builds the document afresh")
	assert.NotContains(t, string(doc), `"/tools/one/invoke"`)
}
