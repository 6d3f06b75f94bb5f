//go:build unix

package regfile_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/regfile"
	"github.com/toolpack-go/toolpack/internal/testwait"
)

// A regular file opens, reads and writes as with os.OpenFile; O_CREATE
// creates a missing one; a missing one without it is fs.ErrNotExist.
func TestOpenFile_RegularFileOpensAsOSOpenFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a.log")
	f, err := regfile.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = f.Write([]byte("one\n"))
	require.NoError(t, err)
	_, err = f.Write([]byte("two\n"))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	data, err := regfile.ReadFile(name, 100)
	require.NoError(t, err)
	assert.Equal(t, "one\ntwo\n", string(data))

	_, err = regfile.Open(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.NotErrorIs(t, err, regfile.ErrNotRegular)
}

// ReadFile refuses a file past its cap, reading no more than the cap and
// one byte.
func TestReadFile_PastTheCapIsRefused(t *testing.T) {
	name := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(name, make([]byte, 11), 0o600))
	_, err := regfile.ReadFile(name, 10)
	require.ErrorIs(t, err, regfile.ErrTooLarge)
	assert.Equal(t, "big.json is larger than the cap of 10 bytes", err.Error())
	data, err := regfile.ReadFile(name, 11)
	require.NoError(t, err)
	assert.Len(t, data, 11)
}

// mkfifo makes a FIFO at name, skipping the test where there are none.
func mkfifo(t *testing.T, name string) {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no FIFOs on " + runtime.GOOS)
	}
	require.NoError(t, syscall.Mkfifo(name, 0o644))
}

// A FIFO where a regular file is expected is refused at once — for
// reading, for appending (a pipe nobody reads), for writing only (no
// reader) and with O_CREATE — naming its base name and what it is, never
// the directory it is in.
func TestOpenFile_FIFOIsRefusedWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "notify.yaml")
	mkfifo(t, name)
	for _, flag := range []int{os.O_RDONLY, os.O_RDWR | os.O_APPEND | os.O_CREATE, os.O_WRONLY | os.O_APPEND, os.O_WRONLY | os.O_CREATE | os.O_TRUNC} {
		var err error
		testwait.Returns(t, "OpenFile of a FIFO", func() {
			var f *os.File
			f, err = regfile.OpenFile(name, flag, 0o644)
			if f != nil {
				_ = f.Close()
			}
		})
		require.ErrorIs(t, err, regfile.ErrNotRegular, "flag %#x", flag)
		assert.Equal(t, "notify.yaml is not a regular file (a FIFO)", err.Error())
	}
	var err error
	testwait.Returns(t, "ReadFile of a FIFO", func() { _, err = regfile.ReadFile(name, 1<<20) })
	assert.ErrorIs(t, err, regfile.ErrNotRegular)
}

// A directory, a Unix socket and a device are refused too.
func TestOpenFile_DirectorySocketAndDeviceAreRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := regfile.Open(dir)
	require.ErrorIs(t, err, regfile.ErrNotRegular)
	assert.Contains(t, err.Error(), "(a directory)")
	_, err = regfile.OpenFile(dir, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	require.ErrorIs(t, err, regfile.ErrNotRegular)

	if runtime.GOOS == "windows" {
		t.Skip("no Unix sockets or /dev/null as a path here")
	}
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	_, err = regfile.OpenFile(sock, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	require.ErrorIs(t, err, regfile.ErrNotRegular)
	assert.Equal(t, "s.sock is not a regular file (a socket)", err.Error())

	_, err = regfile.OpenFile(os.DevNull, os.O_RDWR|os.O_APPEND, 0)
	require.ErrorIs(t, err, regfile.ErrNotRegular)
	assert.Contains(t, err.Error(), "(a character device)")
}

// Lock takes an exclusive lock other lockers wait for, and a shared one.
func TestLock_ExclusiveAndShared(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.lock")
	ctx := t.Context()
	l, err := regfile.Lock(ctx, name, 0o600, false, time.Millisecond)
	require.NoError(t, err)
	fi, err := os.Stat(name)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())

	short, cancel := context.WithCancel(ctx)
	cancel()
	_, err = regfile.Lock(short, name, 0o600, false, time.Millisecond)
	require.ErrorIs(t, err, context.Canceled, "the exclusive lock is held")
	require.NoError(t, l.Unlock())

	r1, err := regfile.Lock(ctx, name, 0o600, true, time.Millisecond)
	require.NoError(t, err)
	r2, err := regfile.Lock(context.Background(), name, 0o600, true, time.Millisecond)
	require.NoError(t, err)
	require.NoError(t, r1.Unlock())
	require.NoError(t, r2.Unlock())
	l, err = regfile.Lock(context.Background(), name, 0o600, false, time.Millisecond)
	require.NoError(t, err)
	require.NoError(t, l.Unlock())
}

// A lock file that is a FIFO (gofrs/flock's own open would wait for a
// writer for good, parking a thread per call) is refused at once, with
// and without a deadline, shared and exclusive.
func TestLock_FIFOLockFileIsRefusedWithoutBlocking(t *testing.T) {
	name := filepath.Join(t.TempDir(), "stats.lock")
	mkfifo(t, name)
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	for _, c := range []context.Context{ctx, context.Background()} {
		for _, shared := range []bool{false, true} {
			var err error
			testwait.Returns(t, "Lock of a FIFO", func() {
				var l interface{ Unlock() error }
				l, err = regfile.Lock(c, name, 0o600, shared, time.Millisecond)
				if err == nil {
					_ = l.Unlock()
				}
			})
			require.ErrorIs(t, err, regfile.ErrNotRegular)
			assert.Equal(t, "stats.lock is not a regular file (a FIFO)", err.Error())
		}
	}
}

// Property: whatever is at the path — nothing, a regular file, a FIFO, a
// directory — OpenFile returns without waiting, and either a regular file
// or an error wrapping ErrNotRegular (or fs.ErrNotExist for nothing
// without O_CREATE).
func TestOpenFile_AnyKindReturnsRegularOrRefuses(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs on windows")
	}
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		name := filepath.Join(dir, rapid.StringMatching(`[a-z]{1,8}`).Draw(rt, "name"))
		_ = os.RemoveAll(name)
		what := rapid.SampledFrom([]string{"none", "regular", "fifo", "dir"}).Draw(rt, "what")
		switch what {
		case "regular":
			require.NoError(rt, os.WriteFile(name, []byte("x"), 0o600))
		case "fifo":
			require.NoError(rt, syscall.Mkfifo(name, 0o600))
		case "dir":
			require.NoError(rt, os.Mkdir(name, 0o700))
		}
		flag := rapid.SampledFrom([]int{os.O_RDONLY, os.O_RDWR, os.O_WRONLY, os.O_RDWR | os.O_CREATE | os.O_APPEND, os.O_WRONLY | os.O_CREATE}).Draw(rt, "flag")
		done := make(chan struct{})
		var f *os.File
		var err error
		go func() {
			defer close(done)
			f, err = regfile.OpenFile(name, flag, 0o600)
		}()
		select {
		case <-done:
		case <-time.After(testwait.HangGuard):
			rt.Fatalf("OpenFile of %s (%#x) did not return", what, flag)
		}
		switch {
		case what == "regular" || what == "none" && flag&os.O_CREATE != 0:
			require.NoError(rt, err)
			fi, serr := f.Stat()
			require.NoError(rt, serr)
			assert.True(rt, fi.Mode().IsRegular())
			require.NoError(rt, f.Close())
		case what == "none":
			assert.True(rt, errors.Is(err, fs.ErrNotExist), "%v", err)
		default:
			assert.ErrorIs(rt, err, regfile.ErrNotRegular)
			assert.Nil(rt, f)
		}
	})
}
