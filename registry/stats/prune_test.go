package stats

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With KeepDays, Prune removes the day files holding nothing newer than
// KeepDays before now, and every Summary leaves out older records — also
// those of a day file that is kept because it holds newer ones.
func TestPrune_KeepDaysRemovesOldFilesAndRecords(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.KeepDays = 2; o.Now = newClock(t0).Now })
	cutoff := t0.Add(-48 * time.Hour) // 2026-11-21 15:30
	recs := []record{
		{time: t0, tool: "a", ok: true},
		{time: t0.Add(-24 * time.Hour), tool: "a", ok: true},
		{time: cutoff, tool: "a", ok: true},                       // kept: not before the cutoff
		{time: cutoff.Add(-time.Nanosecond), tool: "b", ok: true}, // in a kept file, but older
		{time: t0.Add(-72 * time.Hour), tool: "b", ok: true},      // 2026-11-20: its file goes
		{time: t0.Add(-400 * 24 * time.Hour), tool: "b", ok: true},
	}
	_, err := writeBatch(context.Background(), o.Dir, recs, nil, &timeCache{})
	require.NoError(t, err)
	require.Len(t, dayFiles(t, o.Dir), 5)

	s, err := rec.Summary(context.Background(), Query{Period: PeriodAll})
	require.NoError(t, err)
	assert.EqualValues(t, 3, s.TotalCalls, "records older than two days are not counted, even before they are removed")
	require.Len(t, s.Tools, 1)
	assert.Equal(t, "a", s.Tools[0].Tool)

	require.NoError(t, rec.Prune(context.Background()))
	assert.Equal(t, []string{"stats-2026-11-21.jsonl", "stats-2026-11-22.jsonl", "stats-2026-11-23.jsonl"}, dayFiles(t, o.Dir))
	s, err = rec.Summary(context.Background(), Query{Period: PeriodAll})
	require.NoError(t, err)
	assert.EqualValues(t, 3, s.TotalCalls)
	day, err := rec.Summary(context.Background(), Query{Period: PeriodDay})
	require.NoError(t, err)
	assert.EqualValues(t, 2, day.TotalCalls, "a period shorter than the kept days is unchanged")

	// Pruning again (another host, the next hour) finds nothing to do.
	require.NoError(t, rec.Prune(context.Background()))
	assert.Len(t, dayFiles(t, o.Dir), 3)
}

// Without KeepDays nothing is ever removed or left out.
func TestPrune_ZeroKeepsEverything(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.Now = newClock(t0).Now })
	_, err := writeBatch(context.Background(), o.Dir, []record{
		{time: t0, tool: "a", ok: true},
		{time: t0.Add(-10 * 365 * 24 * time.Hour), tool: "a", ok: true},
	}, nil, &timeCache{})
	require.NoError(t, err)
	require.NoError(t, rec.Prune(context.Background()))
	assert.Len(t, dayFiles(t, o.Dir), 2)
	s, err := rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 2, s.TotalCalls)
}

// The flusher prunes on its own: when it starts, and again after a
// Reconfigure that sets KeepDays.
func TestPrune_FlusherPrunesOnItsOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "stats")
	old := []record{{time: time.Now().Add(-30 * 24 * time.Hour), tool: "a", ok: true}}
	_, err := writeBatch(context.Background(), dir, old, nil, &timeCache{})
	require.NoError(t, err)
	rec, err := New(Options{Enabled: true, Dir: dir, FlushInterval: 10 * time.Millisecond, Logger: discard})
	require.NoError(t, err)
	defer func() { _ = rec.Close(context.Background()) }()
	time.Sleep(50 * time.Millisecond)
	require.Len(t, dayFiles(t, dir), 1, "no KeepDays: kept")

	require.NoError(t, rec.Reconfigure(context.Background(), Options{Enabled: true, Dir: dir, FlushInterval: 10 * time.Millisecond, KeepDays: 7}))
	require.Eventually(t, func() bool { return len(dayFiles(t, dir)) == 0 }, 5*time.Second, 10*time.Millisecond,
		"the flusher removes the 30-day-old file once KeepDays is 7")
}

// blockingSink's Prune waits until released (or its context ends), as a
// first prune of a large table does.
type blockingSink struct {
	pruningSink
	started chan struct{}
	release chan struct{}
}

func (s *blockingSink) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	select {
	case s.started <- struct{}{}:
	default:
	}
	select {
	case <-s.release:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return s.pruningSink.Prune(ctx, cutoff)
}

// A long prune holds back no flush: while the Sink's Prune runs, the calls
// recorded meanwhile are written on the flush interval; the prune then
// ends, and Close waits for it.
func TestPrune_LongPruneHoldsBackNoFlush(t *testing.T) {
	sink := &blockingSink{started: make(chan struct{}, 1), release: make(chan struct{})}
	rec, err := New(Options{Enabled: true, Sink: sink, KeepDays: 1, FlushInterval: 10 * time.Millisecond, Logger: discard})
	require.NoError(t, err)
	select {
	case <-sink.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the flusher did not start a prune")
	}
	reg := newRegistry(t, rec)
	for range 3 {
		call(t, reg, "demo_search", "q")
	}
	require.Eventually(t, func() bool {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		return len(sink.recs) == 3
	}, 5*time.Second, 10*time.Millisecond, "the calls are written while the prune runs")
	close(sink.release)
	require.NoError(t, rec.Close(context.Background()))
	assert.NotEmpty(t, sink.cutoffs, "the prune ended")
}

// KeepDays is checked: negative or past MaxKeepDays, or with a Sink that
// cannot remove records, it is refused, named.
func TestOptions_KeepDaysChecked(t *testing.T) {
	dir := t.TempDir()
	for _, days := range []int{-1, MaxKeepDays + 1} {
		_, err := New(Options{Enabled: true, Dir: dir, KeepDays: days})
		require.ErrorIs(t, err, ErrInvalidOptions)
		assert.Contains(t, err.Error(), "KeepDays (stats.keep_days)")
	}
	_, err := New(Options{Enabled: true, Sink: &memSink{}, KeepDays: 3})
	require.ErrorIs(t, err, ErrInvalidOptions)
	assert.Contains(t, err.Error(), "cannot remove old records")
	rec, err := New(Options{Enabled: true, Sink: &pruningSink{}, KeepDays: 3})
	require.NoError(t, err)
	require.NoError(t, rec.Close(context.Background()))
}

// pruningSink is a memSink that is a Pruner.
type pruningSink struct {
	memSink
	cutoffs []time.Time
}

func (s *pruningSink) Prune(_ context.Context, cutoff time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cutoffs = append(s.cutoffs, cutoff)
	kept := s.recs[:0]
	var n int64
	for _, r := range s.recs {
		if r.Time.Before(cutoff) {
			n++
			continue
		}
		kept = append(kept, r)
	}
	s.recs = kept
	return n, nil
}

// With a Sink, Prune hands the cutoff (KeepDays before now) to the Sink's
// Prune, and summaries leave older records out.
func TestPrune_SinkGetsTheCutoff(t *testing.T) {
	sink := &pruningSink{}
	rec, err := New(Options{Enabled: true, Sink: sink, KeepDays: 1, FlushInterval: time.Hour, Now: newClock(t0).Now, Logger: discard})
	require.NoError(t, err)
	defer func() { _ = rec.Close(context.Background()) }()
	require.NoError(t, sink.Append(context.Background(), []Record{
		{Time: t0.Add(-time.Hour), Tool: "a", Success: true},
		{Time: t0.Add(-25 * time.Hour), Tool: "a", Success: true},
	}))
	s, err := rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 1, s.TotalCalls)
	require.NoError(t, rec.Prune(context.Background()))
	require.NotEmpty(t, sink.cutoffs)
	assert.True(t, sink.cutoffs[len(sink.cutoffs)-1].Equal(t0.Add(-24*time.Hour)))
	assert.Len(t, sink.recs, 1)
}
