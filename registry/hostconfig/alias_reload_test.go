package hostconfig_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/result"
)

// A tool registered by another goroutine while a reload runs (a
// catalogue switching a tool on) cannot take the name of an alias the new
// configuration keeps: the registry refuses it, and the reload applies
// whole, with every alias of the file.
func TestHost_ToolAddedDuringAReloadCannotTakeAKeptAlias(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	started, release := make(chan struct{}), make(chan struct{})
	h.OnApply("slow", func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		return hostconfig.Step{Apply: func(context.Context) error {
			if old != nil {
				close(started)
				<-release
			}
			return nil
		}}, nil
	})
	require.NoError(t, h.Reload(context.Background()))
	tool := func() *registry.Tool {
		return &registry.Tool{Name: "plus", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any]("x"), nil }}
	}
	require.ErrorIs(t, reg.Add(tool()), registry.ErrNameClash) // outside an Update: refused
	write(t, path, "aliases: {plus: add, times: mul}\n")
	done := make(chan error)
	go func() { done <- h.Reload(context.Background()) }()
	<-started
	addErr := reg.Add(tool()) // e.g. cataloguehost enabling a tool, from its own goroutine
	close(release)
	rerr := <-done
	require.ErrorIs(t, addErr, registry.ErrNameClash)
	require.NoError(t, rerr)
	assert.Equal(t, map[string]string{"plus": "add", "times": "mul"}, reg.Aliases())
}

// Check runs what every hook checks and applies nothing: a hook's error
// is returned, each prepared step is discarded, none applied, and the
// configuration in force stays.
func TestHost_CheckPreparesAndDiscardsOnly(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {plus: add}\n"})
	h := newHost(t, reg, filepath.Join(dir, "c.yaml"), nil)
	var applied, discarded int
	h.OnApply("counting", func(_ context.Context, _, cfg *hostconfig.Config) (hostconfig.Step, error) {
		return hostconfig.Step{Apply: func(context.Context) error { applied++; return nil }, Discard: func() { discarded++ }}, nil
	})
	h.OnApply("refusing", func(_ context.Context, _, cfg *hostconfig.Config) (hostconfig.Step, error) {
		if len(cfg.Snippets) > 0 {
			return hostconfig.Step{}, cfg.Errorf("snippets", "refused")
		}
		return hostconfig.Step{}, nil
	})
	cfg, err := h.Read()
	require.NoError(t, err)
	require.NoError(t, h.Check(context.Background(), cfg))
	assert.Equal(t, 0, applied)
	assert.Equal(t, 1, discarded)
	assert.Nil(t, h.Config(), "nothing in force yet")
	assert.Empty(t, reg.Aliases())

	cfg.Snippets = map[string]hostconfig.Snippet{"s": {}}
	err = h.Check(context.Background(), cfg)
	require.ErrorContains(t, err, "snippets: refused")
	assert.Equal(t, 0, applied)
	assert.Equal(t, 2, discarded)
}

// A reload turns an alias into a snippet of the same name and back, with
// and without a registry prefix.
func TestHost_ReloadTurnsAnAliasIntoASnippetAndBack(t *testing.T) {
	for _, prefix := range []string{"", "tp"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			reg := newTestRegistry(t, prefix)
			dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {snippet.s: add, plus: add}\n"})
			path := filepath.Join(dir, "c.yaml")
			h := newHost(t, reg, path, nil)
			h.OnApply("snippets", snippetHook(reg))
			require.NoError(t, h.Reload(context.Background()))
			write(t, path, "aliases: {plus: add}\nsnippets: {s: {body: v1}}\n")
			require.NoError(t, h.Reload(context.Background()))
			assert.Equal(t, map[string]string{"plus": "add"}, reg.Aliases())
			name := "snippet.s"
			if prefix != "" {
				name = prefix + "_snippet.s"
			}
			res, err := invoke(t, reg, name, `{}`)
			require.NoError(t, err)
			assert.Equal(t, "v1", res.Value)
			// and back
			write(t, path, "aliases: {snippet.s: add, plus: add}\n")
			require.NoError(t, h.Reload(context.Background()))
			assert.Equal(t, map[string]string{"snippet.s": "add", "plus": "add"}, reg.Aliases())
		})
	}
}

// A reload turns an alias into a tool a step registers as a pack (as a
// proxied server's tools are).
func TestHost_ReloadTurnsAnAliasIntoAPacksTool(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {fx.t: add}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	on := false
	h.OnApply("srv", func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		if old == nil {
			return hostconfig.Step{}, nil
		}
		return hostconfig.Step{Tools: []string{"fx.t"}, Apply: func(context.Context) error {
			on = true
			return reg.AddPack(&registry.Pack{Name: "fx", Tools: []*registry.Tool{{Name: "fx.t", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any]("srv"), nil }}}})
		}}, nil
	})
	require.NoError(t, h.Reload(context.Background()))
	write(t, path, "aliases: {}\n")
	require.NoError(t, h.Reload(context.Background()))
	require.True(t, on)
	res, err := invoke(t, reg, "fx.t", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "srv", res.Value)
}

// A reload that fails keeps the aliases in force even when another
// goroutine tried meanwhile to register a tool under the name of an alias
// the reload would have dropped: Add takes no alias's name, so the
// registry's aliases stay those of the configuration in force, and the
// old file applies again.
func TestHost_FailedReloadKeepsTheAliasesInForce(t *testing.T) {
	reg := newTestRegistry(t, "")
	dir := writeFiles(t, map[string]string{"c.yaml": "aliases: {x: add, plus: add}\n"})
	path := filepath.Join(dir, "c.yaml")
	h := newHost(t, reg, path, nil)
	started, release := make(chan struct{}), make(chan struct{})
	failed := false // the first reload fails; the others apply
	h.OnApply("slow-then-fail", func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		return hostconfig.Step{Apply: func(context.Context) error {
			if old != nil && !failed {
				failed = true
				close(started)
				<-release
				return errors.New("boom")
			}
			return nil
		}}, nil
	})
	require.NoError(t, h.Reload(context.Background()))
	write(t, path, "aliases: {plus: add}\n")
	done := make(chan error)
	go func() { done <- h.Reload(context.Background()) }()
	<-started
	addErr := reg.Add(&registry.Tool{Name: "x", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any]("cat"), nil }})
	close(release)
	rerr := <-done
	require.ErrorIs(t, addErr, registry.ErrNameClash)
	require.Error(t, rerr)
	assert.Equal(t, map[string]string{"x": "add", "plus": "add"}, reg.Aliases())
	assert.Equal(t, h.Config().Aliases, reg.Aliases())
	write(t, path, "aliases: {x: add, plus: add}\n")
	require.NoError(t, h.Reload(context.Background()))
}
