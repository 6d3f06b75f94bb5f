package oj

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/result"
)

// Limits of every backend request.
const (
	// RequestTimeout bounds each backend request, body included.
	RequestTimeout = 30 * time.Second
	// MaxRedirects is how many redirects a request follows at most.
	MaxRedirects = 10
	// MaxBodyBytes is how much of a response body is read at most; the rest
	// is never read.
	MaxBodyBytes = 1_048_576
	// MaxErrorBodyChars is how many Unicode characters of a non-RFC 7807
	// error body appear in a failure text.
	MaxErrorBodyChars = 500
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
	// A trailing "/" is dropped.
	BaseURL string
	// Token, when non-empty, is sent as "Authorization: Bearer {Token}" on
	// every request; empty means no Authorization header at all (and
	// get_platform_status fails without a request). It never appears in a
	// log line, an error or a result.
	Token string
	// HTTPClient sends the requests. Nil means a client of this package with
	// a RequestTimeout timeout that follows at most MaxRedirects redirects.
	// A given client is used as it is; every request is still bounded by
	// RequestTimeout through its context.
	HTTPClient *http.Client
	// Now returns the current time, for the default daily-challenge date
	// (taken in UTC). Nil means time.Now.
	Now func() time.Time
	// Logger receives debug logs of each request (path, status, size,
	// duration; never the token). Nil means slog.Default().
	Logger *slog.Logger
	// ConvertCacheBytes bounds the memo of recent HTML→Markdown
	// conversions (see Converter): 0 means DefaultConvertCacheBytes, a
	// negative value turns the memo off.
	ConvertCacheBytes int
}

// DomainError is a failure the caller (a model) should see and can react
// to: an argument rule, a missing token, or an HTTP error status from the
// backend. Client methods return it, and the pack's tools turn it into a
// failed result.Result. Any other error from a Client method is a protocol
// failure.
type DomainError struct {
	// Type classifies the failure: result.ValidationError for argument
	// rules, result.PermissionDenied for a missing token,
	// result.UpstreamFailure for an HTTP error status.
	Type result.ErrorType
	// Message is the text shown to the model.
	Message string
	// Status is the HTTP status for an upstream failure; 0 otherwise.
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
	base  string
	token string
	http  *http.Client
	now   func() time.Time
	log   *slog.Logger
	conv  *Converter
}

// NewClient checks cfg and returns a Client. A bad BaseURL or a token that
// cannot be sent in a header is an error wrapping ErrConfig.
func NewClient(cfg Config) (*Client, error) {
	base, err := ParseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(cfg.Token); i++ {
		if c := cfg.Token[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return nil, fmt.Errorf("%w: token: contains a character not allowed in an HTTP header (expected visible ASCII)", ErrConfig)
		}
	}
	c := &Client{base: base, token: cfg.Token, http: cfg.HTTPClient, now: cfg.Now, log: cfg.Logger, conv: NewConverter(WithCacheBytes(cfg.ConvertCacheBytes))}
	if c.http == nil {
		// No http.Client.Timeout: get bounds every request, body included,
		// with a RequestTimeout context deadline, and Client.Timeout would
		// add a timer, a goroutine and a second context per request.
		c.http = &http.Client{
			CheckRedirect: func(_ *http.Request, via []*http.Request) error {
				if len(via) > MaxRedirects {
					return fmt.Errorf("stopped after %d redirects", MaxRedirects)
				}
				return nil
			},
		}
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// ParseBaseURL checks that raw is an origin (see Config.BaseURL) and returns
// it without a trailing "/". Errors wrap ErrConfig and name base URL.
func ParseBaseURL(raw string) (string, error) {
	fail := func(format string, a ...any) (string, error) {
		return "", fmt.Errorf("%w: base URL: "+format, append([]any{ErrConfig}, a...)...)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fail("%q is not a URL (expected an origin such as https://example.com)", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return fail("%q has no scheme (expected http:// or https://)", raw)
	default:
		return fail("unsupported scheme %q (expected http or https)", u.Scheme)
	}
	switch {
	case u.Opaque != "" || u.Host == "":
		return fail("%q has no host (expected an origin such as https://example.com)", raw)
	case u.User != nil:
		return fail("must not contain credentials")
	case u.Path != "" && u.Path != "/":
		return fail("must be an origin without a path, got path %q", u.Path)
	case u.RawQuery != "" || u.ForceQuery:
		return fail("must not contain a query string")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fail("must not contain a fragment")
	case u.Port() == "" && strings.HasSuffix(u.Host, ":"):
		return fail("%q has an empty port", raw)
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

// get sends GET {base}{path}. A transport failure is an error wrapping
// ErrRequest; any HTTP status is a response.
func (c *Client) get(ctx context.Context, path string) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: build request for %s: %w", ErrRequest, path, err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	debug := c.log.Enabled(ctx, slog.LevelDebug) // skip building log attributes when off
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		if debug {
			c.log.LogAttrs(ctx, slog.LevelDebug, "oj request failed", slog.String("path", path), slog.Duration("elapsed", time.Since(start)))
		}
		return nil, fmt.Errorf("%w: GET %s: %w", ErrRequest, path, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: read body: %w", ErrRequest, path, err)
	}
	ct := resp.Header.Get("Content-Type")
	r := &response{
		status: resp.StatusCode,
		body:   body,
		isJSON: hasPrefixFold(ct, "application/json") || hasPrefixFold(ct, "application/problem+json"),
	}
	if debug {
		c.log.LogAttrs(ctx, slog.LevelDebug, "oj request",
			slog.String("path", path), slog.Int("status", r.status),
			slog.Int("bytes", len(body)), slog.Duration("elapsed", time.Since(start)))
	}
	return r, nil
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
// anything else gives "[{http status}] {body}" with the body cut to
// MaxErrorBodyChars characters. The token, if the backend echoes it, is
// replaced by Redacted.
func (c *Client) upstreamFailure(r *response) error {
	msg := ""
	if r.isJSON {
		if p, ok := parseProblemDetails(r.body); ok {
			status := r.status
			if p.Status != nil {
				status = int(*p.Status)
			}
			msg = fmt.Sprintf("[%d] %s: %s", status, p.Title, p.Detail)
		}
	}
	if msg == "" {
		msg = fmt.Sprintf("[%d] %s", r.status, truncateChars(strings.ToValidUTF8(string(r.body), "\uFFFD"), MaxErrorBodyChars))
	}
	return &DomainError{Type: result.UpstreamFailure, Message: c.redact(msg), Status: r.status}
}

// Redacted replaces the token wherever a backend echoes it back.
const Redacted = "[REDACTED]"

// redact removes the token from text bound for a model or a log.
func (c *Client) redact(s string) string {
	if c.token == "" || !strings.Contains(s, c.token) {
		return s
	}
	return strings.ReplaceAll(s, c.token, Redacted)
}

// render redacts and truncates a tool's Markdown.
func (c *Client) render(md string) string { return Truncate(c.redact(md)) }

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
