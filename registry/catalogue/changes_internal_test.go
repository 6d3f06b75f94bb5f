package catalogue

import (
	"context"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The change log names the bundles each count touched: a watcher gets the
// bundles of the counts it did not write, once each; when a count is
// missing from the log (started afresh, cut short, a change of too many
// bundles, a counter reset) it gets nil, so that everything is read again.
func TestChangeLog_NamesTheBundlesOfForeignCounts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openFile(t, dir, nil)  // writes as another process would
	me := openFile(t, dir, nil) // the watching store
	read := func() []byte {
		raw, err := me.changes.read()
		require.NoError(t, err)
		return raw
	}
	x, y, z := uuid.New(), uuid.New(), uuid.New()
	// touched is what a watcher of me is told: no bundle when the counter
	// moved only by me's own changes.
	touched := func(from, to []byte) []uuid.UUID {
		moved, ids := me.changes.news(from, to)
		if !moved {
			return []uuid.UUID{}
		}
		return ids
	}
	bump := func(st *FileStore, ids ...uuid.UUID) {
		t.Helper()
		require.NoError(t, st.changes.bump(ctx, st.lockFile, ids))
	}

	start := read()
	bump(s, x)
	bump(me, z) // this store's own: not reported
	bump(s, y, x)
	assert.ElementsMatch(t, []uuid.UUID{x, y}, touched(start, read()))

	from := read()
	bump(me, z)
	assert.Equal(t, []uuid.UUID{}, touched(from, read()), "only own counts: none touched elsewhere")

	from = read()
	ids := make([]uuid.UUID, maxLoggedBundles+1)
	for i := range ids {
		ids[i] = uuid.New()
	}
	bump(s, ids...)
	assert.Nil(t, touched(from, read()), "a change of too many bundles is not logged")

	from = read()
	bump(s, x)
	require.NoError(t, os.Truncate(me.changes.logPath(), 0))
	assert.Nil(t, touched(from, read()), "a log started afresh no longer holds the count")

	from = read()
	bump(s, y)
	data, err := os.ReadFile(me.changes.logPath())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(me.changes.logPath(), data[:len(data)-5], 0o640))
	assert.Nil(t, touched(from, read()), "a line cut short is not read")

	require.NoError(t, os.Remove(me.changes.path))
	bump(s, z)
	logged, err := os.ReadFile(me.changes.logPath())
	require.NoError(t, err)
	assert.Equal(t, "00000000000000000001 "+z.String()+"\n", string(logged), "a counter starting again starts the log afresh")
	assert.Nil(t, touched(from, read()), "a count that went back")
}

// The log starts afresh past maxChangesLog bytes, so it stays small
// whatever the number of changes.
func TestChangeLog_StaysBounded(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, t.TempDir(), nil)
	for range 2 * maxChangesLog / 58 {
		require.NoError(t, s.changes.bump(ctx, s.lockFile, []uuid.UUID{uuid.New()}))
	}
	fi, err := os.Stat(s.changes.logPath())
	require.NoError(t, err)
	assert.LessOrEqual(t, fi.Size(), int64(maxChangesLog+58))
}
