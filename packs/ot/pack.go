package ot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// PackName is the name of the pack New returns.
const PackName = "ot"

// Tool names (undecorated: a registry prefix is added at registration).
const (
	ToolTools    = "ot.tools"
	ToolPacks    = "ot.packs"
	ToolAliases  = "ot.aliases"
	ToolSnippets = "ot.snippets"
	ToolHelp     = "ot.help"
	ToolConfig   = "ot.config"
	ToolHealth   = "ot.health"
	ToolVersion  = "ot.version"
	ToolReload   = "ot.reload"
	ToolNotify   = "ot.notify"
	ToolStats    = "ot.stats"
	ToolResult   = "ot.result"
)

// Info levels of the listing tools.
const (
	InfoList = "list"
	InfoMin  = "min"
	InfoFull = "full"
)

// Error types the pack's failures carry beyond the result package's own.
const (
	// ErrTypeConfig: ot.reload found the configuration broken; the
	// previous one stays. (A database it names that cannot be reached is
	// result.Unavailable instead: the file is not at fault.)
	ErrTypeConfig result.ErrorType = "config_error"
	// ErrTypeWrite: ot.stats could not write its HTML report.
	ErrTypeWrite result.ErrorType = "write_error"
)

// Limits on what the pack accepts and reads.
const (
	// MaxPatternLen caps pattern, query, topic, handle and tool arguments.
	MaxPatternLen = 200
	// MaxMessageLen caps an ot.notify message, in characters (the message
	// argument's rule, max=65536, which its schema advertises as
	// maxLength).
	MaxMessageLen = 64 << 10
	// MaxMessageBytes is the most bytes an ot.notify message takes in the
	// file: MaxMessageLen characters of UTF-8, 4 bytes at most each.
	MaxMessageBytes = 4 * MaxMessageLen
	// MaxResultLimit caps ot.result's limit (the limit argument's rule,
	// max=10000, which its schema advertises).
	MaxResultLimit = 10000
	// MaxSearchLen caps ot.result's search.
	MaxSearchLen = 1000
)

// ToolsArgs are the arguments of ot.tools.
type ToolsArgs struct {
	Pattern string `json:"pattern" validate:"max=200" description:"Keep the tools whose name contains this text (case-insensitive); empty keeps all." example:"search"`
	Info    string `json:"info" validate:"omitempty,oneof=list min full" default:"min" description:"Detail: list (names), min (name and description) or full (signature, arguments, returns, example, source)."`
}

// PacksArgs are the arguments of ot.packs.
type PacksArgs struct {
	Pattern string `json:"pattern" validate:"max=200" description:"Keep the packs whose name contains this text (case-insensitive); empty keeps all." example:"brav"`
	Info    string `json:"info" validate:"omitempty,oneof=list min full" default:"min" description:"Detail: list (names), min (name, source, tool count) or full (instructions and tools, as Markdown)."`
}

// AliasesArgs are the arguments of ot.aliases.
type AliasesArgs struct {
	Pattern string `json:"pattern" validate:"max=200" description:"Keep the aliases whose name or target contains this text (case-insensitive); empty keeps all."`
	Info    string `json:"info" validate:"omitempty,oneof=list min full" default:"min" description:"Detail: list (names), min (alias -> target) or full (name and target)."`
}

// SnippetsArgs are the arguments of ot.snippets.
type SnippetsArgs struct {
	Pattern string `json:"pattern" validate:"max=200" description:"Keep the snippets whose name or description contains this text (case-insensitive); empty keeps all."`
	Info    string `json:"info" validate:"omitempty,oneof=list min full" default:"min" description:"Detail: list (names), min (name: description) or full (definition, body and an expanded example)."`
}

// HelpArgs are the arguments of ot.help.
type HelpArgs struct {
	Query string `json:"query" validate:"max=200" description:"A tool, pack or alias name, $snippet, or words to search for; empty gives the general help." example:"brave.search"`
	Info  string `json:"info" validate:"omitempty,oneof=list min full" default:"min" description:"Detail: list (names of matches), min (names with descriptions) or full (all documentation)."`
}

// NoArgs are the arguments of the tools that take none.
type NoArgs struct{}

// NotifyArgs are the arguments of ot.notify.
type NotifyArgs struct {
	Topic   string `json:"topic" validate:"required,max=200" description:"The topic; the first configured topic pattern it matches picks the file." example:"notes"`
	Message string `json:"message" validate:"required,max=65536" description:"The message to append." example:"Remember to review PR #123"`
}

// StatsArgs are the arguments of ot.stats.
type StatsArgs struct {
	Period string `json:"period" validate:"max=200" default:"all" description:"day (last 24 h), week (7 days), month (30 days) or all."`
	Tool   string `json:"tool" validate:"max=200" description:"Keep only the calls of this tool (an alias means its tool); empty keeps all."`
	Output string `json:"output" validate:"max=1024" description:"When set, also write an HTML report to this file (a name ending in .html, under the reports directory) and return its path as html_report." example:"stats.html"`
}

// ResultArgs are the arguments of ot.result.
type ResultArgs struct {
	Handle string `json:"handle" validate:"required,max=200" description:"The handle of the stored output, as the tool that stored it returned." example:"abc123"`
	Offset *int32 `json:"offset" default:"1" description:"First line to return, 1-indexed (of the matching lines when search is set)."`
	Limit  *int32 `json:"limit" validate:"omitempty,max=10000" default:"100" description:"Most lines to return (1 to 10000)."`
	Search string `json:"search" validate:"max=1000" description:"Keep only the lines matching this regular expression (or, with fuzzy=true, resembling this text of at most 64 characters)."`
	Fuzzy  bool   `json:"fuzzy" description:"Match search fuzzily and sort the lines by match score."`
}

// pack holds the configuration the tools read.
type pack struct {
	cfg     Config
	reg     *registry.Registry
	now     func() time.Time
	rank    RankFunc
	version string
}

// New returns the ot pack reading cfg.Registry. Register it on that
// registry (reg.AddPack). Config.Registry nil is an error; nothing else
// is checked here (New does no I/O).
func New(cfg Config) (*registry.Pack, error) {
	if cfg.Registry == nil {
		return nil, errors.New("ot: Config.Registry is nil; expected the registry the pack is added to")
	}
	p := &pack{cfg: cfg, reg: cfg.Registry, now: cfg.Now, rank: cfg.Rank, version: cfg.Version}
	if p.now == nil {
		p.now = time.Now
	}
	if p.rank == nil {
		p.rank = DefaultRank
	}
	if p.version == "" {
		p.version = moduleVersion()
	}
	return p.build()
}

const modulePath = "github.com/toolpack-go/toolpack"

// moduleVersion is the toolpack module's version in the running binary.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if bi.Main.Path == modulePath && bi.Main.Version != "" {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == modulePath && d.Version != "" {
			return d.Version
		}
	}
	return "(devel)"
}

func (p *pack) build() (*registry.Pack, error) {
	ro := registry.Annotations{ReadOnly: new(true), Destructive: new(false), Idempotent: new(true), OpenWorld: new(false)}
	pk := &registry.Pack{Name: PackName, Description: "Introspection and administration of this server: tools, packs, aliases, snippets, help, configuration, health, statistics, stored outputs and notifications."}
	err := errors.Join(
		registry.AddFunc(pk, ToolTools, p.tools, registry.ToolOptions{
			Title:       "List tools",
			Doc:         "Lists the available tools as YAML. info=list gives names, min (default) names and descriptions, full also signature, arguments, return type, example and source (local or proxy:{server}).",
			Annotations: ro, Example: `ot.tools(pattern="search", info="full")`,
		}),
		registry.AddFunc(pk, ToolPacks, p.packs, registry.ToolOptions{
			Title:       "List packs",
			Doc:         "Lists the packs (local and proxied MCP servers) as YAML; info=full gives each pack's instructions and tools as Markdown.",
			Annotations: ro, Example: `ot.packs(pattern="brav")`,
		}),
		registry.AddFunc(pk, ToolAliases, p.aliases, registry.ToolOptions{
			Title:       "List aliases",
			Doc:         "Lists the aliases (short names that run another tool) as YAML.",
			Annotations: ro, Example: `ot.aliases(pattern="search")`,
		}),
		registry.AddFunc(pk, ToolSnippets, p.snippets, registry.ToolOptions{
			Title:       "List snippets",
			Doc:         "Lists the snippets (named, parameterised sequences of tool calls, run as $name) as YAML; info=full gives the definition and an example expanded with the defaults.",
			Annotations: ro, Example: `ot.snippets(pattern="pkg", info="full")`,
		}),
		registry.AddFunc(pk, ToolHelp, p.help, registry.ToolOptions{
			Title:       "Help",
			Doc:         "Help on tools, packs, snippets and aliases. Without a query: how to discover what is available. With the exact name of a tool, pack, alias or $snippet: its documentation. Otherwise: a search over names and descriptions, tolerant of typos, grouped by type and sorted by relevance.",
			Annotations: ro, Example: `ot.help(query="web fetch")`,
		}),
		registry.AddFunc(pk, ToolConfig, p.config, registry.ToolOptions{
			Title:       "Configuration summary",
			Doc:         "Shows the configured aliases, snippets (with descriptions) and MCP servers as YAML.",
			Annotations: ro, Example: `ot.config()`,
		}),
		registry.AddFunc(pk, ToolHealth, p.health, registry.ToolOptions{
			Title:       "Health",
			Doc:         "Reports the version, Go version, working directory, registry and proxied MCP servers (connected or disconnected) as YAML.",
			Annotations: ro, Example: `ot.health()`,
		}),
		registry.AddFunc(pk, ToolVersion, p.versionTool, registry.ToolOptions{
			Title:       "Version",
			Doc:         "Returns the version string.",
			Annotations: ro, Example: `ot.version()`,
		}),
		registry.AddFunc(pk, ToolReload, p.reload, registry.ToolOptions{
			Title:       "Reload configuration",
			Doc:         "Re-reads every configuration file and applies it at once. A broken file keeps the previous configuration, and the error names the file and line.",
			Annotations: registry.Annotations{ReadOnly: new(false), Destructive: new(false), Idempotent: new(true), OpenWorld: new(false)},
			Example:     `ot.reload()`,
			Errors:      []registry.ErrorSpec{{Type: ErrTypeConfig, Status: 500, Description: "the configuration is broken; the previous one stays"}},
		}),
		registry.AddFunc(pk, ToolNotify, p.notify, registry.ToolOptions{
			Title:       "Notify",
			Doc:         "Appends a message, as one YAML document with a timestamp, to the file of the first configured topic matching the topic. Answers SKIP when no topic matches.",
			Annotations: registry.Annotations{ReadOnly: new(false), Destructive: new(false), Idempotent: new(false), OpenWorld: new(false)},
			Example:     `ot.notify(topic="notes", message="Remember to review PR #123")`,
		}),
		registry.AddFunc(pk, ToolStats, p.stats, registry.ToolOptions{
			Title:       "Statistics",
			Doc:         "Aggregated statistics of the tool calls as YAML: total calls, success rate, estimated context and time saved, and a per-tool breakdown; optionally an HTML report.",
			Annotations: registry.Annotations{ReadOnly: new(false), Destructive: new(false), Idempotent: new(true), OpenWorld: new(false)},
			Example:     `ot.stats(period="day")`,
			Errors:      []registry.ErrorSpec{{Type: ErrTypeWrite, Status: 422, Description: "the HTML report could not be written where output asks (a directory in the way, no permission), as ot.notify answers an unwritable topic file"}},
		}),
		registry.AddFunc(pk, ToolResult, p.result, registry.ToolOptions{
			Title:       "Stored output",
			Doc:         "Reads a page of a stored large output by its handle: lines offset to offset+limit-1 (1-indexed), optionally only the lines matching a regular expression or a fuzzy query.",
			Annotations: ro, Example: `ot.result(handle="abc123", offset=101, limit=50)`,
			// Seed 001: the span of ot.result carries these arguments.
			TraceArgs: []string{"handle", "offset", "limit", "search"},
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("ot: build tools: %w", err)
	}
	return pk, nil
}

// span logs one ot call as the seed's LogSpan does: the record's message
// and its span attribute are ot.{function}, with the call's own
// attributes, its duration and outcome. Message texts and stored lines
// are never logged.
type span struct {
	ctx   context.Context
	name  string
	start time.Time
	attrs []slog.Attr
}

func startSpan(ctx context.Context, name string, attrs ...slog.Attr) *span {
	return &span{ctx: ctx, name: name, start: time.Now(), attrs: attrs}
}

// end logs the span and passes the outcome through.
func (s *span) end(res result.Result[string], err error, extra ...slog.Attr) (result.Result[string], error) {
	log := registry.Logger(s.ctx)
	if !log.Enabled(s.ctx, slog.LevelDebug) {
		return res, err
	}
	attrs := make([]slog.Attr, 0, len(s.attrs)+len(extra)+4)
	attrs = append(attrs, slog.String("span", s.name))
	attrs = append(attrs, s.attrs...)
	attrs = append(attrs, extra...)
	attrs = append(attrs,
		slog.Float64("duration_ms", float64(time.Since(s.start).Microseconds())/1000),
		slog.Bool("success", err == nil && res.Success))
	if err == nil && !res.Success {
		attrs = append(attrs, slog.String("error_type", string(res.ErrorType)))
	}
	log.LogAttrs(s.ctx, slog.LevelDebug, s.name, attrs...)
	return res, err
}

// info returns the info level, min when empty.
func info(s string) string {
	if s == "" {
		return InfoMin
	}
	return s
}

// okYAML renders v as the successful result of a call.
func okYAML(v any) (result.Result[string], error) {
	s, err := renderYAML(v)
	if err != nil {
		return result.Result[string]{}, err
	}
	return result.Ok(s), nil
}
