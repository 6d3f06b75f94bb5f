//go:build !unix

package web_test

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// closedPort returns a loopback port nothing listens on (here: listened
// on and closed, so another process could take it meanwhile).
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}
