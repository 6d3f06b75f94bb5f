// Package mcpproxy mirrors remote MCP servers into a registry: each server
// becomes a pack named after it, its tools keep their schemas and
// descriptions, and calls are forwarded with the raw arguments.
//
// # Use
//
//	p, err := mcpproxy.New(ctx, reg, []mcpproxy.Config{
//		{Name: "github", Command: []string{"github-mcp-server", "stdio"},
//			Env:        map[string]string{"GITHUB_TOKEN": token},
//			InheritEnv: []string{"LANG", "HTTPS_PROXY", "NO_PROXY"}},
//		{Name: "search", URL: "https://mcp.example.com/mcp",
//			Headers: map[string]string{"Authorization": "Bearer " + key}},
//	}, mcpproxy.Options{Logger: logger})
//	if err != nil { … } // invalid configuration only
//	defer p.Close()
//	p.Status() // per-server connected/disconnected, tool count, last error
//
// A server is reached over stdio (Config.Command, run with
// mcp.CommandTransport), streamable HTTP (Config.URL plus Config.Headers,
// added by a RoundTripper wrapping Options.HTTPClient) or any transport a
// TransportFactory returns (tests use mcp.NewInMemoryTransports).
//
// A Command server does not inherit the host's environment: as with the
// official MCP SDKs (Python's get_default_environment, TypeScript's
// getDefaultEnvironment), it gets only the variables InheritedEnv names
// (on POSIX HOME, LOGNAME, PATH, SHELL, TERM and USER; on Windows
// APPDATA, HOMEDRIVE, HOMEPATH, LOCALAPPDATA, PATH,
// PROCESSOR_ARCHITECTURE, SYSTEMDRIVE, SYSTEMROOT, TEMP, USERNAME,
// USERPROFILE and PROGRAMFILES) and those Config.InheritEnv names, those
// set, skipping values that start with "()" (exported shell functions),
// plus Config.Env, which wins. The host's own credentials
// (TOOLPACK_AUTH_TOKEN, a DSN, another server's key,
// OTEL_EXPORTER_OTLP_HEADERS) never reach a child that could print them
// unredacted. Any other variable a server needs is passed one of two
// ways:
//
//   - a plain setting (LANG, TZ, TMPDIR, HTTP_PROXY, HTTPS_PROXY,
//     NO_PROXY, SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, XDG_*, DISPLAY) is
//     named in Config.InheritEnv (a host configuration's inherit_env:
//     [LANG, HTTPS_PROXY]) and passed as the host has it; its value is
//     not a secret and never redacted, so a result such as "wrote
//     /tmp/report.txt" comes back whole (a name that says it holds a
//     credential, GITHUB_TOKEN or OPENAI_API_KEY, is refused there:
//     hostconfig.CredentialEnvName; a proxy URL with user:password@
//     belongs in Env);
//   - a secret (an API key) is given in Config.Env (env: {API_KEY:
//     "${API_KEY}"}); its value is redacted from everything the server
//     sends back, its tools' results too (see Secrets).
//
// A variable may not be in both.
//
// # Upgrading
//
// Command servers used to inherit the host's whole environment; they now
// get only the variables above. A server that relied on an inherited
// variable — a proxy setting, a CA bundle (SSL_CERT_FILE,
// NODE_EXTRA_CA_CERTS), TMPDIR, LANG, XDG_*, DISPLAY, or an API key the
// host happened to have — no longer sees it, and nothing says so: name
// plain settings in InheritEnv (inherit_env), and pass each secret in
// Env as ${NAME} (env: {API_KEY: "${API_KEY}"}), so that it is kept out
// of logs and results.
//
// # Names, packs and sources
//
// A remote tool "search" of the server "github" is registered as
// "github.search" (ToolName; MCP allows dots in tool names), in the pack
// "github", with Source "proxy:github" (registry.SourceProxyPrefix + name).
// The registry's prefix, if any, is added on top like for every tool.
// Qualified names keep two servers' tools apart and read like seed 001's
// examples (github.search). The pack is registered with
// registry.AddPack and replaced in one step (Registry.ReplacePack, one
// notification to the registry's subscribers, no moment without the
// tools) whenever the tools are listed again: after a reconnection, on a
// tools/list_changed notification, or on Refresh. A pack
// or tool name clash is an error for that server only: it is logged, the
// server is marked disconnected with the error and not retried until
// Refresh; nothing else is affected.
//
// Each tool keeps Title (or annotations.title), Description, InputSchema
// and OutputSchema as raw JSON, and its annotations as the remote states
// them: a hint set to true or false is passed as that value, a hint the
// remote leaves out stays nil (not stated). The SDK decodes readOnlyHint
// and idempotentHint into plain booleans, where false and absent look
// alike, so the proxy reads them from the raw tools/list answer (see Wire
// values below). The SDK also decodes the input schema into a map, which
// sorts its properties, so the proxy serves the schema as the raw answer
// wrote it: the parameters stay in the order the remote chose (unless a
// secret had to be redacted from the schema). Signature, Args and Returns
// are derived from the schemas (Signature): required parameters first
// without defaults, then optional ones with their default or '...', both
// in the schema's order. Tools have no Decode: the arguments go
// to the remote server as they came (empty or null become {}; anything but
// a JSON object is a validation_error), and the remote server validates.
//
// # Traces
//
// A call made inside a span (a host's telemetry middleware, or the caller's
// own) carries its trace to the remote server: W3C traceparent and
// tracestate in the request's _meta, as OpenTelemetry's conventions for MCP
// put them, and in the HTTP headers of a streamable HTTP server, so that a
// traced remote's spans join the caller's trace. A call without a span
// (a host that does not trace) passes on the trace context its caller
// sent, as received: the traceparent and tracestate of the MCP request's
// _meta, or else of its HTTP headers (registry.Request); a malformed
// traceparent is not passed on, and a call whose request carried none
// carries none. OTEL_PROPAGATORS, when set, names the formats instead
// (tracecontext, baggage, b3, b3multi, jaeger, xray, ottrace; the
// telemetry middleware reads the same), none sending no trace context at
// all; Options.Propagator, when set, wins.
//
// # Servers calling each other
//
// Each forwarded call also says in its _meta how deep it is in calls made
// by tools (registry.MetaCallDepth: the caller's registry.CallDepth; the
// hop itself adds no level), and a toolpack server receiving it
// (adapters/mcpserver) counts on from there: snippets on hosts that
// proxy each other stop at snippet.MaxNesting as they do on one host. A
// call made within a run of snippets also carries the calls the run may
// still start (registry.MetaCallBudget), and its result the calls it
// started there (registry.MetaCallsUsed), so the run keeps to
// snippet.MaxRunCalls across the hosts. A call already
// registry.MaxCallDepth deep is not forwarded (a failure of type
// unavailable), so that servers configured to call each other in a loop
// end each call instead of recursing until they run out of connections.
// Tool listings likewise: a toolpack server lists with each tool the
// registries it came through (mcpmap.MetaHosts: registry.Tool.Via and its
// own Registry.ID), and the proxy does not serve a remote tool that came
// from its own registry — hosts proxying each other serve each other's
// own tools once, and a host configured to proxy itself serves nothing
// twice, instead of mirroring tools under ever longer names.
//
// # Results
//
//   - isError → failure with error type upstream_failure — or the error
//     type a toolpack server states in the result's _meta
//     ("toolpack/error_type") when it is not_found, validation_error,
//     permission_denied, conflict or rate_limited, so that a proxied tool
//     fails as the tool itself does —, the text content joined by newlines
//     (structuredContent, if any, in ErrorData);
//   - structuredContent → success with that value, numbers as json.Number
//     (so that 2^53+1 keeps every digit; see Wire values). A value that is
//     not an object travels wrapped in an object of one member; when the
//     remote says so, the proxy takes it back out, and the proxied tool
//     has the value's own output schema: a toolpack server says so in
//     the tool's or the result's _meta ("toolpack/wrapped", member
//     "value"), FastMCP in the schema ("x-fastmcp-wrap-result", member
//     "result"). A wrapper whose schema holds a "$ref" stays whole, as
//     does one nothing marks;
//   - otherwise → success with the text content joined by newlines (other
//     content kinds become bracketed placeholders; embedded text resources
//     their text);
//   - a JSON-RPC error from the remote → a protocol failure: a non-nil
//     *RemoteError naming the server, the tool and the code (never the
//     remote message, which often repeats the arguments: error texts end
//     up in logs); errors.As with *jsonrpc.Error gives the remote error,
//     secrets redacted;
//   - a transport failure → a non-nil error wrapping ErrCall, text redacted;
//   - disconnected server, the connection closing during the call, or a
//     request the SDK's transport could not deliver (JSON-RPC code -32005,
//     e.g. the HTTP server is down) → failure with error type unavailable,
//     at once; the server is marked disconnected and reconnected;
//   - the caller's context ends → cancelled (or timeout for a deadline),
//     as does Options.CallTimeout.
//
// # Health and reconnection
//
// New returns after each server's first attempt (Options.ConnectTimeout
// bounds each attempt). A server that fails is logged as a warning, marked
// disconnected, and retried in the background with exponential back-off
// (github.com/cenkalti/backoff/v5: Options.Backoff, waits capped, attempts
// optionally bounded, cancelled by Close). A session that ends (child
// killed, server gone) marks the server disconnected and starts the same
// reconnection; the tools stay registered meanwhile and answer unavailable.
// A server that stops answering without closing its connection is found by
// pings every Options.KeepAlive (15 s by default; two unanswered in a row
// end the session) rather than by the next call that happens to fail.
// Status and Health (ok/degraded, seed 001's ot.health) report each
// server; Options.OnStatus is called on every change. A dropped session
// ends the calls still in flight on it (unavailable). Close ends calls in
// flight, stops every goroutine, closes the sessions (ending stdio
// children) and removes the proxied packs.
//
// # Reconfiguration
//
// Reconfigure replaces the set of servers while the proxy runs (a host
// reloading its configuration): servers whose Config is unchanged keep
// their sessions, and so do those whose Description alone changed (their
// pack is replaced with the new description); removed servers lose their
// pack at once and finish the calls already forwarded to them before they
// are disconnected; new servers connect as in New; a changed server
// (command, env, inherited variables, dir, URL, headers) connects anew beside the old one, its
// tools replace the old ones in one step when it connects, and the old
// one finishes its calls in flight before it is disconnected. A caller
// that held an old tool across the change (a snippet's later steps, see
// registry.Pinned) is served all the same: once the old server is
// closed, its tools forward calls to the server that replaced it, so no
// call fails because of a reload; a held tool of a removed server fails
// with error type unavailable, saying the server was removed. Validate
// checks configs without changing anything.
//
// # Wire values
//
// The go-sdk client decodes what it receives into Go values, and two
// things are lost on the way: numbers of structured content become
// float64, and a false readOnlyHint or idempotentHint cannot be told from
// a missing one. The proxy therefore keeps the raw JSON of the answers to
// its own tools/list and tools/call requests: on stdio and custom
// transports a wrapper of the connection reads it, on streamable HTTP the
// RoundTripper that adds Config.Headers reads it as the SDK reads the
// body. A custom transport that is a *mcp.StreamableClientTransport is not
// wrapped (its connection relies on hooks a wrapper would hide); for it,
// and whenever the raw answer is missing or larger than the caps, the
// SDK's values are used (float64 numbers; only a true hint is passed).
//
// # Secrets
//
// A server's secrets are the values its Config carries: header values
// (and, after an authentication scheme such as "Bearer", the credential
// alone; for "Basic", also the decoded "user:password" and the password)
// but those of the standard headers that describe a request (Accept,
// Content-Type, User-Agent, …), environment values, and the query values
// of the URL (a URL with user information, user:password@, is refused by
// Validate, New and Reconfigure, as by the host configuration: credentials
// go in Headers). Values shorter than four bytes
// are not secrets, and neither are environment and header values that
// are plain settings no credential is — a boolean word (true, false,
// yes, no, on, off, enabled, disabled), a log level (trace, debug, info,
// warn, error, …), none, null, or a whole number of at most seven digits
// (a port, a count) — since redacting DEBUG=true would turn every "true"
// of every result into [REDACTED]. Each is
// looked for as it is and in the forms a remote or an error gives it back:
// JSON-escaped (with and without HTML escaping), URL query- and
// path-escaped. A secret of eight bytes or more (white space aside) is
// also found when spaces, tabs, line breaks or the JSON escapes \n, \r,
// \t are inserted between its characters (a remote wrapping lines), and
// inside words; a shorter one (four to seven bytes, in the form looked
// for) only where it stands as a whole word — not preceded or followed by
// a letter, digit or _ that continues it; the end of an escape sequence
// (a JSON \n, \t, \" or \u00e9, a URL's %20 or %2F) continues nothing —
// so that a value such as ECHO_MODE=exit is redacted from "mode exit",
// "--mode=exit", "line\nexit" and "a%20exit" but leaves "secexit" (the
// server's own name), "exit_code" and "exits" alone. Each occurrence is replaced by [REDACTED]; a text in which a
// secret would survive the replacement is withheld whole.
//
// Secrets are redacted from:
//
//   - every log record of the proxy, at every level (message, attributes,
//     groups; the SDK client logs through the same handler); the URL
//     is logged without query values;
//   - the standard error of Command servers passed on to Options.Stderr
//     (line by line; a line longer than 64 KiB is passed on in pieces
//     that never split a secret);
//   - Status (LastError, Remote) and so Health output;
//   - every error returned to the registry and every failure text;
//   - results that go back to the client: text content, structured
//     content (strings, object keys, and numbers that spell a secret,
//     which become the string [REDACTED]), error texts and error data of
//     isError results, and the message and data of remote JSON-RPC
//     errors;
//   - what a remote lists: tool titles, descriptions and schemas (a tool
//     whose name holds a secret is skipped), and the remote's name and
//     version.
//
// Config.Secrets (a token in the URL's path, a key among the command's
// arguments) are redacted from all of these but successful results and
// what a remote lists: a failure — the text and error data of an isError
// result, the message and data of a JSON-RPC error — is an error text,
// and a remote that echoes its request path or command line there does
// not show them to the client.
//
// Redacting successful results means that a value equal to an Env value
// is redacted too, even when it is not secret in itself (a region name, a
// directory, a locale): pass such settings with Config.InheritEnv, whose
// values are never redacted, rather than in Env.
// Sizes are checked before redaction and error texts are cut after it
// (external error texts to 2000 bytes), so a cut can never leave a piece
// of a secret. Argument values are never logged by the proxy, and a remote
// JSON-RPC error's message (which may repeat them) is kept out of error
// texts. Configuration errors never quote a header or environment value.
//
// # Tests
//
// Tests of code that uses the proxy should set Options.CallTimeout and
// Options.ConnectTimeout to a few seconds: the defaults (5 minutes, 30
// seconds) suit production, and would let a hung test wait that long.
package mcpproxy
