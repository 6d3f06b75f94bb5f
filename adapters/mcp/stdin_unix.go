//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// pollableStdin returns a duplicate of stdin in non-blocking mode, which
// the Go runtime's poller waits on (so that a read deadline interrupts a
// pending read), and restore, which puts stdin back in blocking mode; call
// restore once reading has stopped, then close f. ok is false, and stdin is
// left untouched, unless stdin is a pipe or a socket that is not also
// stdout: the blocking mode belongs to the open file, which a terminal
// shares with the shell and an inetd-style socket shares with stdout
// (whose writes are not polled).
func pollableStdin() (f *os.File, restore func(), ok bool) {
	var in, out syscall.Stat_t
	if err := syscall.Fstat(0, &in); err != nil {
		return nil, nil, false
	}
	if m := in.Mode & syscall.S_IFMT; m != syscall.S_IFIFO && m != syscall.S_IFSOCK {
		return nil, nil, false
	}
	if err := syscall.Fstat(1, &out); err == nil && out.Dev == in.Dev && out.Ino == in.Ino {
		return nil, nil, false
	}
	fd, err := syscall.Dup(0)
	if err != nil {
		return nil, nil, false
	}
	syscall.CloseOnExec(fd)
	// O_NONBLOCK is a property of the open file, which fd shares with
	// stdin: both are non-blocking until restore.
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return nil, nil, false
	}
	// os.NewFile sees the non-blocking mode and registers fd with the
	// runtime poller.
	return os.NewFile(uintptr(fd), "/dev/stdin"), func() { _ = syscall.SetNonblock(0, false) }, true
}
