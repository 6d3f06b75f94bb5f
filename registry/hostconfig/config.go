package hostconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolpack-go/toolpack/internal/topicglob"
)

// Defaults of the settings, used by Default and for keys a configuration
// leaves out.
const (
	// DefaultFlushInterval is stats.flush_interval.
	DefaultFlushInterval = time.Second
	// DefaultContextPerCall is stats.context_per_call (estimated context
	// tokens one call saves).
	DefaultContextPerCall = 2000
	// DefaultTimePerCallMS is stats.time_per_call_ms (estimated
	// milliseconds one call saves).
	DefaultTimePerCallMS = 3000
	// MaxKeepDays is the largest stats.keep_days (a century; the stats
	// package's limit).
	MaxKeepDays = 36500
	// DefaultMaxInlineBytes is output.max_inline_bytes.
	DefaultMaxInlineBytes = 50000
	// DefaultTTL is output.ttl.
	DefaultTTL = time.Hour
	// DefaultDocsBaseURL is docs.base_url.
	DefaultDocsBaseURL = "https://onetool.beycom.online/reference/tools/"
)

// Directory names under the data directory used by Default.
const (
	DefaultStatsDir   = "stats"
	DefaultOutputDir  = "results"
	DefaultReportsDir = "reports"
	// DefaultCatalogueDir is catalogue.dir under the data directory.
	DefaultCatalogueDir = "catalogue"
)

// DefaultSlugs are docs.slugs before a configuration adds its own: pack
// name → documentation slug (seed 001's overrides). A pack not listed
// uses its own name.
func DefaultSlugs() map[string]string {
	return map[string]string{
		"brave":  "brave-search",
		"code":   "code-search",
		"db":     "database",
		"ground": "grounding-search",
		"llm":    "transform",
		"web":    "web-fetch",
	}
}

// Config is a loaded, checked host configuration. Every key of the file
// format has a field; keys a file leaves out hold their defaults
// (Default). Paths are absolute or relative to the working directory:
// a relative path in a file has been joined to that file's directory.
//
// A Config is a value the host reads; a Host hands out the one in force
// and never modifies it, so it must not be modified by its readers either.
type Config struct {
	// Files are the files read, the main file first, then each included
	// file in the order it was read. Empty for Default.
	Files []string
	// Aliases maps an alias to its target (aliases:), both tool names.
	Aliases map[string]string
	// Snippets are the configured snippets by name (snippets:).
	Snippets map[string]Snippet
	// Servers are the remote MCP servers by name (servers:).
	Servers map[string]Server
	// Instructions maps a pack name to its instructions text
	// (instructions:).
	Instructions map[string]string
	// Notify holds the notification topics (notify:).
	Notify Notify
	// Stats configures call statistics (stats:).
	Stats Stats
	// Output configures the large-output store (output:).
	Output Output
	// Docs configures documentation links (docs:).
	Docs Docs
	// Catalogue configures the tools catalogue (catalogue:).
	Catalogue Catalogue
	// Transcript configures the transcript pack's model endpoint
	// (transcript:); an empty BaseURL leaves the pack unconfigured.
	Transcript Transcript
	// SearchWeb configures the web pack's search.web (search_web:); an
	// empty BaseURL leaves it out.
	SearchWeb SearchWeb
	// WebFetch configures the web pack's web.fetch (web_fetch:).
	WebFetch WebFetch
	// MLX configures the mlx pack's local model servers (mlx:); no Models
	// leaves the pack unconfigured.
	MLX MLX

	// pos records where each key path was set (nil for Default).
	pos map[string]position
	// order holds the names of the named-entry sections in the order
	// the files list them (nil for Default).
	order map[string][]string
	// written holds, for the values a hook's message may name (alias
	// targets), the text as the file wrote it when the environment
	// supplied part of it: the message shows that text, never the value.
	written map[string]string
}

// position is a file and line.
type position struct {
	file string
	line int
}

// Position returns the file and line of the value of key, a key path such
// as "aliases.plus", "snippets.twice.body" or "stats.dir", when a file set
// it.
func (c *Config) Position(key string) (file string, line int, ok bool) {
	p, ok := c.pos[key]
	return p.file, p.line, ok
}

// Names returns the names of section — "aliases", "snippets", "servers"
// or "instructions" — in the order the configuration lists them: a file's
// entries in its order, the included files' before the main file's (the
// order they are merged in), an entry a later file overrides where it was
// first listed. The maps (Aliases, Snippets, …) have no order; use Names
// to show them as users wrote them. Names no file listed (a Config
// built or changed in code) follow, sorted. Any other section gives nil.
func (c *Config) Names(section string) []string {
	var all []string
	switch section {
	case "aliases":
		all = slices.Collect(maps.Keys(c.Aliases))
	case "snippets":
		all = slices.Collect(maps.Keys(c.Snippets))
	case "servers":
		all = slices.Collect(maps.Keys(c.Servers))
	case "instructions":
		all = slices.Collect(maps.Keys(c.Instructions))
	default:
		return nil
	}
	slices.Sort(all)
	out := make([]string, 0, len(all))
	listed := make(map[string]bool, len(all))
	for _, n := range c.order[section] {
		if _, ok := slices.BinarySearch(all, n); ok && !listed[n] {
			listed[n] = true
			out = append(out, n)
		}
	}
	for _, n := range all {
		if !listed[n] {
			out = append(out, n)
		}
	}
	return out
}

// shown is the value of key as a message may quote it: the value, or the
// text the file wrote when the value came (in part) from the environment.
func (c *Config) shown(key, value string) string {
	if w, ok := c.written[key]; ok {
		return quote(w)
	}
	return quote(value)
}

// Errorf returns a *Problem about key located where a file set it (or
// at the nearest enclosing key a file set), so that a hook's errors name
// file, line and key like Load's. The message must not quote expanded
// values (they may be secrets). As with fmt.Errorf, a %w verb keeps its
// error in the Problem's chain (Problem.Err), so that errors.Is and
// errors.As reach the cause through the Problem.
func (c *Config) Errorf(key, format string, a ...any) *Problem {
	msg := fmt.Errorf(format, a...)
	p := &Problem{Key: key, Message: msg.Error()}
	switch msg.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		p.Err = msg
	}
	for k := key; k != ""; {
		if pos, ok := c.pos[k]; ok {
			p.File, p.Line = pos.file, pos.line
			break
		}
		i := strings.LastIndexAny(k, ".[")
		if i < 0 {
			break
		}
		k = k[:i]
	}
	if p.File == "" && len(c.Files) > 0 {
		p.File = c.Files[0]
	}
	return p
}

// Snippet is one entry of snippets:. Its Body is kept as written (no
// ${VAR} expansion); the snippet language parses it.
type Snippet struct {
	// Name is the snippet's name (the key under snippets:).
	Name string
	// Description is the snippet's description; may be empty.
	Description string
	// Params are the snippet's parameters in the order the file lists
	// them.
	Params []Param
	// Body is the call sequence, verbatim.
	Body string
	// File and Line locate the snippet's key; BodyLine is the line of the
	// body's first line in the file that set the body, so that a parser
	// can report file lines, for a literal block (body: |), whose lines
	// are the file's; for a folded (>) or quoted body it is the line of
	// the body's key.
	File     string
	Line     int
	BodyLine int
}

// Param is one parameter of a snippet.
type Param struct {
	// Name is the parameter's name, as used in {{ name }} placeholders.
	Name string
	// Description may be empty.
	Description string
	// Default is the default value as JSON, nil when the parameter has
	// none (then it is required).
	Default json.RawMessage
	// Example is a value to show for a required parameter in the
	// snippet's example calls (packs/ot: ot.snippets(info="full"), the
	// tool's example), as JSON with the type the file wrote (example: 3
	// is the number 3); nil when the file gives none. Only a parameter
	// without a default has one: the examples show a default as it is.
	Example json.RawMessage
}

// Required reports whether the parameter has no default.
func (p Param) Required() bool { return p.Default == nil }

// Server is one entry of servers:, a remote MCP server served as a pack.
// Exactly one of Command and URL is set. Env and Headers values may hold
// secrets: they are never quoted in errors.
type Server struct {
	// Name is the server's name (the key under servers:), also the pack
	// name of its tools.
	Name string
	// Description is the pack description; empty lets the proxy build one.
	Description string
	// Command is the argv of a server spoken to over stdio.
	Command []string
	// Env is the command's environment, beside the few variables it
	// inherits from the host (adapters/mcpproxy.InheritedEnv: PATH, HOME,
	// USER, … on POSIX) and those InheritEnv names; nothing else of the
	// host's environment reaches the command. Its values are secrets
	// (adapters/mcpproxy redacts them, from the tools' results too): give
	// here the credentials the command needs (TOKEN: "${TOKEN}").
	Env map[string]string
	// InheritEnv (inherit_env:) names further variables of the host's
	// environment passed to the command as they are — plain settings
	// such as LANG, TMPDIR, HTTP_PROXY or SSL_CERT_FILE, which are not
	// secrets and are never redacted. Each is a variable name, given
	// once, and not in Env too; only with Command.
	InheritEnv []string
	// Dir is the command's working directory; empty means the current one.
	Dir string
	// URL is the endpoint of a streamable HTTP server: http or https,
	// with a host, without user information (credentials go in Headers).
	URL string
	// Headers are sent with every HTTP request.
	Headers map[string]string
	// Secrets are the values the environment gave the entry's ${VAR}s —
	// in its url, command, dir, description, env or headers — for the
	// host to keep out of its logs, of the server's status, of what the
	// server's process writes to its stderr and of failed calls' error
	// texts: a token in a URL's path, an API key passed as a command
	// argument. A value of the url that lies wholly within its scheme,
	// host and port (a ${HOST}) is not one, unless another field used it. Not every such
	// value is a secret (${HOME}): adapters/mcpproxy leaves the tools'
	// successful results alone.
	Secrets []string
	// File and Line locate the server's key.
	File string
	Line int
}

// Notify holds the topics of notify:.
type Notify struct {
	// Topics are tried in order; the first whose Pattern matches a topic
	// receives its messages.
	Topics []Topic
	// MaxFileBytes caps each topic's file (max_file_bytes, 1 byte to
	// 1 TiB, 2 GiB on 32-bit platforms): a message that would take a file past it is refused and
	// nothing is written. 0 (the key absent) means the ot pack's default,
	// 64 MiB.
	MaxFileBytes int64
}

// mostNotifyFileBytes is the largest notify.max_file_bytes: 1 TiB, or the
// largest int on a 32-bit platform (2 GiB).
const mostNotifyFileBytes = min(1<<40, math.MaxInt)

// Topic routes notifications whose topic matches Pattern to File.
type Topic struct {
	// Pattern is a glob as Python's fnmatch reads it: * and ? match any
	// character, '/' included ("notes*" matches "notes", "notes:work" and
	// "notes/2026"); [set] and [!set] match one character of the set or
	// not; '^', '\' and an unclosed '[' are ordinary characters.
	Pattern string
	// File is the YAML file messages are appended to.
	File string
}

// Match returns the first topic whose pattern matches topic.
func (n Notify) Match(topic string) (Topic, bool) {
	for _, t := range n.Topics {
		if ok, _ := topicglob.Match(t.Pattern, topic); ok {
			return t, true
		}
	}
	return Topic{}, false
}

// Stats configures call statistics.
type Stats struct {
	// Enabled turns recording on; the default is off.
	Enabled bool
	// Dir is where the statistics files are kept.
	Dir string
	// Postgres, when its DSN is set, keeps the records in PostgreSQL
	// instead of Dir's files (stats.dsn, schema, max_conns,
	// statement_timeout; registry/stats/pgstats), so that ot.stats on any
	// host given the same DSN aggregates every host's calls.
	Postgres
	// FlushInterval is how often buffered records are written.
	FlushInterval time.Duration
	// ContextPerCall is the estimated number of context tokens one call
	// saves (for ot.stats' context_saved).
	ContextPerCall int
	// TimePerCallMS is the estimated milliseconds one call saves (for
	// ot.stats' time_saved_ms).
	TimePerCallMS int
	// KeepDays, when positive, is how many days of call records are kept:
	// older ones are removed and no longer counted (stats.keep_days; 0, the
	// default, keeps every record; at most MaxKeepDays).
	KeepDays int
}

// Output configures the large-output store.
type Output struct {
	// MaxInlineBytes is the largest text a result carries inline; larger
	// successes are stored and replaced by a handle.
	MaxInlineBytes int
	// Dir is where stored outputs are kept.
	Dir string
	// Postgres, when its DSN is set, keeps stored outputs in PostgreSQL
	// instead of Dir's files (output.dsn, schema, max_conns,
	// statement_timeout; registry/results/pgresults), so that any host
	// given the same DSN pages an output another host stored.
	Postgres
	// TTL is how long a stored output is kept.
	TTL time.Duration
	// ReportsDir is the only directory HTML reports are written to.
	ReportsDir string
}

// Postgres says where a store keeps its data in PostgreSQL, for the
// sections that offer it (catalogue:, stats:, output:). Without a DSN
// nothing is kept in PostgreSQL.
type Postgres struct {
	// DSN is the database (the section's dsn), written as ${ENV} in the
	// file; "" (no dsn, or one whose ${…} expands to nothing) means none.
	// Never log or print it.
	DSN string
	// Schema holds the store's tables (schema); "" means toolpack.
	Schema string
	// MaxConns caps the connection pool (max_conns); 0 means the
	// driver's default.
	MaxConns int
	// StatementTimeout bounds every statement (statement_timeout); 0
	// means the dsn's own statement_timeout parameter when it has one,
	// else 30 seconds.
	StatementTimeout time.Duration
}

// PoolSize is MaxConns as the stores' pool options take it (an int32),
// capped at 32,768; 0 still means the driver's default.
func (p Postgres) PoolSize() int32 { return int32(min(p.MaxConns, 1<<15)) }

// Catalogue configures the tools catalogue: where its bundles and tools
// are kept and what its http tools may reach.
type Catalogue struct {
	// Dir is the catalogue's data directory (catalogue.dir).
	Dir string
	// Postgres, when its DSN is set, keeps the catalogue in PostgreSQL
	// instead of Dir's files (catalogue.dsn, schema, max_conns,
	// statement_timeout; registry/catalogue/pgstore), the built-in
	// bundles' switches and usage counts included, so that every host on
	// the database sees the same ones.
	Postgres
	// AllowedHosts are the destinations http tools may call
	// (catalogue.allowed_hosts): exact host, host:port or *.suffix
	// entries. Empty admits every public host.
	AllowedHosts []string
	// AllowPrivate lets http tools reach loopback, private, link-local
	// and metadata addresses (catalogue.allow_private); default false.
	AllowPrivate bool
	// AllowAddrs admits only these non-public addresses or prefixes
	// (catalogue.allow_addrs: 10.1.2.3, 10.1.0.0/16), every other one
	// staying refused: an internal service without opening the cloud
	// metadata address with it, as allow_private would.
	AllowAddrs []netip.Prefix
	// Secrets maps a secret's name to its value (catalogue.secrets),
	// written as ${ENV} in the file so that the value stays out of it.
	// Tools refer to them as "${NAME}". Never log or print the values.
	Secrets map[string]string
}

// SearchWeb configures search.web of the web pack (packs/web): a
// LiteLLM-style search gateway. Zero fields take the pack's defaults.
type SearchWeb struct {
	// BaseURL is the gateway's base URL (search_web.base_url).
	BaseURL string
	// APIKey is its key (search_web.api_key), written as ${ENV} in the
	// file. Never log or print it.
	APIKey string
	// SearchTool is the gateway's search tool name
	// (search_web.search_tool), for example tavily-search.
	SearchTool string
	// Timeout bounds one call (search_web.timeout).
	Timeout time.Duration
	// Secrets are the values the environment gave the ${VAR}s of
	// search_web.api_key and of search_web.base_url, but for those that lie
	// wholly within its scheme, host and port (https, 8080), for the pack to keep out of its logs and
	// errors (web.SearchConfig.Secrets).
	Secrets []string
}

// DefaultMaxRedirects is web_fetch.max_redirects when the file does not
// set it.
const DefaultMaxRedirects = 10

// WebFetch configures web.fetch of the web pack (packs/web). Zero fields
// take the pack's defaults.
type WebFetch struct {
	// AllowPrivate lets web.fetch reach loopback, private, link-local and
	// metadata addresses (web_fetch.allow_private); default false.
	AllowPrivate bool
	// AllowAddrs admits only these non-public addresses or prefixes
	// (web_fetch.allow_addrs: 10.1.2.3, 10.1.0.0/16), every other one
	// staying refused.
	AllowAddrs []netip.Prefix
	// MaxBytes caps the page read (web_fetch.max_bytes).
	MaxBytes int
	// MaxRedirects is how many redirects are followed
	// (web_fetch.max_redirects, default DefaultMaxRedirects); 0 follows
	// none.
	MaxRedirects int
	// Timeout bounds one call (web_fetch.timeout).
	Timeout time.Duration
	// MaxConcurrentExtractions is how many HTML pages web.fetch extracts
	// at once (web_fetch.max_concurrent_extractions, 1 to 1024); 0 means
	// the pack's default, half of the CPUs the process may use.
	MaxConcurrentExtractions int
}

// MLX configures the mlx pack (packs/mlx): which models mlx.load may
// start and how. Zero fields take the pack's defaults.
type MLX struct {
	// Command is the command template (mlx.command), one list element per
	// argument; {model} and {port} are replaced in each. Nil means the
	// pack's default, mlx_lm.server --model {model} --port {port}.
	Command []string
	// Models are the models mlx.load may start (mlx.models).
	Models []string
	// StartTimeout bounds the wait for a started server to answer
	// (mlx.start_timeout).
	StartTimeout time.Duration
}

// Transcript configures the transcript pack (packs/transcript): the
// OpenAI-compatible endpoint that cleans transcripts. Zero fields take the
// pack's defaults.
type Transcript struct {
	// BaseURL is the endpoint's base URL (transcript.base_url).
	BaseURL string
	// APIKey is its key (transcript.api_key), written as ${ENV} in the
	// file. Never log or print it.
	APIKey string
	// Model is the model name (transcript.model).
	Model string
	// ContextTokens is the model's context size (transcript.context_tokens,
	// at least 256).
	ContextTokens int
	// Timeout bounds one call (transcript.timeout).
	Timeout time.Duration
	// Secrets are the values the environment gave the ${VAR}s of
	// transcript.api_key and of transcript.base_url, but for those that lie
	// wholly within its scheme, host and port (https, 8080), for the pack to keep out of its logs and
	// errors (transcript.Config.Secrets).
	Secrets []string
}

// Docs configures documentation links.
type Docs struct {
	// BaseURL is the documentation root, an http or https URL without a
	// query or fragment; a pack's page is BaseURL + slug + "/".
	BaseURL string
	// Slugs maps pack names to documentation slugs; a configuration's
	// slugs are added to DefaultSlugs.
	Slugs map[string]string
}

// URL returns the documentation URL of pack: BaseURL + slug + "/", the
// slug being Slugs[pack] or the pack name itself.
func (d Docs) URL(pack string) string {
	slug, ok := d.Slugs[pack]
	if !ok {
		slug = pack
	}
	base := d.BaseURL
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base + slug + "/"
}

// Default returns the configuration of a host that has no file: no
// aliases, snippets, servers, instructions or topics; stats disabled;
// output.max_inline_bytes 50000 and ttl 1h; the seed's documentation
// URL and slugs; the catalogue in the directory catalogue with no
// secrets, every public host allowed and private addresses refused; and
// the directories stats, results and reports under
// dataDir (the host chooses it; "" means the working directory).
func Default(dataDir string) *Config {
	return &Config{
		Aliases:      map[string]string{},
		Snippets:     map[string]Snippet{},
		Servers:      map[string]Server{},
		Instructions: map[string]string{},
		Stats: Stats{
			Dir:            filepath.Join(dataDir, DefaultStatsDir),
			FlushInterval:  DefaultFlushInterval,
			ContextPerCall: DefaultContextPerCall,
			TimePerCallMS:  DefaultTimePerCallMS,
		},
		Output: Output{
			MaxInlineBytes: DefaultMaxInlineBytes,
			Dir:            filepath.Join(dataDir, DefaultOutputDir),
			TTL:            DefaultTTL,
			ReportsDir:     filepath.Join(dataDir, DefaultReportsDir),
		},
		Docs:      Docs{BaseURL: DefaultDocsBaseURL, Slugs: DefaultSlugs()},
		Catalogue: Catalogue{Dir: filepath.Join(dataDir, DefaultCatalogueDir), Secrets: map[string]string{}},
		WebFetch:  WebFetch{MaxRedirects: DefaultMaxRedirects},
	}
}

// ServerNames returns the names of the configured servers in the order
// the configuration lists them (Names("servers")).
func (c *Config) ServerNames() []string {
	return c.Names("servers")
}
