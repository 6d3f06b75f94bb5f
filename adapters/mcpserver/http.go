package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of HTTPOptions.
const (
	// DefaultMaxSessions caps the open MCP sessions of one HTTPHandler when
	// HTTPOptions.MaxSessions is zero. A session costs about 12 KB and a
	// few goroutines, so the default bounds them to about 12 MB.
	DefaultMaxSessions = 1000
	// DefaultSessionTimeout closes a session that has received no request
	// for this long, when HTTPOptions.SessionTimeout is zero.
	DefaultSessionTimeout = 30 * time.Minute
	// SessionRetryAfter is the Retry-After of the 503 answer to a new
	// session over the cap.
	SessionRetryAfter = 5 * time.Second
	// CodeTooManySessions is the JSON-RPC error code of that answer (in the
	// range JSON-RPC reserves for server errors).
	CodeTooManySessions = -32000
)

// sessionHeader is the streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// pruneInterval spaces out the scans for closed sessions while at the cap.
const pruneInterval = 100 * time.Millisecond

// HTTPOptions configure HTTPHandler. The zero value is usable: at most
// 1000 sessions, each closed after 30 minutes without a request, 4 MiB per
// request body, no authentication, logs to slog.Default().
type HTTPOptions struct {
	// MaxSessions caps the sessions open at once through this handler: a
	// request that would start one more (a POST without Mcp-Session-Id)
	// is answered 503 with Retry-After and a JSON-RPC error (code
	// CodeTooManySessions) saying so, without creating a session. Closed
	// sessions (DELETE, idle timeout, failed initialization) free their
	// place. Zero means DefaultMaxSessions; negative means no cap.
	MaxSessions int
	// SessionTimeout closes a session, and frees what it holds, when it
	// has received no request for this long (a client that comes back gets
	// 404 and starts a new session, as the MCP specification says). Zero
	// means DefaultSessionTimeout; negative means never.
	SessionTimeout time.Duration
	// MaxBodyBytes caps each request body; a larger one gets 413. Zero or
	// negative means mcp.DefaultMaxRequestBodyBytes (4 MiB).
	MaxBodyBytes int64
	// Auth, when non-nil, wraps the handler: every request passes through
	// it first. Use httpguard.RequireBearer (or the SDK's
	// auth.RequireBearerToken): the SDK then binds each session to the
	// token's UserID, and the TokenInfo reaches every tool call
	// (CallToolRequest.Extra.TokenInfo, and httpguard.TokenInfoFromContext
	// in registry tools of a server built by NewServer).
	Auth func(http.Handler) http.Handler
	// Logger receives refusals at DEBUG, a WARN when the session cap is
	// reached, and the SDK transport's own warnings and errors; nil means
	// slog.Default().
	Logger *slog.Logger
	// Streamable, when non-nil, holds further SDK options (JSONResponse,
	// EventStore, Stateless, …). Its SessionTimeout, MaxRequestBodyBytes
	// and Logger are replaced by the fields above. In Stateless mode there
	// are no sessions, so MaxSessions does not apply.
	Streamable *sdk.StreamableHTTPOptions
}

// HTTPHandler returns the streamable HTTP transport for s, an http.Handler
// that a host mounts on its own mux (for example at "/mcp"), with the
// bounds of opts: a cap on open sessions, idle sessions closed, a body cap,
// and the optional Auth hook in front. Requests whose params do not fit
// their method are answered with a plain JSON-RPC error (see CheckParams).
// The SDK's own DNS rebinding protection stays on; put an httpguard.Guard
// in front of the whole listener for the same protection on every route.
func HTTPHandler(s *sdk.Server, opts HTTPOptions) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	var so sdk.StreamableHTTPOptions
	if opts.Streamable != nil {
		so = *opts.Streamable
	}
	switch {
	case opts.SessionTimeout == 0:
		so.SessionTimeout = DefaultSessionTimeout
	case opts.SessionTimeout < 0:
		so.SessionTimeout = 0 // the SDK's "never"
	default:
		so.SessionTimeout = opts.SessionTimeout
	}
	so.MaxRequestBodyBytes = opts.MaxBodyBytes
	if so.MaxRequestBodyBytes <= 0 {
		so.MaxRequestBodyBytes = sdk.DefaultMaxRequestBodyBytes
	}
	so.Logger = sdkLogger(log)
	h := &httpHandler{
		srv:     s,
		sdk:     sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &so),
		maxBody: so.MaxRequestBodyBytes,
		log:     log,
	}
	maxSessions := opts.MaxSessions
	if maxSessions == 0 {
		maxSessions = DefaultMaxSessions
	}
	if !so.Stateless && maxSessions > 0 {
		h.limit = &sessionLimiter{srv: s, max: maxSessions, ids: map[string]struct{}{}, log: log}
	}
	if opts.Auth != nil {
		return opts.Auth(h)
	}
	return h
}

// httpHandler checks params and the session cap in front of the SDK's
// streamable handler.
type httpHandler struct {
	srv     *sdk.Server
	sdk     *sdk.StreamableHTTPHandler
	maxBody int64
	limit   *sessionLimiter // nil: no cap
	log     *slog.Logger
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		h.delete(w, r)
		return
	}
	if r.Method != http.MethodPost {
		h.sdk.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			h.refuse(w, r, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("the request body is over the limit of %d bytes", h.maxBody)})
			return
		}
		h.refuse(w, r, http.StatusBadRequest, jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "the request body could not be read"})
		return
	}
	var id jsonrpc.ID
	if isBatch(body) {
		if batchesAccepted(r) {
			if answer, bad := batchRefusal(body); answer != nil {
				h.log.LogAttrs(r.Context(), slog.LevelDebug, "mcpserver: request refused",
					slog.String("reason", "a request of the batch has invalid params"), slog.Int("invalid", bad), slog.String("remote", r.RemoteAddr))
				writeJSON(w, http.StatusOK, answer)
				return
			}
		}
	} else if msg, err := jsonrpc.DecodeMessage(body); err == nil { // malformed bodies are the SDK's to answer
		if req, ok := msg.(*jsonrpc.Request); ok {
			id = req.ID
			if jerr := paramsError(req); jerr != nil {
				h.refuse(w, r, http.StatusOK, id, jerr)
				return
			}
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if h.limit == nil || r.Header.Get(sessionHeader) != "" {
		h.sdk.ServeHTTP(w, r)
		return
	}
	if !h.limit.reserve() {
		w.Header().Set("Retry-After", strconv.Itoa(int(SessionRetryAfter/time.Second)))
		h.refuse(w, r, http.StatusServiceUnavailable, id, &jsonrpc.Error{Code: CodeTooManySessions,
			Message: fmt.Sprintf("too many MCP sessions: the server already holds its maximum of %d; retry later (clients should end unused sessions with DELETE)", h.limit.max)})
		return
	}
	h.sdk.ServeHTTP(w, r)
	h.limit.settle(w.Header().Get(sessionHeader))
}

// delete ends a session at its client's request. The SDK closes a
// session only once its calls have returned, and cancels none: a DELETE
// would wait for the longest call and leave it running. So the calls of
// registry tools the session runs are stopped first (their context's
// cause is ErrSessionEnded), those of the request's user only, as the SDK
// lets only the session's user end it; then the SDK closes the session.
func (h *httpHandler) delete(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get(sessionHeader); id != "" {
		if ss := h.session(id); ss != nil {
			user := ""
			if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
				user = ti.UserID
			}
			stopped, done := endSession(ss, user)
			defer done()
			h.log.LogAttrs(r.Context(), slog.LevelDebug, "mcpserver: the client ended its session",
				slog.String("session", id), slog.Int("calls_stopped", stopped), slog.String("remote", r.RemoteAddr))
		}
	}
	h.sdk.ServeHTTP(w, r)
	if h.limit != nil {
		h.limit.sessionEnded()
	}
}

// session returns the open session of the server with id, or nil.
func (h *httpHandler) session(id string) *sdk.ServerSession {
	for ss := range h.srv.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// refuse logs at DEBUG and writes a JSON-RPC error response.
func (h *httpHandler) refuse(w http.ResponseWriter, r *http.Request, status int, id jsonrpc.ID, jerr *jsonrpc.Error) {
	h.log.LogAttrs(r.Context(), slog.LevelDebug, "mcpserver: request refused",
		slog.Int("status", status), slog.Int64("code", jerr.Code), slog.String("reason", jerr.Message), slog.String("remote", r.RemoteAddr))
	writeJSON(w, status, errorResponse(id, jerr))
}

// errorResponse is a JSON-RPC error response to the request with id. An
// unknown id (a body that could not be read, a notification) is written
// "id": null, as JSON-RPC 2.0 requires; the SDK's encoder leaves the
// member out.
func errorResponse(id jsonrpc.ID, jerr *jsonrpc.Error) []byte {
	b, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), jerr})
	if err != nil { // an ID from DecodeMessage always encodes
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return b
}

// writeJSON writes b as the JSON answer of a request.
func writeJSON(w http.ResponseWriter, status int, b []byte) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// sessionLimiter counts the sessions one handler created: the IDs it saw
// in responses, plus requests that may be creating one. Closed sessions
// are found by comparing with the server's live sessions, at most every
// pruneInterval and only when the cap is reached (or after a DELETE).
type sessionLimiter struct {
	srv *sdk.Server
	max int
	log *slog.Logger

	mu        sync.Mutex
	ids       map[string]struct{}
	pending   int
	lastPrune time.Time
	dirty     bool // a session may have ended by DELETE
	full      bool // the cap was reached and logged
}

// reserve takes a place for a new session, or reports false at the cap.
func (l *sessionLimiter) reserve() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ids)+l.pending >= l.max && (l.dirty || time.Since(l.lastPrune) >= pruneInterval) {
		l.pruneLocked()
	}
	if len(l.ids)+l.pending >= l.max {
		if !l.full {
			l.full = true
			l.log.Warn("mcpserver: MCP session cap reached; new sessions are refused until some end",
				"max_sessions", l.max)
		}
		return false
	}
	l.full = false
	l.pending++
	return true
}

// settle turns a reservation into the session id (or frees it when the
// request created none).
func (l *sessionLimiter) settle(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending--
	if id != "" {
		l.ids[id] = struct{}{}
	}
}

// sessionEnded notes that a session may have been closed.
func (l *sessionLimiter) sessionEnded() {
	l.mu.Lock()
	l.dirty = true
	l.mu.Unlock()
}

// pruneLocked keeps only the ids of sessions the server still holds.
func (l *sessionLimiter) pruneLocked() {
	live := make(map[string]struct{}, len(l.ids))
	for ss := range l.srv.Sessions() {
		if id := ss.ID(); id != "" {
			if _, ok := l.ids[id]; ok {
				live[id] = struct{}{}
			}
		}
	}
	l.ids = live
	l.lastPrune = time.Now()
	l.dirty = false
}
