// Package toolpack is a library for building tools that language-model agents
// call: typed Go functions (or remote MCP tools) that get strict argument
// validation, a generated JSON Schema, a stable result shape and one invoke
// pipeline, and that can be served over MCP, HTTP/JSON with OpenAPI 3.1, or
// called from a host's own agent loop.
//
// # The data path
//
// A call follows one path, one package per step:
//
//	args      argument struct + `validate`/`description` tags
//	            → strict decoder, validator, JSON Schema, schema Markdown
//	registry  registry.Func / registry.Declare build a Tool (name, schemas,
//	            annotations, pack, source, handler); a Registry holds packs
//	            and runs Invoke(ctx, name, rawJSON):
//	            look up → decode + validate → middleware → handler
//	            → output validation → result.Result[any], error
//	result    Result[T]: success or a domain failure (error, error_type,
//	            message, instruction, exception, error_data) with a stable
//	            JSON form; a non-nil error beside it is a protocol failure
//	adapters  translate a Registry to a protocol: adapters/mcpserver (official MCP
//	            Go SDK, stdio and streamable HTTP), adapters/httpapi (REST +
//	            OpenAPI 3.1), adapters/mcpproxy (remote MCP servers as packs)
//	packs     ready-made tool packs (packs/example, packs/oj, …)
//
// Adapters never validate or dispatch on their own: every call, whatever the
// protocol, goes through Registry.Invoke.
//
// # Quick start
//
//	type GreetArgs struct {
//		Name string `json:"name" validate:"required,min=1,max=64" description:"Who to greet"`
//	}
//
//	greet, err := registry.Func("greet",
//		func(ctx context.Context, a GreetArgs) (result.Result[string], error) {
//			return result.Ok("Hello, " + a.Name + "!"), nil
//		},
//		registry.ToolOptions{Doc: "Greets someone by name."})
//	if err != nil { … }
//	reg := registry.New(registry.Options{})
//	if err := reg.Add(greet); err != nil { … }
//	res, err := reg.Invoke(ctx, "greet", json.RawMessage(`{"name":"Ada"}`))
//
// A bad call such as {"nme":"Ada"} comes back as a failed Result with
// error_type validation_error listing every field error at once, which is
// what lets a model correct its own call. To serve the registry over MCP see
// adapters/mcpserver; over HTTP see adapters/httpapi; examples/server does both.
package toolpack
