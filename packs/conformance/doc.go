// Package conformance is a pack of the test tools the official MCP
// conformance suite (@modelcontextprotocol/conformance) calls, written as
// ordinary toolpack tools: rich content (text, image, audio, embedded
// resources, mixed items), a domain failure, and tools that talk back to
// the client while they run (log messages, progress, sampling,
// elicitation with defaults and enums), plus a tool whose input schema
// uses JSON Schema 2020-12 keywords ($schema, $defs).
//
// A host serves it like any pack; examples/conformance is such a host:
//
//	p, err := conformance.New(conformance.Options{})
//	if err != nil { … }
//	reg.AddPack(p)
//
// The tools double as runnable examples of the result and registry APIs
// they use: result.Rich and its item constructors, registry.ClientLog,
// registry.ReportProgress, registry.Sample and registry.Elicit.
package conformance
