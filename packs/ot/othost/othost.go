package othost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolpack-go/toolpack/internal/pysig"
	"github.com/toolpack-go/toolpack/internal/search"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/results/pgresults"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/registry/stats"
	"github.com/toolpack-go/toolpack/registry/stats/pgstats"
	"github.com/toolpack-go/toolpack/result"
)

// Options configure Setup. Registry and Host are required.
type Options struct {
	// Registry is the registry the host serves. Setup adds the ot pack and
	// the statistics and large-output middleware to it, and the snippet
	// pack on every configuration that declares snippets.
	Registry *registry.Registry
	// Host is the host configuration (hostconfig.NewHost with the same
	// Registry). Setup adds its hooks; call it before the first
	// Host.Reload.
	Host *hostconfig.Host
	// Version is what ot.version and ot.health report; empty means the
	// module's version from the build information.
	Version string
	// Servers reports the configured remote MCP servers for ot.config and
	// ot.health (adapters/mcpproxy's Proxy.Status, converted); nil means
	// none.
	Servers func() []ot.ServerStatus
	// Databases reports the host's other databases for ot.health (such as
	// a catalogue on PostgreSQL), checked when called; they are listed
	// before the statistics and output databases, which the Wiring
	// checks itself. nil means none.
	Databases func(ctx context.Context) []ot.DatabaseStatus
	// Logger receives the logs of the statistics recorder and the output
	// store; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock of ot, the recorder and the store; nil means
	// time.Now. Tests inject one.
	Now func() time.Time
	// Reloaded, when set, is told the outcome of each ot.reload (nil: the
	// new configuration is in force), so that the host logs a reload
	// asked for by a client as it logs its own (on SIGHUP, say).
	Reloaded func(err error)
}

// Wiring is the ot pack wired to a host configuration. Close it at
// shutdown, after the servers have stopped calling tools: it writes the
// buffered statistics and closes the output stores.
type Wiring struct {
	reg  *registry.Registry
	host *hostconfig.Host
	log  *slog.Logger
	now  func() time.Time
	// hostNow is Options.Now as given (nil: the statistics time records
	// with their monotonic base, cheaper than a clock read per call).
	hostNow func() time.Time

	servers func() []ot.ServerStatus // Options.Servers; may be nil

	rec       *stats.Recorder
	queryTool string // the final name of ot.result, as a model calls it

	// sink is the PostgreSQL sink of the records when stats.dsn is set;
	// statsHook replaces it, and Close closes it. Guarded by mu.
	sink *sinkUse

	store atomic.Pointer[liveStore] // nil until the first configuration is applied

	mu      sync.Mutex
	retired []*liveStore // stores replaced by a reload, read until their TTL ends
	closed  bool

	skipCache atomic.Pointer[sync.Map] // *registry.Tool → bool, reset on registry changes

	otherDBs  func(context.Context) []ot.DatabaseStatus // Options.Databases
	cancelSub func()
}

// liveStore is one open output store and the settings it was opened with.
type liveStore struct {
	st    *results.Store
	pg    *pgresults.Backend // st's backend when it is on PostgreSQL
	share *backendShare      // st's share of pg
	opts  outputSettings
	mw    registry.Middleware
	done  *time.Timer // closes a retired store when its TTL has passed
}

// outputSettings are the output: keys a store is opened with.
type outputSettings struct {
	maxInline int
	dir       string
	ttl       time.Duration
	pg        hostconfig.Postgres // stored in PostgreSQL when pg.DSN is set
}

// Setup wires the ot pack, snippets, call statistics and the large-output
// store into opts.Registry, driven by opts.Host's configuration:
//
//   - the ot pack is added to the registry at once, reading the
//     configuration in force on every call;
//   - stats: switches the statistics middleware on and off and moves its
//     directory (ot.stats; output.reports_dir bounds its HTML reports);
//   - output: opens the store large successes go to (ot.result);
//   - snippets: become the tools snippet.{name} (pack "snippet"), replaced
//     as a whole on every reload; a body that does not parse refuses the
//     configuration with the file and line at fault.
//
// The middleware is added once here (statistics outermost, so that a call's
// duration includes storing its output); a disabled part passes calls on.
// Call Setup before the first Host.Reload, then Reload as usual.
func Setup(ctx context.Context, opts Options) (*Wiring, error) {
	if opts.Registry == nil || opts.Host == nil {
		return nil, errors.New("othost: Options.Registry and Options.Host are required")
	}
	if opts.Host.Registry() != opts.Registry {
		return nil, errors.New("othost: Options.Host applies configurations to another registry than Options.Registry; build the Host with the same Registry")
	}
	if opts.Host.Config() != nil {
		return nil, errors.New("othost: Setup must run before the first Host.Reload (its hooks apply each configuration)")
	}
	w := &Wiring{reg: opts.Registry, host: opts.Host, log: opts.Logger, now: opts.Now, hostNow: opts.Now, otherDBs: opts.Databases, servers: opts.Servers}
	if w.log == nil {
		w.log = slog.Default()
	}
	if w.now == nil {
		w.now = time.Now
	}
	rec, err := stats.New(stats.Options{Logger: w.log, Now: opts.Now}) // disabled until a configuration says otherwise
	if err != nil {
		return nil, fmt.Errorf("othost: %w", err)
	}
	w.rec = rec
	w.skipCache.Store(new(sync.Map))

	p, err := ot.New(ot.Config{
		Registry:     w.reg,
		Version:      opts.Version,
		Snippets:     snippetSource{w},
		Aliases:      w.aliases,
		Instructions: func() map[string]string { return w.config().Instructions },
		Servers:      opts.Servers,
		Databases:    w.Databases,
		Reload:       reloadFunc(w.host, opts.Reloaded),
		Topics:       w.topics,
		Stats:        statsSource{w},
		Results:      resultSource{w},
		Docs:         w.docs,
		Rank:         rank,
		Now:          opts.Now,
	})
	if err != nil {
		_ = rec.Close(ctx)
		return nil, fmt.Errorf("othost: %w", err)
	}
	if err := w.reg.AddPack(p); err != nil {
		_ = rec.Close(ctx)
		return nil, fmt.Errorf("othost: %w", err)
	}
	w.queryTool = ot.ToolResult
	for _, t := range w.reg.List() {
		if t.Pack == ot.PackName && t.BaseName == ot.ToolResult {
			w.queryTool = t.Name
		}
	}
	w.cancelSub = w.reg.Subscribe(func(registry.Change) { w.skipCache.Store(new(sync.Map)) })
	w.reg.UseOuter(rec.Middleware())
	w.reg.Use(w.outputMiddleware)

	w.host.OnApply("snippets", w.snippetsHook)
	w.host.OnApply("stats", w.statsHook)
	w.host.OnApply("output", w.outputHook)
	w.host.OnApply("warnings", w.warnHook)
	return w, nil
}

// Close writes the buffered statistics (waiting as long as ctx allows)
// and closes every output store. Calls made afterwards pass through
// unrecorded and unstored. Close is idempotent, and does nothing on a
// nil *Wiring (a Setup that failed).
func (w *Wiring) Close(ctx context.Context) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	stores := append([]*liveStore(nil), w.retired...)
	w.retired = nil
	if cur := w.store.Swap(nil); cur != nil {
		stores = append(stores, cur)
	}
	w.mu.Unlock()
	if w.cancelSub != nil {
		w.cancelSub()
	}
	errs := []error{w.rec.Close(ctx)}
	w.mu.Lock()
	sink := w.sink
	w.sink = nil
	w.mu.Unlock()
	if sink != nil {
		errs = append(errs, sink.sink.Close())
	}
	for _, s := range stores {
		if s.done != nil {
			s.done.Stop()
		}
		errs = append(errs, s.st.Close())
	}
	return errors.Join(errs...)
}

// reloadFunc is ot.reload's Config.Reload: the host's Reload, its outcome
// told to reloaded; nil (ot.reload answers that there is nothing to
// reload) when the host has no configuration file.
func reloadFunc(host *hostconfig.Host, reloaded func(error)) func(context.Context) error {
	if host.Path() == "" {
		return nil
	}
	return func(ctx context.Context) error {
		err := host.Reload(ctx)
		if reloaded != nil {
			reloaded(err)
		}
		if err != nil && databaseAway(err) {
			return databaseAwayError{err}
		}
		return err
	}
}

// databaseAway reports whether every problem of a refused reload is a
// database the configuration names that cannot be reached now
// (stats.dsn, output.dsn: stats.ErrUnavailable, results.ErrUnavailable):
// the file is not at fault, and the same reload works once the database
// is back. One problem of another kind (the file's) makes it false.
func databaseAway(err error) bool {
	var leaves []error
	var walk func(error)
	walk = func(e error) {
		if _, ok := e.(*hostconfig.Problem); ok {
			leaves = append(leaves, e) // one problem, whatever it wraps
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			if x := u.Unwrap(); x != nil {
				walk(x)
				return
			}
			leaves = append(leaves, e)
		default:
			leaves = append(leaves, e)
		}
	}
	walk(err)
	for _, e := range leaves {
		if !errors.Is(e, stats.ErrUnavailable) && !errors.Is(e, results.ErrUnavailable) {
			return false
		}
	}
	return len(leaves) > 0
}

// databaseAwayError is a refused reload whose problems are all databases
// that cannot be reached: its text is the reload's (file, line, key),
// and it matches ot.ErrUnavailable, so that ot.reload answers
// unavailable, to be retried, rather than config_error.
type databaseAwayError struct{ err error }

func (e databaseAwayError) Error() string   { return e.err.Error() }
func (e databaseAwayError) Unwrap() []error { return []error{e.err, ot.ErrUnavailable} }

// QueryTool is the name ot.result has in the registry (with its prefix,
// if any): the tool a stored output's query field calls. A host serving the
// registry a little at a time (package disclosure) keeps this tool listed
// as itself, so that the query is a call the agent can make as written.
func (w *Wiring) QueryTool() string { return w.queryTool }

// StoredSchema returns the schema of the handle object (results.Stored)
// that a large output of t is replaced by, or nil for a tool whose
// outputs are never replaced (ot.result itself, and tools with an output
// schema other than text: see the package documentation). A REST host
// declares it beside the tool's own output schema
// (adapters/httpapi Options.AltValueSchema). It says what may happen
// under any output settings a reload may bring, not only the current
// ones.
func (w *Wiring) StoredSchema(t *registry.Tool) json.RawMessage {
	if t == nil || t.Name == w.queryTool || t.BaseName == w.queryTool || w.skipStructured(t) {
		return nil
	}
	return results.StoredSchema()
}

// Recorder is the statistics recorder (for a host that flushes it or reads
// Summary itself).
func (w *Wiring) Recorder() *stats.Recorder { return w.rec }

// config is the configuration in force, or the defaults before the first
// one is applied.
func (w *Wiring) config() *hostconfig.Config {
	if c := w.host.Config(); c != nil {
		return c
	}
	return hostconfig.Default("")
}

// aliases lists the registry's aliases in the order the configuration
// in force lists them; any the registry holds that it does not (set in
// code) follow, sorted.
func (w *Wiring) aliases() []ot.Alias {
	m := w.reg.Aliases()
	out := make([]ot.Alias, 0, len(m))
	for _, name := range w.config().Names("aliases") {
		if t, ok := m[name]; ok {
			out = append(out, ot.Alias{Name: name, Target: t})
			delete(m, name)
		}
	}
	for _, name := range sortedKeys(m) {
		out = append(out, ot.Alias{Name: name, Target: m[name]})
	}
	return out
}

func (w *Wiring) topics() []ot.Topic {
	n := w.config().Notify
	out := make([]ot.Topic, len(n.Topics))
	for i, t := range n.Topics {
		out[i] = ot.Topic{Pattern: t.Pattern, File: t.File, MaxFileBytes: n.MaxFileBytes}
	}
	return out
}

func (w *Wiring) docs() ot.Docs {
	d := w.config().Docs
	return ot.Docs{BaseURL: d.BaseURL, Slugs: d.Slugs}
}

// rank is ot.help's ranking: the module's typo-tolerant search (exact name,
// prefix, whole word, fuzzy; names above descriptions).
func rank(query string, items []ot.SearchItem) []ot.Hit {
	in := make([]search.Item, len(items))
	for i, it := range items {
		in[i] = search.Item{Name: it.Name, Description: it.Description, Kind: string(it.Kind)}
	}
	ms := search.Rank(query, in)
	hits := make([]ot.Hit, len(ms))
	for i, m := range ms {
		hits[i] = ot.Hit{Index: m.Index, Score: float64(m.Score)}
	}
	return hits
}

// ---- statistics ----

func (w *Wiring) statsOptions(c *hostconfig.Config) stats.Options {
	return stats.Options{
		Enabled:        c.Stats.Enabled,
		Dir:            c.Stats.Dir,
		FlushInterval:  c.Stats.FlushInterval,
		ContextPerCall: estimate(c.Stats.ContextPerCall),
		TimePerCallMs:  estimate(c.Stats.TimePerCallMS),
		KeepDays:       c.Stats.KeepDays,
		ReportsDir:     c.Output.ReportsDir,
	}
}

// sinkUse is an open PostgreSQL sink and the settings it was opened with.
type sinkUse struct {
	pg   hostconfig.Postgres
	sink *pgstats.Sink
}

// sinkGrace is how long a sink replaced by a reload stays open, for a
// Summary that started before the reload.
const sinkGrace = time.Minute

// statsHook prepares what the statistics of cfg need — their directory,
// and their database's sink when stats.dsn names another one than the
// sink in force — so that a directory that cannot be created or a
// database that cannot be reached refuses the configuration before any
// step takes effect (servers reconnected, snippets replaced); applying
// only reconfigures the recorder.
func (w *Wiring) statsHook(ctx context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
	if old != nil && old.Stats == cfg.Stats && old.Output.ReportsDir == cfg.Output.ReportsDir {
		return hostconfig.Step{}, nil
	}
	// The host's own clock only (Options.Now): without one the recorder
	// times records with its monotonic base, two clock reads a call.
	next := w.statsOptions(cfg)
	next.Now = w.hostNow
	prev := stats.Options{Now: w.hostNow} // before any configuration: disabled
	if old != nil {
		prev = w.statsOptions(old)
		prev.Now = w.hostNow
	}
	w.mu.Lock()
	prevSink := w.sink
	w.mu.Unlock()
	if prevSink != nil {
		prev.Sink = prevSink.sink
	}
	if next.Enabled && next.Dir != "" {
		// What Reconfigure does first, done here to refuse the file
		// before anything changes.
		if err := os.MkdirAll(next.Dir, 0o755); err != nil {
			return hostconfig.Step{}, cfg.Errorf("stats.dir", "%w", fmt.Errorf("%w: Dir (stats.dir): %w", stats.ErrInvalidOptions, err))
		}
	}
	use := prevSink
	var opened *sinkUse // opened here: the step's until it is applied
	if pg := cfg.Stats.Postgres; pg.DSN == "" || !cfg.Stats.Enabled {
		use = nil // no database connection while nothing is recorded
	} else if use == nil || use.pg != pg {
		sink, err := pgstats.Open(ctx, pg.DSN, pgstats.Options{Schema: pg.Schema, MaxConns: pg.PoolSize(), StatementTimeout: pg.StatementTimeout})
		if err != nil {
			if ctx.Err() != nil {
				// Cut short (a shutdown during a reload): no key is at fault.
				return hostconfig.Step{}, fmt.Errorf("opening the stats database: %w", err)
			}
			return hostconfig.Step{}, cfg.Errorf("stats.dsn", "%w", err)
		}
		use = &sinkUse{pg: pg, sink: sink}
		opened = use
	}
	if use != nil {
		next.Sink = use.sink
	}
	return hostconfig.Step{
		// Reconfigure may still fail (the directory removed meanwhile):
		// the configuration is then refused and the steps applied before
		// undone.
		Apply: func(ctx context.Context) error {
			if err := w.rec.Reconfigure(ctx, next); err != nil {
				return cfg.Errorf("stats.dir", "%w", err)
			}
			opened = nil // in force: setSink closes it when it is replaced
			w.setSink(use)
			return nil
		},
		Undo: func(ctx context.Context) error {
			err := w.rec.Reconfigure(ctx, prev)
			w.setSink(prevSink)
			return err
		},
		Discard: func() {
			if opened != nil {
				_ = opened.sink.Close()
				opened = nil
			}
		},
	}, nil
}

// setSink makes use the sink in force; the one it replaces is closed after
// sinkGrace (at once when the Wiring is closed).
func (w *Wiring) setSink(use *sinkUse) {
	w.mu.Lock()
	old := w.sink
	w.sink = use
	closed := w.closed
	w.mu.Unlock()
	if old == nil || old == use {
		return
	}
	if closed {
		_ = old.sink.Close()
		return
	}
	time.AfterFunc(sinkGrace, func() { _ = old.sink.Close() })
}

// pingTimeout bounds each database's health check.
const pingTimeout = 2 * time.Second

// Databases checks, at once, the host's other databases
// (Options.Databases) and those of the statistics and the stored outputs
// when they are on PostgreSQL, each within two seconds: what ot.health
// shows under postgresql, and what a host's own health endpoint may show.
func (w *Wiring) Databases(ctx context.Context) []ot.DatabaseStatus {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	type check struct {
		name string
		ping func(context.Context) error
	}
	var checks []check
	w.mu.Lock()
	if w.sink != nil {
		checks = append(checks, check{"stats", w.sink.sink.Ping})
	}
	w.mu.Unlock()
	if ls := w.store.Load(); ls != nil && ls.pg != nil {
		checks = append(checks, check{"output", ls.pg.Ping})
	}
	var other []ot.DatabaseStatus
	out := make([]ot.DatabaseStatus, len(checks))
	var wg sync.WaitGroup
	if w.otherDBs != nil {
		wg.Go(func() { other = w.otherDBs(ctx) })
	}
	for i, c := range checks {
		wg.Go(func() { out[i] = ot.DatabaseStatus{Name: c.name, Reachable: c.ping(ctx) == nil} })
	}
	wg.Wait()
	return append(other, out...)
}

type statsSource struct{ w *Wiring }

// Stats answers ot.stats from the recorder, writing the HTML report when
// asked.
func (s statsSource) Stats(ctx context.Context, q ot.StatsQuery) (ot.StatsReport, error) {
	sum, err := s.w.rec.Summary(ctx, stats.Query{Period: q.Period, Tool: q.Tool, Now: q.Now})
	if errors.Is(err, stats.ErrDisabled) {
		return ot.StatsReport{}, fmt.Errorf("%w: %w", ot.ErrDisabled, err)
	}
	if errors.Is(err, stats.ErrUnavailable) {
		return ot.StatsReport{}, fmt.Errorf("%w: %w", ot.ErrUnavailable, err)
	}
	if err != nil {
		return ot.StatsReport{}, err
	}
	rep := ot.StatsReport{
		TotalCalls:   sum.TotalCalls,
		SuccessRate:  sum.SuccessRate,
		ContextSaved: sum.ContextSaved,
		TimeSavedMS:  sum.TimeSavedMs,
		Skipped:      sum.CorruptLines,
		Truncated:    sum.Truncated,
		Tools:        make([]ot.ToolStat, len(sum.Tools)),
	}
	for i, t := range sum.Tools {
		rep.Tools[i] = ot.ToolStat{Tool: t.Tool, Calls: t.Calls, SuccessRate: t.SuccessRate, AvgMS: t.AvgMs, P95MS: t.P95Ms}
	}
	if q.Output != "" {
		path, err := s.w.rec.WriteReport(sum, q.Output)
		if err != nil {
			var re *stats.ReportError
			if errors.As(err, &re) {
				return ot.StatsReport{}, &ot.ReportError{Path: re.Path, Err: re.Err, Refused: errors.Is(re.Err, stats.ErrOutsideReportsDir) || errors.Is(re.Err, stats.ErrInvalidReportPath)}
			}
			return ot.StatsReport{}, &ot.ReportError{Path: q.Output, Err: err}
		}
		rep.HTMLReport = path
	}
	return rep, nil
}

// ---- large outputs ----

// retireAfter is how long a store opened with old answers for its
// handles once a store opened with next replaced it.
func retireAfter(old, next outputSettings) time.Duration {
	if old.sameBackend(next) {
		return min(old.ttl, sameDirGrace)
	}
	return old.ttl
}

// sameBackend reports whether stores opened with o and p read the same
// outputs: the same directory's files, or the same database and schema.
func (o outputSettings) sameBackend(p outputSettings) bool {
	if o.pg.DSN != "" || p.pg.DSN != "" {
		return o.pg.DSN == p.pg.DSN && o.pg.Schema == p.pg.Schema
	}
	return o.dir == p.dir
}

func settingsOf(c *hostconfig.Config) outputSettings {
	o := outputSettings{maxInline: c.Output.MaxInlineBytes, dir: c.Output.Dir, ttl: c.Output.TTL, pg: c.Output.Postgres}
	if o.pg.DSN != "" {
		o.dir = "" // unused by a store on PostgreSQL: changing it changes nothing
	}
	return o
}

// backendShare is one store's share of a PostgreSQL back end that the
// stores of successive configurations use while its connection settings
// (dsn, schema, max_conns, statement_timeout) stay the same: a reload
// that changes max_inline_bytes or ttl opens no pool of its own (each kept
// its connections for the minute its predecessor stays open, and frequent
// reloads piled them up on the database). The pool closes with the last
// share.
type backendShare struct {
	*pgresults.Backend
	refs *atomic.Int32
	once sync.Once
}

func newBackendShare(b *pgresults.Backend) *backendShare {
	s := &backendShare{Backend: b, refs: new(atomic.Int32)}
	s.refs.Store(1)
	return s
}

// another returns a new share of the same back end, or false when the
// last share has been closed.
func (s *backendShare) another() (*backendShare, bool) {
	for {
		n := s.refs.Load()
		if n <= 0 {
			return nil, false
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return &backendShare{Backend: s.Backend, refs: s.refs}, true
		}
	}
}

// Close closes this share (once); the back end closes with the last.
func (s *backendShare) Close() error {
	var err error
	s.once.Do(func() {
		if s.refs.Add(-1) == 0 {
			err = s.Backend.Close()
		}
	})
	return err
}

// outputHook opens the output store of cfg when its settings differ from
// the store in force, so that a directory that cannot be created or a
// database that cannot be reached refuses the configuration before any
// step takes effect; applying only puts the store in force, and a store
// opened for a configuration that is refused is closed (Discard).
func (w *Wiring) outputHook(ctx context.Context, _, cfg *hostconfig.Config) (hostconfig.Step, error) {
	next := settingsOf(cfg)
	if cur := w.store.Load(); cur != nil && cur.opts == next {
		return hostconfig.Step{}, nil
	}
	opened, err := w.openStore(ctx, cfg, next)
	if err != nil {
		return hostconfig.Step{}, err
	}
	applied := false
	return hostconfig.Step{
		Apply: func(context.Context) error {
			applied = true
			w.swapStore(opened)
			return nil
		},
		Undo: func(context.Context) error {
			w.mu.Lock()
			var prev *liveStore
			if n := len(w.retired); n > 0 && w.retired[n-1] != opened {
				prev = w.retired[n-1]
				w.retired = w.retired[:n-1]
				if prev.done != nil {
					prev.done.Stop()
				}
			}
			w.store.Store(prev)
			w.mu.Unlock()
			return opened.st.Close()
		},
		Discard: func() {
			if !applied {
				_ = opened.st.Close()
			}
		},
	}, nil
}

// openStore opens the output store of cfg's settings next; an error is a
// problem at the key at fault.
func (w *Wiring) openStore(ctx context.Context, cfg *hostconfig.Config, next outputSettings) (*liveStore, error) {
	o := results.Options{
		MaxInlineBytes: next.maxInline, Dir: next.dir, TTL: next.ttl,
		QueryTool: w.queryTool, Skip: w.skipStructured, Now: w.now, Logger: w.log,
		SweepInterval: sweepInterval(next.ttl),
	}
	var share *backendShare
	if pg := next.pg; pg.DSN != "" {
		if cur := w.store.Load(); cur != nil && cur.share != nil && cur.opts.pg == pg {
			share, _ = cur.share.another()
		}
		if share == nil {
			be, err := pgresults.Open(ctx, pg.DSN, pgresults.Options{Schema: pg.Schema, MaxConns: pg.PoolSize(), StatementTimeout: pg.StatementTimeout})
			if err != nil {
				if ctx.Err() != nil {
					return nil, fmt.Errorf("opening the output store: %w", err)
				}
				return nil, cfg.Errorf("output.dsn", "%w", err)
			}
			share = newBackendShare(be)
		}
		o.Backend = share // closed with the Store, or below when Open fails
	}
	st, err := results.Open(ctx, o)
	if err != nil {
		if o.Backend != nil {
			_ = o.Backend.Close()
		}
		if ctx.Err() != nil {
			// Cut short (a shutdown during a reload): no key is at fault.
			return nil, fmt.Errorf("opening the output store: %w", err)
		}
		key := "output"
		if o.Backend == nil {
			key = "output.dir" // files: the directory is what failed
		}
		return nil, cfg.Errorf(key, "cannot open the output store: %w", retold{strings.TrimPrefix(err.Error(), "results: "), err})
	}
	ls := &liveStore{st: st, opts: next, mw: st.Middleware()}
	if share != nil {
		ls.pg, ls.share = share.Backend, share
	}
	return ls, nil
}

// swapStore puts s in force; the store it replaces is closed later (see
// sameDirGrace).
func (w *Wiring) swapStore(s *liveStore) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		_ = s.st.Close()
		return
	}
	old := w.store.Swap(s)
	if old == nil {
		return
	}
	w.retired = append(w.retired, old)
	// A store on another back end answers for its handles until they
	// expire; one on the same back end (the same directory, or the same
	// database and schema) only until the calls that started with it have
	// ended, since the new store reads the same outputs. A move between
	// files and PostgreSQL keeps the directory, which the PostgreSQL store
	// does not read: its handles got "not found" a minute after the move.
	grace := retireAfter(old.opts, s.opts)
	old.done = time.AfterFunc(grace, func() { w.retire(old) })
}

// sweepInterval is how often a store looks for expired outputs: every
// TTL, between a second (a TTL of a millisecond must not spin the sweeper)
// and a minute.
func sweepInterval(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return time.Minute
	}
	return min(max(ttl, time.Second), time.Minute)
}

// sameDirGrace is how long a replaced store on the directory of its
// successor stays open for the calls that started with it.
const sameDirGrace = time.Minute

// retire closes a replaced store whose handles have all expired.
func (w *Wiring) retire(s *liveStore) {
	w.mu.Lock()
	i := slices.Index(w.retired, s)
	if i >= 0 {
		w.retired = slices.Delete(w.retired, i, i+1)
	}
	w.mu.Unlock()
	if i >= 0 {
		_ = s.st.Close()
	}
}

// outputMiddleware stores the large successes of outermost calls in the
// store in force when the call returns (so that a reload during a long
// call stores its output with the new settings). A call made by another
// tool's handler (a snippet's step) is never stored: its caller reads the
// value itself, and only what reaches the outermost caller is stored.
func (w *Wiring) outputMiddleware(next registry.Handler) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
		res, err := next(ctx, c)
		if err != nil || !res.Success {
			return res, err
		}
		if _, nested := c.Parent(); nested {
			return res, err
		}
		s := w.store.Load()
		if s == nil {
			return res, err
		}
		return s.mw(func(context.Context, *registry.Call) (result.Result[any], error) { return res, nil })(ctx, c)
	}
}

// skipStructured reports a tool whose output schema is not text: an MCP
// client checks such a tool's structuredContent against the schema, which
// a handle object does not satisfy, so its large values are returned
// whole.
func (w *Wiring) skipStructured(t *registry.Tool) bool {
	m := w.skipCache.Load()
	if v, ok := m.Load(t); ok {
		return v.(bool)
	}
	skip := structured(t.OutputSchema)
	m.Store(t, skip)
	return skip
}

func structured(schema json.RawMessage) bool {
	if len(bytes.TrimSpace(schema)) == 0 {
		return false
	}
	var s struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return true
	}
	return s.Type != "string"
}

type resultSource struct{ w *Wiring }

// Query reads a page from the store in force, or from a store a reload
// replaced when the handle is one of its own.
func (r resultSource) Query(ctx context.Context, q ot.ResultQuery) (ot.ResultPage, error) {
	r.w.mu.Lock()
	stores := make([]*liveStore, 0, 1+len(r.w.retired))
	if cur := r.w.store.Load(); cur != nil {
		stores = append(stores, cur)
	}
	for i := len(r.w.retired) - 1; i >= 0; i-- {
		stores = append(stores, r.w.retired[i])
	}
	r.w.mu.Unlock()
	if len(stores) == 0 {
		return ot.ResultPage{}, fmt.Errorf("%w: no output store is open", ot.ErrHandleNotFound)
	}
	req := results.Request{Handle: q.Handle, Offset: q.Offset, Limit: q.Limit, Search: q.Search, Fuzzy: q.Fuzzy}
	var err error
	for _, s := range stores {
		var p results.Page
		p, err = s.st.Query(ctx, req)
		if err == nil {
			return ot.ResultPage{Lines: p.Lines, TotalLines: p.TotalLines, Offset: p.Offset, HasMore: p.HasMore, LineNumbers: p.LineNumbers}, nil
		}
		if !errors.Is(err, results.ErrNotFound) && !errors.Is(err, results.ErrClosed) {
			break
		}
	}
	return ot.ResultPage{}, resultError(err)
}

// resultError maps a store failure to the pack's.
func resultError(err error) error {
	var re *results.Error
	switch {
	case errors.Is(err, results.ErrNotFound), errors.Is(err, results.ErrClosed):
		// A closed store is one a reload retired: its handles are gone.
		return fmt.Errorf("%w: %w", ot.ErrHandleNotFound, err)
	case errors.Is(err, results.ErrExpired):
		return fmt.Errorf("%w: %w", ot.ErrHandleExpired, err)
	case errors.Is(err, results.ErrCorrupt):
		if errors.As(err, &re) && re.Cause != nil {
			// The log says what is damaged (the model is told only that it is).
			return fmt.Errorf("%w: %w (%v)", ot.ErrHandleDamaged, err, re.Cause)
		}
		return fmt.Errorf("%w: %w", ot.ErrHandleDamaged, err)
	case errors.Is(err, results.ErrSearchLimit):
		return fmt.Errorf("%w: %w", ot.ErrSearchTimeout, err)
	case errors.Is(err, results.ErrUnavailable):
		return fmt.Errorf("%w: %w", ot.ErrUnavailable, err)
	case errors.As(err, &re) && errors.Is(err, results.ErrInvalidQuery):
		if re.Field == "search" && re.Cause != nil { // the regexp does not compile
			return fmt.Errorf("%w: %w", ot.ErrInvalidSearch, re.Cause)
		}
		return &ot.QueryError{Field: re.Field, Msg: re.Msg, Err: err} // naming the argument at fault
	}
	return err
}

// ---- instructions ----

// maxListedPacks bounds the pack names a warning lists.
const maxListedPacks = 20

// warnHook warns, at every reload once the configuration is in force,
// about what it names that is not served (see WarnUnserved). The first
// configuration is checked by WarnUnserved, as a host may register packs
// after it (a catalogue whose store the configuration names).
func (w *Wiring) warnHook(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
	if old == nil || (len(cfg.Instructions) == 0 && len(cfg.Snippets) == 0) {
		return hostconfig.Step{}, nil
	}
	return hostconfig.Step{Apply: func(context.Context) error {
		w.warnUnserved(cfg)
		return nil
	}}, nil
}

// WarnUnserved logs a warning, naming file, line and key, for what the
// configuration in force names that is not served, so that a misspelt
// name does not go unnoticed:
//
//   - each instructions: entry that names no pack (ot.packs and ot.help
//     show instructions only with their pack);
//   - each tool a snippet's body calls that is neither a tool, an alias,
//     nor a snippet of the configuration (the call would fail with
//     "not served" at run time).
//
// A configured server (servers: or Options.Servers) counts as a pack, and
// the tools under its name as served, as it may still be connecting; so
// does the snippet pack when snippets are configured. Nothing is refused:
// a pack or a tool may come later.
//
// Call it once, when every pack of the host is registered after the first
// Host.Reload; every later reload checks by itself.
func (w *Wiring) WarnUnserved() {
	if c := w.host.Config(); c != nil {
		w.warnUnserved(c)
	}
}

func (w *Wiring) warnUnserved(cfg *hostconfig.Config) {
	var servers []string
	if w.servers != nil {
		for _, st := range w.servers() {
			servers = append(servers, st.Name)
		}
	}
	packs := w.reg.Packs()
	for _, msg := range unknownInstructions(cfg, packs, servers) {
		w.log.Warn("configuration: instructions for a pack that is not served", "problem", msg)
	}
	for _, msg := range unservedSteps(cfg, w.reg, packs, servers) {
		w.log.Warn("configuration: a snippet calls a tool that is not served", "problem", msg)
	}
}

// unservedSteps returns a warning for each tool a snippet of cfg calls
// that reg does not have (enabled or not), that is not a snippet of cfg
// nor an alias cfg declares, and that is not a tool of a configured
// server (cfg's or servers, the host's others) still connecting — a
// connected server must have it —, sorted by snippet and then in the
// body's order.
// Snippets that do not parse are skipped: the load reported them.
func unservedSteps(cfg *hostconfig.Config, reg *registry.Registry, packs []*registry.Pack, servers []string) []string {
	connected := map[string]bool{} // registered packs: a server's once it is connected
	for _, p := range packs {
		connected[p.Name] = true
	}
	all := append(cfg.ServerNames(), servers...)
	var out []string
	for _, name := range sortedKeys(cfg.Snippets) {
		d, param, err := definition(cfg.Snippets[name])
		if err != nil || param != "" {
			continue
		}
		s, err := snippet.Parse(name, d)
		if err != nil {
			continue
		}
		// One warning per body line, at the line of the step: the first
		// call of each tool that is not served.
		lines := s.ToolLines()
		missing := map[int][]string{}
		for _, tool := range s.Tools() {
			if servedStep(cfg, reg, connected, all, tool) {
				continue
			}
			l := lines[tool]
			missing[l] = append(missing[l], strconv.Quote(tool))
		}
		for _, l := range slices.Sorted(maps.Keys(missing)) {
			what := "a tool that is not served"
			if len(missing[l]) > 1 {
				what = "tools that are not served"
			}
			p := cfg.Errorf("snippets."+name+".body", "calls %s: %s; its calls fail until a tool, alias or server of that name is served", what, strings.Join(missing[l], ", "))
			if l > 0 {
				p.File, p.Line = bodyPosition(cfg, cfg.Snippets[name], l)
				p.Message = fmt.Sprintf("body line %d: %s", l, p.Message)
			}
			out = append(out, p.Error())
		}
	}
	return out
}

// servedStep reports whether a snippet step calling tool may run: see
// unservedSteps. servers are every configured server's name; connected
// holds the registered packs' names.
func servedStep(cfg *hostconfig.Config, reg *registry.Registry, connected map[string]bool, servers []string, tool string) bool {
	if _, ok := cfg.Aliases[tool]; ok {
		return true // an alias of the configuration (the registry's may be the previous one's)
	}
	if rest, ok := strings.CutPrefix(tool, snippet.ToolPrefix); ok {
		if _, ok := cfg.Snippets[rest]; ok {
			return true
		}
	}
	if _, exists := reg.IsEnabled(reg.TargetName(tool)); exists {
		return true // a tool, enabled or not
	}
	if srv, ok := hostconfig.ServerOf(tool, reg.Prefix(), servers); ok {
		// A server's tool: on trust while it is not connected (its pack
		// not registered), missing once it is.
		return !connected[srv]
	}
	return false
}

// unknownInstructions returns a warning for each instructions: entry of cfg
// that names neither one of packs nor a server (of cfg, or of servers: the
// host's others), sorted by name.
func unknownInstructions(cfg *hostconfig.Config, packs []*registry.Pack, servers []string) []string {
	known := map[string]bool{}
	for _, p := range packs {
		known[p.Name] = true
	}
	for n := range cfg.Servers {
		known[n] = true
	}
	for _, n := range servers {
		known[n] = true
	}
	if len(cfg.Snippets) > 0 {
		known[snippet.PackName] = true
	}
	names := slices.Sorted(maps.Keys(known))
	listed := strings.Join(names, ", ")
	if len(names) > maxListedPacks {
		listed = strings.Join(names[:maxListedPacks], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
	}
	if listed == "" {
		listed = "none"
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Instructions)) {
		if known[name] {
			continue
		}
		out = append(out, cfg.Errorf("instructions."+name,
			"no pack %q is served, so these instructions are shown nowhere until one is (packs: %s)", name, listed).Error())
	}
	return out
}

// ---- snippets ----

// snippetsHook parses every snippet of cfg and prepares the snippet pack
// in their place.
func (w *Wiring) snippetsHook(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
	defs, err := definitions(cfg)
	if err != nil {
		return declaredSnippets(cfg), err
	}
	var prevDefs map[string]snippet.Definition
	if old != nil {
		prevDefs, _ = definitions(old) // applied before: it parses
	}
	if len(defs) == 0 && len(prevDefs) == 0 {
		return hostconfig.Step{}, nil
	}
	if old != nil && reflect.DeepEqual(defs, prevDefs) && reflect.DeepEqual(paramExamples(cfg), paramExamples(old)) {
		// Unchanged: the pack in force stays, and clients are not told the
		// tool list changed by a reload that changed none of it.
		var unchanged hostconfig.Step
		for name := range defs {
			unchanged.Tools = append(unchanged.Tools, snippet.ToolPrefix+name)
		}
		return unchanged, nil
	}
	step := hostconfig.Step{Packs: []string{snippet.PackName}}
	var pack *registry.Pack
	if len(defs) > 0 {
		if pack, err = snippet.Pack(defs, w.reg); err != nil {
			return declaredSnippets(cfg), err
		}
		exampleCalls(pack, cfg)
		// Refused here, at the snippet's line, what registering the pack
		// would refuse later without a location (a name too long once
		// the registry's prefix is added).
		var errs []error
		for _, t := range pack.Tools {
			if err := w.reg.Check(t); err != nil {
				name := strings.TrimPrefix(t.Name, snippet.ToolPrefix)
				errs = append(errs, cfg.Errorf("snippets."+name, "its tool %s cannot be served: %s", t.Name, strings.TrimPrefix(err.Error(), "tool #0: ")))
			}
			step.Tools = append(step.Tools, t.Name)
		}
		if len(errs) > 0 {
			return declaredSnippets(cfg), errors.Join(errs...)
		}
	}
	step.Apply = func(context.Context) error { return w.setSnippetPack(pack) }
	step.Undo = func(context.Context) error {
		var prev *registry.Pack
		if len(prevDefs) > 0 {
			var err error
			if prev, err = snippet.Pack(prevDefs, w.reg); err != nil {
				return err
			}
			exampleCalls(prev, old)
		}
		return w.setSnippetPack(prev)
	}
	return step, nil
}

// declaredSnippets is the Step of a configuration whose snippets fail:
// their tools still count as aliases' targets, so that only the snippet
// at fault is reported.
func declaredSnippets(cfg *hostconfig.Config) hostconfig.Step {
	var st hostconfig.Step
	for name := range cfg.Snippets {
		st.Tools = append(st.Tools, snippet.ToolPrefix+name)
	}
	return st
}

// exampleCalls sets the example call (Usage.Example) of each tool of the
// snippet pack p from the snippets of cfg, the parameters in the order of
// the tool's signature (required first): a required parameter shows its
// example: value, typed as the file writes it (example: 3 is 3), else the
// placeholder <name> unquoted — the snippet takes any JSON value there,
// and "<name>" would say a string where the body may pass it on as a
// number —; an optional one shows its default.
func exampleCalls(p *registry.Pack, cfg *hostconfig.Config) {
	for _, t := range p.Tools {
		sn, ok := cfg.Snippets[strings.TrimPrefix(t.Name, snippet.ToolPrefix)]
		if !ok {
			continue
		}
		byName := make(map[string]hostconfig.Param, len(sn.Params))
		for _, prm := range sn.Params {
			byName[prm.Name] = prm
		}
		var parts []string
		for _, ps := range pysig.Params(t.InputSchema) {
			v := "<" + ps.Name + ">"
			switch prm := byName[ps.Name]; {
			case prm.Default != nil:
				v = shownJSON(prm.Default)
			case prm.Example != nil:
				v = shownJSON(prm.Example)
			}
			parts = append(parts, ps.Name+"="+v)
		}
		t.Usage.Example = t.Name + "(" + strings.Join(parts, ", ") + ")"
	}
}

// shownJSON is raw as a call shows it: compact, without the HTML escapes
// of encoding/json (a < stays <).
func shownJSON(raw json.RawMessage) string {
	v, err := decodeJSON(raw)
	if err != nil {
		return string(raw)
	}
	b, err := toolmsg.MarshalValue(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// paramExamples are the example: values of cfg's snippet parameters, by
// snippet and parameter: a reload that changes only those replaces the
// snippet pack too (its tools' examples change).
func paramExamples(cfg *hostconfig.Config) map[string]map[string]string {
	out := map[string]map[string]string{}
	for name, sn := range cfg.Snippets {
		for _, prm := range sn.Params {
			if prm.Example != nil {
				if out[name] == nil {
					out[name] = map[string]string{}
				}
				out[name][prm.Name] = string(prm.Example)
			}
		}
	}
	return out
}

// setSnippetPack puts p in force as the snippet pack; nil removes it.
func (w *Wiring) setSnippetPack(p *registry.Pack) error {
	if p != nil {
		return w.reg.ReplacePack(p)
	}
	if err := w.reg.RemovePack(snippet.PackName); err != nil && !errors.Is(err, registry.ErrUnknownPack) {
		return err
	}
	return nil
}

// definitions parses the snippets of cfg, returning every body that does
// not parse as a problem located in the configuration file.
func definitions(cfg *hostconfig.Config) (map[string]snippet.Definition, error) {
	defs := make(map[string]snippet.Definition, len(cfg.Snippets))
	var errs []error
	for _, name := range sortedKeys(cfg.Snippets) {
		s := cfg.Snippets[name]
		d, param, err := definition(s)
		if param != "" {
			errs = append(errs, cfg.Errorf("snippets."+name+".params."+param+".default", "%v", err))
			continue
		}
		if err != nil {
			errs = append(errs, locate(cfg, s, err))
			continue
		}
		defs[name] = d
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return defs, nil
}

// definition is the snippet language's form of s, parsed once to check
// it. A default that is not JSON names its parameter (param).
func definition(s hostconfig.Snippet) (d snippet.Definition, param string, err error) {
	d = snippet.Definition{Description: s.Description, Body: s.Body, Params: make(map[string]snippet.Param, len(s.Params))}
	for _, p := range s.Params {
		var def any
		if p.Default != nil {
			if def, err = decodeJSON(p.Default); err != nil {
				return d, p.Name, err
			}
			if def == nil { // `default: null` is a default, not its absence
				def = snippet.NullDefault
			}
		}
		d.Params[p.Name] = snippet.Param{Description: p.Description, Default: def}
	}
	_, err = snippet.Parse(s.Name, d)
	return d, "", err
}

// locate turns a snippet's parse errors (Parse reports every problem,
// joined) into problems, each at the file line of the body line at fault.
func locate(cfg *hostconfig.Config, s hostconfig.Snippet, err error) error {
	var leaves []error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		leaves = append(leaves, e)
	}
	walk(err)
	probs := make([]error, len(leaves))
	for i, e := range leaves {
		probs[i] = locateOne(cfg, s, e)
	}
	return errors.Join(probs...)
}

// locateOne is locate for one problem of the snippet.
func locateOne(cfg *hostconfig.Config, s hostconfig.Snippet, err error) error {
	var pe *snippet.ParseError
	if !errors.As(err, &pe) {
		return &hostconfig.Problem{File: s.File, Line: s.Line, Key: "snippets." + s.Name, Message: err.Error(), Err: err}
	}
	p := &hostconfig.Problem{File: s.File, Line: s.Line, Key: "snippets." + s.Name + ".body", Err: err}
	msg := pe.Msg
	if pe.Line > 0 {
		p.File, p.Line = bodyPosition(cfg, s, pe.Line)
		msg = fmt.Sprintf("body line %d", pe.Line)
		if pe.Column > 0 {
			msg += fmt.Sprintf(", column %d", pe.Column)
		}
		msg += ": " + pe.Msg
	}
	p.Message = msg
	return p
}

// bodyPosition is the file and line of line (1-based) of snippet s's
// body. A block scalar (body: |) starts on the line after the key, one
// file line per body line; a quoted body's lines are not the file's, so
// it is located at its key.
func bodyPosition(cfg *hostconfig.Config, s hostconfig.Snippet, line int) (string, int) {
	file, at := s.File, s.Line
	bodyFile, keyLine, _ := cfg.Position("snippets." + s.Name + ".body")
	if bodyFile != "" {
		file = bodyFile // the body may come from another file than the snippet's last key
	}
	if keyLine > 0 {
		at = keyLine
	}
	if bodyLines := strings.Count(strings.TrimSuffix(s.Body, "\n"), "\n") + 1; keyLine > 0 && s.BodyLine > keyLine {
		at = s.BodyLine + min(line, bodyLines) - 1
	}
	return file, at
}

// decodeJSON decodes one JSON value, numbers kept as json.Number.
func decodeJSON(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type snippetSource struct{ w *Wiring }

// Snippets lists the configured snippets in the order the configuration
// lists them.
func (s snippetSource) Snippets() []ot.Snippet {
	cfg := s.w.config()
	out := make([]ot.Snippet, 0, len(cfg.Snippets))
	for _, name := range cfg.Names("snippets") {
		sn := cfg.Snippets[name]
		o := ot.Snippet{Name: name, Description: sn.Description, Body: sn.Body}
		for _, p := range sn.Params {
			sp := ot.SnippetParam{Name: p.Name, Description: p.Description}
			if p.Default != nil {
				if v, err := decodeJSON(p.Default); err == nil {
					sp.Default, sp.HasDefault = v, true
				}
			}
			if p.Example != nil {
				if v, err := decodeJSON(p.Example); err == nil {
					sp.Example = v // typed as the file wrote it
				}
			}
			o.Params = append(o.Params, sp)
		}
		out = append(out, o)
	}
	return out
}

// Expand returns the named snippet's body as it would run with params.
func (s snippetSource) Expand(name string, params map[string]any) (string, error) {
	cfg := s.w.config()
	sn, ok := cfg.Snippets[name]
	if !ok {
		return "", fmt.Errorf("no snippet named %q", name)
	}
	d, _, err := definition(sn)
	if err != nil {
		return "", err
	}
	parsed, err := snippet.Parse(name, d)
	if err != nil {
		return "", err
	}
	return parsed.Expand(params)
}

// retold is an error told in other words: errors.Is and errors.As still
// reach the error it tells.
type retold struct {
	msg string
	err error
}

func (e retold) Error() string { return e.msg }
func (e retold) Unwrap() error { return e.err }

// estimate is a configuration's per-call estimate as stats.Options takes
// it: the file's 0 means none (stats.NoEstimate), not the default, which
// the configuration has already filled in when the key is left out.
func estimate(v int) int64 {
	if v == 0 {
		return stats.NoEstimate
	}
	return int64(v)
}
