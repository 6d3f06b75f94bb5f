package mcpgo_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpgo"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

type greetArgs struct {
	Name string `json:"name" validate:"required,max=50" description:"Who to greet."`
}

// A registry served on mcp-go and called with mcp-go's own client: the
// tool's answer, and a bad call refused with every problem listed.
func ExampleNewServer() {
	quiet := slog.New(slog.DiscardHandler)
	reg := registry.New(registry.Options{Logger: quiet})
	_ = registry.AddFunc(reg, "greet", func(_ context.Context, a greetArgs) (result.Result[string], error) {
		return result.Ok("Hello, " + a.Name), nil
	}, registry.ToolOptions{Doc: "Greets someone."})
	s := mcpgo.NewServer(reg, mcpgo.Options{Name: "example", Logger: quiet})

	c, _ := client.NewInProcessClient(s)
	defer c.Close()
	ctx := context.Background()
	_ = c.Start(ctx)
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	_, _ = c.Initialize(ctx, init)
	for _, args := range []map[string]any{{"name": "Ada"}, {"nom": "Ada"}} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "greet", args
		r, err := c.CallTool(ctx, req)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r.IsError, r.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// false Hello, Ada
	// true invalid arguments (2 problems); correct every one and call again:
	// - nom: unknown field; expected one of: name [unknown_field]
	// - name: is required and must not be empty [required]
}
