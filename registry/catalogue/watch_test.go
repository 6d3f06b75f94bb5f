package catalogue_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// watchEvery is the watch interval of these tests.
const watchEvery = 5 * time.Millisecond

// watching runs w.Watch until the test ends and counts its calls.
type watching struct {
	calls chan struct{}
	done  chan error
}

func watch(t *testing.T, w catalogue.Watcher) *watching {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	wt := &watching{calls: make(chan struct{}, 1000), done: make(chan error, 1)}
	go func() { wt.done <- w.Watch(ctx, func() { wt.calls <- struct{}{} }) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-wt.done:
			assert.ErrorIs(t, err, context.Canceled)
		case <-time.After(10 * time.Second):
			t.Error("Watch did not return after its context ended")
		}
	})
	return wt
}

// called waits (up to ten seconds) for a call, then drains the others.
func (w *watching) called(t *testing.T, what string) {
	t.Helper()
	select {
	case <-w.calls:
	case <-time.After(10 * time.Second):
		t.Fatalf("no change reported after %s", what)
	}
	w.drain()
}

// quiet checks that nothing is reported while twenty intervals pass.
func (w *watching) quiet(t *testing.T, what string) {
	t.Helper()
	time.Sleep(20 * watchEvery)
	select {
	case <-w.calls:
		t.Fatalf("a change was reported after %s", what)
	default:
	}
}

func (w *watching) drain() {
	time.Sleep(4 * watchEvery)
	for {
		select {
		case <-w.calls:
		default:
			return
		}
	}
}

// putBundle puts the bundle "math" under id with that display name.
func putBundle(t *testing.T, s catalogue.Store, id uuid.UUID, display string) {
	t.Helper()
	_, _, err := s.PutBundle(context.Background(), id, catalogue.BundleSpec{Slug: "math", DisplayName: display, IsEnabled: true})
	require.NoError(t, err)
}

func openWatched(t *testing.T, dir string) *catalogue.FileStore {
	t.Helper()
	s, err := catalogue.OpenFileStore(context.Background(), dir, catalogue.FileOptions{Logger: discardLog,
		FlushInterval: -1, ReapInterval: -1, WatchInterval: watchEvery})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Two stores on one directory stand for two hosts: every kind of change
// made through one is reported to the other's watcher, which then reads
// it.
func TestFileStore_WatchReportsEveryChangeMadeElsewhere(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openWatched(t, dir), openWatched(t, dir)
	w := watch(t, b)
	w.quiet(t, "nothing changed")

	id := v7(t)
	putBundle(t, a, id, "Math")
	w.called(t, "a bundle was created")
	_, err := b.GetBundle(ctx, id)
	require.NoError(t, err, "the other store reads the change it was told of")

	key := catalogue.ToolKey{BundleID: id, Slug: "add", Version: "1"}
	var imported catalogue.ToolKey
	steps := []struct {
		what string
		do   func() error
	}{
		{"a bundle was changed", func() error {
			_, _, err := a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "math", DisplayName: "Maths", IsEnabled: true})
			return err
		}},
		{"a tool was put", func() error { _, err := a.PutTool(ctx, key, builtinGoSpec("Add", "add")); return err }},
		{"a tool was disabled", func() error { _, err := a.SetToolEnabled(ctx, key, false); return err }},
		{"a tool was deleted", func() error { return a.DeleteTool(ctx, key) }},
		{"a bundle was disabled", func() error { _, err := a.SetBundleEnabled(ctx, id, false); return err }},
		{"a bundle was soft-deleted", func() error { _, err := a.SoftDeleteBundle(ctx, id); return err }},
		{"a bundle was imported", func() error {
			exp, tools, err := exportOf(ctx, t, a)
			if err != nil {
				return err
			}
			imported = catalogue.ToolKey{BundleID: exp.ID, Slug: tools[0].Slug, Version: tools[0].Version}
			return a.ImportBundle(ctx, exp, tools)
		}},
	}
	for _, st := range steps {
		require.NoError(t, st.do(), st.what)
		w.called(t, st.what)
	}

	// What changes nothing a host serves is not reported: a switch to
	// the state in force, usage counts.
	_, err = a.SetToolEnabled(ctx, imported, true)
	require.NoError(t, err)
	require.NoError(t, a.RecordUsage(ctx, imported, time.Now()))
	require.NoError(t, a.Flush(ctx))
	w.quiet(t, "a tool was enabled again and its usage written")
}

// exportOf makes a bundle of one tool to import into s.
func exportOf(ctx context.Context, t *testing.T, s *catalogue.FileStore) (catalogue.Bundle, []catalogue.Tool, error) {
	src := openStoreForTest(t)
	id := v7(t)
	b, _, err := src.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "imported", DisplayName: "Imported", IsEnabled: true})
	if err != nil {
		return catalogue.Bundle{}, nil, err
	}
	tl, err := src.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: "t", Version: "1"}, builtinGoSpec("T", "add"))
	return b, []catalogue.Tool{tl}, err
}

// A store's watcher is not told of the changes made through that store
// (its host already follows them), but is told when another's change
// falls between them.
func TestFileStore_WatchSkipsItsOwnChanges(t *testing.T) {
	dir := t.TempDir()
	a, b := openWatched(t, dir), openWatched(t, dir)
	w := watch(t, b)
	id := v7(t)
	putBundle(t, b, id, "Math")
	for i := range 20 {
		putBundle(t, b, id, "Math "+strconv.Itoa(i))
	}
	w.quiet(t, "only the watched store changed the catalogue")

	putBundle(t, b, id, "by b")
	putBundle(t, a, id, "by a")
	putBundle(t, b, id, "by b again")
	w.called(t, "another store changed the catalogue between two of the watched store's changes")
}

// A change made after the store was opened but before Watch began is
// reported: the host's first read may have missed it.
func TestFileStore_WatchReportsChangesSinceOpen(t *testing.T) {
	dir := t.TempDir()
	a, b := openWatched(t, dir), openWatched(t, dir)
	putBundle(t, a, v7(t), "Math")
	w := watch(t, b)
	w.called(t, "a change made before Watch began")
	w.quiet(t, "it was reported")
}

// The counter is a hint: one cut short, emptied or written by hand reads
// as a change and counting goes on from it; a store's writes never fail
// because of it.
func TestFileStore_WatchSurvivesADamagedCounter(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openWatched(t, dir), openWatched(t, dir)
	w := watch(t, b)
	id := v7(t)
	putBundle(t, a, id, "Math")
	w.called(t, "a bundle was created")

	for _, content := range []string{"", "garbage", "99999999999999999999999999", "3"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "changes"), []byte(content), 0o600))
		w.called(t, "the counter was rewritten to "+content)
		_, _, err := a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "math", DisplayName: "Math " + content, IsEnabled: true})
		require.NoError(t, err, "a damaged counter fails no write")
		w.called(t, "a change after the counter read "+content)
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "changes")))
	w.called(t, "the counter was removed")
	_, err := a.SetBundleEnabled(ctx, id, false)
	require.NoError(t, err)
	w.called(t, "a change after the counter was removed")
}

// A counter that cannot be written (a directory made in its place) fails
// no change, and is logged once until it can be written again.
func TestFileStore_UnwritableCounterLoggedOnceFailsNoWrite(t *testing.T) {
	dir := t.TempDir()
	logs := &testlog.Buffer{}
	s, err := catalogue.OpenFileStore(context.Background(), dir, catalogue.FileOptions{FlushInterval: -1, ReapInterval: -1,
		Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, os.Mkdir(filepath.Join(dir, "changes"), 0o750))
	id := v7(t)
	for i := range 3 {
		putBundle(t, s, id, "Math "+strconv.Itoa(i))
	}
	count := func(level string) int {
		n := 0
		for _, r := range logs.Records(t) {
			if r["level"] == level && strings.Contains(r["msg"].(string), "recording changes for other processes") {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 1, count("WARN"), "logged once: %s", logs)
	require.NoError(t, os.Remove(filepath.Join(dir, "changes")))
	putBundle(t, s, id, "Math again")
	assert.Equal(t, 1, count("INFO"), "its return is logged: %s", logs)
	assert.FileExists(t, filepath.Join(dir, "changes"))
}

// After the counter is reset (removed by hand), the counts it runs
// through again are other stores' though this store once wrote the same
// numbers: their changes are reported.
func TestFileStore_WatchAfterACounterResetMissesNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := openWatched(t, dir), openWatched(t, dir)
	w := watch(t, b)
	id := v7(t)
	for i := range 5 {
		putBundle(t, b, id, "Math "+strconv.Itoa(i))
	}
	w.quiet(t, "the watched store counted 1 to 5")
	require.NoError(t, os.Remove(filepath.Join(dir, "changes")))
	w.called(t, "the counter was removed")
	for i := range 2 {
		putBundle(t, a, id, "by a "+strconv.Itoa(i))
		w.called(t, "another store counted "+strconv.Itoa(i+1)+" again")
	}
}

// Watch ends with ErrClosed once its store is closed, and refuses to
// start on a closed store.
func TestFileStore_WatchEndsWhenClosed(t *testing.T) {
	s := openWatched(t, t.TempDir())
	done := make(chan error, 1)
	go func() { done <- s.Watch(context.Background(), func() {}) }()
	require.NoError(t, s.Close())
	select {
	case err := <-done:
		assert.ErrorIs(t, err, catalogue.ErrClosed)
	case <-time.After(10 * time.Second):
		t.Fatal("Watch went on after Close")
	}
	assert.ErrorIs(t, s.Watch(context.Background(), func() {}), catalogue.ErrClosed)
	_, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{WatchInterval: -time.Second})
	assert.ErrorContains(t, err, "FileOptions.WatchInterval: expected zero or a positive duration, got -1s")
}

// openBuiltIns opens the built-ins of f over a file store in f.dir, as a
// host sharing the directory would.
func openBuiltIns(t *testing.T, f *builtinFixture, flush, watch time.Duration) *catalogue.BuiltInStore {
	t.Helper()
	ctx := context.Background()
	inner, err := catalogue.OpenFileStore(ctx, filepath.Join(f.dir, "store"), catalogue.FileOptions{
		Logger: discardLog, FlushInterval: -1, ReapInterval: -1, WatchInterval: watch})
	require.NoError(t, err)
	store, opts := f.wrap(inner, catalogue.BuiltInOptions{Dir: f.dir, Bundles: f.decl,
		Logger: discardLog, FlushInterval: flush, WatchInterval: watch})
	s, err := catalogue.WithBuiltIns(ctx, store, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Two hosts sharing a directory, each with the built-ins over its file
// store: the other's changes to stored bundles and its switches of
// built-ins are reported; this host's own switches and the usage counts
// any host writes to the overlay are not.
func TestBuiltIns_WatchReportsOtherProcessesSwitches(t *testing.T) {
	overlayModes(t, testWatchReportsOtherProcessesSwitches)
}

func testWatchReportsOtherProcessesSwitches(t *testing.T, newFixture func(t *testing.T) *builtinFixture) {
	ctx := context.Background()
	f := newFixture(t)
	a, b := openBuiltIns(t, f, watchEvery, watchEvery), openBuiltIns(t, f, time.Hour, watchEvery)
	w := watch(t, b)
	key := catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}

	_, err := a.SetToolEnabled(ctx, key, false)
	require.NoError(t, err)
	w.called(t, "another host disabled a built-in tool")
	tl, err := b.GetTool(ctx, key)
	require.NoError(t, err)
	assert.False(t, tl.IsEnabled)

	_, err = b.SetToolEnabled(ctx, key, true)
	require.NoError(t, err)
	w.quiet(t, "this host switched a built-in")
	for range 5 {
		require.NoError(t, a.RecordUsage(ctx, key, time.Now()))
		time.Sleep(2 * watchEvery)
	}
	require.Eventually(t, func() bool {
		got, err := b.GetTool(ctx, key)
		return err == nil && got.CallCount == 5
	}, 10*time.Second, watchEvery, "the usage counts reach the overlay")
	w.quiet(t, "another host wrote usage counts of a built-in")

	_, _, err = a.PutBundle(ctx, v7(t), catalogue.BundleSpec{Slug: "stored", DisplayName: "Stored", IsEnabled: true})
	require.NoError(t, err)
	w.called(t, "another host created a stored bundle")
}

// Another host's switch that this host read first, while writing a
// switch of its own, is still reported. (The watcher here looks only
// after both writes, so the second write is the first to see the other
// host's switch.)
func TestBuiltIns_WatchReportsASwitchItsOwnWriteReadFirst(t *testing.T) {
	overlayModes(t, testWatchReportsASwitchItsOwnWriteReadFirst)
}

func testWatchReportsASwitchItsOwnWriteReadFirst(t *testing.T, newFixture func(t *testing.T) *builtinFixture) {
	ctx := context.Background()
	f := newFixture(t)
	a, b := openBuiltIns(t, f, time.Hour, watchEvery), openBuiltIns(t, f, time.Hour, 300*time.Millisecond)
	w := watch(t, b)
	_, err := a.SetToolEnabled(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}, false)
	require.NoError(t, err)
	_, err = b.SetToolEnabled(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "2"}, false)
	require.NoError(t, err)
	w.called(t, "another host disabled a built-in before this one disabled another")
}

// The built-ins' Watch ends with the store's Close, with built-ins
// declared or none (then it reads no overlay).
func TestBuiltIns_WatchEndsWhenClosed(t *testing.T) {
	for _, declared := range []bool{true, false} {
		f := newBuiltinFixture(t)
		if !declared {
			f.decl = nil
		}
		s := f.open(t, nil)
		done := make(chan error, 1)
		go func() { done <- s.Watch(context.Background(), func() {}) }()
		require.NoError(t, s.Close())
		select {
		case err := <-done:
			assert.True(t, errors.Is(err, catalogue.ErrClosed), "declared %v: got %v", declared, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("declared %v: Watch went on after Close", declared)
		}
	}
}

// Calls of changed never overlap, though two sources feed them.
func TestBuiltIns_WatchCallsNeverOverlap(t *testing.T) {
	overlayModes(t, testWatchCallsNeverOverlap)
}

func testWatchCallsNeverOverlap(t *testing.T, newFixture func(t *testing.T) *builtinFixture) {
	ctx := context.Background()
	f := newFixture(t)
	a, b := openBuiltIns(t, f, time.Hour, time.Millisecond), openBuiltIns(t, f, time.Hour, time.Millisecond)
	var mu sync.Mutex
	inside, overlapped, calls := 0, false, 0
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- b.Watch(wctx, func() {
			mu.Lock()
			inside++
			overlapped = overlapped || inside > 1
			calls++
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			inside--
			mu.Unlock()
		})
	}()
	key := catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}
	id := v7(t)
	for i := range 40 {
		_, err := a.SetToolEnabled(ctx, key, i%2 == 0)
		require.NoError(t, err)
		_, _, err = a.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "s", DisplayName: "S" + strconv.Itoa(i), IsEnabled: true})
		require.NoError(t, err)
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	mu.Lock()
	defer mu.Unlock()
	assert.False(t, overlapped, "changed ran twice at once")
	assert.Positive(t, calls)
}

// WatchBundles names the bundles another store's changes touched, and
// the built-in bundle for another host's switch of a built-in.
func TestWatchBundles_NamesTheBundlesTouched(t *testing.T) {
	ctx := context.Background()
	f := newBuiltinFixture(t)
	a, b := openBuiltIns(t, f, time.Hour, watchEvery), openBuiltIns(t, f, time.Hour, watchEvery)
	got := make(chan []uuid.UUID, 100)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- b.WatchBundles(wctx, func(ids []uuid.UUID) { got <- ids }) }()
	t.Cleanup(func() { cancel(); <-done })
	collect := func(want ...uuid.UUID) {
		t.Helper()
		seen := map[uuid.UUID]bool{}
		deadline := time.After(10 * time.Second)
		for len(seen) < len(want) {
			select {
			case ids := <-got:
				require.NotNil(t, ids, "the log names the bundles")
				for _, id := range ids {
					require.Contains(t, want, id)
					seen[id] = true
				}
			case <-deadline:
				t.Fatalf("bundles reported: %v; want %v", seen, want)
			}
		}
	}
	x, y := v7(t), v7(t)
	putBundle(t, a, x, "X")
	putBundle(t, a, y, "Y")
	collect(x, y)
	_, err := a.PutTool(ctx, catalogue.ToolKey{BundleID: y, Slug: "t", Version: "1"}, builtinGoSpec("T", "add"))
	require.NoError(t, err)
	collect(y)
	_, err = a.SetBundleEnabled(ctx, f.builtin, false)
	require.NoError(t, err)
	collect(f.builtin)
}
