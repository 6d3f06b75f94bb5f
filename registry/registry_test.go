package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/result"
)

// A name clash is an error, never a silent overwrite.
func TestAdd_ClashIsErrorNeverOverwrite(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("echo", okHandler("first"))))
	err := r.Add(rawTool("echo", okHandler("second")))
	require.ErrorIs(t, err, ErrNameClash)
	assert.Contains(t, err.Error(), `"echo"`)
	res, err := r.Invoke(t.Context(), "echo", nil)
	require.NoError(t, err)
	assert.Equal(t, "first", res.Value)
}

// Two tools with the same final name in one call clash too.
func TestAdd_ClashWithinOneCall(t *testing.T) {
	r := New(noPrefix())
	a := rawTool("x", okHandler(1))
	b := rawTool("y", okHandler(2))
	b.Prefix = new("")
	c := rawTool("x", okHandler(3))
	err := r.Add(a, b, c)
	require.ErrorIs(t, err, ErrNameClash)
	assert.Contains(t, err.Error(), "twice")
	assert.Empty(t, r.List())
}

// Add is all or nothing per call, and reports every problem of the call.
func TestAdd_AllOrNothing(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("taken", okHandler(1))))
	err := r.Add(rawTool("fresh", okHandler(1)), rawTool("taken", okHandler(1)), rawTool("bad name", okHandler(1)))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNameClash)
	assert.ErrorIs(t, err, ErrInvalidName)
	_, ok := r.Lookup("fresh")
	assert.False(t, ok, "nothing of a failed call may be registered")
	assert.Len(t, r.List(), 1)
}

// Invalid tools are refused with ErrInvalidTool naming the tool and the field.
func TestAdd_InvalidToolRefused(t *testing.T) {
	cases := map[string]struct {
		tool *Tool
		want string
	}{
		"nil tool":           {nil, "nil"},
		"nil handler":        {&Tool{Name: "t"}, "Handler"},
		"negative timeout":   {&Tool{Name: "t", Handler: okHandler(1), Timeout: -1}, "Timeout"},
		"bad source":         {&Tool{Name: "t", Handler: okHandler(1), Source: "remote"}, "Source"},
		"proxy without name": {&Tool{Name: "t", Handler: okHandler(1), Source: SourceProxyPrefix}, "Source"},
		"input not JSON":     {&Tool{Name: "t", Handler: okHandler(1), InputSchema: json.RawMessage(`{`)}, "InputSchema"},
		"input not object":   {&Tool{Name: "t", Handler: okHandler(1), InputSchema: json.RawMessage(`{"type":"string"}`)}, "InputSchema"},
		"input null":         {&Tool{Name: "t", Handler: okHandler(1), InputSchema: json.RawMessage(`null`)}, "InputSchema"},
		"output not JSON":    {&Tool{Name: "t", Handler: okHandler(1), OutputSchema: json.RawMessage(`{"type":`)}, "OutputSchema"},
		"output bad keyword": {&Tool{Name: "t", Handler: okHandler(1), OutputSchema: json.RawMessage(`{"type":"object","minProperties":"x"}`)}, "OutputSchema"},
		"output remote ref":  {&Tool{Name: "t", Handler: okHandler(1), OutputSchema: json.RawMessage(`{"$ref":"file:///etc/passwd"}`)}, "OutputSchema"},
		"output array":       {&Tool{Name: "t", Handler: okHandler(1), OutputSchema: json.RawMessage(`[1]`)}, "OutputSchema"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := New(noPrefix())
			err := r.Add(tc.tool)
			require.ErrorIs(t, err, ErrInvalidTool)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, r.List())
		})
	}
}

// Registration fills in the documented defaults and keeps a copy.
func TestAdd_StoresNormalisedCopy(t *testing.T) {
	r := New(noPrefix())
	tool := rawTool("t", okHandler(1))
	require.NoError(t, r.Add(tool))
	got, ok := r.Lookup("t")
	require.True(t, ok)
	assert.Equal(t, SourceLocal, got.Source)
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(got.InputSchema))
	assert.NotSame(t, tool, got)
	assert.Empty(t, tool.Source, "the caller's Tool must not change")
}

func TestAddPack_SetsPackAndRefusesDuplicatePack(t *testing.T) {
	r := New(noPrefix())
	p := &Pack{Name: "demo", Description: "Demo.", Tools: []*Tool{rawTool("b", okHandler(1)), rawTool("a", okHandler(1))}}
	require.NoError(t, r.AddPack(p))
	for _, tool := range r.List() {
		assert.Equal(t, "demo", tool.Pack)
	}
	assert.Empty(t, p.Tools[0].Pack, "the pack's tools must not change")
	packs := r.Packs()
	require.Len(t, packs, 1)
	assert.Equal(t, "Demo.", packs[0].Description)
	require.Len(t, packs[0].Tools, 2)
	assert.Equal(t, "a", packs[0].Tools[0].Name)

	err := r.AddPack(&Pack{Name: "demo", Tools: []*Tool{rawTool("c", okHandler(1))}})
	require.ErrorIs(t, err, ErrNameClash)
	_, ok := r.Lookup("c")
	assert.False(t, ok)

	require.ErrorIs(t, r.AddPack(&Pack{Name: "bad name"}), ErrInvalidName)
	require.ErrorIs(t, r.AddPack(nil), ErrInvalidTool)
	require.ErrorIs(t, r.AddPack(&Pack{Name: "withnil", Tools: []*Tool{nil}}), ErrInvalidTool)
}

func TestRemove(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("a", okHandler(1)), rawTool("b", okHandler(1))))
	require.NoError(t, r.Remove("a"))
	_, ok := r.Lookup("a")
	assert.False(t, ok)
	_, err := r.Invoke(t.Context(), "a", nil)
	assert.ErrorIs(t, err, ErrUnknownTool)
	assert.ErrorIs(t, r.Remove("a"), ErrUnknownTool)
	require.NoError(t, r.Add(rawTool("a", okHandler(2))), "a removed name can be registered again")
}

func TestRemovePack(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("a", okHandler(1)), rawTool("b", okHandler(1))}}))
	require.NoError(t, r.Add(rawTool("other", okHandler(1))))
	require.NoError(t, r.RemovePack("p"))
	names := []string{}
	for _, tool := range r.List() {
		names = append(names, tool.Name)
	}
	assert.Equal(t, []string{"other"}, names)
	assert.Empty(t, r.Packs())
	assert.ErrorIs(t, r.RemovePack("p"), ErrUnknownPack)
	require.NoError(t, r.AddPack(&Pack{Name: "p"}), "a removed pack can be added again")
}

// List is sorted by final name and holds exactly the registered tools.
func TestList_SortedProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		names := rapid.SliceOfDistinct(rapid.StringMatching(`[a-z0-9_.-]{1,12}`), rapid.ID[string]).Draw(rt, "names")
		r := New(noPrefix())
		for _, n := range names {
			require.NoError(rt, r.Add(rawTool(n, okHandler(n))))
		}
		var got []string
		for _, tool := range r.List() {
			got = append(got, tool.Name)
		}
		want := append([]string(nil), names...)
		sort.Strings(want)
		if len(want) == 0 {
			want = nil
		}
		assert.Equal(rt, want, got)
	})
}

// Subscribers are called after every change, outside the registry's lock
// (the subscriber reads the registry, which would deadlock under the lock),
// and can unsubscribe.
func TestSubscribe_NotifiedAfterChangesOutsideLock(t *testing.T) {
	r := New(noPrefix())
	var seen []int
	var changes []Change
	cancel := r.Subscribe(func(ch Change) { seen = append(seen, len(r.List())); changes = append(changes, ch) })
	var order []string
	r.Subscribe(func(Change) { order = append(order, "second") })
	require.NoError(t, r.Add(rawTool("a", okHandler(1))))
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("b", okHandler(1))}}))
	require.NoError(t, r.Remove("a"))
	require.NoError(t, r.RemovePack("p"))
	assert.Error(t, r.Add(rawTool("bad name", okHandler(1))))
	assert.Equal(t, []int{1, 2, 1, 0}, seen, "one notification per successful change, none for a failed one")
	names := func(ts []*Tool) (out []string) {
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	require.Len(t, changes, 4)
	assert.Equal(t, []string{"a"}, names(changes[0].Added))
	assert.Equal(t, []string{"b"}, names(changes[1].Added))
	assert.Equal(t, "p", changes[1].Added[0].Pack, "the change carries the registered copy")
	assert.Equal(t, []string{"a"}, names(changes[2].Removed))
	assert.Equal(t, []string{"b"}, names(changes[3].Removed))
	assert.Empty(t, changes[3].Added)
	cancel()
	cancel()
	require.NoError(t, r.Add(rawTool("c", okHandler(1))))
	assert.Len(t, seen, 4, "no notification after cancel")
	assert.Len(t, order, 5)
	assert.NotPanics(t, func() { r.Subscribe(nil)() })
}

// Concurrent adds, removes, lists and invokes are race-free (-race).
func TestRegistry_ConcurrentUse(t *testing.T) {
	r := New(noPrefix())
	r.Subscribe(func(Change) { _ = r.List() })
	done := make(chan struct{})
	for w := 0; w < 8; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				name := fmt.Sprintf("t%d_%d", w, i)
				assert.NoError(t, r.Add(rawTool(name, okHandler(i))))
				res, err := r.Invoke(context.Background(), name, nil)
				assert.NoError(t, err)
				assert.Equal(t, i, res.Value)
				_ = r.List()
				if i%2 == 0 {
					assert.NoError(t, r.Remove(name))
				}
				if i == 25 {
					r.Use(func(next Handler) Handler { return next })
				}
			}
		}()
	}
	for w := 0; w < 8; w++ {
		<-done
	}
	assert.Len(t, r.List(), 8*25)
}

func TestLookup(t *testing.T) {
	r := New(noPrefix())
	_, ok := r.Lookup("nope")
	assert.False(t, ok)
	require.NoError(t, r.Add(&Tool{Name: "x", Title: "X", Handler: okHandler(1), Source: "proxy:srv",
		Annotations: Annotations{ReadOnly: new(true)}}))
	got, ok := r.Lookup("x")
	require.True(t, ok)
	assert.Equal(t, "X", got.Title)
	assert.Equal(t, "proxy:srv", got.Source)
	require.NotNil(t, got.Annotations.ReadOnly)
	assert.True(t, *got.Annotations.ReadOnly)
	assert.Nil(t, got.Annotations.Destructive)
}

// Check finds what Add would refuse in the tools themselves — a final
// name too long under the prefix, a tool without a handler, two tools of
// one final name — and registers nothing; a clash with a registered tool
// is Add's alone.
func TestCheck_ReportsWhatAddWouldRefuseWithoutAdding(t *testing.T) {
	r := New(Options{Prefix: new(strings.Repeat("p", 60)), Logger: slog.New(slog.DiscardHandler)})
	ok := rawTool("fine", okHandler(1))
	require.NoError(t, r.Check(ok))
	long := rawTool(strings.Repeat("s", 70), okHandler(1))
	err := r.Check(ok, long, &Tool{Name: "nohandler"}, rawTool("fine", okHandler(2)))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrInvalidName)
	assert.ErrorIs(t, err, ErrInvalidTool)
	assert.ErrorIs(t, err, ErrNameClash)
	assert.Contains(t, err.Error(), "bytes long; expected at most 128")
	assert.Empty(t, r.List(), "nothing registered")

	require.NoError(t, r.Add(ok))
	assert.NoError(t, r.Check(rawTool("fine", okHandler(3))), "a clash with a registered tool is not Check's")
}

// Every mutator Subscribe documents notifies once per successful call,
// with what changed as its doc says; the ones it says do not (SetAliases,
// Use, UseOuter, a failed call, a switch that changes nothing, removing a
// tool that is off) notify no one, and an Update notifies through its
// steps.
func TestSubscribe_EveryDocumentedMutatorNotifies(t *testing.T) {
	r := New(noPrefix())
	var changes []Change
	r.Subscribe(func(ch Change) { changes = append(changes, ch) })
	mw := func(next Handler) Handler { return next }
	type want struct{ added, removed []string }
	steps := []struct {
		name string
		do   func() error
		want []want // one per notification
	}{
		{"Add", func() error { return r.Add(rawTool("a", okHandler(1))) }, []want{{added: []string{"a"}}}},
		{"Add of no tool", func() error { return r.Add() }, nil},
		{"AddPack", func() error {
			return r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("b", okHandler(1)), rawTool("c", okHandler(1))}})
		}, []want{{added: []string{"b", "c"}}}},
		{"AddPack without tools", func() error { return r.AddPack(&Pack{Name: "empty"}) }, []want{{}}},
		{"ReplacePack", func() error {
			return r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{rawTool("c", okHandler(2)), rawTool("d", okHandler(2))}})
		}, []want{{added: []string{"c", "d"}, removed: []string{"b"}}}},
		{"SetEnabled off", func() error { return r.SetEnabled("a", false) }, []want{{removed: []string{"a"}}}},
		{"SetEnabled off again", func() error { return r.SetEnabled("a", false) }, nil},
		{"SetEnabled on", func() error { return r.SetEnabled("a", true) }, []want{{added: []string{"a"}}}},
		{"SetPackEnabled off", func() error { return r.SetPackEnabled("p", false) }, []want{{removed: []string{"c", "d"}}}},
		{"SetPackEnabled on", func() error { return r.SetPackEnabled("p", true) }, []want{{added: []string{"c", "d"}}}},
		{"SetAliases", func() error { return r.SetAliases(map[string]string{"x": "a"}) }, nil},
		{"Use", func() error { r.Use(mw); return nil }, nil},
		{"UseOuter", func() error { r.UseOuter(mw); return nil }, nil},
		{"Update", func() error {
			return r.Update(func() error {
				if err := r.Add(rawTool("e", okHandler(1))); err != nil {
					return err
				}
				return r.Remove("e")
			})
		}, []want{{added: []string{"e"}}, {removed: []string{"e"}}}},
		{"Remove", func() error { return r.Remove("a") }, []want{{removed: []string{"a"}}}},
		{"RemovePack", func() error { return r.RemovePack("p") }, []want{{removed: []string{"c", "d"}}}},
		{"Remove of a tool that is off", func() error {
			if err := r.Add(rawTool("f", okHandler(1))); err != nil {
				return err
			}
			if err := r.SetEnabled("f", false); err != nil {
				return err
			}
			changes = changes[:0]
			return r.Remove("f")
		}, nil},
	}
	for _, st := range steps {
		changes = changes[:0]
		require.NoError(t, st.do(), st.name)
		require.Len(t, changes, len(st.want), st.name)
		for i, w := range st.want {
			assert.Equal(t, w.added, nonEmpty(toolNames(changes[i].Added)), "%s: Added", st.name)
			assert.Equal(t, w.removed, nonEmpty(toolNames(changes[i].Removed)), "%s: Removed", st.name)
		}
	}
	changes = changes[:0]
	require.Error(t, r.Add(rawTool("bad name", okHandler(1))))
	require.Error(t, r.SetEnabled("nope", false))
	require.Error(t, r.RemovePack("nope"))
	assert.Empty(t, changes, "a failed call notifies no one")
}

// nonEmpty is s, or nil when s is empty.
func nonEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// A Registry not made by New refuses every change with ErrZeroRegistry
// instead of panicking with its lock held (which left every later call on
// it waiting forever), and a later call still answers.
func TestZeroRegistry_RefusesChangesWithoutPanicOrDeadlock(t *testing.T) {
	var r Registry
	tool := &Tool{Name: "x", Description: "x", Handler: func(context.Context, *Call) (result.Result[any], error) {
		return result.Ok[any]("x"), nil
	}}
	for name, call := range map[string]func() error{
		"Add":            func() error { return r.Add(tool) },
		"AddPack":        func() error { return r.AddPack(&Pack{Name: "p", Tools: []*Tool{tool}}) },
		"ReplacePack":    func() error { return r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{tool}}) },
		"Check":          func() error { return r.Check(tool) },
		"SetEnabled":     func() error { return r.SetEnabled("x", false) },
		"SetPackEnabled": func() error { return r.SetPackEnabled("p", false) },
		"SetAliases":     func() error { return r.SetAliases(map[string]string{"y": "x"}) },
		"Update":         func() error { return r.Update(func() error { return nil }) },
	} {
		var err error
		require.NotPanics(t, func() { err = call() }, name)
		require.ErrorIs(t, err, ErrZeroRegistry, name)
	}
	done := make(chan error, 1)
	go func() { done <- r.Add(tool) }()
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrZeroRegistry, "a second call is answered too")
	case <-time.After(10 * time.Second):
		t.Fatal("the zero Registry's lock was left held")
	}
	assert.Empty(t, r.List())
	_, err := r.Invoke(context.Background(), "x", nil)
	require.ErrorIs(t, err, ErrUnknownTool)
}
