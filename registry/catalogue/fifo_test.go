//go:build unix

package catalogue

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/regfile"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/internal/testwait"
)

// replaceWithFIFO removes the file at path and makes a FIFO there.
func replaceWithFIFO(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.Remove(path))
	require.NoError(t, syscall.Mkfifo(path, 0o600))
}

// openLogged opens a file store on dir logging to logs, returning within
// the hang guard.
func openLogged(t *testing.T, dir string, logs *testlog.Buffer) *FileStore {
	t.Helper()
	var s *FileStore
	var err error
	testwait.Returns(t, "OpenFileStore", func() {
		s, err = OpenFileStore(context.Background(), dir, FileOptions{Logger: slog.New(slog.NewJSONHandler(logs, nil)), FlushInterval: -1, ReapInterval: -1})
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// A tool file replaced by a FIFO (whose open waited for a writer for good,
// holding the store's flush lock and wedging it until a restart) reads as
// a damaged record — ErrCorrupt, reported and logged as damaged JSON is —
// at Open and on a running store, and every other call keeps working.
func TestFileStore_FIFOToolFileIsCorruptAndOthersKeepWorking(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	good := ToolKey{BundleID: bid, Slug: "good", Version: "1"}
	bad := ToolKey{BundleID: bid, Slug: "bad", Version: "1"}
	for _, k := range []ToolKey{good, bad} {
		_, err := s.PutTool(ctx, k, httpSpec(k.Slug))
		require.NoError(t, err)
	}
	badPath := filepath.Join(dir, "bundles", bid.String(), "tools", toolFileName("bad", "1"))

	// On the running store.
	replaceWithFIFO(t, badPath)
	var err error
	testwait.Returns(t, "GetTool of a FIFO tool file", func() { _, err = s.GetTool(ctx, bad) })
	require.ErrorIs(t, err, ErrCorrupt)
	assert.ErrorIs(t, err, regfile.ErrNotRegular)
	assert.Contains(t, err.Error(), toolFileName("bad", "1")+" is not a regular file (a FIFO)")
	_, err = s.GetTool(ctx, good)
	require.NoError(t, err, "the other tools keep working")
	require.NoError(t, s.Close())

	// At Open: reported and logged, not waited for.
	logs := &testlog.Buffer{}
	s2 := openLogged(t, dir, logs)
	probs := s2.Problems()
	require.Len(t, probs, 1)
	assert.Equal(t, badPath, probs[0].Path)
	assert.ErrorIs(t, probs[0].Err, ErrCorrupt)
	assert.Contains(t, logs.String(), "is not a regular file (a FIFO)")
	testwait.Returns(t, "ListTools", func() {
		var list []Tool
		list, err = s2.ListTools(ctx, ToolQuery{IncludeDisabled: true})
		require.Len(t, list, 1)
	})
	require.NoError(t, err)
	testwait.Returns(t, "GetTool", func() { _, err = s2.GetTool(ctx, bad) })
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = s2.PutTool(ctx, ToolKey{BundleID: bid, Slug: "new", Version: "1"}, httpSpec("new"))
	require.NoError(t, err, "writes keep working")
}

// A bundle.json that is a FIFO at start (which blocked OpenFileStore for
// good, and the server with it, deaf to SIGTERM) is reported as a damaged
// manifest: Open returns, the problem is logged, the bundle is skipped.
func TestOpenFileStore_FIFOBundleManifestReportedNotWaitedFor(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	other := mustBundle(t, s, "other")
	require.NoError(t, s.Close())
	manifest := filepath.Join(dir, "bundles", bid.String(), "bundle.json")
	replaceWithFIFO(t, manifest)

	logs := &testlog.Buffer{}
	s2 := openLogged(t, dir, logs)
	probs := s2.Problems()
	require.Len(t, probs, 1)
	assert.Equal(t, manifest, probs[0].Path)
	assert.ErrorIs(t, probs[0].Err, ErrCorrupt)
	assert.Contains(t, logs.String(), "bundle.json is not a regular file (a FIFO)")
	bundles, err := s2.ListBundles(ctx, BundleQuery{})
	require.NoError(t, err)
	require.Len(t, bundles, 1)
	assert.Equal(t, other, bundles[0].ID)
}

// A bundle's lock file that is a FIFO (gofrs/flock's own open waited for a
// writer for good) fails that bundle's writes at once with an error
// naming it; other bundles keep working.
func TestFileStore_FIFOLockFileFailsWritesFast(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	bid := mustBundle(t, s, "web")
	other := mustBundle(t, s, "other")
	lock := filepath.Join(dir, "locks", bid.String()+".lock")
	if _, err := os.Stat(lock); err == nil {
		require.NoError(t, os.Remove(lock))
	}
	require.NoError(t, syscall.Mkfifo(lock, 0o600))
	for _, c := range []context.Context{ctx, t.Context()} { // without and with a Done channel
		var err error
		testwait.Returns(t, "PutTool with a FIFO lock file", func() {
			_, err = s.PutTool(c, ToolKey{BundleID: bid, Slug: "echo", Version: "1"}, httpSpec("Echo"))
		})
		require.ErrorIs(t, err, regfile.ErrNotRegular)
		assert.Contains(t, err.Error(), bid.String()+".lock is not a regular file (a FIFO)")
	}
	_, err := s.PutTool(ctx, ToolKey{BundleID: other, Slug: "echo", Version: "1"}, httpSpec("Echo"))
	require.NoError(t, err, "other bundles keep working")
}

// A change counter, change log or counter lock file that is a FIFO (the
// counter's open blocked the watcher, and the bump holding the change
// lock) fails the read and the bump at once; the change itself is made
// and the failure logged.
func TestFileStore_FIFOChangeCounterFailsFast(t *testing.T) {
	for _, name := range []string{"changes", "changes.log", filepath.Join("locks", "changes.lock")} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			logs := &testlog.Buffer{}
			s := openLogged(t, dir, logs)
			path := filepath.Join(dir, name)
			_ = os.Remove(path)
			require.NoError(t, syscall.Mkfifo(path, 0o600))
			var err error
			if name == "changes" {
				testwait.Returns(t, "reading a FIFO counter", func() { _, err = s.changes.read() })
				require.ErrorIs(t, err, regfile.ErrNotRegular)
			}
			testwait.Returns(t, "bump", func() { err = s.changes.bump(ctx, s.lockFile, []uuid.UUID{uuid.New()}) })
			require.ErrorIs(t, err, regfile.ErrNotRegular)
			assert.Contains(t, err.Error(), filepath.Base(name)+" is not a regular file (a FIFO)")
			testwait.Returns(t, "PutBundle", func() { _, _, err = s.PutBundle(ctx, newID(t), bundleSpec("web")) })
			require.NoError(t, err, "the change is made")
			assert.Contains(t, logs.String(), "recording changes for other processes fails")
		})
	}
}

// The built-ins overlay file or its lock file as a FIFO fails a switch at
// once: ErrCorrupt for the overlay, an error naming the lock file for it.
func TestBuiltInStore_FIFOOverlayOrLockFailsFast(t *testing.T) {
	dir := t.TempDir()
	s := &BuiltInStore{path: filepath.Join(dir, "builtins.json"), lock: filepath.Join(dir, "builtins.lock")}
	require.NoError(t, syscall.Mkfifo(s.path, 0o600))
	var err error
	testwait.Returns(t, "update with a FIFO overlay", func() {
		err = s.update(context.Background(), func(*overlay) bool { return true })
	})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "builtins.json is not a regular file (a FIFO)")

	require.NoError(t, os.Remove(s.path))
	require.NoError(t, os.Remove(s.lock))
	require.NoError(t, syscall.Mkfifo(s.lock, 0o600))
	testwait.Returns(t, "update with a FIFO lock file", func() {
		err = s.update(context.Background(), func(*overlay) bool { return true })
	})
	require.ErrorIs(t, err, regfile.ErrNotRegular)
	assert.Contains(t, err.Error(), "builtins.lock is not a regular file (a FIFO)")
	assert.NoFileExists(t, s.path, "nothing written")
}
