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
// Register puts every tool of a registry on a host's own *sdk.Server through
// the SDK's raw tool path (Server.AddTool), with the registry's own name,
// title, description, input schema, output schema and annotations, and keeps
// the server in sync through Registry.Subscribe: tools added or removed at
// run time appear in or vanish from tools/list, and the SDK sends
// notifications/tools/list_changed to connected clients.
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
//     its memory and goroutines freed; its client gets 404 and starts anew;
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
// string, got a number"), where the SDK would name Go types. HTTPHandler
// does it for HTTP, ServeStdio for stdio, CheckParams for any other
// transport.
//
// The SDK logs each session's start, initialization and end at INFO; the
// server NewServer builds logs them at DEBUG.
//
// # Mapping
//
//	pipeline outcome                        MCP response
//	--------------------------------------  -----------------------------------------------
//	success, string value                   one text content: the string (DisplayValue)
//	                                        or the Result JSON envelope (DisplayEnvelope)
//	success, structured value (any other)   structuredContent = the value's JSON, plus one
//	                                        text content: that JSON (DisplayValue) or the
//	                                        envelope (DisplayEnvelope); a nil value has no
//	                                        structuredContent
//	validation failure                      isError: true; text lists every field error of
//	  (error_type validation_error,          error_data as "- field: message [rule]" lines
//	   error_data []args.FieldError)         (DisplayValue) or the envelope, whose error_data
//	                                        holds them all (DisplayEnvelope)
//	other domain failure                    isError: true; text is the error text and the
//	                                        instruction (DisplayValue) or the envelope
//	non-nil error from Invoke               JSON-RPC error, never a tool result:
//	  unknown tool (registry.ErrUnknownTool)  -32602 invalid params, "unknown tool \"x\""
//	  cancelled / timed out                   -32603, "tool \"x\": call cancelled|timed out"
//	  anything else                           -32603 with a fixed message; the error itself
//	                                          is logged at ERROR, never sent to the client
//	value or error_data that cannot marshal JSON-RPC -32603 (logged), as above
//	invalid Display value                   JSON-RPC -32603 naming Options.Display
//
// The envelope is the JSON form of result.Result (seed 004's to_json_str):
// {"success":…,"value":…,"error":…,"error_type":…,"message":…,
// "instruction":…,"error_data":…}. DisplayValue is the default: a model
// reads the answer itself, not a JSON wrapper around it on every call;
// DisplayEnvelope is for agents written to read every field of a Result,
// and Options.DisplayFor chooses per tool.
//
// A tool the SDK cannot serve (input schema missing, not an object schema
// with "type":"object", or refused by the SDK) is skipped and logged at
// ERROR; the others are served. Nothing in this package writes to stdout.
package mcpserver
