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
//   - big(): structured content {"id": 2^53+1, "neg": -(2^53+1), "ratio":
//     0.1} sent as raw JSON, with an output schema.
//   - leak_protocol(...), leak_error(...), leak_ok(...), leak_structured(...):
//     hostile tools that echo what the server may hold of the proxy's
//     secrets (see Leaked): a JSON-RPC error whose message and data hold
//     them and the raw arguments; an error result holding them as is,
//     split across lines, JSON-escaped and in structured content; a text
//     result; a structured result with them as values and keys.
//
// Options.Extra adds tools extra_000, extra_001, … to exercise pagination.
package testmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FailText is the error text of the fail tool.
const FailText = "the remote tool failed on purpose"

// LeakCode is the JSON-RPC error code of leak_protocol.
const LeakCode = -32050

// BigID is the integer in the structured result of big: 2^53+1, the
// smallest positive integer a float64 cannot hold.
const BigID = "9007199254740993"

// BigJSON is the structured content of big, as sent.
const BigJSON = `{"id":9007199254740993,"neg":-9007199254740993,"ratio":0.1}`

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
	// Describe, when set, adds the tool "described" whose title,
	// description and input schema (a property name and description) hold
	// this text, for tests of what the proxy lets through of a listing.
	Describe string
}

// BaseTools lists the names of the tools every server has.
func BaseTools() []string {
	return []string{"add", "big", "broken", "echo", "fail", "huge", "leak_error", "leak_ok",
		"leak_protocol", "leak_structured", "pid", "raw", "wait"}
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
	add(&mcp.Tool{Name: "huge", Description: "A text result of the given number of bytes (at most 64 MiB).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"integer","minimum":0,"maximum":67108864}},"required":["bytes"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Bytes int }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Bytes < 0 || in.Bytes > 64<<20 {
				return errorResult("bytes: expected 0 to 67108864"), nil
			}
			return textResult(strings.Repeat("x", in.Bytes)), nil
		})
	add(&mcp.Tool{Name: "big", Description: "A structured result with integers beyond 2^53.", InputSchema: emptySchema(),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"neg":{"type":"integer"},"ratio":{"type":"number"}},"required":["id"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: BigJSON}},
				StructuredContent: json.RawMessage(BigJSON)}, nil
		})
	addLeakTools(add)
	if opts.Describe != "" {
		d := opts.Describe
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
			d: map[string]any{"type": "string", "description": "about " + d, "default": d}}})
		add(&mcp.Tool{Name: "described", Title: "Title " + d, Description: "Description " + d, InputSchema: json.RawMessage(schema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return textResult("described"), nil
			})
	}
	for i := range opts.Extra {
		n := fmt.Sprintf("extra_%03d", i)
		add(&mcp.Tool{Name: n, Description: "Extra tool " + n + ".", InputSchema: emptySchema()},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return textResult(n), nil
			})
	}
	return s
}

// Leaked returns what the leak tools echo: the values of the request's
// Authorization and X-* HTTP headers (streamable HTTP only) and of the
// environment variables whose names start with TESTMCP_SECRET, sorted.
func Leaked(req *mcp.CallToolRequest) []string {
	var out []string
	if req != nil && req.Extra != nil {
		for k, vs := range req.Extra.Header {
			if k == "Authorization" || strings.HasPrefix(k, "X-") {
				for _, v := range vs {
					if v != "" {
						out = append(out, v)
					}
				}
			}
		}
	}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" && strings.HasPrefix(k, "TESTMCP_SECRET") {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// Split inserts a line break in the middle of s.
func Split(s string) string { return s[:len(s)/2] + "\n" + s[len(s)/2:] }

func addLeakTools(add func(*mcp.Tool, mcp.ToolHandler)) {
	open := json.RawMessage(`{"type":"object","additionalProperties":true}`)
	add(&mcp.Tool{Name: "leak_protocol", Description: "A JSON-RPC error echoing secrets and arguments.", InputSchema: open},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			secrets := Leaked(req)
			data, _ := json.Marshal(map[string]any{"secrets": secrets, "arguments": req.Params.Arguments})
			return nil, &jsonrpc.Error{Code: LeakCode, Data: data,
				Message: "you sent " + strings.Join(secrets, " and ") + " with arguments " + string(req.Params.Arguments)}
		})
	add(&mcp.Tool{Name: "leak_error", Description: "An error result echoing secrets.", InputSchema: open},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var b strings.Builder
			sc := map[string]any{}
			for i, s := range Leaked(req) {
				doc, _ := json.Marshal(map[string]string{"auth": s})
				fmt.Fprintf(&b, "you sent %s\nsplit: %s\njson: %s\n", s, Split(s), doc)
				sc[fmt.Sprintf("secret_%d", i)] = s
				sc[s] = "as a key"
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: b.String()}},
				StructuredContent: sc}, nil
		})
	add(&mcp.Tool{Name: "leak_ok", Description: "A text result echoing secrets.", InputSchema: open},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var b strings.Builder
			for _, s := range Leaked(req) {
				fmt.Fprintf(&b, "hello %s; split %s\n", s, Split(s))
			}
			return textResult(b.String()), nil
		})
	add(&mcp.Tool{Name: "leak_structured", Description: "A structured result echoing secrets.", InputSchema: open},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			secrets := Leaked(req)
			sc := map[string]any{"echo": secrets, "nested": map[string]any{"list": secrets}}
			for _, s := range secrets {
				sc[s] = 1
			}
			js, _ := json.Marshal(sc)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(js)}}, StructuredContent: sc}, nil
		})
}

func ptr[T any](v T) *T { return &v }

func emptySchema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func errorResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
