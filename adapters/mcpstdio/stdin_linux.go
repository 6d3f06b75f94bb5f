//go:build linux

package mcpstdio

import (
	"os"
	"syscall"
)

// pollableStdin returns stdin as a file the Go runtime's poller waits on,
// so that the session reads it without a goroutine in between and a read
// deadline interrupts a pending read. Call restore (when non-nil) once
// reading has stopped, then close f. ok is false, and stdin is left as it
// is, unless stdin is a pipe or a socket that is not also stdout or stderr.
//
//   - A pipe is opened again through /proc/self/fd/0 in non-blocking mode:
//     a new open file on the same pipe, so stdin's own open file (which the
//     parent or a child may share) is never changed, and there is nothing
//     to restore, even if the process dies.
//   - A socket (what Node.js-based MCP hosts give their servers) cannot be
//     opened again: a duplicate is switched to non-blocking mode, which
//     changes stdin's open file too, and restore switches it back when the
//     session ends. A process killed before that leaves the socket
//     non-blocking for whoever else holds it (usually nobody: the host has
//     the other end).
func pollableStdin() (f *os.File, restore func(), ok bool) {
	in, ok := pollableStdinStat()
	if !ok {
		return nil, nil, false
	}
	if in.Mode&syscall.S_IFMT == syscall.S_IFIFO {
		// O_NONBLOCK: os.OpenFile then registers the file with the poller.
		// (Never call f.Fd: it would put f in blocking mode for good.)
		if f, err := os.OpenFile("/proc/self/fd/0", os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			if fi, err := f.Stat(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Dev == in.Dev && st.Ino == in.Ino {
					return f, nil, true
				}
			}
			_ = f.Close()
		}
	}
	return sharedNonblockingStdin()
}

// pollableStdinStat returns stdin's file status when stdin is a pipe or a
// socket that is not the same file as stdout or stderr (whose writes are
// not polled, and would fail if the file became non-blocking).
func pollableStdinStat() (in syscall.Stat_t, ok bool) {
	if err := syscall.Fstat(0, &in); err != nil {
		return in, false
	}
	if m := in.Mode & syscall.S_IFMT; m != syscall.S_IFIFO && m != syscall.S_IFSOCK {
		return in, false
	}
	for _, fd := range []int{1, 2} {
		var out syscall.Stat_t
		if err := syscall.Fstat(fd, &out); err == nil && out.Dev == in.Dev && out.Ino == in.Ino {
			return in, false
		}
	}
	return in, true
}

// sharedNonblockingStdin returns a duplicate of stdin in non-blocking mode.
// The mode belongs to the open file, which the duplicate shares with
// stdin; restore puts it back as it was (blocking, unless it already was
// non-blocking before).
func sharedNonblockingStdin() (f *os.File, restore func(), ok bool) {
	fd, err := syscall.Dup(0)
	if err != nil {
		return nil, nil, false
	}
	syscall.CloseOnExec(fd)
	flags, err := fcntlGetFlags(fd)
	if err != nil {
		_ = syscall.Close(fd)
		return nil, nil, false
	}
	restore = func() {}
	if flags&syscall.O_NONBLOCK == 0 {
		if err := syscall.SetNonblock(fd, true); err != nil {
			_ = syscall.Close(fd)
			return nil, nil, false
		}
		restore = func() { _ = syscall.SetNonblock(0, false) }
	}
	// os.NewFile sees the non-blocking mode and registers fd with the
	// runtime poller.
	return os.NewFile(uintptr(fd), "/dev/stdin"), restore, true
}

func fcntlGetFlags(fd int) (int, error) {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(flags), nil
}
