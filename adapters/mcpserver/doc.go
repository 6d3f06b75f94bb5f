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
//	mux.Handle("/mcp", mcpserver.HTTPHandler(srv, nil))
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
