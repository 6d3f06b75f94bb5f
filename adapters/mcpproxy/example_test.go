package mcpproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/registry"
)

// Mirror a remote MCP server (here an in-process go-sdk server reached over
// in-memory transports) as the pack "weather" and call its tool through the
// registry.
func Example() {
	ctx := context.Background()

	remote := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	remote.AddTool(&mcp.Tool{
		Name:        "forecast",
		Description: "Forecast for a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"city":{"type":"string","description":"City name"},
			"days":{"type":"integer","default":1,"description":"Days ahead"}},"required":["city"]}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ City string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny in " + in.City}}}, nil
	})
	connect := func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := remote.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}

	reg := registry.New(registry.Options{Prefix: new("")})
	p, err := mcpproxy.New(ctx, reg, []mcpproxy.Config{{Name: "weather", Transport: connect}},
		mcpproxy.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	tool, _ := reg.Lookup("weather.forecast")
	fmt.Println(tool.Pack, tool.Source)
	fmt.Println(tool.Usage.Signature)
	fmt.Println(tool.Usage.Args)
	res, err := reg.Invoke(ctx, "weather.forecast", json.RawMessage(`{"city":"Oslo"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Value)
	st := p.Status()[0]
	fmt.Println(st.Name, st.State, st.Tools, p.Health())
	// Output:
	// weather proxy:weather
	// weather.forecast(city: str, days: int = 1)
	// city: City name
	// days: Days ahead
	// Sunny in Oslo
	// weather connected 1 ok
}

// A server that cannot be reached is marked disconnected; the proxy still
// starts and reports it.
func ExampleProxy_Status() {
	unreachable := func(context.Context) (mcp.Transport, error) {
		return nil, errors.New("connection refused")
	}
	reg := registry.New(registry.Options{Prefix: new("")})
	p, err := mcpproxy.New(context.Background(), reg,
		[]mcpproxy.Config{{Name: "down", Transport: unreachable}},
		mcpproxy.Options{Logger: slog.New(slog.DiscardHandler), Backoff: mcpproxy.Backoff{MaxTries: 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	for _, st := range p.Status() {
		fmt.Println(st.Name, st.State, st.LastError)
	}
	fmt.Println(p.Health())
	// Output:
	// down disconnected mcpproxy: server "down": creating the transport: connection refused
	// degraded
}

// Invalid configuration names the server and the field.
func ExampleNew_invalidConfig() {
	_, err := mcpproxy.New(context.Background(), registry.New(registry.Options{}), []mcpproxy.Config{
		{Name: "github", Command: []string{"github-mcp"}, URL: "https://example.invalid/mcp"},
	}, mcpproxy.Options{})
	fmt.Println(err)
	fmt.Println(errors.Is(err, mcpproxy.ErrInvalidConfig))
	// Output:
	// mcpproxy: server "github": field Command/URL/Transport: expected exactly one of Command, URL and Transport, got 2
	// true
}

// The signature and argument lines of a proxied tool come from its schema:
// required parameters first, then optional ones, in the schema's order.
func ExampleSignature() {
	sig, args := mcpproxy.Signature("github.search", json.RawMessage(`{"type":"object","properties":{
		"repo":{"type":"string","description":"owner/name"},
		"query":{"type":"string","description":"Search terms"},
		"per_page":{"type":"integer","default":30}},"required":["query"]}`))
	fmt.Println(sig)
	fmt.Println(args)
	// Output:
	// github.search(query: str, repo: str = '...', per_page: int = 30)
	// query: Search terms
	// repo: owner/name
	// per_page: (no description)
}

// Proxied tools are named "{server}.{remote tool}".
func ExampleToolName() {
	fmt.Println(mcpproxy.ToolName("github", "search_issues"))
	// Output: github.search_issues
}

// Change the servers of a running proxy: the server "weather" is added,
// later removed, without restarting anything else.
func ExampleProxy_Reconfigure() {
	ctx := context.Background()
	remote := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	remote.AddTool(&mcp.Tool{Name: "forecast", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny"}}}, nil
		})
	connect := func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := remote.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	reg := registry.New(registry.Options{Prefix: new("")})
	p, err := mcpproxy.New(ctx, reg, nil, mcpproxy.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	if err := p.Reconfigure(ctx, []mcpproxy.Config{{Name: "weather", Transport: connect}}); err != nil {
		fmt.Println(err)
		return
	}
	res, _ := reg.Invoke(ctx, "weather.forecast", nil)
	fmt.Println(res.Value)
	_ = p.Reconfigure(ctx, nil)
	_, err = reg.Invoke(ctx, "weather.forecast", nil)
	fmt.Println(errors.Is(err, registry.ErrUnknownTool))
	// Output:
	// Sunny
	// true
}
