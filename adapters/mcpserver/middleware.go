package mcpserver

import (
	"context"
	"log/slog"

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
// become DEBUG; warnings and errors keep their level.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(demoteInfo{l.Handler()})
}

// demoteInfo is a slog.Handler that logs records in [INFO, WARN) at DEBUG.
type demoteInfo struct{ h slog.Handler }

func demoted(l slog.Level) slog.Level {
	if l >= slog.LevelInfo && l < slog.LevelWarn {
		return slog.LevelDebug
	}
	return l
}

// Enabled implements slog.Handler.
func (d demoteInfo) Enabled(ctx context.Context, l slog.Level) bool {
	return d.h.Enabled(ctx, demoted(l))
}

// Handle implements slog.Handler.
func (d demoteInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demoted(r.Level)
	return d.h.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (d demoteInfo) WithAttrs(as []slog.Attr) slog.Handler { return demoteInfo{d.h.WithAttrs(as)} }

// WithGroup implements slog.Handler.
func (d demoteInfo) WithGroup(name string) slog.Handler { return demoteInfo{d.h.WithGroup(name)} }
