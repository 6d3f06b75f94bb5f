package pgstats_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/stats"
	"github.com/toolpack-go/toolpack/registry/stats/pgstats"
	"github.com/toolpack-go/toolpack/result"
)

func open(t testing.TB, dsn, schema string) *pgstats.Sink {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := pgstats.Open(ctx, dsn, pgstats.Options{Schema: schema, MaxConns: 4})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func all(t require.TestingT, s *pgstats.Sink, since time.Time) []stats.Record {
	var out []stats.Record
	trunc, err := s.Records(context.Background(), stats.RecordQuery{Since: since, Limit: 1 << 40}, func(r stats.Record) { out = append(out, r) })
	require.NoError(t, err)
	require.False(t, trunc)
	return out
}

// What Append stores, Records reads back whole — times to the nanosecond,
// every field — newest first, and only the records at or after since.
func TestSink_RoundTrip(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, pgtest.FreshSchema(t, dsn))
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var stored []stats.Record
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(rt, "n")
		batch := make([]stats.Record, n)
		for i := range batch {
			r := stats.Record{
				Time:     base.Add(time.Duration(rapid.Int64Range(0, int64(48*time.Hour)).Draw(rt, "at"))),
				Tool:     rapid.StringMatching(`[a-z][a-z_.]{0,20}`).Draw(rt, "tool"),
				Pack:     rapid.SampledFrom([]string{"", "web", "oj"}).Draw(rt, "pack"),
				Duration: time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(rt, "dur")),
				Success:  rapid.Bool().Draw(rt, "ok"),
				BytesIn:  rapid.Int64Range(0, 1<<40).Draw(rt, "in"),
				BytesOut: rapid.Int64Range(0, 1<<40).Draw(rt, "out"),
			}
			if !r.Success {
				r.ErrorType = rapid.StringMatching(`[a-z_]{1,12}`).Draw(rt, "err")
			}
			batch[i] = r
		}
		require.NoError(rt, s.Append(context.Background(), batch))
		stored = append(stored, batch...)
		since := base.Add(time.Duration(rapid.Int64Range(0, int64(48*time.Hour)).Draw(rt, "since")))
		var want []stats.Record
		for _, r := range stored {
			if !r.Time.Before(since) {
				want = append(want, r)
			}
		}
		got := all(rt, s, since)
		require.Len(rt, got, len(want))
		for i := 1; i < len(got); i++ {
			require.False(rt, got[i].Time.After(got[i-1].Time), "newest first")
		}
		key := func(a, b stats.Record) int {
			if c := a.Time.Compare(b.Time); c != 0 {
				return c
			}
			return strings.Compare(fmt.Sprintf("%+v", a), fmt.Sprintf("%+v", b))
		}
		slices.SortFunc(want, key)
		slices.SortFunc(got, key)
		for i := range got {
			require.True(rt, want[i].Time.Equal(got[i].Time), "time %v, want %v", got[i].Time, want[i].Time)
			got[i].Time = want[i].Time
		}
		require.Equal(rt, want, got)
	})
}

// Records stops at its limit and says so; Summary then reports Truncated.
func TestSink_Limit(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, pgtest.FreshSchema(t, dsn))
	now := time.Now().UTC()
	var batch []stats.Record
	for i := range 10 {
		batch = append(batch, stats.Record{Time: now.Add(-time.Duration(i) * time.Second), Tool: "t", Success: true})
	}
	require.NoError(t, s.Append(context.Background(), batch))
	var got []stats.Record
	trunc, err := s.Records(context.Background(), stats.RecordQuery{Limit: 4}, func(r stats.Record) { got = append(got, r) })
	require.NoError(t, err)
	assert.True(t, trunc)
	require.Len(t, got, 4)
	assert.True(t, got[0].Time.Equal(now), "the newest first")
	_, err = s.Records(context.Background(), stats.RecordQuery{}, func(stats.Record) {})
	assert.ErrorContains(t, err, "Limit must be > 0")
}

// A batch is stored whole or not at all: a COPY interrupted mid-way (its
// context cancelled) leaves none of its rows.
func TestSink_AppendAllOrNothing(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, pgtest.FreshSchema(t, dsn))
	now := time.Now().UTC()
	batch := make([]stats.Record, 300_000)
	for i := range batch {
		batch[i] = stats.Record{Time: now, Tool: "bulk", Success: true, BytesIn: int64(i)}
	}
	sawCancel := false
	for _, d := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		err := s.Append(ctx, batch)
		cancel()
		n := len(all(t, s, time.Time{}))
		if err != nil {
			sawCancel = true
			require.Zero(t, n%len(batch), "a failed COPY left %d rows", n)
		}
	}
	require.True(t, sawCancel, "no Append was interrupted: the test proved nothing")
	// Bad records are refused before anything is sent, naming the record.
	err := s.Append(context.Background(), []stats.Record{{Time: now, Tool: "ok", Success: true}, {Time: now, Tool: "neg", Duration: -1}})
	require.ErrorContains(t, err, "record 1")
}

// Text PostgreSQL cannot hold (NUL) is stored replaced, never refused: a
// refused batch would stay buffered and block every later record.
func TestSink_NULStored(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, pgtest.FreshSchema(t, dsn))
	require.NoError(t, s.Append(context.Background(), []stats.Record{{Time: time.Now(), Tool: "t", ErrorType: "bad\x00type"}}))
	got := all(t, s, time.Time{})
	require.Len(t, got, 1)
	assert.Equal(t, "bad\uFFFDtype", got[0].ErrorType)
}

// Invalid UTF-8 in any text field (a tool registered with a pack name
// that is not UTF-8) is stored replaced: PostgreSQL refused the whole
// batch (SQLSTATE 22021), which stayed buffered, so that no call of any
// tool was recorded again.
func TestSink_InvalidUTF8Stored(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, pgtest.FreshSchema(t, dsn))
	now := time.Now()
	require.NoError(t, s.Append(context.Background(), []stats.Record{
		{Time: now, Tool: "good", Pack: "p", Success: true},
		{Time: now, Tool: "odd\xff", Pack: "p\xff", ErrorType: "e\xfe", BytesIn: 1},
	}))
	got := all(t, s, time.Time{})
	require.Len(t, got, 2)
	var odd stats.Record
	for _, r := range got {
		if r.BytesIn == 1 {
			odd = r
		}
	}
	assert.Equal(t, "odd\uFFFD", odd.Tool)
	assert.Equal(t, "p\uFFFD", odd.Pack)
	assert.Equal(t, "e\uFFFD", odd.ErrorType)
}

// Several hosts, one table: ot.stats on any host aggregates the calls of
// every host (two Recorders, two Sinks, one schema).
func TestTwoHosts_SummaryCountsEveryHost(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	var recs [2]*stats.Recorder
	var regs [2]*registry.Registry
	for i := range recs {
		r, err := stats.New(stats.Options{Enabled: true, Sink: open(t, dsn, schema), FlushInterval: time.Hour, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close(context.Background()) })
		recs[i] = r
		reg := registry.New(registry.Options{Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, registry.AddFunc(reg, "echo", func(_ context.Context, a struct {
			S string `json:"s"`
		}) (result.Result[string], error) {
			if a.S == "" {
				return result.Failure[string]("empty", result.ValidationError), nil
			}
			return result.Ok(a.S), nil
		}, registry.ToolOptions{Doc: "Echoes."}))
		reg.Use(r.Middleware())
		regs[i] = reg
	}
	var wg sync.WaitGroup
	for i, reg := range regs {
		wg.Go(func() {
			for j := range 50 + 25*i {
				arg := `{"s":"x"}`
				if j%5 == 0 {
					arg = `{"s":""}`
				}
				_, _ = reg.Invoke(context.Background(), "echo", []byte(arg))
			}
		})
	}
	wg.Wait()
	for _, r := range recs {
		require.NoError(t, r.Flush(context.Background()))
	}
	for _, r := range recs {
		s, err := r.Summary(context.Background(), stats.Query{Period: stats.PeriodDay})
		require.NoError(t, err)
		require.Equal(t, int64(125), s.TotalCalls, "every host's calls")
		require.Len(t, s.Tools, 1)
		assert.Equal(t, int64(25), s.Tools[0].Errors["validation_error"])
	}
}

// The table's schema is migrated once: a second Open of the same schema
// (another host starting) finds it in place.
func TestOpen_TwiceSameSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	a := open(t, dsn, schema)
	b := open(t, dsn, schema)
	require.NoError(t, a.Append(context.Background(), []stats.Record{{Time: time.Now(), Tool: "t", Success: true}}))
	assert.Len(t, all(t, b, time.Time{}), 1)
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var v int
	require.NoError(t, conn.QueryRow(context.Background(), "SELECT version FROM "+pgx.Identifier{schema, "stats_schema_version"}.Sanitize()).Scan(&v))
	assert.Equal(t, 1, v)
}

// After Close every method fails with ErrClosed; a second Close is fine.
func TestSink_Closed(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, pgtest.FreshSchema(t, dsn))
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.Append(context.Background(), []stats.Record{{Time: time.Now(), Tool: "t"}}), pgstats.ErrClosed)
	_, err := s.Records(context.Background(), stats.RecordQuery{Limit: 1}, func(stats.Record) {})
	assert.ErrorIs(t, err, pgstats.ErrClosed)
}

// recordedPing is a registry with one tool, ping, whose calls a Recorder
// (flushing only when asked) records into sink.
func recordedPing(t *testing.T, sink *pgstats.Sink) (*stats.Recorder, *registry.Registry) {
	t.Helper()
	rec, err := stats.New(stats.Options{Enabled: true, Sink: sink, FlushInterval: time.Hour, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = rec.Close(context.Background()) })
	reg := registry.New(registry.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, registry.AddFunc(reg, "ping", func(context.Context, struct{}) (result.Result[string], error) {
		return result.Ok("pong"), nil
	}, registry.ToolOptions{Doc: "Pongs."}))
	reg.UseOuter(rec.Middleware())
	return rec, reg
}

// The database dropping the sink's connections costs no summary: a read
// whose connection was lost before any record came resets the pool and
// asks again; a flush that fails keeps its records buffered for the next.
func TestFault_ConnectionsDropped(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	rec, reg := recordedPing(t, open(t, dsn, schema))
	admin, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer admin.Close(context.Background())
	for i := range 10 {
		_, err := reg.Invoke(context.Background(), "ping", []byte(`{}`))
		require.NoError(t, err)
		_, err = admin.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, "pgstats:"+schema)
		require.NoError(t, err)
		s, err := rec.Summary(context.Background(), stats.Query{}) // flushes, then reads
		require.NoError(t, err, "round %d", i)
		require.Equal(t, int64(i+1), s.TotalCalls, "round %d: every call counted once", i)
	}
}

// A flush whose COMMIT reached the database but whose answer was lost
// (the connection cut right after it) is counted once: the sink asks the
// database whether the batch committed instead of failing and having the
// Recorder write it again on its next flush.
func TestFault_CommitAnswerLostCountsOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	out, relayed := pgtest.NewOutage(t, dsn)
	rec, reg := recordedPing(t, open(t, relayed, pgtest.FreshSchema(t, dsn)))
	for i := range 3 {
		_, err := reg.Invoke(context.Background(), "ping", []byte(`{}`))
		require.NoError(t, err)
		out.CutNextCommit()
		s, err := rec.Summary(context.Background(), stats.Query{}) // flushes, then reads
		require.NoError(t, err)
		require.Equal(t, int64(i+1), s.TotalCalls, "round %d", i)
	}
	s, err := rec.Summary(context.Background(), stats.Query{})
	require.NoError(t, err)
	assert.Equal(t, int64(3), s.TotalCalls, "no batch written twice")
}

// The database going away: a summary, a read and a write fail with an
// error that is stats.ErrUnavailable (ot.stats answers "try again in a
// moment"); calls still succeed and the
// Recorder keeps their records; once the database is back, every call
// made meanwhile is counted.
func TestFault_DatabaseAwayIsUnavailable(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	outage, via := pgtest.NewOutage(t, dsn)
	sink := open(t, via, schema)
	rec, reg := recordedPing(t, sink)
	ctx := context.Background()
	ping := func() {
		t.Helper()
		res, err := reg.Invoke(ctx, "ping", []byte(`{}`))
		require.NoError(t, err)
		require.True(t, res.Success)
	}
	ping()
	ping()
	s, err := rec.Summary(ctx, stats.Query{})
	require.NoError(t, err)
	require.EqualValues(t, 2, s.TotalCalls)

	outage.Down()
	for range 3 {
		ping()
	}
	_, err = rec.Summary(ctx, stats.Query{})
	require.ErrorIs(t, err, stats.ErrUnavailable, "a summary")
	err = sink.Append(ctx, []stats.Record{{Time: time.Now(), Tool: "x"}})
	require.ErrorIs(t, err, stats.ErrUnavailable, "a write")
	_, err = sink.Records(ctx, stats.RecordQuery{Limit: 10}, func(stats.Record) {})
	require.ErrorIs(t, err, stats.ErrUnavailable, "a read")
	_, err = sink.Aggregate(ctx, stats.AggregateQuery{Unit: time.Hour})
	require.ErrorIs(t, err, stats.ErrUnavailable, "an aggregate")

	outage.Up()
	s, err = rec.Summary(ctx, stats.Query{})
	require.NoError(t, err, "the database is back")
	assert.EqualValues(t, 5, s.TotalCalls, "the calls made while it was away were kept and written")
}

// A tool filter is applied by the database: only that tool's records are
// read, and the limit counts only them.
func TestSink_ToolFilter(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, pgtest.FreshSchema(t, dsn))
	now := time.Now().UTC()
	var batch []stats.Record
	for i := range 30 {
		tool := []string{"web.search", "web.fetch", "ot.stats"}[i%3]
		batch = append(batch, stats.Record{Time: now.Add(-time.Duration(i) * time.Second), Tool: tool, Success: true})
	}
	require.NoError(t, s.Append(context.Background(), batch))
	var got []string
	trunc, err := s.Records(context.Background(), stats.RecordQuery{Tool: "web.fetch", Limit: 100}, func(r stats.Record) { got = append(got, r.Tool) })
	require.NoError(t, err)
	assert.False(t, trunc)
	assert.Equal(t, slices.Repeat([]string{"web.fetch"}, 10), got)
	got = nil
	trunc, err = s.Records(context.Background(), stats.RecordQuery{Tool: "web.fetch", Since: now.Add(-10 * time.Second), Limit: 2}, func(r stats.Record) { got = append(got, r.Tool) })
	require.NoError(t, err)
	assert.True(t, trunc, "4 of the tool's records are in the period, the limit is 2")
	assert.Len(t, got, 2)
}

// recordsOnly hides Aggregate: a Recorder over it reads every record and
// folds them itself, as over any Sink.
type recordsOnly struct{ stats.Sink }

// The database folds the records exactly as a Summary folds them read one
// by one: for any records, period and tool filter, the Summary over the
// aggregating Sink equals the Summary over the same Sink read record by
// record — totals, rates, per-tool percentiles, error counts, packs and
// the timeline.
func TestAggregate_EqualsFoldingEveryRecord(t *testing.T) {
	dsn := pgtest.DSN(t)
	sink := open(t, dsn, pgtest.FreshSchema(t, dsn))
	now := time.Date(2026, 11, 28, 10, 30, 0, 123456789, time.UTC)
	clock := func() time.Time { return now }
	newRec := func(s stats.Sink) *stats.Recorder {
		r, err := stats.New(stats.Options{Enabled: true, Sink: s, FlushInterval: time.Hour, Now: clock, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close(context.Background()) })
		return r
	}
	folded, readEach := newRec(sink), newRec(recordsOnly{sink})
	tools := []string{"add", "web.search", "ot.stats", "x"}
	next := 0
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(rt, "n")
		batch := make([]stats.Record, n)
		for i := range batch {
			next++
			r := stats.Record{
				// Distinct times (the pack shown is that of a tool's latest
				// call), from 45 days ago to an hour after now (past
				// stats.FutureSkew: left out of the bounded periods).
				Time:     now.Add(time.Duration(rapid.Int64Range(-45*24*3600*1000, 3600*1000).Draw(rt, "ms"))*time.Millisecond + time.Duration(next)),
				Tool:     rapid.SampledFrom(tools).Draw(rt, "tool"),
				Pack:     rapid.SampledFrom([]string{"", "web", "oj"}).Draw(rt, "pack"),
				Duration: time.Duration(rapid.Int64Range(0, int64(10*time.Second)).Draw(rt, "dur")),
				Success:  rapid.Bool().Draw(rt, "ok"),
				BytesIn:  rapid.Int64Range(0, 1<<30).Draw(rt, "in"),
				BytesOut: rapid.Int64Range(0, 1<<30).Draw(rt, "out"),
			}
			if !r.Success {
				r.ErrorType = rapid.SampledFrom([]string{"", "validation_error", "timeout"}).Draw(rt, "err")
			}
			batch[i] = r
		}
		require.NoError(rt, sink.Append(context.Background(), batch))
		q := stats.Query{
			Period: rapid.SampledFrom([]string{"", stats.PeriodDay, stats.PeriodWeek, stats.PeriodMonth, stats.PeriodAll}).Draw(rt, "period"),
			Tool:   rapid.SampledFrom(append([]string{"", "nope"}, tools...)).Draw(rt, "filter"),
		}
		want, err := readEach.Summary(context.Background(), q)
		require.NoError(rt, err)
		got, err := folded.Summary(context.Background(), q)
		require.NoError(rt, err)
		require.Equal(rt, want, got)
	})
}

// A summary over the aggregating Sink is never cut short: MaxReadBytes
// bounds what a Summary reads record by record, not what the database
// folds.
func TestAggregate_NeverTruncated(t *testing.T) {
	dsn := pgtest.DSN(t)
	sink := open(t, dsn, pgtest.FreshSchema(t, dsn))
	now := time.Now().UTC()
	var batch []stats.Record
	for i := range 500 {
		batch = append(batch, stats.Record{Time: now.Add(-time.Duration(i) * time.Second), Tool: "t", Success: i%10 != 0, Duration: time.Duration(i) * time.Millisecond})
	}
	require.NoError(t, sink.Append(context.Background(), batch))
	for name, s := range map[string]stats.Sink{"folded by the database": sink, "read record by record": recordsOnly{sink}} {
		r, err := stats.New(stats.Options{Enabled: true, Sink: s, MaxReadBytes: 160 * 100, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		sum, err := r.Summary(context.Background(), stats.Query{Period: stats.PeriodDay})
		require.NoError(t, err)
		require.NoError(t, r.Close(context.Background()))
		if name == "folded by the database" {
			assert.False(t, sum.Truncated, name)
			assert.Equal(t, int64(500), sum.TotalCalls, name)
			assert.Equal(t, 90.0, sum.SuccessRate, name)
			assert.Equal(t, 474.0, sum.Tools[0].P95Ms, "rank ⌈0.95 × 500⌉ = 475 of 0…499 ms")
		} else {
			assert.True(t, sum.Truncated, name)
			assert.Equal(t, int64(100), sum.TotalCalls, name)
		}
	}
}

// Aggregate checks its query and fails after Close.
func TestAggregate_BadQueryAndClosed(t *testing.T) {
	dsn := pgtest.DSN(t)
	sink := open(t, dsn, pgtest.FreshSchema(t, dsn))
	_, err := sink.Aggregate(context.Background(), stats.AggregateQuery{Unit: 1500 * time.Millisecond})
	assert.ErrorContains(t, err, "AggregateQuery.Unit must be a whole number of seconds > 0, got 1.5s")
	_, err = sink.Aggregate(context.Background(), stats.AggregateQuery{})
	assert.ErrorContains(t, err, "got 0s")
	a, err := sink.Aggregate(context.Background(), stats.AggregateQuery{Unit: time.Hour})
	require.NoError(t, err)
	assert.Equal(t, stats.Aggregate{}, a, "no records, nothing folded")
	require.NoError(t, sink.Close())
	_, err = sink.Aggregate(context.Background(), stats.AggregateQuery{Unit: time.Hour})
	assert.ErrorIs(t, err, pgstats.ErrClosed)
}

// Prune deletes exactly the records that started before the cutoff, to the
// nanosecond (below timestamptz's microsecond), however many there are;
// two hosts pruning at once both succeed and together delete each record
// once; a Recorder with KeepDays leaves the older ones out of summaries.
func TestSink_Prune(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	s := open(t, dsn, schema)
	other := open(t, dsn, schema)
	ctx := context.Background()
	cutoff := time.Date(2026, 11, 20, 12, 0, 0, 500, time.UTC)
	old := make([]stats.Record, 120_000) // more than one batch
	for i := range old {
		old[i] = stats.Record{Time: cutoff.Add(-time.Duration(i+1) * time.Second), Tool: "old", Success: true}
	}
	old[0].Time = cutoff.Add(-time.Nanosecond) // same microsecond, before
	require.NoError(t, s.Append(ctx, old))
	kept := []stats.Record{
		{Time: cutoff, Tool: "kept", Success: true},
		{Time: cutoff.Add(time.Nanosecond), Tool: "kept", Success: true},
		{Time: cutoff.Add(48 * time.Hour), Tool: "kept", Success: true},
	}
	require.NoError(t, s.Append(ctx, kept))

	var n [2]int64
	var errs [2]error
	var wg sync.WaitGroup
	for i, sink := range []*pgstats.Sink{s, other} {
		wg.Go(func() { n[i], errs[i] = sink.Prune(ctx, cutoff) })
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.EqualValues(t, len(old), n[0]+n[1], "every old record deleted once")
	left := all(t, s, time.Time{})
	require.Len(t, left, len(kept))
	for _, r := range left {
		assert.Equal(t, "kept", r.Tool)
	}
	n0, err := s.Prune(ctx, cutoff)
	require.NoError(t, err)
	assert.Zero(t, n0, "nothing left to delete")

	rec, err := stats.New(stats.Options{Enabled: true, Sink: s, KeepDays: 1, FlushInterval: time.Hour,
		Now: func() time.Time { return cutoff.Add(48*time.Hour + time.Minute) }, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer func() { _ = rec.Close(ctx) }()
	sum, err := rec.Summary(ctx, stats.Query{})
	require.NoError(t, err)
	assert.EqualValues(t, 1, sum.TotalCalls, "only the last day's record counts with keep_days 1")
	require.NoError(t, rec.Prune(ctx))
	assert.Len(t, all(t, s, time.Time{}), 1)

	require.NoError(t, s.Close())
	_, err = s.Prune(ctx, cutoff)
	require.ErrorIs(t, err, pgstats.ErrClosed)
}
