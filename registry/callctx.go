package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/toolpack-go/toolpack/result"
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

// Detach returns ctx without the call it carries, so that a call made with
// it is not nested in the running one (its Parent reports none), while
// everything else ctx carries stays: cancellation and deadline, progress,
// the request, talk-back to the client, trace context. A tool that passes
// its caller's call on to another tool — progressive disclosure's
// call_tool — invokes it with Detach(ctx): middleware then treats the
// forwarded call as the caller's own (a large-output store stores what it
// returns, as it would for a direct call).
func Detach(ctx context.Context) context.Context {
	if _, ok := CallFrom(ctx); !ok {
		return ctx
	}
	return detached{ctx}
}

// detached hides the call of the context it wraps.
type detached struct{ context.Context }

// Value returns nil for callKey and defers every other key.
func (d detached) Value(key any) any {
	if key == (callKey{}) {
		return nil
	}
	return d.Context.Value(key)
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
	// Meta holds the MCP request's _meta (params._meta), where a client may
	// carry W3C trace context ("traceparent", "tracestate") over any
	// transport; nil when there is none. Treat it as read-only.
	Meta map[string]any
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

// Talking back to the client. A handler running on behalf of an MCP client
// can log to it, ask its model for a completion (sampling) and ask its user
// for input (elicitation) through the functions below, without importing
// an adapter: the adapter installs a Peer on the context. Over REST, in
// process, or when the client did not declare the capability, they return
// an error wrapping ErrUnsupported at once, so a tool can fall back; no
// call waits for a client that cannot answer.

type peerKey struct{}

// ErrUnsupported is wrapped by ClientLog, Sample and Elicit when the
// transport or the client cannot do what was asked (REST, an in-process
// call, a client without the sampling or elicitation capability).
var ErrUnsupported = errors.New("not supported by the caller")

// LogLevel is an MCP log level (RFC 5424 severities, lowercase).
type LogLevel string

// The MCP log levels, from least to most severe.
const (
	LogDebug     LogLevel = "debug"
	LogInfo      LogLevel = "info"
	LogNotice    LogLevel = "notice"
	LogWarning   LogLevel = "warning"
	LogError     LogLevel = "error"
	LogCritical  LogLevel = "critical"
	LogAlert     LogLevel = "alert"
	LogEmergency LogLevel = "emergency"
)

func (l LogLevel) valid() bool {
	switch l {
	case LogDebug, LogInfo, LogNotice, LogWarning, LogError, LogCritical, LogAlert, LogEmergency:
		return true
	}
	return false
}

// SampleMessage is one message of a sampling conversation.
type SampleMessage struct {
	// Role is "user" or "assistant".
	Role string
	// Content is the message: text, an image or audio.
	Content result.Content
}

// SampleRequest asks the client's model for one completion.
type SampleRequest struct {
	// Messages is the conversation; at least one is required.
	Messages []SampleMessage
	// SystemPrompt is optional.
	SystemPrompt string
	// MaxTokens caps the completion; it must be positive.
	MaxTokens int64
}

// SampleResult is the client model's answer.
type SampleResult struct {
	// Role is the role of the answer, normally "assistant".
	Role string
	// Content is the answer.
	Content result.Content
	// Model names the model that answered, as the client reports it.
	Model string
	// StopReason says why the model stopped ("endTurn", "maxTokens", …).
	StopReason string
}

// ElicitRequest asks the client's user for input in a form.
type ElicitRequest struct {
	// Message is shown to the user.
	Message string
	// Schema is the form: a JSON Schema object with "type":"object" and
	// flat primitive properties (string, number, integer, boolean, string
	// enums and multi-select arrays), with optional defaults.
	Schema json.RawMessage
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel".
	Action string
	// Content holds the submitted values when Action is "accept".
	Content map[string]any
}

// Peer is the client side of a call, as an adapter offers it. Adapters
// implement it and install it with WithPeer; a method returns an error
// wrapping ErrUnsupported when the client lacks the capability.
type Peer interface {
	// Log sends a log message to the client, honouring the level the
	// client set (messages below it, or every message when it set none,
	// are dropped without error).
	Log(ctx context.Context, level LogLevel, logger string, data any) error
	// Sample asks the client's model for a completion.
	Sample(ctx context.Context, req SampleRequest) (SampleResult, error)
	// Elicit asks the client's user for input.
	Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error)
}

// WithPeer returns a context whose calls talk back to p. It is for
// adapters.
func WithPeer(ctx context.Context, p Peer) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, peerKey{}, p)
}

func peer(ctx context.Context, what string) (Peer, error) {
	if p, ok := ctx.Value(peerKey{}).(Peer); ok {
		return p, nil
	}
	tr := Request(ctx).Transport
	if tr == "" {
		tr = "in-process"
	}
	return nil, fmt.Errorf("registry: %s: %w (transport %s has no client to talk back to)", what, ErrUnsupported, tr)
}

// ClientLog sends data (a string or any JSON value) to the client's log at
// level, under the logger name of the running tool. An MCP client receives
// a notifications/message when its chosen level lets it through. Without
// a client (REST, in process) it returns an error wrapping ErrUnsupported;
// a tool that only wants its own logs should use Logger instead.
func ClientLog(ctx context.Context, level LogLevel, data any) error {
	if !level.valid() {
		return fmt.Errorf("registry: ClientLog: level %q is not one of debug, info, notice, warning, error, critical, alert, emergency", level)
	}
	p, err := peer(ctx, "ClientLog")
	if err != nil {
		return err
	}
	logger := ""
	if c, ok := CallFrom(ctx); ok && c.Tool != nil {
		logger = c.Tool.Name
	}
	return p.Log(ctx, level, logger, data)
}

// Sample asks the client's model for a completion (MCP sampling). It
// returns an error wrapping ErrUnsupported when the client did not declare
// the sampling capability or the call did not come over MCP.
func Sample(ctx context.Context, req SampleRequest) (SampleResult, error) {
	if len(req.Messages) == 0 {
		return SampleResult{}, errors.New("registry: Sample: field Messages is empty, expected at least one message")
	}
	if req.MaxTokens <= 0 {
		return SampleResult{}, fmt.Errorf("registry: Sample: field MaxTokens is %d, expected a positive number", req.MaxTokens)
	}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return SampleResult{}, fmt.Errorf("registry: Sample: Messages[%d].Role is %q, expected user or assistant", i, m.Role)
		}
		if err := m.Content.Validate(); err != nil {
			return SampleResult{}, fmt.Errorf("registry: Sample: Messages[%d].Content: %w", i, err)
		}
	}
	p, err := peer(ctx, "Sample")
	if err != nil {
		return SampleResult{}, err
	}
	return p.Sample(ctx, req)
}

// Elicit asks the client's user to fill in a form (MCP elicitation). It
// returns an error wrapping ErrUnsupported when the client did not declare
// the elicitation capability or the call did not come over MCP.
func Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error) {
	if req.Message == "" {
		return ElicitResult{}, errors.New("registry: Elicit: field Message is empty, expected the text shown to the user")
	}
	var probe struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(req.Schema, &probe); err != nil || probe.Type != "object" {
		return ElicitResult{}, errors.New(`registry: Elicit: field Schema must be a JSON object with "type":"object"`)
	}
	p, err := peer(ctx, "Elicit")
	if err != nil {
		return ElicitResult{}, err
	}
	return p.Elicit(ctx, req)
}
