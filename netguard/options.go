package netguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"time"
)

// Defaults applied to zero-valued Options fields.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxRequestBytes  = 10 << 20 // 10 MiB
	DefaultMaxResponseBytes = 10 << 20 // 10 MiB
	DefaultMaxRedirects     = 10
	DefaultRetryBaseWait    = 500 * time.Millisecond
	DefaultMaxRetryWait     = 30 * time.Second
	// MaxResponseHeaderBytes caps the response headers of every response.
	MaxResponseHeaderBytes = 1 << 20
)

// Resolver looks up the addresses of a host name. *net.Resolver
// satisfies it; tests supply a fake that maps names to chosen addresses.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Options configure a Client. The zero value is a safe client for the
// public internet: any public host, private destinations refused, 30 s per
// call, 10 MiB each way, up to 10 redirects, no retries, no rate limit.
// Negative values are refused by New unless a field says otherwise.
type Options struct {
	// AllowedHosts limits the destinations. Each entry is an exact host
	// ("api.example.com"), a host and port ("api.example.com:8443") or a
	// wildcard suffix ("*.example.com", any name strictly below
	// example.com, optionally with ":port"); IP literals are allowed
	// ("203.0.113.7", "[2001:db8::1]:443"). Entries are normalised like
	// URL hosts (case, trailing dot, IDNA, IPv4 forms). An entry without a
	// port admits every port. Empty admits every host. Being listed never
	// admits a non-public address: that is AllowPrivate's and AllowAddrs'
	// business.
	AllowedHosts []string

	// AllowPrivate lets requests reach loopback, private, link-local
	// (including cloud metadata 169.254.169.254), shared (CGNAT),
	// unspecified, multicast and other non-public addresses. Default false:
	// such destinations are refused, whether named by an IP literal in the
	// URL or reached by DNS, at the request, on every redirect and at dial
	// time.
	AllowPrivate bool

	// AllowAddrs admits the non-public addresses in these prefixes while
	// every other non-public address stays refused — for a known internal
	// service ("10.1.2.3/32"), or in tests for an httptest server on
	// 127.0.0.1 ("127.0.0.1/32"). Nil admits none.
	AllowAddrs []netip.Prefix

	// Timeout bounds a whole call to Do: rate-limit wait, every attempt,
	// back-off waits and reading the response body until it is closed.
	// Zero means DefaultTimeout. The context's own deadline, if earlier,
	// wins.
	Timeout time.Duration

	// MaxRequestBytes caps the request body; a larger body fails with
	// ErrTooLarge (before sending when the length is known, while sending
	// otherwise). Zero means DefaultMaxRequestBytes.
	MaxRequestBytes int64

	// MaxResponseBytes caps the response body: a response declaring a
	// larger Content-Length fails at once (unless it has no body: the
	// answer to a HEAD, a 204, a 304), and reading past the cap fails
	// with ErrTooLarge. The cap applies to the decoded body (after
	// transparent gzip decompression). Zero means DefaultMaxResponseBytes.
	MaxResponseBytes int64

	// MaxRetries is how many times a failed attempt is repeated (so at
	// most MaxRetries+1 attempts). Attempts are retried on connection
	// errors, 429 and 5xx (except 501 and 505), for idempotent methods
	// (GET, HEAD, OPTIONS, PUT, DELETE) unless RetryNonIdempotent, and only
	// when the body can be replayed (no body, or Request.GetBody set, as
	// http.NewRequest does for bytes and strings readers). Zero means no
	// retries.
	MaxRetries int

	// RetryNonIdempotent also retries POST, PATCH and other methods. Only
	// for endpoints known to be safe to repeat.
	RetryNonIdempotent bool

	// RetryBaseWait is the first back-off wait; later waits double, with
	// ±50 % jitter, up to MaxRetryWait. Zero means DefaultRetryBaseWait.
	RetryBaseWait time.Duration

	// MaxRetryWait caps each wait between attempts, jitter included. A
	// Retry-After (seconds or HTTP date) longer than this, however long,
	// or past the call's deadline, is honoured by not retrying: the
	// 429/503 response is returned as it is. Zero means
	// DefaultMaxRetryWait.
	MaxRetryWait time.Duration

	// MaxCallsPerMinute limits calls to Do on this Client with a token
	// bucket (golang.org/x/time/rate) holding MaxCallsPerMinute tokens and
	// refilled at that rate. A call over the limit waits for a token,
	// honouring its context and Timeout; when the wait would outlast the
	// deadline it fails at once with ErrRateLimited. Retries of a call are
	// not counted again. Zero means no limit.
	MaxCallsPerMinute int

	// MaxRedirects is how many redirects a call follows; each target is
	// checked like the first URL. Zero means DefaultMaxRedirects; a
	// negative value means redirects are not followed and the 3xx response
	// is returned to the caller. Either way a 301, 302, 303, 307 or 308
	// whose Location header does not parse fails with a *BlockedError
	// (ErrBadURL, StageRedirect) that does not quote the header (net/http
	// parses it before asking whether to follow).
	MaxRedirects int

	// Resolver resolves host names at dial time. Nil means
	// net.DefaultResolver. Every address it returns is checked before any
	// is dialled, and only a checked address is dialled, so a DNS answer
	// that changes between checks (rebinding) cannot slip through.
	Resolver Resolver

	// Logger receives one record per refused request, retry and failed
	// call. URLs are logged without query, fragment or user information
	// and Secrets are redacted. Nil means no logging.
	Logger *slog.Logger

	// Secrets are strings (tokens, API keys, header values from
	// configuration, values a configuration's ${VAR}s put in a URL)
	// replaced by "[REDACTED]" in every error text and log record the
	// Client produces, as given and as escaped in a URL's path or query.
	// Strings shorter than MinSecretLen bytes are replaced only where
	// they stand as a whole word (a path segment, a query value): replaced
	// inside every word holding them they would garble every message.
	// Empty strings are ignored.
	Secrets []string
}

// validate reports every invalid field, naming it.
func (o *Options) validate() ([]hostRule, error) {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidOptions}, a...)...))
	}
	rules := make([]hostRule, 0, len(o.AllowedHosts))
	for i, e := range o.AllowedHosts {
		r, err := parseHostRule(e)
		if err != nil {
			bad("AllowedHosts[%d] %q: %v; expected a host, host:port or *.suffix", i, e, err)
			continue
		}
		rules = append(rules, r)
	}
	for i, p := range o.AllowAddrs {
		if !p.IsValid() {
			bad("AllowAddrs[%d]: invalid prefix; expected e.g. 127.0.0.1/32", i)
		}
	}
	if o.Timeout < 0 {
		bad("Timeout is %v; expected zero (default) or positive", o.Timeout)
	}
	if o.MaxRequestBytes < 0 {
		bad("MaxRequestBytes is %d; expected zero (default) or positive", o.MaxRequestBytes)
	}
	if o.MaxResponseBytes < 0 {
		bad("MaxResponseBytes is %d; expected zero (default) or positive", o.MaxResponseBytes)
	}
	if o.MaxRetries < 0 {
		bad("MaxRetries is %d; expected zero (no retries) or positive", o.MaxRetries)
	}
	if o.RetryBaseWait < 0 {
		bad("RetryBaseWait is %v; expected zero (default) or positive", o.RetryBaseWait)
	}
	if o.MaxRetryWait < 0 {
		bad("MaxRetryWait is %v; expected zero (default) or positive", o.MaxRetryWait)
	}
	if o.MaxCallsPerMinute < 0 {
		bad("MaxCallsPerMinute is %d; expected zero (no limit) or positive", o.MaxCallsPerMinute)
	}
	return rules, errors.Join(errs...)
}

// ParseBaseURL reads the base URL of a service a pack calls: an absolute
// http or https URL with a host and without user information. Its errors
// say which of these it is not and never quote the URL, whose path, query
// or user information may carry a key; the caller prefixes the field.
func ParseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, errors.New("expected an http or https URL; it does not parse (value not shown)")
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, errors.New("expected an absolute http or https URL with a host (value not shown)")
	case u.User != nil:
		return nil, errors.New("expected a URL without user information (user:password@); send the key as APIKey (value not shown)")
	}
	return u, nil
}
