package stats

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// memSink is a Sink in memory, for the tests of the Sink path.
type memSink struct {
	mu   sync.Mutex
	recs []Record
}

func (m *memSink) Append(_ context.Context, recs []Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, recs...)
	return nil
}

func (m *memSink) Records(_ context.Context, q RecordQuery, fn func(Record)) (bool, error) {
	m.mu.Lock()
	all := slices.Clone(m.recs)
	m.mu.Unlock()
	slices.SortStableFunc(all, func(a, b Record) int { return b.Time.Compare(a.Time) })
	var n int64
	for _, r := range all {
		if (!q.Since.IsZero() && r.Time.Before(q.Since)) || (q.Tool != "" && r.Tool != q.Tool) {
			continue
		}
		if n == q.Limit {
			return true, nil
		}
		n++
		fn(r)
	}
	return false, nil
}

// aggSink is a memSink that folds a summary itself (an Aggregator), by the
// definitions Aggregate documents, so that the Recorder's use of an
// Aggregator is tested without a database.
type aggSink struct{ memSink }

func (m *aggSink) Aggregate(_ context.Context, q AggregateQuery) (Aggregate, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out Aggregate
	tools := map[string]*ToolAggregate{}
	latest := map[string]time.Time{}
	durs := map[string][]time.Duration{}
	units := map[time.Time]*UnitAggregate{}
	for _, r := range m.recs {
		if (!q.Since.IsZero() && r.Time.Before(q.Since)) || (q.Tool != "" && r.Tool != q.Tool) {
			continue
		}
		t := tools[r.Tool]
		if t == nil {
			t = &ToolAggregate{Tool: r.Tool}
			tools[r.Tool] = t
		}
		t.Calls++
		t.Duration += r.Duration
		t.BytesIn += r.BytesIn
		t.BytesOut += r.BytesOut
		durs[r.Tool] = append(durs[r.Tool], r.Duration)
		if !r.Time.Before(latest[r.Tool]) {
			latest[r.Tool], t.Pack = r.Time, r.Pack
		}
		start := time.Unix(r.Time.Unix()/int64(q.Unit/time.Second)*int64(q.Unit/time.Second), 0).UTC()
		u := units[start]
		if u == nil {
			u = &UnitAggregate{Start: start}
			units[start] = u
		}
		u.Calls++
		if r.Success {
			t.Successes++
		} else {
			u.Failures++
			if t.Errors == nil {
				t.Errors = map[string]int64{}
			}
			t.Errors[failureType(false, r.ErrorType)]++
		}
		if out.First.IsZero() || r.Time.Before(out.First) {
			out.First = r.Time
		}
	}
	for name, t := range tools {
		d := durs[name]
		slices.Sort(d)
		rank := func(p int64) time.Duration { return d[max((t.Calls*p+99)/100, 1)-1] }
		t.P50, t.P95 = rank(50), rank(95)
		out.Tools = append(out.Tools, *t)
	}
	for _, u := range units {
		out.Units = append(out.Units, *u)
	}
	return out, nil
}

// genRecords draws records of the month before t0: a few tools, each of
// one pack, successes and failures.
func genRecords(t *rapid.T) []record {
	tools := []string{"a_one", "a_two", "b_one", "solo"}
	packs := map[string]string{"a_one": "a", "a_two": "a", "b_one": "b", "solo": ""}
	n := rapid.IntRange(0, 60).Draw(t, "n")
	recs := make([]record, n)
	for i := range recs {
		tool := rapid.SampledFrom(tools).Draw(t, "tool")
		r := record{
			time:     t0.Add(-time.Duration(rapid.Int64Range(0, int64(40*24*time.Hour)).Draw(t, "age"))),
			tool:     tool,
			pack:     packs[tool],
			dur:      time.Duration(rapid.Int64Range(0, int64(5*time.Second)).Draw(t, "dur")),
			ok:       rapid.Bool().Draw(t, "ok"),
			bytesIn:  rapid.Int64Range(0, 1<<20).Draw(t, "in"),
			bytesOut: rapid.Int64Range(0, 1<<20).Draw(t, "out"),
		}
		if !r.ok {
			r.errType = rapid.SampledFrom([]string{"not_found", "timeout", "invalid_input"}).Draw(t, "errType")
		}
		recs[i] = r
	}
	return recs
}

// A Recorder whose records go to a Sink answers every Summary exactly as
// one whose records are in files: the same records give the same
// aggregates, for every period and tool filter.
func TestSink_SummaryEqualsFiles(t *testing.T) {
	summaryEqualsFiles(t, func() Sink { return &memSink{} }, 0)
}

// A Recorder whose Sink is an Aggregator answers every Summary exactly as
// one reading files, from the Aggregator's figures alone: totals, rates,
// percentiles, errors, packs and the timeline; MaxReadBytes (here 1) does
// not bound it. (pgstats checks its SQL against record-by-record folding
// with a database.)
func TestAggregator_SummaryEqualsFiles(t *testing.T) {
	summaryEqualsFiles(t, func() Sink { return &aggSink{} }, 1)
}

// summaryEqualsFiles checks, for random records, period and tool filter,
// that a Recorder over a Sink from newSink (Options.MaxReadBytes maxRead)
// answers every Summary as one reading the same records from files.
func summaryEqualsFiles(t *testing.T, newSink func() Sink, maxRead int64) {
	rapid.Check(t, func(rt *rapid.T) {
		recs := genRecords(rt)
		dir := filepath.Join(t.TempDir(), "stats")
		files, err := New(Options{Enabled: true, Dir: dir, FlushInterval: time.Hour, Logger: discard, Now: func() time.Time { return t0 }})
		require.NoError(rt, err)
		defer files.Close(context.Background())
		sink := newSink()
		viaSink, err := New(Options{Enabled: true, Sink: sink, MaxReadBytes: maxRead, FlushInterval: time.Hour, Logger: discard, Now: func() time.Time { return t0 }})
		require.NoError(rt, err)
		defer viaSink.Close(context.Background())

		var tc timeCache
		_, err = writeBatch(context.Background(), dir, recs, nil, &tc)
		require.NoError(rt, err)
		_, err = writeSink(context.Background(), sink, recs, nil)
		require.NoError(rt, err)

		q := Query{
			Period: rapid.SampledFrom([]string{PeriodDay, PeriodWeek, PeriodMonth, PeriodAll}).Draw(rt, "period"),
			Tool:   rapid.SampledFrom([]string{"", "a_one", "solo", "nothing"}).Draw(rt, "filter"),
		}
		want, err := files.Summary(context.Background(), q)
		require.NoError(rt, err)
		got, err := viaSink.Summary(context.Background(), q)
		require.NoError(rt, err)
		assert.Equal(rt, want, got)
	})
}

// Records the Recorder buffers reach its Sink at a flush, with every field
// of the call, and Options.Dir is not needed with a Sink.
func TestSink_FlushWritesRecords(t *testing.T) {
	sink := &memSink{}
	rec, err := New(Options{Enabled: true, Sink: sink, FlushInterval: time.Hour, Logger: discard})
	require.NoError(t, err)
	defer rec.Close(context.Background())
	reg := newRegistry(t, rec)
	for _, name := range []string{"demo_search", "demo_lookup", "demo_missing", "demo_broken"} {
		call(t, reg, name, "q")
	}
	require.NoError(t, rec.Flush(context.Background()))
	sink.mu.Lock()
	defer sink.mu.Unlock()
	require.Len(t, sink.recs, 4)
	byTool := map[string]Record{}
	for _, r := range sink.recs {
		byTool[r.Tool] = r
		assert.False(t, r.Time.IsZero())
		assert.GreaterOrEqual(t, r.Duration, time.Duration(0))
	}
	assert.Equal(t, "web", byTool["demo_search"].Pack)
	assert.True(t, byTool["demo_search"].Success)
	assert.Equal(t, "not_found", byTool["demo_missing"].ErrorType)
	assert.False(t, byTool["demo_broken"].Success)
}

// failingSink fails its first failures Appends as a database that is
// down does, then stores.
type failingSink struct {
	memSink
	failures int
	appends  atomic.Int32
}

func (f *failingSink) Append(ctx context.Context, recs []Record) error {
	if int(f.appends.Add(1)) <= f.failures {
		return fmt.Errorf("sink: %w: dial tcp: connection refused", ErrUnavailable)
	}
	return f.memSink.Append(ctx, recs)
}

// A store that stays unreachable is not logged on every flush: the 1st,
// 2nd, 4th … failure in a row is, with the count and the records kept,
// then one line says writing works again; the flusher waits longer after
// each failure; no record is lost.
func TestRecorder_StoreAwayLoggedSparingly(t *testing.T) {
	sink := &failingSink{failures: 6}
	log, logs := newLogBuffer()
	rec, err := New(Options{Enabled: true, Sink: sink, FlushInterval: MinFlushInterval, Logger: log})
	require.NoError(t, err)
	defer rec.Close(context.Background())
	reg := newRegistry(t, rec)
	for range 5 {
		call(t, reg, "demo_search", "q")
	}
	require.Eventually(t, func() bool {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		return len(sink.recs) == 5
	}, 10*time.Second, time.Millisecond, "the records reach the sink once it works")
	// The flusher logs its recovery after the write it made returned.
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "writing records again") },
		10*time.Second, time.Millisecond, "the recovery is logged")

	var warns, infos []map[string]any
	for _, m := range logs.Records(t) {
		switch m["level"] {
		case "WARN":
			warns = append(warns, m)
		case "INFO":
			infos = append(infos, m)
		}
	}
	require.Len(t, warns, 3, "failures 1, 2 and 4 of 6 are logged")
	for i, n := range []float64{1, 2, 4} {
		assert.Equal(t, n, warns[i]["failed_tries"])
		assert.Contains(t, warns[i]["msg"], "cannot be reached")
	}
	// The flusher may run between two of the calls: it keeps what it has.
	assert.InDelta(t, 3, warns[0]["pending"], 2, "the records kept are said (1 to 5)")
	require.Len(t, infos, 1)
	assert.Equal(t, "stats: writing records again", infos[0]["msg"])
	assert.Equal(t, float64(6), infos[0]["failed_tries"])
}

// The wait between flushes doubles with each failure in a row, up to
// 30 seconds, and is never below the interval.
func TestRetryWait(t *testing.T) {
	for _, c := range []struct {
		interval time.Duration
		failures int
		want     time.Duration
	}{
		{time.Second, 0, time.Second},
		{time.Second, 1, 2 * time.Second},
		{time.Second, 3, 8 * time.Second},
		{time.Second, 5, 30 * time.Second},
		{time.Second, 1000, 30 * time.Second},
		{time.Minute, 3, time.Minute},
		{time.Millisecond, 2, 4 * time.Millisecond},
	} {
		assert.Equal(t, c.want, retryWait(c.interval, c.failures), "%v after %d failures", c.interval, c.failures)
	}
}

// Without Dir and without a Sink an enabled Recorder is refused, naming
// both.
func TestSink_DirOrSinkRequired(t *testing.T) {
	_, err := New(Options{Enabled: true})
	require.ErrorIs(t, err, ErrInvalidOptions)
	assert.Contains(t, err.Error(), "stats.dir")
	assert.Contains(t, err.Error(), "Sink")
}

// A Sink's limit stops a Summary and the Summary says so.
func TestSink_TruncatedByBudget(t *testing.T) {
	sink := &memSink{}
	rec, err := New(Options{Enabled: true, Sink: sink, MaxReadBytes: 3 * approxRecordBytes, FlushInterval: time.Hour, Logger: discard})
	require.NoError(t, err)
	defer rec.Close(context.Background())
	now := time.Now()
	for i := range 5 {
		require.NoError(t, sink.Append(context.Background(), []Record{{Time: now.Add(-time.Duration(i) * time.Minute), Tool: "x", Success: true}}))
	}
	s, err := rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.True(t, s.Truncated)
	assert.Equal(t, int64(3), s.TotalCalls)
}
