package hostconfig_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/result"
)

type pair struct {
	A int `json:"a" validate:"required"`
	B int `json:"b" validate:"required"`
}

// newTestRegistry returns a registry with the pack "math" (add, add2,
// mul) and the given prefix.
func newTestRegistry(t testing.TB, prefix string) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: &prefix, Logger: slog.New(slog.DiscardHandler)})
	p := &registry.Pack{Name: "math", Description: "Arithmetic."}
	sum := func(_ context.Context, a pair) (result.Result[int], error) { return result.Ok(a.A + a.B), nil }
	require.NoError(t, errors.Join(
		registry.AddFunc(p, "add", sum, registry.ToolOptions{Doc: "Adds."}),
		registry.AddFunc(p, "add2", sum, registry.ToolOptions{Doc: "Adds too."}),
		registry.AddFunc(p, "mul", func(_ context.Context, a pair) (result.Result[int], error) {
			return result.Ok(a.A * a.B), nil
		}, registry.ToolOptions{Doc: "Multiplies."}),
	))
	require.NoError(t, reg.AddPack(p))
	return reg
}

// snippetHook is a stand-in for the snippet glue: every snippet of the
// configuration becomes the tool snippet.{name} of the pack "snippet",
// answering its body, replaced as a whole on every apply.
func snippetHook(reg *registry.Registry) hostconfig.Hook {
	return func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		p := &registry.Pack{Name: "snippet", Description: "Snippets."}
		var names []string
		for name, s := range cfg.Snippets {
			if strings.Contains(s.Body, "FAIL") {
				return hostconfig.Step{}, cfg.Errorf("snippets."+name+".body", "line 1: the body says FAIL")
			}
			body := s.Body
			names = append(names, "snippet."+name)
			p.Tools = append(p.Tools, &registry.Tool{Name: "snippet." + name, Description: s.Description,
				Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
					return result.Ok[any](body), nil
				}})
		}
		oldPack := &registry.Pack{Name: "snippet"}
		for _, pk := range reg.Packs() {
			if pk.Name == "snippet" {
				oldPack = pk
			}
		}
		return hostconfig.Step{
			Tools: names,
			Packs: []string{"snippet"},
			Apply: func(context.Context) error { return reg.ReplacePack(p) },
			Undo:  func(context.Context) error { return reg.ReplacePack(oldPack) },
		}, nil
	}
}

func newHost(t testing.TB, reg *registry.Registry, path string, vars map[string]string) *hostconfig.Host {
	t.Helper()
	h, err := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: reg, Load: hostconfig.LoadOptions{LookupEnv: env(vars)}})
	require.NoError(t, err)
	return h
}

func invoke(t testing.TB, reg *registry.Registry, name, args string) (result.Result[any], error) {
	t.Helper()
	return reg.Invoke(context.Background(), name, json.RawMessage(args))
}

func write(t testing.TB, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

func TestHost_AliasesApplied(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add, times: mul, p2: plus}\n"})
	h := newHost(t, reg, filepath.Join(dir, "c.yaml"), nil)
	assert.Nil(t, h.Config(), "nothing in force before the first load")
	require.NoError(t, h.Reload(context.Background()))

	assert.Equal(t, map[string]string{"plus": "add", "times": "mul", "p2": "plus"}, reg.Aliases())
	res, err := invoke(t, reg, "plus", `{"a":2,"b":3}`)
	require.NoError(t, err)
	assert.Equal(t, 5, res.Value)
	res, err = invoke(t, reg, "p2", `{"a":2,"b":3}`)
	require.NoError(t, err)
	assert.Equal(t, 5, res.Value, "an alias of an alias")
	for _, tool := range reg.List() {
		assert.NotEqual(t, "plus", tool.Name, "aliases are not listed as tools")
	}
	assert.Equal(t, filepath.Join(dir, "c.yaml"), h.Path())
	assert.Equal(t, []string{filepath.Join(dir, "c.yaml")}, h.Config().Files)
}

func TestHost_AliasTargetsCheckedAgainstRegistry(t *testing.T) {
	reg := newTestRegistry(t, "tp")
	dir := writeFiles(t, map[string]string{"c.yaml": `aliases:
  final: tp_add
  undecorated: add
  chained: final
  remote: gh.search
  remote_prefixed: tp_gh.search
  snip: snippet.twice
  snip_final: tp_snippet.twice
servers:
  gh: {url: "https://gh.test/mcp"}
snippets:
  twice: {body: "r = add(a=1, b=1)"}
`})
	h := newHost(t, reg, filepath.Join(dir, "c.yaml"), nil)
	h.OnApply("snippets", snippetHook(reg))
	h.OnApply("servers", func(context.Context, *hostconfig.Config, *hostconfig.Config) (hostconfig.Step, error) {
		return hostconfig.Step{}, nil // the servers' tools arrive later
	})
	require.NoError(t, h.Reload(context.Background()))
	res, err := invoke(t, reg, "undecorated", `{"a":1,"b":1}`)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Value)
	res, err = invoke(t, reg, "snip", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "r = add(a=1, b=1)", res.Value)
	res, err = invoke(t, reg, "remote", `{}`)
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType, "a server's tool is not served until the server connects")
}

// Names an alias may not take: a tool's undecorated name under the
// registry's prefix (configuration names tools undecorated, so a snippet
// step or another alias writing it would find the alias here and the tool
// there) — unless the alias runs that very tool, a shortcut without the
// prefix — and a name in a configured server's namespace (its tools take
// those names when it connects, and would hide the alias or be hidden).
// A server's tools are taken on trust as targets, connected or not, so
// that the verdict on a file never changes with a server's state.
func TestHost_AliasNamesThatWouldBeTakenRefused(t *testing.T) {
	reg := newTestRegistry(t, "tp")
	up := &registry.Pack{Name: "up", Description: "A connected server."}
	require.NoError(t, registry.AddFunc(up, "up.echo", func(_ context.Context, a pair) (result.Result[int], error) { return result.Ok(a.A), nil }, registry.ToolOptions{Doc: "Echoes."}))
	require.NoError(t, reg.AddPack(up))
	dir := writeFiles(t, map[string]string{"c.yaml": `aliases:
  mul: add
  kid.later: add
  tp_kid.other: add
  fine: add
  add: tp_add
  up_missing: up.nosuch
  up_fine: up.echo
  kid_fine: kid.anything
servers:
  kid: {url: "https://kid.test/mcp"}
  up: {url: "https://up.test/mcp"}
`})
	h := newHost(t, reg, filepath.Join(dir, "c.yaml"), nil)
	err := h.Reload(context.Background())
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `c.yaml:2: aliases.mul: "mul" is the name of tool "tp_mul" under the registry's prefix "tp"`)
	assert.Contains(t, msg, `c.yaml:3: aliases.kid.later: "kid.later" is in the names of server "kid" (kid.…)`)
	assert.Contains(t, msg, `c.yaml:4: aliases.tp_kid.other: "tp_kid.other" is in the names of server "kid"`)
	for _, ok := range []string{"aliases.fine", "aliases.add:", "aliases.up_missing", "aliases.up_fine", "aliases.kid_fine"} {
		assert.NotContains(t, msg, ok)
	}
	assert.Nil(t, h.Config(), "nothing applied")

	// The host's other servers (a -proxy file, Options.Servers) count as
	// the configuration's do.
	dir = writeFiles(t, map[string]string{"c.yaml": "aliases:\n  fx.add: add\n  ok: fx.anything\n"})
	h, err = hostconfig.NewHost(hostconfig.Options{Path: filepath.Join(dir, "c.yaml"), Registry: newTestRegistry(t, ""), Servers: []string{"fx"}})
	require.NoError(t, err)
	err = h.Reload(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `c.yaml:2: aliases.fx.add: "fx.add" is in the names of server "fx"`)
	assert.NotContains(t, err.Error(), "aliases.ok")
}

// Names a host reports with Options.Dynamic (a tools catalogue's, whose
// tools are switched on and off without a reload) are taken on trust as
// alias targets, as a configured server's are: the same file is accepted
// whether the tool is served now or not, at the first load and on every
// reload, and a call of the alias answers "not served" while it is not. A
// name in no dynamic namespace is still refused, and an alias may not take
// a dynamic name as its own.
func TestHost_DynamicNamesAreAliasTargetsServedOrNot(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases:\n  cat: shelf.add.1\n  via: cat\n"})
	path := filepath.Join(dir, "c.yaml")
	dynamic := func(name string) (string, bool) {
		if strings.HasPrefix(name, "shelf.") {
			return `catalogue bundle "shelf"`, true
		}
		return "", false
	}
	h, err := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: reg, Dynamic: dynamic})
	require.NoError(t, err)

	read, err := h.Read()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cat": "shelf.add.1", "via": "cat"}, read.Aliases)
	assert.Nil(t, h.Config(), "Read applies nothing")

	// Not served at the first load: accepted all the same.
	require.NoError(t, h.Apply(context.Background(), read))
	res, err := invoke(t, reg, "via", `{"a":2,"b":3}`)
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType, "not served now: %v", res.Error)

	// Switched on: the alias runs it.
	shelf := &registry.Pack{Name: "catalogue", Description: "Switched on and off."}
	require.NoError(t, registry.AddFunc(shelf, "shelf.add.1", func(_ context.Context, a pair) (result.Result[int], error) {
		return result.Ok(a.A + a.B), nil
	}, registry.ToolOptions{Doc: "Adds."}))
	require.NoError(t, reg.AddPack(shelf))
	require.NoError(t, h.Reload(context.Background()))
	res, err = invoke(t, reg, "cat", `{"a":2,"b":3}`)
	require.NoError(t, err)
	assert.Equal(t, 5, res.Value)

	// Switched off again: the unchanged file still reloads.
	require.NoError(t, reg.RemovePack("catalogue"))
	require.NoError(t, h.Reload(context.Background()), "switching a tool off does not break the next reload")

	// What Dynamic does not report is refused as before, and a dynamic
	// name is not an alias's own.
	write(t, path, "aliases:\n  cat: shelf.add.1\n  typo: shelve.add.1\n  shelf.mine.1: add\n")
	err = h.Reload(context.Background())
	assert.Equal(t, []string{
		`c.yaml:3: aliases.typo: target "shelve.add.1" is not a tool; expected a registered tool, another alias, or {server}.{tool} of a configured server`,
		`c.yaml:4: aliases.shelf.mine.1: "shelf.mine.1" is in the names of catalogue bundle "shelf", which its tools take without a reload; an alias needs a name of its own`,
	}, problemTexts(t, dir, err))

	// Without Dynamic the same file is refused while the tool is off.
	write(t, path, "aliases:\n  cat: shelf.add.1\n")
	plain := newHost(t, reg, path, nil)
	err = plain.Reload(context.Background())
	assert.Equal(t, []string{
		`c.yaml:2: aliases.cat: target "shelf.add.1" is not a tool; expected a registered tool, another alias, or {server}.{tool} of a configured server`,
	}, problemTexts(t, dir, err))
}

func TestHost_AliasToUnknownToolRefused(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	require.NoError(t, h.Reload(context.Background()))
	first := h.Config()

	write(t, path, "aliases:\n  plus: add\n  ws: brave.web_search\n  via: ws\n  add: mul\n  gone: snippet.old\n")
	err := h.Reload(context.Background())
	require.ErrorIs(t, err, hostconfig.ErrInvalid)
	assert.Equal(t, []string{
		`c.yaml:3: aliases.ws: target "brave.web_search" is not a tool; expected a registered tool, another alias, or {server}.{tool} of a configured server`,
		`c.yaml:4: aliases.via: target "ws" ends at "brave.web_search", which is not a tool; expected a registered tool, another alias, or {server}.{tool} of a configured server`,
		`c.yaml:5: aliases.add: "add" is the name of a tool; an alias needs a name of its own`,
		`c.yaml:6: aliases.gone: target "snippet.old" is not a tool; expected a registered tool, another alias, or {server}.{tool} of a configured server`,
	}, problemTexts(t, dir, err))
	assert.Same(t, first, h.Config(), "the configuration in force stays")
	assert.Equal(t, map[string]string{"plus": "add"}, reg.Aliases())
}

// An alias target taken from the environment is named as the file wrote
// it: the value may be a secret.
func TestHost_AliasTargetFromEnvironmentNotShown(t *testing.T) {
	const secret = "hunter2-0xfeed"
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases:\n  x: \"${SECRET}\"\n  y: \"${CHAIN}\"\n  hop: ${SECRET}\n"})
	h := newHost(t, reg, filepath.Join(dir, "c.yaml"), map[string]string{"SECRET": secret, "CHAIN": "hop"})
	err := h.Reload(context.Background())
	require.ErrorIs(t, err, hostconfig.ErrInvalid)
	assert.NotContains(t, err.Error(), secret)
	assert.Equal(t, []string{
		`c.yaml:2: aliases.x: target "${SECRET}" is not a tool; expected a registered tool, another alias, or {server}.{tool} of a configured server`,
		`c.yaml:3: aliases.y: target "${CHAIN}" ends at "${SECRET}", which is not a tool; expected a registered tool, another alias, or {server}.{tool} of a configured server`,
		`c.yaml:4: aliases.hop: target "${SECRET}" is not a tool; expected a registered tool, another alias, or {server}.{tool} of a configured server`,
	}, problemTexts(t, dir, err))
}

func TestHost_BrokenFileKeepsPreviousConfig(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "include: [more.yaml]\naliases: {plus: add}\n", "more.yaml": "stats: {enabled: true}\n"})
	h := newHost(t, reg, filepath.Join(dir, "c.yaml"), nil)
	require.NoError(t, h.Reload(context.Background()))
	first := h.Config()

	write(t, filepath.Join(dir, "more.yaml"), "stats:\n  enabled: true\n  flush_interval: soon\n")
	write(t, filepath.Join(dir, "c.yaml"), "include: [more.yaml]\naliases: {plus: mul}\n")
	err := h.Reload(context.Background())
	assert.Equal(t, []string{`more.yaml:3: stats.flush_interval: expected a duration such as 1s, got "soon"`}, problemTexts(t, dir, err))
	assert.Same(t, first, h.Config())
	assert.Equal(t, map[string]string{"plus": "add"}, reg.Aliases(), "a broken file changes nothing")

	write(t, filepath.Join(dir, "more.yaml"), "stats: {enabled: false}\n")
	require.NoError(t, h.Reload(context.Background()))
	assert.Equal(t, map[string]string{"plus": "mul"}, reg.Aliases(), "the fixed file applies")
	assert.False(t, h.Config().Stats.Enabled)
}

func TestHost_HookPrepareErrorAppliesNothing(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add}\nsnippets: {s: {body: ok}}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	var applied []string
	h.OnApply("first", func(_ context.Context, _, cfg *hostconfig.Config) (hostconfig.Step, error) {
		return hostconfig.Step{Apply: func(context.Context) error {
			applied = append(applied, "first:"+cfg.Snippets["s"].Body)
			return nil
		}}, nil
	})
	h.OnApply("snippets", snippetHook(reg))
	h.OnApply("settings", func(_ context.Context, _, cfg *hostconfig.Config) (hostconfig.Step, error) {
		if cfg.Stats.Enabled {
			return hostconfig.Step{}, cfg.Errorf("stats.dir", "cannot create the directory")
		}
		return hostconfig.Step{}, nil
	})
	require.NoError(t, h.Reload(context.Background()))
	require.Equal(t, []string{"first:ok"}, applied)

	write(t, path, "aliases: {plus: mul}\nsnippets: {s: {body: FAIL}}\nstats: {enabled: true, dir: st}\n")
	err := h.Reload(context.Background())
	require.Error(t, err)
	assert.Equal(t, []string{"first:ok"}, applied, "no step is applied when a hook refuses")
	// Each problem reads as Load's do: file, line, key and message.
	assert.Equal(t, path+":2: snippets.s.body: line 1: the body says FAIL\n"+
		path+":3: stats.dir: cannot create the directory", err.Error(), "every hook's problem is reported")
	assert.Len(t, hostconfig.Problems(err), 2)
	assert.Equal(t, map[string]string{"plus": "add"}, reg.Aliases())
	res, err := invoke(t, reg, "snippet.s", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Value)
}

func TestHost_FailingApplyUndoesEarlierSteps(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add}\nsnippets: {s: {body: v1}}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	h.OnApply("snippets", snippetHook(reg))
	var failApply atomic.Bool
	var undone atomic.Int32
	h.OnApply("late", func(context.Context, *hostconfig.Config, *hostconfig.Config) (hostconfig.Step, error) {
		return hostconfig.Step{
			Apply: func(context.Context) error {
				if failApply.Load() {
					return errors.New("disk full")
				}
				return nil
			},
			Undo: func(context.Context) error { undone.Add(1); return nil },
		}, nil
	})
	require.NoError(t, h.Reload(context.Background()))
	first := h.Config()

	failApply.Store(true)
	write(t, path, "aliases: {plus: mul}\nsnippets: {s: {body: v2}, t: {body: new}}\n")
	err := h.Reload(context.Background())
	require.ErrorContains(t, err, "hostconfig: applying late: disk full")
	assert.Zero(t, undone.Load(), "the failing step itself is not undone")
	res, err := invoke(t, reg, "snippet.s", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "v1", res.Value, "the snippet pack applied before the failure is undone")
	_, ok := reg.Lookup("snippet.t")
	assert.False(t, ok)
	assert.Equal(t, map[string]string{"plus": "add"}, reg.Aliases())
	assert.Same(t, first, h.Config())
}

// TestHost_StepsNotAppliedAreDiscarded: what a hook prepared (a store it
// opened) is released when its step does not take effect — another hook
// or the aliases refuse the configuration, or a step's Apply fails (that
// step and the ones after it) —, and never once it is applied.
func TestHost_StepsNotAppliedAreDiscarded(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	var mu sync.Mutex
	var events []string
	note := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	var refuse, failApply atomic.Bool
	step := func(name string) hostconfig.Hook {
		return func(context.Context, *hostconfig.Config, *hostconfig.Config) (hostconfig.Step, error) {
			return hostconfig.Step{
				Apply: func(context.Context) error {
					if name == "middle" && failApply.Load() {
						return errors.New("disk full")
					}
					note("apply " + name)
					return nil
				},
				Undo:    func(context.Context) error { note("undo " + name); return nil },
				Discard: func() { note("discard " + name) },
			}, nil
		}
	}
	h.OnApply("first", step("first"))
	h.OnApply("middle", step("middle"))
	h.OnApply("refuser", func(_ context.Context, _, cfg *hostconfig.Config) (hostconfig.Step, error) {
		if refuse.Load() {
			return hostconfig.Step{Discard: func() { note("discard refuser") }}, cfg.Errorf("stats.dir", "cannot create the directory")
		}
		return hostconfig.Step{}, nil
	})
	h.OnApply("last", step("last"))
	taken := func() []string { mu.Lock(); defer mu.Unlock(); out := events; events = nil; return out }

	require.NoError(t, h.Reload(context.Background()))
	assert.Equal(t, []string{"apply first", "apply middle", "apply last"}, taken(), "applied steps are not discarded")

	refuse.Store(true)
	require.Error(t, h.Reload(context.Background()))
	assert.Equal(t, []string{"discard first", "discard middle", "discard last"}, taken(),
		"a hook's refusal discards every other step; the refusing hook's own Step is not used")

	refuse.Store(false)
	write(t, path, "aliases: {plus: nothing}\n")
	require.Error(t, h.Reload(context.Background()))
	assert.Equal(t, []string{"discard first", "discard middle", "discard last"}, taken(), "refused aliases discard every step")

	write(t, path, "aliases: {plus: mul}\n")
	failApply.Store(true)
	require.ErrorContains(t, h.Reload(context.Background()), "applying middle: disk full")
	assert.Equal(t, []string{"apply first", "discard middle", "discard last", "undo first"}, taken(),
		"the failing step and those after it are discarded, those before undone")
	assert.Equal(t, map[string]string{"plus": "add"}, reg.Aliases())
}

func TestHost_HooksSeeOldAndNew(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "stats: {enabled: false}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	type seen struct{ old, new *hostconfig.Config }
	var calls []seen
	h.OnApply("settings", func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		calls = append(calls, seen{old, cfg})
		return hostconfig.Step{}, nil
	})
	h.OnApply("nil hook is ignored", nil)
	require.NoError(t, h.Reload(context.Background()))
	write(t, path, "stats: {enabled: true}\n")
	require.NoError(t, h.Reload(context.Background()))
	require.Len(t, calls, 2)
	assert.Nil(t, calls[0].old)
	assert.False(t, calls[0].new.Stats.Enabled)
	assert.Same(t, calls[0].new, calls[1].old)
	assert.True(t, calls[1].new.Stats.Enabled)
	assert.Same(t, calls[1].new, h.Config())
}

func TestHost_NoPathAppliesDefaults(t *testing.T) {
	reg := newTestRegistry(t, "")
	require.NoError(t, reg.SetAliases(map[string]string{"stale": "add"}))
	h, err := hostconfig.NewHost(hostconfig.Options{Registry: reg, Load: hostconfig.LoadOptions{DataDir: "/data"}})
	require.NoError(t, err)
	require.NoError(t, h.Reload(context.Background()))
	assert.Equal(t, hostconfig.Default("/data"), h.Config())
	assert.Empty(t, reg.Aliases())

	_, err = hostconfig.NewHost(hostconfig.Options{})
	require.ErrorIs(t, err, hostconfig.ErrNoRegistry)
	require.Error(t, h.Apply(context.Background(), nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, h.Apply(ctx, hostconfig.Default("")), context.Canceled)
}

func TestHost_ReloadsSerialised(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add}\n"})
	h := newHost(t, reg, filepath.Join(dir, "c.yaml"), nil)
	var inside, overlaps atomic.Int32
	h.OnApply("slow", func(context.Context, *hostconfig.Config, *hostconfig.Config) (hostconfig.Step, error) {
		if inside.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(time.Millisecond)
		inside.Add(-1)
		return hostconfig.Step{}, nil
	})
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, h.Reload(context.Background()))
		}()
	}
	wg.Wait()
	assert.Zero(t, overlaps.Load(), "two reloads never run at once")
}

// Two reloads at once: the one that began reading last applies last, so
// what is in force is what the files hold, never an older read that was
// slower (an edit and SIGHUP racing an ot.reload).
func TestHost_SlowerEarlierReloadNeverLandsLast(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: \"${SLOW}\"}\n"})
	path := filepath.Join(dir, "c.yaml")
	reading, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h, err := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: reg, Load: hostconfig.LoadOptions{
		LookupEnv: func(name string) (string, bool) {
			if name == "SLOW" {
				once.Do(func() { close(reading); <-release })
			}
			return "add", true
		},
	}})
	require.NoError(t, err)

	first := make(chan error, 1)
	go func() { first <- h.Reload(context.Background()) }()
	<-reading // the first reload has read the old file and is slow
	write(t, path, "aliases: {twice: add}\n")
	second := make(chan error, 1)
	go func() { second <- h.Reload(context.Background()) }()
	secondDone := false
	select {
	case err := <-second:
		require.NoError(t, err)
		secondDone = true // before the first: what this test catches
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-first)
	if !secondDone {
		require.NoError(t, <-second)
	}
	assert.Equal(t, map[string]string{"twice": "add"}, h.Config().Aliases, "the file as it is now")
	assert.Equal(t, map[string]string{"twice": "add"}, reg.Aliases())
}

func TestHost_OneRegistryChangePerReload(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add, tw: snippet.twice}\nsnippets: {twice: {body: a}}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	h.OnApply("snippets", snippetHook(reg))
	require.NoError(t, h.Reload(context.Background()))
	var changes atomic.Int32
	cancel := reg.Subscribe(func(registry.Change) { changes.Add(1) })
	defer cancel()
	for i := range 5 {
		write(t, path, "aliases: {plus: add2, tw: snippet.twice}\nsnippets: {twice: {body: b}, extra"+string(rune('0'+i))+": {body: c}}\n")
		require.NoError(t, h.Reload(context.Background()))
	}
	assert.Equal(t, int32(5), changes.Load(), "one change per reload (aliases notify nobody; the pack is replaced in one step)")
}

// reloadFigures are the measures of a reload-under-load run.
type reloadFigures struct {
	calls, failed     int64
	reloads           int
	elapsed           time.Duration
	p50, p99, maxTime time.Duration
}

// reloadUnderLoad runs callers goroutines calling tools (directly, through
// aliases every reload re-sets, and tools of a pack every reload replaces)
// while the configuration file is rewritten and reloaded reloads times,
// spread over span. It returns the figures; every failure is reported
// through fail.
//
// With yield, each caller yields the processor after each call, as a
// goroutine serving a client does while it waits for the network; without
// it the callers spin, and with more callers than processors the
// reloading goroutine waits for the Go scheduler after each file system
// call (the figures then measure the scheduler, not the reload).
func reloadUnderLoad(t testing.TB, callers, reloads int, span time.Duration, yield bool, fail func(string, ...any)) reloadFigures {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, nil)
	path := filepath.Join(dir, "c.yaml")
	version := func(i int) string {
		target := []string{"add", "add2"}[i%2]
		v := "v" + string(rune('a'+i%2)) // a snippet renamed by every reload
		return "aliases: {plus: " + target + ", tw: snippet.twice, p2: plus, rt: snippet." + v + "}\n" +
			"snippets:\n  twice: {body: same}\n  " + v + ": {body: same}\n" +
			"stats: {enabled: " + []string{"true", "false"}[i%2] + "}\n"
	}
	write(t, path, version(0))
	h := newHost(t, reg, path, nil)
	h.OnApply("snippets", snippetHook(reg))
	require.NoError(t, h.Reload(context.Background()))

	calls := []struct{ name, args string }{
		{"plus", `{"a":1,"b":2}`}, // alias re-set by every reload
		{"p2", `{"a":1,"b":2}`},   // alias of an alias
		{"tw", `{}`},              // alias to a tool of the replaced pack
		{"rt", `{}`},              // alias whose target the reload renames
		{"snippet.twice", `{}`},   // tool of the replaced pack
		{"mul", `{"a":1,"b":3}`},  // untouched tool
	}
	stop := make(chan struct{})
	var n, failed atomic.Int64
	var wg sync.WaitGroup
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				c := calls[i%len(calls)]
				res, err := reg.Invoke(context.Background(), c.name, json.RawMessage(c.args))
				n.Add(1)
				want := any(3)
				if c.name == "tw" || c.name == "rt" || strings.HasPrefix(c.name, "snippet") {
					want = "same"
				}
				if err != nil || !res.Success || res.Value != want {
					failed.Add(1)
					fail("call %s: err %v, result %+v", c.name, err, res)
				}
				if yield {
					runtime.Gosched()
				}
			}
		}()
	}
	var times []time.Duration
	start := time.Now()
	for i := 1; i <= reloads; i++ {
		write(t, path, version(i))
		t0 := time.Now()
		if err := h.Reload(context.Background()); err != nil {
			fail("reload %d: %v", i, err)
		}
		times = append(times, time.Since(t0))
		if next := start.Add(span * time.Duration(i) / time.Duration(reloads)); time.Until(next) > 0 {
			time.Sleep(time.Until(next))
		}
	}
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return reloadFigures{calls: n.Load(), failed: failed.Load(), reloads: len(times), elapsed: elapsed,
		p50: times[len(times)/2], p99: times[len(times)*99/100], maxTime: slices.Max(times)}
}

// TestHost_ReloadUnderLoad is issue 11's measure: 8 goroutines calling
// for 5 s while reload runs 100 times → zero failed calls. It takes about
// 5 s (1 s with -short).
func TestHost_ReloadUnderLoad(t *testing.T) {
	reloads, span := 100, 5*time.Second
	if testing.Short() {
		reloads, span = 20, time.Second
	}
	var reported atomic.Int32
	f := reloadUnderLoad(t, 8, reloads, span, true, func(format string, a ...any) {
		if reported.Add(1) <= 5 { // the first few are enough to see why
			t.Errorf(format, a...)
		}
	})
	t.Logf("%d calls by 8 goroutines in %v during %d reloads: %d failed; reload p50 %v, p99 %v, max %v",
		f.calls, f.elapsed.Round(time.Millisecond), f.reloads, f.failed, f.p50, f.p99, f.maxTime)
	assert.Zero(t, f.failed, "no call fails because of a reload")
	assert.Equal(t, reloads, f.reloads)
	assert.Positive(t, f.calls)
}

// BenchmarkReload is the cost of one Reload of a small configuration
// (one file, two aliases, a pack hook that replaces one pack).
func BenchmarkReload(b *testing.B) {
	reg := newTestRegistry(b, "")
	dir := writeFiles(b, map[string]string{"c.yaml": "aliases: {plus: add, tw: snippet.twice}\nsnippets: {twice: {body: x}}\n"})
	h := newHost(b, reg, filepath.Join(dir, "c.yaml"), nil)
	h.OnApply("snippets", snippetHook(reg))
	for b.Loop() {
		if err := h.Reload(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInvokeDuringReloads compares calls made while the
// configuration is reloaded without pause with calls made without
// reloads, in the same run: each op is one round of 8 goroutines × 500
// calls (alias, alias to a replaced pack's tool, plain tool) without
// reloads, then the same with a goroutine reloading. It reports both
// per-call times, their ratio, and the calls that failed (must be 0).
func BenchmarkInvokeDuringReloads(b *testing.B) {
	reg := newTestRegistry(b, "")
	dir := writeFiles(b, map[string]string{"c.yaml": "aliases: {plus: add, tw: snippet.twice}\nsnippets: {twice: {body: x}}\n"})
	h := newHost(b, reg, filepath.Join(dir, "c.yaml"), nil)
	h.OnApply("snippets", snippetHook(reg))
	require.NoError(b, h.Reload(context.Background()))
	names := []string{"plus", "tw", "mul"}
	args := []json.RawMessage{json.RawMessage(`{"a":1,"b":2}`), json.RawMessage(`{}`), json.RawMessage(`{"a":1,"b":2}`)}
	var failed atomic.Int64
	round := func() time.Duration {
		var wg sync.WaitGroup
		t0 := time.Now()
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 500 {
					k := (g + i) % len(names)
					res, err := reg.Invoke(context.Background(), names[k], args[k])
					if err != nil || !res.Success {
						failed.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(t0)
	}
	var base, loaded time.Duration
	var reloads int64
	for b.Loop() {
		base += round()
		stop := make(chan struct{})
		done := make(chan int64)
		go func() {
			var n int64
			for {
				select {
				case <-stop:
					done <- n
					return
				default:
				}
				if err := h.Reload(context.Background()); err != nil {
					b.Error(err)
				}
				n++
			}
		}()
		loaded += round()
		close(stop)
		reloads += <-done
	}
	calls := float64(b.N * 8 * 500)
	b.ReportMetric(float64(base.Nanoseconds())/calls, "ns/call-baseline")
	b.ReportMetric(float64(loaded.Nanoseconds())/calls, "ns/call-reloading")
	b.ReportMetric(float64(loaded)/float64(base), "ratio")
	b.ReportMetric(float64(reloads)/float64(b.N), "reloads/op")
	b.ReportMetric(float64(failed.Load()), "failed-calls")
}

// A Host not made by NewHost refuses Reload, Apply and Check with
// ErrNoRegistry instead of panicking; negative LoadOptions limits are
// refused naming the field, not replaced by the defaults.
func TestHost_ZeroValueAndNegativeLimitsRefused(t *testing.T) {
	var h hostconfig.Host
	require.NotPanics(t, func() {
		require.ErrorIs(t, h.Reload(context.Background()), hostconfig.ErrNoRegistry)
		require.ErrorIs(t, h.Apply(context.Background(), hostconfig.Default("")), hostconfig.ErrNoRegistry)
		require.ErrorIs(t, h.Check(context.Background(), hostconfig.Default("")), hostconfig.ErrNoRegistry)
	})
	path := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(path, []byte("instructions: {a: b}\n"), 0o600))
	for field, o := range map[string]hostconfig.LoadOptions{
		"MaxFileBytes": {MaxFileBytes: -1}, "MaxIncludeDepth": {MaxIncludeDepth: -2}, "MaxFiles": {MaxFiles: -3},
		"MaxExpandedValueBytes": {MaxExpandedValueBytes: -4},
	} {
		_, err := hostconfig.Load(path, o)
		require.Error(t, err, field)
		assert.Contains(t, err.Error(), "LoadOptions."+field+": expected zero (the default) or a positive value")
	}
}
