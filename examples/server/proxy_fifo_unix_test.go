//go:build unix

package main

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A -proxy file that is a FIFO is a usage error at once: its open used to
// wait for a writer, and the server never started.
func TestReadProxyFile_FIFORefusedAtOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "proxy.json")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	done := make(chan error, 1)
	go func() { _, err := readProxyFile(p); done <- err }()
	select {
	case err := <-done:
		require.ErrorIs(t, err, errUsage)
		assert.Contains(t, err.Error(), "is not a regular file")
	case <-time.After(10 * time.Second):
		t.Fatal("readProxyFile waited on a FIFO")
	}
}
