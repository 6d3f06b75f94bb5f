package oj

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/packs/oj/internal/convert"
	"github.com/toolpack-go/toolpack/packs/oj/internal/format"
	"github.com/toolpack-go/toolpack/packs/oj/internal/wire"
	"github.com/toolpack-go/toolpack/result"
)

// Limits of every backend request.
const (
	// RequestTimeout bounds each backend request, body included.
	RequestTimeout = 30 * time.Second
	// MaxRedirects is how many redirects a request follows at most. Only
	// redirects within the configured origin are followed (see
	// Config.BaseURL).
	MaxRedirects = 10
	// MaxBodyBytes is how much of a response body is read at most; the rest
	// is never read.
	MaxBodyBytes = 1_048_576
	// MaxErrorBodyChars is how many Unicode characters of text from the
	// backend appear in a failure text (and so in a log line): an error
	// body, an RFC 7807 title and detail, the reason a request or a decoding
	// failed. The token is redacted before the text is cut.
	MaxErrorBodyChars = 500
	// MaxOutputBytes is the size cap of every tool output, marker included:
	// longer Markdown is cut at a UTF-8 character boundary and ends with
	// TruncatedSuffix.
	MaxOutputBytes = format.MaxOutputBytes
	// TruncatedSuffix ends an output cut at MaxOutputBytes.
	TruncatedSuffix = format.TruncatedSuffix
	// DefaultConvertCacheBytes is the size of the memo of recent
	// HTML→Markdown conversions when Config.ConvertCacheBytes is 0.
	DefaultConvertCacheBytes = convert.DefaultCacheBytes
)

// Errors returned by this package; check them with errors.Is.
var (
	// ErrConfig: NewClient or New was given an unusable Config.
	ErrConfig = errors.New("oj: invalid configuration")
	// ErrRequest: the backend could not be reached (refused, DNS, timeout,
	// too many redirects). A protocol failure.
	ErrRequest = errors.New("oj: request failed")
	// ErrMalformedResponse: the backend answered 200 with data that is not
	// what was promised (not JSON, bad JSON, missing fields, not UTF-8). A
	// protocol failure.
	ErrMalformedResponse = errors.New("oj: malformed backend response")
)

// Config configures a Client. BaseURL is required; every other zero value
// has a documented meaning.
type Config struct {
	// BaseURL is the backend's origin: http or https, a host, an optional
	// port, no path other than "/", no query, no fragment, no credentials.
	// A trailing "/" is dropped. Requests go to this origin only: a
	// redirect to another origin (another scheme, host or port) is not
	// followed, and the call fails with an upstream failure naming the
	// target's origin.
	BaseURL string
	// Token, when non-empty, is sent as "Authorization: Bearer {Token}" on
	// every request to BaseURL's origin, and to no other; empty means no
	// Authorization header at all (and get_platform_status fails without a
	// request). It never appears in a log line, an error or a failure text:
	// text from the backend is searched for it and it is replaced by
	// Redacted. Successful Markdown is returned as the backend's data made
	// it, never searched (a short token would corrupt ordinary text).
	Token string
	// HTTPClient sends the requests. Nil means a plain http.Client. A given
	// client is copied: its Transport, Jar and Timeout are used as they
	// are, and its CheckRedirect (if any) runs after this package's own
	// redirect rule, which refuses other origins; without one, at most
	// MaxRedirects redirects are followed. Every request is bounded by
	// RequestTimeout through its context.
	HTTPClient *http.Client
	// Now returns the current time, for the default daily-challenge date
	// (taken in UTC). Nil means time.Now.
	Now func() time.Time
	// Logger receives debug logs of each request: the path with the names
	// of its query parameters but not their values (the resolve query is
	// left out too), the status, the size and the duration; never the
	// token, a header or a body. Nil means slog.Default().
	Logger *slog.Logger
	// ConvertCacheBytes bounds the memo of recent HTML→Markdown
	// conversions: statements and their Markdown together stay within this
	// many bytes (least recently used dropped first; a statement over an
	// eighth of it is never kept). Conversion is the most expensive step
	// of a problem call and the same statements are fetched again and
	// again; the memo never changes a result. 0 means
	// DefaultConvertCacheBytes, a negative value turns the memo off.
	ConvertCacheBytes int
}

// DomainError is a failure the caller (a model) should see and can react
// to: an argument rule, a missing token, an HTTP error status from the
// backend, a redirect to another origin, or a 202 answer (not ready yet).
// Client methods return it, and the pack's tools turn it into a failed
// result.Result (with Instruction). Any other error from a Client method is
// a protocol failure.
type DomainError struct {
	// Type classifies the failure: result.ValidationError for argument
	// rules, result.PermissionDenied for a missing token,
	// result.UpstreamFailure for an HTTP error status or a redirect to
	// another origin, result.Unavailable for a 202 answer (the backend is
	// still fetching what was asked for).
	Type result.ErrorType
	// Message is the text shown to the model. Text from the backend in it
	// is cut to MaxErrorBodyChars characters, the token redacted.
	Message string
	// Instruction, when non-empty, tells the agent what to do next (for a
	// 202 answer: when to retry).
	Instruction string
	// Status is the HTTP status of the answer behind an upstream or
	// unavailable failure (for a refused redirect, the redirect's status);
	// 0 otherwise.
	Status int
}

// Error returns Message.
func (e *DomainError) Error() string { return e.Message }

func validationError(msg string) error {
	return &DomainError{Type: result.ValidationError, Message: msg}
}

// Client talks to an OJ backend and renders its answers as Markdown. It is
// safe for concurrent use.
type Client struct {
	base   string // origin as configured, no trailing "/"
	origin string // scheme://host:port with the port explicit, for comparisons
	token  string
	http   *http.Client
	now    func() time.Time
	log    *slog.Logger
	conv   *convert.Converter
}

// NewClient checks cfg and returns a Client. A bad BaseURL or a token that
// cannot be sent in a header is an error wrapping ErrConfig.
func NewClient(cfg Config) (*Client, error) {
	base, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(cfg.Token); i++ {
		if c := cfg.Token[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return nil, fmt.Errorf("%w: token: contains a character not allowed in an HTTP header (expected visible ASCII)", ErrConfig)
		}
	}
	u, _ := url.Parse(base) // parseBaseURL checked it
	c := &Client{base: base, origin: originOf(u), token: cfg.Token, now: cfg.Now, log: cfg.Logger,
		conv: convert.New(convert.WithCacheBytes(cfg.ConvertCacheBytes))}
	// No http.Client.Timeout by default: get bounds every request, body
	// included, with a RequestTimeout context deadline, and Client.Timeout
	// would add a timer, a goroutine and a second context per request.
	c.http = &http.Client{}
	var next func(*http.Request, []*http.Request) error
	if cfg.HTTPClient != nil {
		copied := *cfg.HTTPClient
		c.http, next = &copied, cfg.HTTPClient.CheckRedirect
	}
	c.http.CheckRedirect = c.checkRedirect(next)
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// parseBaseURL checks that raw is an origin (see Config.BaseURL) and returns
// it without a trailing "/". Errors wrap ErrConfig and name base URL, and
// never quote raw: its path, query, fragment or user information may
// carry a token.
func parseBaseURL(raw string) (string, error) {
	fail := func(format string, a ...any) (string, error) {
		return "", fmt.Errorf("%w: base URL: "+format, append([]any{ErrConfig}, a...)...)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fail("not a URL (expected an origin such as https://example.com; value not shown)")
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return fail("no scheme (expected http:// or https://; value not shown)")
	default:
		return fail("unsupported scheme %q (expected http or https)", u.Scheme)
	}
	switch {
	case u.Opaque != "" || u.Host == "":
		return fail("no host (expected an origin such as https://example.com; value not shown)")
	case u.User != nil:
		return fail("must not contain credentials")
	case u.Path != "" && u.Path != "/":
		return fail("must be an origin without a path (value not shown)")
	case u.RawQuery != "" || u.ForceQuery:
		return fail("must not contain a query string")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fail("must not contain a fragment")
	case u.Port() == "" && strings.HasSuffix(u.Host, ":"):
		return fail("empty port (expected a port number after the colon; value not shown)")
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// BaseURL returns the checked base URL (no trailing "/").
func (c *Client) BaseURL() string { return c.base }

// response is what get read from the backend.
type response struct {
	status int
	body   []byte
	isJSON bool
}

// get sends GET {base}{path}. logPath is path as it may be logged and
// shown: without query values or free text (see pathForLog). A transport
// failure is an error wrapping ErrRequest; a redirect to another origin is
// a *DomainError; any HTTP status is a response.
func (c *Client) get(ctx context.Context, path, logPath string) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, c.requestError(logPath, "build request", err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	debug := c.log.Enabled(ctx, slog.LevelDebug) // skip building log attributes when off
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		var co *crossOriginError
		if errors.As(err, &co) {
			if debug {
				c.log.LogAttrs(ctx, slog.LevelDebug, "oj request redirected to another origin, not followed",
					slog.String("path", logPath), slog.Int("status", co.status), slog.Duration("elapsed", time.Since(start)))
			}
			return nil, c.crossOriginFailure(co)
		}
		if debug {
			c.log.LogAttrs(ctx, slog.LevelDebug, "oj request failed", slog.String("path", logPath), slog.Duration("elapsed", time.Since(start)))
		}
		return nil, c.requestError(logPath, "", err)
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return nil, c.requestError(logPath, "read body", err)
	}
	ct := resp.Header.Get("Content-Type")
	r := &response{
		status: resp.StatusCode,
		body:   body,
		isJSON: hasPrefixFold(ct, "application/json") || hasPrefixFold(ct, "application/problem+json"),
	}
	if debug {
		c.log.LogAttrs(ctx, slog.LevelDebug, "oj request",
			slog.String("path", logPath), slog.Int("status", r.status),
			slog.Int("bytes", len(body)), slog.Duration("elapsed", time.Since(start)))
	}
	return r, nil
}

// pathForLog returns path with the value of every query parameter replaced
// by "…": the names say which request it was, the values may be the user's
// free text.
func pathForLog(path string) string {
	p, q, ok := strings.Cut(path, "?")
	if !ok {
		return path
	}
	var b strings.Builder
	b.Grow(len(path))
	b.WriteString(p)
	b.WriteByte('?')
	for i, kv := range strings.Split(q, "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		name, _, _ := strings.Cut(kv, "=")
		b.WriteString(name)
		b.WriteString("=…")
	}
	return b.String()
}

// requestError is the protocol failure of a request that got no answer:
// ErrRequest, the logged form of the path, and the cause with its text
// made safe (see upstreamError).
func (c *Client) requestError(logPath, step string, err error) error {
	if step != "" {
		step += ": "
	}
	return fmt.Errorf("%w: GET %s: %s%w", ErrRequest, logPath, step, c.safe(unwrapURLError(err)))
}

// checkRedirect is the CheckRedirect of every request: a redirect to
// another origin is refused (the token must not follow it); within the
// origin, next decides, or at most MaxRedirects are followed.
func (c *Client) checkRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if originOf(req.URL) != c.origin {
			// The host as sent (not lower-cased), so that a token in it is
			// found and redacted.
			co := &crossOriginError{target: strings.ToLower(req.URL.Scheme) + "://" + req.URL.Host}
			if req.Response != nil {
				co.status = req.Response.StatusCode
			}
			return co
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) > MaxRedirects {
			return fmt.Errorf("stopped after %d redirects", MaxRedirects)
		}
		return nil
	}
}

// crossOriginError is what checkRedirect returns for a redirect leaving the
// configured origin.
type crossOriginError struct {
	status int    // the redirect's status
	target string // scheme://host[:port] of the Location, nothing else
}

// Error does not name the target: it is shown only through
// crossOriginFailure, redacted.
func (e *crossOriginError) Error() string { return "redirect to another origin" }

// crossOriginFailure is the upstream failure of a refused redirect. It
// names the target's origin (never its path or query), the token redacted.
func (c *Client) crossOriginFailure(e *crossOriginError) error {
	return &DomainError{Type: result.UpstreamFailure, Status: e.status,
		Message: fmt.Sprintf("[%d] the backend redirected to another origin (%s); requests, and the token, go only to %s, so the redirect was not followed",
			e.status, c.upstreamText(e.target), c.base)}
}

// originOf returns u's scheme, host and port (the default port of the
// scheme when none is given), lower-cased, for comparing origins.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// readBody reads at most MaxBodyBytes of resp's body, streamed. A body
// that fits is read to its end, so that the connection goes back to the
// pool for reuse (an unread remainder makes Close drop the connection).
// A declared Content-Length sizes the buffer once.
func readBody(resp *http.Response) ([]byte, error) {
	lr := io.LimitReader(resp.Body, MaxBodyBytes)
	n := resp.ContentLength
	if n < 0 || n > MaxBodyBytes {
		return io.ReadAll(lr)
	}
	// One byte more than declared, so that reading up to EOF needs no
	// growth when the length is right (append grows it when it is not).
	buf := make([]byte, 0, n+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case
// (prefix is lower-case ASCII).
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// unwrapURLError drops the *url.Error wrapper (its text repeats method and
// URL, which the caller already names) but keeps the cause checkable.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// upstreamFailure turns an HTTP error status into a DomainError. An RFC 7807
// problem body (JSON content type, a string title) gives
// "[{status}] {title}: {detail}" with status from the body when present;
// anything else gives "[{http status}] {body}". The text after the status
// is upstreamText: token redacted, then cut to MaxErrorBodyChars.
func (c *Client) upstreamFailure(r *response) error {
	if r.isJSON {
		if p, ok := wire.ParseProblemDetails(r.body); ok {
			status := r.status
			if p.Status != nil {
				status = int(*p.Status)
			}
			return &DomainError{Type: result.UpstreamFailure, Status: r.status,
				Message: "[" + strconv.Itoa(status) + "] " + c.upstreamText(p.Title+": "+p.Detail)}
		}
	}
	return &DomainError{Type: result.UpstreamFailure, Status: r.status,
		Message: "[" + strconv.Itoa(r.status) + "] " + c.upstreamText(strings.ToValidUTF8(string(r.body), "\uFFFD"))}
}

// notReady is the failure of a 202 answer outside the daily challenge: the
// backend has accepted the request and is fetching what was asked for, so
// there is nothing to show yet. The instruction says when to retry
// (retry_after from a JSON body, when there is one).
func (c *Client) notReady(r *response, what string) error {
	ins := "Retry this call with the same arguments later."
	if r.isJSON {
		if n, ok := wire.RetryAfter(r.body); ok {
			ins = fmt.Sprintf("Retry this call with the same arguments in %d seconds.", n)
		}
	}
	return &DomainError{Type: result.Unavailable, Status: r.status, Instruction: ins,
		Message: "[202] " + what + " is being fetched by the backend and is not available yet"}
}

// Redacted replaces the token wherever the backend's text carries it.
const Redacted = "[REDACTED]"

// withheld replaces a text that still contains the token after redaction
// (possible only for a token that overlaps Redacted itself).
const withheld = "(text withheld: it contained the configured token)"

// redact removes the token from text bound for a model or a log.
func (c *Client) redact(s string) string {
	if c.token == "" || !strings.Contains(s, c.token) {
		return s
	}
	out := strings.ReplaceAll(s, c.token, Redacted)
	if strings.Contains(out, c.token) {
		return withheld
	}
	return out
}

// upstreamText makes text that came from outside (a body, a problem
// document, a transport error) fit for a failure text or a log: the token
// redacted first, then the result cut to MaxErrorBodyChars characters, so
// that no part of a token can survive at the cut.
func (c *Client) upstreamText(s string) string {
	return truncateChars(c.redact(s), MaxErrorBodyChars)
}

// upstreamError carries a cause whose text may hold backend data: Error
// returns that text made safe by upstreamText, and Unwrap the cause (for
// errors.Is and errors.As).
type upstreamError struct {
	msg string
	err error
}

func (e *upstreamError) Error() string { return e.msg }
func (e *upstreamError) Unwrap() error { return e.err }

// safe wraps err so that its text is upstreamText.
func (c *Client) safe(err error) error {
	return &upstreamError{msg: c.upstreamText(err.Error()), err: err}
}

// truncateChars returns the first n Unicode characters of s.
func truncateChars(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// jsonBody checks that a 200 response carries UTF-8 JSON and returns it.
func jsonBody(r *response) ([]byte, error) {
	if !r.isJSON {
		return nil, fmt.Errorf("%w: expected a JSON content type", ErrMalformedResponse)
	}
	if !utf8.Valid(r.body) {
		return nil, fmt.Errorf("%w: body is not valid UTF-8", ErrMalformedResponse)
	}
	return r.body, nil
}
