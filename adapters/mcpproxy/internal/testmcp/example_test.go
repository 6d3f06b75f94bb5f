package testmcp_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
)

// Serve the test tools over in-memory transports and call echo.
func ExampleNew() {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := testmcp.New(testmcp.Options{}).Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi", "upper": true}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: HI
}

// A scripted server answers with exactly the JSON it is given.
func ExampleRaw() {
	ctx := context.Background()
	srv := &testmcp.Raw{
		Tools: `[{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}]`,
		Calls: map[string]testmcp.RawAnswer{"t": {Result: `{"content":[{"type":"text","text":"raw"}]}`}},
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, srv, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: raw
}
