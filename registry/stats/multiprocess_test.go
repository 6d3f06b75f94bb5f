package stats

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// Environment of the child processes of TestStore_ManyProcessesNoInterleaving.
const (
	envChildDir = "STATS_TEST_CHILD_DIR"
	envChildID  = "STATS_TEST_CHILD_ID"
)

// Several processes recording into one directory at once never interleave
// their lines: every record of every process reads back whole. Each child
// writes long lines (a 250-byte error type) in many small flushes, so that
// without the directory lock batches larger than a pipe buffer would be
// appended concurrently.
func TestStore_ManyProcessesNoInterleaving(t *testing.T) {
	if dir := os.Getenv(envChildDir); dir != "" {
		childRecord(t, dir, os.Getenv(envChildID))
		return
	}
	const procs, calls = 4, 1500
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for i := range cmds {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStore_ManyProcessesNoInterleaving$", "-test.count=1")
		cmd.Env = append(os.Environ(), envChildDir+"="+dir, envChildID+"="+strconv.Itoa(i), "STATS_TEST_CHILD_CALLS="+strconv.Itoa(calls))
		outs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "child %d: %s", i, outs[i])
	}
	got, corrupt := readAll(t, dir)
	assert.Zero(t, corrupt, "no line was interleaved or cut")
	per := map[string]int{}
	for _, r := range got {
		per[r.tool]++
		require.Len(t, r.errType, 250, "every line whole")
	}
	for i := range procs {
		assert.Equal(t, calls, per[fmt.Sprintf("proc_%d", i)], "process %d", i)
	}
}

// childRecord is the body of a child process: calls go through a registry
// with the middleware, flushed every 10 calls.
func childRecord(t *testing.T, dir, id string) {
	calls, err := strconv.Atoi(os.Getenv("STATS_TEST_CHILD_CALLS"))
	require.NoError(t, err)
	rec, err := New(Options{Enabled: true, Dir: dir, FlushInterval: MinFlushInterval, Logger: discard})
	require.NoError(t, err)
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discard})
	errType := result.ErrorType(strings.Repeat("e", 250))
	require.NoError(t, reg.Add(&registry.Tool{Name: "proc_" + id, Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
		return result.Failure[any]("failed", errType), nil
	}}))
	reg.Use(rec.Middleware())
	for i := range calls {
		_, err := reg.Invoke(context.Background(), "proc_"+id, nil)
		require.NoError(t, err)
		if i%10 == 9 {
			require.NoError(t, rec.Flush(context.Background()))
		}
	}
	require.NoError(t, rec.Close(context.Background()))
}
