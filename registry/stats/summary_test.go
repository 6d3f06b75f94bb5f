package stats

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Issue 11's property: for random records and any period and tool filter,
// the per-tool calls add up to total_calls, which is the number of records
// in the period matching the filter; every success rate is within
// [0, 100]; the timeline counts every call once.
func TestSummary_PerToolCallsSumToTotal(t *testing.T) {
	tools := []string{"web.search", "web.fetch", "db.query", "ot.stats", "add"}
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "stats-prop-")
		require.NoError(rt, err)
		defer func() { _ = os.RemoveAll(dir) }()
		now := t0.Add(time.Duration(rapid.Int64Range(0, int64(48*time.Hour)).Draw(rt, "shift")))
		n := rapid.IntRange(0, 200).Draw(rt, "n")
		recs := make([]record, n)
		for i := range recs {
			r := record{
				time:     now.Add(-time.Duration(rapid.Int64Range(-int64(time.Hour), int64(90*24*time.Hour)).Draw(rt, "age"))),
				tool:     rapid.SampledFrom(tools).Draw(rt, "tool"),
				dur:      time.Duration(rapid.Int64Range(0, int64(10*time.Second)).Draw(rt, "dur")),
				ok:       rapid.Bool().Draw(rt, "ok"),
				bytesIn:  rapid.Int64Range(0, 1<<20).Draw(rt, "in"),
				bytesOut: rapid.Int64Range(0, 1<<20).Draw(rt, "out"),
			}
			if !r.ok {
				r.errType = rapid.SampledFrom([]string{"timeout", "not_found", ErrorTypeProtocol}).Draw(rt, "errType")
			}
			recs[i] = r
		}
		_, err = writeBatch(context.Background(), dir, recs, nil, &timeCache{})
		require.NoError(rt, err)
		period := rapid.SampledFrom([]string{PeriodDay, PeriodWeek, PeriodMonth, PeriodAll, ""}).Draw(rt, "period")
		tool := rapid.SampledFrom(append([]string{""}, tools...)).Draw(rt, "tool filter")

		rec, err := New(Options{Enabled: true, Dir: dir, Logger: discard, FlushInterval: time.Hour})
		require.NoError(rt, err)
		defer func() { _ = rec.Close(context.Background()) }()
		s, err := rec.Summary(context.Background(), Query{Period: period, Tool: tool, Now: now})
		require.NoError(rt, err)

		length, _ := PeriodLength(period)
		var want, wantOK int64
		for _, r := range recs {
			inPeriod := length == 0 || (!r.time.Before(now.Add(-length)) && !r.time.After(now.Add(FutureSkew)))
			if inPeriod && (tool == "" || r.tool == tool) {
				want++
				if r.ok {
					wantOK++
				}
			}
		}
		require.Equal(rt, want, s.TotalCalls)
		var sum, inTimeline, failures int64
		for _, ts := range s.Tools {
			sum += ts.Calls
			require.GreaterOrEqual(rt, ts.SuccessRate, 0.0)
			require.LessOrEqual(rt, ts.SuccessRate, 100.0)
			require.LessOrEqual(rt, ts.P50Ms, ts.P95Ms)
			var errs int64
			for _, c := range ts.Errors {
				errs += c
			}
			failures += errs
			if tool != "" {
				require.Equal(rt, tool, ts.Tool)
			}
		}
		require.Equal(rt, s.TotalCalls, sum, "per-tool calls add up to total_calls")
		require.Equal(rt, want-wantOK, failures, "errors by type add up to the failures")
		require.GreaterOrEqual(rt, s.SuccessRate, 0.0)
		require.LessOrEqual(rt, s.SuccessRate, 100.0)
		if want > 0 {
			require.InDelta(rt, 100*float64(wantOK)/float64(want), s.SuccessRate, 0.0501, "rounded to one decimal")
		}
		for _, b := range s.Timeline {
			inTimeline += b.Calls
			require.True(rt, b.End.After(b.Start))
		}
		require.Equal(rt, s.TotalCalls, inTimeline)
		require.EqualValues(rt, want*DefaultContextPerCall, s.ContextSaved)
		require.EqualValues(rt, want*DefaultTimePerCallMs, s.TimeSavedMs)
	})
}

// The per-tool breakdown: average, nearest-rank p50 and p95, errors by
// type, bytes in and out, the pack of the latest call.
func TestSummary_ToolBreakdown(t *testing.T) {
	rec, o := newRecorder(t, nil)
	var recs []record
	for i := 1; i <= 20; i++ { // durations 1 ms … 20 ms
		r := record{time: t0.Add(-time.Duration(i) * time.Minute), tool: "web.search", pack: "web", dur: time.Duration(i) * time.Millisecond,
			ok: i%5 != 0, bytesIn: 10, bytesOut: 100}
		if !r.ok {
			r.errType = "timeout"
			if i == 20 {
				r.errType = "not_found"
			}
		}
		recs = append(recs, r)
	}
	recs = append(recs, record{time: t0, tool: "web.search", pack: "search", dur: 21 * time.Millisecond, ok: true, bytesIn: 10, bytesOut: 100})
	seed(t, o.Dir, recs...)
	s, err := rec.Summary(context.Background(), Query{Now: t0})
	require.NoError(t, err)
	require.Len(t, s.Tools, 1)
	ts := s.Tools[0]
	assert.EqualValues(t, 21, ts.Calls)
	assert.Equal(t, "search", ts.Pack, "the pack of the latest call")
	assert.InDelta(t, 81.0, ts.SuccessRate, 1e-9) // 17/21 = 80.95… → 81.0
	assert.InDelta(t, 11.0, ts.AvgMs, 1e-9)       // (1+…+21)/21
	assert.InDelta(t, 11.0, ts.P50Ms, 1e-9)       // rank ceil(10.5) = 11
	assert.InDelta(t, 20.0, ts.P95Ms, 1e-9)       // rank ceil(19.95) = 20
	assert.Equal(t, map[string]int64{"timeout": 3, "not_found": 1}, ts.Errors)
	assert.EqualValues(t, 210, ts.BytesIn)
	assert.EqualValues(t, 2100, ts.BytesOut)
}

// PeriodLength: the four periods and the empty one.
func TestPeriodLength(t *testing.T) {
	for p, d := range map[string]time.Duration{PeriodDay: 24 * time.Hour, PeriodWeek: 168 * time.Hour, PeriodMonth: 720 * time.Hour, PeriodAll: 0, "": 0} {
		got, err := PeriodLength(p)
		require.NoError(t, err)
		assert.Equal(t, d, got, p)
	}
	_, err := PeriodLength("year")
	assert.ErrorIs(t, err, ErrInvalidPeriod)
}

// The timeline: hourly buckets for a day, six-hour ones for a week, daily
// for a month and for all time (widened to at most maxBuckets).
func TestSummary_Timeline(t *testing.T) {
	rec, o := newRecorder(t, nil)
	seed(t, o.Dir,
		record{time: t0.Add(-1000 * 24 * time.Hour), tool: "a", ok: true},
		record{time: t0.Add(-2 * time.Hour), tool: "a", ok: false, errType: "timeout"},
		record{time: t0, tool: "a", ok: true},
	)
	cases := map[string]struct {
		width time.Duration
		n     int
	}{
		PeriodDay:   {time.Hour, 25},
		PeriodWeek:  {6 * time.Hour, 29},
		PeriodMonth: {24 * time.Hour, 31},
	}
	for p, c := range cases {
		s, err := rec.Summary(context.Background(), Query{Period: p, Now: t0})
		require.NoError(t, err)
		require.Len(t, s.Timeline, c.n, p)
		for i, b := range s.Timeline {
			assert.Equal(t, c.width, b.End.Sub(b.Start), p)
			if i > 0 {
				assert.Equal(t, s.Timeline[i-1].End, b.Start)
			}
		}
		last := s.Timeline[len(s.Timeline)-1]
		assert.False(t, t0.Before(last.Start), "now is in the last bucket")
		assert.True(t, t0.Before(last.End))
	}
	all, err := rec.Summary(context.Background(), Query{Now: t0})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(all.Timeline), maxBuckets)
	w := all.Timeline[0].End.Sub(all.Timeline[0].Start)
	assert.Equal(t, time.Duration(0), w%(24*time.Hour), "whole days")
	assert.EqualValues(t, 1, all.Timeline[0].Calls)
	var failures int64
	for _, b := range all.Timeline {
		failures += b.Failures
	}
	assert.EqualValues(t, 1, failures)
}

// A success rate reads 100.0 only when every call succeeded and 0.0 only
// when none did, however many calls there are.
func TestRate_ExtremesOnlyWhenExact(t *testing.T) {
	for _, tc := range []struct {
		ok, calls int64
		want      float64
	}{
		{0, 0, 0}, {3, 3, 100}, {0, 3, 0}, {29997, 30000, 99.9}, {1, 3000, 0.1}, {2, 3, 66.7}, {999, 1000, 99.9}, {995, 1000, 99.5},
	} {
		assert.Equal(t, tc.want, rate(tc.ok, tc.calls), "%d of %d", tc.ok, tc.calls)
	}
	rapid.Check(t, func(t *rapid.T) {
		calls := rapid.Int64Range(1, 1_000_000).Draw(t, "calls")
		ok := rapid.Int64Range(0, calls).Draw(t, "ok")
		r := rate(ok, calls)
		if (r == 100) != (ok == calls) || (r == 0) != (ok == 0) {
			t.Fatalf("rate(%d, %d) = %v", ok, calls, r)
		}
	})
}

// A bounded period (day, week, month) ends at its Now, give or take
// FutureSkew for a host whose clock runs a little ahead: a record dated
// later (a clock far off) is left out of it; "all" takes every record.
func TestSummary_FutureDatedRecordsLeftOutOfBoundedPeriods(t *testing.T) {
	dir := t.TempDir()
	now := t0
	recs := []record{
		{time: now.Add(-time.Hour), tool: "a", ok: true},
		{time: now.Add(FutureSkew - time.Second), tool: "a", ok: true},
		{time: now.Add(time.Hour), tool: "a", ok: true},
		{time: now.Add(48 * time.Hour), tool: "a", ok: true},
	}
	_, err := writeBatch(context.Background(), dir, recs, nil, &timeCache{})
	require.NoError(t, err)
	rec, err := New(Options{Enabled: true, Dir: dir, Logger: discard, FlushInterval: time.Hour})
	require.NoError(t, err)
	defer func() { _ = rec.Close(context.Background()) }()
	for period, want := range map[string]int64{PeriodDay: 2, PeriodWeek: 2, PeriodMonth: 2, PeriodAll: 4} {
		s, err := rec.Summary(context.Background(), Query{Period: period, Now: now})
		require.NoError(t, err)
		assert.Equal(t, want, s.TotalCalls, period)
	}
}

// The saved-context and saved-time estimates never wrap: an estimate
// past int64 (a library caller's huge per-call figure) is the largest
// one, never a negative number.
func TestSummary_EstimatesSaturateInsteadOfWrapping(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.TimePerCallMs = math.MaxInt64 / 2; o.ContextPerCall = 7 })
	seed(t, o.Dir,
		record{time: t0, tool: "a", dur: time.Millisecond, ok: true},
		record{time: t0, tool: "a", dur: time.Millisecond, ok: true},
		record{time: t0, tool: "a", dur: time.Millisecond, ok: true})
	s, err := rec.Summary(context.Background(), Query{Now: t0})
	require.NoError(t, err)
	assert.Equal(t, int64(math.MaxInt64), s.TimeSavedMs, "3 × MaxInt64/2 saturates")
	assert.EqualValues(t, 21, s.ContextSaved, "a product that fits is exact")
}
