package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

type echoArgs struct {
	Text string `json:"text" validate:"required,min=1" description:"What to echo."`
}

type sumOut struct {
	Sum int `json:"sum"`
}

type sumArgs struct {
	A int `json:"a" validate:"min=0,max=100" description:"First."`
	B int `json:"b" validate:"min=0,max=100" description:"Second."`
}

// equivalenceRegistry holds tools of every shape the listing shows: with
// and without title, output schema and each annotation.
func equivalenceRegistry(t *testing.T) *registry.Registry {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	add := func(tool *registry.Tool, err error) {
		t.Helper()
		require.NoError(t, err)
		require.NoError(t, reg.Add(tool))
	}
	add(registry.Func("echo", func(_ context.Context, a echoArgs) (result.Result[string], error) {
		return result.Ok(a.Text), nil
	}, registry.ToolOptions{Title: "Echo", Doc: "Echoes.", Annotations: registry.Annotations{ReadOnly: new(true), OpenWorld: new(false)}}))
	add(registry.Func("sum", func(_ context.Context, a sumArgs) (result.Result[sumOut], error) {
		return result.Ok(sumOut{Sum: a.A + a.B}), nil
	}, registry.ToolOptions{Doc: "Adds.", Annotations: registry.Annotations{Idempotent: new(true), Destructive: new(false)}}))
	add(registry.Func("fail", func(_ context.Context, a echoArgs) (result.Result[string], error) {
		return result.Failuref[string](result.NotFound, "no %q", a.Text), nil
	}, registry.ToolOptions{Doc: "Fails."}))
	add(registry.Func("boom", func(_ context.Context, a echoArgs) (result.Result[string], error) {
		return result.Result[string]{}, errors.New("internal")
	}, registry.ToolOptions{Doc: "Breaks."}))
	add(registry.Func("alpha", func(_ context.Context, a echoArgs) (result.Result[string], error) {
		return result.Ok(a.Text), nil
	}, registry.ToolOptions{Doc: "First by name."}))
	return reg
}

// referenceServer serves reg the way this package did before it answered
// tools/list itself: every tool added to the SDK's own tool set with
// Server.AddTool.
func referenceServer(t *testing.T, reg *registry.Registry, impl *sdk.Implementation, pageSize int) *sdk.Server {
	srv := sdk.NewServer(impl, &sdk.ServerOptions{
		Logger:       slog.New(slog.DiscardHandler),
		PageSize:     pageSize,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}, Logging: &sdk.LoggingCapabilities{}},
	})
	b := &binding{reg: reg, log: slog.New(slog.DiscardHandler)}
	for _, tool := range reg.List() {
		st, err := sdkTool(tool, reg.ID())
		require.NoError(t, err)
		srv.AddTool(st, b.handler(tool.Name, DisplayValue))
	}
	return srv
}

// recordedResponses connects a go-sdk client (its default, newest
// protocol) to srv, runs script, and returns every response the client
// read, in order, as raw JSON.
func recordedResponses(t *testing.T, srv *sdk.Server, script func(cs *sdk.ClientSession)) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	defer func() { _ = ss.Close() }()
	var buf lockedBuffer
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "v0"}, nil).
		Connect(ctx, &sdk.LoggingTransport{Transport: ct, Writer: &buf}, nil)
	require.NoError(t, err)
	script(cs)
	require.NoError(t, cs.Close())
	var out []string
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if ok && (strings.Contains(line, `"result":`) || strings.Contains(line, `"error":`)) {
			out = append(out, line)
		}
	}
	return out
}

// positionOf replaces the nextCursor of a tools/list response by the
// position it stands for. Cursors are gob-encoded, and gob numbers types
// in the order a process first encodes them, so the SDK's cursor for a
// position differs from run to run and from ours; what must agree is the
// position (TestCursorsReadBothWays).
func positionOf(t *testing.T, response string) string {
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(response), &m))
	if res, ok := m["result"].(map[string]any); ok {
		if c, ok := res["nextCursor"].(string); ok {
			last, err := decodeCursor(c)
			require.NoError(t, err)
			res["nextCursor"] = "after " + last
		}
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

type lockedBuffer struct{ testlog.Buffer }

// TestListAndCallSameAsSDKToolSet: for a small registry, every tools/list
// page (tools, order, cursors), every kind of tools/call answer (value,
// structured value, domain failure, protocol failure, validation failure,
// unknown tool) come out exactly as they did when every tool was added to
// the SDK's own tool set, as the client reads them. (A bad cursor gets the
// same code with a message that says what to do:
// TestListToolsBadCursorSaysToListFromTheStart.)
func TestListAndCallSameAsSDKToolSet(t *testing.T) {
	reg := equivalenceRegistry(t)
	impl := &sdk.Implementation{Name: "same", Version: "v1"}
	script := func(cs *sdk.ClientSession) {
		ctx := context.Background()
		params := &sdk.ListToolsParams{}
		for {
			res, err := cs.ListTools(ctx, params)
			require.NoError(t, err)
			if res.NextCursor == "" {
				break
			}
			params = &sdk.ListToolsParams{Cursor: res.NextCursor}
		}
		for _, c := range []struct {
			name string
			args any
		}{
			{"echo", map[string]any{"text": "hi"}},
			{"sum", map[string]any{"a": 2, "b": 3}},
			{"sum", map[string]any{"a": -1, "b": 300}},
			{"fail", map[string]any{"text": "k"}},
			{"boom", map[string]any{"text": "k"}},
			{"nope", map[string]any{}},
			{dispatchName, map[string]any{}},
		} {
			_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: c.name, Arguments: c.args})
		}
	}
	for _, pageSize := range []int{2, 0} {
		want := recordedResponses(t, referenceServer(t, reg, impl, pageSize), script)
		got := recordedResponses(t, NewServer(reg, Options{Implementation: impl, PageSize: pageSize, Logger: slog.New(slog.DiscardHandler)}), script)
		require.Len(t, got, len(want), "page size %d", pageSize)
		for i := range want {
			assert.JSONEq(t, positionOf(t, want[i]), positionOf(t, got[i]), "page size %d, response %d", pageSize, i)
		}
	}
}

// TestCursorsReadBothWays: a cursor the SDK wrote reads, here, as the
// position it stands for, and a cursor written here for a position takes
// the SDK's own tools/list to the same next page as the SDK's cursor.
func TestCursorsReadBothWays(t *testing.T) {
	reg := equivalenceRegistry(t)
	srv := referenceServer(t, reg, &sdk.Implementation{Name: "ref"}, 2)
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	defer func() { _ = ss.Close() }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close() }()
	first, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, first.Tools, 2)
	require.NotEmpty(t, first.NextCursor)

	last := first.Tools[1].Name
	got, err := decodeCursor(first.NextCursor)
	require.NoError(t, err)
	assert.Equal(t, last, got, "the SDK's cursor reads as the last name of its page")

	ours, err := encodeCursor(last)
	require.NoError(t, err)
	viaSDK, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: first.NextCursor})
	require.NoError(t, err)
	viaOurs, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: ours})
	require.NoError(t, err)
	assert.Equal(t, names(viaSDK.Tools), names(viaOurs.Tools), "the SDK reads our cursor as its own")
	assert.NotEmpty(t, viaOurs.Tools)
}

func names(ts []*sdk.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func TestDecodeCursorRejectsGarbage(t *testing.T) {
	for _, c := range []string{"", "!!!", "aGVsbG8=", strings.Repeat("A", 64)} {
		_, err := decodeCursor(c)
		assert.Error(t, err, "%q", c)
	}
}

// FuzzDecodeCursor: any client-supplied cursor is refused or read without
// panicking; what it reads as re-encodes to a cursor reading the same.
func FuzzDecodeCursor(f *testing.F) {
	for _, name := range []string{"", "a", "tool_09999", strings.Repeat("x", 128)} {
		c, err := encodeCursor(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(c)
	}
	f.Add("not-a-cursor")
	f.Add("Kf-BAwEBCXBhZ2VUb2tlbgH_ggABAQEHTGFzdFVJRAEMAAAA")
	f.Fuzz(func(t *testing.T, cursor string) {
		name, err := decodeCursor(cursor)
		if err != nil {
			return
		}
		again, err := encodeCursor(name)
		if err != nil {
			t.Fatalf("encodeCursor(%q): %v", name, err)
		}
		back, err := decodeCursor(again)
		if err != nil || back != name {
			t.Fatalf("round trip of %q gave %q, %v", name, back, err)
		}
	})
}

// TestDispatchWithoutCallIsUnknownTool: the dispatch tool called by name
// answers as the SDK does for a tool it does not know.
func TestDispatchWithoutCallIsUnknownTool(t *testing.T) {
	_, err := dispatch(context.Background(), &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: dispatchName}})
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr))
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
	assert.Equal(t, `unknown tool "`+dispatchName+`"`, werr.Message)
}

// TestDispatchKeepsReplacedParams: when middleware between the binding
// and the SDK replaces the params (as the SDK's multi-round-trip retry
// does), the handler gets the replacement under the tool's real name.
func TestDispatchKeepsReplacedParams(t *testing.T) {
	orig := &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: "real", Arguments: json.RawMessage(`{"a":1}`)}}
	var seen *sdk.CallToolRequest
	h := func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		seen = r
		return &sdk.CallToolResult{}, nil
	}
	fwd := &sdk.CallToolParamsRaw{Name: dispatchName, Arguments: orig.Params.Arguments}
	ctx := context.WithValue(context.Background(), dispatchKey{}, &dispatchCall{req: orig, params: fwd, h: h})

	_, err := dispatch(ctx, &sdk.CallToolRequest{Params: fwd})
	require.NoError(t, err)
	assert.Same(t, orig, seen, "untouched params: the request as the client sent it")

	replaced := &sdk.CallToolParamsRaw{Name: dispatchName, Arguments: json.RawMessage(`{"a":2}`)}
	_, err = dispatch(ctx, &sdk.CallToolRequest{Params: replaced})
	require.NoError(t, err)
	assert.Equal(t, "real", seen.Params.Name)
	assert.JSONEq(t, `{"a":2}`, string(seen.Params.Arguments))
}

// TestListToolsBadCursorSaysToListFromTheStart: a tools/list cursor this
// server did not give — not base64, not a cursor, over the length cap —
// is invalid params (as MCP requires) naming the field and saying to
// list from the start; the SDK said only "invalid params".
func TestListToolsBadCursorSaysToListFromTheStart(t *testing.T) {
	srv := NewServer(equivalenceRegistry(t), Options{Logger: slog.New(slog.DiscardHandler)})
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	notCursor, err := encodeCursor("x")
	require.NoError(t, err)
	for _, cursor := range []string{"not-a-cursor!", "bm90IGdvYg==", strings.Repeat("A", maxCursorLen+1), notCursor[:len(notCursor)-4]} {
		_, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		var jerr *jsonrpc.Error
		require.ErrorAs(t, err, &jerr, "cursor %.20q", cursor)
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), jerr.Code)
		assert.Equal(t, `invalid params for "tools/list": field "cursor" is not a cursor this server gave, or it is stale; list from the start, without a cursor`, jerr.Message)
	}
}
