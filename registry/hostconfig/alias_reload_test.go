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
