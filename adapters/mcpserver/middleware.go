package mcpserver

import (
	"context"
	"log/slog"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/httpguard"
)

// TokenInfoMiddleware is SDK receiving middleware that puts the verified
// bearer token the SDK attaches to each request (RequestExtra.TokenInfo,
// set behind httpguard.RequireBearer or auth.RequireBearerToken) on the
// context of the request's handler, so that a registry tool learns who
// called with httpguard.TokenInfoFromContext(ctx). NewServer installs it;
// add it with (*mcp.Server).AddReceivingMiddleware when you build the
// server yourself and call Register.
func TokenInfoMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
			ctx = httpguard.ContextWithTokenInfo(ctx, ex.TokenInfo)
		}
		return next(ctx, method, req)
	}
}

// sdkLogger returns the logger given to the SDK: the SDK logs every
// session's start, initialization and end at INFO, which is one line per
// client (and a flood of them under a flood of sessions), so INFO records
// become DEBUG. It also warns, for every session, each time a
// notification (tools/list_changed after a registry change) finds the
// session unable to take it — a streamable HTTP client with no stream
// open, which is how most clients call, or one closing: those warnings
// become DEBUG too. So do the SDK's errors and warnings about a client's
// own mistakes (clientMistake) — a request before initialize, a second
// initialize, a protocol version this server does not take — which it
// logs at ERROR once per request, a flood under a misbehaving client with
// nothing for an operator to fix; the client is answered with the error.
// Other warnings and errors, the server's own failures, keep their level.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(demoteInfo{l.Handler()})
}

// demoteInfo is a slog.Handler that logs records in [INFO, WARN), the
// SDK's warnings of a notification a session could not take, and its
// records of a client's mistakes, at DEBUG.
type demoteInfo struct{ h slog.Handler }

func demoted(l slog.Level) slog.Level {
	if l >= slog.LevelInfo && l < slog.LevelWarn {
		return slog.LevelDebug
	}
	return l
}

// undeliverable reports whether msg is the SDK's warning of a
// notification that a session could not take because it has no stream
// open or is closing ("calling notifications/…: rejected by transport:
// undelivered message: stream not connected or already closed",
// "calling notifications/…: client is closing").
func undeliverable(msg string) bool {
	if !strings.HasPrefix(msg, "calling notifications/") {
		return false
	}
	for _, why := range []string{"undelivered message", "is closing", "connection closed"} {
		if strings.Contains(msg, why) {
			return true
		}
	}
	return false
}

// clientMistakes are the messages of the SDK's ERROR and WARN records that
// a client's mistake causes, each answered to the client as an error.
var clientMistakes = []string{
	"method invalid during initialization", // a request before initialize (or without Mcp-Session-Id)
	"duplicate initialize request",
	"initialized before initialize",
	"duplicate initialized notification",
	"method removed in the new protocol",
	"rejecting request with protocol version ", // a 2026-07-28 request to a stateful server
}

// clientMistake reports whether msg is an SDK record of a client's
// mistake.
func clientMistake(msg string) bool {
	for _, m := range clientMistakes {
		if strings.HasPrefix(msg, m) {
			return true
		}
	}
	return false
}

// Enabled implements slog.Handler. A warning stays enabled when DEBUG is
// not, since whether it is demoted depends on its message.
func (d demoteInfo) Enabled(ctx context.Context, l slog.Level) bool {
	return d.h.Enabled(ctx, demoted(l))
}

// Handle implements slog.Handler.
func (d demoteInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demoted(r.Level)
	if (r.Level == slog.LevelWarn && undeliverable(r.Message)) || (r.Level >= slog.LevelWarn && clientMistake(r.Message)) {
		if !d.h.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return d.h.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (d demoteInfo) WithAttrs(as []slog.Attr) slog.Handler { return demoteInfo{d.h.WithAttrs(as)} }

// WithGroup implements slog.Handler.
func (d demoteInfo) WithGroup(name string) slog.Handler { return demoteInfo{d.h.WithGroup(name)} }
