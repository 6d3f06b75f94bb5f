package httpguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// BearerOptions configure RequireBearer. The zero value requires a valid
// token that carries an expiration, with realm "toolpack" and no scopes.
type BearerOptions struct {
	// Realm is the realm of the WWW-Authenticate challenge; empty means
	// "toolpack".
	Realm string
	// ResourceMetadataURL, when set, is sent as resource_metadata in the
	// challenge (OAuth 2.0 protected resource metadata, RFC 9728), so that
	// MCP clients can discover the authorization server.
	ResourceMetadataURL string
	// Scopes are required of every token (all of them); a valid token
	// without one is refused with 403 insufficient_scope.
	Scopes []string
	// AllowMissingExpiration accepts tokens whose TokenInfo has no
	// Expiration (static tokens such as those of Tokens); otherwise they
	// are refused, as the SDK's auth.RequireBearerToken does.
	AllowMissingExpiration bool
	// ClockSkew is tolerated when checking a token's expiration.
	ClockSkew time.Duration
	// Logger receives refusals at DEBUG (status and reason, never the
	// token) and verifier failures at ERROR; nil means slog.Default().
	Logger *slog.Logger
}

// RequireBearer returns middleware that lets a request through only with
// "Authorization: Bearer <token>" that verify accepts. It is built on the
// MCP SDK's auth.RequireBearerToken, so it follows MCP's OAuth
// resource-server rules (expiration, scopes) and puts the token's
// *auth.TokenInfo where the SDK's streamable HTTP handler looks for it: the
// SDK binds each MCP session to the TokenInfo's UserID and hands the
// TokenInfo to every tool call (CallToolRequest.Extra.TokenInfo). Behind
// it, TokenInfoFromContext returns the caller's TokenInfo.
//
// A refused request gets 401 (no token, invalid or expired token), 403 (a
// required scope is missing), 400 (the verifier reports auth.ErrOAuth) or
// 500 (the verifier failed otherwise; logged at ERROR), a JSON body
// {"ok":false,"error":…,"error_type":"unauthorized"|"forbidden"} and, for
// 401 and 403, a WWW-Authenticate: Bearer challenge with the realm, the
// RFC 6750 error code, resource_metadata and scope. The token and the
// verifier's error text never appear in a response or a log.
//
// verify is the pluggable part: (*Tokens).Verify checks static tokens, an
// OAuth host supplies its own (JWT or introspection). A nil verify refuses
// every request (and says so at ERROR when RequireBearer is called).
func RequireBearer(verify auth.TokenVerifier, opts BearerOptions) func(http.Handler) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	realm := opts.Realm
	if realm == "" {
		realm = "toolpack"
	}
	if verify == nil {
		log.Error("httpguard: RequireBearer has no token verifier; every request will be refused")
	}
	// The SDK middleware verifies and stores the TokenInfo; its inner
	// handler only records the request that passed, so that the real
	// handler gets the original ResponseWriter and the refusal is written
	// here, the same way for every cause.
	check := auth.RequireBearerToken(func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		rec, _ := ctx.Value(recorderKey{}).(*authRecorder)
		if verify == nil {
			err := fmt.Errorf("%w: no token verifier is configured", auth.ErrInvalidToken)
			if rec != nil {
				rec.verr = err
			}
			return nil, err
		}
		ti, err := verify(ctx, token, r)
		if err != nil && rec != nil {
			rec.verr = err
		}
		return ti, err
	}, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL:    opts.ResourceMetadataURL,
		Scopes:                 opts.Scopes,
		AllowMissingExpiration: opts.AllowMissingExpiration,
		ClockSkew:              opts.ClockSkew,
	})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(*authRecorder).passed = r
	}))
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &authRecorder{}
			orig := r.Context()
			check.ServeHTTP(rec, r.WithContext(context.WithValue(orig, recorderKey{}, rec)))
			if rec.passed != nil {
				next.ServeHTTP(w, rec.passed)
				return
			}
			status, typ, msg := rec.outcome()
			if status == http.StatusInternalServerError {
				log.LogAttrs(orig, slog.LevelError, "httpguard: bearer token could not be verified",
					slog.String("path", r.URL.Path), slog.Any("error", errText(rec.verr, "the verifier returned no TokenInfo")))
			} else {
				log.LogAttrs(orig, slog.LevelDebug, "httpguard: bearer token refused",
					slog.Int("status", status), slog.String("reason", msg), slog.String("method", r.Method),
					slog.String("path", r.URL.Path), slog.String("remote", r.RemoteAddr))
			}
			if status == http.StatusUnauthorized || status == http.StatusForbidden {
				w.Header().Set("WWW-Authenticate", challenge(realm, status, r.Header.Get("Authorization") != "", opts))
			}
			writeError(w, status, typ, msg)
		})
	}
}

// errText is err's text, or def when err is nil. Verifier errors are
// logged: they are the host's own and must not contain the token.
func errText(err error, def string) string {
	if err == nil {
		return def
	}
	return err.Error()
}

// challenge builds the WWW-Authenticate value (RFC 6750 §3, RFC 9728 §5.1).
func challenge(realm string, status int, hadToken bool, opts BearerOptions) string {
	parts := []string{fmt.Sprintf("realm=%q", realm)}
	switch {
	case status == http.StatusForbidden:
		parts = append(parts, `error="insufficient_scope"`)
	case hadToken:
		parts = append(parts, `error="invalid_token"`)
	}
	if opts.ResourceMetadataURL != "" {
		parts = append(parts, fmt.Sprintf("resource_metadata=%q", opts.ResourceMetadataURL))
	}
	if len(opts.Scopes) > 0 {
		parts = append(parts, fmt.Sprintf("scope=%q", strings.Join(opts.Scopes, " ")))
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// recorderKey carries the request's *authRecorder to the verifier wrapper,
// which records the verifier's error there.
type recorderKey struct{}

// authRecorder is the ResponseWriter given to the SDK middleware: it
// records the refusal status and message, or the request that passed.
type authRecorder struct {
	h      http.Header
	status int
	msg    strings.Builder
	passed *http.Request
	verr   error // the verifier's error, if it failed
}

func (a *authRecorder) Header() http.Header {
	if a.h == nil {
		a.h = http.Header{}
	}
	return a.h
}

func (a *authRecorder) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
}

func (a *authRecorder) Write(p []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	if a.msg.Len() < 256 {
		a.msg.Write(p)
	}
	return len(p), nil
}

// outcome turns what the SDK middleware wrote into the refusal to send.
// The SDK's own messages are fixed texts ("no bearer token", "token
// expired", "insufficient scope", …) and are passed on; a verifier's error
// text is replaced by a fixed one, since it is the host's and may say more
// than a client should hear.
func (a *authRecorder) outcome() (int, result.ErrorType, string) {
	sdkMsg := strings.TrimSpace(a.msg.String())
	switch {
	case a.verr != nil && errors.Is(a.verr, auth.ErrInvalidToken):
		return http.StatusUnauthorized, ErrTypeUnauthorized, "unauthorized: the bearer token is not valid"
	case a.verr != nil && errors.Is(a.verr, auth.ErrOAuth):
		return http.StatusBadRequest, ErrTypeUnauthorized, "unauthorized: the bearer token could not be checked (OAuth error)"
	case a.verr != nil || a.status == http.StatusInternalServerError:
		return http.StatusInternalServerError, result.InternalError, "the bearer token could not be checked; the details were logged on the server"
	case a.status == http.StatusForbidden:
		return http.StatusForbidden, ErrTypeForbidden, "forbidden: " + sdkMsg
	case a.status == http.StatusUnauthorized:
		if sdkMsg == "no bearer token" {
			return http.StatusUnauthorized, ErrTypeUnauthorized, "unauthorized: a bearer token is required (Authorization: Bearer <token>)"
		}
		return http.StatusUnauthorized, ErrTypeUnauthorized, "unauthorized: " + sdkMsg
	default:
		return a.status, ErrTypeUnauthorized, "unauthorized: " + sdkMsg
	}
}

type tokenInfoKey struct{}

// ContextWithTokenInfo returns ctx carrying ti, for TokenInfoFromContext.
// Adapters call it where a token was verified outside the HTTP request's
// context (package mcpserver does, for each MCP tool call).
func ContextWithTokenInfo(ctx context.Context, ti *auth.TokenInfo) context.Context {
	return context.WithValue(ctx, tokenInfoKey{}, ti)
}

// AuthInfo converts a verified token to the registry's transport-neutral
// form, which tool handlers read with registry.Request(ctx).Auth (adapters
// attach it); nil for nil.
func AuthInfo(ti *auth.TokenInfo) *registry.AuthInfo {
	if ti == nil {
		return nil
	}
	return &registry.AuthInfo{Subject: ti.UserID, Scopes: ti.Scopes, Expiration: ti.Expiration, Extra: ti.Extra}
}

// TokenInfoFromContext returns the verified bearer token of the caller, or
// nil when the request was not authenticated. A tool handler calls it with
// its context to learn who called: over REST behind RequireBearer and over
// MCP through mcpserver.NewServer (which copies the TokenInfo the SDK hands
// to each tool call). It also finds a TokenInfo stored by the SDK's own
// auth.RequireBearerToken.
func TokenInfoFromContext(ctx context.Context) *auth.TokenInfo {
	if ti, ok := ctx.Value(tokenInfoKey{}).(*auth.TokenInfo); ok && ti != nil {
		return ti
	}
	return auth.TokenInfoFromContext(ctx)
}
