//go:build !unix

package mcp_test

// stdinNonblocking is false where the transport never changes stdin.
func stdinNonblocking() bool { return false }
