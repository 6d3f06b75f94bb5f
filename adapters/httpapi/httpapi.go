package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolpack-go/toolpack/adapters/httpguard"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// DefaultMaxBodyBytes is the invoke body cap used when Options.MaxBodyBytes
// is zero or negative: 1 MiB.
const DefaultMaxBodyBytes int64 = 1 << 20

// Limits on query parameters of GET /tools.
const (
	// MaxQueryLen caps the q parameter, in bytes.
	MaxQueryLen = 256
	// MaxPackLen caps the pack parameter, in bytes.
	MaxPackLen = 128
)

// Error types of the envelopes this package writes itself (HTTP-level
// problems, before or around Registry.Invoke). A failed Result keeps its
// own error type.
const (
	// ErrTypeUnknownTool: no tool has that name (404). Distinct from
	// result.NotFound, which a tool reports about its own data.
	ErrTypeUnknownTool result.ErrorType = "unknown_tool"
	// ErrTypeUnknownPath: no endpoint at that path (404).
	ErrTypeUnknownPath result.ErrorType = "unknown_path"
	// ErrTypeInvalidName: the tool name in the path does not match
	// [A-Za-z0-9_.-]{1,128} (400).
	ErrTypeInvalidName result.ErrorType = "invalid_name"
	// ErrTypeInvalidPath: the path is not canonical ("//", "/./", "/../")
	// (400).
	ErrTypeInvalidPath result.ErrorType = "invalid_path"
	// ErrTypeInvalidParameter: an unknown, repeated or oversized query
	// parameter (400).
	ErrTypeInvalidParameter result.ErrorType = "invalid_parameter"
	// ErrTypeBadRequest: the request body could not be read (400).
	ErrTypeBadRequest result.ErrorType = "bad_request"
	// ErrTypeMethodNotAllowed: the path exists but not for that method
	// (405, with an Allow header).
	ErrTypeMethodNotAllowed result.ErrorType = "method_not_allowed"
	// ErrTypeTooLarge: the body is over Options.MaxBodyBytes (413).
	ErrTypeTooLarge result.ErrorType = "too_large"
	// ErrTypeUnsupportedMediaType: the Content-Type is missing or not
	// application/json (415).
	ErrTypeUnsupportedMediaType result.ErrorType = "unsupported_media_type"
)

// Options configure the handler built by New. The zero value is usable.
type Options struct {
	// MaxBodyBytes caps the body of an invoke request; a larger body is
	// refused with 413. Zero or negative means DefaultMaxBodyBytes (1 MiB).
	// The registry applies its own argument cap as well (a validation error).
	MaxBodyBytes int64
	// Logger receives protocol failures (ERROR, with the real error), calls
	// that ran out of time (WARN) and client disconnects (DEBUG); nil means
	// slog.Default(). Nothing else is logged.
	Logger *slog.Logger
	// Title is info.title of the OpenAPI document; empty means "toolpack".
	Title string
	// Version is info.version of the OpenAPI document; empty means "0.0.0".
	Version string
	// ServerURL, when set, is written as the only entry of the OpenAPI
	// document's servers list (for example "http://127.0.0.1:8080/api" when
	// the handler is mounted under /api). Empty omits servers, which OpenAPI
	// reads as "/".
	ServerURL string
	// Auth, when non-nil, wraps every endpoint: a request passes through it
	// before anything else. Use httpguard.RequireBearer (bearer tokens
	// checked by a verifier the host supplies; 401 with WWW-Authenticate
	// otherwise); a tool handler then reads the caller's verified token
	// with httpguard.TokenInfoFromContext(ctx). Nil serves every request.
	Auth func(http.Handler) http.Handler
	// AltValueSchema, when non-nil, gives another schema a tool's value
	// may take besides its output schema, or nil: the handle object a
	// large-output store returns in place of a large value
	// (othost.Wiring.StoredSchema, results.StoredSchema). The OpenAPI
	// document then declares the 200 value as any of the two, so that a
	// client checking responses against it accepts a stored output. A
	// tool without an output schema (any value) is left as it is.
	AltValueSchema func(t *registry.Tool) json.RawMessage
}

// Handler serves one registry as HTTP/JSON. Build it with New; it is safe
// for concurrent use.
type Handler struct {
	reg      *registry.Registry
	log      *slog.Logger
	maxBody  int64
	title    string
	version  string
	server   string
	mux      *http.ServeMux
	entry    http.Handler // mux behind the path check and Options.Auth
	doc      *docCache
	altValue func(*registry.Tool) json.RawMessage
	bufs     sync.Pool // *outBuf for invoke responses

	unsubscribe func() // ends the registry subscription
	closeOnce   sync.Once
	closed      atomic.Bool
}

// New returns an http.Handler serving reg as HTTP/JSON:
//
//	GET  /tools                 list (?pack= exact, ?q= case-insensitive substring)
//	GET  /tools/{name}          one tool: schemas, annotations, description
//	POST /tools/{name}/invoke   call the tool with the JSON body as arguments
//	GET  /openapi.json          OpenAPI 3.1 document generated from reg
//
// Every other path is a JSON 404; a known path with another method is a JSON
// 405 with an Allow header. Paths are relative to where the handler is
// mounted; use http.StripPrefix to mount it under a prefix, and wrap the
// http.ServeMux it is mounted on with CanonicalPaths. See the package
// documentation for status codes and envelopes.
//
// The handler subscribes to reg to keep its cached OpenAPI document in
// sync; Close ends the subscription.
func New(reg *registry.Registry, opts Options) *Handler {
	h := &Handler{
		reg:      reg,
		log:      opts.Logger,
		maxBody:  opts.MaxBodyBytes,
		title:    opts.Title,
		version:  opts.Version,
		server:   opts.ServerURL,
		doc:      &docCache{},
		altValue: opts.AltValueSchema,
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if h.title == "" {
		h.title = "toolpack"
	}
	if h.version == "" {
		h.version = "0.0.0"
	}
	h.bufs.New = func() any {
		o := &outBuf{}
		o.enc = json.NewEncoder(&o.buf)
		o.enc.SetEscapeHTML(false) // JSON for JSON clients: "a < b", not "a \u003c b"
		return o
	}

	h.unsubscribe = reg.Subscribe(func(registry.Change) { h.doc.invalidate() })

	mux := http.NewServeMux()
	mux.HandleFunc("GET /tools", h.list)
	mux.HandleFunc("/tools", methodNotAllowed("GET, HEAD"))
	mux.HandleFunc("GET /tools/{name}", h.describe)
	mux.HandleFunc("/tools/{name}", methodNotAllowed("GET, HEAD"))
	mux.HandleFunc("POST /tools/{name}/invoke", h.invoke)
	mux.HandleFunc("/tools/{name}/invoke", methodNotAllowed("POST"))
	mux.HandleFunc("GET /openapi.json", h.openAPI)
	mux.HandleFunc("/openapi.json", methodNotAllowed("GET, HEAD"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, ErrTypeUnknownPath,
			fmt.Sprintf("no endpoint at %s; expected GET /tools, GET /tools/{name}, POST /tools/{name}/invoke or GET /openapi.json", quoteTrunc(r.URL.Path)), nil)
	})
	h.mux = mux
	h.entry = CanonicalPaths(mux)
	if opts.Auth != nil {
		h.entry = opts.Auth(h.entry)
	}
	return h
}

// ServeHTTP serves the API: Options.Auth first, if any, then the path
// check (a non-canonical path, which http.ServeMux would answer with a
// redirect, is a 400), then the endpoints.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.entry.ServeHTTP(w, r)
}

// Close ends the handler's subscription to the registry. Call it when the
// handler is no longer served but the registry lives on; a handler that
// lives as long as its registry needs no Close. A closed handler still
// serves every endpoint; it no longer caches the OpenAPI document but
// builds it on each request. Close is idempotent and safe for concurrent
// use.
func (h *Handler) Close() {
	h.closeOnce.Do(func() {
		h.closed.Store(true)
		h.unsubscribe()
	})
}

// CanonicalPaths wraps next so that a request whose path is not canonical
// (an empty, "." or ".." segment, encoded or not, such as
// /tools/../etc/passwd/invoke) gets this package's 400 invalid_path
// instead of reaching next. Wrap the http.ServeMux that New's handler is
// mounted on with it: the mux redirects such paths to their cleaned form
// (a 307 to a different endpoint) before the handler sees them.
//
//	mux := http.NewServeMux()
//	mux.Handle("/", httpapi.New(reg, httpapi.Options{}))
//	mux.Handle("/mcp", mcpHandler)
//	srv := &http.Server{Handler: httpapi.CanonicalPaths(mux)}
func CanonicalPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; !canonicalPath(p) {
			writeError(w, http.StatusBadRequest, ErrTypeInvalidPath,
				fmt.Sprintf("path %s is not canonical; expected no empty, \".\" or \"..\" segments", quoteTrunc(p)), nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// canonicalPath reports whether p starts with "/" and has no empty (except
// a trailing one), "." or ".." segments.
func canonicalPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for s := p[1:]; ; {
		i := strings.IndexByte(s, '/')
		seg := s
		if i >= 0 {
			seg = s[:i]
		}
		switch {
		case seg == "." || seg == "..":
			return false
		case seg == "" && i >= 0:
			return false
		}
		if i < 0 {
			return true
		}
		s = s[i+1:]
	}
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, ErrTypeMethodNotAllowed,
			fmt.Sprintf("method %s is not allowed on %s; allowed: %s", quoteTrunc(r.Method), quoteTrunc(r.URL.Path), allow), nil)
	}
}

// pathName returns the {name} path value, or writes a 400 and returns false.
func pathName(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.PathValue("name")
	if !registry.ValidName(name) {
		writeError(w, http.StatusBadRequest, ErrTypeInvalidName,
			fmt.Sprintf("tool name %s in the path is invalid; expected 1 to %d characters from [A-Za-z0-9_.-]", quoteTrunc(name), registry.MaxNameLen), nil)
		return "", false
	}
	return name, true
}

// noQuery writes a 400 and returns false when the request has any query
// parameter: the endpoint takes none, and ignoring them would hide mistakes.
func noQuery(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.RawQuery == "" {
		return true
	}
	writeError(w, http.StatusBadRequest, ErrTypeInvalidParameter,
		fmt.Sprintf("%s takes no query parameters; got %s", quoteTrunc(r.URL.Path), quoteTrunc(r.URL.RawQuery)), nil)
	return false
}

// jsonContentType reports whether ct is application/json, with optional
// parameters; a charset parameter must be utf-8. It returns the reason
// when it is not.
func jsonContentType(ct string) (bool, string) {
	if ct == "application/json" {
		return true, ""
	}
	if strings.TrimSpace(ct) == "" {
		return false, "the Content-Type header is missing; expected application/json"
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return false, fmt.Sprintf("the Content-Type %s cannot be parsed (%v); expected application/json", quoteTrunc(ct), err)
	}
	if mt != "application/json" {
		return false, fmt.Sprintf("the Content-Type is %s; expected application/json", quoteTrunc(mt))
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return false, fmt.Sprintf("the charset is %s; expected utf-8", quoteTrunc(cs))
	}
	return true, ""
}

// invoke serves POST /tools/{name}/invoke.
func (h *Handler) invoke(w http.ResponseWriter, r *http.Request) {
	name, ok := pathName(w, r)
	if !ok || !noQuery(w, r) {
		return
	}
	if ok, why := jsonContentType(r.Header.Get("Content-Type")); !ok {
		writeError(w, http.StatusUnsupportedMediaType, ErrTypeUnsupportedMediaType, why, nil)
		return
	}
	body, status, msg := h.readBody(w, r)
	if status != 0 {
		typ := ErrTypeBadRequest
		if status == http.StatusRequestEntityTooLarge {
			typ = ErrTypeTooLarge
		}
		writeError(w, status, typ, msg, nil)
		return
	}
	if t := bytes.Trim(body, " \t\r\n"); len(t) == 0 || string(t) == "null" { // JSON's white space only
		body = nil // no arguments, as an MCP call's absent or null arguments
	}
	ctx := registry.WithRequest(r.Context(), &registry.RequestInfo{
		Transport: "http",
		Header:    r.Header,
		Auth:      httpguard.AuthInfo(httpguard.TokenInfoFromContext(r.Context())),
		Request:   r,
	})
	res, err := h.reg.Invoke(ctx, name, body)
	if err != nil {
		h.protocolFailure(w, r, name, err)
		return
	}
	h.writeResult(w, r, name, res)
}

// readBody reads at most h.maxBody bytes. On failure it returns the status
// (413 or 400) and a message.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, string) {
	tooLarge := func() ([]byte, int, string) {
		return nil, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("the request body is over the limit; expected at most %d bytes", h.maxBody)
	}
	if r.ContentLength > h.maxBody {
		return tooLarge()
	}
	if r.Body == nil { // only hand-made requests; a server always sets one
		return nil, 0, ""
	}
	var (
		body []byte
		err  error
	)
	if r.ContentLength >= 0 {
		// The length is known and within the cap; net/http's body reader
		// stops at Content-Length, so no MaxBytesReader is needed.
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, body)
		if err == nil {
			// Only hand-made requests can carry more than their
			// Content-Length; refuse rather than ignore the rest.
			var one [1]byte
			if n, _ := r.Body.Read(one[:]); n > 0 {
				err = errors.New("body longer than its Content-Length")
			}
		}
	} else {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	}
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return tooLarge()
		}
		return nil, http.StatusBadRequest, fmt.Sprintf("the request body could not be read: %v", err)
	}
	return body, 0, ""
}

// ErrServerStopping is the cause a server gives when it cancels the
// requests still running at the end of its shutdown grace
// (context.WithCancelCause on the requests' contexts): a call it stops is
// answered 503 unavailable, saying the server is shutting down, rather
// than taken for a client that went away. It is the same error as
// mcpserver.ErrServerStopping, so that one cause stops the REST and the
// MCP calls of a server (see mcpserver.Options.Stop).
var ErrServerStopping = toolmsg.ErrServerStopping

// protocolFailure maps a non-nil error from Registry.Invoke to a status.
// Only unknown tools, cancellation and deadlines are told to the client;
// anything else is a 500 with a fixed message, logged at ERROR.
func (h *Handler) protocolFailure(w http.ResponseWriter, r *http.Request, name string, err error) {
	ctx := r.Context()
	switch {
	case errors.Is(err, registry.ErrUnknownTool):
		writeError(w, http.StatusNotFound, ErrTypeUnknownTool,
			fmt.Sprintf("no tool named %q; GET /tools lists the tools", name), nil)
	case errors.Is(err, context.Canceled) && errors.Is(context.Cause(ctx), ErrServerStopping):
		writeError(w, http.StatusServiceUnavailable, result.Unavailable,
			toolmsg.ServerStopping(name), nil)
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		h.log.LogAttrs(ctx, slog.LevelDebug, "httpapi: client went away during the call",
			slog.String("tool", name), slog.Any("err", err))
		writeError(w, StatusClientClosedRequest, result.Cancelled,
			fmt.Sprintf("the call to tool %q was cancelled", name), nil)
	case errors.Is(err, context.DeadlineExceeded):
		h.log.LogAttrs(ctx, slog.LevelWarn, "httpapi: call ran out of time",
			slog.String("tool", name), slog.Any("err", err))
		writeError(w, http.StatusGatewayTimeout, result.Timeout,
			fmt.Sprintf("the call to tool %q ran out of time", name), nil)
	default:
		// The registry has logged the failure at ERROR already (it is its
		// Logging stage's job); one line per failure is enough.
		h.log.LogAttrs(ctx, slog.LevelDebug, "httpapi: call failed with a protocol failure (logged by the registry)",
			slog.String("tool", name))
		h.writeInternal(w, name)
	}
}

// internal logs err, a failure of this package's own (a value that does not
// marshal), at ERROR and writes a 500 without internals.
func (h *Handler) internal(w http.ResponseWriter, r *http.Request, name string, err error) {
	h.log.LogAttrs(r.Context(), slog.LevelError, "httpapi: call failed",
		slog.String("tool", name), slog.String("path", r.URL.Path), slog.Any("err", err))
	h.writeInternal(w, name)
}

// writeInternal writes a 500 without internals.
func (h *Handler) writeInternal(w http.ResponseWriter, name string) {
	msg := "internal error; the details were logged on the server"
	if name != "" {
		msg = fmt.Sprintf("tool %q failed with an internal error; the details were logged on the server", name)
	}
	writeError(w, http.StatusInternalServerError, result.InternalError, msg, nil)
}

// outBuf is a pooled response buffer with an encoder bound to it; writing
// to a bytes.Buffer cannot fail, so the encoder never keeps an error.
type outBuf struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// appendJSON appends the JSON of v (without the encoder's newline).
func (o *outBuf) appendJSON(v any) error {
	n := o.buf.Len()
	if err := o.enc.Encode(v); err != nil {
		o.buf.Truncate(n)
		return err
	}
	o.buf.Truncate(o.buf.Len() - 1)
	return nil
}

// appendString appends s as a JSON string; marshalling a string cannot fail.
func (o *outBuf) appendString(s string) { _ = o.appendJSON(s) }

// writeResult writes a Result as the invoke envelope.
func (h *Handler) writeResult(w http.ResponseWriter, r *http.Request, name string, res result.Result[any]) {
	o := h.bufs.Get().(*outBuf)
	defer func() {
		if o.buf.Cap() <= 64<<10 {
			h.bufs.Put(o)
		}
	}()
	o.buf.Reset()
	status := http.StatusOK
	if res.Success {
		if err := validRich(res.Value); err != nil {
			h.internal(w, r, name, err)
			return
		}
		o.buf.WriteString(`{"ok":true,"value":`)
		if err := o.appendJSON(res.Value); err != nil {
			h.internal(w, r, name, fmt.Errorf("marshal value: %w", err))
			return
		}
	} else {
		tool, _ := h.reg.Lookup(name)
		status = toolStatus(tool, res.ErrorType)
		o.buf.WriteString(`{"ok":false,"error":`)
		o.appendString(res.Error)
		o.buf.WriteString(`,"error_type":`)
		o.appendString(string(res.ErrorType))
		if res.ErrorData != nil {
			o.buf.WriteString(`,"details":`)
			if err := o.appendJSON(res.ErrorData); err != nil {
				h.internal(w, r, name, fmt.Errorf("marshal error data: %w", err))
				return
			}
		}
	}
	if res.Message != "" {
		o.buf.WriteString(`,"message":`)
		o.appendString(res.Message)
	}
	if res.Instruction != "" {
		o.buf.WriteString(`,"instruction":`)
		o.appendString(res.Instruction)
	}
	o.buf.WriteByte('}')
	writeJSON(w, status, o.buf.Bytes(), false)
}

// marshal is json.Marshal without HTML escaping: the answers are
// application/json with nosniff, never HTML, so <, > and & are written as
// they are, as the MCP adapter writes them.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// envelope is the JSON body of every error this package writes itself.
type envelope struct {
	OK        bool             `json:"ok"`
	Error     string           `json:"error"`
	ErrorType result.ErrorType `json:"error_type"`
	Details   any              `json:"details,omitempty"`
}

func writeError(w http.ResponseWriter, status int, typ result.ErrorType, msg string, details any) {
	b, err := marshal(envelope{Error: msg, ErrorType: typ, Details: details})
	if err != nil {
		// Only details could fail; they are always marshalable here.
		b = []byte(`{"ok":false,"error":"internal error","error_type":"internal_error"}`)
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, b, true)
}

// writeJSON writes b with the JSON content type. noStore adds
// Cache-Control: no-store, for answers a cache could otherwise keep (GET
// answers, and errors, since a 404 is cacheable by default); invoke answers
// to POST are not cached anyway and skip it. net/http adds Content-Length
// for small bodies and chunks large ones.
func writeJSON(w http.ResponseWriter, status int, b []byte, noStore bool) {
	hd := w.Header()
	hd["Content-Type"] = []string{"application/json"}
	hd["X-Content-Type-Options"] = []string{"nosniff"}
	if noStore {
		hd["Cache-Control"] = []string{"no-store"}
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// quoteTrunc quotes s for an error message, cut to 80 bytes so hostile
// input cannot inflate responses.
func quoteTrunc(s string) string {
	const max = 80
	if len(s) > max {
		return strconv.Quote(s[:max]) + fmt.Sprintf(" (%d bytes, cut)", len(s))
	}
	return strconv.Quote(s)
}

// validRich checks a rich value (result.Contents or result.Content) before
// it is written: its JSON form carries the data base64-encoded beside the
// MIME type, and an item missing what its kind needs is a protocol failure,
// as in the MCP adapter.
func validRich(v any) error {
	switch v := v.(type) {
	case result.Contents:
		return v.Validate()
	case result.Content:
		return v.Validate()
	}
	return nil
}
