// Package hostconfig loads a host's configuration from YAML files and
// applies it to a registry, at start and again on every reload, as a
// whole or not at all.
//
// # The file
//
//	include: [more.yaml]
//	aliases: {plus: add, ws: brave.web_search}
//	snippets:
//	  twice:
//	    description: Add a number to itself
//	    params: {n: {description: The number, default: 21}}
//	    body: |
//	      r = add(a={{ n }}, b={{ n }})
//	servers:
//	  pkgver: {command: [uvx, mcp-package-version], env: {TOKEN: "${TOKEN}"}}
//	  remote: {url: "https://example.test/mcp", headers: {Authorization: "Bearer ${KEY}"}}
//	instructions: {oj: "Use get_problem before find_similar_problems."}
//	notify: {topics: [{pattern: "notes*", file: notes.yaml}]}
//	stats: {enabled: true, dir: stats, flush_interval: 1s, context_per_call: 2000, time_per_call_ms: 3000}
//	output: {max_inline_bytes: 50000, dir: results, ttl: 1h, reports_dir: reports}
//	docs: {base_url: "https://onetool.beycom.online/reference/tools/", slugs: {brave: brave-search}}
//	catalogue: {dir: catalogue, allowed_hosts: [api.example.test, "*.example.org"], allow_private: false, secrets: {API_KEY: "${API_KEY}"}}
//
// Every key is optional; a key left out, or given an empty value
// (null), has its default (Default). The keys:
//
//   - include: a file name or a list of them, relative to the directory
//     of the file that includes them. Included files may include others
//     (at most LoadOptions.MaxIncludeDepth levels, MaxFiles files in all,
//     MaxFileBytes each); a file that includes itself, directly or
//     through others, is refused.
//   - aliases: alias → tool. A call of the alias runs the tool. A target
//     is a registered tool (final or undecorated name), another alias, or
//     "{server}.{tool}" of a configured server; cycles, chains longer
//     than registry.MaxAliasDepth and aliases to unknown tools are
//     refused (the last by Host, which knows the registry; a configured
//     server's tools are taken on trust, connected or not, so that the
//     verdict on a file does not change with a server's state). So are
//     the names of tools that come and go while the host runs, which a
//     host reports with Options.Dynamic: examples/server reports a tools
//     catalogue's {bundle}.{tool}.{version} for every bundle it holds
//     (enabled, disabled or deleted but not yet purged), so an alias to a
//     catalogue tool is accepted at start and on every reload whether the
//     tool is switched on or off (a call of the alias answers "not
//     served" while it is off), while a name in no bundle's namespace is
//     still refused. An alias needs a name of its own: not a tool's
//     final name, nor its undecorated one under a registry prefix (unless
//     it runs that very tool: add: p_add), nor a name under a configured
//     server's "{server}." (its tools take those when it connects), nor
//     one Options.Dynamic reports.
//   - snippets: name → {description, params: {name: {description,
//     default, example}}, body}. A name is 1–120 characters from
//     [A-Za-z0-9_.-] (snippet.CheckName: the snippet becomes the tool
//     snippet.{name}, which may then be as long as a tool name may be;
//     under a registry prefix the prefix takes its share of that); a
//     parameter name is an identifier; a parameter without default is
//     required (one with `default: null` is optional, and null when left
//     out); example, only on a required parameter, is the value its
//     example calls show (packs/ot: `# $brv_research topic=Python`),
//     kept with the type the file writes (example: 3 is a number); the
//     body is kept verbatim for the snippet language, and names tools as
//     alias targets do (final or undecorated name, or an alias).
//   - servers: name → {command: [argv…] | url, env, inherit_env,
//     headers, description, dir}: remote MCP servers served as packs (the
//     rules of adapters/mcpproxy: exactly one of command and url, env,
//     inherit_env and dir only with command, headers only with url, http
//     or https URLs without user information: user:password@ is refused,
//     credentials go in headers, as Authorization: "Basic ${CREDS}" or
//     "Bearer ${KEY}", which are redacted). A command inherits only PATH, HOME, USER, LOGNAME,
//     SHELL and TERM of the host's environment (on Windows,
//     mcpproxy.InheritedEnv's list), the variables inherit_env names and
//     its env. inherit_env is a list of variable names (inherit_env: [LANG,
//     TMPDIR, HTTP_PROXY, HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE]) passed as
//     the host has them, for plain settings: their values are never
//     redacted. env maps names to values (${VAR} read from the
//     environment), for secrets: env: {API_KEY: "${API_KEY}"}; their
//     values are redacted from everything the server sends back, its
//     tools' results too, so a setting a tool may echo (a directory, a
//     locale) belongs in inherit_env. A variable in both is refused (on
//     Windows, where Lang and LANG are one variable, whatever the case of
//     its letters; so is one given twice so in either), and
//     so is one in inherit_env whose name says it holds a credential
//     (GITHUB_TOKEN, OPENAI_API_KEY, DB_PASSWORD: CredentialEnvName);
//     a proxy URL with user:password@ belongs in env too.
//   - instructions: pack → text shown with the pack (packs/ot/othost warns
//     about a name that no served pack or configured server has).
//   - notify: {topics: [{pattern, file}], max_file_bytes}: notifications
//     whose topic matches the glob pattern (as Python's fnmatch reads it: *
//     and ? match any character, '/' included; [!set] negates) are
//     appended to file; a message that would take a file past
//     max_file_bytes (default 64 MiB; at most 1 TiB, 2 GiB on 32-bit platforms) is refused and
//     nothing is written. A file's path is followed through symbolic
//     links (it is the operator's own choice), unlike a report's under
//     output.reports_dir; it must lead to a regular file (or none yet):
//     a FIFO, a socket or a device there is refused when written to,
//     but for the null device, which mutes the topic.
//   - stats: {enabled (false), dir (stats), flush_interval (1s),
//     context_per_call (2000), time_per_call_ms (3000), keep_days (0:
//     every record kept), dsn, schema, max_conns, statement_timeout}:
//     with a dsn the records go to PostgreSQL (registry/stats/pgstats)
//     instead of dir, and ot.stats on any host given the same dsn counts
//     every host's calls; with keep_days, records older than that many
//     days are removed (hourly) and no longer counted.
//   - output: {max_inline_bytes (50000), dir (results), ttl (1h),
//     reports_dir (reports), dsn, schema, max_conns, statement_timeout}.
//   - Durations have a least value: 10ms for stats.flush_interval and
//     statement_timeout, 1s for output.ttl, 1ms for the other timeouts.
//   - dsn (none), schema (toolpack), max_conns (the driver's default) and
//     statement_timeout (the dsn's statement_timeout parameter if it has
//     one, else 30s) mean the same in catalogue:, stats: and
//     output: — the PostgreSQL database a section keeps its data in
//     (hostconfig.Postgres). A statement the database leaves unanswered
//     past statement_timeout and a margin (at most 5 s) fails as
//     unavailable, even when the connection stays open. Write the dsn as ${ENV}: it holds a
//     password, and it is never logged or shown. A dsn whose ${…}
//     expands to the empty string (${STATS_DSN:-} with STATS_DSN unset
//     or empty) means none — the section keeps its data in files —, so
//     that one file serves hosts with and without a database; any other
//     value that is not a PostgreSQL DSN is refused.
//   - docs: {base_url (onetool's reference URL), slugs (added to
//     DefaultSlugs)}: a pack's page is base_url + slug + "/", so
//     base_url is an http or https URL without a query or fragment, and
//     without user information (user:password@): ot.help shows the links
//     to every client.
//   - catalogue: {dir (catalogue), allowed_hosts (none: every public
//     host), allow_private (false), allow_addrs (none), secrets (none)}:
//     the tools catalogue's data directory and what its http tools may
//     reach. allowed_hosts entries are an exact host, host:port or
//     *.suffix (no user:password@: credentials go in secrets);
//     allow_private lets them reach loopback, private,
//     link-local and metadata addresses; allow_addrs lets them reach only
//     the listed non-public addresses or prefixes (10.1.2.3, 10.1.0.0/16,
//     fd00::/8) — an internal service without the cloud metadata address;
//     secrets maps a name (the "${NAME}" tools use) to its value, written
//     as ${ENV} so that it stays out of the file. dsn (none), schema
//     (toolpack), max_conns and statement_timeout (30s): with a dsn the
//     catalogue lives in PostgreSQL (registry/catalogue/pgstore), shared
//     by every host given the same dsn; write it as ${ENV}.
//   - transcript: {base_url, api_key, model, context_tokens (8192),
//     timeout (2m)}: the OpenAI-compatible endpoint of the transcript
//     pack (packs/transcript); api_key written as ${ENV}. Without
//     base_url the pack is not configured; with it, model is required.
//   - search_web: {base_url, api_key, search_tool, timeout (30s)}: the
//     LiteLLM-style search gateway of the web pack's search.web
//     (packs/web); api_key written as ${ENV}. Without base_url search.web
//     is not served; with it, search_tool is required. The base_url of
//     transcript: and search_web: is an http or https URL with a host and
//     without user information (user:password@; the key goes in
//     api_key); it may carry a query (?key=${KEY}).
//   - web_fetch: {allow_private (false), allow_addrs (none), max_bytes
//     (5242880), max_redirects (10), timeout (30s),
//     max_concurrent_extractions (half of the CPUs, at least 1; 1 to
//     1024)}: the web pack's web.fetch; allow_private and allow_addrs as
//     in catalogue:; max_concurrent_extractions bounds the HTML pages
//     extracted at once (see packs/web).
//   - mlx: {command (mlx_lm.server --model {model} --port {port}), models,
//     start_timeout (60s)}: the local model servers of the mlx pack
//     (packs/mlx). command is a list, one element per argument, never run
//     through a shell; {model} and {port} are replaced in each element.
//     Without models the pack is not configured.
//
// Durations are Go durations (1s, 90m, 1h30m); sizes and counts are
// whole numbers. Relative paths (stats.dir, output.dir, catalogue.dir,
// output.reports_dir, notify files, servers' dir) are relative to the
// directory of the file that set them; the default directories are under
// LoadOptions.DataDir, which defaults to the main file's directory.
//
// # Merging
//
// A file's includes are merged first, left to right, and the file's own
// keys last, on top: the including file wins over what it includes, and
// a later include over an earlier one. Mappings are merged key by key,
// at every depth; lists and scalars are replaced whole (a later
// aliases: adds aliases, a later command: replaces the argv). An empty
// value (key: or key: null) replaces too, which resets the key to its
// default; among named entries (aliases, snippets, servers, instructions,
// docs.slugs, catalogue.secrets, a server's env and headers) it drops the
// entry an earlier file made: aliases: {plus: null}. An empty entry with
// nothing to drop is refused as a mistake.
//
// # Environment variables
//
// ${NAME} and ${NAME:-default} in values are replaced by the environment
// variable NAME; with :-, default is used when NAME is unset or empty.
// A variable that is unset and has no default is an error naming the
// file, line and key. Expansion happens after the YAML is parsed, in
// values only (never keys), so a variable's value cannot change the
// file's structure. Write $$ for a literal $. A bare $NAME (a $ followed
// by a letter or _, as a shell would expand it) is an error naming the
// file, line and key — neither expanded nor kept, so that "Bearer $KEY"
// cannot silently send the text $KEY — and the message never quotes the
// value or the text after the $ (it may be a credential):
//
//	config.yaml:4: servers.s.headers.Authorization: a bare $ before a name is not expanded: write ${NAME} to expand, or $$ for a literal $ (value not shown)
//
// A $ before anything else (a digit, punctuation, a space, the end of
// the value: "costs $5", "a$") is kept as written, and the default of
// ${NAME:-default} is literal text. This holds for every value that is
// expanded: server entries, notify patterns, snippet parameters'
// defaults and examples, include paths. Snippet bodies are not expanded:
// they are code for the snippet language and are kept verbatim, $ and
// all. (Upgrading: a value that held a bare $NAME, kept as written
// before, is now refused; write $$NAME to keep the text, ${NAME} to
// expand it.)
//
// Typed values (durations, numbers, booleans) are converted after
// expansion, so flush_interval: ${FLUSH:-1s} works. A malformed ${…} is
// an error that does not quote what it holds (a literal credential may
// hold "${").
// Expand expands a single value by these rules, and an Expander a whole
// server entry as Load does a servers: entry's, for programs that read
// ${VAR}s elsewhere (the example server's -proxy file), so that they
// agree with the configuration file.
//
// Expansion is capped as the text grows: one value at
// LoadOptions.MaxExpandedValueBytes (default MaxExpandedValueBytes, 1 MiB,
// a file's size; raising MaxFileBytes does not raise it) once expanded,
// and all the values holding a ${…} of one load at MaxExpandedBytes
// (16 MiB) in all, so that many references to a long variable cannot make
// a small file take gigabytes. Going over is an error naming the file, line, key and
// the variable, never its value:
//
//	config.yaml:2: instructions.x: ${B} makes the value longer than 1048576 bytes; expected a value of at most 1048576 bytes once its variables are expanded (hostconfig.MaxExpandedValueBytes)
//
// # Errors
//
// Load reports every problem at once, each a *Problem naming file, line
// and key path:
//
//	more.yaml:3: stats.flush_interval: expected a duration such as 1s, got "soon"
//	config.yaml:2: stats.flush: unknown key "flush"; expected one of enabled, dir, flush_interval, context_per_call, time_per_call_ms, keep_days, dsn, schema, max_conns, statement_timeout
//
// Unknown keys are refused at every level. A value shown in a message is
// quoted as the file writes it, before expansion, so a secret taken from
// the environment never appears in an error; header and env values of
// servers and URLs (servers' url, docs.base_url, transcript.base_url,
// search_web.base_url: their path, query, fragment or password may be a
// key written in the file) are never shown at all. A server entry's
// Server.Secrets hold the values its ${VAR}s took, wherever they are (a
// token in the URL's path, a key as a command argument), but for those
// of its url lying wholly within the URL's scheme, host and port (a
// ${HOST}, a ${PORT}: no secret, and redacting them would garble every
// message naming the server), so that the host keeps them out of its
// logs too (adapters/mcpproxy redacts them);
// Transcript.Secrets and SearchWeb.Secrets likewise hold the values the
// ${VAR}s of transcript's and search_web's base_url and api_key took, for
// the packs' outbound clients to redact (transcript.Config.Secrets,
// web.SearchConfig.Secrets).
//
// # Reloading
//
// A Host holds the configuration in force. Reload reads every file
// again; a broken file returns its problems and keeps the configuration
// in force. So does a main file that holds no configuration at all (zero
// bytes, only whitespace or comments) once one is in force: that is
// nearly always a file an editor has truncated or a `cat >` has not
// written yet, and applying it as every default would turn statistics
// off, drop the notify topics and move the directories — write {} to
// reload with every default (LoadOptions.RefuseEmpty; at start an empty
// file still means every default). A valid one is applied as a whole: each Hook the host added
// with OnApply prepares a Step (checking what it needs and opening the
// stores and directories it takes, changing nothing served), the aliases
// are checked against the registry, then the steps are applied and the
// aliases set; a step that fails undoes the steps before it, and what
// was prepared for steps that are not applied is released
// (Step.Discard). A configuration refused while the hooks prepare — a
// directory that cannot be made, a database that cannot be reached —
// thus changes nothing clients see. Hooks are how a host plugs in what the configuration drives
// beyond aliases — snippets as a pack (Registry.ReplacePack), remote
// servers (mcpproxy's Proxy.Reconfigure), statistics and output
// settings. A key no hook reads (servers: without mcpproxy.HostHook, or
// catalogue:, which examples/server reads) is loaded and checked, and
// changes nothing:
//
//	host, _ := hostconfig.NewHost(hostconfig.Options{Path: "config.yaml", Registry: reg})
//	proxy, _ := mcpproxy.New(ctx, reg, nil, mcpproxy.Options{})
//	host.OnApply("servers", mcpproxy.HostHook(proxy, nil)) // servers:
//	w, _ := othost.Setup(ctx, othost.Options{Registry: reg, Host: host}) // snippets:, stats:, output: and the ot pack
//	if err := host.Reload(ctx); err != nil { … } // at start
//	… on SIGHUP: if err := host.Reload(ctx); err != nil { log it; the old configuration stays }
//
// The registry swaps packs and aliases atomically, so calls in flight
// finish on the tool they started with and no call fails because of a
// reload: a snippet runs from first step to last on the tools and
// aliases it found when it was called (a reload that retargets an alias
// or renames the parameters of a snippet it calls does not reach it half
// way), and one called while a reload is applied waits for the whole of
// it. Reloads run one at a time, each reading the files after the one
// before has applied what it read. The burst of changes of one reload reaches MCP clients as
// one list-changed notification (adapters/mcpserver gathers them).
package hostconfig
