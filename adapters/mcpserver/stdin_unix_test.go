//go:build unix

package mcpserver_test

import "syscall"

// stdinNonblocking reports whether stdin's open file is in non-blocking
// mode.
func stdinNonblocking() bool {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 0, syscall.F_GETFL, 0)
	return errno == 0 && flags&syscall.O_NONBLOCK != 0
}
