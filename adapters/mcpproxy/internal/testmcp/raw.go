package testmcp

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Raw is a scripted MCP server that answers with the raw JSON it is given,
// so that tests control the wire exactly: members present or absent, big
// numbers, error data. It speaks the legacy initialize handshake (it
// refuses server/discover) and answers tools/list with Tools and
// tools/call with Calls.
type Raw struct {
	// Tools is the raw JSON array answered to tools/list (one page).
	Tools string
	// Calls maps a tool name to its answer; a missing name is a JSON-RPC
	// invalid params error.
	Calls map[string]RawAnswer
}

// RawAnswer is the answer to one tools/call: Err when set, else Result
// (raw JSON of the CallToolResult).
type RawAnswer struct {
	Result string
	Err    *jsonrpc.Error
}

// Connect implements mcp.Transport: each connection is a new session.
func (r *Raw) Connect(context.Context) (mcp.Connection, error) {
	return &rawConn{srv: r, out: make(chan jsonrpc.Message, 16), closed: make(chan struct{})}, nil
}

type rawConn struct {
	srv    *Raw
	out    chan jsonrpc.Message
	closed chan struct{}
	once   sync.Once
}

func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.out:
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *rawConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return nil
	}
	resp := &jsonrpc.Response{ID: req.ID}
	switch req.Method {
	case "initialize":
		resp.Result = json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)
	case "tools/list":
		resp.Result = json.RawMessage(`{"tools":` + c.srv.Tools + `}`)
	case "tools/call":
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params, &p)
		a, ok := c.srv.Calls[p.Name]
		switch {
		case !ok:
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool"}
		case a.Err != nil:
			resp.Error = a.Err
		default:
			resp.Result = json.RawMessage(a.Result)
		}
	case "ping":
		resp.Result = json.RawMessage(`{}`)
	default:
		resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
	}
	select {
	case c.out <- resp:
		return nil
	case <-c.closed:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *rawConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *rawConn) SessionID() string { return "" }
