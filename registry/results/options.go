package results

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/toolpack-go/toolpack/registry"
)

// Defaults of Options: the value a zero field stands for.
const (
	// DefaultMaxInlineBytes is the largest text returned inline (the
	// output.max_inline_bytes of the host configuration).
	DefaultMaxInlineBytes = 50_000
	// DefaultTTL is how long a stored output is served.
	DefaultTTL = time.Hour
	// DefaultMaxOutputBytes caps one stored output, its text and its
	// line index together (64 MiB).
	DefaultMaxOutputBytes = 64 << 20
	// DefaultMaxDirBytes caps the whole store directory (1 GiB).
	DefaultMaxDirBytes = 1 << 30
	// DefaultMaxLineBytes is the longest line a page returns in one piece
	// (16 KiB); longer lines are stored as several pieces.
	DefaultMaxLineBytes = 16 << 10
	// DefaultMaxPageBytes caps the bytes of one page (256 KiB).
	DefaultMaxPageBytes = 256 << 10
	// DefaultMaxPageLines caps the lines of one page.
	DefaultMaxPageLines = 10_000
	// DefaultSweepInterval is how often expired outputs are removed (or
	// the TTL, when it is shorter, but at least a second).
	DefaultSweepInterval = time.Minute
	// MinSweepInterval is the shortest Options.SweepInterval: a shorter
	// one would keep the sweeper busy for nothing.
	MinSweepInterval = time.Millisecond
	// DefaultSearchTimeout bounds one search.
	DefaultSearchTimeout = 10 * time.Second
	// DefaultQueryTool is the name of the tool that pages through stored
	// outputs, as the handle object's query field writes it.
	DefaultQueryTool = "ot.result"
	// DefaultOffset and DefaultLimit are ot.result's defaults: the first
	// hundred lines.
	DefaultOffset = 1
	// DefaultLimit is the number of lines a page holds unless asked
	// otherwise.
	DefaultLimit = 100
	// MaxFuzzyResults is how many of the best fuzzy matches a fuzzy search
	// keeps; its pages lie within them.
	MaxFuzzyResults = 10_000
	// MaxSearchBytes caps the search argument of a query: 4 KiB, room for
	// any text of 1,000 characters (ot.result's own cap on search) in
	// UTF-8.
	MaxSearchBytes = 4096
	// MaxFuzzyRunes caps the search argument of a fuzzy query, whose cost
	// grows with its length.
	MaxFuzzyRunes = 64
)

// Bounds of the options that size lines.
const (
	minLineBytes = 64
	maxLineBytes = 1 << 20
)

// minOutputBytes is the least MaxOutputBytes for lines of maxLine bytes:
// room for one whole piece, ended by "\r\n", and its index (header, its
// entry and the final one), so that a cut output keeps at least its first
// piece.
func minOutputBytes(maxLine int) int64 {
	return int64(maxLine) + 2 + headerSize + 2*entrySize
}

// Options configure a Store. The first three mirror the host
// configuration's output section (output: {max_inline_bytes, dir, ttl});
// the rest have defaults that suit most hosts. A zero field means its
// default; a negative one is an error, as is a missing Dir.
type Options struct {
	// MaxInlineBytes: a success whose text is longer than this many bytes
	// is stored and replaced by a handle object. The text is the string
	// itself for a string value and the JSON of any other value, without
	// HTML escapes (as REST and MCP serve it). Zero means
	// DefaultMaxInlineBytes (50,000).
	MaxInlineBytes int
	// Dir is the directory holding the stored outputs; it is created (mode
	// 0700) when missing. Required without a Backend. Give each Store a directory of its own;
	// other processes may read it through Stores of their own.
	Dir string
	// Backend, when set, keeps the outputs instead of Dir's files (config
	// output.dsn: registry/results/pgresults keeps them in PostgreSQL,
	// shared by every host); Dir is then unused. The Store closes it on
	// Close.
	Backend Backend
	// TTL is how long a stored output is served after it was stored. Zero
	// means DefaultTTL (one hour). The expiry is written with the output, so
	// a later change of TTL does not change it.
	TTL time.Duration

	// MaxOutputBytes caps the bytes one stored output takes on disk or in
	// the database: its text and its line index together (the index is a
	// 64-byte header and 8 bytes a line, plus 8). A text that would take
	// more is stored up to its last whole line (or line piece) within the
	// cap, and its summary says it was cut. A text of long lines keeps
	// nearly the cap as text; one of very short lines keeps less (64 MiB
	// of empty lines keeps 7,456,532 of them, 7 MiB of text and 57 MiB of
	// index), so that no text, however many lines it holds, takes more
	// than the cap. At least MaxLineBytes+82 (one whole line piece and its
	// index). Zero means DefaultMaxOutputBytes (64 MiB).
	MaxOutputBytes int64
	// MaxDirBytes caps the bytes of every stored output and its index
	// together; when a new output takes the store over it, the oldest
	// outputs are removed first (never the new one) and their handles are
	// reported expired. At least MaxOutputBytes. Zero means
	// DefaultMaxDirBytes (1 GiB), or MaxOutputBytes when that is larger.
	MaxDirBytes int64
	// MaxLineBytes is the longest line kept in one piece (64 B to 1 MiB):
	// a longer line is stored as several lines of at most this many bytes,
	// cut between characters, so that every byte of a one-line output (a
	// minified document) can still be paged through. Zero means
	// DefaultMaxLineBytes (16 KiB).
	MaxLineBytes int
	// MaxPageBytes caps the bytes of one page; a page always holds at least
	// one line when one remains. Zero means DefaultMaxPageBytes (256 KiB).
	MaxPageBytes int
	// MaxPageLines caps the lines of one page whatever the limit asked.
	// Zero means DefaultMaxPageLines (10,000).
	MaxPageLines int
	// SweepInterval is how often a Store removes expired outputs in the
	// background. Zero means DefaultSweepInterval (one minute) or the TTL
	// when shorter, but at least a second; set, it is at least
	// MinSweepInterval.
	SweepInterval time.Duration
	// SearchTimeout bounds the scan of one search; a search still running
	// then fails with ErrSearchLimit, within about one line's work (see
	// Search in the package documentation). Zero means
	// DefaultSearchTimeout (10 s).
	SearchTimeout time.Duration
	// QueryTool is the tool name the handle object's query field calls,
	// as a model must write it (with the host's prefix, if any). Middleware
	// never stores that tool's own results. Empty means DefaultQueryTool
	// ("ot.result"); otherwise a valid tool name (registry.ValidName).
	QueryTool string
	// Sync makes Put flush the text and its index to disk before renaming
	// them into place, so that an output survives a crash of the operating
	// system too; it costs a disk flush per output (tens of milliseconds on
	// some disks). Without it a crash of the process never leaves a partial
	// output served (the index is renamed into place last, and checked
	// against the text on every read), but a crash of the system may lose
	// the latest outputs.
	Sync bool
	// Skip, when set, names more tools whose results Middleware never
	// stores (for example tools whose clients check an output schema).
	Skip func(t *registry.Tool) bool
	// Fuzzy, when set, replaces the built-in fuzzy scorer: it scores line
	// against query, higher is better, and ok reports whether the line
	// matches at all. See the package documentation for the built-in one.
	Fuzzy func(query, line string) (score float64, ok bool)
	// Now is the clock for creation and expiry times; nil means time.Now.
	// Tests inject one.
	Now func() time.Time
	// Logger receives the Store's own logs (outputs removed, files found
	// corrupt); nil means slog.Default() as it is when Open runs.
	Logger *slog.Logger
}

// resolve returns o with every zero field replaced by its default, or an
// error naming the first field that is out of range.
func (o Options) resolve() (Options, error) {
	if o.Dir == "" && o.Backend == nil {
		return o, fmt.Errorf("results: Options.Dir: expected a directory path (or a Backend), got none")
	}
	neg := func(field string, v int64) error {
		if v < 0 {
			return fmt.Errorf("results: Options.%s: expected zero (the default) or a positive value, got %d", field, v)
		}
		return nil
	}
	for _, c := range []struct {
		field string
		v     int64
	}{
		{"MaxInlineBytes", int64(o.MaxInlineBytes)}, {"TTL", int64(o.TTL)},
		{"MaxOutputBytes", o.MaxOutputBytes}, {"MaxDirBytes", o.MaxDirBytes},
		{"MaxLineBytes", int64(o.MaxLineBytes)}, {"MaxPageBytes", int64(o.MaxPageBytes)},
		{"MaxPageLines", int64(o.MaxPageLines)}, {"SweepInterval", int64(o.SweepInterval)},
		{"SearchTimeout", int64(o.SearchTimeout)},
	} {
		if err := neg(c.field, c.v); err != nil {
			return o, err
		}
	}
	if o.MaxInlineBytes == 0 {
		o.MaxInlineBytes = DefaultMaxInlineBytes
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.MaxDirBytes == 0 {
		o.MaxDirBytes = max(DefaultMaxDirBytes, o.MaxOutputBytes)
	}
	if o.MaxDirBytes < o.MaxOutputBytes {
		return o, fmt.Errorf("results: Options.MaxDirBytes: expected at least MaxOutputBytes (%d), got %d", o.MaxOutputBytes, o.MaxDirBytes)
	}
	if o.MaxLineBytes == 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxLineBytes < minLineBytes || o.MaxLineBytes > maxLineBytes {
		return o, fmt.Errorf("results: Options.MaxLineBytes: expected %d to %d, got %d", minLineBytes, maxLineBytes, o.MaxLineBytes)
	}
	if least := minOutputBytes(o.MaxLineBytes); o.MaxOutputBytes < least {
		return o, fmt.Errorf("results: Options.MaxOutputBytes: expected at least MaxLineBytes+%d (%d): one whole line piece and its index, got %d",
			least-int64(o.MaxLineBytes), least, o.MaxOutputBytes)
	}
	if o.MaxPageBytes == 0 {
		o.MaxPageBytes = DefaultMaxPageBytes
	}
	if o.MaxPageLines == 0 {
		o.MaxPageLines = DefaultMaxPageLines
	}
	if o.SweepInterval > 0 && o.SweepInterval < MinSweepInterval {
		return o, fmt.Errorf("results: Options.SweepInterval: expected zero (the default) or at least %v, got %v", MinSweepInterval, o.SweepInterval)
	}
	if o.SweepInterval == 0 {
		// Every TTL, at most DefaultSweepInterval, at least a second: a
		// nanosecond TTL does not make the sweeper spin.
		o.SweepInterval = min(DefaultSweepInterval, max(o.TTL, time.Second))
	}
	if o.SearchTimeout == 0 {
		o.SearchTimeout = DefaultSearchTimeout
	}
	if o.QueryTool == "" {
		o.QueryTool = DefaultQueryTool
	}
	if !registry.ValidName(o.QueryTool) {
		return o, fmt.Errorf("results: Options.QueryTool: expected a tool name ([A-Za-z0-9_.-], 1 to 128 characters), got %q", o.QueryTool)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}
