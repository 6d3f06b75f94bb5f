package mcpgo_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpgo"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

var quiet = slog.New(slog.DiscardHandler)

type addArgs struct {
	A *int64 `json:"a" validate:"required" description:"First addend."`
	B *int64 `json:"b" validate:"required" description:"Second addend."`
}

type point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func testRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, registry.AddFunc(reg, "add", func(_ context.Context, a addArgs) (result.Result[int64], error) {
		return result.Ok(*a.A + *a.B), nil
	}, registry.ToolOptions{Doc: "Adds two integers.", Annotations: registry.Annotations{ReadOnly: new(true)}}))
	require.NoError(t, registry.AddFunc(reg, "origin", func(context.Context, struct{}) (result.Result[point], error) {
		return result.Ok(point{}), nil
	}, registry.ToolOptions{Doc: "The origin."}))
	require.NoError(t, registry.AddFunc(reg, "say", func(context.Context, struct{}) (result.Result[string], error) {
		return result.Ok("hello"), nil
	}, registry.ToolOptions{Doc: "Says hello."}))
	require.NoError(t, registry.AddFunc(reg, "picture", func(context.Context, struct{}) (result.Result[result.Contents], error) {
		return result.Rich(result.Text("a dot"), result.Image([]byte{1, 2, 3}, "image/png"),
			result.TextResource("file:///n.txt", "text/plain", "notes"), result.ResourceLink("file:///b.csv", "b.csv", "text/csv", "")), nil
	}, registry.ToolOptions{Doc: "Draws."}))
	require.NoError(t, registry.AddFunc(reg, "boom", func(ctx context.Context, _ struct{}) (result.Result[string], error) {
		return result.Result[string]{}, context.DeadlineExceeded
	}, registry.ToolOptions{Doc: "Fails."}))
	return reg
}

// connect serves reg on an mcp-go server and connects mcp-go's in-process
// client; changed counts list-changed notifications.
func connect(t *testing.T, reg *registry.Registry, opts mcpgo.Options) (*client.Client, *atomic.Int32) {
	t.Helper()
	opts.Logger = quiet
	s := mcpgo.NewServer(reg, opts)
	c, err := client.NewInProcessClient(s)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	var changed atomic.Int32
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationToolsListChanged {
			changed.Add(1)
		}
	})
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	return c, &changed
}

func call(t *testing.T, c *client.Client, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.CallTool(ctx, req)
}

func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, r.Content)
	tc, ok := r.Content[0].(mcp.TextContent)
	require.True(t, ok, "%T", r.Content[0])
	return tc.Text
}

// tools/list carries every enabled tool with the schemas and hints the
// shared mapping advertises (object output as it is, a number wrapped, a
// text or rich tool none).
func TestListTools_SameMappingAsMCPServer(t *testing.T) {
	reg := testRegistry(t)
	c, _ := connect(t, reg, mcpgo.Options{})
	lt, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	require.NoError(t, err)
	byName := map[string]mcp.Tool{}
	for _, tl := range lt.Tools {
		byName[tl.Name] = tl
	}
	require.Len(t, byName, 5)
	own, _ := reg.Lookup("add")
	in, err := json.Marshal(byName["add"].InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, string(own.InputSchema), string(in))
	assert.True(t, *byName["add"].Annotations.ReadOnlyHint)
	out, _ := json.Marshal(byName["add"].OutputSchema)
	assert.Contains(t, string(out), `"value"`, "a number result is advertised wrapped")
	require.NotNil(t, byName["add"].Meta)
	assert.Equal(t, true, byName["add"].Meta.AdditionalFields[mcpgo.MetaWrapped], "and its _meta says so")
	out, _ = json.Marshal(byName["origin"].OutputSchema)
	assert.Contains(t, string(out), `"x"`)
	assert.Empty(t, byName["say"].OutputSchema.Type, "a text tool advertises no output schema")
	assert.Empty(t, byName["picture"].OutputSchema.Type, "a rich tool advertises no output schema")
}

// A call runs the registry's pipeline: values as text and structured
// content, every field problem listed with isError, protocol failures as
// JSON-RPC errors, integers above 2^53 exact.
func TestCallTool_ThroughThePipeline(t *testing.T) {
	c, _ := connect(t, testRegistry(t), mcpgo.Options{})
	r, err := call(t, c, "add", map[string]any{"a": 2, "b": 3})
	require.NoError(t, err)
	assert.False(t, r.IsError)
	assert.Equal(t, "5", text(t, r))
	sc, _ := json.Marshal(r.StructuredContent)
	assert.JSONEq(t, `{"value":5}`, string(sc))
	require.NotNil(t, r.Meta)
	assert.Equal(t, true, r.Meta.AdditionalFields[mcpgo.MetaWrapped], "the result says its value is wrapped")

	r, err = call(t, c, "add", map[string]any{"a": "x", "c": 1})
	require.NoError(t, err)
	assert.True(t, r.IsError)
	msg := text(t, r)
	for _, want := range []string{"correct every one", "- a:", "- b:", "- c:"} {
		assert.Contains(t, msg, want)
	}
	require.NotNil(t, r.Meta, "a failure's error type is in _meta")
	assert.Equal(t, string(result.ValidationError), r.Meta.AdditionalFields[mcpgo.MetaErrorType])

	r, err = call(t, c, "origin", nil)
	require.NoError(t, err)
	sc, _ = json.Marshal(r.StructuredContent)
	assert.JSONEq(t, `{"x":0,"y":0}`, string(sc))

	_, err = call(t, c, "boom", nil)
	require.Error(t, err, "a protocol failure is a JSON-RPC error")

	_, err = call(t, c, "nope", nil)
	require.Error(t, err)
}

// Rich content arrives as mcp-go's content items, in order.
func TestCallTool_RichContent(t *testing.T) {
	c, _ := connect(t, testRegistry(t), mcpgo.Options{})
	r, err := call(t, c, "picture", nil)
	require.NoError(t, err)
	require.Len(t, r.Content, 4)
	assert.Equal(t, "a dot", r.Content[0].(mcp.TextContent).Text)
	img := r.Content[1].(mcp.ImageContent)
	assert.Equal(t, "AQID", img.Data)
	assert.Equal(t, "image/png", img.MIMEType)
	res := r.Content[2].(mcp.EmbeddedResource).Resource.(mcp.TextResourceContents)
	assert.Equal(t, "notes", res.Text)
	assert.Equal(t, "file:///b.csv", r.Content[3].(mcp.ResourceLink).URI)
}

// With Envelope the text is the whole Result JSON.
func TestCallTool_Envelope(t *testing.T) {
	c, _ := connect(t, testRegistry(t), mcpgo.Options{Envelope: true})
	r, err := call(t, c, "say", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":true,"value":"hello"}`, text(t, r))
}

// Adding, disabling and removing tools in the registry changes what the
// server lists, and clients are told.
func TestFollowsRegistryWithListChanged(t *testing.T) {
	reg := testRegistry(t)
	c, changed := connect(t, reg, mcpgo.Options{})
	names := func() []string {
		lt, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		require.NoError(t, err)
		var out []string
		for _, tl := range lt.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	require.NoError(t, registry.AddFunc(reg, "late", func(context.Context, struct{}) (result.Result[string], error) {
		return result.Ok("late"), nil
	}, registry.ToolOptions{Doc: "Arrives late."}))
	assert.Contains(t, names(), "late")
	require.Eventually(t, func() bool { return changed.Load() >= 1 }, 5*time.Second, 5*time.Millisecond)
	r, err := call(t, c, "late", nil)
	require.NoError(t, err)
	assert.Equal(t, "late", text(t, r))

	require.NoError(t, reg.SetEnabled("late", false))
	assert.NotContains(t, names(), "late")
	require.NoError(t, reg.SetEnabled("late", true))
	require.NoError(t, reg.Remove("late"))
	assert.NotContains(t, names(), "late")
	assert.Equal(t, 5, len(names()))
	require.Eventually(t, func() bool { return changed.Load() >= 3 }, 5*time.Second, 5*time.Millisecond)
}

// Bind's stop ends the following; the served tools stay.
func TestBindStop(t *testing.T) {
	reg := testRegistry(t)
	s := mcpgo.NewServer(registry.New(registry.Options{Logger: quiet}), mcpgo.Options{Logger: quiet})
	stop := mcpgo.Bind(s, reg, mcpgo.Options{Logger: quiet})
	assert.Len(t, s.ListTools(), 5)
	stop()
	require.NoError(t, reg.Remove("say"))
	assert.Len(t, s.ListTools(), 5)
	assert.True(t, strings.HasPrefix(s.GetTool("say").Tool.Name, "say"))
}

// connectHTTP serves reg on an mcp-go server over streamable HTTP on
// 127.0.0.1 and connects mcp-go's HTTP client (with opts), initialized;
// ctx bounds the test's calls.
func connectHTTP(t *testing.T, reg *registry.Registry, opts ...transport.StreamableHTTPCOption) (context.Context, *client.Client) {
	t.Helper()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(mcpgo.NewServer(reg, mcpgo.Options{Logger: quiet})))
	t.Cleanup(hs.Close)
	c, err := client.NewStreamableHttpClient(hs.URL, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	require.NoError(t, c.Start(ctx))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	return ctx, c
}

// Over mcp-go's streamable HTTP transport the raw arguments are read, so
// an integer above 2^53 arrives exact.
func TestOverStreamableHTTP_ExactIntegers(t *testing.T) {
	ctx, c := connectHTTP(t, testRegistry(t))
	req := mcp.CallToolRequest{}
	req.Params.Name = "add"
	req.Params.Arguments = json.RawMessage(`{"a":9007199254740993,"b":0}`)
	r, err := c.CallTool(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "9007199254740993", text(t, r))
}

// An alias is not listed, and a tools/call of it runs the tool it
// resolves to through the pipeline; an alias whose target is disabled is
// not served (mcp-go answers "not found" for what it does not serve).
func TestCallTool_Alias(t *testing.T) {
	reg := testRegistry(t)
	require.NoError(t, reg.SetAliases(map[string]string{"plus": "add", "hi": "say"}))
	c, _ := connect(t, reg, mcpgo.Options{})

	r, err := call(t, c, "plus", map[string]any{"a": 2, "b": 3})
	require.NoError(t, err)
	assert.False(t, r.IsError)
	assert.Equal(t, "5", text(t, r))
	r, err = call(t, c, "plus", map[string]any{"a": 2})
	require.NoError(t, err)
	assert.True(t, r.IsError, "the target's validation answers")
	assert.Contains(t, text(t, r), "b: is required")

	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	require.NoError(t, err)
	for _, tool := range list.Tools {
		assert.NotContains(t, []string{"plus", "hi"}, tool.Name, "aliases are not listed")
	}

	require.NoError(t, reg.SetEnabled("say", false))
	_, err = call(t, c, "hi", map[string]any{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not found")
	_, err = call(t, c, "nosuch", map[string]any{})
	require.Error(t, err)
}

// On a server of the host's own, AliasHook routes aliases, and a tool the
// server serves itself keeps its name even when the registry has an alias
// of that name.
func TestAliasHook_OwnServer(t *testing.T) {
	reg := testRegistry(t)
	require.NoError(t, reg.SetAliases(map[string]string{"plus": "add", "mine": "say"}))
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(mcpgo.AliasHook(reg))
	s := server.NewMCPServer("own", "1", server.WithToolCapabilities(true), server.WithHooks(hooks))
	s.AddTool(mcp.NewTool("mine"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("my own"), nil
	})
	stop := mcpgo.Bind(s, reg, mcpgo.Options{Logger: quiet})
	defer stop()
	c, err := client.NewInProcessClient(s)
	require.NoError(t, err)
	defer c.Close()
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)

	r, err := call(t, c, "plus", map[string]any{"a": 40, "b": 2})
	require.NoError(t, err)
	assert.Equal(t, "42", text(t, r))
	r, err = call(t, c, "mine", map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, "my own", text(t, r))
}

// A handler learns what the MCP request carried (registry.Request): the
// transport, the session, the HTTP headers and the request's _meta
// (where a client carries W3C trace context), as under adapters/mcpserver.
func TestCallTool_RequestInfoOnTheContext(t *testing.T) {
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, registry.AddFunc(reg, "who", func(ctx context.Context, _ struct{}) (result.Result[map[string]any], error) {
		info := registry.Request(ctx)
		if info == nil {
			return result.Ok(map[string]any{}), nil
		}
		return result.Ok(map[string]any{"transport": info.Transport,
			"traceparent": info.Meta["traceparent"], "header": info.Header.Get("X-Test")}), nil
	}, registry.ToolOptions{Doc: "Says what the request carried."}))
	ctx, c := connectHTTP(t, reg, transport.WithHTTPHeaders(map[string]string{"X-Test": "yes"}))
	req := mcp.CallToolRequest{}
	req.Params.Name = "who"
	tp := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": tp}}
	r, err := c.CallTool(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"value": map[string]any{"transport": "mcp", "traceparent": tp, "header": "yes"}}, r.StructuredContent)
}

// Null arguments are no arguments, as under adapters/mcpserver and REST.
func TestCallTool_NullArgumentsAreNone(t *testing.T) {
	ctx, c := connectHTTP(t, testRegistry(t))
	req := mcp.CallToolRequest{}
	req.Params.Name = "say"
	req.Params.Arguments = json.RawMessage(`null`)
	r, err := c.CallTool(ctx, req)
	require.NoError(t, err)
	assert.False(t, r.IsError, "%v", r.Content)
	assert.Equal(t, "hello", text(t, r))
}
