// Package mcpgo serves a registry on github.com/mark3labs/mcp-go, for hosts
// built on that SDK rather than the official one (adapters/mcpserver).
// Both adapters share one mapping of tools and results (the same
// advertised schemas, text, structured content and isError for the same
// Result), so a tool behaves the same whichever SDK serves it.
//
// Bind puts the registry's enabled tools on your own *server.MCPServer and
// keeps them in step with the registry: a tool added, removed, enabled or
// disabled there is added to or deleted from the server, which tells the
// connected clients (notifications/tools/list_changed) when it was created
// with server.WithToolCapabilities(true). NewServer makes such a server
// for you.
//
//	s := mcpgo.NewServer(reg, mcpgo.Options{Name: "my-tools", Version: "1.0.0"})
//	_ = server.ServeStdio(s)
//
// Aliases (Registry.SetAliases, a host configuration's aliases:) are not
// listed, and a tools/call of one runs the tool it resolves to: NewServer
// routes them; a server of your own does when its hooks carry AliasHook.
//
//	hooks := &server.Hooks{}
//	hooks.AddBeforeCallTool(mcpgo.AliasHook(reg))
//	s := server.NewMCPServer("my-tools", "1.0.0", server.WithToolCapabilities(true), server.WithHooks(hooks))
//	stop := mcpgo.Bind(s, reg, mcpgo.Options{})
//
// mcp-go answers a name it does not serve itself, so a call of a disabled
// tool, or of an alias whose target is disabled or not served, is a
// JSON-RPC error ("tool not found") here, where adapters/mcpserver answers
// a failed result of type unavailable.
//
// Every call goes through Registry.Invoke: decoding, validation (a domain
// failure listing every field problem, isError true), middleware and
// output checks. A failure's error type is in the result's _meta under
// MetaErrorType, as with adapters/mcpserver. A protocol failure of the pipeline (a bug, a cancelled
// call) is returned to mcp-go as an error, which answers with a JSON-RPC
// error. Arguments are read from the request's raw JSON when mcp-go kept it
// (so integers above 2^53 stay exact), else re-encoded from its map.
//
// A handler learns what the request carried through registry.Request:
// transport "mcp", the session id (when the protocol version has
// sessions), the HTTP headers over streamable HTTP and the request's
// _meta. Hosts proxying each other (adapters/mcpproxy) are protected from
// loops as under adapters/mcpserver: tools/list names the registries a
// tool came through (_meta "toolpack/hosts"), and a forwarded call's depth
// in calls made by tools and its run's calls left count toward this
// host's bounds (registry.MetaCallDepth, MetaCallBudget, MetaCallsUsed).
//
// Talk-back through the context (registry.ClientLog, Sample, Elicit,
// progress) is not wired on this SDK: such calls get
// registry.ErrUnsupported, as over REST.
package mcpgo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// MetaErrorType is the _meta key of a failed tool result that holds the
// failure's error type ("toolpack/error_type").
const MetaErrorType = mcpmap.MetaErrorType

// MetaWrapped is the _meta key (true) of a tool whose advertised output
// schema wraps its value as {"value": …}, and of each result whose
// structuredContent does; a client (adapters/mcpproxy) takes the value
// back out.
const MetaWrapped = mcpmap.MetaWrapped

// Options configure the adapter. The zero value shows plain values and
// logs with slog.Default.
type Options struct {
	// Name and Version are the server's implementation (NewServer only);
	// empty means "toolpack" and "dev".
	Name, Version string
	// Envelope shows every result as the whole Result JSON instead of the
	// plain value (as mcpserver.DisplayEnvelope).
	Envelope bool
	// Logger logs tools that cannot be served and protocol failures.
	Logger *slog.Logger
}

// NewServer returns an mcp-go server (with list-changed notifications)
// serving reg's enabled tools and its aliases (AliasHook), and following
// reg for as long as reg lives: use Bind on a server of your own to stop
// following it (a server made per tenant or per test).
func NewServer(reg *registry.Registry, opts Options) *server.MCPServer {
	name, version := opts.Name, opts.Version
	if name == "" {
		name = "toolpack"
	}
	if version == "" {
		version = "dev"
	}
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(AliasHook(reg))
	s := server.NewMCPServer(name, version, server.WithToolCapabilities(true), server.WithHooks(hooks))
	Bind(s, reg, opts)
	return s
}

// AliasHook returns a before-call hook (server.Hooks.AddBeforeCallTool)
// that routes a tools/call of one of reg's aliases to the tool it resolves
// to, as Registry.Invoke would run it, when that tool is enabled: mcp-go
// looks a called name up among the tools it serves, where aliases are not
// listed. A name the server serves itself, a tool's own name, and a name
// reg does not resolve are left alone.
func AliasHook(reg *registry.Registry) server.OnBeforeCallToolFunc {
	return func(ctx context.Context, _ any, req *mcp.CallToolRequest) {
		if req == nil {
			return
		}
		name := req.Params.Name
		if s := server.ServerFromContext(ctx); s != nil && s.GetTool(name) != nil {
			return
		}
		if !reg.IsAlias(name) {
			return
		}
		if t, enabled, ok := reg.ResolveContext(ctx, name); ok && enabled {
			req.Params.Name = t.Name
		}
	}
}

// binding is one registry served on one mcp-go server.
type binding struct {
	s    *server.MCPServer
	reg  *registry.Registry
	opts Options
	log  *slog.Logger

	mu     sync.Mutex
	served map[string]*registry.Tool // name → the registered tool served
}

// Bind serves reg's enabled tools on s and follows reg until the returned
// function is called (which leaves the served tools in place).
func Bind(s *server.MCPServer, reg *registry.Registry, opts Options) (stop func()) {
	b := &binding{s: s, reg: reg, opts: opts, log: opts.Logger, served: map[string]*registry.Tool{}}
	if b.log == nil {
		b.log = slog.Default()
	}
	stop = reg.Subscribe(func(registry.Change) { b.reconcile() })
	b.reconcile()
	return stop
}

// reconcile makes the server's tools the registry's enabled ones: new or
// replaced tools added, gone ones deleted, in one call each.
func (b *binding) reconcile() {
	b.mu.Lock()
	defer b.mu.Unlock()
	want := map[string]*registry.Tool{}
	for _, t := range b.reg.List() {
		want[t.Name] = t
	}
	var gone []string
	for name, t := range b.served {
		if want[name] != t {
			gone = append(gone, name)
			delete(b.served, name)
		}
	}
	var add []server.ServerTool
	for name, t := range want {
		if b.served[name] == t {
			continue
		}
		st, err := b.serverTool(t)
		if err != nil {
			b.log.Warn("mcpgo: tool not served", "tool", name, "err", err)
			continue
		}
		add = append(add, st)
		b.served[name] = t
	}
	if len(gone) > 0 {
		b.s.DeleteTools(gone...)
	}
	if len(add) > 0 {
		b.s.AddTools(add...)
	}
}

// serverTool is the mcp-go tool of a registry tool: its schemas as the
// shared mapping advertises them, its hints, and a handler invoking it.
func (b *binding) serverTool(t *registry.Tool) (server.ServerTool, error) {
	tool := mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, RawInputSchema: t.InputSchema}
	// The registries the tool comes through, this one last: a host
	// proxying this one (adapters/mcpproxy) finds its own among them and
	// leaves the tool, as with adapters/mcpserver.
	meta := map[string]any{mcpmap.MetaHosts: append(slices.Clip(t.Via), b.reg.ID())}
	tool.Meta = &mcp.Meta{AdditionalFields: meta}
	if len(tool.RawInputSchema) == 0 {
		tool.RawInputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	shape := mcpmap.ShapeFree
	if !mcpmap.IsRichSchema(t.OutputSchema) {
		var err error
		if shape, err = mcpmap.ShapeOf(t.OutputSchema); err != nil {
			return server.ServerTool{}, err
		}
		switch shape {
		case mcpmap.ShapeObject:
			tool.RawOutputSchema = t.OutputSchema
		case mcpmap.ShapeWrapped:
			if tool.RawOutputSchema, err = mcpmap.WrapOutputSchema(t.OutputSchema); err != nil {
				return server.ServerTool{}, err
			}
			meta[mcpmap.MetaWrapped] = true
		}
	}
	a := t.Annotations
	tool.Annotations = mcp.ToolAnnotation{Title: t.Title, ReadOnlyHint: a.ReadOnly, DestructiveHint: a.Destructive, IdempotentHint: a.Idempotent, OpenWorldHint: a.OpenWorld}
	name := t.Name
	return server.ServerTool{Tool: tool, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return b.call(ctx, name, shape, req)
	}}, nil
}

// call runs one tools/call through the registry.
func (b *binding) call(ctx context.Context, name string, shape mcpmap.Shape, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := req.Params.RawArguments
	if mcpmap.NoArguments(raw) {
		raw = nil // absent, as adapters/mcpserver takes null arguments
	}
	if len(raw) == 0 {
		if req.Params.Arguments == nil {
			raw = json.RawMessage("{}")
		} else {
			var err error
			if raw, err = json.Marshal(req.Params.Arguments); err != nil {
				return nil, fmt.Errorf("mcpgo: %s: arguments: %w", name, err)
			}
		}
	}
	ctx = requestContext(ctx, &req)
	res, err := b.reg.Invoke(ctx, name, raw)
	if err != nil {
		return nil, fmt.Errorf("mcpgo: %s: %w", name, err)
	}
	rep, err := mcpmap.Map(res, b.opts.Envelope, shape)
	if err != nil {
		b.log.Error("mcpgo: result cannot be sent", "tool", name, "err", err)
		return nil, fmt.Errorf("mcpgo: %s: %w", name, err)
	}
	out := &mcp.CallToolResult{Content: make([]mcp.Content, len(rep.Content)), IsError: rep.IsError}
	for i, c := range rep.Content {
		out.Content[i] = content(c)
	}
	if rep.Structured != nil {
		out.StructuredContent = rep.Structured
	}
	m := rep.Meta()
	if budget := registry.BudgetOf(ctx); budget != nil {
		// The forwarding host counts these calls against its run.
		if m == nil {
			m = map[string]any{}
		}
		m[registry.MetaCallsUsed] = budget.Used()
	}
	if m != nil {
		out.Meta = &mcp.Meta{AdditionalFields: m}
	}
	return out, nil
}

// requestContext returns ctx carrying what a handler may learn about the
// request (registry.Request): transport "mcp", the session id, the HTTP
// headers when mcp-go kept them, and the request's _meta, where a host
// forwarding the call (adapters/mcpproxy) says how deep it is in calls
// made by tools and how many calls its run has left; both count toward
// this host's bounds, as with adapters/mcpserver.
func requestContext(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	info := &registry.RequestInfo{Transport: "mcp", Header: req.Header, Request: req}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		info.SessionID = s.SessionID()
	}
	if req.Params.Meta != nil && len(req.Params.Meta.AdditionalFields) > 0 {
		info.Meta = req.Params.Meta.AdditionalFields
		ctx = registry.WithForwardedBounds(ctx, info.Meta)
	}
	return registry.WithRequest(ctx, info)
}

// content is the mcp-go item of one valid result.Content.
func content(c result.Content) mcp.Content {
	b64 := func() string { return base64.StdEncoding.EncodeToString(c.Data) }
	switch c.Type {
	case result.ImageContent:
		return mcp.NewImageContent(b64(), c.MIMEType)
	case result.AudioContent:
		return mcp.NewAudioContent(b64(), c.MIMEType)
	case result.ResourceContent:
		if c.Data != nil {
			return mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: c.URI, MIMEType: c.MIMEType, Blob: b64()})
		}
		return mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text})
	case result.ResourceLinkContent:
		return mcp.NewResourceLink(c.URI, c.Name, c.Description, c.MIMEType)
	default:
		return mcp.NewTextContent(c.Text)
	}
}
