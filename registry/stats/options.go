package stats

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"
)

// Defaults applied to a zero field of Options.
const (
	// DefaultFlushInterval is how often buffered records are written when
	// Options.FlushInterval is zero.
	DefaultFlushInterval = time.Second
	// MinFlushInterval is the shortest Options.FlushInterval: a shorter
	// one would keep the flusher busy for nothing.
	MinFlushInterval = 10 * time.Millisecond
	// NoEstimate, as Options.ContextPerCall or TimePerCallMs, estimates
	// nothing saved (a configuration's explicit 0), where zero means the
	// default.
	NoEstimate = -1
	// DefaultContextPerCall is the context tokens one call is estimated to
	// save when Options.ContextPerCall is zero.
	DefaultContextPerCall = 2000
	// DefaultTimePerCallMs is the milliseconds one call is estimated to save
	// when Options.TimePerCallMs is zero.
	DefaultTimePerCallMs = 3000
	// DefaultMaxReadBytes bounds the bytes of records one Summary reads when
	// Options.MaxReadBytes is zero.
	DefaultMaxReadBytes = 512 << 20
	// DefaultMaxPending bounds the records buffered in memory between two
	// flushes when Options.MaxPending is zero.
	DefaultMaxPending = 1 << 18
	// MaxKeepDays is the largest Options.KeepDays (a century).
	MaxKeepDays = 36500
	// ReportsSubdir is where reports go, under Options.Dir, when
	// Options.ReportsDir is empty.
	ReportsSubdir = "reports"
)

// Options configure a Recorder. They mirror the host configuration's
// `stats:` section (enabled, dir, flush_interval, context_per_call,
// time_per_call_ms, keep_days) and `output.reports_dir`; the host resolves
// relative paths against the directory of the file that set them.
//
// The zero value is a disabled Recorder: its middleware records nothing and
// Summary returns ErrDisabled. Every other zero field takes the default
// named in its comment.
type Options struct {
	// Enabled turns recording and Summary on (config stats.enabled).
	Enabled bool
	// Dir holds the record files (config stats.dir). Required when Enabled
	// without a Sink; created if missing.
	Dir string
	// Sink, when set, keeps the records instead of Dir's files (config
	// stats.dsn: registry/stats/pgstats keeps them in PostgreSQL, shared by
	// every host). Reports still go to ReportsDir (by default under Dir).
	// The Recorder does not close it.
	Sink Sink
	// FlushInterval is how often buffered records are appended to their
	// files (config stats.flush_interval); zero means DefaultFlushInterval,
	// otherwise at least MinFlushInterval.
	// Records are also written by Flush, Close, Summary and when many calls
	// are buffered.
	FlushInterval time.Duration
	// ContextPerCall is the context tokens one call is estimated to save
	// (config stats.context_per_call): context_saved = calls × this. Zero
	// means DefaultContextPerCall; NoEstimate, none (context_saved 0).
	ContextPerCall int64
	// TimePerCallMs is the milliseconds one call is estimated to save
	// (config stats.time_per_call_ms): time_saved_ms = calls × this. Zero
	// means DefaultTimePerCallMs; NoEstimate, none (time_saved_ms 0).
	TimePerCallMs int64
	// KeepDays, when positive, is how many days of records are kept
	// (config stats.keep_days): records of calls that started longer ago
	// are left out of every Summary and removed from the store — the day
	// files that hold nothing newer, or, with a Sink, the rows (the Sink
	// must be a Pruner). The flusher removes them when it starts and then
	// every PruneInterval, on a goroutine of its own so that flushes go
	// on meanwhile; Prune removes them at once. Zero keeps every record.
	KeepDays int
	// ReportsDir is the only directory HTML reports are written to (config
	// output.reports_dir); empty means Dir/ReportsSubdir.
	ReportsDir string
	// MaxReadBytes bounds the bytes of records one Summary reads; the
	// newest records are read first and a Summary that reached the bound
	// says so (Truncated). Zero means DefaultMaxReadBytes. A Sink that is
	// an Aggregator folds the records itself and is not bounded by it.
	MaxReadBytes int64
	// MaxPending bounds the records buffered in memory between flushes;
	// calls beyond it (a store that cannot keep up) are counted as dropped
	// and logged, never blocked. Zero means DefaultMaxPending.
	MaxPending int
	// Now is the clock stamping records and ending periods; nil means
	// time.Now. Durations are always measured with the monotonic clock.
	Now func() time.Time
	// Logger receives write failures and dropped records (never argument
	// or result values); nil means slog.Default() when New runs. Only
	// New reads it: Reconfigure keeps the first.
	Logger *slog.Logger
}

// Errors of this package; check with errors.Is.
var (
	// ErrDisabled: Summary or WriteReport on a Recorder whose Options have
	// Enabled false. Its text is DisabledMessage, ready to show.
	ErrDisabled = errors.New(DisabledMessage)
	// ErrInvalidPeriod: a Query's period is not day, week, month or all;
	// the error is a *PeriodError whose text is the one to show.
	ErrInvalidPeriod = errors.New("stats: invalid period")
	// ErrInvalidOptions: New or Reconfigure refused the Options (the error
	// names the field).
	ErrInvalidOptions = errors.New("stats: invalid options")
	// ErrOutsideReportsDir: a report path that escapes the reports
	// directory (.., an absolute path elsewhere, a symbolic link leading
	// out). It is wrapped in a *ReportError.
	ErrOutsideReportsDir = errors.New("path escapes the reports directory")
	// ErrInvalidReportPath: a report path that cannot name a report: empty,
	// with a NUL byte, the reports directory itself or another directory,
	// or a name not ending in .html or .htm (so that a report never
	// replaces another kind of file kept beside the reports: call records,
	// a configuration). It is wrapped in a *ReportError; like
	// ErrOutsideReportsDir it is the caller's mistake.
	ErrInvalidReportPath = errors.New("invalid report path")
	// ErrClosed: Flush, Summary or Reconfigure after Close.
	ErrClosed = errors.New("stats: recorder closed")
	// ErrUnavailable: the Sink's store cannot be reached now (a database
	// that is down or dropped the connection); a Sink wraps it so that a
	// caller can answer "try again later". The Recorder keeps records it
	// could not write for its next flush.
	ErrUnavailable = errors.New("stats: the store cannot be reached")
)

// DisabledMessage is the text of ErrDisabled: what ot.stats answers when
// statistics collection is switched off.
const DisabledMessage = "Error: Statistics collection is disabled. Enable it with stats: {enabled: true} in the configuration."

// PeriodError is the error of a period that is not day, week, month or all.
// Its text is the message to show, verbatim; errors.Is(err,
// ErrInvalidPeriod) holds.
type PeriodError struct {
	// Period is the value given.
	Period string
}

// Error returns "Error: Invalid period '{period}'. Valid: day, week, month,
// all. Example: ot.stats(period='day')".
func (e *PeriodError) Error() string {
	return fmt.Sprintf("Error: Invalid period '%s'. Valid: day, week, month, all. Example: ot.stats(period='day')", e.Period)
}

// Is reports whether target is ErrInvalidPeriod.
func (e *PeriodError) Is(target error) bool { return target == ErrInvalidPeriod }

// ReportError is the error of a report that could not be written. Its text
// is "Error: Cannot write to '{path}': {cause}", ready to show; Unwrap
// returns the cause (ErrOutsideReportsDir, a *fs.PathError, …).
type ReportError struct {
	// Path is the report's path: the reports directory joined with a
	// relative name, or the absolute path given.
	Path string
	// Err is the cause.
	Err error
}

// Error returns "Error: Cannot write to '{path}': {cause}".
func (e *ReportError) Error() string {
	return fmt.Sprintf("Error: Cannot write to '%s': %v", e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *ReportError) Unwrap() error { return e.Err }

// config is Options with defaults applied; it never changes once built.
type config struct {
	enabled        bool
	dir            string
	sink           Sink
	flushInterval  time.Duration
	contextPerCall int64
	timePerCallMs  int64
	reportsDir     string
	keep           time.Duration // KeepDays; 0 keeps everything
	maxReadBytes   int64
	maxPending     int
	now            func() time.Time
}

// resolve checks o and applies the defaults; every problem is reported.
func resolve(o Options) (*config, error) {
	c := &config{
		enabled:        o.Enabled,
		dir:            o.Dir,
		sink:           o.Sink,
		flushInterval:  o.FlushInterval,
		contextPerCall: o.ContextPerCall,
		timePerCallMs:  o.TimePerCallMs,
		reportsDir:     o.ReportsDir,
		keep:           time.Duration(o.KeepDays) * 24 * time.Hour,
		maxReadBytes:   o.MaxReadBytes,
		maxPending:     o.MaxPending,
		now:            o.Now,
	}
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: %s: %s", ErrInvalidOptions, field, fmt.Sprintf(format, a...)))
	}
	if o.Enabled && o.Dir == "" && o.Sink == nil {
		bad("Dir (stats.dir)", "empty; a directory (or a Sink, stats.dsn) is required when stats are enabled")
	}
	if o.FlushInterval < 0 || (o.FlushInterval > 0 && o.FlushInterval < MinFlushInterval) {
		bad("FlushInterval (stats.flush_interval)", "must be 0 (DefaultFlushInterval) or at least %v, got %v", MinFlushInterval, o.FlushInterval)
	}
	if o.ContextPerCall < NoEstimate {
		bad("ContextPerCall (stats.context_per_call)", "must be >= 0 (or NoEstimate), got %d", o.ContextPerCall)
	}
	if o.TimePerCallMs < NoEstimate {
		bad("TimePerCallMs (stats.time_per_call_ms)", "must be >= 0 (or NoEstimate), got %d", o.TimePerCallMs)
	}
	if o.KeepDays < 0 || o.KeepDays > MaxKeepDays {
		bad("KeepDays (stats.keep_days)", "must be between 0 (keep every record) and %d, got %d", MaxKeepDays, o.KeepDays)
	}
	if _, ok := o.Sink.(Pruner); o.KeepDays > 0 && o.Sink != nil && !ok {
		bad("KeepDays (stats.keep_days)", "the Sink (%T) cannot remove old records: it has no Prune method (see Pruner)", o.Sink)
	}
	if o.MaxReadBytes < 0 {
		bad("MaxReadBytes", "must be >= 0, got %d", o.MaxReadBytes)
	}
	if o.MaxPending < 0 {
		bad("MaxPending", "must be >= 0, got %d", o.MaxPending)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if c.flushInterval == 0 {
		c.flushInterval = DefaultFlushInterval
	}
	switch c.contextPerCall {
	case 0:
		c.contextPerCall = DefaultContextPerCall
	case NoEstimate:
		c.contextPerCall = 0
	}
	switch c.timePerCallMs {
	case 0:
		c.timePerCallMs = DefaultTimePerCallMs
	case NoEstimate:
		c.timePerCallMs = 0
	}
	if c.reportsDir == "" && c.dir != "" {
		c.reportsDir = filepath.Join(c.dir, ReportsSubdir)
	}
	if c.maxReadBytes == 0 {
		c.maxReadBytes = DefaultMaxReadBytes
	}
	if c.maxPending == 0 {
		c.maxPending = DefaultMaxPending
	}
	return c, nil
}

// clock returns the time now by the configured clock.
func (c *config) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}
