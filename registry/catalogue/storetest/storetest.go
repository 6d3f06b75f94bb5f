package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// Opener opens an empty store that uses the clock now for every timestamp
// and for the reaper. The suite closes the store (Close may be called
// twice).
type Opener func(t *testing.T, now func() time.Time) catalogue.Store

// Run runs the conformance suite against stores made by open, one fresh
// store per subtest. A store with a Flush(context.Context) error method
// (like the file store) has it called while usage is being recorded.
func Run(t *testing.T, open Opener) {
	ctx := context.Background()
	fresh := func(t *testing.T) (catalogue.Store, *testclock.Clock) {
		clock := newFakeClock()
		s := open(t, clock.Now)
		t.Cleanup(func() { _ = s.Close() })
		return s, clock
	}

	t.Run("BundleCreateThenReplaceKeepsIDAndCreatedAt", func(t *testing.T) {
		s, clock := fresh(t)
		id := newID(t)
		b, created, err := s.PutBundle(ctx, id, bundleSpec("web"))
		require.NoError(t, err)
		assert.True(t, created)
		assert.Equal(t, id, b.ID)
		assert.True(t, b.CreatedAt.Equal(clock.Now()))
		assert.True(t, b.ModifiedAt.Equal(clock.Now()))
		clock.Advance(time.Minute)
		spec := catalogue.BundleSpec{Slug: "web2", DisplayName: "Web", Description: "new", IsEnabled: false}
		b2, created, err := s.PutBundle(ctx, id, spec)
		require.NoError(t, err)
		assert.False(t, created)
		assert.True(t, b2.CreatedAt.Equal(b.CreatedAt), "createdAt is immutable")
		assert.True(t, b2.ModifiedAt.Equal(clock.Now()))
		got, err := s.GetBundle(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, spec, got.BundleSpec)
		assert.True(t, got.CreatedAt.Equal(b.CreatedAt))
	})

	t.Run("SlugSinceIsTheStoresAndMovesOnlyWithTheSlug", func(t *testing.T) {
		// When the bundle took its slug: what decides, among bundles
		// sharing a slug, which keeps the plain registry name. Set by
		// the store, never by the client's id or records.
		s, clock := fresh(t)
		old := uuid.MustParse("00000000-0001-7ed0-81d7-65300bd4c704") // a UUIDv7 of 1 ms after 1970
		b, _, err := s.PutBundle(ctx, old, bundleSpec("web"))
		require.NoError(t, err)
		created := clock.Now()
		assert.True(t, b.SlugSince.Equal(created), "a new bundle: now, whatever its id says")
		clock.Advance(time.Minute)
		spec := bundleSpec("web")
		spec.DisplayName, spec.Description = "Web 2", "another text"
		b, _, err = s.PutBundle(ctx, old, spec)
		require.NoError(t, err)
		assert.True(t, b.SlugSince.Equal(created), "the slug kept: kept")
		_, err = s.SetBundleEnabled(ctx, old, false)
		require.NoError(t, err)
		clock.Advance(time.Minute)
		b, _, err = s.PutBundle(ctx, old, bundleSpec("web2"))
		require.NoError(t, err)
		assert.True(t, b.SlugSince.Equal(clock.Now()), "another slug: now")
		got, err := s.GetBundle(ctx, old)
		require.NoError(t, err)
		assert.True(t, got.SlugSince.Equal(clock.Now()))
		listed, err := s.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true})
		require.NoError(t, err)
		require.Len(t, listed, 1)
		assert.True(t, listed[0].SlugSince.Equal(clock.Now()))
		_, err = s.SoftDeleteBundle(ctx, old)
		require.NoError(t, err)
		got, err = s.GetBundle(ctx, old)
		require.NoError(t, err)
		assert.True(t, got.SlugSince.Equal(clock.Now()), "a switch or a soft delete keeps it")
	})

	t.Run("BundleInvalidReportsEveryField", func(t *testing.T) {
		s, _ := fresh(t)
		_, _, err := s.PutBundle(ctx, uuid.New(), catalogue.BundleSpec{Slug: "a_b", DisplayName: ""})
		var ve *catalogue.ValidationError
		require.ErrorAs(t, err, &ve)
		require.ErrorIs(t, err, catalogue.ErrInvalid)
		assert.ElementsMatch(t, []string{"bundleID", "slug", "displayName"}, fieldNames(ve))
		_, err = s.GetBundle(ctx, uuid.New())
		assert.ErrorIs(t, err, catalogue.ErrNotFound)
	})

	t.Run("ListBundlesFiltersAndPages", func(t *testing.T) {
		s, _ := fresh(t)
		var ids []uuid.UUID
		for i := range 7 {
			ids = append(ids, mustBundle(t, s, fmt.Sprintf("b%d", i)))
		}
		_, err := s.SetBundleEnabled(ctx, ids[1], false)
		require.NoError(t, err)
		_, err = s.SoftDeleteBundle(ctx, ids[2])
		require.NoError(t, err)

		all, err := s.ListBundles(ctx, catalogue.BundleQuery{})
		require.NoError(t, err)
		assert.Equal(t, []uuid.UUID{ids[0], ids[3], ids[4], ids[5], ids[6]}, bundleIDs(all), "ordered by id; disabled and deleted left out")
		all, err = s.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
		require.NoError(t, err)
		assert.Equal(t, ids, bundleIDs(all))
		some, err := s.ListBundles(ctx, catalogue.BundleQuery{IDs: []uuid.UUID{ids[4], ids[1], ids[0]}})
		require.NoError(t, err)
		assert.Equal(t, []uuid.UUID{ids[0], ids[4]}, bundleIDs(some))

		var paged []uuid.UUID
		after := uuid.Nil
		for {
			page, err := s.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true, After: after, Limit: 3})
			require.NoError(t, err)
			require.LessOrEqual(t, len(page), 3)
			if len(page) == 0 {
				break
			}
			paged = append(paged, bundleIDs(page)...)
			after = page[len(page)-1].ID
		}
		assert.Equal(t, ids, paged)
	})

	t.Run("PatchBundleEnabledKeepsModifiedAt", func(t *testing.T) {
		s, clock := fresh(t)
		id := mustBundle(t, s, "x")
		clock.Advance(time.Hour)
		b, err := s.SetBundleEnabled(ctx, id, false)
		require.NoError(t, err)
		assert.False(t, b.IsEnabled)
		assert.True(t, b.ModifiedAt.Equal(b.CreatedAt), "toggling is not a structural change")
		got, err := s.GetBundle(ctx, id)
		require.NoError(t, err)
		assert.False(t, got.IsEnabled)
		_, err = s.SetBundleEnabled(ctx, newID(t), true)
		assert.ErrorIs(t, err, catalogue.ErrNotFound)
	})

	t.Run("ToolPutGetRoundTrip", func(t *testing.T) {
		s, clock := fresh(t)
		bid := mustBundle(t, s, "web")
		key := catalogue.ToolKey{BundleID: bid, Slug: "echo", Version: "1.0"}
		spec := httpSpec("Echo", "demo")
		tool, err := s.PutTool(ctx, key, spec)
		require.NoError(t, err)
		require.NoError(t, catalogue.ValidateID(tool.ID), "tool ids are UUIDv7")
		assert.Equal(t, key, tool.Key())
		assert.True(t, tool.CreatedAt.Equal(clock.Now()))
		got, err := s.GetTool(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, tool.ID, got.ID)
		assert.JSONEq(t, string(spec.ArgSchema), string(got.ArgSchema))
		assert.JSONEq(t, string(spec.OutputSchema), string(got.OutputSchema))
		got.ArgSchema, got.OutputSchema, spec.ArgSchema, spec.OutputSchema = nil, nil, nil, nil
		assert.Equal(t, spec, got.ToolSpec)
		assert.Zero(t, got.CallCount)
		assert.Nil(t, got.LastCalledAt)

		g, err := s.PutTool(ctx, catalogue.ToolKey{BundleID: bid, Slug: "add", Version: "v1"}, goSpec("Add"))
		require.NoError(t, err)
		assert.Equal(t, "add", g.GoImpl.Func)
	})

	t.Run("ToolPutExistingSlugVersionConflictsAndLeavesToolUntouched", func(t *testing.T) {
		s, clock := fresh(t)
		bid := mustBundle(t, s, "web")
		key := catalogue.ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
		first, err := s.PutTool(ctx, key, httpSpec("First"))
		require.NoError(t, err)
		clock.Advance(time.Minute)
		_, err = s.PutTool(ctx, key, httpSpec("Second"))
		require.ErrorIs(t, err, catalogue.ErrConflict)
		got, err := s.GetTool(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, first.ID, got.ID)
		assert.Equal(t, "First", got.DisplayName)
		assert.True(t, got.ModifiedAt.Equal(first.ModifiedAt))
		// Another version of the same slug is a different tool.
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: bid, Slug: "echo", Version: "2"}, httpSpec("Second"))
		require.NoError(t, err)
	})

	t.Run("SameSlugVersionInAnotherBundle", func(t *testing.T) {
		s, _ := fresh(t)
		a, b := mustBundle(t, s, "a"), mustBundle(t, s, "b")
		_, err := s.PutTool(ctx, catalogue.ToolKey{BundleID: a, Slug: "echo", Version: "1"}, httpSpec("A"))
		require.NoError(t, err)
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: "echo", Version: "1"}, httpSpec("B"))
		require.NoError(t, err)
	})

	t.Run("SlugsAreCaseSensitiveAndUnicode", func(t *testing.T) {
		s, _ := fresh(t)
		bid := mustBundle(t, s, "outils-日本")
		keys := []catalogue.ToolKey{
			{BundleID: bid, Slug: "Echo", Version: "1"},
			{BundleID: bid, Slug: "echo", Version: "1"},
			{BundleID: bid, Slug: "résumé", Version: "1.0.0-β"},
			{BundleID: bid, Slug: "工具", Version: "V2"},
			{BundleID: bid, Slug: "工具", Version: "v2"},
		}
		for _, k := range keys {
			_, err := s.PutTool(ctx, k, httpSpec(k.Slug))
			require.NoError(t, err, "%s@%s", k.Slug, k.Version)
		}
		for _, k := range keys {
			got, err := s.GetTool(ctx, k)
			require.NoError(t, err)
			assert.Equal(t, k, got.Key())
		}
		list, err := s.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{bid}})
		require.NoError(t, err)
		assert.Len(t, list, len(keys))
	})

	t.Run("ToolKeyInvalidReportsEveryField", func(t *testing.T) {
		s, _ := fresh(t)
		_, err := s.PutTool(ctx, catalogue.ToolKey{BundleID: uuid.Nil, Slug: "a b", Version: "1/2"}, catalogue.ToolSpec{})
		var ve *catalogue.ValidationError
		require.ErrorAs(t, err, &ve)
		names := fieldNames(ve)
		for _, f := range []string{"bundleID", "slug", "version", "displayName", "type", "argSchema"} {
			assert.Contains(t, names, f)
		}
	})

	t.Run("LiteralCredentialHeaderRefusedOnPutAndImport", func(t *testing.T) {
		// A header or query parameter carrying a credential must hold a
		// ${NAME} placeholder when written; the value is never echoed and
		// nothing is stored.
		const literal = "S3CR3T-literal-HDR"
		s, _ := fresh(t)
		bid := mustBundle(t, s, "lit")
		spec := httpSpec("Lit")
		impl := *spec.HTTPImpl
		impl.Request.Headers = map[string]string{"Authorization": "Bearer " + literal, "X-Api-Key": "${API_KEY}"}
		spec.HTTPImpl = &impl
		key := catalogue.ToolKey{BundleID: bid, Slug: "lit", Version: "1.1"}
		_, err := s.PutTool(ctx, key, spec)
		var ve *catalogue.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, []string{`httpImpl.request.headers["Authorization"]`}, fieldNames(ve))
		assert.NotContains(t, err.Error(), literal)
		_, err = s.GetTool(ctx, key)
		assert.ErrorIs(t, err, catalogue.ErrNotFound)

		b, tools := importFixture(t)
		tools[0].ToolSpec = spec
		err = s.ImportBundle(ctx, b, tools)
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, []string{`tools[0].httpImpl.request.headers["Authorization"]`}, fieldNames(ve))
		assert.NotContains(t, err.Error(), literal)
		_, err = s.GetBundle(ctx, b.ID)
		assert.ErrorIs(t, err, catalogue.ErrNotFound)
	})

	t.Run("NoPutOrPatchInsideDisabledBundle", func(t *testing.T) {
		s, _ := fresh(t)
		bid := mustBundle(t, s, "web")
		key := catalogue.ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
		_, err := s.PutTool(ctx, key, httpSpec("Echo"))
		require.NoError(t, err)
		_, err = s.SetBundleEnabled(ctx, bid, false)
		require.NoError(t, err)
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: bid, Slug: "other", Version: "1"}, httpSpec("Other"))
		assert.ErrorIs(t, err, catalogue.ErrBundleDisabled)
		_, err = s.SetToolEnabled(ctx, key, false)
		assert.ErrorIs(t, err, catalogue.ErrBundleDisabled)
		got, err := s.GetTool(ctx, key)
		require.NoError(t, err)
		assert.True(t, got.IsEnabled, "refused patch changed nothing")
		// Re-enabling the bundle allows changes again.
		_, err = s.SetBundleEnabled(ctx, bid, true)
		require.NoError(t, err)
		_, err = s.SetToolEnabled(ctx, key, false)
		require.NoError(t, err)
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: newID(t), Slug: "x", Version: "1"}, httpSpec("X"))
		assert.ErrorIs(t, err, catalogue.ErrNotFound, "no such bundle")
	})

	t.Run("SoftDeleteMarksAndRefusesChanges", func(t *testing.T) {
		s, clock := fresh(t)
		bid := mustBundle(t, s, "web")
		key := catalogue.ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
		_, err := s.PutTool(ctx, key, httpSpec("Echo"))
		require.NoError(t, err)
		b, err := s.SoftDeleteBundle(ctx, bid)
		require.NoError(t, err)
		require.NotNil(t, b.SoftDeletedAt)
		assert.True(t, b.SoftDeletedAt.Equal(clock.Now()))
		clock.Advance(time.Hour)
		again, err := s.SoftDeleteBundle(ctx, bid)
		require.NoError(t, err)
		assert.True(t, again.SoftDeletedAt.Equal(*b.SoftDeletedAt), "a second delete keeps the first mark")

		_, _, err = s.PutBundle(ctx, bid, bundleSpec("web"))
		assert.ErrorIs(t, err, catalogue.ErrBundleDeleted)
		_, err = s.SetBundleEnabled(ctx, bid, false)
		assert.ErrorIs(t, err, catalogue.ErrBundleDeleted)
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: bid, Slug: "new", Version: "1"}, httpSpec("New"))
		assert.ErrorIs(t, err, catalogue.ErrBundleDeleted)
		_, err = s.SetToolEnabled(ctx, key, false)
		assert.ErrorIs(t, err, catalogue.ErrBundleDeleted)

		got, err := s.GetBundle(ctx, bid)
		require.NoError(t, err, "a soft-deleted bundle can still be read")
		assert.NotNil(t, got.SoftDeletedAt)
		list, err := s.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true})
		require.NoError(t, err)
		assert.Empty(t, list)
		tools, err := s.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true})
		require.NoError(t, err)
		assert.Empty(t, tools, "tools of a deleted bundle are not listed")
		tools, err = s.ListTools(ctx, catalogue.ToolQuery{IncludeDeleted: true})
		require.NoError(t, err)
		assert.Len(t, tools, 1)
		require.NoError(t, s.DeleteTool(ctx, key), "a deleted bundle can be emptied")
	})

	t.Run("ReaperRemovesEmptyBundlesTwoDaysAfterSoftDelete", func(t *testing.T) {
		s, clock := fresh(t)
		empty := mustBundle(t, s, "empty")
		full := mustBundle(t, s, "full")
		alive := mustBundle(t, s, "alive")
		key := catalogue.ToolKey{BundleID: full, Slug: "echo", Version: "1"}
		_, err := s.PutTool(ctx, key, httpSpec("Echo"))
		require.NoError(t, err)
		_, err = s.SoftDeleteBundle(ctx, empty)
		require.NoError(t, err)
		_, err = s.SoftDeleteBundle(ctx, full)
		require.NoError(t, err)

		clock.Advance(catalogue.SoftDeleteRetention - time.Second)
		reaped, err := s.ReapDeleted(ctx)
		require.NoError(t, err)
		assert.Empty(t, reaped, "not before two days")

		clock.Advance(time.Second)
		reaped, err = s.ReapDeleted(ctx)
		require.NoError(t, err)
		assert.Equal(t, []uuid.UUID{empty}, reaped, "only the empty one")
		_, err = s.GetBundle(ctx, empty)
		assert.ErrorIs(t, err, catalogue.ErrNotFound)
		_, err = s.GetBundle(ctx, full)
		require.NoError(t, err, "a bundle still holding tools is kept")
		_, err = s.GetBundle(ctx, alive)
		require.NoError(t, err)

		require.NoError(t, s.DeleteTool(ctx, key))
		reaped, err = s.ReapDeleted(ctx)
		require.NoError(t, err)
		assert.Equal(t, []uuid.UUID{full}, reaped)
		_, err = s.GetBundle(ctx, full)
		assert.ErrorIs(t, err, catalogue.ErrNotFound)
	})

	t.Run("SetToolEnabledAndDelete", func(t *testing.T) {
		s, clock := fresh(t)
		bid := mustBundle(t, s, "web")
		key := catalogue.ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
		first, err := s.PutTool(ctx, key, httpSpec("Echo"))
		require.NoError(t, err)
		clock.Advance(time.Minute)
		off, err := s.SetToolEnabled(ctx, key, false)
		require.NoError(t, err)
		assert.False(t, off.IsEnabled)
		assert.True(t, off.ModifiedAt.Equal(first.ModifiedAt))
		listed, err := s.ListTools(ctx, catalogue.ToolQuery{})
		require.NoError(t, err)
		assert.Empty(t, listed, "disabled tools are left out")
		listed, err = s.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true})
		require.NoError(t, err)
		assert.Len(t, listed, 1)

		require.NoError(t, s.DeleteTool(ctx, key))
		_, err = s.GetTool(ctx, key)
		assert.ErrorIs(t, err, catalogue.ErrNotFound)
		assert.ErrorIs(t, s.DeleteTool(ctx, key), catalogue.ErrNotFound)
		_, err = s.SetToolEnabled(ctx, key, true)
		assert.ErrorIs(t, err, catalogue.ErrNotFound)
		again, err := s.PutTool(ctx, key, httpSpec("Echo again"))
		require.NoError(t, err, "a deleted <slug, version> can be put again")
		assert.NotEqual(t, first.ID, again.ID)
	})

	t.Run("ListToolsFilters", func(t *testing.T) {
		s, _ := fresh(t)
		a, b := mustBundle(t, s, "a"), mustBundle(t, s, "b")
		put := func(bid uuid.UUID, slug string, tags ...string) {
			_, err := s.PutTool(ctx, catalogue.ToolKey{BundleID: bid, Slug: slug, Version: "1"}, httpSpec(slug, tags...))
			require.NoError(t, err)
		}
		put(a, "one", "web", "demo")
		put(a, "two", "files")
		put(b, "three", "web")
		put(b, "four")
		_, err := s.SetBundleEnabled(ctx, b, false)
		require.NoError(t, err)

		slugs := func(q catalogue.ToolQuery) []string {
			list, err := s.ListTools(ctx, q)
			require.NoError(t, err)
			var out []string
			for _, t := range list {
				out = append(out, t.Slug)
			}
			return out
		}
		assert.ElementsMatch(t, []string{"one", "two"}, slugs(catalogue.ToolQuery{}), "tools of a disabled bundle are left out")
		assert.ElementsMatch(t, []string{"one", "two", "three", "four"}, slugs(catalogue.ToolQuery{IncludeDisabled: true}))
		assert.ElementsMatch(t, []string{"one", "three"}, slugs(catalogue.ToolQuery{IncludeDisabled: true, Tags: []string{"web"}}))
		assert.ElementsMatch(t, []string{"one", "two"}, slugs(catalogue.ToolQuery{IncludeDisabled: true, Tags: []string{"demo", "files"}}), "any of the tags")
		assert.ElementsMatch(t, []string{"three", "four"}, slugs(catalogue.ToolQuery{IncludeDisabled: true, BundleIDs: []uuid.UUID{b}}))
	})

	t.Run("ListToolsPagingNeverSkipsOrRepeatsWhileDataChanges", func(t *testing.T) {
		s, _ := fresh(t)
		bundles := []uuid.UUID{mustBundle(t, s, "a"), mustBundle(t, s, "b"), mustBundle(t, s, "c")}
		stable := map[catalogue.ToolKey]bool{}
		for i := range 30 {
			k := catalogue.ToolKey{BundleID: bundles[i%3], Slug: fmt.Sprintf("t%02d", i), Version: "1"}
			_, err := s.PutTool(ctx, k, httpSpec(k.Slug))
			require.NoError(t, err)
			stable[k] = true
		}
		seen := map[catalogue.ToolKey]int{}
		var after catalogue.ToolKey
		for page := 0; ; page++ {
			list, err := s.ListTools(ctx, catalogue.ToolQuery{After: after, Limit: 4})
			require.NoError(t, err)
			if len(list) == 0 {
				break
			}
			for _, tl := range list {
				seen[tl.Key()]++
			}
			after = list[len(list)-1].Key()
			// Churn between pages: new tools everywhere, one deleted
			// (the page cursor itself), none of the stable ones touched.
			for j := range 3 {
				k := catalogue.ToolKey{BundleID: bundles[j], Slug: fmt.Sprintf("new%d-%d", page, j), Version: "1"}
				_, err := s.PutTool(ctx, k, httpSpec(k.Slug))
				require.NoError(t, err)
			}
			if !stable[after] {
				require.NoError(t, s.DeleteTool(ctx, after))
			}
		}
		for k, n := range seen {
			assert.Equal(t, 1, n, "%v seen once", k)
		}
		for k := range stable {
			assert.Equal(t, 1, seen[k], "stable tool %s listed", k.Slug)
		}
	})

	t.Run("ListToolsInOneOrderBySlugThenVersionByteByByte", func(t *testing.T) {
		s, _ := fresh(t)
		a, b := mustBundle(t, s, "a"), mustBundle(t, s, "b")
		// Slugs and versions whose file names (slug@version~hash) sort
		// otherwise: "-" and "." before "@", "~" after every digit, and
		// two 205-byte names cut to the same first 200 bytes.
		long := strings.Repeat("語", 64)
		var keys []catalogue.ToolKey
		for _, bid := range []uuid.UUID{b, a} {
			for _, sv := range [][2]string{{"alpha", "1"}, {"alpha", "10"}, {"alpha", "2"}, {"a-b", "1"}, {"a", "1"},
				{"alpha", "1.0"}, {"alpha", "1-rc"}, {"A", "1"}, {"é", "1"}, {"z", "1"},
				{long, "v-" + strings.Repeat("é", 5) + "b"}, {long, "v-" + strings.Repeat("é", 5) + "a"}} {
				k := catalogue.ToolKey{BundleID: bid, Slug: sv[0], Version: sv[1]}
				_, err := s.PutTool(ctx, k, httpSpec(k.Slug))
				require.NoError(t, err, "%s@%s", k.Slug, k.Version)
				keys = append(keys, k)
			}
		}
		want := slices.SortedFunc(slices.Values(keys), catalogue.ToolKey.Compare)
		first := want[0].BundleID
		assert.Equal(t, []string{"A@1", "a@1", "a-b@1", "alpha@1", "alpha@1-rc", "alpha@1.0", "alpha@10", "alpha@2", "z@1"},
			slugVersions(want[:9]), "bundle id, then slug, then version, byte by byte")
		list, err := s.ListTools(ctx, catalogue.ToolQuery{})
		require.NoError(t, err)
		assert.Equal(t, keysOf(want), keysOf(list))
		one, err := s.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{first}})
		require.NoError(t, err)
		assert.Equal(t, keysOf(want[:len(want)/2]), keysOf(one))
		for _, limit := range []int{1, 2, 5} {
			var paged []catalogue.Tool
			var after catalogue.ToolKey
			for {
				page, err := s.ListTools(ctx, catalogue.ToolQuery{After: after, Limit: limit})
				require.NoError(t, err)
				if len(page) == 0 {
					break
				}
				paged = append(paged, page...)
				after = page[len(page)-1].Key()
			}
			assert.Equal(t, keysOf(want), keysOf(paged), "pages of %d", limit)
		}
		// A cursor need not exist: the list goes on after where it would be.
		page, err := s.ListTools(ctx, catalogue.ToolQuery{After: catalogue.ToolKey{BundleID: first, Slug: "alpha", Version: "11"}, Limit: 2})
		require.NoError(t, err)
		assert.Equal(t, []string{"alpha@2", "z@1"}, slugVersions(keysOfTools(page)))
	})

	t.Run("ErrorsNameTheMissingBundleOrToolAlike", func(t *testing.T) {
		s, _ := fresh(t)
		bid := mustBundle(t, s, "web")
		missing := newID(t)
		onMissing := catalogue.ToolKey{BundleID: missing, Slug: "a", Version: "1"}
		noBundle := fmt.Sprintf("bundle %s: %v", missing, catalogue.ErrNotFound)
		_, err := s.PutTool(ctx, onMissing, httpSpec("A"))
		assert.EqualError(t, err, noBundle, "PutTool")
		_, err = s.SetToolEnabled(ctx, onMissing, false)
		assert.EqualError(t, err, noBundle, "SetToolEnabled")
		assert.EqualError(t, s.DeleteTool(ctx, onMissing), noBundle, "DeleteTool")
		_, err = s.GetBundle(ctx, missing)
		assert.EqualError(t, err, noBundle, "GetBundle")
		_, err = s.SetBundleEnabled(ctx, missing, false)
		assert.EqualError(t, err, noBundle, "SetBundleEnabled")
		_, err = s.SoftDeleteBundle(ctx, missing)
		assert.EqualError(t, err, noBundle, "SoftDeleteBundle")

		nope := catalogue.ToolKey{BundleID: bid, Slug: "nope", Version: "1"}
		noTool := fmt.Sprintf("tool nope@1 in bundle %s: %v", bid, catalogue.ErrNotFound)
		_, err = s.GetTool(ctx, nope)
		assert.EqualError(t, err, noTool, "GetTool")
		_, err = s.SetToolEnabled(ctx, nope, false)
		assert.EqualError(t, err, noTool, "SetToolEnabled")
		assert.EqualError(t, s.DeleteTool(ctx, nope), noTool, "DeleteTool")
		_, err = s.GetTool(ctx, onMissing)
		assert.EqualError(t, err, fmt.Sprintf("tool a@1 in bundle %s: %v", missing, catalogue.ErrNotFound), "GetTool of a missing bundle")

		echo := catalogue.ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
		_, err = s.PutTool(ctx, echo, httpSpec("Echo"))
		require.NoError(t, err)
		_, err = s.PutTool(ctx, echo, httpSpec("Echo"))
		assert.EqualError(t, err, fmt.Sprintf("tool echo@1 in bundle %s: %v", bid, catalogue.ErrConflict), "PutTool of a taken key")
	})

	t.Run("ReservedBuiltInIDCannotBeTaken", func(t *testing.T) {
		// A host with built-ins reserves their ids in the store it
		// shares, so that a host without them (or on another build) can
		// never create, import or fill a bundle under such an id.
		s, clock := fresh(t)
		r, ok := s.(catalogue.BuiltInReserver)
		if !ok {
			t.Skip("the store does not reserve built-in ids (catalogue.BuiltInReserver)")
		}
		first := clock.Now().Add(-time.Hour)
		decl := catalogue.Bundle{ID: newID(t), BundleSpec: bundleSpec("examples"), CreatedAt: first}
		require.NoError(t, r.ReserveBuiltIn(ctx, decl))
		got, err := s.GetBundle(ctx, decl.ID)
		require.NoError(t, err)
		assert.Equal(t, catalogue.Bundle{ID: decl.ID, BundleSpec: decl.BundleSpec, BuiltIn: true, CreatedAt: first, ModifiedAt: first, SlugSince: first}, got,
			"a built-in record without tools, its times as given")
		listed, err := s.ListBundles(ctx, catalogue.BundleQuery{})
		require.NoError(t, err)
		assert.Equal(t, []uuid.UUID{decl.ID}, bundleIDs(listed))

		_, _, err = s.PutBundle(ctx, decl.ID, bundleSpec("hijack"))
		assert.ErrorIs(t, err, catalogue.ErrBuiltIn, "PutBundle")
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: decl.ID, Slug: "add", Version: "1"}, httpSpec("Add"))
		assert.ErrorIs(t, err, catalogue.ErrBuiltIn, "PutTool")
		_, err = s.SoftDeleteBundle(ctx, decl.ID)
		assert.ErrorIs(t, err, catalogue.ErrBuiltIn, "SoftDeleteBundle")
		b, tools := importFixture(t)
		b.ID = decl.ID
		for i := range tools {
			tools[i].BundleID = decl.ID
		}
		assert.ErrorIs(t, s.ImportBundle(ctx, b, tools), catalogue.ErrBundleExists, "ImportBundle")
		after, err := s.GetBundle(ctx, decl.ID)
		require.NoError(t, err)
		assert.Equal(t, got, after, "nothing changed")
		assert.Empty(t, allTools(t, s, decl.ID))

		// Reserving again is a no-op; a new declaration's texts are taken.
		require.NoError(t, r.ReserveBuiltIn(ctx, decl))
		decl.DisplayName, decl.Description = "Examples 2", "new text"
		require.NoError(t, r.ReserveBuiltIn(ctx, decl))
		after, err = s.GetBundle(ctx, decl.ID)
		require.NoError(t, err)
		assert.Equal(t, "Examples 2", after.DisplayName)
		assert.True(t, after.CreatedAt.Equal(first))

		// A stored bundle already holding the id is named and left alone.
		stored := mustBundle(t, s, "hijack")
		err = r.ReserveBuiltIn(ctx, catalogue.Bundle{ID: stored, BundleSpec: bundleSpec("examples"), CreatedAt: first})
		require.ErrorIs(t, err, catalogue.ErrBundleExists)
		assert.EqualError(t, err, fmt.Sprintf(`bundle %s ("hijack"): %v`, stored, catalogue.ErrBundleExists))
		kept, err := s.GetBundle(ctx, stored)
		require.NoError(t, err)
		assert.False(t, kept.BuiltIn)
		assert.Equal(t, "hijack", kept.Slug)

		// A built-in switched off when it was reserved is read-only too.
		off := catalogue.Bundle{ID: newID(t), BundleSpec: bundleSpec("off"), CreatedAt: first}
		off.IsEnabled = false
		require.NoError(t, r.ReserveBuiltIn(ctx, off))
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: off.ID, Slug: "add", Version: "1"}, httpSpec("Add"))
		assert.ErrorIs(t, err, catalogue.ErrBuiltIn, "PutTool into a disabled reservation")

		var ve *catalogue.ValidationError
		require.ErrorAs(t, r.ReserveBuiltIn(ctx, catalogue.Bundle{ID: uuid.New(), BundleSpec: catalogue.BundleSpec{Slug: "a b"}}), &ve)
		assert.ElementsMatch(t, []string{"bundleID", "slug", "displayName", "createdAt"}, fieldNames(ve))
	})

	t.Run("UsageCountsUnderConcurrency", func(t *testing.T) {
		s, _ := fresh(t)
		bid := mustBundle(t, s, "web")
		keys := []catalogue.ToolKey{{BundleID: bid, Slug: "a", Version: "1"}, {BundleID: bid, Slug: "b", Version: "1"}}
		for _, k := range keys {
			_, err := s.PutTool(ctx, k, httpSpec(k.Slug))
			require.NoError(t, err)
		}
		const workers, calls = 32, 300
		base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range calls {
					assert.NoError(t, s.RecordUsage(ctx, keys[(w+i)%2], base.Add(time.Duration(w*calls+i)*time.Millisecond)))
				}
			}()
		}
		// Flushes racing with the records, where the store has them.
		if f, ok := s.(interface{ Flush(context.Context) error }); ok {
			for range 5 {
				require.NoError(t, f.Flush(ctx))
			}
		}
		wg.Wait()
		total := int64(0)
		var last time.Time
		for _, k := range keys {
			got, err := s.GetTool(ctx, k)
			require.NoError(t, err)
			total += got.CallCount
			require.NotNil(t, got.LastCalledAt)
			if got.LastCalledAt.After(last) {
				last = *got.LastCalledAt
			}
		}
		assert.Equal(t, int64(workers*calls), total, "no count lost")
		assert.True(t, last.Equal(base.Add(time.Duration(workers*calls-1)*time.Millisecond)), "lastCalledAt is the latest call")
	})

	t.Run("UsageCountsMatchModel", func(t *testing.T) {
		s, _ := fresh(t)
		bid := mustBundle(t, s, "web")
		var keys []catalogue.ToolKey
		for i := range 3 {
			k := catalogue.ToolKey{BundleID: bid, Slug: fmt.Sprintf("t%d", i), Version: "1"}
			_, err := s.PutTool(ctx, k, httpSpec(k.Slug))
			require.NoError(t, err)
			keys = append(keys, k)
		}
		model := map[catalogue.ToolKey]int64{}
		flusher, _ := s.(interface{ Flush(context.Context) error })
		rapid.Check(t, func(rt *rapid.T) {
			ops := rapid.SliceOfN(rapid.IntRange(0, len(keys)), 1, 40).Draw(rt, "ops")
			for _, op := range ops {
				if op == len(keys) {
					if flusher != nil {
						require.NoError(rt, flusher.Flush(ctx))
					}
					continue
				}
				require.NoError(rt, s.RecordUsage(ctx, keys[op], time.Now()))
				model[keys[op]]++
			}
			for _, k := range keys {
				got, err := s.GetTool(ctx, k)
				require.NoError(rt, err)
				require.Equal(rt, model[k], got.CallCount, k.Slug)
			}
		})
	})

	t.Run("UsageOfInvalidKeyRefusedOfUnknownToolDropped", func(t *testing.T) {
		s, _ := fresh(t)
		bid := mustBundle(t, s, "web")
		err := s.RecordUsage(ctx, catalogue.ToolKey{BundleID: bid, Slug: "../../x", Version: "1"}, time.Now())
		assert.ErrorIs(t, err, catalogue.ErrInvalid)
		ghost := catalogue.ToolKey{BundleID: bid, Slug: "ghost", Version: "1"}
		require.NoError(t, s.RecordUsage(ctx, ghost, time.Now()), "never blocks to look the tool up")
		require.NoError(t, s.Close(), "the count of a tool that does not exist is dropped, not an error")
	})

	t.Run("ClosedStoreRefusesCalls", func(t *testing.T) {
		s, _ := fresh(t)
		bid := mustBundle(t, s, "web")
		require.NoError(t, s.Close())
		_, err := s.GetBundle(ctx, bid)
		assert.ErrorIs(t, err, catalogue.ErrClosed)
		assert.ErrorIs(t, s.RecordUsage(ctx, catalogue.ToolKey{BundleID: bid, Slug: "a", Version: "1"}, time.Now()), catalogue.ErrClosed)
	})

	runImport(t, fresh)
}

func fieldNames(ve *catalogue.ValidationError) []string {
	var out []string
	for _, f := range ve.Fields {
		out = append(out, f.Field)
	}
	return out
}

// keysOf lists the keys of tools.
func keysOfTools(ts []catalogue.Tool) []catalogue.ToolKey {
	out := make([]catalogue.ToolKey, len(ts))
	for i := range ts {
		out[i] = ts[i].Key()
	}
	return out
}

// keysOf renders keys (or the keys of tools) as bundle/slug@version.
func keysOf[T catalogue.ToolKey | catalogue.Tool](items []T) []string {
	out := make([]string, len(items))
	for i, it := range items {
		var k catalogue.ToolKey
		switch v := any(it).(type) {
		case catalogue.ToolKey:
			k = v
		case catalogue.Tool:
			k = v.Key()
		}
		out[i] = k.BundleID.String() + "/" + k.Slug + "@" + k.Version
	}
	return out
}

// slugVersions renders keys as slug@version.
func slugVersions(keys []catalogue.ToolKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Slug + "@" + k.Version
	}
	return out
}

func bundleIDs(bs []catalogue.Bundle) []uuid.UUID {
	out := make([]uuid.UUID, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}
