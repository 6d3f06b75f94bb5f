package catalogue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Environment of the child processes of TestFileStore_PageTokenKeyMultiProcess.
const (
	envKeyDir   = "CATALOGUE_TEST_KEY_DIR"
	envKeyStart = "CATALOGUE_TEST_KEY_START"
)

// A key file that is not a key is ErrCorrupt, named by its path; it is
// left as it is, and its content is never put in the error.
func TestFileStore_PageTokenKeyCorruptFileRefused(t *testing.T) {
	dir := t.TempDir()
	s := openFile(t, dir, nil)
	path := filepath.Join(dir, "pagetoken.key")
	for _, content := range []string{"zz-not-hex-s3cr3t\n", strings.Repeat("ab", PageTokenKeyBytes-1) + "\n", ""} {
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		_, err := s.PageTokenKey(context.Background())
		require.ErrorIs(t, err, ErrCorrupt, "%q", content)
		assert.ErrorContains(t, err, path)
		assert.ErrorContains(t, err, "expected at least 64 hexadecimal digits")
		if content != "" {
			assert.NotContains(t, err.Error(), strings.TrimSpace(content))
		}
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, content, string(got), "the file is left as it is")
	}
}

// Processes started together on a fresh directory all read the one key
// the first of them made (the flock and the whole-file write).
func TestFileStore_PageTokenKeyMultiProcess(t *testing.T) {
	if dir := os.Getenv(envKeyDir); dir != "" {
		keyChild(t, dir)
		return
	}
	const procs = 6
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	start := filepath.Join(t.TempDir(), "start")
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for i := range cmds {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFileStore_PageTokenKeyMultiProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), envKeyDir+"="+dir, envKeyStart+"="+start)
		outs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	require.NoError(t, os.WriteFile(start, nil, 0o600))
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "child %d:\n%s", i, outs[i])
	}
	key, err := openFile(t, dir, nil).PageTokenKey(context.Background())
	require.NoError(t, err)
	want := fmt.Sprintf("KEY %x", sha256.Sum256(key))
	for i, out := range outs {
		assert.Contains(t, out.String(), want, "child %d read the one key", i)
	}
}

// keyChild waits for the start signal, then asks for the key and prints
// its digest (not the key).
func keyChild(t *testing.T, dir string) {
	s, err := OpenFileStore(context.Background(), dir, FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	defer s.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(os.Getenv(envKeyStart)); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "start signal never came")
		time.Sleep(time.Millisecond)
	}
	key, err := s.PageTokenKey(context.Background())
	require.NoError(t, err)
	sum := sha256.Sum256(key)
	fmt.Printf("KEY %s\n", hex.EncodeToString(sum[:]))
}
