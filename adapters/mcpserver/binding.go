package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/internal/schematype"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// binding serves one registry's tools on one SDK server and keeps them in
// step with the registry.
//
// The registry's tools are not put in the SDK's own tool set: its
// Server.AddTool decodes every schema into a map (twice for the input
// schema) and marks the whole set for re-sorting, which made serving
// 10,000 tools cost most of a second. Instead the binding keeps its own
// index and answers tools/list and tools/call for those tools in a
// receiving middleware (serve.go); the SDK's tool set holds one hidden
// dispatch tool, through which calls still take the SDK's own tools/call
// path, and whose re-adding makes the SDK send (debounced)
// notifications/tools/list_changed.
type binding struct {
	srv      *sdk.Server
	reg      *registry.Registry
	opts     Options
	log      *slog.Logger
	pageSize int

	pending atomic.Bool // a notify is scheduled (notifySoon)

	mu      sync.RWMutex
	scratch *sdk.Server        // made on first need; no client connects to it (see sdkAccepts)
	served  map[string]*served // final tool name → what is served
	sorted  []*served          // served sorted by name; nil when stale; never modified once built
	closed  bool
}

// served is one registry tool as this binding serves it.
type served struct {
	name string
	tool *registry.Tool // the registered tool it was built from
	st   *sdk.Tool
	h    sdk.ToolHandler
}

func (b *binding) displayFor(t *registry.Tool) Display {
	if b.opts.DisplayFor != nil {
		if d, ok := b.opts.DisplayFor(t); ok {
			return d
		}
	}
	return b.opts.Display
}

// apply is the registry subscription callback: it brings every tool the
// change names in line with the registry, at a cost proportional to the
// size of the change, and has the SDK tell clients when what is served
// changed.
func (b *binding) apply(ch registry.Change) {
	if b.reconcile(ch.Removed, ch.Added) {
		b.notifySoon()
	}
}

// reconcile serves, replaces or drops each named tool to match what the
// registry holds now, and reports whether anything changed. Asking the
// registry rather than trusting the change makes the result independent
// of the order in which concurrent changes are reported.
func (b *binding) reconcile(lists ...[]*registry.Tool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	if len(b.served) == 0 {
		n := 0
		for _, ts := range lists {
			n += len(ts)
		}
		if n > 8 {
			b.served = make(map[string]*served, n) // a whole catalogue at once: size the index once
		}
	}
	changed := 0
	for _, ts := range lists {
		for _, t := range ts {
			if b.serveLocked(t.Name) {
				changed++
			}
		}
	}
	if changed > 0 {
		b.sorted = nil
	}
	b.log.Debug("mcpserver: tools synced", "served", len(b.served), "changed", changed)
	return changed > 0
}

// serveLocked makes what is served under name match the registry; b.mu
// must be held.
func (b *binding) serveLocked(name string) bool {
	cur, ok := b.reg.Lookup(name)
	old := b.served[name]
	if !ok {
		if old == nil {
			return false
		}
		delete(b.served, name)
		return true
	}
	if old != nil && old.tool == cur {
		return false
	}
	d := b.displayFor(cur)
	st, err := sdkTool(cur, b.reg.ID())
	if err == nil {
		err = b.sdkAccepts(st)
	}
	if err != nil {
		b.log.Error("mcpserver: tool not served", "tool", name, "error", err)
		if old == nil {
			return false
		}
		delete(b.served, name)
		return true
	}
	if !d.valid() {
		b.log.Error("mcpserver: invalid Display for tool; its calls will fail",
			"tool", name, "display", int(d), "expected", "DisplayEnvelope or DisplayValue")
	}
	b.served[name] = &served{name: name, tool: cur, st: st, h: b.handler(name, d)}
	return true
}

// sdkAccepts reports whether the SDK's Server.AddTool would take t. After
// sdkTool's own checks the only reason left for a refusal is an invalid
// x-mcp-header annotation in the input schema, so only a schema that may
// hold one (its name, or a \u escape that could spell it) is tried, on
// the scratch server, turning the SDK's panic into an error.
func (b *binding) sdkAccepts(t *sdk.Tool) (err error) {
	raw, ok := t.InputSchema.(json.RawMessage)
	if ok && !bytes.Contains(raw, []byte("x-mcp-header")) && !bytes.Contains(raw, []byte(`\u`)) {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the MCP SDK refused the tool: %v", p)
		}
	}()
	if b.scratch == nil {
		b.scratch = sdk.NewServer(&sdk.Implementation{Name: "toolpack-scratch"}, &sdk.ServerOptions{Logger: b.log})
	}
	b.scratch.AddTool(t, refuseCall)
	b.scratch.RemoveTools(t.Name)
	return nil
}

// refuseCall is the handler of tools on the scratch server; it is never
// called.
func refuseCall(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return nil, errors.New("mcpserver: scratch tool called")
}

// notify re-adds the dispatch tool: the SDK counts that as a change of
// its tool set and sends notifications/tools/list_changed to connected
// clients (debounced: many changes in quick succession give one).
func (b *binding) notify() {
	b.srv.AddTool(dispatchTool(), dispatch)
}

// notifyDelay is how long changes are gathered before the SDK is told:
// Server.AddTool costs far more than the change itself (it re-encodes the
// tool's schema twice), and one call announces any number of changes.
// What is listed changes at once; only the announcement waits, and the
// SDK holds it back a further 10 ms anyway to debounce.
const notifyDelay = time.Millisecond

// notifySoon calls notify once, notifyDelay from now, for this change
// and every other made before then.
func (b *binding) notifySoon() {
	if b.pending.CompareAndSwap(false, true) {
		time.AfterFunc(notifyDelay, func() {
			b.pending.Store(false)
			b.notify()
		})
	}
}

func (b *binding) close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	had := len(b.served) > 0
	clear(b.served)
	b.sorted = nil
	b.mu.Unlock()
	if had {
		b.notifySoon()
	}
}

// lookup returns what is served under name, or nil.
func (b *binding) lookup(name string) *served {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.served[name]
}

// snapshot returns the served tools sorted by name. The slice is shared
// and must not be modified; a change builds a new one on the next call.
func (b *binding) snapshot() []*served {
	b.mu.RLock()
	s := b.sorted
	b.mu.RUnlock()
	if s != nil {
		return s
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sorted == nil && len(b.served) > 0 {
		s := make([]*served, 0, len(b.served))
		for _, v := range b.served {
			s = append(s, v)
		}
		slices.SortFunc(s, func(x, y *served) int { return strings.Compare(x.name, y.name) })
		b.sorted = s
	}
	return b.sorted
}

// sdkTool converts a registry tool to the SDK's tool. The input schema is
// kept byte for byte; the output schema is advertised according to the
// tool's output shape (shapeOf): an object schema as it is, a string
// schema (a text tool) not at all, any other schema wrapped as the schema
// of {"value": …} (wrapOutputSchema), so that every structuredContent the
// handler sends is an object that matches it; such a tool's _meta says so
// (mcpmap.MetaWrapped), as each of its results does.
func sdkTool(t *registry.Tool, host string) (*sdk.Tool, error) {
	if err := checkInputSchema(t.InputSchema); err != nil {
		return nil, err
	}
	st := &sdk.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: annotations(t.Annotations),
		// The registries the tool comes through, this one last: a host
		// proxying this one finds its own among them and leaves the tool.
		Meta: sdk.Meta{mcpmap.MetaHosts: append(slices.Clip(t.Via), host)},
	}
	if isRichSchema(t.OutputSchema) {
		// Rich content is shown as content items, never as structured
		// content, so no output schema is advertised.
		return st, nil
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
		st.Meta[mcpmap.MetaWrapped] = true
	}
	return st, nil
}

// checkInputSchema reports whether s is a JSON object whose "type" is
// "object", as MCP requires of every input schema.
func checkInputSchema(s json.RawMessage) error {
	if len(s) == 0 {
		return errors.New(`field InputSchema: expected a JSON Schema with "type":"object", got none`)
	}
	if schematype.IsObject(s) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil || m == nil {
		return errors.New(`field InputSchema: expected a JSON object with "type":"object", got something else`)
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ != "object" {
		return fmt.Errorf(`field InputSchema: expected "type":"object", got "type":%s`, mcpmap.OrNone(m["type"]))
	}
	return nil
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
				Message: fmt.Sprintf("mcpserver: tool %q: field Options.Display (or DisplayFor) is %d; expected DisplayValue (0) or DisplayEnvelope (1)", name, int(d)),
			}
		}
		lazy.once.Do(func() {
			if t, ok := b.reg.Lookup(name); ok {
				lazy.shape, lazy.err = shapeOf(t.OutputSchema)
			}
		})
		if lazy.err != nil {
			return nil, b.protocolError(ctx, name, lazy.err, false)
		}
		var raw json.RawMessage
		if req != nil && req.Params != nil {
			raw = req.Params.Arguments
		}
		if mcpmap.NoArguments(raw) {
			raw = emptyObject
		}
		tctx, untrack := trackCall(requestContext(ctx, req), req)
		defer untrack()
		rctx, release := b.stoppable(tctx)
		defer release()
		var res result.Result[any]
		var err error
		if b.stoppedByHost(rctx) {
			// The host stopped before the call began: the tool is not
			// run (it may change something), the client is told.
			err = context.Cause(rctx)
		} else {
			res, err = b.reg.Invoke(rctx, name, raw)
		}
		if err != nil && b.stoppedByHost(rctx) {
			// Stopped by the host (Options.Stop): the client is told, as
			// a tool error, rather than left without an answer.
			b.log.DebugContext(ctx, "mcpserver: call stopped by the host", "tool", name)
			res, err = stoppedResult(name), nil
		}
		if err != nil {
			return nil, b.protocolError(ctx, name, err, true)
		}
		out, err := toCallToolResultFor(res, d, lazy.shape, clientVersion(req))
		if err != nil {
			return nil, b.protocolError(ctx, name, err, false)
		}
		if budget := registry.BudgetOf(rctx); budget != nil {
			// The forwarding host counts these calls against its run.
			if out.Meta == nil {
				out.Meta = sdk.Meta{}
			}
			out.Meta[registry.MetaCallsUsed] = budget.Used()
		}
		return out, nil
	}
}

// requestContext returns ctx carrying what a handler may learn about the
// MCP request (registry.Request): transport "mcp", the session id, and
// for streamable HTTP the request's headers and the verified bearer token
// (auth.RequireBearerToken) as registry.AuthInfo. When the client sent a
// progress token, registry.ReportProgress sends notifications/progress
// with it on the request's session. With a session, registry.ClientLog,
// Sample and Elicit talk back to the client on it.
func requestContext(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	info := &registry.RequestInfo{Transport: "mcp"}
	if req == nil {
		return registry.WithRequest(ctx, info)
	}
	info.Request = req
	if req.Params != nil && len(req.Params.Meta) > 0 {
		info.Meta = req.Params.Meta
		ctx = registry.WithForwardedBounds(ctx, info.Meta)
	}
	if req.Session != nil {
		info.SessionID = req.Session.ID()
	}
	if req.Extra != nil {
		info.Header = req.Extra.Header
		info.Auth = authInfo(req.Extra.TokenInfo)
	}
	ctx = registry.WithRequest(ctx, info)
	if req.Session != nil {
		ctx = registry.WithPeer(ctx, sessionPeer{req.Session})
	}
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

// protocolError turns a non-nil error from the pipeline into the JSON-RPC
// error the SDK sends instead of a tool result. An unknown tool is
// invalid params (as the SDK reports tools it does not know); a cancelled
// or timed-out call says so; any other error is an internal error whose
// details stay in the log (they may hold internals or secrets).
//
// fromRegistry marks an error returned by Registry.Invoke: the registry's
// Logging stage has logged it already, at the level its rule gives (a
// cancelled call at INFO, a failure at ERROR), so it is logged here at
// DEBUG only (one line per call at the registry's level).
func (b *binding) protocolError(ctx context.Context, name string, err error, fromRegistry bool) *jsonrpc.Error {
	switch {
	case errors.Is(err, registry.ErrUnknownTool):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	case errors.Is(err, context.Canceled):
		b.logEnd(ctx, name, "mcpserver: tool call cancelled", fromRegistry)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q: call cancelled", name)}
	case errors.Is(err, context.DeadlineExceeded):
		b.logEnd(ctx, name, "mcpserver: tool call timed out", fromRegistry)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q: call timed out", name)}
	default:
		if fromRegistry {
			b.log.DebugContext(ctx, "mcpserver: protocol failure (logged by the registry)", "tool", name)
		} else {
			b.log.ErrorContext(ctx, "mcpserver: protocol failure", "tool", name, "error", err)
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q failed with an internal error; the details are in the server log", name)}
	}
}

// logEnd logs a call that ended cancelled or timed out: at DEBUG when the
// registry's Logging has logged it (fromRegistry), at WARN otherwise.
func (b *binding) logEnd(ctx context.Context, name, msg string, fromRegistry bool) {
	level := slog.LevelWarn
	if fromRegistry {
		level = slog.LevelDebug
	}
	b.log.Log(ctx, level, msg, "tool", name)
}
