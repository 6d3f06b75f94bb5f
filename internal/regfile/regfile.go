// Package regfile opens the files a server expects to be regular files —
// records, counters, logs, lock files under a configured directory —
// without ever waiting on something else put in their place.
//
// os.Open of a FIFO (named pipe) waits until a writer opens it, for good
// when none ever does, and a write into one nobody reads stores nothing
// and blocks once the pipe's buffer is full; a device or a socket is no
// record either. The functions here open with O_NONBLOCK (and O_NOCTTY)
// on Unix, which regular files ignore, then check the type of the file
// actually opened (fstat, so that a FIFO swapped in after a check is
// still caught) and refuse anything but a regular file with an error
// wrapping [ErrNotRegular] that names the file's base name and what it
// is. Symbolic links are followed, as os.Open follows them.
package regfile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file (a FIFO, a socket, a device, a directory).
var ErrNotRegular = errors.New("is not a regular file")

// ErrTooLarge is wrapped by [ReadFile]'s error for a file past its cap.
var ErrTooLarge = errors.New("is larger than the cap")

// notRegular is the error for name, of mode m, that is not a regular file:
// "<base name> is not a regular file (a FIFO)".
func notRegular(name string, m fs.FileMode) error {
	return fmt.Errorf("%s %w (%s)", filepath.Base(name), ErrNotRegular, kind(m))
}

// kind says what a file of mode m is, for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	default:
		return "not a plain file"
	}
}

// Open opens name for reading, as os.Open does, when it is a regular
// file; anything else is refused without waiting (see the package doc).
func Open(name string) (*os.File, error) {
	return OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile is os.OpenFile for a regular file: it never blocks on a FIFO
// or a device, and a path that is not a regular file gives an error
// wrapping ErrNotRegular (a missing one, without os.O_CREATE, the
// os.OpenFile error wrapping fs.ErrNotExist). The file returned reads and
// writes as one os.OpenFile returns.
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|openFlags, perm)
	if err != nil {
		// Opening a socket fails (ENXIO), as does opening a FIFO for
		// writing with no reader or a directory for writing: say what
		// the path is rather than the system's words for it.
		if !errors.Is(err, fs.ErrNotExist) {
			fi, serr := os.Stat(name)
			if serr == nil && !fi.Mode().IsRegular() {
				return nil, notRegular(name, fi.Mode())
			}
			if serr == nil && wouldBlock(err) {
				// A regular file under a lease (Samba oplocks, NFSv4
				// delegations): O_NONBLOCK made the open fail rather
				// than wait for the lease to break, as a plain open
				// does. It is regular: open it so.
				f, err = os.OpenFile(name, flag|openFlags&^nonBlock, perm)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, notRegular(name, fi.Mode())
	}
	return f, nil
}

// ReadFile reads the whole of the regular file name, of at most max bytes:
// a larger one gives an error wrapping ErrTooLarge (only max+1 bytes are
// read), anything but a regular file one wrapping ErrNotRegular.
func ReadFile(name string, max int64) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s %w of %d bytes", filepath.Base(name), ErrTooLarge, max)
	}
	return data, nil
}

// Lock takes the flock (github.com/gofrs/flock: flock(2) on Unix,
// LockFileEx on Windows) of the lock file path, created with perm when
// missing: shared or exclusive, waiting as long as ctx allows (retrying
// every retry; a ctx that is never done waits in the system call). The
// caller Unlocks the lock returned.
//
// The lock file is opened as OpenFile opens, so that a FIFO in its place
// never blocks, and once locked it is checked: a lock file that is not a
// regular file is unlocked and refused with an error wrapping
// ErrNotRegular. A ctx done first gives ctx.Err().
func Lock(ctx context.Context, path string, perm fs.FileMode, shared bool, retry time.Duration) (*flock.Flock, error) {
	l := flock.New(path, flock.SetFlag(lockFlags), flock.SetPermissions(perm))
	var ok bool
	var err error
	switch {
	case ctx.Done() == nil && shared:
		err, ok = l.RLock(), true
	case ctx.Done() == nil:
		err, ok = l.Lock(), true
	case shared:
		ok, err = l.TryRLockContext(ctx, retry)
	default:
		ok, err = l.TryLockContext(ctx, retry)
	}
	if err == nil && !ok {
		err = cmp.Or(ctx.Err(), context.Canceled)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ctx.Err()) {
			if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
				return nil, notRegular(path, fi.Mode())
			}
		}
		return nil, err
	}
	fi, err := l.Stat() // of the file held open
	if err == nil && !fi.Mode().IsRegular() {
		err = notRegular(path, fi.Mode())
	}
	if err != nil {
		_ = l.Unlock()
		return nil, err
	}
	return l, nil
}
