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
