package registry

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/result"
)

type noArgs struct{}

func answer(v string) func(context.Context, noArgs) (result.Result[string], error) {
	return func(context.Context, noArgs) (result.Result[string], error) { return result.Ok(v), nil }
}

// A tool may not take the name an alias holds, whichever way it enters
// (Add, AddPack, ReplacePack): the refusal is ErrNameClash naming the
// alias and its target, nothing of the call is registered, the alias keeps
// answering, and the aliases can be set again as they are.
func TestAdd_RefusesTheNameOfAnAlias(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, AddFunc(r, "add", answer("added"), ToolOptions{Doc: "Adds."}))
	require.NoError(t, r.SetAliases(map[string]string{"plus": "add"}))

	err := AddFunc(r, "plus", answer("new plus"), ToolOptions{Doc: "Plus."})
	require.ErrorIs(t, err, ErrNameClash)
	assert.ErrorContains(t, err, `tool "plus": "plus" is an alias of "add", and a tool cannot take an alias's name`)

	err = r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("other", okHandler(1)), rawTool("plus", okHandler(2))}})
	require.ErrorIs(t, err, ErrNameClash)
	assert.ErrorContains(t, err, `"plus" is an alias of "add"`)
	err = r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{rawTool("plus", okHandler(2))}})
	require.ErrorIs(t, err, ErrNameClash)
	assert.ErrorContains(t, err, `"plus" is an alias of "add"`)
	mine := "" // a tool's own prefix makes no difference to its final name here
	err = r.Add(&Tool{Name: "plus", Prefix: &mine, Description: "d", Handler: okHandler(3)})
	require.ErrorIs(t, err, ErrNameClash)

	assert.Equal(t, []string{"add"}, toolNames(r.ListAll()), "nothing of a refused call is registered")
	assert.Empty(t, r.Packs())
	res, err := r.Invoke(t.Context(), "plus", nil)
	require.NoError(t, err)
	assert.Equal(t, "added", res.Value, "the alias still runs its target")
	assert.Equal(t, map[string]string{"plus": "add"}, r.Aliases())
	require.NoError(t, r.SetAliases(r.Aliases()), "the aliases as they are can be set again")

	require.NoError(t, r.SetAliases(nil))
	require.NoError(t, AddFunc(r, "plus", answer("new plus"), ToolOptions{Doc: "Plus."}), "once the alias is gone the name is free")
}

// Under a prefix, an alias and a tool's undecorated name compare as
// SetAliases compares them, both ways round: configuration naming the tool
// undecorated (TargetName) would reach the alias, so neither may come
// second — unless the alias runs that very tool (a shortcut without the
// prefix), which may be set before the tool arrives.
func TestAliasAndUndecoratedName_RefusedBothWays(t *testing.T) {
	r := New(Options{Prefix: new("tp"), Logger: noPrefix().Logger})
	require.NoError(t, r.Add(rawTool("add", okHandler("added"))))
	require.NoError(t, r.SetAliases(map[string]string{"mul": "tp_add", "sub": "tp_sub", "minus": "sub"}))

	err := r.Add(rawTool("mul", okHandler("mul")))
	require.ErrorIs(t, err, ErrNameClash)
	assert.ErrorContains(t, err, `tool "tp_mul": its undecorated name "mul" is an alias of "tp_add" (under the registry's prefix "tp", configuration naming "mul" would reach the alias, not the tool)`)

	require.NoError(t, r.Add(rawTool("sub", okHandler("subtracted"))), "an alias that runs the tool may hold its undecorated name")
	for _, name := range []string{"sub", "minus", "tp_sub"} {
		res, err := r.Invoke(t.Context(), name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, "subtracted", res.Value, name)
	}

	err = r.SetAliases(map[string]string{"add": "tp_sub"})
	require.ErrorIs(t, err, ErrNameClash)
	assert.ErrorContains(t, err, `alias "add": registry: name already registered: it is the undecorated name of tool "tp_add" under the registry's prefix "tp"`)
	require.NoError(t, r.SetAliases(map[string]string{"add": "tp_add"}), "a shortcut to the tool itself")
	require.NoError(t, r.SetAliases(r.Aliases()))
}

// Turning an alias into a tool of the same name (a snippet or tool
// replacing an alias) is one UpdateDropping naming the alias: the tool
// registered first, then the aliases set without it, as hostconfig applies
// a configuration. An update that declares the drop and registers the tool
// but leaves the alias has it dropped at its end; a plain Update gives no
// alias's name away.
func TestUpdate_TurnsAnAliasIntoATool(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("add", okHandler("added"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"snippet.double": "add", "plus": "add"}))

	require.NoError(t, r.UpdateDropping([]string{"snippet.double"}, func() error {
		if err := r.ReplacePack(&Pack{Name: "snippet", Tools: []*Tool{rawTool("snippet.double", okHandler("doubled"))}}); err != nil {
			return err
		}
		return r.SetAliases(map[string]string{"plus": "add"})
	}))
	res, err := r.Invoke(t.Context(), "snippet.double", nil)
	require.NoError(t, err)
	assert.Equal(t, "doubled", res.Value)
	assert.Equal(t, map[string]string{"plus": "add"}, r.Aliases())

	// Nested: the outer update's declaration covers the inner one's pack.
	require.NoError(t, r.UpdateDropping([]string{"plus"}, func() error {
		if err := r.Update(func() error {
			return r.AddPack(&Pack{Name: "plus", Tools: []*Tool{rawTool("plus", okHandler("new plus"))}})
		}); err != nil {
			return err
		}
		return r.SetAliases(nil)
	}))

	// A plain Update gives no alias's name away, and Add never does.
	require.NoError(t, r.SetAliases(map[string]string{"times": "add"}))
	times := func() error {
		return r.AddPack(&Pack{Name: "times", Tools: []*Tool{rawTool("times", okHandler("new times"))}})
	}
	require.ErrorIs(t, r.Update(times), ErrNameClash)
	require.ErrorIs(t, r.UpdateDropping([]string{"times"}, func() error { return r.Add(rawTool("times", okHandler(0))) }), ErrNameClash)
	assert.Equal(t, map[string]string{"times": "add"}, r.Aliases())

	// An update that declares the drop but leaves the alias: dropped at
	// its end, as declared, and the tool answers the name.
	require.NoError(t, r.UpdateDropping([]string{"times"}, times))
	assert.Empty(t, r.Aliases(), "the alias the update dropped is gone")
	require.NoError(t, r.SetAliases(r.Aliases()))
	res, err = r.Invoke(t.Context(), "times", nil)
	require.NoError(t, err)
	assert.Equal(t, "new times", res.Value)
}

// While an update that drops some aliases runs, every other alias keeps
// its name against any goroutine, and Add (a catalogue registering a
// tool while a configuration reload runs) takes none: only a pack may
// hold the name of an alias the update drops.
func TestUpdate_OtherAliasesKeepTheirNamesDuringAnUpdate(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("add", okHandler("added"))))
	require.NoError(t, r.SetAliases(map[string]string{"plus": "add", "old": "add"}))
	inside, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- r.UpdateDropping([]string{"old"}, func() error {
			close(inside)
			<-release
			return r.SetAliases(map[string]string{"plus": "add", "times": "add"})
		})
	}()
	<-inside
	require.ErrorIs(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("plus", okHandler("taken"))}}), ErrNameClash, "an alias the update keeps")
	require.ErrorIs(t, r.Add(rawTool("old", okHandler("taken"))), ErrNameClash, "Add, even of an alias the update drops")
	require.NoError(t, r.AddPack(&Pack{Name: "old", Tools: []*Tool{rawTool("old", okHandler("mine now"))}}), "a pack, of an alias the update drops")
	close(release)
	require.NoError(t, <-done)
	assert.Equal(t, map[string]string{"plus": "add", "times": "add"}, r.Aliases())
	res, err := r.Invoke(t.Context(), "old", nil)
	require.NoError(t, err)
	assert.Equal(t, "mine now", res.Value)
}

// An alias's chain ends where a call of it ends, at the first name a tool
// answers: when an update registers a tool on the way (tp_b, answering
// "b"), the alias b it declared it drops is dropped, and so is the alias
// a that ran tp_a through b and now holds tp_a's undecorated name without
// running it.
func TestUpdate_DroppedAliasChangesTheChainsThroughIt(t *testing.T) {
	r := New(Options{Prefix: new("tp"), Logger: noPrefix().Logger})
	require.NoError(t, r.SetAliases(map[string]string{"a": "b", "b": "tp_a"}))
	require.NoError(t, r.Add(rawTool("a", okHandler("a"))), "alias a runs tp_a, the tool of its undecorated name")

	require.NoError(t, r.UpdateDropping([]string{"b"}, func() error {
		return r.AddPack(&Pack{Name: "b", Tools: []*Tool{rawTool("b", okHandler("b"))}})
	}))
	assert.Empty(t, r.Aliases())
	require.NoError(t, r.SetAliases(r.Aliases()))
}

// However tools, aliases and updates interleave, no alias holds a tool's
// name outside an update (as SetAliases compares them), so the aliases as
// they are can always be set again.
func TestAliasesAndTools_NeverShareAName(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prefix := rapid.SampledFrom([]string{"", "tp"}).Draw(t, "prefix")
		r := New(Options{Prefix: &prefix, Logger: noPrefix().Logger})
		names := []string{"a", "b", "plus", "tp_a", "tp_b", "tp_plus"}
		name := rapid.SampledFrom(names)
		for i := range rapid.IntRange(1, 30).Draw(t, "steps") {
			switch rapid.IntRange(0, 4).Draw(t, fmt.Sprint("op", i)) {
			case 0:
				_ = r.Add(rawTool(name.Draw(t, "add"), okHandler(1)))
			case 1:
				_ = r.Remove(name.Draw(t, "remove"))
			case 2:
				m := rapid.MapOf(name, name).Draw(t, "aliases")
				_ = r.SetAliases(m)
			case 3:
				tools := []*Tool{rawTool(name.Draw(t, "packed"), okHandler(2))}
				_ = r.ReplacePack(&Pack{Name: "pk", Tools: tools})
			case 4:
				add := name.Draw(t, "updated")
				m := rapid.MapOf(name, name).Draw(t, "new aliases")
				drop := rapid.SliceOf(name).Draw(t, "dropping")
				_ = r.UpdateDropping(drop, func() error {
					_ = r.ReplacePack(&Pack{Name: "up", Tools: []*Tool{rawTool(add, okHandler(3))}})
					return r.SetAliases(m)
				})
			}
			r.mu.RLock()
			for a := range r.aliases {
				if tool, _ := r.toolAtLocked(r.aliases, a); tool != "" {
					r.mu.RUnlock()
					t.Fatalf("alias %q holds the name of tool %q", a, tool)
				}
			}
			r.mu.RUnlock()
			if err := r.SetAliases(r.Aliases()); err != nil {
				t.Fatalf("the aliases as they are cannot be set again: %v", err)
			}
		}
	})
}

// An update that ends before another that declared an alias dropped does
// not drop that alias: aliases are settled when the last update ends, so
// an outer update that took the name and then rolled back, failing, keeps
// every alias of the configuration that stays.
func TestUpdate_OverlappingUpdateDoesNotSettleAnothersAlias(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("add", okHandler("added"))))
	require.NoError(t, r.SetAliases(map[string]string{"x": "add", "y": "add"}))
	err := r.UpdateDropping([]string{"x"}, func() error {
		require.NoError(t, r.AddPack(&Pack{Name: "x", Tools: []*Tool{rawTool("x", okHandler("x"))}}))
		require.NoError(t, r.UpdateDropping([]string{"y"}, func() error { return nil }))
		require.NoError(t, r.RemovePack("x")) // the outer update rolls back
		return errors.New("outer failed")
	})
	require.Error(t, err)
	assert.Equal(t, map[string]string{"x": "add", "y": "add"}, r.Aliases())
}
