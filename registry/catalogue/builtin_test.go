package catalogue_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/storetest"
)

var discardLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func builtinGoSpec(display, fn string) catalogue.ToolSpec {
	return catalogue.ToolSpec{DisplayName: display, Description: "adds two numbers", IsEnabled: true, Type: catalogue.TypeGo,
		Tags:      []string{"math"},
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		GoImpl:    &catalogue.GoImpl{Func: fn}}
}

func v7(t testing.TB) uuid.UUID {
	id, err := catalogue.NewID()
	require.NoError(t, err)
	return id
}

type builtinFixture struct {
	dir     string
	clock   *testclock.Clock
	builtin uuid.UUID
	decl    []catalogue.BuiltInBundle
	kept    *memKeeper // the overlay the store keeps (BuiltInsKeeper); nil: the overlay file
}

// memKeeper keeps a built-ins overlay in memory, as a database does for
// every host on it: stores wrapping the same memKeeper share it.
type memKeeper struct {
	mu     sync.Mutex
	doc    []byte
	writes int
}

func (k *memKeeper) ReadBuiltIns(context.Context) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return bytes.Clone(k.doc), nil
}

func (k *memKeeper) UpdateBuiltIns(_ context.Context, change func([]byte) ([]byte, bool, error)) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	updated, changed, err := change(bytes.Clone(k.doc))
	if err == nil && changed {
		k.doc, k.writes = updated, k.writes+1
	}
	return err
}

// keptStore is a file store whose built-ins overlay is kept elsewhere
// (k), as the PostgreSQL store keeps it in the database.
type keptStore struct {
	*catalogue.FileStore
	*memKeeper
}

// overlayModes runs test once with the overlay file and once with an
// overlay the wrapped store keeps: each fixture's stores share it.
func overlayModes(t *testing.T, test func(t *testing.T, newFixture func(t *testing.T) *builtinFixture)) {
	t.Run("file", func(t *testing.T) { test(t, newBuiltinFixture) })
	t.Run("kept", func(t *testing.T) {
		test(t, func(t *testing.T) *builtinFixture {
			f := newBuiltinFixture(t)
			f.kept = &memKeeper{}
			return f
		})
	})
}

// wrap gives inner the fixture's kept overlay, if any, and the built-ins
// options to match: no overlay directory, and with watch 0 a re-read at
// every read (the file is re-read whenever it changed).
func (f *builtinFixture) wrap(inner *catalogue.FileStore, opts catalogue.BuiltInOptions) (catalogue.Store, catalogue.BuiltInOptions) {
	if f.kept == nil {
		return inner, opts
	}
	opts.Dir = ""
	if opts.WatchInterval == 0 {
		opts.WatchInterval = time.Nanosecond
	}
	return keptStore{inner, f.kept}, opts
}

func newBuiltinFixture(t *testing.T) *builtinFixture {
	f := &builtinFixture{dir: t.TempDir(), clock: testclock.New(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)), builtin: v7(t)}
	f.decl = []catalogue.BuiltInBundle{{ID: f.builtin,
		Spec: catalogue.BundleSpec{Slug: "math", DisplayName: "Math", Description: "compiled in", IsEnabled: true},
		Tools: []catalogue.BuiltInTool{
			{Slug: "add", Version: "1", Spec: builtinGoSpec("Add", "add")},
			{Slug: "add", Version: "2", Spec: builtinGoSpec("Add v2", "add2")},
		}}}
	return f
}

func (f *builtinFixture) open(t *testing.T, hasFunc func(string) bool) *catalogue.BuiltInStore {
	t.Helper()
	inner, err := catalogue.OpenFileStore(context.Background(), filepath.Join(f.dir, "store"), catalogue.FileOptions{
		Now: f.clock.Now, Logger: discardLog, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	store, opts := f.wrap(inner, catalogue.BuiltInOptions{
		Dir: f.dir, Bundles: f.decl, HasFunc: hasFunc, Now: f.clock.Now, Logger: discardLog, FlushInterval: time.Hour})
	s, err := catalogue.WithBuiltIns(context.Background(), store, opts)
	require.NoError(t, err)
	return s
}

func TestBuiltIns_ServedBesideStoredBundles(t *testing.T) {
	ctx := context.Background()
	f := newBuiltinFixture(t)
	s := f.open(t, nil)
	defer s.Close()
	stored := v7(t)
	_, _, err := s.PutBundle(ctx, stored, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: stored, Slug: "echo", Version: "1"}, builtinGoSpec("Echo", "echo"))
	require.NoError(t, err)

	b, err := s.GetBundle(ctx, f.builtin)
	require.NoError(t, err)
	assert.True(t, b.BuiltIn)
	assert.Equal(t, "math", b.Slug)
	assert.Equal(t, f.clock.Now(), b.CreatedAt, "createdAt is when the built-in was first served")

	bs, err := s.ListBundles(ctx, catalogue.BundleQuery{})
	require.NoError(t, err)
	require.Len(t, bs, 2)
	assert.Equal(t, []uuid.UUID{f.builtin, stored}, []uuid.UUID{bs[0].ID, bs[1].ID}, "one order by id: the built-in is older")

	tools, err := s.ListTools(ctx, catalogue.ToolQuery{})
	require.NoError(t, err)
	require.Len(t, tools, 3)
	assert.Equal(t, []string{"add@1", "add@2", "echo@1"}, keysOf(tools))
	assert.True(t, tools[0].BuiltIn)
	assert.Equal(t, catalogue.BuiltInToolID(f.builtin, "add", "1"), tools[0].ID)

	page1, err := s.ListTools(ctx, catalogue.ToolQuery{Limit: 1})
	require.NoError(t, err)
	page2, err := s.ListTools(ctx, catalogue.ToolQuery{Limit: 1, After: page1[0].Key()})
	require.NoError(t, err)
	page3, err := s.ListTools(ctx, catalogue.ToolQuery{Limit: 5, After: page2[0].Key()})
	require.NoError(t, err)
	assert.Equal(t, []string{"add@1", "add@2", "echo@1"}, keysOf(append(append(page1, page2...), page3...)), "paging crosses built-in and stored bundles")

	got, err := s.GetTool(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "2"})
	require.NoError(t, err)
	assert.Equal(t, "Add v2", got.DisplayName)
	_, err = s.GetTool(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "3"})
	assert.ErrorIs(t, err, catalogue.ErrNotFound)
}

func keysOf(ts []catalogue.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Slug + "@" + t.Version
	}
	return out
}

func TestBuiltIns_ReadOnlyButTheEnabledSwitch(t *testing.T) {
	overlayModes(t, testReadOnlyButTheEnabledSwitch)
}

func testReadOnlyButTheEnabledSwitch(t *testing.T, newFixture func(t *testing.T) *builtinFixture) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.open(t, nil)
	key := catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}

	_, _, err := s.PutBundle(ctx, f.builtin, catalogue.BundleSpec{Slug: "x", DisplayName: "X", IsEnabled: true})
	assert.ErrorIs(t, err, catalogue.ErrBuiltIn)
	_, err = s.SoftDeleteBundle(ctx, f.builtin)
	assert.ErrorIs(t, err, catalogue.ErrBuiltIn)
	_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "sub", Version: "1"}, builtinGoSpec("Sub", "sub"))
	assert.ErrorIs(t, err, catalogue.ErrBuiltIn)
	assert.ErrorIs(t, s.DeleteTool(ctx, key), catalogue.ErrBuiltIn)

	tool, err := s.SetToolEnabled(ctx, key, false)
	require.NoError(t, err)
	assert.False(t, tool.IsEnabled)
	b, err := s.SetBundleEnabled(ctx, f.builtin, false)
	require.NoError(t, err)
	assert.False(t, b.IsEnabled)
	_, err = s.SetToolEnabled(ctx, key, true)
	assert.ErrorIs(t, err, catalogue.ErrBundleDisabled, "no patch inside a disabled bundle, built-in or not")

	// Another process sharing the directory sees the switches at once.
	other := f.open(t, nil)
	ob, err := other.GetBundle(ctx, f.builtin)
	require.NoError(t, err)
	assert.False(t, ob.IsEnabled)
	_, err = other.SetBundleEnabled(ctx, f.builtin, true)
	require.NoError(t, err)
	nb, err := s.GetBundle(ctx, f.builtin)
	require.NoError(t, err)
	assert.True(t, nb.IsEnabled, "a switch made by another process shows up")
	require.NoError(t, other.Close())
	require.NoError(t, s.Close())

	// And the state survives a restart.
	again := f.open(t, nil)
	defer again.Close()
	tl, err := again.GetTool(ctx, key)
	require.NoError(t, err)
	assert.False(t, tl.IsEnabled)
	all, err := again.ListTools(ctx, catalogue.ToolQuery{})
	require.NoError(t, err)
	assert.Equal(t, []string{"add@2"}, keysOf(all), "a disabled built-in is listed only with includeDisabled")
}

func TestBuiltIns_UsageCountsNotLost(t *testing.T) {
	overlayModes(t, testUsageCountsNotLost)
}

func testUsageCountsNotLost(t *testing.T, newFixture func(t *testing.T) *builtinFixture) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.open(t, nil)
	key := catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}
	const workers, each = 8, 500
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				assert.NoError(t, s.RecordUsage(ctx, key, f.clock.Now()))
			}
		}()
	}
	wg.Wait()
	tool, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.EqualValues(t, workers*each, tool.CallCount, "buffered counts are visible at once")
	require.NotNil(t, tool.LastCalledAt)
	require.NoError(t, s.Close())

	again := f.open(t, nil)
	require.NoError(t, again.RecordUsage(ctx, key, f.clock.Now()))
	require.NoError(t, again.Close())
	third := f.open(t, nil)
	defer third.Close()
	tool, err = third.GetTool(ctx, key)
	require.NoError(t, err)
	assert.EqualValues(t, workers*each+1, tool.CallCount, "counts survive restarts and add up across processes")
}

func TestBuiltIns_DeclarationsCheckedLikeAPut(t *testing.T) {
	inner := openStoreForTest(t)
	bad := []catalogue.BuiltInBundle{
		{ID: uuid.New(), Spec: catalogue.BundleSpec{Slug: "a b", DisplayName: "A"},
			Tools: []catalogue.BuiltInTool{
				{Slug: "t", Version: "1", Spec: builtinGoSpec("T", "t")},
				{Slug: "t", Version: "1", Spec: builtinGoSpec("T", "t")},
				{Slug: "u", Version: "", Spec: catalogue.ToolSpec{Type: "lisp"}},
			}},
	}
	_, err := catalogue.WithBuiltIns(context.Background(), inner, catalogue.BuiltInOptions{Dir: t.TempDir(), Bundles: bad})
	require.ErrorIs(t, err, catalogue.ErrInvalid)
	var ve *catalogue.ValidationError
	require.ErrorAs(t, err, &ve)
	var fields []string
	for _, f := range ve.Fields {
		fields = append(fields, f.Field)
	}
	for _, want := range []string{"bundles[0].id", "bundles[0].spec.slug", "bundles[0].tools[1]", "bundles[0].tools[2].version",
		"bundles[0].tools[2].spec.type", "bundles[0].tools[2].spec.displayName"} {
		assert.Contains(t, fields, want)
	}

	_, err = catalogue.WithBuiltIns(context.Background(), inner, catalogue.BuiltInOptions{})
	assert.ErrorContains(t, err, "BuiltInOptions.Dir")
}

// A store holding a bundle under a built-in's id (made by a host started
// without the built-in, before the id was reserved) does not stop a host
// with the built-in from starting, now or after a restart: that host
// serves the built-in alone under the id — one bundle, the built-in's
// tools, in lists and pages too — and logs the clash, naming both.
func TestBuiltIns_StoredBundleUnderABuiltInIDHiddenAndLogged(t *testing.T) {
	overlayModes(t, testStoredBundleUnderABuiltInIDHiddenAndLogged)
}

func testStoredBundleUnderABuiltInIDHiddenAndLogged(t *testing.T, newFixture func(t *testing.T) *builtinFixture) {
	ctx := context.Background()
	f := newFixture(t)
	without, err := catalogue.OpenFileStore(ctx, filepath.Join(f.dir, "store"), catalogue.FileOptions{
		Now: f.clock.Now, Logger: discardLog, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	_, _, err = without.PutBundle(ctx, f.builtin, catalogue.BundleSpec{Slug: "hijack", DisplayName: "H", IsEnabled: true})
	require.NoError(t, err)
	for _, v := range []string{"1", "9"} {
		_, err = without.PutTool(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: v}, builtinGoSpec("Stored add", "add"))
		require.NoError(t, err)
	}
	other := v7(t)
	_, _, err = without.PutBundle(ctx, other, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	_, err = without.PutTool(ctx, catalogue.ToolKey{BundleID: other, Slug: "echo", Version: "1"}, builtinGoSpec("Echo", "echo"))
	require.NoError(t, err)
	require.NoError(t, without.Close())

	for range 2 { // a start, and a restart
		var logs testlog.Buffer
		inner, err := catalogue.OpenFileStore(ctx, filepath.Join(f.dir, "store"), catalogue.FileOptions{
			Now: f.clock.Now, Logger: discardLog, FlushInterval: -1, ReapInterval: -1})
		require.NoError(t, err)
		store, opts := f.wrap(inner, catalogue.BuiltInOptions{Dir: f.dir, Bundles: f.decl, Now: f.clock.Now,
			Logger: slog.New(slog.NewTextHandler(&logs, nil)), FlushInterval: time.Hour})
		s, err := catalogue.WithBuiltIns(ctx, store, opts)
		require.NoError(t, err, "the host with the built-in starts")
		assert.Contains(t, logs.String(), "level=WARN")
		assert.Contains(t, logs.String(), "the id of a built-in bundle")
		assert.Contains(t, logs.String(), f.builtin.String())
		assert.Contains(t, logs.String(), `\"hijack\"`, "the stored bundle named")

		bs, err := s.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
		require.NoError(t, err)
		assert.Equal(t, []uuid.UUID{f.builtin, other}, bundleIDsOf(bs), "one bundle per id")
		assert.True(t, bs[0].BuiltIn)
		assert.Equal(t, "math", bs[0].Slug)
		page, err := s.ListBundles(ctx, catalogue.BundleQuery{Limit: 1})
		require.NoError(t, err)
		assert.Equal(t, []uuid.UUID{f.builtin}, bundleIDsOf(page))
		b, err := s.GetBundle(ctx, f.builtin)
		require.NoError(t, err)
		assert.True(t, b.BuiltIn)

		tools, err := s.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true})
		require.NoError(t, err)
		assert.Equal(t, []string{"add@1", "add@2", "echo@1"}, keysOf(tools), "the stored add@1 and add@9 are left out")
		for _, tl := range tools[:2] {
			assert.True(t, tl.BuiltIn)
		}
		var paged []catalogue.Tool
		for after := (catalogue.ToolKey{}); ; {
			p, err := s.ListTools(ctx, catalogue.ToolQuery{Limit: 1, After: after, IncludeDisabled: true})
			require.NoError(t, err)
			if len(p) == 0 {
				break
			}
			paged = append(paged, p...)
			after = p[len(p)-1].Key()
		}
		assert.Equal(t, keysOf(tools), keysOf(paged))
		_, err = s.GetTool(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "9"})
		assert.ErrorIs(t, err, catalogue.ErrNotFound, "the stored tool is not served")
		require.NoError(t, s.Close())
	}
}

// A host with built-ins reserves their ids in the store it shares: a host
// without them — a plain store on the same directory, or one wrapped with
// no built-ins — cannot create, import or fill a bundle under such an id,
// and lists the reservation as a built-in bundle without tools.
func TestBuiltIns_IDsReservedForHostsWithoutThem(t *testing.T) {
	ctx := context.Background()
	f := newBuiltinFixture(t)
	with := f.open(t, nil)
	defer with.Close()
	plain, err := catalogue.OpenFileStore(ctx, filepath.Join(f.dir, "store"), catalogue.FileOptions{
		Now: f.clock.Now, Logger: discardLog, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	none, err := catalogue.WithBuiltIns(ctx, plain, catalogue.BuiltInOptions{Dir: t.TempDir(), Logger: discardLog})
	require.NoError(t, err)
	defer none.Close()
	for name, s := range map[string]catalogue.Store{"plain": plain, "no built-ins": none} {
		_, _, err := s.PutBundle(ctx, f.builtin, catalogue.BundleSpec{Slug: "hijack", DisplayName: "H", IsEnabled: true})
		assert.ErrorIs(t, err, catalogue.ErrBuiltIn, name)
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}, builtinGoSpec("Add", "add"))
		assert.ErrorIs(t, err, catalogue.ErrBuiltIn, name)
		now := f.clock.Now()
		err = s.ImportBundle(ctx, catalogue.Bundle{ID: f.builtin, BundleSpec: catalogue.BundleSpec{Slug: "hijack", DisplayName: "H"},
			CreatedAt: now, ModifiedAt: now}, nil)
		assert.ErrorIs(t, err, catalogue.ErrBundleExists, name)
		b, err := s.GetBundle(ctx, f.builtin)
		require.NoError(t, err, name)
		assert.True(t, b.BuiltIn, name)
		assert.Equal(t, "math", b.Slug, name)
		served, err := with.GetBundle(ctx, f.builtin)
		require.NoError(t, err)
		assert.True(t, b.CreatedAt.Equal(served.CreatedAt) && b.SlugSince.Equal(served.SlugSince),
			"%s: the reservation carries the built-in's first-served time, so hosts name alike", name)
	}
	bs, err := with.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true})
	require.NoError(t, err)
	assert.Equal(t, []uuid.UUID{f.builtin}, bundleIDsOf(bs), "the host with the built-in lists it once")
}

func bundleIDsOf(bs []catalogue.Bundle) []uuid.UUID {
	out := make([]uuid.UUID, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}

func TestBuiltInToolID_StableUUIDv7(t *testing.T) {
	b := v7(t)
	a1 := catalogue.BuiltInToolID(b, "add", "1")
	assert.Equal(t, a1, catalogue.BuiltInToolID(b, "add", "1"))
	assert.NotEqual(t, a1, catalogue.BuiltInToolID(b, "add", "2"))
	assert.NotEqual(t, catalogue.BuiltInToolID(b, "ad", "d1"), catalogue.BuiltInToolID(b, "add", "1"), "slug and version are separated")
	assert.NoError(t, catalogue.ValidateID(a1))
}

func TestGoTool_UnregisteredFuncReportedDisabledNeverRewritten(t *testing.T) {
	ctx := context.Background()
	f := newBuiltinFixture(t)
	registered := map[string]bool{"add": true, "echo": true}
	var mu sync.Mutex
	has := func(n string) bool { mu.Lock(); defer mu.Unlock(); return registered[n] }
	s := f.open(t, has)
	defer s.Close()
	stored := v7(t)
	_, _, err := s.PutBundle(ctx, stored, catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		fn := "echo"
		if i%2 == 1 {
			fn = "gone"
		}
		_, err = s.PutTool(ctx, catalogue.ToolKey{BundleID: stored, Slug: fmt.Sprintf("t%d", i), Version: "1"}, builtinGoSpec("T", fn))
		require.NoError(t, err)
	}

	missing := catalogue.ToolKey{BundleID: stored, Slug: "t1", Version: "1"}
	tool, err := s.GetTool(ctx, missing)
	require.NoError(t, err)
	assert.False(t, tool.IsEnabled, "a go tool whose function is not registered is reported disabled")
	v2, err := s.GetTool(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "2"})
	require.NoError(t, err)
	assert.False(t, v2.IsEnabled, "built-ins too")

	var all []catalogue.Tool
	for after := (catalogue.ToolKey{}); ; {
		page, err := s.ListTools(ctx, catalogue.ToolQuery{Limit: 2, After: after})
		require.NoError(t, err)
		all = append(all, page...)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1].Key()
	}
	assert.Equal(t, []string{"add@1", "t0@1", "t2@1", "t4@1"}, keysOf(all), "pages stay full and skip the unregistered")
	withOff, err := s.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true})
	require.NoError(t, err)
	assert.Len(t, withOff, 7)

	inner, err := catalogue.OpenFileStore(ctx, filepath.Join(f.dir, "store"), catalogue.FileOptions{Logger: discardLog, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	onDisk, err := inner.GetTool(ctx, missing)
	require.NoError(t, err)
	assert.True(t, onDisk.IsEnabled, "the stored record is not rewritten")
	require.NoError(t, inner.Close())

	mu.Lock()
	registered["gone"] = true
	mu.Unlock()
	tool, err = s.GetTool(ctx, missing)
	require.NoError(t, err)
	assert.True(t, tool.IsEnabled, "registering the function brings the tool back")
}

// The built-ins wrapper passes the conformance suite as a pass-through.
func TestBuiltInStore_Conformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) catalogue.Store {
		inner, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{
			Now: now, Logger: discardLog, FlushInterval: -1, ReapInterval: -1})
		require.NoError(t, err)
		s, err := catalogue.WithBuiltIns(context.Background(), inner, catalogue.BuiltInOptions{Dir: t.TempDir(), Now: now,
			HasFunc: func(string) bool { return true }, Logger: discardLog})
		require.NoError(t, err)
		return s
	})
}

func openStoreForTest(t *testing.T) *catalogue.FileStore {
	s, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{Logger: discardLog, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// A store that starts keeping the overlay itself (a server moved onto
// PostgreSQL) carries over the overlay file left in the directory — the
// switches and counts made before are not lost — once: a kept overlay
// already written is never replaced by a file.
func TestBuiltIns_KeptOverlayCarriesTheFileOver(t *testing.T) {
	ctx := context.Background()
	f := newBuiltinFixture(t)
	key := catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}
	before := f.open(t, nil)
	_, err := before.SetToolEnabled(ctx, key, false)
	require.NoError(t, err)
	require.NoError(t, before.RecordUsage(ctx, key, f.clock.Now()))
	firstSeen, err := before.GetBundle(ctx, f.builtin)
	require.NoError(t, err)
	require.NoError(t, before.Close())

	f.clock.Advance(time.Hour)
	f.kept = &memKeeper{}
	open := func(dir string) *catalogue.BuiltInStore {
		inner, err := catalogue.OpenFileStore(ctx, filepath.Join(f.dir, "store"), catalogue.FileOptions{
			Now: f.clock.Now, Logger: discardLog, FlushInterval: -1, ReapInterval: -1})
		require.NoError(t, err)
		s, err := catalogue.WithBuiltIns(ctx, keptStore{inner, f.kept}, catalogue.BuiltInOptions{Dir: dir, Bundles: f.decl,
			Now: f.clock.Now, Logger: discardLog, FlushInterval: time.Hour, WatchInterval: time.Nanosecond})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	after := open(f.dir)
	tool, err := after.GetTool(ctx, key)
	require.NoError(t, err)
	assert.False(t, tool.IsEnabled, "the switch made before is carried over")
	assert.EqualValues(t, 1, tool.CallCount, "and the usage count")
	b, err := after.GetBundle(ctx, f.builtin)
	require.NoError(t, err)
	assert.Equal(t, firstSeen.CreatedAt, b.CreatedAt, "and when it was first served")

	_, err = after.SetToolEnabled(ctx, key, true)
	require.NoError(t, err)
	again := open(f.dir)
	tool, err = again.GetTool(ctx, key)
	require.NoError(t, err)
	assert.True(t, tool.IsEnabled, "a kept overlay already written is not replaced by the file")
}

// Built-in tools are listed in the order of every store (ToolKey.Compare:
// slug, then version, byte by byte), page by page too.
func TestBuiltIns_ListedInTheStoresOrder(t *testing.T) {
	ctx := context.Background()
	f := newBuiltinFixture(t)
	f.decl[0].Tools = nil
	for _, sv := range [][2]string{{"alpha", "1"}, {"alpha", "10"}, {"alpha", "2"}, {"a-b", "1"}, {"a", "1"}, {"alpha", "1.0"}} {
		f.decl[0].Tools = append(f.decl[0].Tools, catalogue.BuiltInTool{Slug: sv[0], Version: sv[1], Spec: builtinGoSpec("T", "add")})
	}
	s := f.open(t, nil)
	defer s.Close()
	want := []string{"a@1", "a-b@1", "alpha@1", "alpha@1.0", "alpha@10", "alpha@2"}
	all, err := s.ListTools(ctx, catalogue.ToolQuery{})
	require.NoError(t, err)
	assert.Equal(t, want, keysOf(all))
	var paged []catalogue.Tool
	for after := (catalogue.ToolKey{}); ; {
		page, err := s.ListTools(ctx, catalogue.ToolQuery{Limit: 2, After: after})
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		after = page[len(page)-1].Key()
	}
	assert.Equal(t, want, keysOf(paged))
}
