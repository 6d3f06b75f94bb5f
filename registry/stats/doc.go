// Package stats records every tool call a Registry runs and answers "how
// are my tools used?": calls, success rate, durations, errors and bytes per
// tool, over the last day, week, month or all time, as data (Summary, what
// the ot.stats tool shows) or as a self-contained HTML report.
//
// # Recording
//
// A Recorder is made once by the host from its configuration's `stats:`
// section and its middleware is added to the registry:
//
//	rec, err := stats.New(stats.Options{Enabled: true, Dir: "stats"})
//	…
//	reg.UseOuter(rec.Middleware())
//	defer rec.Close(ctx) // writes what is still buffered
//
// The middleware costs a few hundred nanoseconds per call (BENCHMARKS.md):
// it buffers a small record in memory and never waits for the disk. A
// flusher appends the buffer to the files every Options.FlushInterval, and
// sooner when many calls are buffered; Flush, Close and Summary write it
// too. What a process killed outright (SIGKILL, a crash, the power) had
// not yet flushed is lost: the calls of about one FlushInterval, fewer
// on a busy server, where 4096 buffered calls start a flush early; choose
// the interval with that in mind. A record is written whole or
// not at all, so such a stop never leaves a partial one; a stop by Close
// (examples/server on SIGTERM or SIGINT) loses nothing. A snippet call is
// recorded once for itself and once for each step it runs, since every
// step is a call of its own through the registry. A configuration reload
// calls Reconfigure; the middleware stays
// installed and follows the new options (switching recording off makes it
// a pass-through).
//
// Installed with Registry.UseOuter, the middleware records every call of a
// tool, also those refused for their arguments (error type
// validation_error: a model sending bad arguments shows in the success
// rate); installed with Use, only calls whose arguments passed. Calls
// refused before any middleware (an unknown tool, a disabled tool) are not
// recorded.
//
// # Files
//
// Records are JSON Lines, one file per UTC day, named stats-YYYY-MM-DD.jsonl
// after the day the calls started, under Options.Dir:
//
//	{"time":"2026-11-23T16:52:00.123456789Z","tool":"brave.search","pack":"brave","duration_ns":1234567,"success":true,"bytes_in":42,"bytes_out":5120}
//	{"time":"2026-11-23T16:52:01.5Z","tool":"brave.search","pack":"brave","duration_ns":30000000000,"success":false,"error_type":"timeout","bytes_in":42,"bytes_out":36}
//
// A Summary only opens the files its period reaches. Records survive
// restarts: a new Recorder on the same directory sees them. They are kept
// until Options.KeepDays (stats.keep_days) says otherwise: with it, the
// flusher removes the day files that hold nothing newer than that many
// days, when it starts and then every PruneInterval, and every Summary
// leaves older records out (also those of a day file still kept); a Sink
// removes its rows itself (Pruner). Deleting a day's file by hand removes
// that day too.
//
// Several processes may record into one directory. Each batch is appended
// while holding an exclusive lock on stats.lock in that directory
// (github.com/gofrs/flock), and Summary reads under the shared lock, so
// lines are never interleaved or read half-written, whatever the batch size
// and file system. A line left half-written by a process that crashed is
// skipped and counted (Summary.CorruptLines), never fatal; the next writer
// starts on a new line so the records after it are whole. A Summary reads at
// most Options.MaxReadBytes, newest records first, and says when it stopped
// early (Summary.Truncated).
//
// # Other stores: a Sink
//
// Options.Sink replaces the files: the Recorder appends each flushed batch
// to it and Summary reads the period back from it, aggregating exactly as
// from files. registry/stats/pgstats is a Sink keeping the records in
// PostgreSQL (the host configuration's stats.dsn), so that every host
// given the same database records into one table and a Summary on any of
// them counts the calls of all. A batch the Sink refuses stays buffered
// for the next flush, as with files. While flushes keep failing (a
// database that is down: its Sink's errors are ErrUnavailable) the
// flusher waits twice as long after each failure, up to 30 seconds, and
// logs only the 1st, 2nd, 4th, 8th … failure in a row, then one line when
// writing works again. A Sink that is also an Aggregator
// (pgstats is) folds a summary's records where they are kept — one row per
// tool, error type and timeline unit comes back instead of every record —
// with the same figures, never Truncated: its cost does not depend on
// Options.MaxReadBytes, and neither does the memory or the network a
// summary uses.
//
// # Summaries and reports
//
// Summary aggregates a Query: a period (day = the last 24 hours, week = 7
// days, month = 30 days, all) and an optional tool name. context_saved and
// time_saved_ms multiply the calls by Options.ContextPerCall and
// Options.TimePerCallMs. Errors meant to be shown to a model or a user carry
// their text ready to show: an invalid period (*PeriodError), stats switched
// off (ErrDisabled, DisabledMessage) and a report that cannot be written
// (*ReportError).
//
// WriteReport renders a Summary as one HTML file with inline SVG charts
// (calls over time, duration per tool) and a table of the tools grouped by
// pack. It loads nothing from elsewhere, escapes every name, and is only
// ever written inside Options.ReportsDir.
package stats
