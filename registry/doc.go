// Package registry holds tools, packs and the one invoke pipeline every call
// goes through, whatever the tool's origin (a typed Go function, a catalogue
// entry defined as data, a tool proxied from a remote MCP server) and whatever
// the adapter (MCP, HTTP) that carries the call.
//
// # Tools
//
// A Tool is a name, a description, an input schema (a JSON object schema), an
// optional output schema, MCP annotations, its pack and source, introspection
// text, an optional per-call timeout, an optional Decode function and a
// Handler over raw JSON. Func builds one from a typed function
//
//	func(ctx context.Context, a A) (result.Result[R], error)
//
// taking the input schema, the arguments Markdown and the description from A
// (package args) and, when R is a struct, the output schema from R.
//
// # Declare and collect
//
// Declare (default collection) and DeclareIn (a Collection of one's own) add
// a typed function to a collection and return it unchanged; Collect returns
// every declared tool and clears the collection, so a second Collect returns
// nothing and no tool is registered twice. A bad declaration (invalid name,
// unsupported tag) is recorded and reported by the next Collect.
//
// # Names
//
// The final name of a tool is prefix_name, or name when the prefix is empty.
// The default prefix is Options.Prefix when set; otherwise MCP_TOOL_PREFIX,
// read once by New (a set variable is preserved, even when empty); otherwise
// Options.FallbackPrefix, the host's default. Tool.Prefix overrides the
// default for one tool, and a pointer to "" disables it. Final names must
// match ^[A-Za-z0-9_.-]{1,128}$ (MCP): an invalid one is ErrInvalidName at
// registration. Documentation uses undecorated names; the prefix is an
// implementation detail.
//
// # The pipeline
//
// Registry.Invoke(ctx, name, raw) runs, for every tool:
//
//  1. a context already done → protocol error, the handler is not called;
//  2. look up the final name → ErrUnknownTool;
//  3. Logging (seed 004 messages, see Logging);
//  4. Recover (a panic anywhere below → internal_error failure);
//  5. size and depth caps (Options.Decode), then Tool.Decode: a
//     *args.ValidationError becomes a validation_error failure listing every
//     field (error_data), with a nil error;
//  6. the middleware added with Use, first added outermost; it sees Call.Args;
//  7. Timeout: Tool.Timeout, else Options.Timeout (see Timeout for a handler
//     that ignores its context);
//  8. Recover again, on the handler's goroutine;
//  9. the handler, then output validation when the tool has an output schema
//     (a violation is a protocol error wrapping ErrInvalidOutput, naming the
//     tool and listing every violation). A schema that Func generated from
//     the result type is checked with args.Validate on the Go value — the
//     args agreement property makes that the same verdict as the schema, at
//     no marshalling cost (TestOutput_TypedCheckAgreesWithSchema); any other
//     schema is compiled once, at registration, with
//     santhosh-tekuri/jsonschema and checked against the value's JSON;
//  10. Options.Instructions fill in a missing instruction.
//
// The chain of every tool is built when the tool is added or middleware is
// added, never per call; a tool without an output schema never re-marshals
// its value. Domain failures come back as a failed Result with a nil error;
// a non-nil error is a protocol failure (unknown tool, context cancelled,
// invalid output, an error from the handler).
//
// # Room for later features
//
// Enable/disable and per-tool limits fit as middleware (Use) or as fields
// checked by a middleware; aliases resolve names before Invoke; a statistics
// middleware sees the tool, outcome and duration of every call; large-output
// handling is a middleware replacing the value with a handle; catalogue and
// proxied tools are plain Tools with their own Decode, schemas and Source.
package registry
