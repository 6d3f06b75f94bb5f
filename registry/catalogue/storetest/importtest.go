package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// importFixture is a bundle and its tools as an export carries them: ids
// and timestamps that are not the store's, disabled and soft-deleted
// states, usage counts.
func importFixture(t testing.TB) (catalogue.Bundle, []catalogue.Tool) {
	t.Helper()
	created := time.Date(2025, 3, 4, 5, 6, 7, 123456000, time.UTC)
	deleted := created.Add(30 * time.Hour)
	b := catalogue.Bundle{ID: newID(t), BundleSpec: catalogue.BundleSpec{Slug: "imported", DisplayName: "Imported",
		Description: "from a ZIP", IsEnabled: false}, CreatedAt: created, ModifiedAt: created.Add(time.Hour), SoftDeletedAt: &deleted}
	called := created.Add(2 * time.Hour)
	h := httpSpec("Echo", "demo", "web")
	h.IsEnabled = false
	g := goSpec("Add")
	tools := []catalogue.Tool{
		{ID: newID(t), BundleID: b.ID, Slug: "echo", Version: "1.0", ToolSpec: h,
			CreatedAt: created.Add(time.Minute), ModifiedAt: created.Add(2 * time.Minute), LastCalledAt: &called, CallCount: 42},
		{ID: newID(t), BundleID: b.ID, Slug: "add", Version: "v2", ToolSpec: g,
			CreatedAt: created.Add(3 * time.Minute), ModifiedAt: created.Add(3 * time.Minute)},
	}
	return b, tools
}

// allTools lists every tool of a bundle, whatever its state.
func allTools(t testing.TB, s catalogue.Store, id uuid.UUID) []catalogue.Tool {
	t.Helper()
	list, err := s.ListTools(context.Background(), catalogue.ToolQuery{BundleIDs: []uuid.UUID{id}, IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(t, err)
	return list
}

// requireSameTool compares two tool records field by field, schemas as
// JSON values (a store may re-indent them).
func requireSameTool(t testing.TB, want, got catalogue.Tool) {
	t.Helper()
	require.JSONEq(t, string(want.ArgSchema), string(got.ArgSchema), "%s@%s argSchema", want.Slug, want.Version)
	if len(want.OutputSchema) > 0 || len(got.OutputSchema) > 0 {
		require.JSONEq(t, string(want.OutputSchema), string(got.OutputSchema), "%s@%s outputSchema", want.Slug, want.Version)
	}
	want.ArgSchema, got.ArgSchema, want.OutputSchema, got.OutputSchema = nil, nil, nil, nil
	require.Equal(t, want, got)
}

// withBundle is t moved into bundle id.
func withBundle(t catalogue.Tool, id uuid.UUID) catalogue.Tool {
	t.BundleID = id
	return t
}

func runImport(t *testing.T, fresh func(t *testing.T) (catalogue.Store, *testclock.Clock)) {
	ctx := context.Background()

	t.Run("ImportRestoresRecordsVerbatim", func(t *testing.T) {
		s, clock := fresh(t)
		b, tools := importFixture(t)
		b.SlugSince = b.CreatedAt.Add(-time.Hour) // the store's own: ignored
		require.NoError(t, s.ImportBundle(ctx, b, tools))
		got, err := s.GetBundle(ctx, b.ID)
		require.NoError(t, err)
		assert.True(t, got.SlugSince.Equal(clock.Now()), "slugSince is when the bundle came into this store, %s", got.SlugSince)
		b.SlugSince = got.SlugSince
		assert.Equal(t, b, got, "id, spec, createdAt, modifiedAt and softDeletedAt as given, not the store's clock")
		list := allTools(t, s, b.ID)
		require.Len(t, list, len(tools))
		byKey := map[catalogue.ToolKey]catalogue.Tool{}
		for _, tl := range list {
			byKey[tl.Key()] = tl
		}
		for _, want := range tools {
			requireSameTool(t, want, byKey[want.Key()])
		}
	})

	t.Run("ImportedBundleBehavesLikeAnyOther", func(t *testing.T) {
		s, clock := fresh(t)
		b, tools := importFixture(t)
		b.SoftDeletedAt, b.IsEnabled = nil, true
		require.NoError(t, s.ImportBundle(ctx, b, tools))
		_, err := s.PutTool(ctx, tools[0].Key(), httpSpec("Again"))
		assert.ErrorIs(t, err, catalogue.ErrConflict, "an imported <slug, version> is taken")
		require.NoError(t, s.RecordUsage(ctx, tools[0].Key(), clock.Now()))
		got, err := s.GetTool(ctx, tools[0].Key())
		require.NoError(t, err)
		assert.Equal(t, tools[0].CallCount+1, got.CallCount, "usage counts continue from the imported ones")
		assert.True(t, got.LastCalledAt.Equal(clock.Now()))
		_, err = s.SetToolEnabled(ctx, tools[0].Key(), true)
		require.NoError(t, err)
	})

	t.Run("ImportOfExistingBundleConflictsAndChangesNothing", func(t *testing.T) {
		s, _ := fresh(t)
		b, tools := importFixture(t)
		_, _, err := s.PutBundle(ctx, b.ID, bundleSpec("already"))
		require.NoError(t, err)
		before, err := s.GetBundle(ctx, b.ID)
		require.NoError(t, err)
		err = s.ImportBundle(ctx, b, tools)
		require.ErrorIs(t, err, catalogue.ErrConflict)
		require.ErrorIs(t, err, catalogue.ErrBundleExists, "the error says what conflicts: the bundle id")
		assert.EqualError(t, err, fmt.Sprintf("bundle %s: %v", b.ID, catalogue.ErrBundleExists))
		after, err := s.GetBundle(ctx, b.ID)
		require.NoError(t, err)
		assert.Equal(t, before, after)
		assert.Empty(t, allTools(t, s, b.ID))

		// A soft-deleted bundle still holds its id.
		_, err = s.SoftDeleteBundle(ctx, b.ID)
		require.NoError(t, err)
		assert.ErrorIs(t, s.ImportBundle(ctx, b, tools), catalogue.ErrBundleExists)
	})

	t.Run("ImportOfACopyUnderANewBundleIDKeepsItsToolIDs", func(t *testing.T) {
		// Copying a bundle by export, a new bundle id, import: a tool id
		// is unique within its bundle, not across bundles.
		s, _ := fresh(t)
		b, tools := importFixture(t)
		require.NoError(t, s.ImportBundle(ctx, b, tools))
		cp, cpTools := b, slices.Clone(tools)
		cp.ID = newID(t)
		for i := range cpTools {
			cpTools[i].BundleID = cp.ID
		}
		require.NoError(t, s.ImportBundle(ctx, cp, cpTools), "the same tool ids in another bundle")
		for _, id := range []uuid.UUID{b.ID, cp.ID} {
			list := allTools(t, s, id)
			require.Len(t, list, len(tools))
			ids := map[uuid.UUID]bool{}
			for _, tl := range list {
				ids[tl.ID] = true
			}
			assert.Equal(t, map[uuid.UUID]bool{tools[0].ID: true, tools[1].ID: true}, ids, "bundle %s keeps the exported tool ids", id)
		}
		// Within one bundle they stay distinct.
		twin := tools[0]
		twin.Slug = "twin"
		third := b
		third.ID = newID(t)
		err := s.ImportBundle(ctx, third, []catalogue.Tool{withBundle(tools[0], third.ID), withBundle(twin, third.ID)})
		var ve *catalogue.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, []string{"tools[1].id"}, fieldNames(ve))
	})

	t.Run("ImportRepeatingSlugVersionConflictsAndStoresNothing", func(t *testing.T) {
		s, _ := fresh(t)
		b, tools := importFixture(t)
		twin := tools[0]
		twin.ID = newID(t)
		err := s.ImportBundle(ctx, b, append(tools, twin))
		require.ErrorIs(t, err, catalogue.ErrConflict)
		assert.Contains(t, err.Error(), "tools[0] and tools[2]")
		_, err = s.GetBundle(ctx, b.ID)
		assert.ErrorIs(t, err, catalogue.ErrNotFound, "all or nothing")
	})

	t.Run("ImportInvalidReportsEveryFieldAndStoresNothing", func(t *testing.T) {
		s, _ := fresh(t)
		b, tools := importFixture(t)
		b.Slug = "has space"
		b.CreatedAt = time.Time{}
		tools[0].Slug = "a_b"
		tools[0].HTTPImpl.Request.URLTemplate = "ftp://example.test/"
		tools[1].ArgSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"nonsense"}}}`)
		tools[1].BundleID = newID(t)
		tools[1].CallCount = -1
		tools = append(tools, catalogue.Tool{ID: tools[0].ID, BundleID: b.ID, Slug: "third", Version: "1",
			ToolSpec: goSpec("Third"), CreatedAt: time.Now(), ModifiedAt: time.Now(), CallCount: 3})
		err := s.ImportBundle(ctx, b, tools)
		var ve *catalogue.ValidationError
		require.ErrorAs(t, err, &ve)
		require.ErrorIs(t, err, catalogue.ErrInvalid)
		assert.ElementsMatch(t, []string{"bundle.slug", "bundle.createdAt", "tools[0].slug",
			"tools[0].httpImpl.request.urlTemplate", "tools[1].argSchema", "tools[1].bundleID", "tools[1].callCount",
			"tools[2].id", "tools[2].lastCalledAt"}, fieldNames(ve))
		_, err = s.GetBundle(ctx, b.ID)
		assert.ErrorIs(t, err, catalogue.ErrNotFound, "all or nothing")

		assert.ErrorIs(t, s.ImportBundle(ctx, catalogue.Bundle{ID: uuid.New(), BundleSpec: bundleSpec("v4"),
			CreatedAt: time.Now(), ModifiedAt: time.Now()}, nil), catalogue.ErrInvalid, "bundle ids are UUIDv7")
	})

	t.Run("ImportNeverCreatesBuiltIns", func(t *testing.T) {
		s, _ := fresh(t)
		b, tools := importFixture(t)
		b.BuiltIn = true
		tools[1].BuiltIn = true
		err := s.ImportBundle(ctx, b, tools)
		var ve *catalogue.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.ElementsMatch(t, []string{"bundle.builtIn", "tools[1].builtIn"}, fieldNames(ve))
		_, err = s.GetBundle(ctx, b.ID)
		assert.ErrorIs(t, err, catalogue.ErrNotFound)
	})

	t.Run("ImportOfEmptyBundleAndManyTools", func(t *testing.T) {
		s, _ := fresh(t)
		b, _ := importFixture(t)
		require.NoError(t, s.ImportBundle(ctx, b, nil))
		assert.Empty(t, allTools(t, s, b.ID))

		b2, tools := importFixture(t)
		var many []catalogue.Tool
		for i := range 60 {
			tl := tools[i%2]
			tl.ID, tl.BundleID, tl.Version = newID(t), b2.ID, fmt.Sprintf("%d", i)
			many = append(many, tl)
		}
		require.NoError(t, s.ImportBundle(ctx, b2, many))
		assert.Len(t, allTools(t, s, b2.ID), 60)
	})

	t.Run("ImportNormalisesTimestamps", func(t *testing.T) {
		s, _ := fresh(t)
		b, tools := importFixture(t)
		b.CreatedAt = time.Date(2025, 1, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3600))
		require.NoError(t, s.ImportBundle(ctx, b, tools))
		got, err := s.GetBundle(ctx, b.ID)
		require.NoError(t, err)
		assert.Equal(t, time.Date(2025, 1, 1, 11, 0, 0, 123456000, time.UTC), got.CreatedAt, "UTC, microseconds")
	})

	t.Run("ImportIntoClosedStoreRefused", func(t *testing.T) {
		s, _ := fresh(t)
		require.NoError(t, s.Close())
		b, tools := importFixture(t)
		assert.ErrorIs(t, s.ImportBundle(ctx, b, tools), catalogue.ErrClosed)
	})
}
