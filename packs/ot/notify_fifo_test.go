//go:build unix

package ot_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testwait"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/result"
)

// openReader opens the FIFO at name for reading without waiting for a
// writer, so that what a call wrote into it can be read back.
func openReader(t *testing.T, name string) *os.File {
	t.Helper()
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	require.NoError(t, err)
	r := os.NewFile(uintptr(fd), name)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// pipeEmpty reports whether nothing was written into the FIFO r reads.
func pipeEmpty(t *testing.T, r *os.File) bool {
	t.Helper()
	var buf [1]byte
	n, err := syscall.Read(int(r.Fd()), buf[:])
	return n <= 0 && (err == nil || errors.Is(err, syscall.EAGAIN))
}

// A notification file that is a FIFO is refused with write_error at once
// — a small message used to "store" into a pipe nobody reads (ok, data
// lost), one past the pipe's buffer to block for good holding the topic's
// lock — and nothing goes into the pipe; once it is a regular file again,
// notify works.
func TestNotify_FIFONotificationFileRefusedWithWriteError(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.yaml")
	require.NoError(t, syscall.Mkfifo(notes, 0o644))
	r := openReader(t, notes)
	f := newFixture(t, func(f *fixture, _ *ot.Config) { f.topics = []ot.Topic{{Pattern: "*", File: notes}} })
	for _, msg := range []string{"short", strings.Repeat("é", 60000)} {
		var res result.Result[string]
		testwait.Returns(t, "ot.notify into a FIFO", func() {
			res = f.call(t, "ot.notify", `{"topic":"notes","message":"`+msg+`"}`)
		})
		require.False(t, res.Success, "a FIFO is no notification file")
		assert.Equal(t, ot.ErrTypeWrite, res.ErrorType)
		assert.Contains(t, res.Error, "notes.yaml is not a regular file (a FIFO); nothing was written")
		assert.True(t, pipeEmpty(t, r), "nothing written into the pipe")
	}
	require.NoError(t, os.Remove(notes))
	f.ok(t, "ot.notify", `{"topic":"notes","message":"now stored"}`)
	assert.Equal(t, "now stored", readDocuments(t, notes)[0]["message"])
}

// A lock file beside the notification file that is a FIFO (gofrs/flock's
// own open waited for a writer for good, parking an OS thread per call
// until the server passed its thread limit) is refused with write_error
// at once, and the notification file is not written.
func TestNotify_FIFOLockFileRefusedWithWriteError(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.yaml")
	require.NoError(t, syscall.Mkfifo(notes+".lock", 0o644))
	f := newFixture(t, func(f *fixture, _ *ot.Config) { f.topics = []ot.Topic{{Pattern: "*", File: notes}} })
	for range 3 {
		var res result.Result[string]
		testwait.Returns(t, "ot.notify with a FIFO lock file", func() {
			res = f.call(t, "ot.notify", `{"topic":"notes","message":"m"}`)
		})
		require.False(t, res.Success)
		assert.Equal(t, ot.ErrTypeWrite, res.ErrorType)
		assert.Contains(t, res.Error, "notes.yaml.lock is not a regular file (a FIFO)")
	}
	_, err := os.Stat(notes)
	assert.True(t, os.IsNotExist(err), "the notification file is not written")
}

// A topic muted with a link to the null device takes messages and keeps
// nothing, as before special files were refused; another device is
// refused.
func TestNotify_TopicLinkedToTheNullDeviceIsMuted(t *testing.T) {
	dir := t.TempDir()
	muted := filepath.Join(dir, "muted.yaml")
	require.NoError(t, os.Symlink(os.DevNull, muted))
	zero := filepath.Join(dir, "zero.yaml")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.topics = []ot.Topic{{Pattern: "muted*", File: muted}, {Pattern: "zero*", File: zero}}
	})
	res := f.call(t, "ot.notify", `{"topic":"muted","message":"m"}`)
	require.True(t, res.Success, "%s: %s", res.ErrorType, res.Error)
	_, err := os.Stat(muted + ".lock")
	assert.ErrorIs(t, err, os.ErrNotExist, "no lock file for a muted topic")
	res = f.call(t, "ot.notify", `{"topic":"zero","message":"m"}`)
	require.False(t, res.Success)
	assert.Contains(t, res.Error, "a character device")
}
