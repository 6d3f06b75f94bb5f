package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// EchoArgs are the arguments of the examples' tool.
type EchoArgs struct {
	Text string `json:"text" validate:"required,max=100" description:"The text to echo."`
}

func echo(_ context.Context, a EchoArgs) (result.Result[string], error) {
	if a.Text == "secret" {
		return result.Failure[string]("that text is not echoed", result.PermissionDenied), nil
	}
	return result.Ok("**" + a.Text + "**"), nil
}

// exampleRegistry is a registry holding the echo tool, without a name prefix.
func exampleRegistry() *registry.Registry {
	reg := registry.New(registry.Options{Prefix: new("")})
	tool, err := registry.Func("echo", echo, registry.ToolOptions{Title: "Echo", Doc: "Echoes text in bold."})
	if err != nil {
		log.Fatal(err)
	}
	if err := reg.Add(tool); err != nil {
		log.Fatal(err)
	}
	return reg
}

// Serve a registry with NewServer and call a tool from an SDK client over
// in-memory transports. DisplayValue shows the tool's Markdown and nothing
// else; a domain failure is a tool result with isError set.
func ExampleNewServer() {
	ctx := context.Background()
	srv := mcpserver.NewServer(exampleRegistry(), mcpserver.Options{Implementation: &sdk.Implementation{Name: "demo", Version: "v1"}, Display: mcpserver.DisplayValue, Logger: slog.New(slog.DiscardHandler)})

	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	for _, text := range []string{"hello", "secret"} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError=%v %s\n", res.IsError, res.Content[0].(*sdk.TextContent).Text)
	}
	// Output:
	// isError=false **hello**
	// isError=true that text is not echoed
}

// Register a registry's tools on a server the host already has, beside its
// own tools; DisplayEnvelope shows the whole Result JSON.
func ExampleRegister() {
	ctx := context.Background()
	srv := sdk.NewServer(&sdk.Implementation{Name: "host"}, &sdk.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	unregister := mcpserver.Register(srv, exampleRegistry(), mcpserver.Options{Display: mcpserver.DisplayEnvelope, Logger: slog.New(slog.DiscardHandler)})
	defer unregister()

	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// {"success":true,"value":"**hi**"}
}

// Mount the streamable HTTP transport on a host's own mux.
func ExampleHTTPHandler() {
	ctx := context.Background()
	srv := mcpserver.NewServer(exampleRegistry(), mcpserver.Options{Logger: slog.New(slog.DiscardHandler)})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{}))
	hs := httptest.NewServer(mux)
	defer hs.Close()

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "client"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name, "-", t.Title)
	}
	// Output:
	// echo - Echo
}

// Display names print in logs and errors.
func ExampleDisplay_String() {
	fmt.Println(mcpserver.DisplayEnvelope, mcpserver.DisplayValue)
	// Output: envelope value
}

// ExampleIOTransport serves a registry over a reader and a writer (here
// fixed input and a buffer; a host would pass its stdin and stdout, or use
// ServeStdio). A malformed line is answered with a JSON-RPC error and the
// session goes on; at the end of input the answers to the calls read are
// written before Run returns.
func ExampleIOTransport() {
	quiet := slog.New(slog.DiscardHandler)
	srv := mcpserver.NewServer(exampleRegistry(), mcpserver.Options{Implementation: &sdk.Implementation{Name: "demo", Version: "v1"}, Logger: quiet})
	in := strings.NewReader("this is not JSON\n" +
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"doc","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}` + "\n")
	var out bytes.Buffer
	if err := srv.Run(context.Background(), &mcpstdio.IOTransport{Reader: in, Writer: &out, Logger: quiet}); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
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
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			log.Fatal(err)
		}
		switch {
		case m.Error != nil:
			fmt.Println("id", m.ID, "error", m.Error.Code)
		case m.Result != nil && len(m.Result.Content) > 0:
			fmt.Println("id", m.ID, "text", m.Result.Content[0].Text)
		default:
			fmt.Println("id", m.ID, "result")
		}
	}
	// Output:
	// id <nil> error -32700
	// id 1 result
	// id 2 text **hi**
}
