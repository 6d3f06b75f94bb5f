package registry

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// What a handler can learn about, and send back from, the call it runs.
// Adapters put it on the context before they call Registry.Invoke; a
// handler reads it with the functions below, so that a tool never imports
// an adapter. Outside a call, or when an adapter supplies nothing, every
// function returns a usable zero: a call made in-process has no request
// info, and its progress reports go nowhere.

type callKey struct{}

type progressKey struct{}

type requestKey struct{}

// callContext is the context a handler receives: the caller's context plus
// the call. It lives inside the Call, so attaching the call costs no
// allocation of its own.
type callContext struct {
	context.Context
	call *Call
}

// Value returns the call for callKey and defers every other key.
func (cc *callContext) Value(key any) any {
	if key == (callKey{}) {
		return cc.call
	}
	return cc.Context.Value(key)
}

// CallFrom returns the call a handler is running, when ctx is the context
// the registry gave the handler (or derives from it).
func CallFrom(ctx context.Context) (*Call, bool) {
	c, ok := ctx.Value(callKey{}).(*Call)
	return c, ok && c != nil
}

// Parent returns the call whose handler made this one, when the call was
// made with that handler's context: a step of a snippet, a tool calling
// another through Registry.Invoke. A call from an adapter or a host has
// none. Middleware uses it to treat nested calls apart (a large-output
// store keeps only what reaches the outermost caller).
func (c *Call) Parent() (*Call, bool) {
	if c == nil || c.ctx.Context == nil {
		return nil, false
	}
	return CallFrom(c.ctx.Context)
}

// Logger returns the registry's logger with the attribute tool={name} of
// the call running on ctx, for a handler's own log lines. Outside a call it
// returns slog.Default(). Log to it, never to stdout: stdout may carry the
// MCP stdio transport.
func Logger(ctx context.Context) *slog.Logger {
	c, ok := CallFrom(ctx)
	if !ok || c.reg == nil || c.Tool == nil {
		return slog.Default()
	}
	return c.reg.log.With(slog.String("tool", c.Tool.Name))
}

// Progress is one progress report of a running call.
type Progress struct {
	// Progress is the work done so far; it should increase with every
	// report of a call.
	Progress float64
	// Total is the total amount of work; 0 when unknown.
	Total float64
	// Message describes the current step; optional.
	Message string
}

// ProgressFunc delivers a progress report to whoever asked for progress
// (an MCP client that sent a progress token). Adapters supply it with
// WithProgress.
type ProgressFunc func(ctx context.Context, p Progress) error

// WithProgress returns a context whose calls report progress to fn. It is
// for adapters: an MCP adapter installs a function sending MCP progress
// notifications when the client asked for them.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress reports p for the call running on ctx: an MCP client that
// sent a progress token receives a progress notification; elsewhere it
// does nothing and returns nil. The error is the delivery's (the client is
// gone, ctx is done); a tool may ignore it.
func ReportProgress(ctx context.Context, p Progress) error {
	fn, ok := ctx.Value(progressKey{}).(ProgressFunc)
	if !ok {
		return nil
	}
	return fn(ctx, p)
}

// RequestInfo describes the request that carried a call, as the adapter
// saw it.
type RequestInfo struct {
	// Transport is "mcp" or "http" (REST); "" for an in-process call.
	Transport string
	// SessionID is the MCP session id, when the transport has one
	// (streamable HTTP); empty otherwise.
	SessionID string
	// Header holds the HTTP request's headers when the call came over HTTP
	// (REST or MCP's streamable HTTP); nil otherwise. Treat it as
	// read-only.
	Header http.Header
	// Auth describes the authenticated caller; nil when the request carried
	// no verified credentials.
	Auth *AuthInfo
	// Request is the adapter's own request value, for hosts that need more
	// than the fields above: a *mcp.CallToolRequest (go-sdk) for MCP, an
	// *http.Request for REST.
	Request any
}

// AuthInfo is what an adapter's authentication verified about the caller.
type AuthInfo struct {
	// Subject identifies the caller (a user id, a token's name); may be
	// empty when the credential does not say.
	Subject string
	// Scopes are the scopes the credential grants.
	Scopes []string
	// Expiration is when the credential expires; zero when it does not.
	Expiration time.Time
	// Extra holds other verified claims.
	Extra map[string]any
}

// WithRequest returns a context carrying info for the calls made with it.
// It is for adapters.
func WithRequest(ctx context.Context, info *RequestInfo) context.Context {
	if info == nil {
		return ctx
	}
	return context.WithValue(ctx, requestKey{}, info)
}

// Request returns the request info an adapter attached to ctx, or a zero
// RequestInfo (Transport "") for an in-process call. The value is shared:
// do not modify it.
func Request(ctx context.Context) *RequestInfo {
	if info, ok := ctx.Value(requestKey{}).(*RequestInfo); ok {
		return info
	}
	return &RequestInfo{}
}
