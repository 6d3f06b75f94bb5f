package bundlezip_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/bundlezip"
)

// Generators of catalogue content: every value the catalogue accepts is
// fair game, non-ASCII slugs and text included.

func genLabel(dot bool) *rapid.Generator[string] {
	extra := []rune{'-'}
	if dot {
		extra = append(extra, '.')
	}
	return rapid.StringOfN(rapid.RuneFrom(extra, unicode.L, unicode.Nd), 1, catalogue.MaxSlugRunes, -1)
}

func genText(min, max int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		s := rapid.StringOfN(rapid.RuneFrom([]rune{' ', '\n', '\t', '"', '\\', '<', '&', 'é', '日', '😀'}, unicode.L, unicode.N, unicode.P, unicode.S), min, max, -1).Draw(t, "text")
		if min > 0 && len(bytes.TrimSpace([]byte(s))) == 0 {
			s += "x"
		}
		return s
	})
}

func genSchema(t *rapid.T, label string) json.RawMessage {
	props := map[string]any{}
	for i := range rapid.IntRange(0, 4).Draw(t, label+"Props") {
		kind := rapid.SampledFrom([]string{"string", "number", "integer", "boolean"}).Draw(t, label+"Kind")
		props[fmt.Sprintf("%s%d", rapid.StringMatching(`[a-zA-Z_é]{1,8}`).Draw(t, label+"Name"), i)] = map[string]any{"type": kind, "description": genText(0, 20).Draw(t, label+"Desc")}
	}
	data, err := json.Marshal(map[string]any{"type": "object", "properties": props})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func genSpec(t *rapid.T) catalogue.ToolSpec {
	spec := catalogue.ToolSpec{
		DisplayName: genText(1, 40).Draw(t, "displayName"),
		Description: genText(0, 200).Draw(t, "description"),
		IsEnabled:   rapid.Bool().Draw(t, "toolEnabled"),
		ArgSchema:   genSchema(t, "arg"),
	}
	seen := map[string]bool{}
	for range rapid.IntRange(0, 4).Draw(t, "tags") {
		tag := rapid.StringMatching(`[a-z0-9é]{1,10}`).Draw(t, "tag")
		if !seen[tag] {
			seen[tag] = true
			spec.Tags = append(spec.Tags, tag)
		}
	}
	if rapid.Bool().Draw(t, "withOutput") {
		spec.OutputSchema = genSchema(t, "out")
	}
	if rapid.Bool().Draw(t, "isHTTP") {
		spec.Type = catalogue.TypeHTTP
		req := catalogue.HTTPRequest{
			Method:      rapid.SampledFrom([]string{"GET", "POST", "PUT", "DELETE"}).Draw(t, "method"),
			URLTemplate: "https://api.example.test/" + rapid.StringMatching(`[a-z]{0,8}`).Draw(t, "path"),
		}
		if rapid.Bool().Draw(t, "withQuery") {
			req.Query = map[string]string{"q": "${q}", "lang": rapid.StringMatching(`[a-z]{0,4}`).Draw(t, "lang")}
		}
		if rapid.Bool().Draw(t, "withAuth") {
			req.Auth = &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}
		}
		if req.Method == "POST" {
			req.Body = `{"q": ${q}}`
		}
		spec.HTTPImpl = &catalogue.HTTPImpl{Request: req,
			Response: catalogue.HTTPResponse{Encoding: rapid.SampledFrom([]string{"", "json", "text"}).Draw(t, "encoding")},
			Limits:   catalogue.HTTPLimits{MaxRetries: rapid.IntRange(0, 10).Draw(t, "retries")}}
	} else {
		spec.Type = catalogue.TypeGo
		spec.GoImpl = &catalogue.GoImpl{Func: rapid.StringMatching(`[a-z][a-z0-9._-]{0,20}`).Draw(t, "func")}
	}
	return spec
}

// buildRandomBundle fills store through its public API: a bundle, tool
// versions, toggles, calls, and maybe a disable or a soft-delete, with
// the clock moving between writes.
func buildRandomBundle(t *rapid.T, s catalogue.Store, advance func(time.Duration)) uuid.UUID {
	ctx := context.Background()
	id, err := catalogue.NewID()
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.PutBundle(ctx, id, catalogue.BundleSpec{Slug: genLabel(false).Draw(t, "bundleSlug"),
		DisplayName: genText(1, 40).Draw(t, "bundleName"), Description: genText(0, 100).Draw(t, "bundleDesc"), IsEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	var keys []catalogue.ToolKey
	seen := map[[2]string]bool{}
	for range rapid.IntRange(0, 8).Draw(t, "tools") {
		advance(time.Duration(rapid.Int64Range(0, 3600_000_000).Draw(t, "gapMicros")) * time.Microsecond)
		k := catalogue.ToolKey{BundleID: id, Slug: genLabel(false).Draw(t, "slug"), Version: genLabel(true).Draw(t, "version")}
		if seen[[2]string{k.Slug, k.Version}] {
			continue
		}
		seen[[2]string{k.Slug, k.Version}] = true
		if _, err := s.PutTool(ctx, k, genSpec(t)); err != nil {
			t.Fatalf("PutTool: %v", err)
		}
		keys = append(keys, k)
	}
	for _, k := range keys {
		for range rapid.IntRange(0, 3).Draw(t, "calls") {
			advance(time.Second)
			if err := s.RecordUsage(ctx, k, time.Now().Add(-time.Duration(rapid.IntRange(0, 1e9).Draw(t, "ago")))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if f, ok := s.(interface{ Flush(context.Context) error }); ok && rapid.Bool().Draw(t, "flush") {
		if err := f.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	switch rapid.IntRange(0, 3).Draw(t, "bundleState") {
	case 1:
		_, err = s.SetBundleEnabled(ctx, id, false)
	case 2:
		advance(time.Hour)
		_, err = s.SoftDeleteBundle(ctx, id)
	}
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func allTools(t testing.TB, s catalogue.Store, id uuid.UUID) []catalogue.Tool {
	list, err := s.ListTools(context.Background(), catalogue.ToolQuery{BundleIDs: []uuid.UUID{id}, IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(t, err)
	return list
}

// Round trip: export → import into an empty store → the same records,
// field for field (ids, timestamps, flags, usage), and the second store
// exports the very same bytes. Only the bundle's slugSince is the second
// store's own: when the bundle came into it.
func TestExportImportRoundTripIsExact(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		clock := newClock()
		from := openStore(t, clock.Now)
		id := buildRandomBundle(rt, from, clock.Advance)
		archive := export(t, from, id)

		to := openStore(t, newClock().Now) // another clock: nothing may come from it
		got, err := importBytes(to, archive, bundlezip.Options{})
		require.NoError(rt, err)
		want, err := from.GetBundle(context.Background(), id)
		require.NoError(rt, err)
		want.SlugSince = got.SlugSince
		assert.Equal(rt, want, got, "the bundle as exported")
		assert.Equal(rt, allTools(t, from, id), allTools(t, to, id), "every tool as exported")
		assert.Equal(rt, archive, export(t, to, id), "the imported bundle exports the same archive")
	})
}

// Export is deterministic: the same records give the same bytes.
func TestExportIsDeterministic(t *testing.T) {
	clock := newClock()
	s := openStore(t, clock.Now)
	id := sampleBundle(t, s, clock)
	a := export(t, s, id)
	clock.Advance(time.Hour)
	assert.Equal(t, a, export(t, s, id))
}

// The archive has the documented layout: the manifest and one entry per
// tool version, named tools/<slug>@<version>.json.
func TestExportLayout(t *testing.T) {
	clock := newClock()
	s := openStore(t, clock.Now)
	id := sampleBundle(t, s, clock)
	entries := entriesOf(t, export(t, s, id))
	var names []string
	for _, e := range entries {
		names = append(names, e.name)
	}
	assert.ElementsMatch(t, []string{"bundle.json", "tools/echo@1.0.json", "tools/add@v1.json"}, names)
	for _, e := range entries {
		if e.name != "bundle.json" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(e.data, &m))
		assert.Equal(t, "toolpack.catalogue.bundle", m["format"])
		assert.EqualValues(t, 1, m["formatVersion"])
		assert.ElementsMatch(t, []any{"tools/echo@1.0.json", "tools/add@v1.json"}, m["tools"])
		assert.Equal(t, id.String(), m["bundle"].(map[string]any)["id"])
	}
}

// Export refuses what it cannot carry: a missing bundle.
func TestExportMissingBundle(t *testing.T) {
	s := openStore(t, nil)
	err := bundlezip.Export(context.Background(), s, newID(t), &bytes.Buffer{})
	assert.ErrorIs(t, err, catalogue.ErrNotFound)
}

// Exports of bundles with more tools than one store page are whole.
func TestExportPagesThroughManyTools(t *testing.T) {
	s := openStore(t, nil)
	b, tools := manyTools(t, 600)
	require.NoError(t, s.ImportBundle(context.Background(), b, tools))
	to := openStore(t, nil)
	_, err := importBytes(to, export(t, s, b.ID), bundlezip.Options{})
	require.NoError(t, err)
	assert.Equal(t, allTools(t, s, b.ID), allTools(t, to, b.ID))
}

// Importing the same archive twice: the second import conflicts and the
// stored bundle is left as it was.
func TestImportOfExistingBundleConflicts(t *testing.T) {
	clock := newClock()
	from := openStore(t, clock.Now)
	id := sampleBundle(t, from, clock)
	archive := export(t, from, id)
	_, err := importBytes(from, archive, bundlezip.Options{})
	require.ErrorIs(t, err, catalogue.ErrConflict)
	assert.Len(t, allTools(t, from, id), 2)
}
