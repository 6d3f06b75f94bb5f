// Command server is toolpack's main example: every pack it knows, in one
// registry, served over MCP and HTTP.
//
// By default it listens on one HTTP address (127.0.0.1:8080) with
//
//	/mcp          MCP over streamable HTTP
//	/tools …      the REST API (GET /tools, GET /tools/{name},
//	              POST /tools/{name}/invoke, GET /openapi.json)
//	/healthz      {"status":"ok","tools":N,"packs":[…],"proxy":{"status":"ok"|"degraded",
//	              "server_count":N,"servers":{"name":"connected"|"disconnected"}}}
//
// With -stdio it speaks MCP over stdin/stdout instead (for MCP clients that
// start their servers as child processes); stdout then carries protocol
// messages only. Logs always go to stderr.
//
// Usage:
//
//	go run ./examples/server                       # HTTP on 127.0.0.1:8080
//	go run ./examples/server -addr 127.0.0.1:9000 -packs example
//	go run ./examples/server -stdio -prefix tp     # MCP over stdio, tools named tp_…
//
// Flags:
//
//	-addr string      HTTP listen address (default "127.0.0.1:8080")
//	-stdio            serve MCP over stdin/stdout instead of HTTP
//	-packs list       comma-separated packs to serve (default: all)
//	-prefix string    tool name prefix; when not given, MCP_TOOL_PREFIX, else none
//	-display string   how MCP results show: "envelope" (full Result JSON) or "value"
//	-log-level string debug, info, warn or error (default "info")
//	-proxy file       JSON file of remote MCP servers to mirror as packs
//
// SIGINT or SIGTERM shuts the server down gracefully.
//
// # Packs
//
// The server knows the packs listed in availablePacks (packs.go); adding a
// pack is one line there. A pack that needs configuration reads it from the
// environment: the oj pack needs OJ_BASE_URL (the backend's origin) and
// optionally OJ_TOKEN. When -packs is not given, packs that are not
// configured are skipped with a log line, so the server starts with no flags
// on a fresh machine; naming such a pack in -packs is an error. The oj
// pack's MCP results always show its plain Markdown.
//
// # Remote MCP servers
//
// -proxy names a JSON file of remote MCP servers (adapters/mcpproxy); each
// becomes a pack named after it, with tools "{name}.{tool}" and source
// proxy:{name}:
//
//	[
//	  {"name": "github", "command": ["github-mcp-server", "stdio"],
//	   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
//	  {"name": "search", "url": "https://mcp.example.com/mcp",
//	   "headers": {"Authorization": "Bearer ${SEARCH_KEY}"}}
//	]
//
// ${NAME} in env and header values is replaced by the environment variable
// NAME (which must be set), so secrets need not be in the file; they never
// appear in logs or errors. A server that cannot be reached is logged as a
// warning, reported "disconnected" in /healthz (proxy status "degraded")
// and retried with back-off; the rest of the server works meanwhile.
package main
