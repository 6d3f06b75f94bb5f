package catalogue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One human-readable (indented) JSON file per bundle and per tool version.
func TestFileStore_HumanReadableFilePerRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	for _, v := range []string{"1", "2"} {
		_, err := s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "echo", Version: v}, httpSpec("Echo"))
		require.NoError(t, err)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "bundles", bid.String(), "bundle.json"))
	require.NoError(t, err)
	assert.Contains(t, string(manifest), "\n  \"slug\": \"web\",\n")
	entries, err := os.ReadDir(filepath.Join(dir, "bundles", bid.String(), "tools"))
	require.NoError(t, err)
	require.Len(t, entries, 2)
	for _, e := range entries {
		assert.True(t, strings.HasPrefix(e.Name(), "echo@"), e.Name())
		data, err := os.ReadFile(filepath.Join(dir, "bundles", bid.String(), "tools", e.Name()))
		require.NoError(t, err)
		assert.Contains(t, string(data), "\n  \"displayName\": \"Echo\",\n")
		assert.Contains(t, string(data), "\n    \"request\": {\n", "nested objects indented too")
	}
}

// Tool file names stay distinct for slugs differing only in case, and under
// the file-name limit for the longest slug and version.
func TestFileStore_ToolFileNames(t *testing.T) {
	assert.NotEqual(t, strings.ToLower(toolFileName("Echo", "1")), strings.ToLower(toolFileName("echo", "1")))
	long := toolFileName(strings.Repeat("工", 64), strings.Repeat("版", 64))
	assert.LessOrEqual(t, len(long), 255)
	assert.NotEqual(t, long, toolFileName(strings.Repeat("工", 64), strings.Repeat("版", 63)+"x"))
}

// Leftover temporary files of a crashed writer are cleaned at Open and
// never listed; a bundle directory cut short before its manifest is removed.
func TestFileStore_OpenCleansLeftovers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	_, err := s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "echo", Version: "1"}, httpSpec("Echo"))
	require.NoError(t, err)
	require.NoError(t, s.Close())

	tools := filepath.Join(dir, "bundles", bid.String(), "tools")
	require.NoError(t, os.WriteFile(filepath.Join(tools, ".tmp-123"), []byte(`{"half`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bundles", bid.String(), ".tmp-9"), []byte(`{`), 0o600))
	orphan := filepath.Join(dir, "bundles", newID(t).String())
	require.NoError(t, os.MkdirAll(filepath.Join(orphan, "tools"), 0o750))

	s2 := openFile(t, dir, nil)
	assert.Empty(t, s2.Problems())
	assert.NoFileExists(t, filepath.Join(tools, ".tmp-123"))
	assert.NoFileExists(t, filepath.Join(dir, "bundles", bid.String(), ".tmp-9"))
	assert.NoDirExists(t, orphan)
	list, err := s2.ListTools(ctx, ToolQuery{})
	require.NoError(t, err)
	assert.Len(t, list, 1)
}

// A corrupt or partial file is skipped and reported, never a panic or a
// failed Open; DELETE clears it and PUT repairs a corrupt manifest.
func TestFileStore_CorruptFilesSkippedAndReported(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	other := mustBundle(t, s, "other")
	good := ToolKey{BundleID: bid, Slug: "good", Version: "1"}
	bad := ToolKey{BundleID: bid, Slug: "bad", Version: "1"}
	for _, k := range []ToolKey{good, bad} {
		_, err := s.PutTool(ctx, k, httpSpec(k.Slug))
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())

	badPath := filepath.Join(dir, "bundles", bid.String(), "tools", toolFileName("bad", "1"))
	data, err := os.ReadFile(badPath)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(badPath, data[:len(data)/2], 0o600))
	// A whole JSON file that belongs elsewhere (wrong name) is not a record either.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bundles", bid.String(), "tools", toolFileName("moved", "1")), data, 0o600))
	otherManifest := filepath.Join(dir, "bundles", other.String(), "bundle.json")
	require.NoError(t, os.WriteFile(otherManifest, []byte("\x00\x00garbage"), 0o600))

	s2 := openFile(t, dir, nil)
	probs := s2.Problems()
	require.Len(t, probs, 3)
	for _, p := range probs {
		assert.ErrorIs(t, p.Err, ErrCorrupt, p.Path)
	}
	list, err := s2.ListTools(ctx, ToolQuery{IncludeDisabled: true})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "good", list[0].Slug)
	_, err = s2.GetTool(ctx, bad)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = s2.PutTool(ctx, bad, httpSpec("bad"))
	assert.ErrorIs(t, err, ErrConflict, "a corrupt file still holds its <slug, version>")
	bundles, err := s2.ListBundles(ctx, BundleQuery{})
	require.NoError(t, err)
	assert.Len(t, bundles, 1, "the bundle with a corrupt manifest is skipped")

	require.NoError(t, s2.DeleteTool(ctx, bad))
	_, err = s2.PutTool(ctx, bad, httpSpec("bad"))
	require.NoError(t, err)
	_, created, err := s2.PutBundle(ctx, other, bundleSpec("other"))
	require.NoError(t, err)
	assert.True(t, created)
	assert.Len(t, s2.Problems(), 1, "only the misnamed file is left")
}

// Reads are capped: an oversized file is reported, not read whole.
func TestFileStore_ReadsCapped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenFileStore(ctx, dir, FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1, MaxFileBytes: 4096})
	require.NoError(t, err)
	defer s.Close()
	bid := mustBundle(t, s, "web")
	key := ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
	_, err = s.PutTool(ctx, key, httpSpec("Echo"))
	require.NoError(t, err)
	path := filepath.Join(dir, "bundles", bid.String(), "tools", toolFileName("echo", "1"))
	require.NoError(t, os.WriteFile(path, []byte(`{"pad":"`+strings.Repeat("x", 5000)+`"}`), 0o600))
	_, err = s.GetTool(ctx, key)
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "larger than 4096 bytes")

	big := httpSpec("Big")
	big.Description = strings.Repeat("d", 5000)
	_, err = s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "big", Version: "1"}, big)
	assert.ErrorIs(t, err, ErrInvalid, "a record above the cap is not written")
}

// Usage counts are written by Flush and at Close, and read back by a new
// store on the same directory.
func TestFileStore_UsagePersistedAtFlushAndClose(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	key := ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
	_, err := s.PutTool(ctx, key, httpSpec("Echo"))
	require.NoError(t, err)
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for range 3 {
		require.NoError(t, s.RecordUsage(ctx, key, at))
	}
	other := openFile(t, dir, nil)
	got, err := other.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Zero(t, got.CallCount, "not written yet")
	require.NoError(t, s.Flush(ctx))
	got, err = other.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, int64(3), got.CallCount)
	require.NoError(t, s.RecordUsage(ctx, key, at.Add(time.Hour)))
	require.NoError(t, other.RecordUsage(ctx, key, at))
	require.NoError(t, s.Close())
	require.NoError(t, other.Close())
	third := openFile(t, dir, nil)
	got, err = third.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, int64(5), got.CallCount, "counts of both stores add up")
	assert.True(t, got.LastCalledAt.Equal(at.Add(time.Hour)))
	assert.True(t, got.ModifiedAt.Equal(got.CreatedAt), "usage is not a structural change")
}

// The background flusher writes counts without any Flush call.
func TestFileStore_UsageFlushedInBackground(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenFileStore(ctx, dir, FileOptions{Logger: discard, FlushInterval: 5 * time.Millisecond, ReapInterval: -1})
	require.NoError(t, err)
	defer s.Close()
	bid := mustBundle(t, s, "web")
	key := ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
	_, err = s.PutTool(ctx, key, httpSpec("Echo"))
	require.NoError(t, err)
	require.NoError(t, s.RecordUsage(ctx, key, time.Now()))
	reader := openFile(t, dir, nil)
	require.Eventually(t, func() bool {
		got, err := reader.GetTool(ctx, key)
		return err == nil && got.CallCount == 1
	}, 10*time.Second, 5*time.Millisecond)
}

// RecordUsage never waits for storage: it returns while another process
// holds the bundle's lock.
func TestFileStore_RecordUsageDoesNotBlock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	key := ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
	_, err := s.PutTool(ctx, key, httpSpec("Echo"))
	require.NoError(t, err)
	held := flock.New(filepath.Join(dir, "locks", bid.String()+".lock"))
	require.NoError(t, held.Lock())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			assert.NoError(t, s.RecordUsage(ctx, key, time.Now()))
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("RecordUsage blocked on the bundle lock")
	}
	require.NoError(t, held.Unlock())
	require.NoError(t, s.Flush(ctx))
	got, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, int64(1000), got.CallCount)
}

// A writer waiting for a bundle lock gives up when its context ends.
func TestFileStore_LockWaitHonoursContext(t *testing.T) {
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	held := flock.New(filepath.Join(dir, "locks", bid.String()+".lock"))
	require.NoError(t, held.Lock())
	defer held.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "echo", Version: "1"}, httpSpec("Echo"))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// Two stores on one directory (separate locks in one process) racing to put
// the same <slug, version>: exactly one wins, and the stored tool is the
// winner's.
func TestFileStore_TwoStoresOneDirectoryUnique(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openFile(t, dir, nil), openFile(t, dir, nil)
	bid := mustBundle(t, a, "web")
	for round := range 50 {
		key := ToolKey{BundleID: bid, Slug: "t", Version: fmt.Sprintf("1.%d", round)}
		var wg sync.WaitGroup
		results := make([]Tool, 8)
		errs := make([]error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := a
				if i%2 == 1 {
					s = b
				}
				results[i], errs[i] = s.PutTool(ctx, key, httpSpec("T"))
			}()
		}
		wg.Wait()
		wins := 0
		var winner Tool
		for i, err := range errs {
			if err == nil {
				wins++
				winner = results[i]
			} else {
				require.ErrorIs(t, err, ErrConflict)
			}
		}
		require.Equal(t, 1, wins, "round %d", round)
		got, err := a.GetTool(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, winner.ID, got.ID)
	}
}

// The background reaper runs on its own (the clock injected).
func TestFileStore_BackgroundReaper(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	s, err := OpenFileStore(ctx, t.TempDir(), FileOptions{Now: clock.Now, Logger: discard, FlushInterval: -1, ReapInterval: 5 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()
	bid := mustBundle(t, s, "old")
	_, err = s.SoftDeleteBundle(ctx, bid)
	require.NoError(t, err)
	clock.Advance(SoftDeleteRetention)
	require.Eventually(t, func() bool {
		_, err := s.GetBundle(ctx, bid)
		return errors.Is(err, ErrNotFound)
	}, 10*time.Second, 5*time.Millisecond)
}

// Every operation at once, from many goroutines and two stores on one
// directory, with flushes in between: no deadlock, no lost count, no
// duplicate <slug, version>.
func TestFileStore_MixedOperationsConcurrently(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	stores := []*FileStore{openFile(t, dir, nil), openFile(t, dir, nil)}
	bid := mustBundle(t, stores[0], "mixed")
	hot := ToolKey{BundleID: bid, Slug: "hot", Version: "1"}
	_, err := stores[0].PutTool(ctx, hot, httpSpec("Hot"))
	require.NoError(t, err)
	const workers, iters = 8, 40
	var wg sync.WaitGroup
	var puts sync.Map
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[w%2]
			for i := range iters {
				switch i % 6 {
				case 0:
					k := ToolKey{BundleID: bid, Slug: "t", Version: fmt.Sprint(i)}
					if _, err := s.PutTool(ctx, k, httpSpec("T")); err == nil {
						_, dup := puts.LoadOrStore(k, true)
						assert.False(t, dup, "%v put twice", k)
					} else {
						assert.ErrorIs(t, err, ErrConflict)
					}
				case 1:
					_, err := s.SetToolEnabled(ctx, hot, i%4 == 1)
					assert.NoError(t, err)
				case 2:
					assert.NoError(t, s.Flush(ctx))
				case 3:
					_, err := s.ListTools(ctx, ToolQuery{IncludeDisabled: true})
					assert.NoError(t, err)
				case 4:
					_, err := s.GetTool(ctx, hot)
					assert.NoError(t, err)
				case 5:
					_, err := s.SetBundleEnabled(ctx, bid, true)
					assert.NoError(t, err)
				}
				assert.NoError(t, s.RecordUsage(ctx, hot, time.Now()))
			}
		}()
	}
	wg.Wait()
	for _, s := range stores {
		require.NoError(t, s.Close())
	}
	got, err := openFile(t, dir, nil).GetTool(context.Background(), hot)
	require.NoError(t, err)
	assert.Equal(t, int64(workers*iters), got.CallCount)
}

// The number of tool versions in a bundle is capped, exactly, under the
// bundle's lock; deleting one makes room again.
func TestFileStore_MaxToolsPerBundle(t *testing.T) {
	ctx := context.Background()
	s, err := OpenFileStore(ctx, t.TempDir(), FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1, MaxToolsPerBundle: 3})
	require.NoError(t, err)
	defer s.Close()
	bid := mustBundle(t, s, "small")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "t", Version: fmt.Sprint(i)}, httpSpec("T"))
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			require.ErrorIs(t, err, ErrLimit)
		}
	}
	assert.Equal(t, 3, ok)
	list, err := s.ListTools(ctx, ToolQuery{})
	require.NoError(t, err)
	require.Len(t, list, 3)
	require.NoError(t, s.DeleteTool(ctx, list[0].Key()))
	_, err = s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "t", Version: "new"}, httpSpec("T"))
	require.NoError(t, err)
	other := mustBundle(t, s, "other")
	_, err = s.PutTool(ctx, ToolKey{BundleID: other, Slug: "t", Version: "1"}, httpSpec("T"))
	require.NoError(t, err, "the cap is per bundle")
}

// The store holds at most MaxBundles bundles: one more (put or import)
// is ErrLimit, replacing an existing one is not, and reaping makes room.
func TestFileStore_BundleCap(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	s, err := OpenFileStore(ctx, t.TempDir(), FileOptions{Now: clock.Now, Logger: discard, FlushInterval: -1, ReapInterval: -1, MaxBundles: 2})
	require.NoError(t, err)
	defer s.Close()
	a := mustBundle(t, s, "a")
	mustBundle(t, s, "b")
	_, _, err = s.PutBundle(ctx, newID(t), bundleSpec("c"))
	require.ErrorIs(t, err, ErrLimit)
	_, _, err = s.PutBundle(ctx, a, bundleSpec("a2"))
	require.NoError(t, err, "replacing a bundle creates none")
	now := clock.Now()
	err = s.ImportBundle(ctx, Bundle{ID: newID(t), BundleSpec: bundleSpec("d"), CreatedAt: now, ModifiedAt: now}, nil)
	require.ErrorIs(t, err, ErrLimit)

	_, err = s.SoftDeleteBundle(ctx, a)
	require.NoError(t, err)
	clock.Advance(SoftDeleteRetention + time.Minute)
	reaped, err := s.ReapDeleted(ctx)
	require.NoError(t, err)
	require.Len(t, reaped, 1)
	_, _, err = s.PutBundle(ctx, newID(t), bundleSpec("c"))
	assert.NoError(t, err, "a reaped bundle makes room")
}

// MaxBundles holds when several stores (as several processes would)
// create bundles in one directory at the same moment: creations are
// serialised by a store-wide lock file, so exactly MaxBundles succeed,
// puts and imports alike, and the rest are ErrLimit.
func TestFileStore_BundleCapHoldsAcrossStores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const stores, each, capN = 4, 8, 10
	opened := make([]*FileStore, stores)
	for i := range opened {
		s, err := OpenFileStore(ctx, dir, FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1, MaxBundles: capN})
		require.NoError(t, err)
		defer s.Close()
		opened[i] = s
	}
	var mu sync.Mutex
	created, limited := 0, 0
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, s := range opened {
		for j := range each {
			wg.Go(func() {
				<-start
				var err error
				if j%4 == 0 {
					_, _, err = s.PutBundle(ctx, newID(t), bundleSpec(fmt.Sprintf("s%d-%d", i, j)))
				} else {
					now := time.Now().UTC().Truncate(time.Microsecond)
					err = s.ImportBundle(ctx, Bundle{ID: newID(t), BundleSpec: bundleSpec(fmt.Sprintf("s%d-%d", i, j)), CreatedAt: now, ModifiedAt: now}, nil)
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					created++
				case errors.Is(err, ErrLimit):
					limited++
				default:
					t.Errorf("store %d, bundle %d: %v", i, j, err)
				}
			})
		}
	}
	close(start)
	wg.Wait()
	assert.Equal(t, capN, created, "exactly MaxBundles bundles were created")
	assert.Equal(t, stores*each-capN, limited)
	list, err := opened[0].ListBundles(ctx, BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(t, err)
	assert.Equal(t, capN, len(list), "bundles in the directory")
}

// A bundle.json written before the store kept slugSince has held its slug
// since the time of its id (IDTime), not its createdAt, which an import
// takes from its archive: the plain name stays where the smallest id put
// it before the upgrade. A rename starts it afresh.
func TestFileStore_BundleWrittenBeforeSlugSinceReadsItsIDTime(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clock := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	now := func() time.Time { return clock }
	s := openFile(t, dir, now)
	bid := mustBundle(t, s, "web")
	path := filepath.Join(dir, "bundles", bid.String(), "bundle.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), `"slugSince"`)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	delete(m, "slugSince")
	m["createdAt"] = "2025-01-01T00:00:00Z"
	data, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))

	b, err := s.GetBundle(ctx, bid)
	require.NoError(t, err)
	assert.Equal(t, IDTime(bid), b.SlugSince, "the id's time, not the createdAt of 2025")
	clock = clock.Add(time.Hour)
	b, _, err = s.PutBundle(ctx, bid, BundleSpec{Slug: "web2", DisplayName: "Web", IsEnabled: true})
	require.NoError(t, err)
	assert.Equal(t, clock, b.SlugSince)
}

// A negative FileOptions.MaxFileBytes is refused naming the field, not
// silently taken for the default cap.
func TestOpenFileStore_NegativeMaxFileBytesRefused(t *testing.T) {
	_, err := OpenFileStore(context.Background(), t.TempDir(), FileOptions{MaxFileBytes: -1})
	require.EqualError(t, err, "catalogue: open file store: FileOptions.MaxFileBytes is -1; expected zero (DefaultMaxFileBytes) or a positive number of bytes")
}
