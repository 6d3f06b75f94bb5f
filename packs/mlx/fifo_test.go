//go:build linux

package mlx_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testwait"
)

// A state file or its lock file that is a FIFO (whose open waited for a
// writer for good, a thread parked per call) fails mlx.unload at once
// with an error naming it.
func TestUnload_FIFOStateOrLockFileFailsFast(t *testing.T) {
	for _, name := range []string{"mlx.json", "mlx.json.lock"} {
		t.Run(name, func(t *testing.T) {
			s := newSetup(t)
			require.NoError(t, os.MkdirAll(filepath.Dir(s.state), 0o700))
			require.NoError(t, syscall.Mkfifo(filepath.Join(filepath.Dir(s.state), name), 0o600))
			var err error
			testwait.Returns(t, "mlx.unload", func() {
				_, err = s.reg.Invoke(context.Background(), "mlx.unload", json.RawMessage(`{"port":8100}`))
			})
			require.Error(t, err)
			assert.Contains(t, err.Error(), name+" is not a regular file (a FIFO)")
		})
	}
}
