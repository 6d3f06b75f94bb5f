package mcpstdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
)

// An MCP server over IOTransport, fed a client's lines: a malformed line
// gets a JSON-RPC error instead of ending the session, and a client that
// writes its requests and closes its side still gets every answer.
// Transport is the same over os.Stdin and os.Stdout.
func ExampleIOTransport() {
	server := sdk.NewServer(&sdk.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type in struct {
		Name string `json:"name"`
	}
	sdk.AddTool(server, &sdk.Tool{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, _ *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Hello, " + a.Name}}}, nil, nil
		})

	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`this is not JSON`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	tr := &mcpstdio.IOTransport{Reader: strings.NewReader(client), Writer: &out, Logger: slog.New(slog.DiscardHandler)}
	if err := server.Run(context.Background(), tr); err != nil {
		fmt.Println("run:", err)
	}

	// The parse error is written as soon as the line is read, so answers
	// are shown by id rather than in the order they were written.
	answers := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID     any `json:"id"`
			Result *struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			fmt.Println("not JSON:", line)
			continue
		}
		id := fmt.Sprint(msg.ID)
		switch {
		case msg.Error != nil:
			answers[id] = fmt.Sprint("error ", msg.Error.Code)
		case len(msg.Result.Content) > 0:
			answers[id] = msg.Result.Content[0].Text
		default:
			answers[id] = "initialized"
		}
	}
	for _, id := range []string{"1", "2", "<nil>"} {
		fmt.Println("id", id, answers[id])
	}
	// Output:
	// id 1 initialized
	// id 2 Hello, Ada
	// id <nil> error -32700
}
