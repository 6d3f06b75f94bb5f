package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func newSession(t *testing.T, reg *registry.Registry, opts mcpserver.Options) *session {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	if opts.Implementation == nil {
		opts.Implementation = &sdk.Implementation{Name: "test", Version: "v0"}
	}
	return connect(t, mcpserver.NewServer(reg, opts))
}

// jsonEq asserts that got (any JSON-marshalable value) and want (JSON
// text) are the same JSON.
func jsonEq(t *testing.T, want json.RawMessage, got any) {
	t.Helper()
	b, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(b))
}

func TestListShowsSchemasAndAnnotations(t *testing.T) {
	reg := newTestRegistry(t)
	s := newSession(t, reg, mcpserver.Options{})
	listed := s.tools(t)

	want := reg.List()
	require.Len(t, listed, len(want), "every registry tool is listed")
	for _, rt := range want {
		lt, ok := listed[rt.Name]
		require.True(t, ok, "tool %q listed", rt.Name)
		assert.Equal(t, rt.Title, lt.Title, "%s title", rt.Name)
		assert.Equal(t, rt.Description, lt.Description, "%s description", rt.Name)
		jsonEq(t, rt.InputSchema, lt.InputSchema)
		var root struct {
			Type any `json:"type"`
		}
		_ = json.Unmarshal(rt.OutputSchema, &root)
		switch root.Type {
		case "object":
			jsonEq(t, rt.OutputSchema, lt.OutputSchema)
		case "string", nil:
			assert.Nil(t, lt.OutputSchema, "%s: a text tool advertises no output schema", rt.Name)
		default:
			jsonEq(t, json.RawMessage(`{"type":"object","properties":{"value":`+string(rt.OutputSchema)+`},"required":["value"],"additionalProperties":false}`), lt.OutputSchema)
		}
	}

	g := listed["greet"]
	assert.Equal(t, "Greet", g.Title)
	require.NotNil(t, g.Annotations)
	assert.True(t, g.Annotations.ReadOnlyHint)
	require.NotNil(t, g.Annotations.OpenWorldHint)
	assert.False(t, *g.Annotations.OpenWorldHint)
	assert.Nil(t, g.Annotations.DestructiveHint, "unset hint stays unset")

	l := listed["lookup"]
	require.NotNil(t, l.Annotations)
	assert.True(t, l.Annotations.IdempotentHint)
	require.NotNil(t, l.Annotations.DestructiveHint)
	assert.False(t, *l.Annotations.DestructiveHint)

	assert.Nil(t, listed["crash"].Annotations, "no hints, no annotations object")
}

func TestCallStringValue_ValueDisplay(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayValue})
	res, err := s.call(t, "greet", map[string]any{"name": "Ada", "times": 2})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, "# Hello\n\nHello, Ada! Hello, Ada! ", text(t, res), "the plain Markdown, nothing else")
	assert.Nil(t, res.StructuredContent, "a string value has no structured content")
}

func TestCallStringValue_EnvelopeDisplay(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayEnvelope})
	res, err := s.call(t, "greet", map[string]any{"name": "Ada", "times": 1})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	var env result.Result[string]
	require.NoError(t, json.Unmarshal([]byte(text(t, res)), &env))
	assert.True(t, env.Success)
	assert.Equal(t, "# Hello\n\nHello, Ada! ", env.Value)
	assert.Nil(t, res.StructuredContent)
}

func TestCallStructuredValue_ValueDisplay(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayValue})
	res, err := s.call(t, "stats", map[string]any{"values": []float64{1, 2, 3.5}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	jsonEq(t, json.RawMessage(`{"count":3,"sum":6.5}`), res.StructuredContent)
	assert.JSONEq(t, `{"count":3,"sum":6.5}`, text(t, res), "the text is the structured value's JSON")
}

func TestCallStructuredValue_EnvelopeDisplay(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayEnvelope})
	res, err := s.call(t, "stats", map[string]any{"values": []float64{4}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	jsonEq(t, json.RawMessage(`{"count":1,"sum":4}`), res.StructuredContent)
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(text(t, res)), &env))
	assert.JSONEq(t, `true`, string(env["success"]))
	assert.JSONEq(t, `{"count":1,"sum":4}`, string(env["value"]))
}

func TestValidationFailureListsEveryField(t *testing.T) {
	reg := newTestRegistry(t)
	t.Run("value display", func(t *testing.T) {
		s := newSession(t, reg, mcpserver.Options{Display: mcpserver.DisplayValue})
		res, err := s.call(t, "strict", map[string]any{"a": "x", "b": 99})
		require.NoError(t, err, "a validation failure is a tool result, not a protocol error")
		require.True(t, res.IsError)
		txt := text(t, res)
		assert.Contains(t, txt, "a: must be at least 3 characters long [min]")
		assert.Contains(t, txt, "b: must be at most 10 [max]")
		assert.Contains(t, txt, "invalid arguments (2 problems)")
	})
	t.Run("envelope display", func(t *testing.T) {
		s := newSession(t, reg, mcpserver.Options{Display: mcpserver.DisplayEnvelope})
		res, err := s.call(t, "strict", map[string]any{"a": "x"})
		require.NoError(t, err)
		require.True(t, res.IsError)
		var env struct {
			Success   bool   `json:"success"`
			ErrorType string `json:"error_type"`
			ErrorData []struct {
				Field, Rule, Message string
			} `json:"error_data"`
		}
		require.NoError(t, json.Unmarshal([]byte(text(t, res)), &env))
		assert.False(t, env.Success)
		assert.Equal(t, string(result.ValidationError), env.ErrorType)
		require.Len(t, env.ErrorData, 2)
		assert.Equal(t, "a", env.ErrorData[0].Field)
		assert.Equal(t, "b", env.ErrorData[1].Field)
	})
}

// TestValidationFailureFromArgsListsEveryField goes through the real args
// decoder: strict decoding and validate tags of a registry.Func tool.
func TestValidationFailureFromArgsListsEveryField(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayValue})
	res, err := s.call(t, "greet", map[string]any{"name": "x", "times": 9, "extra": true})
	require.NoError(t, err, "a validation failure is a tool result, not a protocol error")
	require.True(t, res.IsError, "bad arguments are rejected by the registry")
	txt := text(t, res)
	for _, field := range []string{"name", "times", "extra"} {
		assert.Contains(t, txt, "\n- "+field+": ", "field %q listed", field)
	}
}

func TestDomainFailure_ValueDisplay(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayValue})
	res, err := s.call(t, "lookup", map[string]any{"key": "k1"})
	require.NoError(t, err, "a domain failure is a tool result, not a protocol error")
	require.True(t, res.IsError)
	assert.Equal(t, "no entry for key \"k1\"\n\nAsk the user for an existing key.", text(t, res))
	assert.Nil(t, res.StructuredContent)
}

// A failure's error type reaches the client in _meta, in both displays,
// so that a program tells codes apart without reading the text; a
// success carries none.
func TestFailure_ErrorTypeInMeta(t *testing.T) {
	for _, d := range []mcpserver.Display{mcpserver.DisplayValue, mcpserver.DisplayEnvelope} {
		s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: d})
		res, err := s.call(t, "lookup", map[string]any{"key": "k1"})
		require.NoError(t, err)
		assert.Equal(t, string(result.NotFound), res.Meta[mcpserver.MetaErrorType])
		res, err = s.call(t, "greet", map[string]any{"name": "x"})
		require.NoError(t, err)
		assert.Equal(t, string(result.ValidationError), res.Meta[mcpserver.MetaErrorType])
		res, err = s.call(t, "greet", map[string]any{"name": "Ann", "times": 1})
		require.NoError(t, err)
		require.False(t, res.IsError)
		assert.NotContains(t, res.Meta, mcpserver.MetaErrorType)
	}
}

func TestDomainFailure_EnvelopeDisplay(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayEnvelope})
	res, err := s.call(t, "lookup", map[string]any{"key": "k1"})
	require.NoError(t, err)
	require.True(t, res.IsError)
	var env result.Result[any]
	require.NoError(t, json.Unmarshal([]byte(text(t, res)), &env))
	assert.False(t, env.Success)
	assert.Equal(t, result.NotFound, env.ErrorType)
	assert.Equal(t, `no entry for key "k1"`, env.Error)
	assert.Equal(t, "Ask the user for an existing key.", env.Instruction)
}

func TestProtocolFailureIsJSONRPCError(t *testing.T) {
	logs := &syncBuffer{}
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Logger: slogTo(logs)})
	res, err := s.call(t, "crash", map[string]any{})
	require.Error(t, err, "a protocol failure is never a tool result")
	assert.Nil(t, res)
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "error is a JSON-RPC error: %v", err)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), werr.Code)
	assert.Contains(t, werr.Message, `tool "crash"`)
	assert.NotContains(t, err.Error(), secret, "internals stay out of the client's view")
	assert.Contains(t, logs.String(), "protocol failure", "the failure is logged")
}

func TestUnknownToolIsJSONRPCError(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{})
	res, err := s.call(t, "no_such_tool", map[string]any{})
	require.Error(t, err)
	assert.Nil(t, res)
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "error is a JSON-RPC error: %v", err)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
	assert.Contains(t, werr.Message, "no_such_tool")
}

func TestNilArgumentsBecomeEmptyObject(t *testing.T) {
	rec := &rawRecorder{}
	s := newSession(t, newTestRegistry(t, rec.tool()), mcpserver.Options{Display: mcpserver.DisplayValue})
	for _, a := range []any{nil, json.RawMessage("null"), map[string]any{}} {
		res, err := s.call(t, "echo_raw", a)
		require.NoError(t, err)
		assert.Equal(t, "{}", text(t, res), "arguments %v", a)
	}
	for _, raw := range rec.calls() {
		assert.JSONEq(t, "{}", string(raw))
	}
	assert.Len(t, rec.calls(), 3)
}

func TestDisplayForOverridesDefault(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{
		Display: mcpserver.DisplayEnvelope,
		DisplayFor: func(tool *registry.Tool) (mcpserver.Display, bool) {
			return mcpserver.DisplayValue, tool.Name == "greet"
		},
	})
	res, err := s.call(t, "greet", map[string]any{"name": "Bo", "times": 1})
	require.NoError(t, err)
	assert.Equal(t, "# Hello\n\nHello, Bo! ", text(t, res), "greet says DisplayValue")

	res, err = s.call(t, "lookup", map[string]any{"key": "z"})
	require.NoError(t, err)
	assert.True(t, json.Valid([]byte(text(t, res))), "lookup does not say, so it uses the envelope")
	assert.Contains(t, text(t, res), `"error_type":"not_found"`)
}

func TestInvalidDisplayIsClearError(t *testing.T) {
	logs := &syncBuffer{}
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Display: mcpserver.Display(7), Logger: slogTo(logs)})
	res, err := s.call(t, "greet", map[string]any{"name": "Bo", "times": 1})
	require.Error(t, err, "no silent default")
	assert.Nil(t, res)
	assert.Contains(t, err.Error(), "Options.Display")
	assert.Contains(t, err.Error(), "expected DisplayValue (0) or DisplayEnvelope (1)")
	assert.Contains(t, logs.String(), "invalid Options.Display")
	assert.Equal(t, "Display(7)", mcpserver.Display(7).String())
}

func TestListChangedOnAddAndRemove(t *testing.T) {
	reg := newTestRegistry(t)
	s := newSession(t, reg, mcpserver.Options{Display: mcpserver.DisplayValue})
	require.NotContains(t, s.tools(t), "echo_raw")

	rec := &rawRecorder{}
	require.NoError(t, reg.Add(rec.tool()))
	s.waitChanged(t)
	require.Contains(t, s.tools(t), "echo_raw", "a tool added at run time is listed")
	res, err := s.call(t, "echo_raw", nil)
	require.NoError(t, err)
	assert.Equal(t, "{}", text(t, res))

	require.NoError(t, reg.Remove("echo_raw"))
	s.waitChanged(t)
	assert.NotContains(t, s.tools(t), "echo_raw", "a removed tool is no longer listed")
	_, err = s.call(t, "echo_raw", nil)
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "calling a removed tool is a JSON-RPC error: %v", err)
}

// A tool switched off in the registry leaves tools/list (clients are told)
// and its calls are tool errors saying it is disabled; switched on, it is
// back. An alias is called like the tool it names.
func TestDisabledToolsAndAliasesOverMCP(t *testing.T) {
	reg := newTestRegistry(t)
	s := newSession(t, reg, mcpserver.Options{})
	require.Contains(t, s.tools(t), "greet")
	require.NoError(t, reg.SetEnabled("greet", false))
	s.waitChanged(t)
	assert.NotContains(t, s.tools(t), "greet")
	res, err := s.call(t, "greet", map[string]any{"name": "Ada", "times": 1})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, text(t, res), `"greet" is disabled`)

	require.NoError(t, reg.SetEnabled("greet", true))
	s.waitChanged(t)
	assert.Contains(t, s.tools(t), "greet")
	require.NoError(t, reg.SetAliases(map[string]string{"hello": "greet"}))
	res, err = s.call(t, "hello", map[string]any{"name": "Ada", "times": 1})
	require.NoError(t, err)
	assert.False(t, res.IsError, "%s", text(t, res))
	assert.Contains(t, text(t, res), "Hello, Ada!")
	assert.NotContains(t, s.tools(t), "hello", "aliases are not listed")

	// An alias whose target is not served (a remote server away) is a tool
	// error naming both, not a JSON-RPC "unknown tool".
	require.NoError(t, reg.SetAliases(map[string]string{"dx": "away.tool"}))
	res, err = s.call(t, "dx", map[string]any{})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, text(t, res), `"dx" is an alias of "away.tool", which is not served now`)
	_, err = s.call(t, "nothing", map[string]any{})
	var werr *jsonrpc.Error
	require.ErrorAs(t, err, &werr, "a name that is neither tool nor alias stays a protocol error")
}

func TestUnregisterRemovesTools(t *testing.T) {
	reg := newTestRegistry(t)
	srv := sdk.NewServer(&sdk.Implementation{Name: "host"}, &sdk.ServerOptions{Logger: discardLogger()})
	srv.AddTool(&sdk.Tool{Name: "host_own", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	unregister := mcpserver.Register(srv, reg, mcpserver.Options{Logger: discardLogger()})
	s := connect(t, srv)
	assert.Len(t, s.tools(t), len(reg.List())+1, "registry tools beside the host's own")

	unregister()
	unregister() // safe twice
	s.waitChanged(t)
	listed := s.tools(t)
	assert.Len(t, listed, 1, "only the host's own tool is left")
	assert.Contains(t, listed, "host_own")
}

// TestBadToolIsSkippedOthersServed: a tool the SDK refuses (it panics on
// x-mcp-header over a non-primitive property) is logged and skipped; the
// others are served. (A missing or non-object input schema is refused by the
// registry itself; the adapter's own check is TestCheckInputSchema.)
func TestBadToolIsSkippedOthersServed(t *testing.T) {
	refused := &registry.Tool{
		Name:        "bad_header",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"X-O"}}}`),
		Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return result.Ok[any]("x"), nil
		},
	}
	logs := &syncBuffer{}
	reg := newTestRegistry(t, refused)
	s := newSession(t, reg, mcpserver.Options{Logger: slogTo(logs)})
	listed := s.tools(t)
	assert.NotContains(t, listed, "bad_header")
	assert.Contains(t, listed, "greet", "the other tools are served")
	assert.Len(t, listed, len(reg.List())-1)
	assert.Contains(t, logs.String(), "bad_header")
	assert.Contains(t, logs.String(), "the MCP SDK refused the tool")
}

func TestNewServer_OverIOTransport(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayValue, Logger: discardLogger()})
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &mcpstdio.IOTransport{Reader: sr, Writer: sw}) }()

	client := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	require.NoError(t, err)
	assert.Equal(t, "toolpack", cs.InitializeResult().ServerInfo.Name, "nil impl means toolpack")
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Io", "times": 1}})
	require.NoError(t, err)
	assert.Equal(t, "# Hello\n\nHello, Io! ", text(t, res))
	require.NoError(t, cs.Close())
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("ServeIO did not return after the client closed")
	}
}

func TestHTTPHandlerServesStreamableHTTP(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayValue, Logger: discardLogger()})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{}))
	defer hs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close() }()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "stats", Arguments: map[string]any{"values": []int{2, 3}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"count":2,"sum":5}`, text(t, res))
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "crash", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "protocol failure over HTTP is a JSON-RPC error: %v", err)
}
