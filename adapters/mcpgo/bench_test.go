package mcpgo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpgo"
	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

var benchArgs = json.RawMessage(`{"query":"golang mcp","limit":10,"mode":"fast","threshold":0.5,"tags":["go","sdk","bench"]}`)

func startClient(b testing.TB, s *server.MCPServer) *client.Client {
	b.Helper()
	c, err := client.NewInProcessClient(s)
	require.NoError(b, err)
	b.Cleanup(func() { _ = c.Close() })
	require.NoError(b, c.Start(context.Background()))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "0"}
	_, err = c.Initialize(context.Background(), init)
	require.NoError(b, err)
	return c
}

// adapterClient serves the 5-field search tool through this adapter (the
// registry pipeline: strict decode, validation, output check, shared
// mapping).
func adapterClient(b testing.TB) *client.Client { return adapterClientWith(b, false) }

// adapterClientWith is adapterClient with the tool run Inline (on the
// caller's goroutine) or not.
func adapterClientWith(b testing.TB, inline bool) *client.Client {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: quiet})
	tool, err := registry.Func("search", func(_ context.Context, a benchtool.SearchArgs) (result.Result[benchtool.SearchOut], error) {
		return result.Ok(benchtool.Search(a)), nil
	}, registry.ToolOptions{Doc: "Searches.", Inline: inline})
	require.NoError(b, err)
	require.NoError(b, reg.Add(tool))
	return startClient(b, mcpgo.NewServer(reg, mcpgo.Options{Logger: quiet}))
}

// typedClient serves the same function through mcp-go's typed structured
// handler, with the same input schema and the same validation
// (validator.Struct), answering with the same structured content.
func typedClient(b testing.TB) *client.Client {
	in, err := args.SchemaFor[benchtool.SearchArgs]()
	require.NoError(b, err)
	v := validator.New(validator.WithRequiredStructEnabled())
	s := server.NewMCPServer("typed", "0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewToolWithRawSchema("search", "Searches.", in), mcp.NewStructuredToolHandler(
		func(_ context.Context, _ mcp.CallToolRequest, a benchtool.SearchArgs) (benchtool.SearchOut, error) {
			if err := v.Struct(a); err != nil {
				return benchtool.SearchOut{}, err
			}
			return benchtool.Search(a), nil
		}))
	return startClient(b, s)
}

func callSearch(b testing.TB, c *client.Client, raw json.RawMessage) *mcp.CallToolResult {
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = raw
	r, err := c.CallTool(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// The benchmark compares like with like: both accept the call with the
// same structured value and refuse the same bad call.
func TestBenchmarkToolsAgree(t *testing.T) {
	ours, theirs := adapterClient(t), typedClient(t)
	r1, r2 := callSearch(t, ours, benchArgs), callSearch(t, theirs, benchArgs)
	require.False(t, r1.IsError)
	require.False(t, r2.IsError)
	s1, _ := json.Marshal(r1.StructuredContent)
	s2, _ := json.Marshal(r2.StructuredContent)
	require.JSONEq(t, string(s2), string(s1))
	bad := json.RawMessage(`{"query":"","limit":99,"mode":"slow","tags":[]}`)
	require.True(t, callSearch(t, ours, bad).IsError)
	require.True(t, callSearch(t, theirs, bad).IsError)
}

// BenchmarkToolsCall: tools/call of the 5-field tool over mcp-go's
// in-process client, this adapter against mcp-go's typed structured
// handler doing the same work, interleaved; "ratio" is the median ratio
// (goal ≤ 1.0). "default" runs the handler the registry's default way (on
// a goroutine of its own, so a call returns when its context is done even
// if the handler ignores it); "inline" sets ToolOptions.Inline, running it
// on the caller's goroutine as the typed handler runs.
func BenchmarkToolsCall(b *testing.B) {
	theirs := typedClient(b)
	for _, inline := range []bool{false, true} {
		name := "default"
		if inline {
			name = "inline"
		}
		b.Run(name, func(b *testing.B) {
			ours := adapterClientWith(b, inline)
			b.ReportAllocs()
			benchtool.Interleave(b, func() { callSearch(b, ours, benchArgs) }, func() { callSearch(b, theirs, benchArgs) })
		})
	}
}
