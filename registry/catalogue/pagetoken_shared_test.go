package catalogue_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/storetest"
)

// The file store's page token key is made once and then the same for
// every FileStore on the directory (goroutines of two stores asking at
// once included) and after a reopen: 32 bytes, kept in a 0600 file. A
// store on another directory has a key of its own.
func TestFileStore_PageTokenKeyMadeOnceSharedAndKept(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openFileStore(t, dir), openFileStore(t, dir)
	first := storetest.SharedPageTokenKey(t, a, b)
	fi, err := os.Stat(filepath.Join(dir, "pagetoken.key"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the key file is readable by its owner only")

	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	again := openFileStore(t, dir)
	key, err := again.PageTokenKey(ctx)
	require.NoError(t, err)
	assert.Equal(t, first, key, "the key outlives a restart")

	other, err := openFileStore(t, t.TempDir()).PageTokenKey(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, first, other, "another directory, another key")

	require.NoError(t, again.Close())
	_, err = again.PageTokenKey(ctx)
	assert.ErrorIs(t, err, catalogue.ErrClosed)
}

// openFileStore opens a file store on dir, closed with the test.
func openFileStore(t *testing.T, dir string) *catalogue.FileStore {
	t.Helper()
	s, err := catalogue.OpenFileStore(context.Background(), dir, catalogue.FileOptions{Logger: slog.New(slog.DiscardHandler), FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}
