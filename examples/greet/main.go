// Command greet is the smallest toolpack MCP server: one typed tool, served
// over stdio. Its tool rejects a call without a name, and an MCP client sees
// the tool's JSON Schema, generated from the same tags.
//
//	go run ./examples/greet   # speaks MCP on stdin/stdout
package main

import (
	"context"
	"log"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

type Input struct {
	Name string `json:"name" validate:"required" description:"the name of the person to greet"`
}

func greet(ctx context.Context, in Input) (result.Result[string], error) {
	return result.Ok("Hi " + in.Name), nil
}

func main() {
	reg := registry.New(registry.Options{})
	if err := registry.AddFunc(reg, "greet", greet, registry.ToolOptions{Doc: "say hi"}); err != nil {
		log.Fatal(err)
	}
	if err := mcpserver.ServeStdio(context.Background(), reg, mcpserver.Options{}); err != nil {
		log.Fatal(err)
	}
}
