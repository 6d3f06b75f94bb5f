//go:build unix

package results_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/results"
)

// A handle whose output expired answers "expired" for as long as its
// tombstone is kept, even while sweeps run at once with the removals
// (two servers on one directory): a sweep never takes a tombstone being
// written for a damaged one and deletes it, which turned "expired" into
// "not found".
func TestStore_ExpiredNeverTurnsNotFoundUnderSweeps(t *testing.T) {
	st := openStore(t, results.Options{TTL: 150 * time.Millisecond, SweepInterval: time.Millisecond})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s := put(t, st, numbered(20))
			expired := false
			for range 40 {
				_, err := st.Query(context.Background(), defaults(s.Handle))
				switch {
				case err == nil:
					assert.False(t, expired, "served after it expired")
				case errors.Is(err, results.ErrExpired):
					expired = true
				default:
					assert.NoError(t, err, "only served or expired")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	wg.Wait()
}

// A damaged tombstone (empty, as a writer cut short leaves it) is kept
// while it is young — a writer may still be at it — and removed by a
// sweep once it is old.
func TestStore_DamagedTombstoneRemovedOnlyWhenOld(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	gone := filepath.Join(dir, "0123456789abcdef0123456789abcdef.gone")
	require.NoError(t, os.WriteFile(gone, nil, 0o600))
	st := openStore(t, results.Options{Dir: dir, Now: clk.Now, SweepInterval: time.Millisecond})
	marker := put(t, st, numbered(3)) // swept once expired: shows that sweeps ran
	clk.Advance(2 * time.Minute)      // past nothing: the default TTL is longer
	time.Sleep(100 * time.Millisecond)
	assert.FileExists(t, gone, "young: kept through many sweeps")
	clk.Advance(48 * time.Hour)
	require.Eventually(t, func() bool {
		_, err := os.Stat(gone)
		return os.IsNotExist(err)
	}, 10*time.Second, time.Millisecond, "old and damaged: removed")
	_, err := st.Query(t.Context(), defaults(marker.Handle))
	assert.ErrorIs(t, err, results.ErrExpired)
}

// A directory or a FIFO where an output's file belongs is a damaged
// output, answered at once: opening a FIFO blocked the query, and the
// background sweep with it, until some writer opened it.
func TestStore_NonRegularFilesAreDamagedNotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, results.Options{Dir: dir})
	s := put(t, st, numbered(5))
	idx := filepath.Join(dir, s.Handle+".idx")
	require.NoError(t, os.Remove(idx))
	require.NoError(t, syscall.Mkfifo(idx, 0o600))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := st.Query(ctx, defaults(s.Handle))
	require.ErrorIs(t, err, results.ErrCorrupt)

	d := put(t, st, numbered(5))
	out := filepath.Join(dir, d.Handle+".out")
	require.NoError(t, os.Remove(out))
	require.NoError(t, os.Mkdir(out, 0o700))
	_, err = st.Query(ctx, defaults(d.Handle))
	require.ErrorIs(t, err, results.ErrCorrupt)

	// The sweeps of a store on the directory go on past the FIFO: an
	// expired output is removed.
	clk := newClock()
	sweeping := openStore(t, results.Options{Dir: dir, Now: clk.Now, TTL: time.Minute, SweepInterval: time.Millisecond})
	e := put(t, sweeping, numbered(5))
	clk.Advance(2 * time.Minute)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, e.Handle+".out"))
		return os.IsNotExist(err)
	}, 10*time.Second, time.Millisecond)
}
