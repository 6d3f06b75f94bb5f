package stats

import (
	"context"
	"time"
)

// Record is one recorded call, as a [Sink] stores it and reads it back.
type Record struct {
	// Time is when the call started.
	Time time.Time
	// Tool is the tool's final name.
	Tool string
	// Pack is the tool's pack, "" for none.
	Pack string
	// Duration is how long the call took.
	Duration time.Duration
	// Success reports whether the call succeeded.
	Success bool
	// ErrorType is the failure's error type; "" on success.
	ErrorType string
	// BytesIn is the size of the raw arguments.
	BytesIn int64
	// BytesOut is the size of the value, or of the failure's text.
	BytesOut int64
}

// Sink keeps a Recorder's records somewhere else than the JSON Lines files
// of Options.Dir — a database several hosts share (package
// registry/stats/pgstats keeps them in PostgreSQL), so that Summary
// aggregates every host's calls. A Sink must be safe for concurrent use.
type Sink interface {
	// Append stores recs, all of them or none (the Recorder keeps them
	// buffered for its next flush when Append fails).
	Append(ctx context.Context, recs []Record) error
	// Records calls fn with the records q selects, newest first, stopping
	// after q.Limit of them; truncated reports that the limit stopped it.
	Records(ctx context.Context, q RecordQuery, fn func(Record)) (truncated bool, err error)
}

// Pruner is a Sink that removes old records, for Options.KeepDays.
type Pruner interface {
	// Prune removes the records of calls that started before cutoff and
	// returns how many it removed. Several hosts may prune one store at
	// once.
	Prune(ctx context.Context, cutoff time.Time) (int64, error)
}

// RecordQuery selects the records a Sink reads back for a Summary.
type RecordQuery struct {
	// Since keeps the records whose Time is at or after it; zero keeps
	// every record.
	Since time.Time
	// Tool, when set, keeps only the records of the tool with this final
	// name.
	Tool string
	// Limit is the most records to read (at least 1).
	Limit int64
}

// exported is r as a Record.
func (r *record) exported() Record {
	return Record{Time: r.time, Tool: r.tool, Pack: r.pack, Duration: r.dur, Success: r.ok,
		ErrorType: r.errType, BytesIn: r.bytesIn, BytesOut: r.bytesOut}
}

// fromRecord is the record of a Record a Sink read back.
func fromRecord(x Record) record {
	return record{time: x.Time, tool: x.Tool, pack: x.Pack, dur: x.Duration, ok: x.Success,
		errType: failureType(x.Success, x.ErrorType), bytesIn: x.BytesIn, bytesOut: x.BytesOut}
}

// approxRecordBytes is the size of a typical record line: a Sink's
// Records limit is Options.MaxReadBytes divided by it, so that a Summary
// reads about as much from a Sink as from files.
const approxRecordBytes = 160

// writeSink appends recs to sink.
func writeSink(ctx context.Context, sink Sink, recs []record, out []Record) ([]Record, error) {
	out = out[:0]
	for i := range recs {
		out = append(out, recs[i].exported())
	}
	err := sink.Append(ctx, out)
	clear(out)
	return out, err
}

// readSink reads the records at or after since, of tool when set, from
// sink.
func readSink(ctx context.Context, sink Sink, since time.Time, tool string, budget int64, fn func(*record)) (readStats, error) {
	q := RecordQuery{Since: since, Tool: tool, Limit: max(budget/approxRecordBytes, 1)}
	truncated, err := sink.Records(ctx, q, func(x Record) {
		r := fromRecord(x)
		fn(&r)
	})
	return readStats{truncated: truncated}, err
}

// Aggregator is implemented by a Sink that can aggregate its records
// where it keeps them (pgstats does, in SQL). A Summary over such a Sink
// receives one entry per tool and per timeline unit instead of every
// record of the period, so the Recorder's memory and the traffic to the
// Sink do not grow with the number of calls, and the Summary is never
// Truncated: Options.MaxReadBytes does not apply.
type Aggregator interface {
	// Aggregate folds the records q selects. Its figures must equal those a
	// Summary computes from the same records read one by one.
	Aggregate(ctx context.Context, q AggregateQuery) (Aggregate, error)
}

// AggregateQuery selects and groups the records an Aggregator folds.
type AggregateQuery struct {
	// Since keeps the records whose Time is at or after it, to the
	// nanosecond; zero keeps every record.
	Since time.Time
	// Until, when set, keeps only the records whose Time is at or before
	// it (a bounded period ends at its query's Now, give or take
	// FutureSkew); zero keeps every later record.
	Until time.Time
	// Tool, when set, keeps only the records of the tool with this final
	// name.
	Tool string
	// Unit is the timeline's counting unit, a whole number of seconds (an
	// hour or a day): records are counted by Time truncated to a multiple
	// of Unit since the Unix epoch.
	Unit time.Duration
}

// Aggregate is what an Aggregator returns.
type Aggregate struct {
	// Tools has one entry per tool with records, in any order.
	Tools []ToolAggregate
	// Units counts the records per timeline unit, in any order.
	Units []UnitAggregate
	// First is the earliest record's Time; zero without records.
	First time.Time
}

// ToolAggregate is one tool's records folded.
type ToolAggregate struct {
	// Tool is the tool's final name.
	Tool string
	// Pack is the pack of the tool's latest record.
	Pack string
	// Calls counts the records; Successes those of successful calls.
	Calls, Successes int64
	// Duration is the sum of the calls' durations.
	Duration time.Duration
	// P50 and P95 are the nearest-rank percentiles of the durations: the
	// value at rank ⌈p × Calls / 100⌉ of the durations sorted ascending.
	P50, P95 time.Duration
	// Errors counts the failures by error type; a failure without a type
	// counts as "unknown".
	Errors map[string]int64
	// BytesIn and BytesOut are the sums of the records' sizes.
	BytesIn, BytesOut int64
}

// UnitAggregate counts the records of one timeline unit.
type UnitAggregate struct {
	// Start is the unit's start.
	Start time.Time
	// Calls counts the records; Failures those of failed calls.
	Calls, Failures int64
}
