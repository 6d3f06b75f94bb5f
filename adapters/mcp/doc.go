// Package mcp serves a toolpack registry over the Model Context Protocol,
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk/mcp).
//
// Its name clashes with the SDK's package, so import it under another name:
//
//	import (
//		sdk "github.com/modelcontextprotocol/go-sdk/mcp"
//		tpmcp "github.com/toolpack-go/toolpack/adapters/mcp"
//	)
//
//	srv := tpmcp.NewServer(reg, &sdk.Implementation{Name: "mytools", Version: "v1"}, tpmcp.Options{})
//	err := tpmcp.ServeStdio(ctx, srv)                 // MCP over stdin/stdout, or
//	mux.Handle("/mcp", tpmcp.HTTPHandler(srv, nil))   // streamable HTTP on the host's mux
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
// # Stdio transport
//
// ServeStdio and ServeIO run on this package's StdioTransport and
// IOTransport rather than the SDK's: same newline-delimited framing, but
// on Linux a stdin pipe or socket is read through the runtime's poller with
// no goroutine hop (with GOMAXPROCS=1 a goroutine blocked in a stdin read
// costs examples/oj a third of its calls per second), each message is
// decoded once, and malformed input is answered with a JSON-RPC error
// (-32700 for a line that is not JSON, -32600 for a batch, a non-message or
// a line over the cap) instead of ending the session. At the end of input
// the session first waits, briefly and boundedly, for the answers to the
// calls it has read. Over OS pipes a tools/call takes 0.88–0.92× the time
// it takes on the SDK's transport, client included (BenchmarkStdioTransport).
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
// "instruction":…,"error_data":…}. DisplayEnvelope is the default;
// Options.DisplayFor lets a host show some tools' plain values (the OJ pack
// shows its Markdown and nothing else).
//
// A tool the SDK cannot serve (input schema missing, not an object schema
// with "type":"object", or refused by the SDK) is skipped and logged at
// ERROR; the others are served. Nothing in this package writes to stdout.
//
// # Requirements and tests
//
// Issue 3, adapters/mcp, requirement → test (mcp_test.go unless noted):
//
//	one call registers every tool, raw path,
//	  registry's schemas/title/annotations        TestListShowsSchemasAndAnnotations, ExampleRegister
//	calls go through Registry.Invoke only          TestNilArgumentsBecomeEmptyObject,
//	                                               TestValidationFailureFromArgsListsEveryField
//	validation failure → isError, every field      TestValidationFailureListsEveryField,
//	                                               TestValidationFailureFromArgsListsEveryField,
//	                                               TestPropertyValidationListsEveryField (mapping_internal_test.go)
//	domain failure → isError with failure text     TestDomainFailure_ValueDisplay, TestDomainFailure_EnvelopeDisplay
//	success string → one text content              TestCallStringValue_ValueDisplay, TestCallStringValue_EnvelopeDisplay,
//	                                               TestPropertyValueDisplayShowsStringAsIs (mapping_internal_test.go)
//	success structured → structuredContent + JSON  TestCallStructuredValue_ValueDisplay, TestCallStructuredValue_EnvelopeDisplay
//	protocol failure → JSON-RPC error              TestProtocolFailureIsJSONRPCError, TestUnknownToolIsJSONRPCError,
//	                                               TestHandlerUnknownToolIsInvalidParams, TestProtocolErrorKinds
//	host chooses plain value or envelope           TestDisplayForOverridesDefault, TestInvalidDisplayIsClearError,
//	                                               TestMappingTable (mapping_internal_test.go)
//	run-time add/remove → tools/list + list_changed TestListChangedOnAddAndRemove, TestUnregisterRemovesTools
//	bad tools never take the server down           TestBadToolIsSkippedOthersServed, TestCheckInputSchema
//	stdio helper / streamable HTTP handler         TestServeStdio (stdio_test.go), TestServeIO,
//	                                               TestHTTPHandlerServesStreamableHTTP, ExampleHTTPHandler;
//	                                               end to end over a built binary: examples/server
//	mapping never panics on any Result             FuzzToCallToolResult (fuzz_test.go, corpus in testdata/fuzz)
//
// Stdio transport, requirement → test (transport_test.go, transport_internal_test.go,
// transport_fuzz_test.go, stdio_test.go, stdio_linux_test.go):
//
//	decodes exactly what the SDK's stdio transport  TestDecodeMessage_AgreesWithSDK (rapid), FuzzDecodeMessage,
//	  accepts, into the same message                TestDecodeMessage_RefusesNonObjects
//	writes the SDK's bytes, one line per message    TestAppendMessage_SameBytesAsSDK (rapid),
//	                                               TestAppendMessage_NewlineInResultStaysOneLine
//	malformed line → JSON-RPC error, session lives; TestTransport_MalformedLinesAnsweredSessionContinues
//	  a request's id kept, a response's never
//	line over the cap → -32600, next line read;     TestTransport_OverlongLineRejectedSessionContinues
//	  the cap excludes "\n" and "\r\n"
//	every line read or answered exactly once        TestReadStream_EveryLineReadOrAnswered (rapid), FuzzReadStream
//	malformed input logged without its content      TestTransport_MalformedInputLoggedWithoutContent
//	cancellation interrupts a pending read          TestTransport_CancelInterruptsPendingRead (polled and goroutine modes)
//	Close never waits for a Read; no answer         TestClose_NeverWaitsForARead, TestReject_NothingWrittenAfterClose
//	  written after Close
//	end of input: answers first, then the end;      TestRead_EndOfInputWaitsForAnswers, TestRead_EndOfInputWaitEndsEarly,
//	  the wait is bounded and ends on a server       TestTransport_EndOfInputWithCallsThatCannotFinish,
//	  call or Close                                  TestTransport_EndOfInputEndsSession, TestServeStdio_RegularFileStdin
//	real stdin/stdout: a pipe's own mode never      TestServeStdio (child process), TestServeStdio_SocketStdin (Linux),
//	  changed; a socket's restored after            TestTransport_RoundTripWithSDKClient
//	bad configuration is an error                   TestTransport_RequiresReaderAndWriter
//	cheaper than the SDK's transport                BenchmarkStdioTransport (bench_test.go, reports ratio)
package mcp
