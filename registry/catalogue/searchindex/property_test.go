package searchindex_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
)

// vocab is small so that random catalogues share words, prefixes and
// near-misses; it mixes cases, camelCase, digits, non-ASCII and
// punctuation.
var vocab = []string{"weather", "wether", "Weather", "forecast", "fore", "map", "maps", "mapping", "bitmap",
	"search", "webSearch", "web", "fetch", "fetcher", "report", "reports", "Résumé", "résumé", "straße", "STRASSE",
	"data", "database", "db", "a1", "x", "go", "http", "get-user", "user", "users", "scaffold", "firecrawl",
	"crawl", "ǅemal", "日本", "file.read", "readfile", "read", "echo", "ecoh"}

// typo applies one random edit to w.
func typo(t *rapid.T, w string) string {
	r := []rune(w)
	if len(r) < 2 {
		return w + "e"
	}
	i := rapid.IntRange(0, len(r)-2).Draw(t, "at")
	switch rapid.IntRange(0, 3).Draw(t, "edit") {
	case 0:
		r[i], r[i+1] = r[i+1], r[i]
	case 1:
		r = append(r[:i], r[i+1:]...)
	case 2:
		r[i] = 'q'
	default:
		r = append(r[:i], append([]rune{'z'}, r[i:]...)...)
	}
	return string(r)
}

func drawWord(t *rapid.T, label string) string {
	w := rapid.SampledFrom(vocab).Draw(t, label)
	switch rapid.IntRange(0, 5).Draw(t, label+"-form") {
	case 0:
		return typo(t, w)
	case 1:
		return strings.ToUpper(w)
	}
	return w
}

func drawText(t *rapid.T, label string, n int) string {
	k := rapid.IntRange(0, n).Draw(t, label+"-len")
	ws := make([]string, k)
	for i := range ws {
		ws[i] = drawWord(t, label)
	}
	return strings.Join(ws, rapid.SampledFrom([]string{" ", "-", " ", "_", ". "}).Draw(t, label+"-sep"))
}

func drawSlug(t *rapid.T) string {
	w := strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == ' ' {
			return '-'
		}
		return r
	}, drawWord(t, "slug"))
	if rapid.Bool().Draw(t, "slug2") {
		w += "-" + strings.ReplaceAll(drawWord(t, "slug"), ".", "")
	}
	return strings.Trim(w, "-") + "x"
}

func drawSpec(t *rapid.T) catalogue.ToolSpec {
	tags := map[string]bool{}
	for range rapid.IntRange(0, 3).Draw(t, "tags") {
		tags[drawText(t, "tag", 2)+"t"] = true
	}
	var tl []string
	for tg := range tags {
		tl = append(tl, tg)
	}
	name := drawText(t, "name", 3)
	if name == "" {
		name = "N"
	}
	return catalogue.ToolSpec{DisplayName: name, Description: drawText(t, "desc", 6), Tags: tl,
		IsEnabled: rapid.IntRange(0, 4).Draw(t, "enabled") > 0, Type: catalogue.TypeGo}
}

func drawQuery(t *rapid.T) string {
	var terms []string
	for range rapid.IntRange(1, 3).Draw(t, "terms") {
		w := drawWord(t, "q")
		switch rapid.IntRange(0, 5).Draw(t, "q-form") {
		case 2: // two words run together, as a user types a name of several words
			w += drawWord(t, "q")
		case 0: // a prefix
			r := []rune(w)
			w = string(r[:rapid.IntRange(1, len(r)).Draw(t, "q-prefix")])
		case 1: // a typo
			w = typo(t, w)
		case 3: // words joined by a separator, maybe cut short, as a slug is typed ("get-wea")
			w += rapid.SampledFrom([]string{"-", ".", "_", "/"}).Draw(t, "q-join")
			r := []rune(drawWord(t, "q"))
			w += string(r[:rapid.IntRange(0, len(r)).Draw(t, "q-cut")])
		}
		terms = append(terms, w)
	}
	return strings.Join(terms, rapid.SampledFrom([]string{" ", "  ", "\t"}).Draw(t, "q-sep"))
}

// clock is a test clock that moves when told; equal times are common so
// that ties are broken by key.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// world is a memStore, its searchindex.Store and the scan over the same
// data.
type world struct {
	clock   *clock
	mem     *memStore
	idx     *searchindex.Store
	scan    *searchindex.Scan
	bundles []uuid.UUID
	keys    []catalogue.ToolKey
	touched map[uuid.UUID]bool // bundles written to, when not nil
}

// touch records that bundle id was written to.
func (w *world) touch(id uuid.UUID) {
	if w.touched != nil {
		w.touched[id] = true
	}
}

func newWorld(t require.TestingT) *world {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	mem := newMemStore(c.now)
	idx, err := searchindex.Wrap(context.Background(), mem, searchindex.Options{})
	require.NoError(t, err)
	return &world{clock: c, mem: mem, idx: idx, scan: searchindex.NewScan(mem)}
}

// write does one random write through the index.
func (w *world) write(t *rapid.T) {
	ctx := context.Background()
	if rapid.IntRange(0, 2).Draw(t, "tick") == 0 {
		w.clock.t = w.clock.t.Add(time.Duration(rapid.IntRange(1, 3).Draw(t, "dt")) * time.Millisecond)
	}
	op := rapid.IntRange(0, 10).Draw(t, "op")
	if len(w.bundles) == 0 {
		op = 0
	}
	switch {
	case op == 0:
		id := uuid.New()
		_, _, err := w.idx.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true})
		require.NoError(t, err)
		w.bundles = append(w.bundles, id)
		w.touch(id)
	case op <= 4:
		key := catalogue.ToolKey{BundleID: rapid.SampledFrom(w.bundles).Draw(t, "bundle"), Slug: drawSlug(t),
			Version: rapid.SampledFrom([]string{"1", "2", "1.0"}).Draw(t, "version")}
		if _, err := w.idx.PutTool(ctx, key, drawSpec(t)); err == nil {
			w.keys = append(w.keys, key)
		}
		w.touch(key.BundleID)
	case op == 5 && len(w.keys) > 0:
		key := rapid.SampledFrom(w.keys).Draw(t, "key")
		_, _ = w.idx.SetToolEnabled(ctx, key, rapid.Bool().Draw(t, "on"))
		w.touch(key.BundleID)
	case op == 6 && len(w.keys) > 0:
		key := rapid.SampledFrom(w.keys).Draw(t, "key")
		_ = w.idx.DeleteTool(ctx, key)
		w.touch(key.BundleID)
	case op == 7:
		id := rapid.SampledFrom(w.bundles).Draw(t, "bundle")
		_, _ = w.idx.SetBundleEnabled(ctx, id, rapid.Bool().Draw(t, "on"))
		w.touch(id)
	case op == 8:
		id := rapid.SampledFrom(w.bundles).Draw(t, "bundle")
		_, _ = w.idx.SoftDeleteBundle(ctx, id)
		w.touch(id)
	case op == 9:
		w.clock.t = w.clock.t.Add(catalogue.SoftDeleteRetention)
		reaped, err := w.idx.ReapDeleted(ctx)
		require.NoError(t, err)
		for _, id := range reaped {
			w.touch(id)
		}
	case op == 10:
		w.importBundle(t)
	}
	if len(w.keys) > 0 && rapid.IntRange(0, 5).Draw(t, "use") == 0 {
		require.NoError(t, w.idx.RecordUsage(ctx, rapid.SampledFrom(w.keys).Draw(t, "key"), w.clock.t))
	}
}

// importBundle imports a new bundle of up to three tools, as a bundle
// archive's import does: records as given, stamps included.
func (w *world) importBundle(t *rapid.T) {
	id := uuid.Must(uuid.NewV7())
	b := catalogue.Bundle{ID: id, BundleSpec: catalogue.BundleSpec{Slug: "imp", DisplayName: "Imported",
		IsEnabled: rapid.IntRange(0, 3).Draw(t, "import-enabled") > 0}, CreatedAt: w.clock.t, ModifiedAt: w.clock.t}
	var tools []catalogue.Tool
	seen := map[string]bool{}
	for range rapid.IntRange(0, 3).Draw(t, "imported") {
		slug := drawSlug(t)
		if seen[slug] {
			continue
		}
		seen[slug] = true
		spec := drawSpec(t)
		spec.ArgSchema, spec.GoImpl = json.RawMessage(`{"type":"object"}`), &catalogue.GoImpl{Func: "noop"}
		tools = append(tools, catalogue.Tool{ID: uuid.Must(uuid.NewV7()), BundleID: id, Slug: slug, Version: "1",
			ToolSpec: spec, CreatedAt: w.clock.t, ModifiedAt: w.clock.t})
	}
	require.NoError(t, w.idx.ImportBundle(context.Background(), b, tools))
	w.bundles = append(w.bundles, id)
	for _, tool := range tools {
		w.keys = append(w.keys, tool.Key())
	}
	w.touch(id)
}

// all pages through every result of s.
func all(t require.TestingT, s searchindex.Searcher, q searchindex.Query) []catalogue.Tool {
	var out []catalogue.Tool
	for range 1000 {
		p, err := s.Search(context.Background(), q)
		require.NoError(t, err)
		out = append(out, p.Tools...)
		if p.Next == nil {
			return out
		}
		q.After = p.Next
	}
	require.Fail(t, "paging did not end")
	return nil
}

func keysOf(ts []catalogue.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = fmt.Sprintf("%s/%s@%s", t.BundleID.String()[:8], t.Slug, t.Version)
	}
	return out
}

// checkEqual holds that the index answers exactly as the scan: the same
// tools (current data included) in the same order, page by page.
func checkEqual(t require.TestingT, a, b searchindex.Searcher, text string, includeDisabled bool, limit int) {
	q := searchindex.Query{Text: text, IncludeDisabled: includeDisabled, Limit: limit}
	want := all(t, a, q)
	got := all(t, b, q)
	require.Equal(t, keysOf(want), keysOf(got), "query %q includeDisabled=%v", text, includeDisabled)
	require.Equal(t, want, got, "query %q: tool data", text)
}

// TestIndexEqualsScan is the index's contract: over random catalogues,
// random writes (tools put, enabled, disabled, deleted; bundles put,
// disabled, soft-deleted, reaped; usage recorded) and random queries
// (prefixes, whole words, typos, several terms, mixed case, non-ASCII),
// the index returns exactly what the full scan returns, in the same
// order, page by page.
func TestIndexEqualsScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newWorld(t)
		for range rapid.IntRange(1, 5).Draw(t, "rounds") {
			for range rapid.IntRange(1, 25).Draw(t, "writes") {
				w.write(t)
			}
			for range 4 {
				checkEqual(t, w.scan, w.idx, drawQuery(t), rapid.Bool().Draw(t, "includeDisabled"), rapid.IntRange(1, 7).Draw(t, "limit"))
			}
		}
	})
}

// TestIndexEqualsScanAfterResync: a rebuilt index (Resync, as after
// writes by another process straight into the store) answers as the scan.
func TestIndexEqualsScanAfterResync(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newWorld(t)
		for range rapid.IntRange(1, 30).Draw(t, "writes") {
			w.write(t)
		}
		// Writes behind the index's back, then a resync.
		other := &world{clock: w.clock, mem: w.mem, idx: w.idx, bundles: w.bundles, keys: w.keys}
		mem, err := searchindex.Wrap(context.Background(), w.mem, searchindex.Options{}) // another process's view
		require.NoError(t, err)
		other.idx = mem
		for range rapid.IntRange(1, 20).Draw(t, "other-writes") {
			other.write(t)
		}
		require.NoError(t, w.idx.Resync(context.Background()))
		for range 4 {
			checkEqual(t, w.scan, w.idx, drawQuery(t), rapid.Bool().Draw(t, "includeDisabled"), rapid.IntRange(1, 7).Draw(t, "limit"))
		}
	})
}

// TestIndexEqualsScanAfterResyncBundles: an index updated in place for
// the bundles another process wrote to (ResyncBundles, as after a change
// feed that names them) answers as the scan, while this process's own
// writes go on.
func TestIndexEqualsScanAfterResyncBundles(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newWorld(t)
		for range rapid.IntRange(1, 30).Draw(t, "writes") {
			w.write(t)
		}
		mem, err := searchindex.Wrap(context.Background(), w.mem, searchindex.Options{}) // another process's view
		require.NoError(t, err)
		other := &world{clock: w.clock, mem: w.mem, idx: mem, bundles: w.bundles, keys: w.keys, touched: map[uuid.UUID]bool{}}
		for range rapid.IntRange(1, 20).Draw(t, "other-writes") {
			other.write(t)
		}
		w.bundles, w.keys = other.bundles, other.keys
		ids := slices.Collect(maps.Keys(other.touched))
		slices.SortFunc(ids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
		require.NoError(t, w.idx.ResyncBundles(context.Background(), ids))
		for range rapid.IntRange(0, 5).Draw(t, "own-writes") {
			w.write(t)
		}
		fresh, err := searchindex.Wrap(context.Background(), w.mem, searchindex.Options{})
		require.NoError(t, err)
		require.Equal(t, fresh.Len(), w.idx.Len(), "the index holds as many tools as one built afresh")
		for range 4 {
			checkEqual(t, w.scan, w.idx, drawQuery(t), rapid.Bool().Draw(t, "includeDisabled"), rapid.IntRange(1, 7).Draw(t, "limit"))
		}
	})
}

// drawNameQuery draws a query from a tool the catalogue holds: its whole
// slug or display name (an Exact match), a prefix of one, cut anywhere
// (inside a word, after a separator), or such a prefix followed by
// another term; in random case.
func drawNameQuery(t *rapid.T, w *world) string {
	if len(w.keys) == 0 {
		return drawQuery(t)
	}
	tool, err := w.mem.GetTool(context.Background(), rapid.SampledFrom(w.keys).Draw(t, "of"))
	if err != nil {
		return drawQuery(t)
	}
	name := rapid.SampledFrom([]string{tool.Slug, tool.DisplayName}).Draw(t, "name")
	r := []rune(name)
	q := string(r[:rapid.IntRange(1, len(r)).Draw(t, "cut")])
	if strings.TrimSpace(q) == "" {
		q = name
	}
	switch rapid.IntRange(0, 3).Draw(t, "form") {
	case 0:
		q = strings.ToUpper(q)
	case 1:
		q += " " + drawWord(t, "and")
	}
	return q
}

// TestIndexEqualsScanNameQueries holds the index's pruning (per-term
// score bounds: a name's start, a name, the text, fuzzy; an exact name;
// the page's worst hit and its time) equal to the scan on the queries it
// prunes most: whole names, prefixes of names cut anywhere, prefixes with
// another term, over catalogues with many tied scores and times.
func TestIndexEqualsScanNameQueries(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newWorld(t)
		for range rapid.IntRange(1, 4).Draw(t, "rounds") {
			for range rapid.IntRange(1, 40).Draw(t, "writes") {
				w.write(t)
			}
			for range 6 {
				checkEqual(t, w.scan, w.idx, drawNameQuery(t, w), rapid.Bool().Draw(t, "includeDisabled"), rapid.IntRange(1, 5).Draw(t, "limit"))
			}
		}
	})
}
