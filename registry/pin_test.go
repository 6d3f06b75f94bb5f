package registry

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

// A pinned name keeps running the tool it found, whatever a change did
// since: removed (the tool itself, or the alias that led to it), replaced
// by a new version, or the alias retargeted; a name that found nothing is
// looked up at the call (a tool registered since runs). The switch is the
// one in force now, for the tool itself or a newer one under its name.
func TestPin_HeldToolsRunAsPinnedWithTheSwitchNow(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("gone", okHandler("old gone")), rawTool("kept", okHandler("kept v1")),
		rawTool("one", okHandler("one")), rawTool("two", okHandler("two"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"g": "gone", "n": "one"}))
	p := r.Pin("gone", "g", "kept", "n", "missing")

	require.NoError(t, r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{rawTool("kept", okHandler("kept v2")), rawTool("one", okHandler("one")),
		rawTool("two", okHandler("two")), rawTool("missing", okHandler("arrived"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"n": "two"}))
	_, err := r.Invoke(t.Context(), "gone", nil)
	require.ErrorIs(t, err, ErrUnknownTool, "the registry no longer has it")

	for name, want := range map[string]string{"gone": "old gone", "g": "old gone", "kept": "kept v1", "n": "one", "missing": "arrived"} {
		res, err := p.Invoke(t.Context(), name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, want, res.Value, name)
		_, _, ok := p.Resolve(name)
		assert.True(t, ok, name)
	}
	res, err := r.Invoke(t.Context(), "n", nil)
	require.NoError(t, err)
	assert.Equal(t, "two", res.Value, "the registry itself runs the new target")
	_, _, ok := p.Resolve("nothing")
	assert.False(t, ok)

	// A switch made after the pin counts: for a newer version under the
	// held name, and for the held tool itself.
	require.NoError(t, r.SetEnabled("kept", false))
	res, err = p.Invoke(t.Context(), "kept", nil)
	require.NoError(t, err)
	assert.False(t, res.Success, "switched off now: %v", res.Value)
	_, enabled, _ := p.Resolve("kept")
	assert.False(t, enabled)
	require.NoError(t, r.SetEnabled("kept", true))
	res, err = p.Invoke(t.Context(), "kept", nil)
	require.NoError(t, err)
	assert.Equal(t, "kept v1", res.Value, "switched on again")
	require.NoError(t, r.SetPackEnabled("p", false))
	res, err = p.Invoke(t.Context(), "one", nil)
	require.NoError(t, err)
	assert.False(t, res.Success, "its pack switched off now: %v", res.Value)
}

// The tools a held tool calls are held with it, from the same instant: an
// outer snippet calling an inner one whose parameters a reload renamed
// runs the inner one it started with, and the inner one's own steps.
func TestPin_CallsOfHeldToolsHeldToo(t *testing.T) {
	r := New(noPrefix())
	inner := func(version string) *Tool { return stepCaller("inner", version) }
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{inner("v1"), rawTool("a", okHandler("a")), rawTool("b", okHandler("b"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"step": "a"}))
	p := r.Pin("inner")

	require.NoError(t, r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{inner("v2"), rawTool("a", okHandler("a")), rawTool("b", okHandler("b"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"step": "b"}))
	res, err := p.Invoke(t.Context(), "inner", nil)
	require.NoError(t, err)
	assert.Equal(t, "v1/a", res.Value)
	res, err = r.Invoke(t.Context(), "inner", nil)
	require.NoError(t, err)
	assert.Equal(t, "v2/b", res.Value)
	tool, _, _ := r.Resolve("inner")
	assert.Equal(t, []string{"step"}, tool.Calls, "pinning leaves the tool's Calls as they are")
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

// A call of a tool that calls others arriving while an Update runs waits
// for it to end, then holds what the new configuration has: a new snippet
// never runs with the old aliases (the pack replaced, the aliases not set
// yet). A call of a plain tool is not delayed.
func TestUpdate_ToolCallingOthersWaitsForTheWholeUpdate(t *testing.T) {
	r := New(noPrefix())
	outer := func(version string) *Tool { return stepCaller("outer", version) }
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{outer("v1"), rawTool("a", okHandler("a")), rawTool("b", okHandler("b"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"step": "a"}))

	midway, finish := make(chan struct{}), make(chan struct{})
	updated := make(chan error, 1)
	go func() {
		updated <- r.Update(func() error {
			if err := r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{outer("v2"), rawTool("a", okHandler("a")), rawTool("b", okHandler("b"))}}); err != nil {
				return err
			}
			close(midway)
			<-finish
			return r.SetAliases(map[string]string{"step": "b"})
		})
	}()
	<-midway
	res, err := r.Invoke(t.Context(), "a", nil)
	require.NoError(t, err)
	assert.Equal(t, "a", res.Value, "a plain tool runs at once")

	got := make(chan result.Result[any], 1)
	go func() {
		res, err := r.Invoke(context.Background(), "outer", nil)
		assert.NoError(t, err)
		got <- res
	}()
	select {
	case res := <-got:
		t.Fatalf("outer ran in the middle of the update: %v %v", res.Value, res.Error)
	case <-time.After(50 * time.Millisecond):
	}
	close(finish)
	require.NoError(t, <-updated)
	res = <-got
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "v2/b", res.Value, "the new snippet with the new aliases")
}

// stepCaller is a tool name whose handler calls "step" through the
// registry as its lookup found it (Tool.Calls) and answers
// "{version}/{step's value}".
func stepCaller(name, version string) *Tool {
	t := rawTool(name, func(ctx context.Context, c *Call) (result.Result[any], error) {
		res, err := c.Pinned().Invoke(ctx, "step", nil)
		if err != nil || !res.Success {
			return res, err
		}
		return result.Ok[any](version + "/" + res.Value.(string)), nil
	})
	t.Calls = []string{"step"}
	return t
}
