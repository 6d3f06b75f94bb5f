package toolpack_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// GreetArgs are the arguments of the greet tool: the tags drive decoding,
// validation, the JSON Schema and the description's "## Arguments" list.
type GreetArgs struct {
	Name string `json:"name" validate:"required,max=64" description:"Who to greet."`
}

func greet(ctx context.Context, a GreetArgs) (result.Result[string], error) {
	return result.Ok("Hello, " + a.Name + "!"), nil
}

// Example walks the data path: a typed function becomes a registry.Tool, the
// Registry runs calls through one pipeline, and every call returns a
// result.Result — a success, or a validation failure listing every field.
func Example() {
	tool, err := registry.Func("greet", greet, registry.ToolOptions{Doc: "Greets someone by name."})
	if err != nil {
		panic(err)
	}
	reg := registry.New(registry.Options{Prefix: new("")})
	if err := reg.Add(tool); err != nil {
		panic(err)
	}
	ctx := context.Background()

	ok, _ := reg.Invoke(ctx, "greet", json.RawMessage(`{"name":"Ada"}`))
	fmt.Println(ok.Success, ok.Value)

	bad, _ := reg.Invoke(ctx, "greet", json.RawMessage(`{"nme":"Ada"}`))
	fmt.Println(bad.ErrorType)
	fmt.Println(bad.Error)

	fmt.Print(tool.Description)
	// Output:
	// true Hello, Ada!
	// validation_error
	// invalid arguments: nme: unknown field; expected one of: name; name: is required and must not be empty
	// Greets someone by name.
	//
	// ## Arguments
	//
	// - `name` (string, required): Who to greet. At most 64 characters, not empty.
}
