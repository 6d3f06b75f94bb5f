package regfile_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolpack-go/toolpack/internal/regfile"
)

// A regular file under a read lease (Samba oplocks, NFSv4 delegations
// take them) is opened for writing as a plain open does, once the lease
// holder gives it up: O_NONBLOCK alone made the open fail with EAGAIN.
func TestOpenFile_LeasedRegularFileWaitsForTheLeaseLikeAPlainOpen(t *testing.T) {
	name := filepath.Join(t.TempDir(), "leased.yaml")
	require.NoError(t, os.WriteFile(name, []byte("a: 1\n"), 0o600))
	holder, err := os.Open(name)
	require.NoError(t, err)
	defer holder.Close()
	if _, err := unix.FcntlInt(holder.Fd(), unix.F_SETLEASE, unix.F_RDLCK); err != nil {
		t.Skipf("cannot take a lease here: %v", err)
	}
	// The lease holder gives the lease up when told (SIGIO), as a
	// Samba or NFS server does; here, after a moment.
	go func() {
		time.Sleep(100 * time.Millisecond)
		_, _ = unix.FcntlInt(holder.Fd(), unix.F_SETLEASE, unix.F_UNLCK)
	}()
	f, err := regfile.OpenFile(name, os.O_RDWR|os.O_APPEND, 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
