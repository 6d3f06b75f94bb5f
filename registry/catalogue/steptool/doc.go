// Package steptool runs catalogue tools of type "steps": tools defined as
// data whose body is a sequence of calls of other tools, each step's
// result free to feed the arguments of later steps. A steps tool saves a
// model (and its user) from making the same chain of calls by hand, and
// lets an administrator compose existing tools over the catalogue's REST
// API without writing Go.
//
// A PUT body of such a tool:
//
//	{"displayName": "Weather in a city", "isEnabled": true, "type": "steps",
//	 "argSchema": {"type": "object",
//	               "properties": {"city": {"type": "string"},
//	                              "unit": {"type": "string", "default": "C"}},
//	               "required": ["city"]},
//	 "outputSchema": {"type": "object", "required": ["temp"]},
//	 "stepsImpl": {"body": "r = geo.lookup(city={{ city }})\nweather.now(lat=r.lat, lon=r.lon, unit=\"{{ unit }}\")"}}
//
// The body is the snippet language of package registry/snippet (one tool
// call per line, `name = tool(arg=value)`, references such as
// r.items[0].url to earlier results, {{ param }} placeholders). Its
// parameters are the top-level properties of the argSchema; the catalogue
// checks the body at PUT (catalogue.ToolSpec.Validate), naming the line
// and column of every problem.
//
// In a host, give the Invoker the registry as Options.Tools, so that a
// step may call any registry tool — a Go tool, a pack's tool, another
// catalogue tool (http, go or steps), a snippet — through the whole
// pipeline:
//
//	inv, err := steptool.New(steptool.Options{Tools: reg, Logger: logger})
//	res, err := inv.Invoke(ctx, tool, json.RawMessage(`{"city":"Paris"}`))
//
// # Running
//
// The arguments (already validated against the argSchema by the caller;
// text that is not UTF-8 is still refused here, as a validation_error
// naming the field, never turned into U+FFFD) take the "default" of each
// property the call leaves out, and fill the placeholders. The steps run in order; the tool's Result is the last
// step's, checked against the tool's outputSchema when it has one (a
// mismatch is a failure of type ErrTypeOutputMismatch naming each JSON
// Pointer and keyword). A failing step stops the sequence and its failure
// is returned, naming the line and the tool; later steps do not run.
// Cancelling the context stops the sequence before the next step.
//
// Steps tools and snippets calling each other are bounded together by
// snippet.MaxNesting (the depth travels in the context through the
// registry): a tool that calls itself ends with a failure of type
// snippet.ErrorType, never a stack overflow.
//
// Compiled tools (parsed body, defaults, output schema) are cached by
// tool ID, version and ModifiedAt, at most Options.MaxTools.
package steptool
