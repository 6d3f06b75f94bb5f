package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/registry"
)

// binding keeps one SDK server in sync with one registry.
type binding struct {
	srv  *sdk.Server
	reg  *registry.Registry
	opts Options
	log  *slog.Logger

	mu     sync.Mutex          // serialises sync and close
	served map[string]toolSpec // final tool name → what was given to srv
	closed bool
}

// toolSpec is what the SDK server was given for one tool; a tool is re-added
// only when its spec changes, so a registry that hands out fresh *Tool
// values on every List causes no spurious list-changed notifications.
type toolSpec struct {
	title, desc, in, out string
	ann                  [4]int8 // ReadOnly, Destructive, Idempotent, OpenWorld: -1 unset, 0 false, 1 true
	display              Display
}

func tri(b *bool) int8 {
	switch {
	case b == nil:
		return -1
	case *b:
		return 1
	default:
		return 0
	}
}

func specOf(t *registry.Tool, d Display) toolSpec {
	a := t.Annotations
	return toolSpec{
		title:   t.Title,
		desc:    t.Description,
		in:      string(t.InputSchema),
		out:     string(t.OutputSchema),
		ann:     [4]int8{tri(a.ReadOnly), tri(a.Destructive), tri(a.Idempotent), tri(a.OpenWorld)},
		display: d,
	}
}

func (b *binding) displayFor(t *registry.Tool) Display {
	if b.opts.DisplayFor != nil {
		if d, ok := b.opts.DisplayFor(t); ok {
			return d
		}
	}
	return b.opts.Display
}

// sync brings srv's tool set in line with reg's. It is the registry
// subscription callback and runs once at Register.
func (b *binding) sync() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	tools := b.reg.List()
	seen := make(map[string]bool, len(tools))
	var remove []string
	for _, t := range tools {
		seen[t.Name] = true
		d := b.displayFor(t)
		spec := specOf(t, d)
		if old, ok := b.served[t.Name]; ok && old == spec {
			continue
		}
		st, err := sdkTool(t)
		if err == nil {
			err = b.add(st, b.handler(t.Name, d))
		}
		if err != nil {
			b.log.Error("mcpserver: tool not served", "tool", t.Name, "error", err)
			if _, ok := b.served[t.Name]; ok {
				remove = append(remove, t.Name)
				delete(b.served, t.Name)
			}
			continue
		}
		if !d.valid() {
			b.log.Error("mcpserver: invalid Display for tool; its calls will fail",
				"tool", t.Name, "display", int(d), "expected", "DisplayEnvelope or DisplayValue")
		}
		b.served[t.Name] = spec
	}
	for name := range b.served {
		if !seen[name] {
			remove = append(remove, name)
			delete(b.served, name)
		}
	}
	if len(remove) > 0 {
		sort.Strings(remove)
		b.srv.RemoveTools(remove...)
	}
	b.log.Debug("mcpserver: tools synced", "served", len(b.served), "removed", len(remove))
}

// add calls srv.AddTool, turning the SDK's panics on tools it refuses into
// errors so that one bad tool never takes the host down.
func (b *binding) add(t *sdk.Tool, h sdk.ToolHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the MCP SDK refused the tool: %v", p)
		}
	}()
	b.srv.AddTool(t, h)
	return nil
}

func (b *binding) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	names := make([]string, 0, len(b.served))
	for name := range b.served {
		names = append(names, name)
	}
	clear(b.served)
	if len(names) > 0 {
		sort.Strings(names)
		b.srv.RemoveTools(names...)
	}
}

// sdkTool converts a registry tool to the SDK's tool. The input schema is
// kept byte for byte; the output schema is advertised according to the
// tool's output shape (shapeOf): an object schema as it is, a string
// schema (a text tool) not at all, any other schema wrapped as the schema
// of {"value": …} (wrapOutputSchema), so that every structuredContent the
// handler sends is an object that matches it.
func sdkTool(t *registry.Tool) (*sdk.Tool, error) {
	if err := checkInputSchema(t.InputSchema); err != nil {
		return nil, err
	}
	st := &sdk.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: annotations(t.Annotations),
	}
	shape, err := shapeOf(t.OutputSchema)
	if err != nil {
		return nil, err
	}
	switch shape {
	case shapeObject:
		st.OutputSchema = t.OutputSchema
	case shapeWrapped:
		if st.OutputSchema, err = wrapOutputSchema(t.OutputSchema); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// checkInputSchema reports whether s is a JSON object whose "type" is
// "object", as MCP requires of every input schema.
func checkInputSchema(s json.RawMessage) error {
	if len(s) == 0 {
		return errors.New(`field InputSchema: expected a JSON Schema with "type":"object", got none`)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil || m == nil {
		return errors.New(`field InputSchema: expected a JSON object with "type":"object", got something else`)
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ != "object" {
		return fmt.Errorf(`field InputSchema: expected "type":"object", got "type":%s`, orNone(m["type"]))
	}
	return nil
}

func orNone(b []byte) string {
	if len(b) == 0 {
		return "(none)"
	}
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}

// annotations maps the registry's hints to the SDK's; nil when none is set.
// An unset ReadOnly or Idempotent becomes false, the protocol default.
func annotations(a registry.Annotations) *sdk.ToolAnnotations {
	if a.ReadOnly == nil && a.Destructive == nil && a.Idempotent == nil && a.OpenWorld == nil {
		return nil
	}
	out := &sdk.ToolAnnotations{DestructiveHint: a.Destructive, OpenWorldHint: a.OpenWorld}
	if a.ReadOnly != nil {
		out.ReadOnlyHint = *a.ReadOnly
	}
	if a.Idempotent != nil {
		out.IdempotentHint = *a.Idempotent
	}
	return out
}

var emptyObject = json.RawMessage("{}")

// handler is the SDK raw tool handler for the tool registered as name,
// shown with Display d. It puts what the call carries on the context
// (requestContext) and sends structuredContent in the shape sdkTool
// advertises for the tool, which follows from the registered tool's output
// schema, read at the first call so that building a handler costs nothing
// per tool (a tool the registry no longer has gets ErrUnknownTool from
// Invoke, whatever the shape).
func (b *binding) handler(name string, d Display) sdk.ToolHandler {
	lazy := &struct { // one allocation per handler
		once  sync.Once
		shape outputShape
		err   error
	}{}
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if !d.valid() {
			return nil, &jsonrpc.Error{
				Code:    jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("mcpserver: tool %q: field Options.Display (or DisplayFor) is %d; expected DisplayEnvelope (0) or DisplayValue (1)", name, int(d)),
			}
		}
		lazy.once.Do(func() {
			if t, ok := b.reg.Lookup(name); ok {
				lazy.shape, lazy.err = shapeOf(t.OutputSchema)
			}
		})
		if lazy.err != nil {
			return nil, b.protocolError(ctx, name, lazy.err)
		}
		var raw json.RawMessage
		if req != nil && req.Params != nil {
			raw = req.Params.Arguments
		}
		if isAbsent(raw) {
			raw = emptyObject
		}
		res, err := b.reg.Invoke(requestContext(ctx, req), name, raw)
		if err != nil {
			return nil, b.protocolError(ctx, name, err)
		}
		out, err := toCallToolResult(res, d, lazy.shape)
		if err != nil {
			return nil, b.protocolError(ctx, name, err)
		}
		return out, nil
	}
}

// requestContext returns ctx carrying what a handler may learn about the
// MCP request (registry.Request): transport "mcp", the session id, and
// for streamable HTTP the request's headers and the verified bearer token
// (auth.RequireBearerToken) as registry.AuthInfo. When the client sent a
// progress token, registry.ReportProgress sends notifications/progress
// with it on the request's session.
func requestContext(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	info := &registry.RequestInfo{Transport: "mcp"}
	if req == nil {
		return registry.WithRequest(ctx, info)
	}
	info.Request = req
	if req.Session != nil {
		info.SessionID = req.Session.ID()
	}
	if req.Extra != nil {
		info.Header = req.Extra.Header
		info.Auth = authInfo(req.Extra.TokenInfo)
	}
	ctx = registry.WithRequest(ctx, info)
	if req.Session == nil || req.Params == nil {
		return ctx
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return ctx
	}
	return registry.WithProgress(ctx, progressSender(req.Session, token))
}

// progressSender returns the ProgressFunc of one call: each report becomes
// a notifications/progress with the client's token, sent on the call's
// context so that streamable HTTP carries it on the request's stream. MCP
// requires the progress value to increase with every notification: a
// report that does not is not sent, and the error says so.
func progressSender(ss *sdk.ServerSession, token any) registry.ProgressFunc {
	var (
		mu   sync.Mutex
		sent bool
		last float64
	)
	return func(ctx context.Context, p registry.Progress) error {
		mu.Lock()
		defer mu.Unlock() // reports of one call go out one at a time, in order
		if sent && !(p.Progress > last) {
			return fmt.Errorf("mcpserver: progress %v not sent: MCP requires it to increase on the previous report (%v)", p.Progress, last)
		}
		if err := ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      p.Progress,
			Total:         p.Total,
			Message:       p.Message,
		}); err != nil {
			return fmt.Errorf("mcpserver: progress notification: %w", err)
		}
		sent, last = true, p.Progress
		return nil
	}
}

// authInfo converts the go-sdk's verified token info; nil for none.
func authInfo(ti *auth.TokenInfo) *registry.AuthInfo {
	if ti == nil {
		return nil
	}
	return &registry.AuthInfo{Subject: ti.UserID, Scopes: ti.Scopes, Expiration: ti.Expiration, Extra: ti.Extra}
}

// isAbsent reports whether raw arguments are missing or JSON null.
func isAbsent(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// protocolError turns a non-nil error from the pipeline into the JSON-RPC
// error the SDK sends instead of a tool result. An unknown tool is
// invalid params (as the SDK reports tools it does not know); a cancelled
// or timed-out call says so; any other error is an internal error whose
// details stay in the log (they may hold internals or secrets).
func (b *binding) protocolError(ctx context.Context, name string, err error) *jsonrpc.Error {
	switch {
	case errors.Is(err, registry.ErrUnknownTool):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	case errors.Is(err, context.Canceled):
		b.log.WarnContext(ctx, "mcpserver: tool call cancelled", "tool", name)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q: call cancelled", name)}
	case errors.Is(err, context.DeadlineExceeded):
		b.log.WarnContext(ctx, "mcpserver: tool call timed out", "tool", name)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q: call timed out", name)}
	default:
		b.log.ErrorContext(ctx, "mcpserver: protocol failure", "tool", name, "error", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q failed with an internal error; the details are in the server log", name)}
	}
}
