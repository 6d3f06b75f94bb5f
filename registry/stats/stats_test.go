package stats

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// Seed 001, Runtime Statistics, "Get all-time stats": ot.stats() returns
// total_calls, success_rate, context_saved, time_saved_ms and the per-tool
// breakdown.
func TestStats_GetAllTimeStats(t *testing.T) {
	clk := newClock(t0)
	rec, _ := newRecorder(t, func(o *Options) { o.Now = clk.Now; o.ContextPerCall = 1500; o.TimePerCallMs = 2500 })
	reg := newRegistry(t, rec)
	for range 3 {
		call(t, reg, "demo_search", "go")
	}
	call(t, reg, "demo_missing", "x")

	s, err := rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.Equal(t, PeriodAll, s.Period)
	assert.EqualValues(t, 4, s.TotalCalls)
	assert.InDelta(t, 75.0, s.SuccessRate, 1e-9)
	assert.EqualValues(t, 4*1500, s.ContextSaved)
	assert.EqualValues(t, 4*2500, s.TimeSavedMs)
	require.Len(t, s.Tools, 2)
	assert.Equal(t, "demo_search", s.Tools[0].Tool, "most called first")
	assert.EqualValues(t, 3, s.Tools[0].Calls)
	assert.Equal(t, "web", s.Tools[0].Pack)
	assert.InDelta(t, 100.0, s.Tools[0].SuccessRate, 1e-9)
	missing := findTool(t, s, "demo_missing")
	assert.Equal(t, map[string]int64{"not_found": 1}, missing.Errors)
	assert.InDelta(t, 0.0, missing.SuccessRate, 1e-9)

	// The JSON form carries the seed's field names.
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"total_calls", "success_rate", "context_saved", "time_saved_ms", "tools"} {
		assert.Contains(t, m, k)
	}
}

// Options' defaults for the estimates: 2000 tokens and 3000 ms per call.
func TestOptions_Defaults(t *testing.T) {
	rec, _ := newRecorder(t, nil)
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	s, err := rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, DefaultContextPerCall, s.ContextSaved)
	assert.EqualValues(t, DefaultTimePerCallMs, s.TimeSavedMs)
}

// Seed 001, "Filter by period": day = 24 h, week = 7 d, month = 30 d, all.
func TestStats_FilterByPeriod(t *testing.T) {
	rec, o := newRecorder(t, nil)
	ages := map[time.Duration]int{ // age of the calls → how many
		0:                          1,
		23 * time.Hour:             2, // in the day
		24*time.Hour + time.Second: 4, // just outside the day
		6 * 24 * time.Hour:         8,
		7*24*time.Hour + time.Hour: 16,
		29 * 24 * time.Hour:        32,
		31 * 24 * time.Hour:        64,
		400 * 24 * time.Hour:       128,
	}
	for age, n := range ages {
		for range n {
			seed(t, o.Dir, record{time: t0.Add(-age), tool: "demo_search", pack: "web", dur: time.Millisecond, ok: true})
		}
	}
	want := map[string]int64{
		PeriodDay:   1 + 2,
		PeriodWeek:  1 + 2 + 4 + 8,
		PeriodMonth: 1 + 2 + 4 + 8 + 16 + 32,
		PeriodAll:   255,
		"":          255,
	}
	for period, n := range want {
		s, err := rec.Summary(context.Background(), Query{Period: period, Now: t0})
		require.NoError(t, err, period)
		assert.Equal(t, n, s.TotalCalls, "period %q", period)
		if period != PeriodAll && period != "" {
			length, _ := PeriodLength(period)
			assert.Equal(t, t0.Add(-length), s.Since, period)
		}
		var inTimeline int64
		for _, b := range s.Timeline {
			inTimeline += b.Calls
		}
		assert.Equal(t, n, inTimeline, "timeline of %q counts every call", period)
		assert.LessOrEqual(t, len(s.Timeline), maxBuckets)
	}
}

// Seed 001, "Filter by tool": statistics of that tool only.
func TestStats_FilterByTool(t *testing.T) {
	rec, _ := newRecorder(t, nil)
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	call(t, reg, "demo_search", "b")
	call(t, reg, "demo_missing", "c")
	s, err := rec.Summary(context.Background(), Query{Tool: "demo_search"})
	require.NoError(t, err)
	assert.Equal(t, "demo_search", s.Tool)
	assert.EqualValues(t, 2, s.TotalCalls)
	assert.InDelta(t, 100.0, s.SuccessRate, 1e-9)
	require.Len(t, s.Tools, 1)
	assert.Equal(t, "demo_search", s.Tools[0].Tool)

	none, err := rec.Summary(context.Background(), Query{Tool: "demo_nothing"})
	require.NoError(t, err)
	assert.EqualValues(t, 0, none.TotalCalls)
	assert.Empty(t, none.Tools)
	assert.InDelta(t, 0.0, none.SuccessRate, 1e-9)
}

// Seed 001, "Stats disabled": an error message indicating stats are
// disabled; nothing is recorded.
func TestStats_StatsDisabled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "stats")
	rec, err := New(Options{Dir: dir, Logger: discard}) // Enabled false
	require.NoError(t, err)
	defer func() { require.NoError(t, rec.Close(context.Background())) }()
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	require.NoError(t, rec.Flush(context.Background()))
	_, err = os.Stat(dir)
	assert.ErrorIs(t, err, os.ErrNotExist, "a disabled recorder creates no directory and writes nothing")

	_, err = rec.Summary(context.Background(), Query{})
	require.ErrorIs(t, err, ErrDisabled)
	assert.Equal(t, DisabledMessage, err.Error())
	assert.Contains(t, err.Error(), "disabled")

	// The zero Options are a disabled recorder too.
	zero, err := New(Options{})
	require.NoError(t, err)
	_, err = zero.Summary(context.Background(), Query{})
	assert.ErrorIs(t, err, ErrDisabled)
	require.NoError(t, zero.Close(context.Background()))
}

// Seed 001, "Invalid period": the message verbatim.
func TestStats_InvalidPeriod(t *testing.T) {
	rec, _ := newRecorder(t, nil)
	_, err := rec.Summary(context.Background(), Query{Period: "invalid"})
	require.ErrorIs(t, err, ErrInvalidPeriod)
	assert.Equal(t, "Error: Invalid period 'invalid'. Valid: day, week, month, all. Example: ot.stats(period='day')", err.Error())
	var pe *PeriodError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "invalid", pe.Period)

	// The period is checked first: the message is the same when stats are off.
	off, err := New(Options{})
	require.NoError(t, err)
	_, err = off.Summary(context.Background(), Query{Period: "DAY"})
	assert.EqualError(t, err, "Error: Invalid period 'DAY'. Valid: day, week, month, all. Example: ot.stats(period='day')")
	require.NoError(t, off.Close(context.Background()))
}

// The middleware records the time, final name, pack, duration, success,
// error type and bytes in/out of every call it sees.
func TestMiddleware_RecordsEveryCall(t *testing.T) {
	clk := newClock(t0)
	rec, o := newRecorder(t, func(o *Options) { o.Now = clk.Now })
	reg := newRegistry(t, rec)
	slow := &registry.Tool{Name: "slow", Pack: "", Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
		<-ctx.Done()
		return result.Result[any]{}, ctx.Err()
	}, Timeout: time.Millisecond}
	require.NoError(t, reg.Add(slow))
	reg2 := registry.New(registry.Options{Prefix: new(""), Logger: discard})
	require.NoError(t, reg2.Add(&registry.Tool{Name: "wait", Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
		<-ctx.Done()
		return result.Result[any]{}, ctx.Err()
	}}))
	reg2.Use(rec.Middleware())

	call(t, reg, "demo_search", "golang") // string value
	clk.Set(t0.Add(time.Second))          //
	call(t, reg, "demo_lookup", "golang") // struct value
	call(t, reg, "demo_missing", "row")   // domain failure
	call(t, reg, "demo_broken", "x")      // protocol failure
	call(t, reg, "demo_slow", "")         // timeout (Result from the Timeout stage)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(5 * time.Millisecond); cancel() }()
	_, err := reg2.Invoke(ctx, "wait", nil) // cancelled by the caller
	require.ErrorIs(t, err, context.Canceled)
	call(t, reg, "demo_search", "") // refused by validation: recorded (UseOuter)
	_, err = reg.Invoke(context.Background(), "demo_nothing", nil)
	require.ErrorIs(t, err, registry.ErrUnknownTool) // no tool: not recorded

	require.NoError(t, rec.Flush(context.Background()))
	got, corrupt := readAll(t, o.Dir)
	require.Zero(t, corrupt)
	require.Len(t, got, 7)
	in := int64(len(`{"query":"golang"}`))
	lookupJSON, _ := json.Marshal(lookupOut{Hits: 3, Query: "golang"})

	assert.Equal(t, record{time: t0, tool: "demo_search", pack: "web", ok: true, bytesIn: in, bytesOut: int64(len("found: golang"))}, withoutDur(got[0]))
	byTool := map[string]record{}
	for _, r := range got[1:] {
		assert.Equal(t, t0.Add(time.Second), r.time)
		byTool[r.tool] = withoutDur(r)
	}
	assert.Equal(t, record{time: t0.Add(time.Second), tool: "demo_lookup", pack: "web", ok: true, bytesIn: in, bytesOut: int64(len(lookupJSON))}, byTool["demo_lookup"])
	assert.Equal(t, record{time: t0.Add(time.Second), tool: "demo_missing", pack: "db", errType: "not_found", bytesIn: int64(len(`{"query":"row"}`)), bytesOut: int64(len("no such row"))}, byTool["demo_missing"])
	assert.Equal(t, record{time: t0.Add(time.Second), tool: "demo_broken", errType: ErrorTypeProtocol, bytesIn: int64(len(`{"query":"x"}`))}, byTool["demo_broken"])
	refused := byTool["demo_search"]
	assert.Equal(t, "validation_error", refused.errType, "a call refused for its arguments is a failed call")
	assert.False(t, refused.ok)
	assert.EqualValues(t, len(`{"query":""}`), refused.bytesIn)
	assert.Positive(t, refused.bytesOut, "the failure's text")
	assert.Equal(t, "timeout", byTool["demo_slow"].errType)
	assert.False(t, byTool["demo_slow"].ok)
	assert.Equal(t, "cancelled", byTool["wait"].errType)
	assert.EqualValues(t, 2, byTool["wait"].bytesIn, "no arguments are read as {}")
	for _, r := range got {
		if r.tool == "wait" {
			assert.GreaterOrEqual(t, r.dur, 5*time.Millisecond, "the duration is measured")
		}
	}
}

func withoutDur(r record) record { r.dur = 0; return r }

// Buffered records are written on the flush interval without any call to
// Flush.
func TestRecorder_FlushesOnInterval(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.FlushInterval = 10 * time.Millisecond })
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	require.Eventually(t, func() bool {
		got, _ := readAll(t, o.Dir)
		return len(got) == 1
	}, 10*time.Second, 5*time.Millisecond)
}

// Close writes what is buffered; calls after Close pass through unrecorded.
func TestRecorder_CloseFlushes(t *testing.T) {
	rec, o := newRecorder(t, nil) // interval: an hour
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	call(t, reg, "demo_search", "b")
	assert.Empty(t, dayFiles(t, o.Dir), "nothing written before the interval")
	require.NoError(t, rec.Close(context.Background()))
	got, _ := readAll(t, o.Dir)
	assert.Len(t, got, 2)

	call(t, reg, "demo_search", "c") // after Close
	require.ErrorIs(t, rec.Flush(context.Background()), ErrClosed)
	require.NoError(t, rec.Close(context.Background()), "a second Close does nothing")
	got, _ = readAll(t, o.Dir)
	assert.Len(t, got, 2)
	_, err := rec.Summary(context.Background(), Query{})
	assert.ErrorIs(t, err, ErrClosed)
}

// A context that has already ended (a shutdown's signal context passed
// on) does not lose the buffered records: Close still writes them, within
// CloseGrace.
func TestRecorder_CloseWithEndedContextStillWrites(t *testing.T) {
	rec, o := newRecorder(t, nil) // interval: an hour
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	call(t, reg, "demo_search", "b")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, rec.Close(ctx))
	got, _ := readAll(t, o.Dir)
	assert.Len(t, got, 2)
}

// Flush and Close wait for the directory's lock only as long as the context
// allows; records that could not be written stay buffered.
func TestRecorder_FlushHonoursContext(t *testing.T) {
	rec, o := newRecorder(t, nil)
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	other := flock.New(filepath.Join(o.Dir, lockName)) // another process writing
	locked, err := other.TryLock()
	require.NoError(t, err)
	require.True(t, locked)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err = rec.Flush(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = rec.Summary(ctx, Query{})
	require.ErrorIs(t, err, context.DeadlineExceeded)

	require.NoError(t, other.Unlock())
	require.NoError(t, rec.Flush(context.Background()))
	got, _ := readAll(t, o.Dir)
	assert.Len(t, got, 1, "the record was kept for the next flush")

	call(t, reg, "demo_search", "b")
	locked, err = other.TryLock()
	require.NoError(t, err)
	require.True(t, locked)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	require.ErrorIs(t, rec.Close(ctx2), context.DeadlineExceeded)
	require.NoError(t, other.Unlock())
}

// Stats survive restarts: a new Recorder on the same directory sees the
// records of the previous one.
func TestRecorder_SurvivesRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "stats")
	first, err := New(Options{Enabled: true, Dir: dir, Logger: discard})
	require.NoError(t, err)
	reg := newRegistry(t, first)
	call(t, reg, "demo_search", "a")
	call(t, reg, "demo_missing", "b")
	require.NoError(t, first.Close(context.Background()))

	second, err := New(Options{Enabled: true, Dir: dir, Logger: discard})
	require.NoError(t, err)
	defer func() { _ = second.Close(context.Background()) }()
	reg2 := newRegistry(t, second)
	call(t, reg2, "demo_search", "c")
	s, err := second.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 3, s.TotalCalls)
	assert.EqualValues(t, 2, findTool(t, s, "demo_search").Calls)
}

// Records are filed by the UTC day their call started.
func TestStore_OneFilePerDay(t *testing.T) {
	clk := newClock(time.Date(2026, 11, 23, 23, 59, 59, 0, time.UTC))
	rec, o := newRecorder(t, func(o *Options) { o.Now = clk.Now })
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	clk.Set(time.Date(2026, 11, 24, 0, 0, 1, 0, time.UTC))
	call(t, reg, "demo_search", "b")
	require.NoError(t, rec.Flush(context.Background()))
	assert.ElementsMatch(t, []string{"stats-2026-11-23.jsonl", "stats-2026-11-24.jsonl"}, dayFiles(t, o.Dir))
	b, err := os.ReadFile(filepath.Join(o.Dir, "stats-2026-11-24.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(b), "\n"))
	assert.True(t, strings.HasPrefix(string(b), `{"time":"2026-11-24T00:00:01Z","tool":"demo_search","pack":"web","duration_ns":`), string(b))
}

// Corrupt and truncated lines (a crash mid-write) are skipped and counted;
// the writer after a crash starts on a new line, so its records stay whole.
func TestStore_CorruptLinesSkippedAndCounted(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.Now = func() time.Time { return t0 } })
	seed(t, o.Dir, record{time: t0, tool: "demo_search", dur: time.Millisecond, ok: true})
	path := filepath.Join(o.Dir, dayFileName(t0))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	bad := []string{
		"not json at all\n",
		`{"time":"2026-11-23T15:30:00Z","tool":"","duration_ns":1,"success":true,"bytes_in":0,"bytes_out":0}` + "\n",   // no tool
		`{"time":"2026-11-23T15:30:00Z","tool":"x","duration_ns":-5,"success":true,"bytes_in":0,"bytes_out":0}` + "\n", // negative
		`{"time":"2026-11-23T15:30:00Z","tool":"x","success":true}` + "\n",                                             // no duration
		`{"time":"2026-11-23T15:30:00Z","tool":"` + strings.Repeat("a", maxLineBytes) + `"}` + "\n",                    // over-long
		`{"time":"2026-11-23T15:30:00Z","tool":"demo_sea`,                                                              // crash mid-line
	}
	for _, b := range bad {
		_, err = f.WriteString(b)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())

	s, err := rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 1, s.TotalCalls)
	assert.EqualValues(t, len(bad), s.CorruptLines, "the unterminated last line counts too")

	// A recorder writing after the crash: its records are whole.
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "after")
	call(t, reg, "demo_search", "again")
	s, err = rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 3, s.TotalCalls)
	assert.EqualValues(t, len(bad), s.CorruptLines)
}

// A Summary reads at most MaxReadBytes, the newest records first, and says
// so.
func TestStore_ReadCap(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.MaxReadBytes = 2000 })
	var line []byte
	for i := range 100 {
		r := record{time: t0.Add(-time.Duration(i) * time.Hour), tool: "demo_search", dur: time.Millisecond, ok: true}
		seed(t, o.Dir, r)
		if i == 0 {
			line = appendRecord(nil, &r, &timeCache{})
		}
	}
	s, err := rec.Summary(context.Background(), Query{Now: t0})
	require.NoError(t, err)
	assert.True(t, s.Truncated)
	assert.Zero(t, s.CorruptLines, "the line cut by the budget is not corrupt")
	assert.Greater(t, s.TotalCalls, int64(0))
	assert.LessOrEqual(t, s.TotalCalls, int64(2000/len(line)))
	assert.GreaterOrEqual(t, s.TotalCalls, int64(2000/len(line))-1)

	// A period whose files fit the budget is read whole.
	rec2, err := New(Options{Enabled: true, Dir: o.Dir, MaxReadBytes: 1 << 20, Logger: discard})
	require.NoError(t, err)
	defer func() { _ = rec2.Close(context.Background()) }()
	day, err := rec2.Summary(context.Background(), Query{Period: PeriodDay, Now: t0})
	require.NoError(t, err)
	assert.False(t, day.Truncated)
	assert.EqualValues(t, 25, day.TotalCalls)
}

// Invalid options are refused, each bad field named.
func TestOptions_Invalid(t *testing.T) {
	_, err := New(Options{Enabled: true, FlushInterval: -time.Second, ContextPerCall: -5, TimePerCallMs: -2})
	require.ErrorIs(t, err, ErrInvalidOptions)
	for _, field := range []string{"stats.dir", "stats.flush_interval", "stats.context_per_call", "stats.time_per_call_ms"} {
		assert.Contains(t, err.Error(), field)
	}
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = New(Options{Enabled: true, Dir: filepath.Join(file, "stats")})
	require.ErrorIs(t, err, ErrInvalidOptions)
	assert.Contains(t, err.Error(), "stats.dir")
}

// A flush interval shorter than MinFlushInterval (a nanosecond kept the
// flusher spinning a core while idle) is refused naming the field; the
// minimum itself is accepted.
func TestOptions_FlushIntervalBelowTheMinimumRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "stats")
	for _, d := range []time.Duration{time.Nanosecond, MinFlushInterval - 1} {
		_, err := New(Options{Enabled: true, Dir: dir, FlushInterval: d, Logger: discard})
		require.ErrorIs(t, err, ErrInvalidOptions, d)
		assert.Contains(t, err.Error(), "FlushInterval (stats.flush_interval): must be 0 (DefaultFlushInterval) or at least 10ms")
	}
	rec, err := New(Options{Enabled: true, Dir: dir, FlushInterval: MinFlushInterval, Logger: discard})
	require.NoError(t, err)
	require.NoError(t, rec.Close(context.Background()))
}

// A nil or zero Recorder is not a panic: Close of nil is a no-op (nothing
// was opened), and the zero value's Close and WriteReport say ErrClosed as
// its other methods do.
func TestRecorder_NilAndZeroValueAnswerWithoutPanic(t *testing.T) {
	var nilRec *Recorder
	require.NotPanics(t, func() {
		require.NoError(t, nilRec.Close(context.Background()))
		require.ErrorIs(t, nilRec.Flush(context.Background()), ErrClosed)
		require.ErrorIs(t, nilRec.Prune(context.Background()), ErrClosed)
		_, err := nilRec.Summary(context.Background(), Query{})
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, nilRec.Reconfigure(context.Background(), Options{}), ErrClosed)
		_, err = nilRec.WriteReport(Summary{}, "r.html")
		require.ErrorIs(t, err, ErrClosed)
	})
	var zero Recorder
	require.NotPanics(t, func() {
		require.ErrorIs(t, zero.Prune(context.Background()), ErrClosed)
		require.ErrorIs(t, zero.Close(context.Background()), ErrClosed)
		_, err := zero.WriteReport(Summary{}, "r.html")
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, zero.Flush(context.Background()), ErrClosed)
		_, err = zero.Summary(context.Background(), Query{})
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, zero.Reconfigure(context.Background(), Options{}), ErrClosed)
	})
}

// Reconfigure (a reload) moves recording to the new options; disabled, the
// middleware passes calls through; bad options keep the old ones.
func TestRecorder_Reconfigure(t *testing.T) {
	rec, o := newRecorder(t, nil)
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")

	moved := filepath.Join(t.TempDir(), "moved")
	o2 := o
	o2.Dir = moved
	require.NoError(t, rec.Reconfigure(context.Background(), o2))
	old, _ := readAll(t, o.Dir)
	assert.Len(t, old, 1, "what was buffered is written under the old options")
	call(t, reg, "demo_search", "b")
	call(t, reg, "demo_search", "c")
	s, err := rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 2, s.TotalCalls)

	bad := o2
	bad.FlushInterval = -1
	require.ErrorIs(t, rec.Reconfigure(context.Background(), bad), ErrInvalidOptions)
	call(t, reg, "demo_search", "d")
	s, err = rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 3, s.TotalCalls, "bad options left the previous ones in force")

	off := o2
	off.Enabled = false
	require.NoError(t, rec.Reconfigure(context.Background(), off))
	call(t, reg, "demo_search", "e")
	_, err = rec.Summary(context.Background(), Query{})
	require.ErrorIs(t, err, ErrDisabled)

	require.NoError(t, rec.Reconfigure(context.Background(), o2))
	s, err = rec.Summary(context.Background(), Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 3, s.TotalCalls, "the call made while disabled was not recorded")
}

// Past MaxPending buffered records, calls are counted as dropped (and
// logged), never blocked.
func TestRecorder_DropsBeyondMaxPending(t *testing.T) {
	logger, logs := newLogBuffer()
	rec, o := newRecorder(t, func(o *Options) { o.MaxPending = 3; o.Logger = logger })
	reg := newRegistry(t, rec)
	rec.flushing <- struct{}{} // the flusher, woken when the buffer is full, cannot empty it yet
	for range 5 {
		call(t, reg, "demo_search", "a")
	}
	<-rec.flushing
	require.NoError(t, rec.Flush(context.Background()))
	got, _ := readAll(t, o.Dir)
	assert.Len(t, got, 3)
	assert.Contains(t, logs.String(), `"dropped":2`)
	assert.NotContains(t, logs.String(), "found: a", "values are never logged")
}

// A failed write keeps the records buffered for the next flush.
func TestRecorder_KeepsRecordsWhenWriteFails(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.Now = func() time.Time { return t0 } })
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	// The day file cannot be opened for appending: a directory in its place.
	path := filepath.Join(o.Dir, dayFileName(t0))
	require.NoError(t, os.MkdirAll(path, 0o755))
	err := rec.Flush(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	require.NoError(t, os.Remove(path))
	require.NoError(t, rec.Flush(context.Background()))
	got, _ := readAll(t, o.Dir)
	assert.Len(t, got, 1)
}

// The errors of the package are checkable with errors.Is / errors.As.
func TestErrors_Checkable(t *testing.T) {
	re := &ReportError{Path: "/x/r.html", Err: ErrOutsideReportsDir}
	assert.True(t, errors.Is(re, ErrOutsideReportsDir))
	assert.Equal(t, "Error: Cannot write to '/x/r.html': path escapes the reports directory", re.Error())
	pe := error(&PeriodError{Period: "year"})
	assert.True(t, errors.Is(pe, ErrInvalidPeriod))
	assert.False(t, errors.Is(pe, ErrDisabled))
}

// A Summary answers from the files when this recorder's own records cannot
// be written (they stay buffered for the next flush).
func TestStats_SummaryWhenFlushFails(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.Now = func() time.Time { return t0 } })
	seed(t, o.Dir, record{time: t0.Add(-48 * time.Hour), tool: "demo_search", dur: 1, ok: true})
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")
	blocker := filepath.Join(o.Dir, dayFileName(t0))
	require.NoError(t, os.MkdirAll(blocker, 0o755)) // today's file cannot be appended to
	s, err := rec.Summary(context.Background(), Query{Now: t0})
	require.NoError(t, err)
	assert.EqualValues(t, 1, s.TotalCalls, "the stored record")
	require.NoError(t, os.Remove(blocker))
	s, err = rec.Summary(context.Background(), Query{Now: t0})
	require.NoError(t, err)
	assert.EqualValues(t, 2, s.TotalCalls, "the buffered record once it could be written")
}

// Close stops a flusher that is waiting for the directory's lock at once,
// and returns when its own context ends; nothing keeps running after it.
func TestRecorder_CloseStopsFlusherWaitingForLock(t *testing.T) {
	rec, o := newRecorder(t, func(o *Options) { o.MaxPending = 1 }) // the first call wakes the flusher
	other := flock.New(filepath.Join(o.Dir, lockName))
	locked, err := other.TryLock()
	require.NoError(t, err)
	require.True(t, locked)
	defer func() { _ = other.Unlock() }()
	reg := newRegistry(t, rec)
	call(t, reg, "demo_search", "a")

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, rec.Close(ctx), context.DeadlineExceeded)
	select {
	case <-rec.done:
	default:
		t.Fatal("the flusher is still running after Close returned")
	}
}

// TestRecorder_ConcurrentCallsAllCounted: many goroutines calling through
// the middleware while the flusher runs (1 ms interval) and Flush is called
// concurrently: every call is either written or counted as dropped, exactly;
// with room to spare none is dropped. Run it with -race.
func TestRecorder_ConcurrentCallsAllCounted(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxPending int
	}{{"room to spare", 0}, {"small buffer", 16}} {
		t.Run(tc.name, func(t *testing.T) {
			logger, logs := newLogBuffer()
			rec, o := newRecorder(t, func(o *Options) {
				o.FlushInterval = MinFlushInterval
				o.MaxPending = tc.maxPending
				o.Logger = logger
			})
			reg := newRegistry(t, rec)
			const workers, calls = 8, 300
			stop := make(chan struct{})
			flushed := make(chan struct{})
			go func() {
				defer close(flushed)
				for {
					select {
					case <-stop:
						return
					default:
						_ = rec.Flush(context.Background())
					}
				}
			}()
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range calls {
						tool := "demo_search"
						if (w+i)%2 == 0 {
							tool = "demo_lookup"
						}
						call(t, reg, tool, "q")
					}
				})
			}
			wg.Wait()
			close(stop)
			<-flushed
			require.NoError(t, rec.Close(context.Background()))

			got, corrupt := readAll(t, o.Dir)
			require.Zero(t, corrupt)
			var dropped int64
			for line := range strings.Lines(logs.String()) {
				var l struct {
					Dropped int64 `json:"dropped"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &l))
				dropped += l.Dropped
			}
			assert.EqualValues(t, workers*calls, int64(len(got))+dropped, "written %d + dropped %d", len(got), dropped)
			t.Logf("written %d, dropped %d", len(got), dropped)
			if tc.maxPending == 0 {
				assert.Zero(t, dropped)
			}
			for _, r := range got {
				assert.True(t, r.ok)
				assert.Equal(t, "web", r.pack)
			}
		})
	}
}

// A zero Recorder (not made by New) is refused where the host is put
// together, with a message saying so, instead of failing every call with
// an internal error at run time.
func TestRecorder_ZeroValueRefusedAtSetup(t *testing.T) {
	var r Recorder
	assert.PanicsWithValue(t, "stats: Middleware of a Recorder not made by New", func() { r.Middleware() })
}

// A record's time is when the call started, whichever clock stamps it:
// with Options.Now too (a host's clock), a long call is not stamped when
// it ended, which would move it across period and day-file boundaries.
func TestRecorder_RecordTimeIsTheStartWithAHostClock(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 23, 59, 0, 0, time.UTC)
	var mu sync.Mutex
	now := t0
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	rec, o := newRecorder(t, func(o *Options) { o.Now = clock })
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discard})
	reg.UseOuter(rec.Middleware())
	require.NoError(t, registry.AddFunc(reg, "slow", func(context.Context, struct{}) (result.Result[string], error) {
		mu.Lock()
		now = now.Add(2 * time.Minute) // the call runs past midnight
		mu.Unlock()
		return result.Ok("done"), nil
	}, registry.ToolOptions{Doc: "Slow."}))
	_, err := reg.Invoke(context.Background(), "slow", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.NoError(t, rec.Flush(context.Background()))
	got, _ := readAll(t, o.Dir)
	require.Len(t, got, 1)
	assert.True(t, got[0].time.Equal(t0), "stamped %v, started %v", got[0].time, t0)
	assert.Equal(t, []string{"stats-2026-03-04.jsonl"}, dayFiles(t, o.Dir), "the day the call started")
}
