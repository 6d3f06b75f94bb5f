package catalogue

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const envImportKillDir = "CATALOGUE_TEST_IMPORT_KILL_DIR"

// importRecords is a bundle of n tools as an import carries them.
func importRecords(t testing.TB, n int) (Bundle, []Tool) {
	t.Helper()
	at := time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC)
	b := Bundle{ID: newID(t), BundleSpec: bundleSpec("imported"), CreatedAt: at, ModifiedAt: at}
	tools := make([]Tool, n)
	for i := range tools {
		tools[i] = Tool{ID: newID(t), BundleID: b.ID, Slug: "tool", Version: fmt.Sprint(i), ToolSpec: httpSpec("Tool"),
			CreatedAt: at, ModifiedAt: at}
	}
	return b, tools
}

func stagingDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "bundles"))
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), stagePrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// An import cut short leaves only a staging directory, which no read sees
// and Open removes.
func TestFileStore_ImportStagingLeftByCrashIsInvisibleAndRemoved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	b, tools := importRecords(t, 3)
	// What a writer killed before its rename leaves: a manifest and some
	// of the tools in the staging directory.
	stage := filepath.Join(dir, "bundles", stagePrefix+b.ID.String()+"-123")
	require.NoError(t, os.MkdirAll(filepath.Join(stage, "tools"), 0o750))
	data, err := s.encode(tools[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(stage, "tools", toolFileName(tools[0].Slug, tools[0].Version)), data, 0o600))
	data, err = s.encode(b)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(stage, "bundle.json"), data, 0o600))

	_, err = s.GetBundle(ctx, b.ID)
	assert.ErrorIs(t, err, ErrNotFound)
	list, err := s.ListBundles(ctx, BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(t, err)
	assert.Empty(t, list)
	require.NoError(t, s.Close())

	s2 := openFile(t, dir, nil)
	assert.Empty(t, stagingDirs(t, dir), "Open removes the staging directory")
	assert.Empty(t, s2.Problems())
	require.NoError(t, s2.ImportBundle(ctx, b, tools), "the import can be run again")
	got, err := s2.ListTools(ctx, ToolQuery{BundleIDs: bundleIDsOf(b)})
	require.NoError(t, err)
	assert.Len(t, got, 3)
	assert.Empty(t, stagingDirs(t, dir), "a finished import leaves no staging directory")
}

func bundleIDsOf(bs ...Bundle) []uuid.UUID {
	out := make([]uuid.UUID, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}

// A bundle directory left by a creation cut short (no manifest, no tool)
// does not block an import of that id.
func TestFileStore_ImportOverEmptyLeftoverDirectory(t *testing.T) {
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	b, tools := importRecords(t, 1)
	require.NoError(t, os.MkdirAll(s.toolsDir(b.ID), 0o750))
	require.NoError(t, s.ImportBundle(context.Background(), b, tools))
	got, err := s.GetBundle(context.Background(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, b.Slug, got.Slug)
}

// More tools than MaxToolsPerBundle: ErrLimit, nothing stored.
func TestFileStore_ImportAboveToolCapRefused(t *testing.T) {
	s, err := OpenFileStore(context.Background(), t.TempDir(), FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1, MaxToolsPerBundle: 2})
	require.NoError(t, err)
	defer s.Close()
	b, tools := importRecords(t, 3)
	require.ErrorIs(t, s.ImportBundle(context.Background(), b, tools), ErrLimit)
	_, err = s.GetBundle(context.Background(), b.ID)
	assert.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, s.ImportBundle(context.Background(), b, tools[:2]))
}

// A record too large to store is reported with its place in the import.
func TestFileStore_ImportRecordAboveFileCapNamed(t *testing.T) {
	s, err := OpenFileStore(context.Background(), t.TempDir(), FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1, MaxFileBytes: 2048})
	require.NoError(t, err)
	defer s.Close()
	b, tools := importRecords(t, 2)
	tools[1].Description = strings.Repeat("x", 3000)
	err = s.ImportBundle(context.Background(), b, tools)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "tools[1]", ve.Fields[0].Field)
}

// Importers are killed with SIGKILL mid-import, again and again: after
// every kill the store opens without problems, holds no staging
// directory, and every bundle it shows holds all of its tools.
func TestFileStore_KillNineWhileImporting(t *testing.T) {
	if dir := os.Getenv(envImportKillDir); dir != "" {
		importKillChild(t, dir)
		return
	}
	rounds := envInt(t, envKillRounds, 20)
	ctx := context.Background()
	dir := t.TempDir()
	seen, cut := 0, 0
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFileStore_KillNineWhileImporting$", "-test.count=1")
		cmd.Env = append(os.Environ(), envImportKillDir+"="+dir)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		ready := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(stdout)
			once := false
			for sc.Scan() {
				if !once && sc.Text() == "READY" {
					close(ready)
					once = true
				}
			}
		}()
		select {
		case <-ready:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("round %d: the importer never got going", round)
		}
		time.Sleep(time.Duration(5+rand.IntN(75)) * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()

		cut += len(stagingDirs(t, dir))
		s, err := OpenFileStore(ctx, dir, FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
		require.NoError(t, err, "round %d: the store opens", round)
		require.Empty(t, s.Problems(), "round %d: no partial record", round)
		require.Empty(t, stagingDirs(t, dir), "round %d: staging directories removed", round)
		bundles, err := s.ListBundles(ctx, BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
		require.NoError(t, err)
		for _, b := range bundles {
			tools, err := s.ListTools(ctx, ToolQuery{BundleIDs: bundleIDsOf(b), IncludeDisabled: true, IncludeDeleted: true})
			require.NoError(t, err)
			require.Len(t, tools, importKillTools, "round %d: bundle %s is whole", round, b.ID)
		}
		require.GreaterOrEqual(t, len(bundles), seen, "round %d: no imported bundle lost", round)
		seen = len(bundles)
		require.NoError(t, s.Close())
	}
	t.Logf("%d kills, %d whole bundles imported, %d imports cut short (their staging directories removed)", rounds, seen, cut)
}

const importKillTools = 40

func importKillChild(t *testing.T, dir string) {
	ctx := context.Background()
	s, err := OpenFileStore(ctx, dir, FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	fmt.Println("READY")
	for {
		b, tools := importRecords(t, importKillTools)
		require.NoError(t, s.ImportBundle(ctx, b, tools))
	}
}
