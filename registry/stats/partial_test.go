package stats

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A batch across midnight whose second day's file cannot be written says
// how many records it stored (the first day's), so that only the others
// are written again: no call is counted twice.
func TestWriteBatch_FailedDayReportsWhatWasStored(t *testing.T) {
	dir := t.TempDir()
	day1 := time.Date(2026, 11, 28, 23, 59, 0, 0, time.UTC)
	day2 := day1.Add(2 * time.Minute)
	require.NoError(t, os.Mkdir(filepath.Join(dir, dayFileName(day2)), 0o755)) // no file can be made there
	recs := []record{{time: day1, tool: "a", ok: true}, {time: day1, tool: "b", ok: true}, {time: day2, tool: "c", ok: true}}
	_, err := writeBatch(context.Background(), dir, recs, nil, &timeCache{})
	require.Error(t, err)
	we, ok := errors.AsType[*writtenError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, 2, we.written, "the first day's two records are stored")
	stored, corrupt := readAll(t, dir)
	assert.Len(t, stored, 2)
	assert.Zero(t, corrupt)
}
