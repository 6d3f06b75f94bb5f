// Package registry holds tools, packs and the one invoke pipeline every call
// goes through, whatever the tool's origin (a typed Go function, a catalogue
// entry defined as data, a tool proxied from a remote MCP server) and whatever
// the adapter (MCP, HTTP) that carries the call.
//
// # Tools
//
// A Tool is plain data: a name, a description, an input schema (a JSON
// object schema), an optional output schema, MCP annotations, its pack and
// source, introspection text (Usage), the error types it declares (Errors,
// with their HTTP statuses), an optional per-call timeout, optional Decode
// and CheckOutput functions and a Handler over raw JSON. Func builds one
// from a typed function
//
//	func(ctx context.Context, a A) (result.Result[R], error)
//
// taking the input schema, the arguments Markdown and the description from A
// (package args) and, when R is a struct, the output schema from R. AddFunc
// builds one and adds it to a Registry or a Pack in one call:
//
//	reg := registry.New(registry.Options{})
//	err := registry.AddFunc(reg, "greet", greet, registry.ToolOptions{Doc: "Greets someone."})
//
// # Packs
//
// A pack is a named group of tools that a package ships, built by a
// constructor taking the pack's configuration:
//
//	func New(cfg Config) (*registry.Pack, error) {
//		s := newStore(cfg)
//		p := &registry.Pack{Name: "notes", Description: "Notes kept in memory."}
//		err := errors.Join(
//			registry.AddFunc(p, "add_note", s.AddNote, registry.ToolOptions{Doc: "…"}),
//			registry.AddFunc(p, "list_notes", s.ListNotes, registry.ToolOptions{Doc: "…"}),
//		)
//		return p, err
//	}
//
// and added with Registry.AddPack, which registers all its tools or none.
// See packs/README.md in the module for the whole pattern.
//
// # What a handler sees
//
// The context a handler receives carries the call: Logger(ctx) is the
// registry's logger with the tool's name attached; ReportProgress(ctx, …)
// sends a progress notification to an MCP client that asked for one (and
// does nothing elsewhere); Request(ctx) describes the request as the
// adapter saw it — transport, MCP session, HTTP headers and the
// authenticated caller (AuthInfo) — and CallFrom(ctx) returns the Call
// itself. A tool that calls another with its ctx makes a nested call
// (Call.Parent); one that passes its caller's call on, as a proxy or a
// meta-tool does, calls with Detach(ctx) so that the call counts as the
// caller's own. A tool can also talk back to an MCP client while it runs:
// ClientLog(ctx, …) sends a log message (at or above the level the client
// set), Sample(ctx, …) asks the client's model for a completion and
// Elicit(ctx, …) asks the user for input with a schema; where the client
// lacks the capability, or the call came over REST or in process, they
// fail at once with an error wrapping ErrUnsupported. A tool never
// imports an adapter: adapters attach what they know with WithProgress,
// WithRequest and WithPeer before they call Invoke.
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
// The final name of a tool is prefix_name, or name when the prefix is empty;
// a prefix that already ends in _ . or - is used as it is (guide_ gives
// guide_add).
// The default prefix is Options.Prefix when set; otherwise MCP_TOOL_PREFIX,
// read once by New (a set variable is preserved, even when empty); otherwise
// Options.FallbackPrefix, the host's default. Tool.Prefix overrides the
// default for one tool, and a pointer to "" disables it. Final names must
// match ^[A-Za-z0-9_.-]{1,128}$ (MCP): an invalid one is ErrInvalidName at
// registration. Documentation uses undecorated names; the prefix is an
// implementation detail.
//
// # Switching tools off, and aliases
//
// A host switches tools off without unregistering them — a user who does
// not want a tool, a pack whose backend is down: SetEnabled(name, false)
// switches one tool off, SetPackEnabled(pack, false) every tool of a pack,
// and a tool is on when both its own switch and its pack's are on. A tool
// switched off is absent from List, Packs and Lookup (subscribers see it
// removed, and added again when it is switched back on), and a call of it
// is answered, without running it, by a failed Result of type unavailable
// that tells the agent to let the user know the tool is switched off —
// not "unknown tool", which would send a model looking for another name.
// The switch belongs to the name: it stays when the tool is replaced
// (ReplacePack) or removed and added again. ListAll and IsEnabled show
// every tool with its switch, for administration. A tool's source can
// register it switched off too, saying how to switch it on there
// (Tool.Disabled: a catalogue tool switched off in the catalogue); its
// calls fail the same way, the message ending with that text.
//
// Aliases give tools more names without listing them: after
//
//	err := reg.SetAliases(map[string]string{"plus": "add"})
//
// a call of "plus" runs "add". Invoke resolves aliases itself, so every
// adapter takes them: through chains of aliases (at most MaxAliasDepth)
// and, under a prefix, to a tool's undecorated name; Resolve says what a
// name runs and IsAlias whether it is an alias. SetAliases replaces every
// alias at once, all or nothing. An alias may name a tool that is not
// registered yet (a remote server's tool, before the server connects):
// until it is, a call of the alias fails with type unavailable naming
// both. A tool and an alias never share a name: SetAliases refuses an
// alias named like a tool, and Add (AddPack, ReplacePack) a tool named
// like an alias, except that a pack (AddPack, ReplacePack) may take the
// name of an alias a running UpdateDropping drops, as a configuration
// reload turning an alias into a snippet of that name does; Add never
// takes one, and every other alias keeps its name meanwhile.
//
// # The pipeline
//
// Registry.Invoke(ctx, name, raw) runs, for every tool:
//
//  1. a context already done → protocol error, the handler is not called;
//  2. look up the final name or alias → ErrUnknownTool; a tool switched off,
//     or an alias whose target is not served, is answered here with a
//     failed Result of type unavailable;
//  3. Logging (seed 004 messages, see Logging);
//  4. Recover (a panic anywhere below → internal_error failure);
//  5. the middleware added with UseOuter, first added outermost: it sees
//     every call, also those the next stage refuses (statistics, tracing);
//  6. size and depth caps (Options.Decode) and the encoding (arguments
//     that are not UTF-8, which JSON text must be, are refused with rule
//     invalid_utf8 naming the field, args.CheckUTF8 — encoding/json would
//     silently make U+FFFD of them), then Tool.Decode: a
//     *args.ValidationError becomes a validation_error failure listing every
//     field (error_data), with a nil error;
//  7. the middleware added with Use, first added outermost; it sees Call.Args;
//  8. Timeout: Tool.Timeout, else Options.Timeout (see Timeout for a handler
//     that ignores its context, and Tool.Inline for one that does not);
//  9. Recover again, on the handler's goroutine;
//  10. the handler, then output validation when the tool has CheckOutput or
//     an output schema (a violation is a protocol error wrapping
//     ErrInvalidOutput, naming the tool and listing the violations). A
//     tool built by Func checks its values on the Go side against the
//     result type's rules (Tool.CheckOutput), which agree with the schema
//     Func generated, at no marshalling cost; any other schema is compiled
//     once, at registration, with santhosh-tekuri/jsonschema and checked
//     against the value's JSON;
//  11. Options.Instructions fill in a missing instruction.
//
// The chain of every tool is built when the tool is added or middleware is
// added, never per call; a tool without an output schema never re-marshals
// its value. Domain failures come back as a failed Result with a nil error;
// a non-nil error is a protocol failure (unknown tool, context cancelled,
// invalid output, an error from the handler).
//
// # Logs
//
// The registry logs to Options.Logger (stderr in every example; never
// stdout). What each level carries:
//
//	TRACE (LevelTrace)  "Tool called: {name}" and "Tool {name} completed successfully"
//	DEBUG               "Tool {name} returned a failure: {error_type}" — for invalid
//	                    arguments the fields and rules; never the failure's text,
//	                    which is written for the model and may quote arguments
//	INFO                "Tool {name} cancelled by the caller: {error}" for a call
//	                    whose context its caller cancelled
//	ERROR               "Tool {name} failed: {error}" for a protocol failure (the
//	                    handler's error as it wrote it; an invalid output as its
//	                    locations and rules, never the value) and
//	                    "Tool {name} failed: panic: …" with the stack (a runtime
//	                    error's text, otherwise only the panic value's type)
//
// Arguments and values are never logged. Every record carries tool={name};
// a handler's own records, through Logger(ctx), carry it too.
//
// # Watching changes
//
// Subscribe tells a subscriber what each change added and removed — tools
// registered or unregistered, and tools switched off or on again — so an
// adapter keeps its own view in step at a cost proportional to the change.
// Adding or removing one tool costs the same whatever the number of tools
// registered; RemovePack costs in proportion to the pack.
//
// # Room for later features
//
// What is not built in fits around the pipeline: per-tool limits as
// middleware (Use) or as fields a middleware checks; call statistics as
// middleware added with UseOuter, which sees the tool, outcome and
// duration of every call (package stats); large-output handling as a
// middleware replacing the value with a handle (package results);
// catalogue and proxied tools are plain Tools with their own Decode,
// schemas and Source. Switching tools off and aliases are built into the
// registry (see above): they act in Invoke's lookup, before any
// middleware.
package registry
