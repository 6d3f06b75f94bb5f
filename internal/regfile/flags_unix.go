//go:build unix

package regfile

import (
	"errors"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// openFlags are added to every open: O_NONBLOCK, so that opening a FIFO
// returns at once (regular files ignore it), and O_NOCTTY, so that opening
// a terminal device never makes it the process's controlling terminal.
const openFlags = unix.O_NONBLOCK | unix.O_NOCTTY

// nonBlock is the flag of openFlags a regular file under a lease is opened
// again without.
const nonBlock = unix.O_NONBLOCK

// wouldBlock reports whether an open failed for O_NONBLOCK (EAGAIN).
func wouldBlock(err error) bool { return errors.Is(err, unix.EAGAIN) }

// lockFlags open a lock file as gofrs/flock does (created when missing,
// read-only; read-write where the system locks only files open for
// writing), with openFlags.
var lockFlags = func() int {
	f := os.O_CREATE | os.O_RDONLY
	switch runtime.GOOS {
	case "aix", "solaris", "illumos":
		f = os.O_CREATE | os.O_RDWR
	}
	return f | openFlags
}()
