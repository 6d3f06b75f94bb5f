package stats

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"math"
	"slices"
	"time"
)

// Periods a Query may name. The empty period means PeriodAll.
const (
	// PeriodDay is the last 24 hours.
	PeriodDay = "day"
	// PeriodWeek is the last 7 days.
	PeriodWeek = "week"
	// PeriodMonth is the last 30 days.
	PeriodMonth = "month"
	// PeriodAll is every record kept.
	PeriodAll = "all"
)

// PeriodLength returns how far back a period reaches (0 for PeriodAll and
// ""), or a *PeriodError for any other value.
func PeriodLength(period string) (time.Duration, error) {
	switch period {
	case PeriodDay:
		return 24 * time.Hour, nil
	case PeriodWeek:
		return 7 * 24 * time.Hour, nil
	case PeriodMonth:
		return 30 * 24 * time.Hour, nil
	case PeriodAll, "":
		return 0, nil
	default:
		return 0, &PeriodError{Period: period}
	}
}

// Query selects the calls a Summary covers.
type Query struct {
	// Period is PeriodDay, PeriodWeek, PeriodMonth or PeriodAll; empty
	// means PeriodAll. Anything else is a *PeriodError.
	Period string
	// Tool, when set, keeps only the calls of the tool with this final
	// name.
	Tool string
	// Now ends the period; zero means the Recorder's clock.
	Now time.Time
}

// Summary is the aggregate ot.stats shows. Durations are milliseconds and
// rates percentages (0–100), rounded for reading.
type Summary struct {
	// Period is the period covered ("day", "week", "month", "all").
	Period string `json:"period"`
	// Tool is the tool filter, "" for every tool.
	Tool string `json:"tool,omitempty"`
	// Since is the start of the period (zero for "all"); Until its end.
	Since time.Time `json:"since,omitzero"`
	// Until is the end of the period (the query's Now).
	Until time.Time `json:"until"`
	// TotalCalls is the number of calls.
	TotalCalls int64 `json:"total_calls"`
	// SuccessRate is the percentage of successful calls (0 without calls).
	SuccessRate float64 `json:"success_rate"`
	// ContextSaved is TotalCalls × Options.ContextPerCall: the context
	// tokens the calls are estimated to have saved.
	ContextSaved int64 `json:"context_saved"`
	// TimeSavedMs is TotalCalls × Options.TimePerCallMs (the largest int64
	// when the product does not fit; ContextSaved likewise).
	TimeSavedMs int64 `json:"time_saved_ms"`
	// Tools is the per-tool breakdown, most called first (then by name).
	Tools []ToolSummary `json:"tools"`
	// Timeline counts the calls over the period in equal buckets, oldest
	// first, for charts; empty when there are no calls.
	Timeline []Bucket `json:"timeline,omitempty"`
	// CorruptLines counts the record lines skipped because they were not
	// whole records (a process that crashed mid-write, a damaged file).
	CorruptLines int64 `json:"corrupt_lines,omitempty"`
	// Truncated reports that Options.MaxReadBytes stopped the reading: the
	// oldest records of the period were not counted.
	Truncated bool `json:"truncated,omitempty"`
}

// ToolSummary is one tool's share of a Summary.
type ToolSummary struct {
	// Tool is the tool's final name.
	Tool string `json:"tool"`
	// Pack is the pack of its latest call, "" for none.
	Pack string `json:"pack,omitempty"`
	// Calls is the number of calls.
	Calls int64 `json:"calls"`
	// SuccessRate is the percentage of successful calls.
	SuccessRate float64 `json:"success_rate"`
	// AvgMs, P50Ms and P95Ms describe the calls' durations (nearest-rank
	// percentiles).
	AvgMs float64 `json:"avg_ms"`
	// P50Ms is the median duration.
	P50Ms float64 `json:"p50_ms"`
	// P95Ms is the 95th-percentile duration.
	P95Ms float64 `json:"p95_ms"`
	// Errors counts the failures by error type.
	Errors map[string]int64 `json:"errors,omitempty"`
	// BytesIn is the size of all arguments; BytesOut of all values and
	// failure texts.
	BytesIn int64 `json:"bytes_in"`
	// BytesOut is the size of all values and failure texts.
	BytesOut int64 `json:"bytes_out"`
}

// Bucket is one slice of a Summary's timeline.
type Bucket struct {
	// Start and End bound the bucket: Start ≤ call time < End.
	Start time.Time `json:"start"`
	// End is the end of the bucket.
	End time.Time `json:"end"`
	// Calls is the number of calls started in the bucket.
	Calls int64 `json:"calls"`
	// Failures is how many of them failed.
	Failures int64 `json:"failures"`
}

// Summary flushes what this Recorder has buffered, then reads the records
// of the query's period from every process sharing the directory (or the
// Sink) and aggregates them; a Sink that is an Aggregator aggregates them
// itself. A flush that fails for another reason than ctx is logged and the
// summary answers from what the store holds. An invalid period is a
// *PeriodError (ErrInvalidPeriod), a disabled Recorder ErrDisabled; both
// texts are ready to show.
func (r *Recorder) Summary(ctx context.Context, q Query) (Summary, error) {
	length, err := PeriodLength(q.Period)
	if err != nil {
		return Summary{}, err
	}
	if r.unusable() {
		return Summary{}, ErrClosed
	}
	cfg := r.cfg.Load()
	if !cfg.enabled {
		return Summary{}, ErrDisabled
	}
	if err := r.flush(ctx); err != nil {
		if ctx.Err() != nil {
			return Summary{}, err
		}
		// The store may still be readable: answer with what it holds.
		r.log.LogAttrs(ctx, slog.LevelWarn, "stats: writing records before a summary failed (kept for the next try): "+err.Error())
	}
	now := q.Now
	if now.IsZero() {
		now = cfg.clock()
	}
	agg := newAggregator(q, length, now)
	if cfg.keep > 0 {
		agg.floor = now.Add(-cfg.keep)
	}
	var st readStats
	if sa, ok := cfg.sink.(Aggregator); ok {
		var folded Aggregate
		folded, err = sa.Aggregate(ctx, AggregateQuery{Since: agg.from(), Until: agg.until, Tool: q.Tool, Unit: agg.unit})
		if err == nil {
			agg.merge(folded)
		}
	} else if cfg.sink != nil {
		st, err = readSink(ctx, cfg.sink, agg.from(), q.Tool, cfg.maxReadBytes, agg.add)
	} else {
		st, err = readRecords(ctx, cfg.dir, agg.from(), cfg.maxReadBytes, agg.add)
	}
	if err != nil {
		return Summary{}, err
	}
	s := agg.summary(cfg)
	s.CorruptLines = st.corrupt
	s.Truncated = st.truncated
	return s, nil
}

// maxBuckets bounds the timeline of PeriodAll.
const maxBuckets = 120

// aggregator folds records into a Summary in one pass.
type aggregator struct {
	period string
	tool   string
	since  time.Time // zero for all
	until  time.Time // a bounded period's end: now with FutureSkew (hosts whose clocks run a little ahead); zero for all
	floor  time.Time // Options.KeepDays before now; zero keeps all
	now    time.Time
	unit   time.Duration // timeline counting unit: an hour or a day

	calls, ok int64
	tools     map[string]*toolAgg
	units     map[int64]*[2]int64 // unit start (Unix seconds) → calls, failures
	first     time.Time
}

type toolAgg struct {
	pack      string
	packAt    time.Time
	calls, ok int64
	total     time.Duration
	durs      []time.Duration
	errors    map[string]int64
	in, out   int64
	// p50, p95: from durs, or, when durs is nil, an Aggregator's figures.
	p50, p95 time.Duration
}

func newAggregator(q Query, length time.Duration, now time.Time) *aggregator {
	a := &aggregator{
		period: q.Period,
		tool:   q.Tool,
		now:    now,
		unit:   24 * time.Hour,
		tools:  map[string]*toolAgg{},
		units:  map[int64]*[2]int64{},
	}
	if a.period == "" {
		a.period = PeriodAll
	}
	if length > 0 {
		a.since = now.Add(-length)
		a.until = now.Add(FutureSkew)
		if length <= 7*24*time.Hour {
			a.unit = time.Hour
		}
	}
	return a
}

// add counts rec when it falls in the period and matches the tool filter.
func (a *aggregator) add(rec *record) {
	if from := a.from(); (!from.IsZero() && rec.time.Before(from)) || (a.tool != "" && rec.tool != a.tool) {
		return
	}
	if !a.until.IsZero() && rec.time.After(a.until) {
		return // dated after the period (a host whose clock runs fast)
	}
	a.calls++
	t := a.tools[rec.tool]
	if t == nil {
		t = &toolAgg{}
		a.tools[rec.tool] = t
	}
	t.calls++
	if rec.ok {
		a.ok++
		t.ok++
	} else {
		if t.errors == nil {
			t.errors = map[string]int64{}
		}
		t.errors[rec.errType]++
	}
	if t.packAt.IsZero() || !rec.time.Before(t.packAt) {
		t.pack, t.packAt = rec.pack, rec.time
	}
	t.total = time.Duration(addCapped(int64(t.total), int64(rec.dur)))
	t.durs = append(t.durs, rec.dur)
	t.in = addCapped(t.in, rec.bytesIn)
	t.out = addCapped(t.out, rec.bytesOut)
	key := rec.time.Truncate(a.unit).Unix()
	u := a.units[key]
	if u == nil {
		u = new([2]int64)
		a.units[key] = u
	}
	u[0]++
	if !rec.ok {
		u[1]++
	}
	if a.first.IsZero() || rec.time.Before(a.first) {
		a.first = rec.time
	}
}

// from is the earliest start a record may have to count: the period's
// start or the kept days' start, the later one (zero: any).
// FutureSkew is how far past its end a bounded period (day, week, month)
// still takes a record: a host sharing the store whose clock runs a little
// ahead is counted; a record dated later (a clock far off, a record
// written by hand) is left out of the period, as it did not happen in it.
const FutureSkew = 5 * time.Minute

func (a *aggregator) from() time.Time {
	if a.floor.After(a.since) {
		return a.floor
	}
	return a.since
}

// merge takes an Aggregator's figures as the records they fold.
func (a *aggregator) merge(f Aggregate) {
	for _, t := range f.Tools {
		if t.Calls <= 0 {
			continue
		}
		a.calls += t.Calls
		a.ok += t.Successes
		var errs map[string]int64
		if len(t.Errors) > 0 {
			errs = maps.Clone(t.Errors)
		}
		a.tools[t.Tool] = &toolAgg{pack: t.Pack, calls: t.Calls, ok: t.Successes, total: t.Duration, errors: errs,
			in: t.BytesIn, out: t.BytesOut, p50: t.P50, p95: t.P95}
	}
	for _, u := range f.Units {
		key := u.Start.Unix()
		c := a.units[key]
		if c == nil {
			c = new([2]int64)
			a.units[key] = c
		}
		c[0] += u.Calls
		c[1] += u.Failures
	}
	a.first = f.First
}

// estimate is calls × perCall, or math.MaxInt64 when the product does not
// fit: an estimate past int64 is shown as the largest one, never as a
// negative or wrapped number. Both factors are never negative.
func estimate(calls, perCall int64) int64 {
	if calls != 0 && perCall > math.MaxInt64/calls {
		return math.MaxInt64
	}
	return calls * perCall
}

// summary builds the result.
func (a *aggregator) summary(cfg *config) Summary {
	s := Summary{
		Period:       a.period,
		Tool:         a.tool,
		Since:        a.since,
		Until:        a.now,
		TotalCalls:   a.calls,
		SuccessRate:  rate(a.ok, a.calls),
		ContextSaved: estimate(a.calls, cfg.contextPerCall),
		TimeSavedMs:  estimate(a.calls, cfg.timePerCallMs),
		Tools:        make([]ToolSummary, 0, len(a.tools)),
	}
	for name, t := range a.tools {
		if t.durs != nil { // read record by record
			slices.Sort(t.durs)
			t.p50, t.p95 = percentile(t.durs, 50), percentile(t.durs, 95)
		}
		s.Tools = append(s.Tools, ToolSummary{
			Tool:        name,
			Pack:        t.pack,
			Calls:       t.calls,
			SuccessRate: rate(t.ok, t.calls),
			AvgMs:       ms(t.total / time.Duration(t.calls)),
			P50Ms:       ms(t.p50),
			P95Ms:       ms(t.p95),
			Errors:      t.errors,
			BytesIn:     t.in,
			BytesOut:    t.out,
		})
	}
	slices.SortFunc(s.Tools, func(x, y ToolSummary) int {
		if c := cmp.Compare(y.Calls, x.Calls); c != 0 {
			return c
		}
		return cmp.Compare(x.Tool, y.Tool)
	})
	s.Timeline = a.timeline()
	return s
}

// timeline spreads the counted units over equal buckets covering the
// period (for PeriodAll, from the first call's day), at most maxBuckets.
func (a *aggregator) timeline() []Bucket {
	if a.calls == 0 {
		return nil
	}
	var start time.Time
	width := a.unit
	switch a.period {
	case PeriodWeek:
		width = 6 * time.Hour
	case PeriodAll:
		width = 24 * time.Hour
	}
	if a.since.IsZero() {
		start = a.first.Truncate(width)
	} else {
		start = a.since.Truncate(width)
	}
	end := a.now
	if !end.After(start) {
		end = start.Add(width)
	}
	n := int((end.Sub(start) + width - 1) / width)
	if n > maxBuckets { // PeriodAll over a long time: wider buckets, whole days
		days := (n + maxBuckets - 1) / maxBuckets
		width *= time.Duration(days)
		n = int((end.Sub(start) + width - 1) / width)
	}
	n = max(n, 1)
	out := make([]Bucket, n)
	for i := range out {
		out[i].Start = start.Add(time.Duration(i) * width)
		out[i].End = out[i].Start.Add(width)
	}
	for key, u := range a.units {
		i := int(time.Unix(key, 0).Sub(start) / width)
		i = min(max(i, 0), n-1) // a call stamped after Now counts in the last bucket
		out[i].Calls += u[0]
		out[i].Failures += u[1]
	}
	return out
}

// percentile is the nearest-rank p-th percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i, 1)-1]
}

// rate is 100 × ok / calls rounded to one decimal; 0 without calls. It is
// 100 only when every call succeeded and 0 only when none did: a rate
// that rounds to either with a failure (or a success) among the calls is
// 99.9 (or 0.1).
func rate(ok, calls int64) float64 {
	if calls == 0 {
		return 0
	}
	r := math.Round(1000*float64(ok)/float64(calls)) / 10
	switch {
	case r == 100 && ok < calls:
		return 99.9 // 3 failures in 30,000 calls is not "always succeeds"
	case r == 0 && ok > 0:
		return 0.1 // nor is 1 success in 3,000 "never"
	}
	return r
}

// ms is d in milliseconds rounded to the microsecond.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/1e3) / 1e3
}

// addCapped is a+b for non-negative a and b, held at math.MaxInt64
// instead of wrapping round to a negative sum.
func addCapped(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}
