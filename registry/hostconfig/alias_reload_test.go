package hostconfig_test

import (
	"context"
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
