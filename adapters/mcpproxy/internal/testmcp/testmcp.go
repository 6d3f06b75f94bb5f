// Package testmcp builds the small MCP server the mcpproxy tests talk to: the
// same tools whether it runs in process (in-memory transports, streamable
// HTTP) or as a child process over stdio (see ../testserver).
//
// Tools:
//
//   - echo(text, upper=false): returns text, upper-cased when upper is true.
//   - add(a, b): structured result {"sum": a+b} with an output schema.
//   - fail(): a tool error (isError) with a fixed text.
//   - broken(): a JSON-RPC protocol error (code -32001).
//   - pid(): the process id, as text.
//   - wait(): blocks until the call is cancelled.
//   - raw(...): returns the raw arguments it received, as text.
//
// Options.Extra adds tools extra_000, extra_001, … to exercise pagination.
package testmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FailText is the error text of the fail tool.
const FailText = "the remote tool failed on purpose"

// BrokenCode and BrokenMessage describe the JSON-RPC error of the broken tool.
const (
	BrokenCode    = -32001
	BrokenMessage = "broken on purpose"
)

// Options configure New. The zero value serves the base tools with the SDK's
// default page size.
type Options struct {
	// Name is the server implementation name; empty means "testmcp".
	Name string
	// Extra adds that many tools named extra_000, extra_001, …
	Extra int
	// PageSize is the tools/list page size; zero means the SDK default.
	PageSize int
	// Rename, when set, maps each base tool name to the name served (used to
	// provoke clashes and invalid names).
	Rename func(name string) string
	// WaitStarted, when set, receives a value (without blocking) each time
	// the wait tool starts, so that tests can cancel a call in flight.
	WaitStarted chan<- struct{}
}

// BaseTools lists the names of the tools every server has.
func BaseTools() []string {
	return []string{"add", "broken", "echo", "fail", "pid", "raw", "wait"}
}

// New returns a server with the test tools.
func New(opts Options) *mcp.Server {
	name := opts.Name
	if name == "" {
		name = "testmcp"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"},
		&mcp.ServerOptions{PageSize: opts.PageSize})
	rename := opts.Rename
	if rename == nil {
		rename = func(n string) string { return n }
	}
	add := func(t *mcp.Tool, h mcp.ToolHandler) {
		t.Name = rename(t.Name)
		s.AddTool(t, h)
	}
	add(&mcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Echo the text back.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"upper":{"type":"boolean","default":false,"description":"Upper-case the text"},` +
			`"text":{"type":"string","description":"Text to echo"}},"required":["text"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Text  *string `json:"text"`
			Upper bool    `json:"upper"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Text == nil {
			return errorResult("text: expected a string"), nil
		}
		out := *in.Text
		if in.Upper {
			out = strings.ToUpper(out)
		}
		return textResult(out), nil
	})
	add(&mcp.Tool{
		Name:         "add",
		Description:  "Add two numbers.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","description":"First addend"},"b":{"type":"number","description":"Second addend"}},"required":["a","b"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`),
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false)},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ A, B float64 }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return errorResult("a, b: expected numbers"), nil
		}
		sum := map[string]any{"sum": in.A + in.B}
		js, _ := json.Marshal(sum)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(js)}}, StructuredContent: sum}, nil
	})
	add(&mcp.Tool{Name: "fail", Description: "Always fails.", InputSchema: emptySchema()},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return errorResult(FailText), nil
		})
	add(&mcp.Tool{Name: "broken", Description: "Always answers with a protocol error.", InputSchema: emptySchema()},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: BrokenCode, Message: BrokenMessage}
		})
	add(&mcp.Tool{Name: "pid", Description: "The server's process id.", InputSchema: emptySchema()},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(strconv.Itoa(os.Getpid())), nil
		})
	add(&mcp.Tool{Name: "wait", Description: "Blocks until cancelled.", InputSchema: emptySchema()},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if opts.WaitStarted != nil {
				select {
				case opts.WaitStarted <- struct{}{}:
				default:
				}
			}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	add(&mcp.Tool{Name: "raw", Description: "Returns the raw arguments.",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":true}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(string(req.Params.Arguments)), nil
		})
	for i := range opts.Extra {
		n := fmt.Sprintf("extra_%03d", i)
		add(&mcp.Tool{Name: n, Description: "Extra tool " + n + ".", InputSchema: emptySchema()},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return textResult(n), nil
			})
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func emptySchema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func errorResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
