package cataloguehost_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
	"github.com/toolpack-go/toolpack/registry/catalogue/steptool"
	"github.com/toolpack-go/toolpack/result"
)

// A steps tool's failure names the tool as it was called — its registry
// name, the bundle's current slug included — not its slug@version; a
// steps tool failing inside another names both. A bundle renamed after
// the first call (the compiled body is kept) is named anew.
func TestCatalogue_StepsFailuresNameTheToolAsCalled(t *testing.T) {
	ctx := context.Background()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discard})
	funcs := cataloguehost.NewFuncs()
	require.NoError(t, registry.AddFunc(funcs, "add", add, registry.ToolOptions{Description: "Adds a and b"}))
	dir := t.TempDir()
	file, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = file.Close() })
	steps, err := steptool.New(steptool.Options{Tools: reg, Logger: discard})
	require.NoError(t, err)
	cat, err := cataloguehost.New(ctx, cataloguehost.Options{Store: file, Registry: reg, Logger: discard,
		Invoker: &cataloguehost.Dispatcher{Funcs: funcs, Types: map[catalogue.ToolType]cataloguehost.Invoker{catalogue.TypeSteps: steps}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cat.Close() })
	w := cat.Store()

	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = w.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "kit", DisplayName: "Kit", IsEnabled: true})
	require.NoError(t, err)
	put := func(slug, body string) {
		t.Helper()
		_, err := w.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: slug, Version: "1"}, catalogue.ToolSpec{
			DisplayName: slug, Description: "d", IsEnabled: true, Type: catalogue.TypeSteps,
			ArgSchema: json.RawMessage(`{"type":"object","properties":{}}`), StepsImpl: &catalogue.StepsImpl{Body: body}})
		require.NoError(t, err)
	}
	put("inner", "missing.tool()\n")
	put("outer", "kit.inner.1()\n")

	call := func(name string) result.Result[any] {
		t.Helper()
		res, err := reg.Invoke(ctx, name, json.RawMessage(`{}`))
		require.NoError(t, err)
		require.False(t, res.Success)
		return res
	}
	res := call("kit.inner.1")
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `steps "kit.inner.1": line 1: missing.tool: no such tool is served now`)
	res = call("kit.outer.1")
	assert.Contains(t, res.Error, `steps "kit.outer.1": line 1: kit.inner.1 failed: steps "kit.inner.1": line 1: missing.tool: `)
	assert.NotContains(t, res.Error, "@1")

	_, _, err = w.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "box", DisplayName: "Kit", IsEnabled: true})
	require.NoError(t, err)
	res = call("box.inner.1")
	assert.Contains(t, res.Error, `steps "box.inner.1": line 1: missing.tool`)

	// Run without a registry name (the runner called directly), the tool
	// is slug@version.
	tool, err := file.GetTool(ctx, catalogue.ToolKey{BundleID: id, Slug: "inner", Version: "1"})
	require.NoError(t, err)
	res, err = steps.Invoke(ctx, tool, json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Contains(t, res.Error, `steps "inner@1": line 1: missing.tool`)
}
