package registry

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

// A pinned name keeps running the tool it found after a change removed
// it (the tool itself, or the alias that led to it); a name still served
// runs the tool served now; a name that found nothing stays unknown.
func TestPin_RemovedToolsStillRunServedOnesAreCurrent(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("gone", okHandler("old gone")), rawTool("kept", okHandler("kept v1"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"g": "gone"}))
	p := r.Pin("gone", "g", "kept", "missing")

	require.NoError(t, r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{rawTool("kept", okHandler("kept v2"))}}))
	require.NoError(t, r.SetAliases(nil))
	_, err := r.Invoke(t.Context(), "gone", nil)
	require.ErrorIs(t, err, ErrUnknownTool, "the registry no longer has it")

	for name, want := range map[string]string{"gone": "old gone", "g": "old gone", "kept": "kept v2"} {
		res, err := p.Invoke(t.Context(), name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, want, res.Value, name)
		_, _, ok := p.Resolve(name)
		assert.True(t, ok, name)
	}
	_, err = p.Invoke(t.Context(), "missing", nil)
	require.ErrorIs(t, err, ErrUnknownTool)
	_, _, ok := p.Resolve("missing")
	assert.False(t, ok)

	// A switch made after the pin counts for a tool still served.
	require.NoError(t, r.SetEnabled("kept", false))
	res, err := p.Invoke(t.Context(), "kept", nil)
	require.NoError(t, err)
	assert.False(t, res.Success, "switched off now: %v", res.Value)
}

// A tool naming the tools it calls (Tool.Calls) finds them held from the
// instant Invoke looked it up: a change landing after the lookup and
// before its handler runs (in a middleware, say) does not take one away.
func TestInvoke_CallsHeldFromTheLookup(t *testing.T) {
	r := New(noPrefix())
	entered, release := make(chan struct{}), make(chan struct{})
	r.Use(func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (result.Result[any], error) {
			if c.Tool.Name == "outer" {
				close(entered)
				<-release
			}
			return next(ctx, c)
		}
	})
	outer := rawTool("outer", func(ctx context.Context, c *Call) (result.Result[any], error) {
		require.NotNil(t, c.Pinned(), "a tool with Calls gets the registry as the lookup found it")
		return c.Pinned().Invoke(ctx, "plus", nil)
	})
	outer.Calls = []string{"plus"}
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{outer, rawTool("add", okHandler("added"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"plus": "add"}))

	done := make(chan result.Result[any], 1)
	go func() {
		res, err := r.Invoke(context.Background(), "outer", nil)
		assert.NoError(t, err)
		done <- res
	}()
	<-entered
	// The reload: add goes, and the alias with it.
	require.NoError(t, r.Update(func() error {
		if err := r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{outer}}); err != nil {
			return err
		}
		return r.SetAliases(nil)
	}))
	close(release)
	res := <-done
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "added", res.Value)

	// Looked up after the change: plus is gone for it.
	res, err := r.Invoke(t.Context(), "outer", nil)
	require.NoError(t, err)
	assert.False(t, res.Success, "plus is no longer served: %v", res.Value)

	// A tool without Calls holds nothing.
	var seen *Pinned
	require.NoError(t, r.AddPack(&Pack{Name: "q", Tools: []*Tool{rawTool("plain", func(ctx context.Context, c *Call) (result.Result[any], error) {
		seen = c.Pinned()
		return result.Ok[any](1), nil
	})}}))
	_, err = r.Invoke(t.Context(), "plain", nil)
	require.NoError(t, err)
	assert.Nil(t, seen)
}
