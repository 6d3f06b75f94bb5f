package mcpproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func TestInMemoryToolsRegisteredAsPack(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})

	want := make([]string, 0, len(testmcp.BaseTools()))
	for _, n := range testmcp.BaseTools() {
		want = append(want, "mem."+n)
	}
	assert.Equal(t, want, proxiedNames(reg, "mem"))

	echo, ok := reg.Lookup("mem.echo")
	require.True(t, ok)
	assert.Equal(t, "mem", echo.Pack)
	assert.Equal(t, "proxy:mem", echo.Source)
	assert.Equal(t, "Echo", echo.Title)
	assert.Equal(t, "Echo the text back.", echo.Description)
	assert.JSONEq(t, `{"type":"object","properties":{
		"upper":{"type":"boolean","default":false,"description":"Upper-case the text"},
		"text":{"type":"string","description":"Text to echo"}},"required":["text"]}`, string(echo.InputSchema))
	assert.Nil(t, echo.OutputSchema)
	assert.Equal(t, registry.Annotations{ReadOnly: new(true), Idempotent: new(true), OpenWorld: new(false)}, echo.Annotations)
	assert.Equal(t, "mem.echo(text: str, upper: bool = False)", echo.Usage.Signature)
	assert.Equal(t, "text: Text to echo\nupper: Upper-case the text", echo.Usage.Args)
	assert.Equal(t, "str", echo.Usage.Returns)
	assert.Nil(t, echo.Decode, "raw arguments are forwarded as they are")
	assert.NotNil(t, echo.Handler)

	add, ok := reg.Lookup("mem.add")
	require.True(t, ok)
	assert.JSONEq(t, `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`, string(add.OutputSchema))
	assert.Equal(t, registry.Annotations{ReadOnly: new(false), Idempotent: new(false), Destructive: new(false)},
		add.Annotations, "the go-sdk server states both boolean hints, false included")
	assert.Equal(t, "dict", add.Usage.Returns)

	st := statusOf(t, p, "mem")
	assert.Equal(t, mcpproxy.Connected, st.State)
	assert.Equal(t, len(want), st.Tools)
	assert.Equal(t, mcpproxy.TransportCustom, st.Transport)
	assert.Equal(t, "testmcp 1.0.0", st.Remote)
	assert.Equal(t, 1, st.Connects)
	assert.Equal(t, mcpproxy.HealthOK, p.Health())
}

// A proxied tool keeps the remote's order of its parameters: the input
// schema the registry serves lists the properties as the remote did (the
// SDK's decoding into a map would sort them), and the signature and
// argument lines follow it, required parameters first.
func TestProxiedToolKeepsTheRemotesParameterOrder(t *testing.T) {
	remote := mcp.NewServer(&mcp.Implementation{Name: "ordered", Version: "1.0.0"}, nil)
	remote.AddTool(&mcp.Tool{Name: "search", InputSchema: json.RawMessage(`{"type": "object", "properties": {
		"query": {"type": "string", "description": "Terms"},
		"repo": {"type": "string"},
		"per_page": {"type": "integer", "default": 30},
		"fuzzy": {"type": "boolean"},
		"after": {"type": "string", "description": "Cursor"}},
		"required": ["after", "query"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{{Name: "gh", Transport: inMemory(remote)}}, mcpproxy.Options{})

	tool, ok := reg.Lookup("gh.search")
	require.True(t, ok)
	assert.Equal(t, `{"type":"object","properties":{"query":{"type":"string","description":"Terms"},"repo":{"type":"string"},`+
		`"per_page":{"type":"integer","default":30},"fuzzy":{"type":"boolean"},"after":{"type":"string","description":"Cursor"}},`+
		`"required":["after","query"]}`, string(tool.InputSchema), "the remote's schema, compacted, in its order")
	assert.Equal(t, "gh.search(query: str, after: str, repo: str = '...', per_page: int = 30, fuzzy: bool = '...')", tool.Usage.Signature)
	assert.Equal(t, "query: Terms\nafter: Cursor\nrepo: (no description)\nper_page: (no description)\nfuzzy: (no description)", tool.Usage.Args)
}

// inMemory connects to srv over in-memory transports, a new pair per
// connection.
func inMemory(srv *mcp.Server) func(context.Context) (mcp.Transport, error) {
	return func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

// A value that is not an object travels in structuredContent wrapped in an
// object of one member. When the remote says so — a toolpack server in the
// tool's and the result's _meta, FastMCP in the schema's
// "x-fastmcp-wrap-result" — the proxied tool returns the value itself and
// has the value's own output schema; a wrapper that does not say so, or
// whose schema holds a "$ref", is passed on as it is.
func TestProxiedWrappedValuesComeBackAsThemselves(t *testing.T) {
	// A toolpack server: add has an integer output schema (wrapped), pair
	// no schema at all (its list value is wrapped), obj an object.
	inner := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	add, err := registry.Func("add", func(_ context.Context, a struct {
		A int `json:"a" validate:"required" description:"First."`
		B int `json:"b" validate:"required" description:"Second."`
	}) (result.Result[int], error) {
		return result.Ok(a.A + a.B), nil
	}, registry.ToolOptions{Doc: "Adds."})
	require.NoError(t, err)
	require.NoError(t, inner.Add(add,
		&registry.Tool{Name: "pair", Description: "A list.", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return result.Ok[any]([]any{1, "x"}), nil
		}},
		&registry.Tool{Name: "obj", Description: "An object.", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return result.Ok[any](map[string]any{"value": 1}), nil
		}}))

	// A FastMCP-like server, and one that wraps without saying so.
	other := mcp.NewServer(&mcp.Implementation{Name: "py", Version: "1"}, nil)
	addRaw := func(name, outSchema, structured string) {
		other.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(outSchema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "t"}}, StructuredContent: json.RawMessage(structured)}, nil
			})
	}
	addRaw("items", `{"type":"object","properties":{"result":{"type":"array","items":{"type":"integer"}}},"required":["result"],"x-fastmcp-wrap-result":true}`, `{"result":[1,2]}`)
	addRaw("refd", `{"type":"object","properties":{"result":{"$ref":"#/$defs/N"}},"required":["result"],"$defs":{"N":{"type":"integer"}},"x-fastmcp-wrap-result":true}`, `{"result":3}`)
	addRaw("plain", `{"type":"object","properties":{"value":{"type":"integer"}},"required":["value"]}`, `{"value":4}`)

	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{
		{Name: "tp", Transport: inMemory(mcpserver.NewServer(inner, mcpserver.Options{}))},
		{Name: "py", Transport: inMemory(other)},
	}, mcpproxy.Options{})

	for name, want := range map[string]any{
		"tp.add": json.Number("42"), "tp.pair": []any{json.Number("1"), "x"}, "tp.obj": map[string]any{"value": json.Number("1")},
		"py.items": []any{json.Number("1"), json.Number("2")}, "py.refd": map[string]any{"result": json.Number("3")},
		"py.plain": map[string]any{"value": json.Number("4")},
	} {
		res, err := reg.Invoke(t.Context(), name, json.RawMessage(`{"a":40,"b":2}`))
		require.NoError(t, err, name)
		require.True(t, res.Success, "%s: %s", name, res.Error)
		assert.Equal(t, want, res.Value, name)
	}
	for name, want := range map[string]struct{ schema, returns string }{
		"tp.add":   {`{"type":"integer"}`, "int"},
		"py.items": {`{"type":"array","items":{"type":"integer"}}`, "list"},
		"py.plain": {`{"type":"object","properties":{"value":{"type":"integer"}},"required":["value"]}`, "dict"},
	} {
		tool, ok := reg.Lookup(name)
		require.True(t, ok, name)
		assert.JSONEq(t, want.schema, string(tool.OutputSchema), name)
		assert.Equal(t, want.returns, tool.Usage.Returns, name)
	}
	refd, _ := reg.Lookup("py.refd")
	assert.Contains(t, string(refd.OutputSchema), `"$defs"`, "a wrapper with a $ref stays whole")
}

func TestListsAllPages(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{Extra: 9, PageSize: 2})
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "paged", Transport: remote.factory}}, mcpproxy.Options{})
	names := proxiedNames(reg, "paged")
	assert.Len(t, names, len(testmcp.BaseTools())+9)
	assert.Contains(t, names, "paged.extra_000")
	assert.Contains(t, names, "paged.extra_008")
	assert.Equal(t, len(names), statusOf(t, p, "paged").Tools)
}

func TestRegistryPrefixApplies(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("tp")})
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	tool, ok := reg.Lookup("tp_mem.echo")
	require.True(t, ok, "final names follow the registry's prefix")
	assert.Equal(t, "mem.echo", tool.BaseName)
	res, err := reg.Invoke(callCtx(t), "tp_mem.echo", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, "x", res.Value)
}

func TestCallForwardsRawArguments(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	raw := `{"z":1,"nested":{"list":[1,"two",null,true]},"big":12345678901234567890}`
	res, err := reg.Invoke(callCtx(t), "mem.raw", json.RawMessage(raw))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.JSONEq(t, raw, res.Value.(string))
	assert.Contains(t, res.Value.(string), "12345678901234567890", "numbers reach the remote untouched")

	for _, empty := range []string{"", "null", "  "} {
		res, err := reg.Invoke(callCtx(t), "mem.raw", json.RawMessage(empty))
		require.NoError(t, err)
		assert.JSONEq(t, `{}`, res.Value.(string), "empty arguments %q are sent as {}", empty)
	}
}

func TestCallTextResult(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	res, err := reg.Invoke(callCtx(t), "mem.echo", json.RawMessage(`{"text":"hello","upper":true}`))
	require.NoError(t, err)
	assert.Equal(t, result.Ok[any]("HELLO"), res)
}

func TestCallStructuredResult(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	res, err := reg.Invoke(callCtx(t), "mem.add", json.RawMessage(`{"a":2,"b":3.5}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, map[string]any{"sum": json.Number("5.5")}, res.Value, "numbers keep their JSON text")
}

func TestCallRemoteToolErrorIsUpstreamFailure(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	res, err := reg.Invoke(callCtx(t), "mem.fail", nil)
	require.NoError(t, err, "a tool error is a domain failure, not a protocol failure")
	assert.False(t, res.Success)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	assert.Equal(t, testmcp.FailText, res.Error)
}

func TestCallRemoteProtocolErrorIsError(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	_, err := reg.Invoke(callCtx(t), "mem.broken", nil)
	require.Error(t, err)
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "the remote JSON-RPC error is reachable with errors.As: %v", err)
	assert.EqualValues(t, testmcp.BrokenCode, werr.Code)
	assert.Contains(t, err.Error(), `server "mem" tool "broken"`)
}

func TestCallRejectsNonObjectArguments(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	for raw, kind := range map[string]string{`[1]`: "an array", `"s"`: "a string", `3`: "a number", `true`: "a boolean", `{`: "malformed JSON"} {
		res, err := reg.Invoke(callCtx(t), "mem.raw", json.RawMessage(raw))
		require.NoError(t, err)
		assert.False(t, res.Success)
		assert.Equal(t, result.ValidationError, res.ErrorType)
		assert.Contains(t, res.Error, "arguments: expected a JSON object, got "+kind)
	}
}

func TestCallHonoursContextCancellation(t *testing.T) {
	reg := newRegistry()
	started := make(chan struct{}, 1)
	remote := newMemRemote(testmcp.Options{WaitStarted: started})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	tool, ok := reg.Lookup("mem.wait")
	require.True(t, ok)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	// The handler itself (below the registry's own context handling) ends
	// the call in flight with a cancelled failure.
	res, err := tool.Handler(ctx, &registry.Call{Tool: tool, Raw: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, result.Cancelled, res.ErrorType)
	assert.ErrorIs(t, res.Exception, context.Canceled)

	// An already-cancelled context never reaches the remote.
	echo, ok := reg.Lookup("mem.echo")
	require.True(t, ok)
	res, err = echo.Handler(ctx, &registry.Call{Tool: echo, Raw: json.RawMessage(`{"text":"x"}`)})
	require.NoError(t, err)
	assert.Equal(t, result.Cancelled, res.ErrorType)

	// Through the registry the call ends too (how the registry reports a
	// cancelled context is its own choice).
	_, err = reg.Invoke(ctx, "mem.wait", nil)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestCallTimeoutIsTimeoutFailure(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}},
		mcpproxy.Options{CallTimeout: 1}) // 1ns: the deadline has passed before the answer
	tool, ok := reg.Lookup("mem.wait")
	require.True(t, ok)
	res, err := tool.Handler(callCtx(t), &registry.Call{Tool: tool, Raw: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, result.Timeout, res.ErrorType)
	assert.ErrorIs(t, res.Exception, context.DeadlineExceeded)
}

func TestOversizedResultIsUpstreamFailure(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{MaxResultBytes: 8})
	res, err := reg.Invoke(callCtx(t), "mem.echo", json.RawMessage(`{"text":"more than eight bytes"}`))
	require.NoError(t, err)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	assert.Contains(t, res.Error, "exceeds Options.MaxResultBytes (8)")
	res, err = reg.Invoke(callCtx(t), "mem.echo", json.RawMessage(`{"text":"short"}`))
	require.NoError(t, err)
	assert.Equal(t, "short", res.Value)
}

func TestTooManyToolsIsServerError(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}},
		mcpproxy.Options{MaxTools: 3, Backoff: fastBackoff})
	st := statusOf(t, p, "mem")
	assert.Equal(t, mcpproxy.Disconnected, st.State)
	assert.Contains(t, st.LastError, "more than 3 (Options.MaxTools)")
	assert.Empty(t, proxiedNames(reg, "mem"))
	assert.EqualValues(t, 1, remote.connects.Load(), "a permanent error is not retried")
}

func TestInvalidRemoteToolNamesSkipped(t *testing.T) {
	reg := newRegistry()
	logger, logs := captureLogger()
	remote := newMemRemote(testmcp.Options{Rename: func(n string) string {
		if n == "pid" {
			return strings.Repeat("p", 130)
		}
		return n
	}})
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{Logger: logger})
	st := statusOf(t, p, "mem")
	assert.Equal(t, mcpproxy.Connected, st.State)
	assert.Equal(t, 1, st.Skipped)
	assert.Equal(t, len(testmcp.BaseTools())-1, st.Tools)
	assert.NotContains(t, proxiedNames(reg, "mem"), "mem.pid")
	assert.Contains(t, logs.String(), "skipping remote tool")
}

func TestNameClashMarksServerError(t *testing.T) {
	reg := newRegistry()
	local, err := registry.Func("mem.echo", func(_ context.Context, a struct{}) (result.Result[string], error) {
		return result.Ok("local"), nil
	}, registry.ToolOptions{})
	require.NoError(t, err)
	require.NoError(t, reg.Add(local))
	logger, logs := captureLogger()
	remote := newMemRemote(testmcp.Options{})
	other := newMemRemote(testmcp.Options{})
	p := newProxy(t, reg, []mcpproxy.Config{
		{Name: "mem", Transport: remote.factory},
		{Name: "other", Transport: other.factory},
	}, mcpproxy.Options{Logger: logger, Backoff: fastBackoff})

	st := statusOf(t, p, "mem")
	assert.Equal(t, mcpproxy.Disconnected, st.State)
	assert.Contains(t, st.LastError, "name already registered")
	assert.Contains(t, st.LastError, "mem.echo")
	assert.Empty(t, proxiedNames(reg, "mem"), "nothing of the clashing server is registered")
	assert.Contains(t, logs.String(), "stays disconnected")
	assert.EqualValues(t, 1, remote.connects.Load(), "a clash is not retried automatically")

	// The local tool and the other server are untouched.
	res, err := reg.Invoke(callCtx(t), "mem.echo", json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, "local", res.Value)
	assert.Equal(t, mcpproxy.Connected, statusOf(t, p, "other").State)
	assert.Equal(t, mcpproxy.HealthDegraded, p.Health())

	// Once the clash is gone, Refresh connects the server.
	require.NoError(t, reg.Remove("mem.echo"))
	require.NoError(t, p.Refresh("mem"))
	require.Eventually(t, func() bool { return statusOf(t, p, "mem").State == mcpproxy.Connected },
		waitBound, 5*time.Millisecond, "Refresh retries a server that gave up")
	assert.Contains(t, proxiedNames(reg, "mem"), "mem.echo")
}

func TestStartFailureMarksDisconnectedAndRegistryWorks(t *testing.T) {
	reg := newRegistry()
	local, err := registry.Func("hello", func(_ context.Context, a struct{}) (result.Result[string], error) {
		return result.Ok("hi"), nil
	}, registry.ToolOptions{})
	require.NoError(t, err)
	require.NoError(t, reg.Add(local))
	logger, logs := captureLogger()
	up := newMemRemote(testmcp.Options{})
	down := newMemRemote(testmcp.Options{})
	down.down.Store(true)
	p := newProxy(t, reg, []mcpproxy.Config{
		{Name: "up", Transport: up.factory},
		{Name: "down", Transport: down.factory},
	}, mcpproxy.Options{Logger: logger, Backoff: mcpproxy.Backoff{Initial: waitBound}})

	st := statusOf(t, p, "down")
	assert.Equal(t, mcpproxy.Disconnected, st.State)
	assert.Contains(t, st.LastError, "remote is down")
	assert.Zero(t, st.Tools)
	assert.Equal(t, mcpproxy.Connected, statusOf(t, p, "up").State)
	assert.Equal(t, mcpproxy.HealthDegraded, p.Health())
	assert.Contains(t, logs.String(), "level=WARN")
	assert.Contains(t, logs.String(), "marked disconnected")

	res, err := reg.Invoke(callCtx(t), "hello", nil)
	require.NoError(t, err)
	assert.Equal(t, "hi", res.Value)
	res, err = reg.Invoke(callCtx(t), "up.echo", json.RawMessage(`{"text":"ok"}`))
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Value)
}

func TestStartFailureRetriedWithBackoff(t *testing.T) {
	reg := newRegistry()
	log := newStatusLog()
	remote := newMemRemote(testmcp.Options{})
	remote.down.Store(true)
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "late", Transport: remote.factory}},
		mcpproxy.Options{Backoff: fastBackoff, OnStatus: log.record})
	assert.Equal(t, mcpproxy.Disconnected, statusOf(t, p, "late").State)
	remote.down.Store(false)
	log.waitFor(t, "late", "connected", func(s mcpproxy.Status) bool { return s.State == mcpproxy.Connected })
	assert.Len(t, proxiedNames(reg, "late"), len(testmcp.BaseTools()))
}

func TestBackoffMaxTriesBoundsAttempts(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	remote.down.Store(true)
	logger, logs := captureLogger()
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "gone", Transport: remote.factory}},
		mcpproxy.Options{Logger: logger, Backoff: mcpproxy.Backoff{Initial: 1, Max: 1, MaxTries: 3}})
	require.Eventually(t, func() bool {
		return strings.Contains(logs.String(), "stays disconnected until refreshed")
	}, waitBound, 5*time.Millisecond, "the proxy gives up after MaxTries")
	assert.EqualValues(t, 3, remote.attempts.Load())
	assert.Contains(t, statusOf(t, p, "gone").LastError, "remote is down")
	remote.down.Store(false)
	require.NoError(t, p.Refresh("gone"))
	require.Eventually(t, func() bool { return statusOf(t, p, "gone").State == mcpproxy.Connected }, waitBound, 5*time.Millisecond)
	assert.EqualValues(t, 1, remote.connects.Load())
}

func TestDisconnectedCallIsUnavailable(t *testing.T) {
	reg := newRegistry()
	log := newStatusLog()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}},
		mcpproxy.Options{Backoff: fastBackoff, OnStatus: log.record})
	remote.down.Store(true)
	remote.dropAll()
	st := log.waitFor(t, "mem", "disconnected", func(s mcpproxy.Status) bool { return s.State == mcpproxy.Disconnected })
	assert.NotEmpty(t, st.LastError)

	res, err := reg.Invoke(callCtx(t), "mem.echo", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err, "a disconnected server is a domain failure")
	assert.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `MCP server "mem" is disconnected`)
}

func TestDroppedConnectionReconnectsAndRefreshesPack(t *testing.T) {
	reg := newRegistry()
	log := newStatusLog()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}},
		mcpproxy.Options{Backoff: fastBackoff, OnStatus: log.record})
	changed := make(chan struct{}, 1024)
	cancel := reg.Subscribe(func(registry.Change) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer cancel()

	remote.down.Store(true)
	remote.dropAll()
	log.waitFor(t, "mem", "disconnected", func(s mcpproxy.Status) bool { return s.State == mcpproxy.Disconnected })
	assert.Contains(t, proxiedNames(reg, "mem"), "mem.echo", "tools stay listed while disconnected")

	// The remote changes its tools while the proxy is away.
	remote.srv.RemoveTools("pid")
	remote.srv.AddTool(&mcp.Tool{Name: "late", Description: "Added later.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil
		})
	remote.down.Store(false)
	st := log.waitFor(t, "mem", "reconnected", func(s mcpproxy.Status) bool {
		return s.State == mcpproxy.Connected && s.Connects >= 2
	})
	assert.Equal(t, len(testmcp.BaseTools()), st.Tools)

	names := proxiedNames(reg, "mem")
	assert.Contains(t, names, "mem.late")
	assert.NotContains(t, names, "mem.pid")
	assert.NotEmpty(t, changed, "registry subscribers were notified")
	res, err := reg.Invoke(callCtx(t), "mem.late", nil)
	require.NoError(t, err)
	assert.Equal(t, "late", res.Value)
}

func TestToolListChangedRefreshesPack(t *testing.T) {
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{})
	changed := make(chan struct{}, 1024)
	cancel := reg.Subscribe(func(registry.Change) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer cancel()
	remote.srv.AddTool(&mcp.Tool{Name: "fresh", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fresh"}}}, nil
		})
	require.Eventually(t, func() bool {
		_, ok := reg.Lookup("mem.fresh")
		return ok
	}, waitBound, 5*time.Millisecond, "the list-changed notification refreshes the pack")
	assert.EqualValues(t, 1, remote.connects.Load(), "refreshed on the same session")
}

// Every proxy a test makes through newProxy runs with call and connect
// timeouts of waitBound, so that a hung remote fails the test in seconds
// rather than after DefaultCallTimeout (5 minutes).
func TestHelperBoundsEveryCallAndConnection(t *testing.T) {
	p := newProxy(t, newRegistry(), nil, mcpproxy.Options{})
	call, connect := mcpproxy.Timeouts(p)
	assert.Equal(t, waitBound, call)
	assert.Equal(t, waitBound, connect)
	p = newProxy(t, newRegistry(), nil, mcpproxy.Options{CallTimeout: -1, ConnectTimeout: time.Second})
	call, connect = mcpproxy.Timeouts(p)
	assert.Negative(t, call, "a test may still ask for no call timeout")
	assert.Equal(t, time.Second, connect)
	assert.Less(t, waitBound, mcpproxy.DefaultCallTimeout)
}

func TestRefreshUnknownServer(t *testing.T) {
	p := newProxy(t, newRegistry(), nil, mcpproxy.Options{})
	err := p.Refresh("nope")
	assert.ErrorIs(t, err, mcpproxy.ErrUnknownServer)
	assert.Equal(t, mcpproxy.HealthOK, p.Health(), "no servers is healthy")
}

func TestCloseStopsGoroutinesAndRemovesTools(t *testing.T) {
	before := runtime.NumGoroutine()
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{})
	down := newMemRemote(testmcp.Options{})
	down.down.Store(true)
	p, err := mcpproxy.New(context.Background(), reg, []mcpproxy.Config{
		{Name: "mem", Transport: remote.factory},
		{Name: "down", Transport: down.factory},
	}, bounded(mcpproxy.Options{Logger: slog.New(slog.DiscardHandler), Backoff: mcpproxy.Backoff{Initial: waitBound}}))
	require.NoError(t, err)
	require.NotEmpty(t, proxiedNames(reg, "mem"))
	require.Greater(t, runtime.NumGoroutine(), before)

	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "Close is idempotent")
	assert.Empty(t, proxiedNames(reg, "mem"))
	after := waitGoroutines(before)
	assert.LessOrEqual(t, after, before, "goroutines left after Close")
}

func TestNewHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	block := func(ctx context.Context) (mcp.Transport, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	// The attempt runs on the proxy's own context, so it can only end after
	// New has seen ctx end and closed the proxy.
	p, err := mcpproxy.New(ctx, newRegistry(), []mcpproxy.Config{{Name: "slow", Transport: block}}, bounded(mcpproxy.Options{}))
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, p)
}

func TestCloseEndsCallsInFlight(t *testing.T) {
	reg := newRegistry()
	started := make(chan struct{}, 1)
	remote := newMemRemote(testmcp.Options{WaitStarted: started})
	// No call timeout: only Close can end the call.
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "mem", Transport: remote.factory}}, mcpproxy.Options{CallTimeout: -1})
	tool, ok := reg.Lookup("mem.wait")
	require.True(t, ok)
	type outcome struct {
		res result.Result[any]
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := tool.Handler(callCtx(t), &registry.Call{Tool: tool, Raw: json.RawMessage(`{}`)})
		done <- outcome{res, err}
	}()
	select {
	case <-started:
	case <-time.After(waitBound):
		t.Fatal("the remote wait tool never started")
	}
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(waitBound):
		t.Fatal("Close waited for a call in flight")
	}
	select {
	case o := <-done:
		require.NoError(t, o.err)
		assert.False(t, o.res.Success)
		assert.Equal(t, result.Unavailable, o.res.ErrorType)
		assert.Contains(t, o.res.Error, "closed during the call")
	case <-time.After(waitBound):
		t.Fatal("the call in flight did not end after Close")
	}
}
