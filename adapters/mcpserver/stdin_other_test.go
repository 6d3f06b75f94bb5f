//go:build !unix

package mcpserver_test

// stdinNonblocking is false where the transport never changes stdin.
func stdinNonblocking() bool { return false }
