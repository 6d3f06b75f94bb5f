//go:build unix

package stats

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/regfile"
	"github.com/toolpack-go/toolpack/internal/testwait"
)

// A day file that is a FIFO fails the flush at once with an error naming
// it — it used to take the records into a pipe nobody reads (lost), and a
// batch past the pipe's buffer to block holding the directory's lock —
// nothing goes into the pipe, and the records stay buffered: once the
// file is regular again the next flush stores them.
func TestRecorder_FIFODayFileFailsFlushAndKeepsRecords(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.Now = func() time.Time { return t0 } })
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	call(t, reg, "demo_search", "b")
	require.NoError(t, os.MkdirAll(o.Dir, 0o755))
	path := filepath.Join(o.Dir, dayFileName(t0))
	require.NoError(t, syscall.Mkfifo(path, 0o644))
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	require.NoError(t, err)
	defer syscall.Close(fd)

	testwait.Returns(t, "Flush into a FIFO day file", func() { err = rec.Flush(context.Background()) })
	require.ErrorIs(t, err, regfile.ErrNotRegular)
	assert.Contains(t, err.Error(), dayFileName(t0)+" is not a regular file (a FIFO)")
	var buf [1]byte
	n, rerr := syscall.Read(fd, buf[:])
	assert.True(t, n <= 0 && (rerr == nil || errors.Is(rerr, syscall.EAGAIN)), "nothing written into the pipe")

	require.NoError(t, os.Remove(path))
	require.NoError(t, rec.Flush(context.Background()))
	got, _ := readAll(t, o.Dir)
	assert.Len(t, got, 2, "the records were kept for the next flush")
}

// A stats.lock that is a FIFO (gofrs/flock's own open waited for a writer
// for good) fails Flush, Summary and Close at once with an error naming
// it, and the records stay buffered.
func TestRecorder_FIFOLockFileFailsFast(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.Now = func() time.Time { return t0 } })
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	require.NoError(t, os.MkdirAll(o.Dir, 0o755))
	lock := filepath.Join(o.Dir, lockName)
	require.NoError(t, syscall.Mkfifo(lock, 0o644))

	var err error
	testwait.Returns(t, "Flush with a FIFO lock file", func() { err = rec.Flush(context.Background()) })
	require.ErrorIs(t, err, regfile.ErrNotRegular)
	assert.Contains(t, err.Error(), "stats.lock is not a regular file (a FIFO)")
	testwait.Returns(t, "Summary with a FIFO lock file", func() { _, err = rec.Summary(context.Background(), Query{}) })
	require.ErrorIs(t, err, regfile.ErrNotRegular)

	require.NoError(t, os.Remove(lock))
	testwait.Returns(t, "Close", func() { err = rec.Close(context.Background()) })
	require.NoError(t, err)
	got, _ := readAll(t, o.Dir)
	assert.Len(t, got, 1, "the record was kept and written by Close")
}
