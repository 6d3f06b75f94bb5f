package registry

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

func toolNames(ts []*Tool) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// A disabled tool vanishes from listings and lookups, its calls get a clear
// unavailable failure, subscribers see it removed and added back; a pack's
// switch covers its tools, and a tool's own switch survives its pack's.
func TestSetEnabled_ToolsAndPacks(t *testing.T) {
	r := New(noPrefix())
	var changes []Change
	r.Subscribe(func(ch Change) { changes = append(changes, ch) })
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("a", okHandler(1)), rawTool("b", okHandler(2))}}))
	require.NoError(t, r.Add(rawTool("c", okHandler(3))))
	changes = nil

	require.NoError(t, r.SetEnabled("a", false))
	assert.Equal(t, []string{"b", "c"}, toolNames(r.List()))
	assert.Equal(t, []string{"a", "b", "c"}, toolNames(r.ListAll()))
	_, ok := r.Lookup("a")
	assert.False(t, ok)
	on, exists := r.IsEnabled("a")
	assert.False(t, on)
	assert.True(t, exists)
	res, err := r.Invoke(t.Context(), "a", nil)
	require.NoError(t, err, "a disabled tool is a domain failure, not a protocol error")
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `"a" is disabled`)
	require.Len(t, changes, 1)
	assert.Equal(t, []string{"a"}, toolNames(changes[0].Removed))

	require.NoError(t, r.SetEnabled("a", false), "no change, no notification")
	assert.Len(t, changes, 1)

	require.NoError(t, r.SetPackEnabled("p", false))
	assert.Equal(t, []string{"c"}, toolNames(r.List()))
	assert.Empty(t, r.Packs()[0].Tools, "a disabled pack lists no tools")
	assert.Equal(t, []string{"b"}, toolNames(changes[1].Removed), "a was off already")

	require.NoError(t, r.SetPackEnabled("p", true))
	assert.Equal(t, []string{"b", "c"}, toolNames(r.List()), "a's own switch is still off")
	require.NoError(t, r.SetEnabled("a", true))
	assert.Equal(t, []string{"a", "b", "c"}, toolNames(r.List()))
	res, err = r.Invoke(t.Context(), "a", nil)
	require.NoError(t, err)
	assert.True(t, res.Success)

	require.ErrorIs(t, r.SetEnabled("nope", false), ErrUnknownTool)
	require.ErrorIs(t, r.SetPackEnabled("nope", false), ErrUnknownPack)
}

// The switch belongs to the name: it survives a remove and add and a
// ReplacePack; a disabled tool's removal notifies no one.
func TestSetEnabled_SwitchBelongsToTheName(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("a", okHandler(1))))
	require.NoError(t, r.SetEnabled("a", false))
	var changes []Change
	r.Subscribe(func(ch Change) { changes = append(changes, ch) })
	require.NoError(t, r.Remove("a"))
	require.NoError(t, r.Add(rawTool("a", okHandler(1))))
	_, ok := r.Lookup("a")
	assert.False(t, ok, "still off")
	for _, ch := range changes {
		assert.Empty(t, ch.Added)
		assert.Empty(t, ch.Removed)
	}
}

// ReplacePack swaps a pack's tools in one step with one notification: new
// tools added, dropped ones removed, kept ones replaced; a bad new pack
// changes nothing; a clash with another pack's tool is refused.
func TestReplacePack_AtomicOneNotification(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "p", Description: "v1", Tools: []*Tool{rawTool("a", okHandler("a1")), rawTool("b", okHandler("b1"))}}))
	require.NoError(t, r.Add(rawTool("other", okHandler(0))))
	var changes []Change
	r.Subscribe(func(ch Change) { changes = append(changes, ch) })

	require.NoError(t, r.ReplacePack(&Pack{Name: "p", Description: "v2", Tools: []*Tool{rawTool("a", okHandler("a2")), rawTool("c", okHandler("c2"))}}))
	require.Len(t, changes, 1)
	assert.Equal(t, []string{"a", "c"}, toolNames(changes[0].Added))
	assert.Equal(t, []string{"b"}, toolNames(changes[0].Removed))
	assert.Equal(t, []string{"a", "c", "other"}, toolNames(r.List()))
	res, err := r.Invoke(t.Context(), "a", nil)
	require.NoError(t, err)
	assert.Equal(t, "a2", res.Value)
	assert.Equal(t, "v2", r.Packs()[0].Description)

	err = r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{rawTool("a", okHandler(1)), rawTool("bad name", okHandler(1))}})
	require.ErrorIs(t, err, ErrInvalidName)
	err = r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{rawTool("other", okHandler(1))}})
	require.ErrorIs(t, err, ErrNameClash)
	assert.Equal(t, []string{"a", "c", "other"}, toolNames(r.List()), "failed replaces change nothing")
	assert.Len(t, changes, 1)

	require.NoError(t, r.ReplacePack(&Pack{Name: "new", Tools: []*Tool{rawTool("n", okHandler(1))}}), "an unknown pack is added")
	_, ok := r.Lookup("n")
	assert.True(t, ok)
}

// Calls run while a pack is replaced over and over: none fails, each runs
// either the old or the new tool.
func TestReplacePack_CallsInFlightNeverFail(t *testing.T) {
	r := New(noPrefix())
	mk := func(v int) *Pack {
		return &Pack{Name: "p", Tools: []*Tool{rawTool("a", func(ctx context.Context, c *Call) (result.Result[any], error) {
			time.Sleep(50 * time.Microsecond)
			return result.Ok[any](v), nil
		})}}
	}
	require.NoError(t, r.AddPack(mk(0)))
	var failed atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := r.Invoke(context.Background(), "a", nil)
				if err != nil || !res.Success {
					failed.Add(1)
				}
			}
		})
	}
	for i := 1; i <= 100; i++ {
		require.NoError(t, r.ReplacePack(mk(i)))
	}
	close(stop)
	wg.Wait()
	assert.Zero(t, failed.Load())
}

// Aliases resolve before lookup (directly, through a chain, or to an
// undecorated name under a prefix), are not listed, and refuse bad names,
// clashes, cycles and over-long chains, keeping the previous set.
func TestAliases_ResolveAndRefuse(t *testing.T) {
	r := New(Options{Prefix: new("tp"), Logger: noPrefix().Logger})
	require.NoError(t, r.Add(rawTool("add", okHandler(42))))
	require.NoError(t, r.SetAliases(map[string]string{"plus": "tp_add", "sum": "add", "p2": "plus"}))
	for _, name := range []string{"plus", "sum", "p2"} {
		res, err := r.Invoke(t.Context(), name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, 42, res.Value, name)
	}
	assert.Equal(t, []string{"tp_add"}, toolNames(r.List()), "aliases are not tools")
	assert.Equal(t, map[string]string{"plus": "tp_add", "sum": "add", "p2": "plus"}, r.Aliases())

	err := r.SetAliases(map[string]string{"x": "y", "y": "x", "bad name": "add", "tp_add": "add", "e": ""})
	require.Error(t, err)
	for _, want := range []string{`"x": cycle`, `"y": cycle`, `"bad name"`, `"tp_add"`, `"e": target is empty`} {
		assert.Contains(t, err.Error(), want)
	}
	assert.ErrorIs(t, err, ErrNameClash)
	long := map[string]string{}
	for i := range MaxAliasDepth + 2 {
		long[string(rune('a'+i))] = string(rune('a' + i + 1))
	}
	assert.ErrorContains(t, r.SetAliases(long), "chain longer than")
	assert.Len(t, r.Aliases(), 3, "the previous aliases stay")

	require.NoError(t, r.SetAliases(map[string]string{"ws": "brave.web_search"}), "a target may arrive later")
	res, err := r.Invoke(t.Context(), "ws", nil)
	require.NoError(t, err, "an alias is a name the host configured, not an unknown tool")
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `"ws" is an alias of "brave.web_search", which is not served now`)
	require.NoError(t, r.SetAliases(nil))
	assert.Empty(t, r.Aliases())
}

// Resolve says what a call of a name would run: a tool, an alias's target,
// a disabled tool (enabled false), or nothing.
func TestResolve(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("a", okHandler(1)), rawTool("b", okHandler(2))))
	require.NoError(t, r.SetEnabled("b", false))
	require.NoError(t, r.SetAliases(map[string]string{"x": "a", "y": "b", "z": "missing"}))
	for name, want := range map[string]struct {
		tool        string
		enabled, ok bool
	}{"a": {"a", true, true}, "b": {"b", false, true}, "x": {"a", true, true}, "y": {"b", false, true}, "z": {}, "nope": {}} {
		tl, enabled, ok := r.Resolve(name)
		assert.Equal(t, want.ok, ok, name)
		assert.Equal(t, want.enabled, enabled, name)
		if want.ok {
			assert.Equal(t, want.tool, tl.Name, name)
		}
	}
}

// TargetName resolves a name as configuration writes it: a final name or
// an alias as it is, an undecorated name to its tool's final name under a
// prefix, anything else unchanged (so that the call names it when it
// fails). Invoke itself does not take undecorated names.
func TestTargetName_UndecoratedUnderPrefix(t *testing.T) {
	r := New(Options{Prefix: new("tp"), Logger: noPrefix().Logger})
	require.NoError(t, r.Add(rawTool("add", okHandler(42)), rawTool("tp_x", okHandler(1))))
	require.NoError(t, r.SetAliases(map[string]string{"plus": "add", "x": "add"}))
	for in, want := range map[string]string{
		"add":     "tp_add",
		"tp_add":  "tp_add",
		"plus":    "plus",
		"x":       "x", // an alias wins over the tool tp_x's undecorated name
		"tp_x":    "tp_tp_x",
		"missing": "missing",
	} {
		assert.Equal(t, want, r.TargetName(in), in)
	}
	_, err := r.Invoke(t.Context(), "add", nil)
	require.ErrorIs(t, err, ErrUnknownTool, "Invoke keeps to final names and aliases")

	plain := New(noPrefix())
	require.NoError(t, plain.Add(rawTool("add", okHandler(1))))
	assert.Equal(t, "add", plain.TargetName("add"))
	assert.Equal(t, "nope", plain.TargetName("nope"))
}

// IsAlias tells an alias from an unknown name, served target or not.
func TestIsAlias(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("a", okHandler(1))))
	require.NoError(t, r.SetAliases(map[string]string{"x": "a", "dangling": "gone"}))
	assert.True(t, r.IsAlias("x"))
	assert.True(t, r.IsAlias("dangling"))
	assert.False(t, r.IsAlias("a"), "a tool is no alias")
	assert.False(t, r.IsAlias("nothing"))
}

// Unavailable answers, without running anything, what Invoke answers for a
// name that is known but runs no tool: a disabled tool, an alias of one,
// an alias whose target is not served — the same failed Result; nothing
// for an enabled tool, its alias, or an unknown name.
func TestUnavailable_AsInvokeAnswers(t *testing.T) {
	r := New(noPrefix())
	var ran int
	require.NoError(t, r.Add(rawTool("a", okHandler(1)), rawTool("b", func(context.Context, *Call) (result.Result[any], error) {
		ran++
		return result.Ok[any](2), nil
	})))
	require.NoError(t, r.SetEnabled("b", false))
	require.NoError(t, r.SetAliases(map[string]string{"x": "a", "y": "b", "z": "missing"}))
	for _, name := range []string{"b", "y", "z"} {
		got, ok := r.Unavailable(name)
		require.True(t, ok, name)
		want, err := r.Invoke(t.Context(), name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
		assert.Equal(t, result.Unavailable, got.ErrorType, name)
	}
	assert.Zero(t, ran, "a disabled tool never runs")
	for _, name := range []string{"a", "x", "nope"} {
		_, ok := r.Unavailable(name)
		assert.False(t, ok, name)
	}
}

// A tool its source registers switched off (Tool.Disabled, as a catalogue
// tool switched off in the catalogue) is served as a tool switched off
// with SetEnabled — not listed, listed by ListAll, its calls and its
// aliases' calls a failed Result of type unavailable — whose message names
// the tool and ends with the source's reason; SetEnabled cannot switch it
// on, and registered again without Disabled it runs.
func TestTool_DisabledBySourceAnsweredAsDisabledWithReason(t *testing.T) {
	r := New(noPrefix())
	var ran int
	h := func(context.Context, *Call) (result.Result[any], error) { ran++; return result.Ok[any](1), nil }
	off := rawTool("a", h)
	off.Disabled = "switch it on in the catalogue"
	var changes []Change
	r.Subscribe(func(c Change) { changes = append(changes, c) })
	require.NoError(t, r.Add(off))
	require.NoError(t, r.SetAliases(map[string]string{"x": "a"}))

	assert.Empty(t, toolNames(r.List()))
	assert.Equal(t, []string{"a"}, toolNames(r.ListAll()))
	assert.Empty(t, changes, "adding a tool switched off changes no listing")
	on, exists := r.IsEnabled("a")
	assert.True(t, exists)
	assert.False(t, on)
	for _, name := range []string{"a", "x"} {
		res, err := r.Invoke(t.Context(), name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, result.Unavailable, res.ErrorType, name)
		assert.Equal(t, `tool "a" is disabled: switch it on in the catalogue`, res.Error, name)
		assert.Equal(t, "Do not call this tool; tell the user it is switched off and how to switch it on.", res.Instruction, name)
		got, ok := r.Unavailable(name)
		require.True(t, ok, name)
		assert.Equal(t, res, got, name)
	}
	require.NoError(t, r.SetEnabled("a", true))
	on, _ = r.IsEnabled("a")
	assert.False(t, on, "the source's switch is the source's")

	require.NoError(t, r.Remove("a"))
	require.NoError(t, r.Add(rawTool("a", h)))
	res, err := r.Invoke(t.Context(), "x", nil)
	require.NoError(t, err)
	assert.True(t, res.Success, res.Error)
	assert.Equal(t, 1, ran, "only the call after it was switched on ran")
}

// A held tool (Pin) that its source has since registered again switched
// off is refused as the registry refuses it now, with the source's reason.
func TestPinned_ToolSwitchedOffBySourceSinceRefusedWithReason(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("a", okHandler(1))))
	p := r.Pin("a")
	off := rawTool("a", okHandler(2))
	off.Disabled = "its bundle is switched off"
	require.NoError(t, r.Remove("a"))
	require.NoError(t, r.Add(off))
	res, err := p.Invoke(t.Context(), "a", nil)
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Equal(t, `tool "a" is disabled: its bundle is switched off`, res.Error)
	_, enabled, ok := p.Resolve("a")
	assert.True(t, ok)
	assert.False(t, enabled)
}
