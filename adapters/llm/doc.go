// Package llm puts a registry's tools into a host's own agent loop: it
// writes the tools as a model provider's tool definitions and runs the
// model's tool calls through the registry, answering with the provider's
// tool-result messages.
//
// # Tool definitions
//
// Export writes the registry's enabled tools in one provider's format —
// OpenAI Chat Completions or Responses function tools (plain or strict),
// Anthropic tools, Gemini function declarations — as JSON that unmarshals
// into the provider SDK's own parameter types:
//
//	defs, err := llm.Export(reg, llm.OpenAIChat, llm.Options{Strict: true})
//	var tools []openai.ChatCompletionToolUnionParam
//	err = json.Unmarshal(defs.JSON(), &tools)
//
// Providers take less than JSON Schema, and each a different part of it.
// Export rewrites each tool's input schema to fit, and says what it did in
// Definitions.Issues, tool by tool: a keyword rewritten into an equivalent
// or looser form is Adapted (a oneOf as anyOf; a default stated in the
// description; in strict mode, an optional property made required and
// nullable; an object of any properties, which strict mode cannot say,
// sent as a string holding its JSON and read back by the Dispatcher), a
// keyword the provider has no way to say is Dropped, and a tool that
// cannot be said at all (a value of any type in strict mode or for
// Gemini, a recursive schema) is Excluded and left out. Nothing is lost silently, and nothing a provider refuses is
// sent: calls are always checked against the tool's own schema when they
// arrive, so a dropped constraint still holds and its failure tells the
// model what to fix.
//
// Names: OpenAI and Anthropic take only letters, digits, '_' and '-' (at
// most 64), so a dotted tool name such as ot.tools is sent as ot_tools;
// Definitions.Lookup maps it back. Gemini takes dots.
//
// # Running tool calls
//
// A Dispatcher runs a model's tool calls (several at once, bounded by
// DispatchOptions.MaxConcurrent) through Registry.Invoke — the same
// pipeline as MCP and REST: decoding, validation, middleware, output
// checks — and returns one Outcome per call in call order. Messages turns
// them into the provider's tool-result messages: text everywhere, images
// where the provider's tool results take them (Responses, Anthropic,
// Gemini), a line describing the item otherwise.
//
// What the model reads is written for it to act on: a validation failure
// lists every field problem at once; an unknown tool is named; a protocol
// failure says only its kind (timeout, cancelled), never the error's text.
//
// Reading arguments: with a strict-mode export, a null the model sent for
// an optional field (strict mode makes it send one) is read as absent.
// DispatchOptions.Lenient, off by default, also accepts what sloppy models
// send — an arguments object passed as a JSON string, "5" for an integer,
// "true" for a boolean — and tells the model in the result what it read
// differently.
//
// Approval: with DispatchOptions.Approve set, a call of a tool whose
// Destructive hint is true (every tool taking a consent phrase has it)
// waits for the host's decision: approve and run, deny with a reason the
// model reads, or pause — the Outcome then carries a Pending call, plain
// JSON the host stores and hands to Dispatcher.Resume later, perhaps in
// another process.
package llm
