package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP methods the binding answers for its tools.
const (
	methodListTools = "tools/list"
	methodCallTool  = "tools/call"
	methodSetLevel  = "logging/setLevel"
)

// dispatchName is the one tool name a binding puts in the SDK's own tool
// set. It never shows in tools/list; calls of registry tools reach the
// SDK's tools/call under it, and a client calling it by name gets the
// SDK's "unknown tool" error.
const dispatchName = "toolpack.mcpserver.dispatch"

// dispatchTool is the SDK's view of the dispatch tool.
func dispatchTool() *sdk.Tool {
	return &sdk.Tool{
		Name:        dispatchName,
		Description: "Internal to toolpack's MCP adapter; never listed.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}
}

// dispatchKey carries a *dispatchCall from the middleware to dispatch.
type dispatchKey struct{}

// dispatchCall is one call of a registry tool on its way through the
// SDK's tools/call path.
type dispatchCall struct {
	req    *sdk.CallToolRequest   // as the client sent it
	params *sdk.CallToolParamsRaw // the params passed on under dispatchName
	h      sdk.ToolHandler        // the registry tool's handler
}

// dispatch is the dispatch tool's handler: it runs the registry tool the
// middleware chose, with the request as the client sent it. Without a
// call in ctx (a client named the dispatch tool itself) it answers as the
// SDK does for a tool it does not know. It holds no state, so bindings of
// several registries on one server may share the tool.
func dispatch(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	c, _ := ctx.Value(dispatchKey{}).(*dispatchCall)
	if c == nil {
		name := dispatchName
		if req != nil && req.Params != nil {
			name = req.Params.Name
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	if req == nil || req.Params == c.params {
		return c.h(ctx, c.req)
	}
	// Middleware between ours and the SDK replaced the params (the SDK's
	// multi-round-trip retry does): keep its version, with the real name.
	r, p := *req, *req.Params
	p.Name = c.req.Params.Name
	r.Params = &p
	return c.h(ctx, &r)
}

// middleware answers tools/list and tools/call for the binding's tools and
// passes everything else on.
func (b *binding) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case methodCallTool:
			if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil {
				if s := b.lookup(r.Params.Name); s != nil {
					return b.call(ctx, next, r, s)
				}
				if s := b.unlisted(ctx, r.Params.Name); s != nil {
					return b.call(ctx, next, r, s)
				}
			}
		case methodListTools:
			if r, ok := req.(*sdk.ListToolsRequest); ok {
				return b.list(ctx, next, r)
			}
		case methodSetLevel:
			// Refused here too for transports without CheckParams.
			if r, ok := req.(*sdk.ServerRequest[*sdk.SetLoggingLevelParams]); ok && r.Params != nil {
				if jerr := levelError(r.Params.Level); jerr != nil {
					return nil, jerr
				}
			}
		}
		return next(ctx, method, req)
	}
}

// unlisted returns how to serve a call of a name the registry answers but
// this binding does not list: an alias runs the tool it resolves to, as
// that tool is served; a disabled tool (or an alias of one) goes to
// Registry.Invoke, which answers it with an unavailable failure, as it
// does an alias whose target is not served. nil when the registry knows
// no such name.
func (b *binding) unlisted(ctx context.Context, name string) *served {
	b.mu.RLock()
	closed := b.closed
	b.mu.RUnlock()
	if closed {
		return nil // unregistered: the registry's names are no longer ours to answer
	}
	t, enabled, ok := b.reg.ResolveContext(ctx, name)
	if !ok {
		if b.reg.IsAlias(name) {
			// An alias whose target is not served: Invoke answers it with
			// an unavailable failure, a tool error, not "unknown tool".
			return &served{name: name, h: b.handler(name, b.opts.Display)}
		}
		return nil
	}
	if enabled {
		if s := b.lookup(t.Name); s != nil {
			return s
		}
	}
	return &served{name: name, tool: t, h: b.handler(name, b.displayFor(t))}
}

// call sends a call of a registry tool down the SDK's own tools/call path
// addressed to the dispatch tool, so that the SDK shapes the result as it
// does for any tool it serves.
func (b *binding) call(ctx context.Context, next sdk.MethodHandler, r *sdk.CallToolRequest, s *served) (sdk.Result, error) {
	p := *r.Params
	p.Name = dispatchName
	fwd := *r
	fwd.Params = &p
	ctx = context.WithValue(ctx, dispatchKey{}, &dispatchCall{req: r, params: &p, h: s.h})
	return next(ctx, methodCallTool, &fwd)
}

// list answers tools/list: the binding's tools merged with the SDK's own
// (the host's tools; a registry tool hides a host tool of the same name,
// and the dispatch tool is never shown), sorted by name, in pages of
// b.pageSize with the SDK's cursors. The SDK is asked first, so a cursor
// it refuses is refused the same way, and its result (cache hints, _meta)
// is the one returned, with the merged page.
func (b *binding) list(ctx context.Context, next sdk.MethodHandler, req *sdk.ListToolsRequest) (sdk.Result, error) {
	var after string
	if req.Params != nil && req.Params.Cursor != "" {
		var err error
		if len(req.Params.Cursor) > maxCursorLen {
			return nil, invalidCursor()
		}
		if after, err = decodeCursor(req.Params.Cursor); err != nil {
			return nil, invalidCursor()
		}
	}
	res, err := next(ctx, methodListTools, req)
	if err != nil {
		if jerr, ok := errors.AsType[*jsonrpc.Error](err); ok && jerr.Code == jsonrpc.CodeInvalidParams && after != "" {
			return nil, invalidCursor() // the SDK's bare "invalid params" for a cursor it cannot read
		}
		return res, err
	}
	host, ok := res.(*sdk.ListToolsResult)
	if !ok || host == nil {
		return res, nil
	}
	ours := b.snapshot()
	oi := sort.Search(len(ours), func(i int) bool { return ours[i].name > after })
	hidden := func(name string) bool {
		if name == dispatchName {
			return true
		}
		i := sort.Search(len(ours), func(i int) bool { return ours[i].name >= name })
		return i < len(ours) && ours[i].name == name
	}
	hostTools, hostNext, hi := host.Tools, host.NextCursor, 0
	page := make([]*sdk.Tool, 0, min(b.pageSize+1, len(ours)-oi+len(hostTools)))
	for len(page) <= b.pageSize {
		for hi < len(hostTools) && hidden(hostTools[hi].Name) {
			hi++
		}
		if hi == len(hostTools) && hostNext != "" {
			more, err := b.hostPage(ctx, next, req, hostNext)
			if err != nil {
				return nil, err
			}
			nc := more.NextCursor
			if nc == hostNext {
				nc = "" // a cursor that does not advance ends the listing
			}
			hostTools, hostNext, hi = more.Tools, nc, 0
			continue
		}
		if oi < len(ours) && (hi == len(hostTools) || ours[oi].name < hostTools[hi].Name) {
			page = append(page, ours[oi].st)
			oi++
		} else if hi < len(hostTools) {
			page = append(page, hostTools[hi])
			hi++
		} else {
			break
		}
	}
	out := *host
	out.NextCursor = ""
	if len(page) > b.pageSize {
		page = page[:b.pageSize]
		if out.NextCursor, err = encodeCursor(page[len(page)-1].Name); err != nil {
			return nil, err
		}
	}
	out.Tools = page
	return &out, nil
}

// hostPage asks the SDK for the page of its own tools at cursor.
func (b *binding) hostPage(ctx context.Context, next sdk.MethodHandler, req *sdk.ListToolsRequest, cursor string) (*sdk.ListToolsResult, error) {
	r := *req
	p := sdk.ListToolsParams{Cursor: cursor}
	if req.Params != nil {
		p.Meta = req.Params.Meta
	}
	r.Params = &p
	res, err := next(ctx, methodListTools, &r)
	if err != nil {
		return nil, err
	}
	lr, ok := res.(*sdk.ListToolsResult)
	if !ok || lr == nil {
		return &sdk.ListToolsResult{}, nil
	}
	return lr, nil
}

// maxCursorLen caps the cursors read from clients. A cursor holds one tool
// name (at most 128 bytes), about 200 characters once encoded; anything
// far longer was not written by a server.
const maxCursorLen = 1024

// invalidCursor answers a tools/list cursor that this server did not
// give (or that no longer reads): invalid params, as MCP requires, saying
// what to do instead. The cursor itself is not quoted.
func invalidCursor() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: `invalid params for "tools/list": field "cursor" is not a cursor this server gave, or it is stale; list from the start, without a cursor`}
}

// pageToken is what a tools/list cursor holds, encoded as the SDK encodes
// its own (gob, then URL-safe base64), so that cursors from either are
// valid for both. (Not byte for byte: gob numbers types in the order a
// process first encodes them.)
type pageToken struct {
	LastUID string // the name of the last tool of the previous page
}

func encodeCursor(last string) (string, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(pageToken{LastUID: last}); err != nil {
		return "", fmt.Errorf("mcpserver: encoding a tools/list cursor: %w", err)
	}
	return base64.URLEncoding.EncodeToString(buf.Bytes()), nil
}

func decodeCursor(cursor string) (string, error) {
	raw, err := base64.URLEncoding.DecodeString(cursor)
	if err != nil {
		return "", err
	}
	var t pageToken
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&t); err != nil {
		return "", err
	}
	return t.LastUID, nil
}
