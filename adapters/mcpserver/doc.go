// Package mcpserver serves a toolpack registry over the Model Context
// Protocol, on the official Go SDK (github.com/modelcontextprotocol/go-sdk/mcp).
//
//	reg := registry.New(registry.Options{})
//	// … add tools …
//	err := mcpserver.ServeStdio(ctx, reg, mcpserver.Options{})  // MCP over stdin/stdout
//
// or, for streamable HTTP on the host's own mux:
//
//	srv := mcpserver.NewServer(reg, mcpserver.Options{
//		Implementation: &mcp.Implementation{Name: "mytools", Version: "v1"},
//	})
//	mux.Handle("/mcp", mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{}))
//
// Register puts every tool of a registry on a host's own *sdk.Server, with
// the registry's own name, title, description, input schema, output schema
// and annotations, and keeps the server in sync through
// Registry.Subscribe: tools added or removed at run time appear in or
// vanish from tools/list, and the SDK sends
// notifications/tools/list_changed to connected clients. It scales to
// catalogues of many thousands of tools: tools/list is answered from the
// adapter's own sorted index (in the SDK's pages, with the SDK's cursors),
// and adding or removing a tool costs the same whatever the number served.
//
// The adapter translates; it never validates or dispatches. Every tools/call
// goes to Registry.Invoke with the raw arguments (absent or null arguments
// become {}), whose pipeline decodes, validates (and caps the size of) the
// arguments, runs middleware and the handler and checks the output. The raw
// path is used precisely so that the registry, not the SDK, validates: the
// SDK does not validate raw tools. The transports cap what they read (16 MiB
// per stdio line, 4 MiB per HTTP body by default).
//
// # Stdio
//
// ServeStdio runs on package mcpstdio's Transport rather than the SDK's
// StdioTransport: the same newline-delimited framing, but malformed input is
// answered instead of ending the session, and on Linux stdin is read through
// the runtime's poller. See package mcpstdio.
//
// # Streamable HTTP
//
// HTTPHandler serves a server over MCP's streamable HTTP transport with
// bounds a public endpoint needs (HTTPOptions, every zero value useful):
//
//   - at most MaxSessions open sessions (default 1000): a new session over
//     the cap gets 503 with Retry-After and a JSON-RPC error, and nothing
//     is allocated for it;
//   - a session idle for SessionTimeout (default 30 minutes) is closed and
//     its memory and goroutines freed; its client gets 404 and starts anew.
//     Idle means sending no request: listening on the GET stream does not
//     count (the go-sdk's rule), so a client that only listens for
//     notifications should send a ping more often than SessionTimeout;
//   - a client ending its session (DELETE) stops the session's calls of
//     registry tools under way: their context is cancelled with the cause
//     ErrSessionEnded (the registry logs "Tool X stopped: the client ended
//     its MCP session" at INFO), and the DELETE returns as soon as they
//     have returned, where the SDK alone would wait for each call to end
//     on its own and cancel none;
//   - request bodies are capped (MaxBodyBytes, default 4 MiB);
//   - Auth wraps the handler: with httpguard.RequireBearer, a request
//     without a valid token gets 401 and a WWW-Authenticate challenge, the
//     SDK binds each session to the token's UserID, and every tool call
//     carries the token: CallToolRequest.Extra.TokenInfo for SDK handlers,
//     httpguard.TokenInfoFromContext(ctx) for registry tools (NewServer
//     installs TokenInfoMiddleware for that).
//
// Put an httpguard.Guard in front of the whole listener (Host and Origin
// checks on every route, a per-write deadline that lets event streams
// live), and set the http.Server's ReadHeaderTimeout, ReadTimeout and
// IdleTimeout; leave its WriteTimeout zero, or it ends every stream.
//
// Requests whose params do not fit their method — params that are not an
// object, a number where tools/call needs the tool's name — are answered
// with JSON-RPC -32602 naming the method, the field and the JSON type
// expected ("invalid params for "tools/call": field "name" must be a
// string, got a number"), where the SDK would name Go types and quote the
// params, arguments included. So are params a method requires sent absent
// or null ("field "params" is required (a JSON object), got none"), and a
// logging/setLevel level MCP does not define (the message lists the eight
// levels; the SDK would store it). HTTPHandler does it for HTTP,
// ServeStdio for stdio, CheckParams for any other transport; servers from
// NewServer (and Register) refuse unknown levels on every transport.
//
// A JSON-RPC batch (which the SDK takes when the request's
// Mcp-Protocol-Version header says 2024-11-05 or 2025-03-26, or is
// absent, which it reads as 2025-03-26) gets the same check for each of
// its requests.
// When one fails, the batch is refused whole — nothing in it runs — and
// the answer is the batch's, as JSON-RPC 2.0 has it: an array with a
// response for each request, the failing ones their -32602, the others
// -32600 "not run: another request of this batch has invalid params, so
// none was run; …" (quoting nothing of the batch, so that the answer is
// never much larger than it). Notifications and responses in it get none.
//
// The error answers HTTPHandler writes itself (a body over MaxBodyBytes:
// 413; over the session cap: 503; a refused request) carry the request's
// id, or "id": null when it is not known, as JSON-RPC 2.0 requires. A
// tools/list cursor this server did not give is invalid params, saying to
// list from the start without a cursor.
//
// The SDK logs each session's start, initialization and end at INFO; the
// server NewServer builds logs them at DEBUG. So it does the SDK's ERROR
// records of a client's own mistakes (a request before initialize or
// without Mcp-Session-Id, a second initialize or initialized, a protocol
// version the server does not take), one per request and nothing for an
// operator to fix: the client is answered with the error. The server's own
// failures stay at ERROR. (The SDK's records carry no session id or
// address: it logs them without the request.)
//
// # Shutting down
//
// A call over streamable HTTP runs on its session's context, not its HTTP
// request's: http.Server.Shutdown waits for it, but neither cancelling the
// requests' contexts nor closing the connections stops it, and a client
// whose connection closes under its call gets no answer. Give the server a
// context that ends at the end of the shutdown grace, Options.Stop, and
// cancel it with the cause ErrServerStopping (the same error as
// httpapi.ErrServerStopping, so one cancellation stops REST calls too):
// every call under way is cancelled with that cause, and its client is
// answered a tool error result (isError, error type unavailable, "the
// server is shutting down and stopped the call to tool … before it
// finished") before the host closes the connections; the registry's
// Logging logs "Tool X stopped: the server is shutting down", not a caller
// that cancelled. Keep the MCP requests' own contexts alive until then:
// the SDK ends a POST's response as soon as its context is cancelled,
// answer or not.
//
//	stopCtx, stopCalls := context.WithCancelCause(context.Background())
//	srv := mcpserver.NewServer(reg, mcpserver.Options{Stop: stopCtx})
//	// … serve; on SIGTERM: hs.Shutdown(graceCtx); if the grace ran out:
//	stopCalls(mcpserver.ErrServerStopping) // then give the answers a moment, then hs.Close()
//
// Over stdio, package mcpstdio's Transport.Stop ends the reading and waits
// for the answers of the calls read (DrainTimeout); cancelling Options.Stop
// before that wait ends has the calls still running answered the same way.
// examples/server does both.
//
// # Mapping
//
// What a client receives for each outcome of the pipeline. The text content
// is what a model reads; structuredContent is for programs, and MCP
// requires it to be a JSON object. A client that knows a tool's output
// schema (from tools/list) requires structuredContent on every success and
// validates it against that schema — the TypeScript SDK rejects the whole
// call otherwise — so what tools/list advertises and what tools/call sends
// follow from the same rule: the root "type" of the tool's OutputSchema.
//
//	tool's OutputSchema            advertised outputSchema      structuredContent of a success
//	-----------------------------  ---------------------------  -------------------------------------
//	"type":"object"                the schema, byte for byte    the value (an object) as it is
//	"type":"string" (a text tool)  none                         none: the answer is the text
//	none                           none                         an object value as it is; a number,
//	                                                            boolean or array as {"value": v};
//	                                                            none for a string or nil value
//	any other (a number, boolean,  the wrapper (below)          {"value": v} for every value,
//	  array, null or union type,                                including a string ({"value":"…"})
//	  no type, true/false)                                      and nil ({"value":null})
//
// The wrapper is the schema of {"value": v}:
//
//	{"type":"object","properties":{"value":S},"required":["value"],"additionalProperties":false}
//
// with the tool's schema S inside (true becomes {} and false {"not":{}},
// as clients require object property schemas). S's "$schema" and "$id"
// move to the wrapper's root and its local references ("$ref":"#/$defs/x",
// "#") are moved to point under /properties/value, so S means what it
// meant. A success whose value contradicts an object schema (not an
// object) is a protocol error, logged; the registry's output check
// prevents it for every tool it validates.
//
// The text content, for every shape:
//
//	pipeline outcome                        text content (DisplayValue | DisplayEnvelope)
//	--------------------------------------  -----------------------------------------------
//	success, string value                   the string as it is | the Result JSON envelope
//	  (a json.RawMessage holding a JSON
//	   string, as proxied tools return,
//	   counts as a string)
//	success, any other value                the value's JSON (never the {"value": …}
//	  (json.RawMessage: its JSON as is)      wrapper) | the envelope
//	success, nil value                      the Result's message when it has one, else
//	                                        null | the envelope
//	validation failure                      isError: true, no structuredContent; "invalid
//	  (error_type validation_error,          arguments (n problems)…" and one "- field:
//	   error_data []args.FieldError)         message [rule]" line per error | the envelope,
//	                                        whose error_data holds them all
//	other domain failure                    isError: true, no structuredContent; the error
//	                                        text and the instruction | the envelope
//	any domain failure, both displays       _meta {"toolpack/error_type": its error_type}
//	success sent as {"value": …}            _meta {"toolpack/wrapped": true} (MetaWrapped),
//	                                        which the tool's own _meta in tools/list also
//	                                        carries when its schema is the wrapper, so that
//	                                        a client (a proxy) can take the value back out
//	non-nil error from Invoke               JSON-RPC error, never a tool result:
//	  unknown tool (registry.ErrUnknownTool)  -32602 invalid params, "unknown tool \"x\""
//	  cancelled / timed out                   -32603, "tool \"x\": call cancelled|timed out"
//	  stopped by the host (Options.Stop)      not an error: a tool error result (isError,
//	                                          error type unavailable) saying the server is
//	                                          shutting down and stopped the call
//	  anything else                           -32603 with a fixed message; the error itself
//	                                          is logged at ERROR, never sent to the client
//	value or error_data that cannot marshal JSON-RPC -32603 (logged), as above
//	invalid Display value                   JSON-RPC -32603 naming Options.Display
//
// The envelope is the JSON form of result.Result (seed 004's to_json_str):
// {"success":…,"value":…,"error":…,"error_type":…,"message":…,
// "instruction":…,"error_data":…}.
//
// DisplayValue is the default. A model reads the text content of every
// call it makes: with DisplayValue it reads the answer itself — a tool's
// Markdown, 42, the JSON of a record — as it would from any MCP server,
// while programs read structuredContent; an envelope around every answer
// would cost tokens on every call and put protocol noise where the model
// expects content. Failures lose nothing: their text carries the error,
// every field error and the instruction, and their _meta carries the
// error type under MetaErrorType, so that a program tells a contract's
// codes (port_busy, invalid_query, …) apart without reading the text. A host whose agents are written
// to read every field of a Result (message, error_type, instruction on
// successes too) chooses the envelope with Options.Display =
// DisplayEnvelope for every tool, or with Options.DisplayFor for some
// (for example by pack); structuredContent is the same in both displays.
//
// # Rich content
//
// A success whose value is a result.Contents (result.Rich) or a single
// result.Content becomes one MCP content item per item, in order: text,
// image and audio (data with mimeType), embedded resources (uri, mimeType,
// text or blob) and resource links. Such a tool advertises no
// outputSchema and its result has no structuredContent, in either
// Display. An item missing what its kind needs (an image without MIME
// type) is a JSON-RPC internal error naming the item.
//
// Content kinds came with protocol versions, and clients of an older
// version reject a result holding a kind they do not know (the TypeScript
// SDK rejects the whole call). Each result keeps to the version of its
// client — the version it asked for in initialize, when the SDK speaks it;
// a call without one (no session, a version the SDK does not know, to
// which it answers with its newest) gets the newest version's kinds:
//
//	item            2024-11-05                          2025-03-26   2025-06-18 and later
//	--------------  ----------------------------------  -----------  --------------------
//	text, image,    as they are                         as they are  as they are
//	 resource
//	audio           an embedded blob resource with the  audio        audio
//	                same bytes and MIME type, URI
//	                toolpack://audio/N (N: the item's
//	                position, from 1)
//	resource_link   a text item: "Resource link: URI    text         resource_link
//	                (name: …; MIME type: …;
//	                description: …)"
//
// Everything else the adapter sends is in every version or is an extra
// member older clients ignore: the result's _meta and isError are in every
// version; structuredContent (2025-06-18) and, in tools/list, a tool's
// title, outputSchema and _meta (2025-06-18) and annotations (2025-03-26)
// are left as they are. Content items carry no annotations, _meta, title
// or icons.
//
// A tool the SDK cannot serve (input schema missing, not an object schema
// with "type":"object", or refused by the SDK) is skipped and logged at
// ERROR; the others are served. Nothing in this package writes to stdout.
//
// # What a handler sees
//
// Every call reaches Registry.Invoke with what the request carries on its
// context, so that tools read it through package registry and never import
// this package:
//
//   - registry.Request(ctx): Transport "mcp"; SessionID, the MCP session id
//     (empty over stdio); Header, the HTTP request's headers over
//     streamable HTTP (nil otherwise; it includes Authorization — never log
//     it); Auth, the bearer token verified by the go-sdk's
//     auth.RequireBearerToken around HTTPHandler (Subject is the token's
//     UserID; nil without it); Request, the *mcp.CallToolRequest.
//   - registry.ReportProgress(ctx, p): when the client sent a progress
//     token, a notifications/progress with that token (over streamable
//     HTTP, on the call's own stream); without a token it does nothing and
//     returns nil. MCP requires progress to increase: a report whose
//     Progress is not above the previous one of the call is not sent, and
//     ReportProgress returns an error saying so (as it does when delivery
//     fails; a tool may ignore both).
//   - registry.ClientLog(ctx, level, data): a notifications/message under
//     the tool's name, sent only when the client has set a level at or
//     below it (logging/setLevel, or the request's own level from protocol
//     2026-07-28); servers from NewServer advertise the logging capability.
//   - registry.Sample and registry.Elicit: sampling/createMessage and
//     elicitation/create on the call's session. A client that did not
//     declare the capability gets no request: the call returns an error
//     wrapping registry.ErrUnsupported at once. On protocol 2026-07-28 the
//     go-sdk forbids requests from inside a call and returns its own error
//     at once (toolpack does not implement that version's multi-round-trip
//     input requests yet).
//
// Clients on the TypeScript SDK may drop a progress notification that
// arrives together with the call's response (the SDK handles the response
// first): the last report of a call may never reach them, so a tool should
// not put anything in it that the result does not also say.
package mcpserver
