package cataloguehost_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
)

// servedSet is what a registry holds from the catalogue: name → tool id,
// with " off" and the reason for a tool held switched off (itself or its
// bundle switched off in the catalogue).
func servedSet(t require.TestingT, reg *registry.Registry, cat *cataloguehost.Catalogue, store catalogue.Store) map[string]string {
	out := map[string]string{}
	tools, err := store.ListTools(context.Background(), catalogue.ToolQuery{IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(t, err)
	listed := 0
	for _, tl := range tools {
		if n, ok := cat.Name(tl.Key()); ok {
			on, exists := reg.IsEnabled(n)
			require.True(t, exists, "%s is named but not registered", n)
			out[n] = tl.ID.String()
			if on {
				listed++
				continue
			}
			all := reg.ListAll()
			i := slices.IndexFunc(all, func(x *registry.Tool) bool { return x.Name == n })
			require.GreaterOrEqual(t, i, 0, n)
			require.NotEmpty(t, all[i].Disabled, "%s is off only as the catalogue has it", n)
			out[n] += " off: " + all[i].Disabled
		}
	}
	require.Len(t, names(reg, "catalogue"), listed, "listed catalogue tools = the named ones switched on")
	return out
}

// Whatever the sequence of writes made through Catalogue.Store, the
// registry serves exactly what a fresh start on the same store serves:
// the per-write updates agree with a full read.
func TestCatalogue_IncrementalUpdatesEqualAFreshStart(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		f := newFixture(t, nil)
		var bundles []uuid.UUID
		var keys []catalogue.ToolKey
		slugs := []string{"web", "météo", "web2"}
		for i := 0; i < rapid.IntRange(1, 10).Draw(rt, "ops"); i++ {
			switch op := rapid.IntRange(0, 8).Draw(rt, "op"); {
			case op == 0 || len(bundles) == 0:
				id, err := catalogue.NewID()
				require.NoError(rt, err)
				_, _, err = f.w.PutBundle(ctx, id, catalogue.BundleSpec{Slug: rapid.SampledFrom(slugs).Draw(rt, "slug"), DisplayName: "B", IsEnabled: true})
				require.NoError(rt, err)
				bundles = append(bundles, id)
			case op == 1:
				b := rapid.SampledFrom(bundles).Draw(rt, "bundle")
				_, _, err := f.w.PutBundle(ctx, b, catalogue.BundleSpec{Slug: rapid.SampledFrom(slugs).Draw(rt, "slug"), DisplayName: "B",
					IsEnabled: rapid.Bool().Draw(rt, "on")})
				if err != nil {
					require.ErrorIs(rt, err, catalogue.ErrBundleDeleted)
				}
			case op == 2 || op == 3 || len(keys) == 0:
				k := catalogue.ToolKey{BundleID: rapid.SampledFrom(bundles).Draw(rt, "bundle"),
					Slug: rapid.SampledFrom([]string{"echo", "prévision"}).Draw(rt, "tool"), Version: rapid.SampledFrom([]string{"1", "1.0"}).Draw(rt, "v")}
				spec := echoSpec("http://127.0.0.1:1/")
				spec.IsEnabled = rapid.Bool().Draw(rt, "enabled")
				if _, err := f.w.PutTool(ctx, k, spec); err == nil {
					keys = append(keys, k)
				}
			case op == 4:
				_, _ = f.w.SetToolEnabled(ctx, rapid.SampledFrom(keys).Draw(rt, "key"), rapid.Bool().Draw(rt, "on"))
			case op == 5:
				_ = f.w.DeleteTool(ctx, rapid.SampledFrom(keys).Draw(rt, "key"))
			case op == 6:
				_, _ = f.w.SetBundleEnabled(ctx, rapid.SampledFrom(bundles).Draw(rt, "bundle"), rapid.Bool().Draw(rt, "on"))
			case op == 7:
				_, _ = f.w.SoftDeleteBundle(ctx, rapid.SampledFrom(bundles).Draw(rt, "bundle"))
			case op == 8:
				id, err := catalogue.NewID()
				require.NoError(rt, err)
				tid, err := catalogue.NewID()
				require.NoError(rt, err)
				now := time.Now().UTC().Truncate(time.Microsecond)
				spec := echoSpec("http://127.0.0.1:1/")
				spec.IsEnabled = rapid.Bool().Draw(rt, "enabled")
				tl := catalogue.Tool{ID: tid, BundleID: id, Slug: "echo", Version: "1", ToolSpec: spec, CreatedAt: now, ModifiedAt: now}
				b := catalogue.Bundle{ID: id, CreatedAt: now, ModifiedAt: now, BundleSpec: catalogue.BundleSpec{
					Slug: rapid.SampledFrom(slugs).Draw(rt, "slug"), DisplayName: "I", IsEnabled: rapid.Bool().Draw(rt, "on")}}
				require.NoError(rt, f.w.ImportBundle(ctx, b, []catalogue.Tool{tl}))
				bundles = append(bundles, id)
				keys = append(keys, tl.Key())
			}
		}
		got := servedSet(rt, f.reg, f.cat, f.store)

		fresh := registry.New(registry.Options{})
		c2, err := cataloguehost.New(ctx, cataloguehost.Options{Store: f.store, Registry: fresh, Invoker: &cataloguehost.Dispatcher{}, Logger: discard})
		require.NoError(rt, err)
		defer c2.Close()
		want := servedSet(rt, fresh, c2, f.store)
		require.Equal(rt, want, got, fmt.Sprintf("served after writes vs a fresh start (%d bundles)", len(bundles)))
		require.True(rt, slices.Equal(names(fresh, "catalogue"), names(f.reg, "catalogue")))
	})
}

// Writes made behind the catalogue's back (another process, straight into
// the store), then SyncBundles of the bundles they touched: the registry
// serves what a fresh start serves.
func TestCatalogue_SyncBundlesEqualsAFreshStart(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		f := newFixture(t, nil)
		slugs := []string{"web", "météo", "web2"}
		var bundles []uuid.UUID
		for range rapid.IntRange(1, 4).Draw(rt, "bundles") {
			id, err := catalogue.NewID()
			require.NoError(rt, err)
			_, _, err = f.w.PutBundle(ctx, id, catalogue.BundleSpec{Slug: rapid.SampledFrom(slugs).Draw(rt, "slug"), DisplayName: "B", IsEnabled: true})
			require.NoError(rt, err)
			bundles = append(bundles, id)
		}
		touched := map[uuid.UUID]bool{}
		for range rapid.IntRange(1, 10).Draw(rt, "ops") {
			id := rapid.SampledFrom(bundles).Draw(rt, "bundle")
			touched[id] = true
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0:
				_, _, _ = f.file.PutBundle(ctx, id, catalogue.BundleSpec{Slug: rapid.SampledFrom(slugs).Draw(rt, "slug"), DisplayName: "B",
					IsEnabled: rapid.Bool().Draw(rt, "on")})
			case 1, 2:
				spec := echoSpec("http://127.0.0.1:1/")
				spec.IsEnabled = rapid.Bool().Draw(rt, "enabled")
				_, _ = f.file.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: rapid.SampledFrom([]string{"echo", "prévision"}).Draw(rt, "tool"),
					Version: rapid.SampledFrom([]string{"1", "1.0"}).Draw(rt, "v")}, spec)
			case 3:
				_ = f.file.DeleteTool(ctx, catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "1"})
			case 4:
				_, _ = f.file.SoftDeleteBundle(ctx, id)
			}
		}
		ids := slices.Collect(maps.Keys(touched))
		require.NoError(rt, f.cat.SyncBundles(ctx, ids))
		got := servedSet(rt, f.reg, f.cat, f.store)

		fresh := registry.New(registry.Options{})
		c2, err := cataloguehost.New(ctx, cataloguehost.Options{Store: f.store, Registry: fresh, Invoker: &cataloguehost.Dispatcher{}, Logger: discard})
		require.NoError(rt, err)
		defer c2.Close()
		require.Equal(rt, servedSet(rt, fresh, c2, f.store), got)
	})
}
