package stats

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A write cut short (a full disk) is rolled back, so that the batch,
// kept to be written again, is not stored twice. The limit on file size
// (RLIMIT_FSIZE) makes the write fail part-way, in a child process since
// the limit is the process's.
func TestAppendFile_FailedWriteRolledBack(t *testing.T) {
	if path := os.Getenv("STATS_FSIZE_CHILD"); path != "" {
		limit, _ := strconv.ParseUint(os.Getenv("STATS_FSIZE_LIMIT"), 10, 64)
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}))
		data := make([]byte, 0, 4096)
		for i := range 100 {
			data = append(data, []byte("line "+strconv.Itoa(i)+" of a batch that does not fit\n")...)
		}
		kept, err := appendFile(path, data)
		require.Error(t, err, "the write passes the limit")
		assert.Zero(t, kept, "rolled back")
		return
	}
	path := filepath.Join(t.TempDir(), dayFileName(time.Now()))
	require.NoError(t, os.WriteFile(path, []byte("{\"earlier\":1}\n"), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestAppendFile_FailedWriteRolledBack$", "-test.count=1")
	cmd.Env = append(os.Environ(), "STATS_FSIZE_CHILD="+path, "STATS_FSIZE_LIMIT=1000")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "{\"earlier\":1}\n", string(got), "nothing of the failed write stays")
}
