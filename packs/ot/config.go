package ot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolpack-go/toolpack/registry"
)

// Config configures the pack. Registry is required; every other field is
// optional and its zero value is documented. The functions and interfaces
// are called on every ot call (never cached), so a host that swaps its
// configuration (ot.reload, SIGHUP) is seen at once; they must be safe for
// concurrent use.
type Config struct {
	// Registry is the registry the pack is served from: ot.tools, ot.packs,
	// ot.aliases, ot.help and ot.health read its tools, packs and aliases.
	// Required.
	Registry *registry.Registry

	// Version is what ot.version and ot.health report. Empty means the
	// toolpack module's version from the binary's build information, or
	// "(devel)" when it has none.
	Version string

	// Snippets are the configured snippets (ot.snippets, ot.config,
	// ot.help "$name"). Nil means none.
	Snippets SnippetSource

	// Aliases returns the configured aliases in the order the
	// configuration lists them. Nil means the registry's aliases
	// (Registry.Aliases) sorted by name; a host whose configuration keeps
	// the order users wrote passes it here so that ot.config and
	// ot.aliases show that order.
	Aliases func() []Alias

	// Instructions returns the configured instructions per pack name
	// (the configuration's instructions: section), shown by
	// ot.packs(info="full") and ot.help. Nil means none.
	Instructions func() map[string]string

	// Servers returns the configured remote MCP servers with their
	// connection state, in the order to show them (ot.config lists their
	// names, ot.health their states). Nil means none.
	Servers func() []ServerStatus
	// Databases reports the databases the host keeps its state in (the
	// catalogue, statistics and stored outputs on PostgreSQL), each
	// checked when called; ot.health shows them under postgresql when
	// there is any. nil means none.
	Databases func(ctx context.Context) []DatabaseStatus

	// Reload re-reads the configuration and applies it (ot.reload). It
	// returns an error, naming file and line, when the configuration is
	// broken and the previous one stays (ot.reload answers config_error);
	// an error matching ErrUnavailable (errors.Is) says instead that a
	// database the configuration names cannot be reached now, and
	// ot.reload answers unavailable, to be retried later. Nil makes
	// ot.reload answer that reloading is not available.
	Reload func(ctx context.Context) error

	// Topics returns the notification topics (ot.notify): the first whose
	// pattern matches a topic receives its messages. File paths are used
	// as given (a host resolves them against its configuration file's
	// directory). Nil means none: every ot.notify answers
	// "SKIP: no matching topic".
	Topics func() []Topic

	// Stats answers ot.stats. Nil means statistics are disabled (as does
	// an error wrapping ErrDisabled).
	Stats StatsSource

	// Results answers ot.result. Nil means no output is stored.
	Results ResultStore

	// Docs returns the documentation settings of ot.help's URLs. Nil
	// means the zero Docs: DefaultDocsBaseURL and DefaultDocSlugs.
	Docs func() Docs

	// Rank ranks the items ot.help searches. Nil means DefaultRank.
	Rank RankFunc

	// Now is the clock (notification timestamps, stats periods). Nil
	// means time.Now.
	Now func() time.Time
}

// Alias is one alias: calling Name runs Target.
type Alias struct {
	// Name is the alias.
	Name string
	// Target is the tool (or alias) it stands for.
	Target string
}

// Snippet describes one configured snippet: a named, parameterised
// sequence of tool calls.
type Snippet struct {
	// Name is the snippet's name (called as $name).
	Name string
	// Description says what the snippet does.
	Description string
	// Params are the snippet's parameters in the order the configuration
	// lists them.
	Params []SnippetParam
	// Body is the call-sequence template, with {{ param }} placeholders.
	Body string
}

// SnippetParam is one parameter of a snippet.
type SnippetParam struct {
	// Name is the parameter's name.
	Name string
	// Description says what the parameter is.
	Description string
	// Default is the default value; it is used only when HasDefault is
	// true. A parameter without a default is required.
	Default any
	// HasDefault reports whether the parameter has a default.
	HasDefault bool
	// Example, when non-nil, is the value the "# Example with defaults:"
	// section of a snippet's definition uses for a required parameter;
	// nil uses the placeholder "<name>".
	Example any
}

// SnippetSource gives the configured snippets.
type SnippetSource interface {
	// Snippets returns the configured snippets in the order to show them.
	Snippets() []Snippet
	// Expand returns the body of the named snippet with its placeholders
	// replaced by params (a parameter missing from params takes its
	// default), as the snippet would run.
	Expand(name string, params map[string]any) (string, error)
}

// ServerStatus is the state of one configured remote MCP server.
type ServerStatus struct {
	// Name is the server's name (and the name of its pack).
	Name string
	// Connected reports whether the server is connected now.
	Connected bool
}

// DatabaseStatus is the state of one database of the host.
type DatabaseStatus struct {
	// Name says what the database keeps: catalogue, stats or output.
	Name string
	// Reachable reports whether it answered just now.
	Reachable bool
}

// State is the database's state as ot.health shows it: "reachable" or
// "unreachable".
func (d DatabaseStatus) State() string {
	if d.Reachable {
		return "reachable"
	}
	return "unreachable"
}

// DatabasesStatus is the status ot.health shows for dbs: "ok" when every
// one is reachable, else "degraded". A host's own health endpoint uses it
// (with State) to say the same.
func DatabasesStatus(dbs []DatabaseStatus) string {
	for _, d := range dbs {
		if !d.Reachable {
			return healthDegraded
		}
	}
	return healthOK
}

// Topic routes ot.notify messages: a topic matching Pattern (a glob as
// Python's fnmatch reads it: * and ? match any character, '/' included) is
// appended to File.
type Topic struct {
	// Pattern is the glob topics are matched against.
	Pattern string
	// File is the file the messages are appended to, one YAML document
	// each.
	File string
	// MaxFileBytes caps File's size: a message that would take the file
	// past it is refused (write_error naming the topic, the file and the
	// cap) and nothing of it is written. Zero means
	// DefaultNotifyMaxFileBytes; a negative value is a configuration
	// error every ot.notify to the topic reports (config_error).
	MaxFileBytes int64
}

// DefaultNotifyMaxFileBytes is a notification file's size cap when
// Topic.MaxFileBytes is zero: 64 MiB.
const DefaultNotifyMaxFileBytes int64 = 64 << 20

// Docs configures documentation URLs: a tool's or pack's URL is BaseURL
// followed by the pack's slug and a slash.
type Docs struct {
	// BaseURL is the start of every documentation URL; empty means
	// DefaultDocsBaseURL. A missing trailing slash is added.
	BaseURL string
	// Slugs maps pack names to documentation slugs; they win over
	// DefaultDocSlugs. A pack in neither uses its name.
	Slugs map[string]string
}

// DefaultDocsBaseURL is the documentation base URL when Docs.BaseURL is
// empty.
const DefaultDocsBaseURL = "https://onetool.beycom.online/reference/tools/"

// defaultSlugPacks are the packs whose documentation page is not named
// after the pack.
var defaultSlugPacks = [...]string{"brave", "code", "db", "ground", "llm", "web"}

// defaultSlug is the documentation slug of a pack without a configured
// one.
func defaultSlug(pack string) string {
	switch pack {
	case "brave":
		return "brave-search"
	case "code":
		return "code-search"
	case "db":
		return "database"
	case "ground":
		return "grounding-search"
	case "llm":
		return "transform"
	case "web":
		return "web-fetch"
	}
	return pack
}

// DefaultDocSlugs returns the documentation slugs of packs whose page is
// not named after the pack (brave → brave-search, code → code-search,
// db → database, ground → grounding-search, llm → transform,
// web → web-fetch). It returns a new map on every call.
func DefaultDocSlugs() map[string]string {
	m := make(map[string]string, len(defaultSlugPacks))
	for _, p := range defaultSlugPacks {
		m[p] = defaultSlug(p)
	}
	return m
}

// StatsSource answers ot.stats from the recorded calls.
type StatsSource interface {
	// Stats aggregates the calls q selects and, when q.Output is set,
	// writes the HTML report there (a path the source resolves, and may
	// refuse, such as one outside its reports directory), returning the
	// written file's path in StatsReport.HTMLReport. An error wrapping
	// ErrDisabled means statistics are switched off; a *ReportError means
	// the report could not be written; any other error is a protocol
	// failure.
	Stats(ctx context.Context, q StatsQuery) (StatsReport, error)
}

// StatsQuery selects the calls ot.stats aggregates.
type StatsQuery struct {
	// Period is "day", "week", "month" or "all" (the pack refuses any
	// other value before asking).
	Period string
	// Since is the start of the period: Now minus 24 h, 7 days or 30
	// days; zero for "all".
	Since time.Time
	// Now is the end of the period (Config.Now).
	Now time.Time
	// Tool, when non-empty, keeps only the calls of that tool.
	Tool string
	// Output, when non-empty, asks for the HTML report at that path.
	Output string
}

// StatsReport is the aggregate ot.stats shows.
type StatsReport struct {
	// TotalCalls is the number of calls.
	TotalCalls int64
	// SuccessRate is the percentage (0–100) of successful calls; 0 when
	// there were none.
	SuccessRate float64
	// ContextSaved is the estimated number of context tokens saved.
	ContextSaved int64
	// TimeSavedMS is the estimated time saved, in milliseconds.
	TimeSavedMS int64
	// Tools is the per-tool breakdown, in the order to show.
	Tools []ToolStat
	// Skipped counts the stored records that could not be read (corrupt
	// lines); shown only when positive.
	Skipped int64
	// Truncated reports that a read cap left the oldest records of the
	// period out; shown only when true.
	Truncated bool
	// HTMLReport is the path of the HTML report written for
	// StatsQuery.Output; empty when none was asked for.
	HTMLReport string
}

// ToolStat is one tool's line of a StatsReport.
type ToolStat struct {
	// Tool is the tool's name.
	Tool string
	// Calls is the number of its calls.
	Calls int64
	// SuccessRate is the percentage (0–100) of its successful calls.
	SuccessRate float64
	// AvgMS is its mean call duration in milliseconds.
	AvgMS float64
	// P95MS is the 95th percentile of its call durations in milliseconds.
	P95MS float64
}

// ReportError is the failure of a StatsSource to write the HTML report;
// ot.stats answers "Error: Cannot write to '{Path}': {Err}".
type ReportError struct {
	// Path is the report's path as the source resolved it (or the output
	// asked for, when empty).
	Path string
	// Err is the reason.
	Err error
	// Refused reports that the path itself is not allowed (outside the
	// reports directory, or not a report's name): the caller's mistake,
	// answered as a validation_error rather than a write_error.
	Refused bool
}

// Error returns "Error: Cannot write to '{Path}': {Err}".
func (e *ReportError) Error() string {
	return fmt.Sprintf("Error: Cannot write to '%s': %v", e.Path, e.Err)
}

// Unwrap returns Err.
func (e *ReportError) Unwrap() error { return e.Err }

// ResultStore answers ot.result from the stored large outputs.
type ResultStore interface {
	// Query returns one page of a stored output. Errors wrapping
	// ErrHandleNotFound, ErrHandleExpired, ErrHandleDamaged, ErrInvalidSearch,
	// ErrInvalidQuery or ErrSearchTimeout become the matching failures;
	// any other error is a protocol failure.
	Query(ctx context.Context, q ResultQuery) (ResultPage, error)
}

// ResultQuery asks for one page of a stored output.
type ResultQuery struct {
	// Handle names the stored output.
	Handle string
	// Offset is the first line to return, 1-indexed (of the matching
	// lines when Search is set); at least 1.
	Offset int
	// Limit is the most lines to return; at least 1.
	Limit int
	// Search, when non-empty, keeps the lines matching it: a regular
	// expression, or a fuzzy query when Fuzzy is set (lines then sorted
	// by match score).
	Search string
	// Fuzzy switches Search to fuzzy matching.
	Fuzzy bool
}

// ResultPage is one page of a stored output.
type ResultPage struct {
	// Lines are the lines of the page.
	Lines []string
	// TotalLines is the number of lines of the stored output.
	TotalLines int
	// Offset is the offset used (1-indexed).
	Offset int
	// HasMore reports whether lines follow the page.
	HasMore bool
	// LineNumbers are the 1-indexed numbers of Lines in the stored
	// output, when the store gives them (for a search); shown when set.
	LineNumbers []int
}

// Errors a StatsSource or ResultStore wraps so that the pack answers with
// the matching failure.
var (
	// ErrDisabled: the feature (statistics) is switched off.
	ErrDisabled = errors.New("ot: disabled")
	// ErrHandleNotFound: no stored output has that handle.
	ErrHandleNotFound = errors.New("ot: handle not found")
	// ErrHandleExpired: the stored output outlived its time to live.
	ErrHandleExpired = errors.New("ot: handle expired")
	// ErrHandleDamaged: the stored output is damaged (a file cut or
	// changed by hand, a disk error) and is not served.
	ErrHandleDamaged = errors.New("ot: stored output damaged")
	// ErrInvalidSearch: the search is not a valid regular expression; the
	// text after it is the regexp package's error.
	ErrInvalidSearch = errors.New("ot: invalid search")
	// ErrInvalidQuery: another argument the store refuses (a fuzzy search
	// too long, an offset past what a fuzzy search keeps); the text after
	// it says what is wrong, for the model. A *QueryError also names the
	// argument.
	ErrInvalidQuery = errors.New("ot: invalid query")
	// ErrSearchTimeout: the search ran out of its time limit.
	ErrSearchTimeout = errors.New("ot: search time limit reached")
	// ErrUnavailable: the store behind ot.stats or ot.result, or a
	// database a reloaded configuration names (Config.Reload), cannot be
	// reached now (a database that is down); the call may succeed later.
	ErrUnavailable = errors.New("ot: store unavailable")
)

// QueryError is an ErrInvalidQuery naming the argument at fault. A
// ResultStore returns one (or an error wrapping one) so that ot.result's
// failure names the argument in its error data, as the pack's own checks
// do (REST sends it as details[].field); a plain ErrInvalidQuery names
// none. Its text for the model is "Error: " and Msg either way.
type QueryError struct {
	// Field is the argument at fault, as ot.result names it: "offset",
	// "limit", "search" or "fuzzy"; "" for the arguments together.
	Field string
	// Msg says what is wrong, for the model.
	Msg string
	// Err is the store's own error, if any (for errors.Is and errors.As).
	Err error
}

// Error returns ErrInvalidQuery's text, a colon and Msg, as
// fmt.Errorf("%w: %s", ErrInvalidQuery, Msg) writes it.
func (e *QueryError) Error() string { return ErrInvalidQuery.Error() + ": " + e.Msg }

// Is reports whether target is ErrInvalidQuery.
func (e *QueryError) Is(target error) bool { return target == ErrInvalidQuery }

// Unwrap returns Err.
func (e *QueryError) Unwrap() error { return e.Err }

// ItemKind is the kind of thing ot.help finds.
type ItemKind string

// Kinds of items ot.help searches, in the order it shows them.
const (
	KindTool    ItemKind = "tool"
	KindPack    ItemKind = "pack"
	KindSnippet ItemKind = "snippet"
	KindAlias   ItemKind = "alias"
)

// SearchItem is one named thing ot.help searches.
type SearchItem struct {
	// Kind is what the item is.
	Kind ItemKind
	// Name is its name (a tool's final name, a snippet's name without $).
	Name string
	// Description says what it is (an alias's is "alias of {target}").
	Description string
}

// Hit is one item a RankFunc found.
type Hit struct {
	// Index is the item's index in the slice given to the RankFunc.
	Index int
	// Score orders hits: higher is better.
	Score float64
}

// RankFunc returns the items matching query, best first, by name and
// description, tolerant of typos. Items that do not match are left out.
type RankFunc func(query string, items []SearchItem) []Hit
