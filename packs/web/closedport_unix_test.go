//go:build unix

package web_test

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// closedPort returns a loopback port that refuses connections for the
// whole test: a socket bound to it that does not listen. A port merely
// listened on and closed could be taken meanwhile by another test's
// server (the suite starts many), which would then answer, or not.
func closedPort(t *testing.T) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Close(fd) })
	require.NoError(t, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	require.NoError(t, err)
	return sa.(*syscall.SockaddrInet4).Port
}
