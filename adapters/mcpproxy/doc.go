// Package mcpproxy mirrors remote MCP servers into a registry: each server
// becomes a pack named after it, its tools keep their schemas and
// descriptions, and calls are forwarded with the raw arguments.
//
// # Use
//
//	p, err := mcpproxy.New(ctx, reg, []mcpproxy.Config{
//		{Name: "github", Command: []string{"github-mcp-server", "stdio"},
//			Env: map[string]string{"GITHUB_TOKEN": token}},
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
// # Names, packs and sources
//
// A remote tool "search" of the server "github" is registered as
// "github.search" (ToolName; MCP allows dots in tool names), in the pack
// "github", with Source "proxy:github" (registry.SourceProxyPrefix + name).
// The registry's prefix, if any, is added on top like for every tool.
// Qualified names keep two servers' tools apart and read like seed 001's
// examples (github.search). The pack is registered with
// registry.AddPack and replaced (RemovePack + AddPack, so the registry's
// subscribers are notified) whenever the tools are listed again: after a
// reconnection, on a tools/list_changed notification, or on Refresh. A pack
// or tool name clash is an error for that server only: it is logged, the
// server is marked disconnected with the error and not retried until
// Refresh; nothing else is affected.
//
// Each tool keeps Title (or annotations.title), Description, InputSchema
// and OutputSchema as raw JSON, and its annotations (destructiveHint and
// openWorldHint as stated; readOnlyHint and idempotentHint, plain booleans
// in the SDK, only when true). Signature, Args and Returns are derived from
// the schemas (Signature): required parameters first in "required" order
// without defaults, then optional ones sorted by name with their default or
// '...'. The client SDK decodes schemas into maps, so the properties' order
// in the remote schema is not kept. Tools have no Decode: the arguments go
// to the remote server as they came (empty or null become {}; anything but
// a JSON object is a validation_error), and the remote server validates.
//
// # Results
//
//   - isError → failure with error type upstream_failure, the text content
//     joined by newlines (structuredContent, if any, in ErrorData);
//   - structuredContent → success with that value (decoded by the SDK, so
//     numbers are float64);
//   - otherwise → success with the text content joined by newlines (other
//     content kinds become bracketed placeholders; embedded text resources
//     their text);
//   - a JSON-RPC error from the remote → a protocol failure: a non-nil
//     error wrapping *jsonrpc.Error;
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
// Status and Health (ok/degraded, seed 001's ot.health) report each
// server; Options.OnStatus is called on every change. A dropped session
// ends the calls still in flight on it (unavailable). Close ends calls in
// flight, stops every goroutine, closes the sessions (ending stdio
// children) and removes the proxied packs.
//
// # Secrets
//
// Header values, environment values, and the password and query values of
// URLs are secrets: they are redacted from every log record of the proxy
// (a redacting slog.Handler), from Status.LastError and from returned
// errors; configuration errors never quote them. Values shorter than four
// bytes are not treated as secrets.
//
// # Requirements and tests
//
//	| requirement                                                      | test                                                       |
//	|------------------------------------------------------------------|------------------------------------------------------------|
//	| invalid config (both/neither, name, URL, env, headers) is an     | TestNewRejectsInvalidConfig, TestNewRejectsNilRegistry     |
//	|   error naming the server and field                              |                                                            |
//	| config errors never show header/URL secrets                      | TestConfigErrorNeverShowsSecrets                           |
//	| any config: accepted or *ConfigError, no panic, no secret shown  | TestConfigValidationProperty (rapid)                       |
//	| tools become a pack: names, title, description, schemas,         | TestInMemoryToolsRegisteredAsPack                          |
//	|   annotations, pack, source proxy:{server}, no Decode            |                                                            |
//	| registry prefix applies on top of server.tool                    | TestRegistryPrefixApplies                                  |
//	| every page of tools/list is read                                 | TestListsAllPages                                          |
//	| raw arguments forwarded as is                                    | TestCallForwardsRawArguments                               |
//	| non-object arguments are a validation_error                      | TestCallRejectsNonObjectArguments                          |
//	| text content → string value                                      | TestCallTextResult                                         |
//	| structuredContent → value                                        | TestCallStructuredResult                                   |
//	| isError → upstream_failure with the text                         | TestCallRemoteToolErrorIsUpstreamFailure,                  |
//	|                                                                  |   TestMapResultErrorKeepsStructuredDetails                 |
//	| content kinds joined                                             | TestMapResultContentKinds                                  |
//	| JSON-RPC error → protocol failure (errors.As *jsonrpc.Error)     | TestCallRemoteProtocolErrorIsError                         |
//	| context cancellation honoured in calls                           | TestCallHonoursContextCancellation                         |
//	| call timeout → timeout failure                                   | TestCallTimeoutIsTimeoutFailure                            |
//	| size caps: result, tools per server, schema size                 | TestOversizedResultIsUpstreamFailure,                      |
//	|                                                                  |   TestTooManyToolsIsServerError,                           |
//	|                                                                  |   TestConvertToolSkipsBadSchemas                           |
//	| invalid remote tool names skipped and logged                     | TestInvalidRemoteToolNamesSkipped                          |
//	| name clash: server error, logged, nothing else affected; Refresh | TestNameClashMarksServerError                              |
//	| start failure: warning, disconnected, registry still works       | TestStartFailureMarksDisconnectedAndRegistryWorks,         |
//	|                                                                  |   TestStdioMissingCommandIsDisconnected                    |
//	| start failure retried with back-off                              | TestStartFailureRetriedWithBackoff                         |
//	| back-off attempts bounded by MaxTries                            | TestBackoffMaxTriesBoundsAttempts                          |
//	| disconnected server's tools fail promptly with unavailable       | TestDisconnectedCallIsUnavailable                          |
//	| dropped connection reconnected, pack refreshed, subscribers told | TestDroppedConnectionReconnectsAndRefreshesPack            |
//	| tools/list_changed refreshes the pack                            | TestToolListChangedRefreshesPack                           |
//	| Status/Health per server; Refresh of unknown server              | TestInMemoryToolsRegisteredAsPack, TestRefreshUnknownServer|
//	| Close stops all goroutines and removes the packs                 | TestCloseStopsGoroutinesAndRemovesTools                    |
//	| Close ends calls in flight at once (unavailable)                 | TestCloseEndsCallsInFlight                                 |
//	| New honours its context                                          | TestNewHonoursContext                                      |
//	| real child process over stdio: kill → unavailable → reconnect    | TestStdioChildProcessKilledAndReconnected                  |
//	| streamable HTTP on 127.0.0.1 with a required auth header;        | TestStreamableHTTPWithAuthHeader                           |
//	|   secrets absent from logs and status                            |                                                            |
//	| HTTP server gone: calls unavailable at once, then reconnected    | TestStreamableHTTPServerDownIsUnavailableThenReconnects    |
//	| secrets redacted from any text and from every log attribute      | TestRedactorProperty (rapid), TestRedactorCoversAllSecretKinds, |
//	|                                                                  |   TestRedactingLogHandler, TestDisplayURLHidesCredentials  |
//	| seed 001 "Proxy tool signature from schema"                      | TestSignatureFromSchema, TestSignatureProperty (rapid)     |
//	| seed 001 "Proxy tool arguments from schema"                      | TestArgsFromSchema, TestSignatureProperty (rapid)          |
package mcpproxy
