// Command server is toolpack's main example: every pack it knows, in one
// registry, served over MCP and HTTP.
//
// By default it listens on one HTTP address (127.0.0.1:8080) with
//
//	/mcp          MCP over streamable HTTP
//	/tools …      the REST API (GET /tools, GET /tools/{name},
//	              POST /tools/{name}/invoke, GET /openapi.json)
//	/admin/       the tools admin page (registry/catalogue/catalogueadmin): bundles,
//	              tools, search, switches, forms and a live tester, in a browser
//	/healthz      {"status":"ok","tools":N,"packs":[…],"proxy":{"status":"ok"|"degraded",
//	              "server_count":N,"servers":{"name":"connected"|"disconnected"}},
//	              "postgresql":{"status":"ok"|"degraded","databases":{"catalogue"|"stats"|"output":
//	              "reachable"|"unreachable"}}} (postgresql only with a dsn configured)
//
// With -stdio it speaks MCP over stdin/stdout instead (for MCP clients that
// start their servers as child processes); stdout then carries protocol
// messages only. Logs always go to stderr.
//
// Usage:
//
//	MCP_INCLUDE_EXAMPLE_TOOLS=true go run ./examples/server   # HTTP on 127.0.0.1:8080, example tools
//	go run ./examples/server -addr 127.0.0.1:9000 -packs oj     # OJ_BASE_URL set
//	go run ./examples/server -stdio -packs transcript -name transcript-clean -config tr.yaml
//	go run ./examples/server -stdio -packs mlx -name mlxctl -config mlx.yaml
//	go run ./examples/server -stdio -packs web -name web-fetch
//	go run ./examples/server -stdio -prefix tp                  # MCP over stdio, tools named tp_…
//	TOOLPACK_AUTH_TOKEN=$(openssl rand -hex 32) go run ./examples/server -addr 0.0.0.0:8080
//
// Flags:
//
//	-addr string              HTTP listen address (default "127.0.0.1:8080")
//	-stdio                    serve MCP over stdin/stdout instead of HTTP
//	-packs list               comma-separated packs to serve (default: every configured one)
//	-prefix string            tool name prefix; when not given, MCP_TOOL_PREFIX, else none
//	-display string           how MCP results show: "value" (default) or "envelope" (full Result JSON)
//	-log-level string         trace, debug, info, warn or error (default "info"); trace adds a
//	                          line per tool call
//	-proxy file               JSON file of remote MCP servers to mirror as packs
//	-config file              YAML configuration (aliases, servers, …); SIGHUP reloads it
//	-disclosure mode          "full" (default: every tool listed) or "progressive": only
//	                          search_tools, describe_tool and call_tool (registry/disclosure),
//	                          for registries too large to list to a model
//	-visible-tools list       with -disclosure progressive: tools still listed as themselves
//	                          (ot.result always is: a large output's query field calls it)
//	-name string              the MCP implementation name reported to clients
//	                          (default "toolpack-example")
//
// HTTP only:
//
//	-auth-token-file file     bearer tokens required on /mcp and the REST API, one TOKEN or
//	                          NAME:TOKEN per line (# comments); default: $TOOLPACK_AUTH_TOKEN
//	-insecure                 allow a non-loopback -addr without authentication
//	-allowed-hosts list       Host names served besides localhost, 127.0.0.1 and [::1]
//	                          (host or host:port)
//	-allowed-origins list     origins (scheme://host[:port]) whose web pages may call the server
//	-max-sessions n           most MCP sessions open at once (default 1000); more get 503
//	-session-timeout d        close an MCP session idle this long (default 30m)
//	-read-header-timeout d    time to send the request headers (default 10s)
//	-read-timeout d           time to send a whole request, body included (default 30s)
//	-write-timeout d          time each write to a client may take (default 30s)
//	-idle-timeout d           close a keep-alive connection idle this long (default 2m)
//
// Environment:
//
//	MCP_INCLUDE_EXAMPLE_TOOLS  "true" serves the example pack (seed 004); unset or any other
//	                           value leaves it out, and the log says how to include it
//	MCP_TOOL_PREFIX            tool name prefix when -prefix is not given
//	OJ_BASE_URL, OJ_TOKEN      the oj pack's backend and its token
//	TOOLPACK_AUTH_TOKEN        bearer token(s) when -auth-token-file is not given (HTTP)
//	OTEL_*                     any of OpenTelemetry's variables (OTEL_EXPORTER_OTLP_ENDPOINT,
//	                           OTEL_TRACES_EXPORTER, …) traces and measures every tool call
//	                           (registry/telemetry); with none set nothing is installed.
//	                           A console exporter is refused with -stdio (stdout is MCP's)
//
// A secret variable (TOOLPACK_AUTH_TOKEN, OJ_TOKEN) set to whitespace only
// is refused at start (exit status 2, its value never shown) rather than
// read as unset or sent as an empty token.
//
// With nothing set, the server serves only the ot pack and says so in a
// warning that names the variables above.
//
// # HTTP safety
//
// Every request of the listener passes through an httpguard.Guard first:
// on a loopback address only a loopback Host (localhost, 127.0.0.1, [::1])
// or one of -allowed-hosts is served, so a DNS-rebound web page gets 403 on
// every route; a browser request from another origin (not in
// -allowed-origins) gets 403 too. Paths with "." or ".." segments get the
// REST API's 400, not a redirect (httpapi.CanonicalPaths).
//
// With tokens (-auth-token-file or TOOLPACK_AUTH_TOKEN), /mcp and the REST
// API answer 401 with a WWW-Authenticate challenge to requests without a
// valid "Authorization: Bearer" token; /healthz stays open for probes.
// Each token's name (token-N for unnamed ones) is the caller's identity:
// MCP sessions are bound to it, and tools read it with
// httpguard.TokenInfoFromContext. Tokens are never logged. An -addr that
// other machines can reach (0.0.0.0, a LAN address, a host name) is refused
// without tokens unless -insecure is given.
//
// Slow and stalled clients: -read-header-timeout and -read-timeout are the
// http.Server's (net/http clears the read deadline once a body is read, so
// neither ends a long call or stream); -write-timeout is not the
// http.Server's WriteTimeout, which bounds a whole response and would end
// every MCP event stream and every tool call slower than it, but a
// per-write deadline the guard moves forward through
// http.ResponseController before each write: a client that stops reading
// is cut off, a stream it keeps reading lives on. MCP sessions are capped
// (-max-sessions, 503 with Retry-After beyond) and closed after
// -session-timeout without a request, even while their client listens on
// the GET stream: a client that only listens should ping.
//
// SIGINT or SIGTERM shuts the server down gracefully: no new connections
// or messages are taken, and the calls under way (over MCP, HTTP or
// stdio, and REST) get 5 s to finish and send their answers, their spans
// and metrics recorded before the exporters flush. The calls still
// running then are stopped (their contexts cancelled with the cause "the
// server is shutting down", logged "Tool X stopped: the server is
// shutting down") and have 1 s more to answer before the connections
// close or the stdio session ends: a REST call gets 503 unavailable, an
// MCP call a tool error result (isError, error type unavailable), both
// saying "the server is shutting down and stopped the call to tool …
// before it finished". An MCP session's event stream ends once its calls
// have answered. Then the stores write what they buffer
// (usage counts, statistics) within 10 s more; a database that stopped
// answering does not keep the process alive past that (what was not
// written is lost, and the log says so). With -config, SIGHUP reloads the
// configuration.
//
// # Packs
//
// The server knows the packs listed in availablePacks (packs.go); adding a
// pack is one line there. A pack that needs configuration reads it from the
// environment: the example pack needs MCP_INCLUDE_EXAMPLE_TOOLS=true, the
// oj pack OJ_BASE_URL (the backend's origin) and optionally OJ_TOKEN. When
// -packs is not given, packs that are not configured are skipped with a log
// line, so the server starts with no flags on a fresh machine; naming such
// a pack in -packs is an error. The oj
// pack's MCP results always show its plain Markdown.
//
// The transcript pack (transcript.clean, seed 003's contract) reads its
// model endpoint from the -config file's transcript: key (base_url, model,
// api_key as ${ENV}, context_tokens, timeout); it is registered when the
// configuration is applied and follows reloads. The seed's MCP server is
// one command:
//
//	go run ./examples/server -stdio -packs transcript -name transcript-clean -config transcript.yaml
//
// The web pack (web.fetch, search.web) is served when -packs names it or
// the -config file sets its keys (web_fetch: allow_private, allow_addrs,
// max_bytes, max_redirects, timeout, max_concurrent_extractions; search_web:
// base_url, api_key as ${ENV}, search_tool, timeout — search.web only with
// a base_url): it reaches the internet, so it is never served unasked. Its
// bound on HTML extractions at once (by default half of the CPUs) is kept
// across reloads while max_concurrent_extractions stays the same. The seed's MCP server is
//
//	go run ./examples/server -stdio -packs web -name web-fetch
//
// The api_key of transcript: and search_web:, and the values their
// ${VAR}s put in base_url (base_url: "https://gw.example/${TOKEN}/v1" or
// "…?key=${KEY}"), are the packs' secrets: the warnings the server logs
// when the endpoint fails show "[REDACTED]" in their place (values
// shorter than 4 bytes only where they stand as a whole word, so as not
// to garble every word holding them), and a refused base_url is reported with its file,
// line and key, never quoted.
//
// The mlx pack (mlx.load, mlx.unload) reads the models it may start, the
// command template and the start timeout from the mlx: key; the seed's
// MCP server is
//
//	go run ./examples/server -stdio -packs mlx -name mlxctl -config mlx.yaml
//
// with mlx.yaml holding for example
//
//	mlx:
//	  models: [mlx-community/Qwen3-4B-4bit]
//
// Started model servers are recorded in toolpack/mlx-servers.json under
// the user cache directory, so a restarted server still unloads them.
//
// The ot pack (packs/ot: ot.tools, ot.packs, ot.aliases, ot.snippets,
// ot.help, ot.config, ot.health, ot.version, ot.reload, ot.notify,
// ot.stats, ot.result) is always served, whatever -packs says: it is how a
// model finds its way around the server. Its answers are YAML text, served
// as plain text, -display envelope or not. It is wired to the configuration by packs/ot/othost: the
// snippets become tools snippet.{name}, calls are recorded when
// stats.enabled is true (for stats.keep_days days when set, else for
// good), and a text result over output.max_inline_bytes
// (50,000 by default) is stored and answered with a handle object whose
// query field is the ot.result call that reads it page by page (try
// lines(count=100000) of the example pack). ot.config and ot.health list
// the remote servers in the order they are configured, as aliases and
// snippets: the -proxy file's, then the -config file's servers:.
//
// # Remote MCP servers
//
// -proxy names a JSON file of remote MCP servers (adapters/mcpproxy); each
// becomes a pack named after it, with tools "{name}.{tool}" and source
// proxy:{name}:
//
//	[
//	  {"name": "github", "command": ["github-mcp-server", "stdio"],
//	   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
//	   "inherit_env": ["LANG", "HTTPS_PROXY", "NO_PROXY"]},
//	  {"name": "search", "url": "https://mcp.example.com/mcp",
//	   "headers": {"Authorization": "Bearer ${SEARCH_KEY}"}}
//	]
//
// ${NAME} and ${NAME:-default} in every value of an entry (command
// arguments, dir, url, description, env and header values; not name nor
// inherit_env's names) are replaced by the environment variable NAME
// exactly as in the -config file's servers: entries (registry/hostconfig,
// hostconfig.Expander): NAME must be set unless a default is given, $$ is
// a literal $, and a $ before a digit, punctuation or the end is kept as
// written (a literal "Bearer 5$9" passes unchanged). A bare $ before a
// letter or _ ("Bearer $SEARCH_KEY") is refused — servers[0] "search":
// headers.Authorization: a bare $ before a name is not expanded: write
// ${NAME} to expand, or $$ for a literal $ — rather than sent as the
// literal text: write ${SEARCH_KEY}, or pre$$fix for a credential that
// holds "$fix". A url with user information (user:password@) is refused:
// send credentials in headers ("Authorization": "Basic ${CREDS}" or
// "Bearer ${KEY}"). Secrets need not be in the file; they never appear in
// logs or errors (an error names the server, the key and the unset
// variable, never the value nor the text after a $): env and header
// values are redacted, and so is every other value a ${VAR} gave — a
// token in the url's path or query, a key passed as a command argument —
// but a host or port, which lies wholly within the url's scheme, host and
// port. A relative dir is relative to the working directory.
//
// A command server does not inherit this server's environment (its
// TOOLPACK_AUTH_TOKEN, DSNs, other servers' keys): it gets only PATH,
// HOME, USER, LOGNAME, SHELL and TERM (on Windows the list of
// mcpproxy.InheritedEnv), the variables its inherit_env names and its
// env. Name plain settings it needs in inherit_env (LANG, TMPDIR,
// HTTP_PROXY, HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE, XDG_*): they are
// passed as this server has them and never redacted. Give secrets in env
// ("API_KEY": "${API_KEY}"): their values are redacted from everything
// the command sends back, its tools' results too, so a setting a tool
// may echo (a directory, a locale) put in env would come back as
// [REDACTED]. A variable may not be in both. Servers used to inherit the
// whole environment: one that relied on a variable now missing needs it
// named in inherit_env or env. A server that cannot be reached is logged
// as a warning, reported "disconnected" in /healthz (proxy status
// "degraded") and retried with back-off; the rest of the server works
// meanwhile.
//
// # Configuration file
//
// -config names a YAML file in the format of registry/hostconfig (its
// package documentation describes every key): aliases, remote servers
// (servers:, the YAML form of the -proxy file's entries), and the
// settings of snippets, statistics, stored outputs, notifications and
// documentation links. Without -config every key has its default and the
// server behaves as without a configuration; the default directories
// (stats, results, reports) are then under the user cache directory
// (toolpack-server), and with -config beside the file.
//
//	aliases: {plus: add, shout: remote.shout}
//	servers:
//	  remote: {url: "https://mcp.example.com/mcp", headers: {Authorization: "Bearer ${KEY}"}}
//
// A broken file at start is an error (exit status 2) listing every
// problem as file:line: key: message. SIGHUP re-reads every file: a valid
// configuration is applied as a whole (aliases, snippets, servers —
// unchanged ones keep their sessions — and settings) and logged as
// "configuration reloaded"; ot.reload does the same from a client (the
// log line's by says which asked); a broken one is logged as
// "configuration reload failed" with its problems, and the previous
// configuration keeps serving, unchanged: what may fail (a directory, a
// database) is opened before anything is applied, so a refused reload
// neither reconnects servers nor tells clients the tool list changed.
// ot.reload answers config_error for a problem of the file, and
// unavailable (retry later) when the only problem is a database the file
// names that cannot be reached (stats.dsn, output.dsn). A main file that
// holds no configuration at all on reload (zero bytes, only whitespace or
// comments: an editor truncating it, a `cat >` not finished yet) is refused
// the same way — the previous configuration keeps serving — rather than
// applied as every default (statistics off, notify topics dropped,
// directories moved); write {} to reload with every default. At start an
// empty file still means every default. Without -config, SIGHUP is logged and
// changes nothing (it does not stop the server), and ot.reload answers
// that there is no configuration file to reload. A SIGHUP sent while the
// server starts is kept and reloads once it runs — except in the first few
// hundred milliseconds, while Go initialises the program's packages (the
// web pack's HTML extraction builds large tables), when it still ends the
// process: a service manager should reload after the "serving" log line. A reload waits a few
// seconds at most (mcpproxy.HostHookWait) for the servers it adds; a
// slower one connects in the background, shown disconnected. Values a
// server entry takes from ${VAR}s (a token in its url, a key among its
// command's arguments) are kept out of the log like its headers.
//
// -proxy and -config may be given together: the -proxy file is read once
// at start and its servers are served beside those of servers: (which
// SIGHUP reloads); a server name in both is an error.
//
// # Tools catalogue
//
// The server always serves a tools catalogue (registry/catalogue): bundles
// of versioned tools defined as data, kept as JSON files under
// catalogue.dir (the directory catalogue beside the configuration file,
// or under the user cache directory without -config). Every enabled
// catalogue tool is also a registry tool named {bundle}.{tool}.{version}
// (see registry/catalogue/cataloguehost for non-ASCII slugs), listed and
// callable over MCP and REST like any other, and MCP clients are told
// when the list changes.
//
// The catalogue is opened, and its tools registered, before the first
// configuration is applied (but after the file has passed every check but
// the aliases', so that a broken file is reported as such even when the
// catalogue's database cannot be reached), as they are there on every
// reload: an alias
// to a catalogue tool (aliases: {sum: examples.add.1}) is accepted at
// start as on reload. Catalogue tools come and go without a reload (a
// tool or bundle switched off or on, deleted, or renamed with its
// bundle's slug), so every {bundle}.{tool}.{version} of a bundle the
// catalogue holds is taken on trust as an alias target, like a
// configured server's tools: switching a tool off never makes the next
// reload (or restart) of an unchanged file fail; a call of the alias then
// fails as unavailable ("is an alias of …, which is not served now") until
// the tool is switched on again. A target in no bundle's names is still
// refused, and an alias may not take such a name as its own. A bundle
// given another slug, or purged, takes its names with it: an alias to its
// old names is refused at the next reload.
//
//	catalogue:
//	  dir: catalogue
//	  allowed_hosts: [api.example.com, "*.example.org"]  # where http tools may go (none: every public host)
//	  allow_private: false                               # loopback, private, link-local and metadata addresses
//	  allow_addrs: [10.1.0.0/16]                         # or only these non-public addresses (metadata stays refused)
//	  secrets: {API_KEY: "${API_KEY}"}                   # what "${API_KEY}" in a tool resolves to
//	  dsn: "${CATALOGUE_DSN}"                            # keep it in PostgreSQL instead (registry/catalogue/pgstore)
//	  schema: toolpack                                   # its PostgreSQL schema
//	  max_conns: 10                                      # its connection pool
//	  statement_timeout: 30s
//
// With catalogue.dsn several servers share one catalogue: what one stores
// the others serve, within moments of its commit (PostgreSQL's
// LISTEN/NOTIFY, whose notifications name the bundles a change touched:
// the others re-read only those; their MCP clients get list_changed, and
// after a lost connection — one a network dropped without a word is found
// within about 35 s, by a check of the quiet connection every 30 s — a
// server re-reads the whole catalogue), and <slug, version>
// stays unique across them, enforced by the database. The built-ins'
// switches and usage counts are kept in the database too, so a built-in
// bundle switched off through one server is off on every other, wherever
// its catalogue.dir is. The DSN is never
// logged. Servers on one machine may share catalogue.dir the same way:
// each change one makes, built-ins switched on or off included, reaches
// the others within half a second (the file store's change counter, which
// they poll; each re-reads only the bundles the change touched), and
// <slug, version> stays unique across them (file locks). Either way the
// catalogue API's page tokens are signed with a key the catalogue keeps
// (a row in the database; catalogue.dir/pagetoken.key, mode 0600, with
// files), made by the first server to start: a token one server returned
// is accepted by every other on the catalogue, and after a restart.
//
// Call statistics (ot.stats) and stored large outputs (ot.result) can live
// in PostgreSQL too, each section with its own dsn, schema, max_conns and
// statement_timeout:
//
//	stats:  {enabled: true, dsn: "${STATS_DSN}"}    # every server records into one table; ot.stats counts them all
//	output: {dsn: "${OUTPUT_DSN}"}                  # a handle one server returned is paged through any other
//
// Making a connection gives up after 10 s unless the DSN sets
// connect_timeout, so a database host that never answers is reported, not
// waited for. A server that cannot reach the database refuses the configuration with
// the file, line and key at fault: at start it exits with status 1 (not
// 2: nothing in the file is wrong, and the same command works once the
// database is back; a refused login is the file's fault, status 2), and
// on reload it keeps the previous configuration.
// A database that goes away later costs no call: tools keep running
// (the catalogue's from the registry, a large output returned whole when
// it cannot be stored, up to 1 MiB: a larger one is an "unavailable"
// failure carrying its first lines), ot.stats and ot.result answer "unavailable, try
// again in a moment", the catalogue API 503 with Retry-After, and call
// records wait in memory for the database; the server reconnects by
// itself. ot.health and /healthz check each database (postgresql:
// degraded while one cannot be reached); /healthz, open to anyone, at most
// once a second.
//
// Its REST API (registry/catalogue/catalogueapi) shares /tools with the
// registry's: /tools/bundles…, /tools/tools, /tools/tools/search and
// /tools/openapi.json are the catalogue's; GET /tools, GET /tools/{name}
// and POST /tools/{name}/invoke stay the registry's, so a registry tool
// named bundles, tools or openapi.json is reachable over MCP only (the
// server logs a warning). Both APIs, and the admin page at /admin/, sit
// behind the same bearer authentication and Host/Origin checks (with
// tokens set, a browser reaches the page only through a proxy that adds
// the Authorization header). Search (/tools/tools/search)
// answers from an in-memory index kept up to date by every write through
// the server (package searchindex).
//
// Tools of type steps run their sub-tool calls through the registry, so a
// step may call any tool the server serves, catalogue tools included.
//
// Go tools (type go) may name the functions echo, add and text_stats in
// goImpl.func. With MCP_INCLUDE_EXAMPLE_TOOLS=true the bundle "examples"
// is built in:
// the example pack's echo, add and text_stats functions, read-only but
// for their enabled switch. Its id is reserved in the catalogue, so that
// a server sharing it without MCP_INCLUDE_EXAMPLE_TOOLS cannot create a
// bundle with that id (403 built_in); a bundle made under the id before
// is logged at start and left out where the built-in is served. A reload
// applies new allowed_hosts, allow_private, allow_addrs and secrets to the
// next call;
// a new catalogue.dir waits for a restart.
package main
