package mcpproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// rawFactory connects to a scripted server.
func rawFactory(srv *testmcp.Raw) mcpproxy.TransportFactory {
	return func(context.Context) (mcp.Transport, error) { return srv, nil }
}

// readOnlyHint and idempotentHint are passed as the remote states them,
// false included; a hint the remote does not state stays nil.
func TestProxiedHintsStatedFalseArePassed(t *testing.T) {
	srv := &testmcp.Raw{Tools: `[
		{"name":"stated_false","inputSchema":{"type":"object"},
		 "annotations":{"readOnlyHint":false,"idempotentHint":false,"destructiveHint":false,"openWorldHint":false}},
		{"name":"stated_true","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"idempotentHint":true}},
		{"name":"unstated","inputSchema":{"type":"object"},"annotations":{"title":"Only a title"}},
		{"name":"null_hints","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":null,"idempotentHint":null}},
		{"name":"none","inputSchema":{"type":"object"}}]`}
	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{{Name: "raw", Transport: rawFactory(srv)}}, mcpproxy.Options{})

	f, tr := new(false), new(true)
	want := map[string]registry.Annotations{
		"raw.stated_false": {ReadOnly: f, Idempotent: f, Destructive: f, OpenWorld: f},
		"raw.stated_true":  {ReadOnly: tr, Idempotent: tr},
		"raw.unstated":     {},
		"raw.null_hints":   {},
		"raw.none":         {},
	}
	for name, w := range want {
		tool, ok := reg.Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, w, tool.Annotations, name)
	}
}

// Integers beyond 2^53 in structured content keep every digit, in results
// and in error data, and the value still passes the tool's output schema.
func TestStructuredBigIntegersRoundTripExactly(t *testing.T) {
	srv := &testmcp.Raw{
		Tools: `[{"name":"big","inputSchema":{"type":"object"},
			"outputSchema":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}},
			{"name":"bigerr","inputSchema":{"type":"object"}}]`,
		Calls: map[string]testmcp.RawAnswer{
			"big":    {Result: `{"content":[{"type":"text","text":"x"}],"structuredContent":` + testmcp.BigJSON + `}`},
			"bigerr": {Result: `{"isError":true,"content":[{"type":"text","text":"failed"}],"structuredContent":{"n":-9007199254740993}}`},
		},
	}
	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{{Name: "raw", Transport: rawFactory(srv)}}, mcpproxy.Options{})

	res, err := reg.Invoke(callCtx(t), "raw.big", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	m, ok := res.Value.(map[string]any)
	require.True(t, ok, "%T", res.Value)
	assert.Equal(t, json.Number(testmcp.BigID), m["id"])
	js, err := json.Marshal(res.Value)
	require.NoError(t, err)
	assert.JSONEq(t, testmcp.BigJSON, string(js))
	assert.Contains(t, string(js), testmcp.BigID)

	res, err = reg.Invoke(callCtx(t), "raw.bigerr", nil)
	require.NoError(t, err)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	js, err = json.Marshal(res.ErrorData)
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":-9007199254740993}`, string(js))
}

// The raw listing and results are read on every transport: stated false
// hints and exact integers over the in-memory, stdio and HTTP transports
// (the go-sdk server states both hints of every annotated tool).
func TestRawWireReadOnEveryTransport(t *testing.T) {
	ts := startHTTP(t, testmcp.New(testmcp.Options{}), nil)
	mem := newMemRemote(testmcp.Options{})
	cfgs := map[string]mcpproxy.Config{
		"mem":   {Name: "mem", Transport: mem.factory},
		"child": {Name: "child", Command: []string{testServer(t)}},
		"web":   {Name: "web", URL: ts.URL + "/mcp"},
	}
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			reg := newRegistry()
			newProxy(t, reg, []mcpproxy.Config{cfg}, mcpproxy.Options{})
			add, ok := reg.Lookup(name + ".add")
			require.True(t, ok)
			f := new(false)
			assert.Equal(t, registry.Annotations{ReadOnly: f, Idempotent: f, Destructive: f}, add.Annotations)
			res, err := reg.Invoke(callCtx(t), name+".big", nil)
			require.NoError(t, err)
			require.True(t, res.Success, res.Error)
			js, err := json.Marshal(res.Value)
			require.NoError(t, err)
			assert.JSONEq(t, testmcp.BigJSON, string(js))
		})
	}
}

// A JSON-RPC error answer is a *RemoteError naming the server, the tool and
// the code; the redacted remote error is its Err.
func TestRemoteErrorNamesServerToolAndCode(t *testing.T) {
	srv := &testmcp.Raw{Tools: `[{"name":"t","inputSchema":{"type":"object"}}]`,
		Calls: map[string]testmcp.RawAnswer{"t": {Err: &jsonrpc.Error{Code: -32042, Message: "no such thing", Data: json.RawMessage(`{"why":"x"}`)}}}}
	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{{Name: "raw", Transport: rawFactory(srv)}}, mcpproxy.Options{})
	_, err := reg.Invoke(callCtx(t), "raw.t", nil)
	var re *mcpproxy.RemoteError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, "raw", re.Server)
	assert.Equal(t, "t", re.Tool)
	assert.EqualValues(t, -32042, re.Code)
	assert.Equal(t, "no such thing", re.Err.Message)
	assert.JSONEq(t, `{"why":"x"}`, string(re.Err.Data))
	assert.Equal(t, `mcpproxy: server "raw" tool "t": remote protocol error (JSON-RPC code -32042)`, err.Error())
}
