package results

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file draft whose Commit failed (here its index cannot be renamed
// into place) has dropped itself: its files are closed and no temporary
// file or text of it is left, whether or not Abort is called after it,
// and committing it again is refused.
func TestFileDraft_FailedCommitLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	b := &fileBackend{dir: dir}
	h := "0123456789abcdef0123456789abcdef"
	// A non-empty directory where the index goes: the rename fails.
	require.NoError(t, os.MkdirAll(filepath.Join(b.path(h, extIndex), "x"), 0o700))
	d, err := b.Create(context.Background(), h)
	require.NoError(t, err)
	_, err = d.Text().Write([]byte("one line\n"))
	require.NoError(t, err)
	require.Error(t, d.Commit(context.Background(), make([]byte, headerSize)))

	names := func() []string {
		des, err := os.ReadDir(dir)
		require.NoError(t, err)
		var out []string
		for _, de := range des {
			out = append(out, de.Name())
		}
		return out
	}
	assert.Equal(t, []string{h + extIndex}, names(), "only the blocking directory is left")
	fd := d.(*fileDraft)
	_, err = fd.df.Write([]byte("x"))
	assert.ErrorIs(t, err, os.ErrClosed, "the text's file is closed")
	require.Error(t, d.Commit(context.Background(), make([]byte, headerSize)), "a dropped draft is not committed")
	d.Abort()
	assert.Equal(t, []string{h + extIndex}, names())
}

// A Commit whose context has ended fails and drops the draft.
func TestFileDraft_CommitWithEndedContextFails(t *testing.T) {
	dir := t.TempDir()
	b := &fileBackend{dir: dir}
	d, err := b.Create(context.Background(), "0123456789abcdef0123456789abcdef")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, d.Commit(ctx, make([]byte, headerSize)), context.Canceled)
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, des)
}
