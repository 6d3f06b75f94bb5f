package httpguard

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/toolpack-go/toolpack/result"
)

// Defaults of Options.
const (
	// DefaultWriteTimeout bounds each write to the client when
	// Options.WriteTimeout is zero.
	DefaultWriteTimeout = 30 * time.Second
)

// Error types of the JSON bodies this package writes.
const (
	// ErrTypeForbiddenHost: the Host header names a host this listener does
	// not serve (403); on a loopback listener, any non-loopback name (DNS
	// rebinding).
	ErrTypeForbiddenHost result.ErrorType = "forbidden_host"
	// ErrTypeForbiddenOrigin: a browser sent the request from another origin
	// that is not trusted (403).
	ErrTypeForbiddenOrigin result.ErrorType = "forbidden_origin"
	// ErrTypeUnauthorized: no bearer token, or one that is not valid (401,
	// with WWW-Authenticate).
	ErrTypeUnauthorized result.ErrorType = "unauthorized"
	// ErrTypeForbidden: a valid token without a required scope (403, with
	// WWW-Authenticate).
	ErrTypeForbidden result.ErrorType = "forbidden"
)

// Options configure a Guard. The zero value is useful: loopback listeners
// accept only loopback Host names, other listeners any Host; browsers may
// not send cross-origin requests; each write to the client must complete
// within 30 s.
type Options struct {
	// AllowedHosts are Host header values accepted besides the loopback
	// names: "tools.example.com" (any port) or "tools.example.com:8443"
	// (that port only); case does not matter. On a loopback listener the
	// loopback names (localhost, 127.0.0.1, [::1], with or without a port)
	// are always accepted as well. On any other listener an empty list
	// accepts every Host; a non-empty one accepts only the hosts listed.
	// An entry with a scheme, path or bad port is an error from New.
	AllowedHosts []string
	// TrustedOrigins are origins ("https://app.example.com") whose
	// browser pages may send cross-origin requests; see
	// http.CrossOriginProtection.AddTrustedOrigin. An invalid entry is an
	// error from New.
	TrustedOrigins []string
	// WriteTimeout bounds each write to the client (and each flush): a
	// client that stops reading is cut off after it, while a stream that
	// the client keeps reading (MCP's server-sent events) or a slow tool
	// call may last as long as it needs. Zero means DefaultWriteTimeout
	// (30 s); negative means none. Use it instead of
	// http.Server.WriteTimeout, which bounds the whole response and so
	// ends every stream and every call slower than it (behind the guard, a
	// server WriteTimeout is moved forward by each write as well).
	WriteTimeout time.Duration
	// Logger receives refusals at DEBUG (reason, method, path, remote
	// address; never header values other than Host and Origin); nil means
	// slog.Default().
	Logger *slog.Logger
}

// allowedHost is one parsed Options.AllowedHosts entry.
type allowedHost struct {
	host string // lower-cased, IPv6 without brackets
	port string // "" for any port
}

// Guard checks every request of a listener before its handler: the Host
// header (against DNS rebinding) and the Origin of browser requests
// (through http.CrossOriginProtection), and cuts off clients that stop
// reading the response (a per-write deadline). Build it with New; it is
// safe for concurrent use.
type Guard struct {
	hosts []allowedHost
	cop   *http.CrossOriginProtection
	write time.Duration
	log   *slog.Logger
}

// New checks opts and returns a Guard. Every invalid entry of
// AllowedHosts and TrustedOrigins is reported, joined.
func New(opts Options) (*Guard, error) {
	g := &Guard{cop: http.NewCrossOriginProtection(), write: opts.WriteTimeout, log: opts.Logger}
	var errs []error
	for i, h := range opts.AllowedHosts {
		host, port, ok := splitHost(h)
		if !ok || strings.ContainsAny(host, "/?#@ ") {
			errs = append(errs, fmt.Errorf("httpguard: Options.AllowedHosts[%d] = %q: expected a host name or host:port, without scheme or path", i, h))
			continue
		}
		g.hosts = append(g.hosts, allowedHost{host: host, port: port})
	}
	for i, o := range opts.TrustedOrigins {
		if err := g.cop.AddTrustedOrigin(o); err != nil {
			errs = append(errs, fmt.Errorf("httpguard: Options.TrustedOrigins[%d] = %q: expected scheme://host[:port]: %w", i, o, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if g.write == 0 {
		g.write = DefaultWriteTimeout
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	return g, nil
}

// Handler returns next behind the guard. A refused request gets a JSON
// body {"ok":false,"error":…,"error_type":…} with status 403
// (forbidden_host or forbidden_origin) and never reaches next.
//
// The Origin rule of http.CrossOriginProtection is applied to every method,
// not only to unsafe ones: a page of another origin has no business reading
// a tool list or opening an MCP event stream either.
func (g *Guard) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r) {
			g.refuse(w, r, http.StatusForbidden, ErrTypeForbiddenHost,
				fmt.Sprintf("the Host header %s is not served here; expected a loopback name (localhost, 127.0.0.1, [::1]) or a host the server allows", quote(r.Host)))
			return
		}
		if err := g.checkOrigin(r); err != nil {
			g.refuse(w, r, http.StatusForbidden, ErrTypeForbiddenOrigin,
				fmt.Sprintf("cross-origin request refused (Origin %s); only same-origin and trusted origins may call this server", quote(r.Header.Get("Origin"))))
			return
		}
		g.serveWithWriteDeadline(w, r, next)
	})
}

// checkOrigin applies CrossOriginProtection to r as if r were a POST, so
// that safe methods are checked by the same rule.
func (g *Guard) checkOrigin(r *http.Request) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
			return nil // not a browser request: nothing to check
		}
		p := *r
		p.Method = http.MethodPost
		return g.cop.Check(&p)
	default:
		return g.cop.Check(r)
	}
}

// hostAllowed applies the Host rule of Options.AllowedHosts.
func (g *Guard) hostAllowed(r *http.Request) bool {
	loopback := loopbackListener(r)
	if !loopback && len(g.hosts) == 0 {
		return true
	}
	host, port, ok := splitHost(r.Host)
	if !ok {
		return false
	}
	if loopback && IsLoopbackHost(host) {
		return true
	}
	for _, a := range g.hosts {
		if a.host == host && (a.port == "" || a.port == port) {
			return true
		}
	}
	return false
}

// IsLoopbackHost reports whether host (a host name or IP address without
// port or brackets, any case) is one of the loopback names a Guard accepts
// on a loopback listener: localhost, 127.0.0.1 or ::1.
func IsLoopbackHost(host string) bool {
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// IsLoopbackAddr reports whether addr, a listen address such as
// "127.0.0.1:8080", "[::1]:0" or "localhost:8080", can only be reached from
// this machine. An empty host or an unspecified address (":8080",
// "0.0.0.0:8080", "[::]:8080") listens on every interface and is not
// loopback; neither is any other host name.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// loopbackListener reports whether r arrived on a loopback address.
func loopbackListener(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return false
	}
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// splitHost splits a Host header value into its lower-cased host (an IPv6
// address without brackets) and port ("" when absent). ok is false when
// the value is empty or malformed.
func splitHost(h string) (host, port string, ok bool) {
	if h == "" {
		return "", "", false
	}
	rest := ""
	if h[0] == '[' {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", "", false
		}
		host, rest = h[1:end], h[end+1:]
		if _, err := netip.ParseAddr(host); err != nil || !strings.Contains(host, ":") {
			return "", "", false
		}
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 {
		host, rest = h[:i], h[i:]
	} else {
		host = h
	}
	if host == "" || (h[0] != '[' && strings.Contains(host, ":")) {
		return "", "", false
	}
	if rest != "" {
		if rest[0] != ':' || !validPort(rest[1:]) {
			return "", "", false
		}
		port = rest[1:]
	}
	return strings.ToLower(host), port, true
}

func validPort(p string) bool {
	if p == "" || len(p) > 5 {
		return false
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 0 && n <= 65535 && p[0] != '+' && p[0] != '-'
}

// serveWithWriteDeadline runs next with a write deadline moved forward by
// each write; a writer without deadlines (httptest.ResponseRecorder) is
// used as it is.
func (g *Guard) serveWithWriteDeadline(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if g.write <= 0 {
		next.ServeHTTP(w, r)
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetWriteDeadline(time.Now().Add(g.write)) == nil {
		dw := &deadlineWriter{ResponseWriter: w, rc: rc, d: g.write}
		next.ServeHTTP(dw, r)
		dw.arm() // covers the final flush net/http makes after the handler
		return
	}
	next.ServeHTTP(w, r)
}

// deadlineWriter moves the write deadline forward before each write and
// flush, so that every write must complete within d.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) arm() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

// WriteHeader implements http.ResponseWriter.
func (w *deadlineWriter) WriteHeader(code int) {
	w.arm()
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.arm()
	return w.ResponseWriter.Write(p)
}

// FlushError flushes buffered data to the client (http.ResponseController
// uses it).
func (w *deadlineWriter) FlushError() error {
	w.arm()
	return w.rc.Flush()
}

// Flush implements http.Flusher for handlers that assert it directly.
func (w *deadlineWriter) Flush() { _ = w.FlushError() }

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refuse logs a refusal at DEBUG and writes the JSON error.
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, status int, typ result.ErrorType, msg string) {
	g.log.LogAttrs(r.Context(), slog.LevelDebug, "httpguard: request refused",
		slog.String("reason", string(typ)), slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.String("host", r.Host), slog.String("origin", r.Header.Get("Origin")), slog.String("remote", r.RemoteAddr))
	writeError(w, status, typ, msg)
}

// errorBody is the JSON of a refusal, the shape of adapters/httpapi's
// error envelope.
type errorBody struct {
	OK        bool             `json:"ok"`
	Error     string           `json:"error"`
	ErrorType result.ErrorType `json:"error_type"`
}

func writeError(w http.ResponseWriter, status int, typ result.ErrorType, msg string) {
	b, _ := json.Marshal(errorBody{Error: msg, ErrorType: typ}) // strings only: cannot fail
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// quote quotes s for a message, cut to 80 bytes.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		return strconv.Quote(s[:max]) + fmt.Sprintf(" (%d bytes, cut)", len(s))
	}
	return strconv.Quote(s)
}
