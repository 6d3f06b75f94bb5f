package cataloguehost_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
)

// copyOf imports a copy of bundle id under a new bundle id: its tools
// keep their ids, as a copy made by export, a new id and import does.
func copyOf(t *testing.T, s catalogue.Store, id uuid.UUID) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	b, err := s.GetBundle(ctx, id)
	require.NoError(t, err)
	tools, err := s.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{id}, IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(t, err)
	b.ID = uuid.Must(catalogue.NewID())
	for i := range tools {
		tools[i].BundleID = b.ID
	}
	require.NoError(t, s.ImportBundle(ctx, b, tools))
	return b.ID
}

// A name that passes from a bundle's tool to its copy's (the copy holds
// the same tool ids) serves the copy's tool: what the registry serves is
// told apart by tool id and key, not by id alone.
func TestCatalogue_NamePassingToACopyServesTheCopy(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	orig := f.bundle(t, "x")
	spec, err := f.funcs.Spec("add", "Add", "")
	require.NoError(t, err)
	_, err = f.w.PutTool(ctx, catalogue.ToolKey{BundleID: orig, Slug: "add", Version: "1"}, spec)
	require.NoError(t, err)
	cp := copyOf(t, f.w, orig)
	origKey, cpKey := catalogue.ToolKey{BundleID: orig, Slug: "add", Version: "1"}, catalogue.ToolKey{BundleID: cp, Slug: "add", Version: "1"}
	name, ok := f.cat.Name(origKey)
	require.True(t, ok)
	assert.Equal(t, "x.add.1", name)

	// The original takes another slug: its copy now holds "x" alone.
	_, _, err = f.w.PutBundle(ctx, orig, catalogue.BundleSpec{Slug: "z", DisplayName: "Z", IsEnabled: true})
	require.NoError(t, err)
	name, ok = f.cat.Name(cpKey)
	require.True(t, ok, "the copy's tool is served")
	assert.Equal(t, "x.add.1", name)
	name, ok = f.cat.Name(origKey)
	require.True(t, ok)
	assert.Equal(t, "z.add.1", name)
	require.NoError(t, f.w.DeleteTool(ctx, origKey))
	res, err := f.reg.Invoke(ctx, "x.add.1", json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	assert.True(t, res.Success, "x.add.1 runs the copy's tool, not the deleted original: %+v", res)
}

// Two go tools with one id (a bundle and its copy) are each checked
// against their own outputSchema: compiled schemas are not shared by id.
func TestDispatcher_EachToolsOwnOutputSchemaWhenToolIDsRepeat(t *testing.T) {
	ctx := context.Background()
	funcs := cataloguehost.NewFuncs()
	require.NoError(t, registry.AddFunc(funcs, "add", add, registry.ToolOptions{Description: "Adds"}))
	d := &cataloguehost.Dispatcher{Funcs: funcs}
	spec, err := funcs.Spec("add", "Add", "")
	require.NoError(t, err)
	id := uuid.Must(catalogue.NewID())
	at := time.Now()
	loose := catalogue.Tool{ID: id, BundleID: uuid.Must(catalogue.NewID()), Slug: "add", Version: "1", ToolSpec: spec, CreatedAt: at}
	loose.OutputSchema = json.RawMessage(`{"type":"number"}`)
	strict := loose
	strict.BundleID = uuid.Must(catalogue.NewID())
	strict.OutputSchema = json.RawMessage(`{"type":"string"}`)
	res, err := d.Invoke(ctx, loose, json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	require.True(t, res.Success, "%+v", res)
	res, err = d.Invoke(ctx, strict, json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	require.False(t, res.Success, "the second tool's schema wants a string")
	assert.Equal(t, cataloguehost.ErrTypeOutputMismatch, res.ErrorType)
}
