package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/time/rate"
)

// Client sends HTTP requests to checked destinations only. It is safe for
// concurrent use; create one per configuration and reuse it (it keeps a
// connection pool and the rate limiter).
type Client struct {
	rules        []hostRule
	allowPrivate bool
	allowAddrs   []netip.Prefix

	timeout       time.Duration
	maxReq        int64
	maxResp       int64
	maxRetries    int
	retryAny      bool
	retryBaseWait time.Duration
	maxRetryWait  time.Duration
	maxRedirects  int

	limiter  *rate.Limiter // nil: no limit
	resolver Resolver
	log      *slog.Logger
	red      redactor

	transport *http.Transport
	hc        *http.Client

	// dial connects to an already checked ip:port. Tests replace it with a
	// fake network that only ever reaches loopback listeners.
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// New checks the options and returns a Client. Every invalid field is
// reported (errors.Join), each wrapping ErrInvalidOptions and naming the
// field.
func New(opts Options) (*Client, error) {
	rules, err := opts.validate()
	if err != nil {
		return nil, err
	}
	c := &Client{
		rules:         rules,
		allowPrivate:  opts.AllowPrivate,
		allowAddrs:    append([]netip.Prefix(nil), opts.AllowAddrs...),
		timeout:       orDefault(opts.Timeout, DefaultTimeout),
		maxReq:        orDefault(opts.MaxRequestBytes, DefaultMaxRequestBytes),
		maxResp:       orDefault(opts.MaxResponseBytes, DefaultMaxResponseBytes),
		maxRetries:    opts.MaxRetries,
		retryAny:      opts.RetryNonIdempotent,
		retryBaseWait: orDefault(opts.RetryBaseWait, DefaultRetryBaseWait),
		maxRetryWait:  orDefault(opts.MaxRetryWait, DefaultMaxRetryWait),
		maxRedirects:  orDefault(opts.MaxRedirects, DefaultMaxRedirects),
		resolver:      opts.Resolver,
		log:           opts.Logger,
		red:           newRedactor(opts.Secrets),
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxCallsPerMinute > 0 {
		n := opts.MaxCallsPerMinute
		c.limiter = rate.NewLimiter(rate.Every(time.Minute/time.Duration(n)), n)
	}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: c.controlDial}
	c.dial = d.DialContext
	c.transport = &http.Transport{
		Proxy:                  nil, // proxy variables are not honoured: a proxy would dial for us, unchecked
		DialContext:            c.dialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
	}
	c.hc = &http.Client{
		Transport:     &guardTransport{c: c},
		CheckRedirect: c.checkRedirect,
	}
	return c, nil
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// HTTPClient returns an *http.Client for libraries that need one (an
// OAuth2 token source, an SDK): every request it sends, and every redirect
// it follows, gets the destination checks, the dial-time address checks and
// the body caps of this Client. Timeout, retries and the rate limit are
// Do's and do not apply; errors are the usual *url.Error (whose text
// includes the URL's query — prefer Do where that matters).
func (c *Client) HTTPClient() *http.Client {
	return &http.Client{Transport: &guardTransport{c: c}, CheckRedirect: c.checkRedirect}
}

// CloseIdleConnections closes idle pooled connections.
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }

// CheckURL reports whether a URL would be admitted before anything is sent:
// scheme, user information, host syntax, AllowedHosts and, for IP
// literals, the address policy. Names are resolved and checked only at
// dial time. A refusal is a *BlockedError.
func (c *Client) CheckURL(u *url.URL) error {
	return c.checkURL(u, StageRequest)
}

func (c *Client) checkURL(u *url.URL, stage string) error {
	if u == nil {
		return &BlockedError{Reason: ErrBadURL, Stage: stage, Detail: "no URL"}
	}
	blocked := func(reason error, h, detail string, a netip.Addr) error {
		return &BlockedError{Reason: reason, Stage: stage, URL: c.red.url(u), Host: c.red.text(h), Addr: a, Detail: detail}
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return blocked(ErrScheme, "", fmt.Sprintf("scheme %q", c.red.text(u.Scheme)), netip.Addr{})
	}
	if u.User != nil {
		return blocked(ErrUserinfo, "", "", netip.Addr{})
	}
	if u.Opaque != "" {
		return blocked(ErrBadURL, "", "opaque URL", netip.Addr{})
	}
	h, err := parseHost(u.Hostname())
	if err != nil {
		return blocked(ErrBadURL, "", err.Error(), netip.Addr{})
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return blocked(ErrBadURL, h.name, "port out of range", netip.Addr{})
	}
	if !hostAllowed(c.rules, h.name, port) {
		return blocked(ErrHostNotAllowed, h.name+":"+port, "", netip.Addr{})
	}
	if h.addr.IsValid() {
		if reason := c.addrRefused(h.addr); reason != "" {
			return blocked(ErrPrivateAddress, h.name, reason, h.addr)
		}
	} else if isLocalhostName(h.name) && !c.allowPrivate {
		return blocked(ErrPrivateAddress, h.name, "localhost name", netip.Addr{})
	}
	return nil
}

// addrRefused returns why the address may not be dialled, or "".
func (c *Client) addrRefused(a netip.Addr) string {
	if c.allowPrivate {
		if a.IsValid() {
			return ""
		}
		return "invalid address"
	}
	reason := blockedReason(a)
	if reason == "" {
		return ""
	}
	a = a.WithZone("").Unmap()
	for _, p := range c.allowAddrs {
		if p.Contains(a) {
			return ""
		}
	}
	return reason
}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if c.maxRedirects < 0 {
		return http.ErrUseLastResponse
	}
	if len(via) > c.maxRedirects {
		return &BlockedError{Reason: ErrTooManyRedirects, Stage: StageRedirect, URL: c.red.url(req.URL),
			Detail: fmt.Sprintf("more than %d", c.maxRedirects)}
	}
	return c.checkURL(req.URL, StageRedirect)
}

// dialContext is the transport's only way out: it checks the host again,
// resolves it with the Resolver, refuses unless every address is
// admitted, and dials only those addresses.
func (c *Client) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	rawHost, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &BlockedError{Reason: ErrBadURL, Stage: StageDial, Detail: "malformed address"}
	}
	h, err := parseHost(rawHost)
	if err != nil {
		return nil, &BlockedError{Reason: ErrBadURL, Stage: StageDial, Detail: err.Error()}
	}
	blocked := func(reason error, detail string, a netip.Addr) error {
		return &BlockedError{Reason: reason, Stage: StageDial, Host: c.red.text(h.name), Addr: a, Detail: detail}
	}
	if !hostAllowed(c.rules, h.name, port) {
		return nil, blocked(ErrHostNotAllowed, "", netip.Addr{})
	}
	var addrs []netip.Addr
	if h.addr.IsValid() {
		addrs = []netip.Addr{h.addr}
	} else {
		if isLocalhostName(h.name) && !c.allowPrivate {
			return nil, blocked(ErrPrivateAddress, "localhost name", netip.Addr{})
		}
		ips, err := c.resolver.LookupIPAddr(ctx, h.name)
		if err != nil {
			return nil, c.red.wrap("resolving "+h.name+": ", err)
		}
		for _, ip := range ips {
			a, ok := netip.AddrFromSlice(ip.IP)
			if !ok {
				continue
			}
			addrs = append(addrs, a.Unmap())
		}
		if len(addrs) == 0 {
			return nil, c.red.wrap("", fmt.Errorf("resolving %s: no addresses", h.name))
		}
	}
	// Refuse if any answer is refused: a name that mixes public and private
	// answers is an attack or a misconfiguration either way.
	for _, a := range addrs {
		if reason := c.addrRefused(a); reason != "" {
			return nil, blocked(ErrPrivateAddress, reason, a)
		}
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, &BlockedError{Reason: ErrBadURL, Stage: StageDial, Host: h.name, Detail: "malformed port"}
	}
	var firstErr error
	for _, a := range addrs {
		conn, err := c.dial(ctx, network, netip.AddrPortFrom(a, uint16(p)).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// controlDial is the last line: the socket's actual destination, checked
// just before connect(2).
func (c *Client) controlDial(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{Reason: ErrBadURL, Stage: StageDial, Detail: "malformed socket address"}
	}
	if reason := c.addrRefused(ap.Addr()); reason != "" {
		return &BlockedError{Reason: ErrPrivateAddress, Stage: StageDial, Addr: ap.Addr(), Detail: reason}
	}
	return nil
}

// guardTransport checks every request the http.Client sends (the first and
// each redirect) and caps bodies.
type guardTransport struct{ c *Client }

func (t *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := t.c
	if err := c.checkURL(req.URL, StageRequest); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	var capped *cappedRequestBody
	if req.Body != nil && req.Body != http.NoBody {
		if req.ContentLength > c.maxReq {
			req.Body.Close()
			return nil, tooLarge("request", c.maxReq)
		}
		capped = &cappedRequestBody{rc: req.Body, max: c.maxReq}
		r2 := *req
		r2.Body = capped
		if getBody := req.GetBody; getBody != nil {
			// The transport may replay the body on a fresh connection.
			r2.GetBody = func() (io.ReadCloser, error) {
				b, err := getBody()
				if err != nil {
					return nil, err
				}
				return &cappedRequestBody{rc: b, max: c.maxReq}, nil
			}
		}
		req = &r2
	}
	resp, err := c.transport.RoundTrip(req)
	if err != nil {
		if capped != nil && capped.exceeded.Load() || errors.Is(err, ErrTooLarge) {
			return nil, tooLarge("request", c.maxReq)
		}
		return nil, err
	}
	if err := c.checkLocation(req, resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	// A declared length is only a promise of a body when there is one: a
	// HEAD response, a 204 or a 304 states the resource's length but
	// carries no body, and must not be refused for it.
	if resp.ContentLength > c.maxResp && !noResponseBody(req, resp) {
		resp.Body.Close()
		return nil, tooLarge("response", c.maxResp)
	}
	resp.Body = &cappedBody{rc: resp.Body, max: c.maxResp}
	return resp, nil
}

// noResponseBody reports a response that has no body whatever its
// Content-Length says.
func noResponseBody(req *http.Request, resp *http.Response) bool {
	return req.Method == http.MethodHead || resp.Body == http.NoBody ||
		resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified ||
		resp.StatusCode >= 100 && resp.StatusCode <= 199
}

// checkLocation refuses a redirect the http.Client would follow whose
// Location header does not parse. Left alone, the http.Client fails with an
// error quoting the whole header, query (a signature, a token) included;
// this error names neither the value nor the parse error, which quotes it.
func (c *Client) checkLocation(req *http.Request, resp *http.Response) error {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil // returned as it is, by http.Client too
	}
	if (resp.StatusCode == http.StatusTemporaryRedirect || resp.StatusCode == http.StatusPermanentRedirect) &&
		req.GetBody == nil && req.Body != nil && req.Body != http.NoBody {
		return nil // a body that cannot be replayed: http.Client returns the response
	}
	if _, err := req.URL.Parse(loc); err == nil {
		return nil
	}
	return &BlockedError{Reason: ErrBadURL, Stage: StageRedirect,
		Detail: fmt.Sprintf("the Location header of a %d response does not parse", resp.StatusCode)}
}

func tooLarge(what string, limit int64) error {
	return fmt.Errorf("%s body exceeds %d bytes: %w", what, limit, ErrTooLarge)
}

// cappedBody fails with ErrTooLarge once more than max bytes would be
// returned; it never reads more than max+1 bytes from the connection.
type cappedBody struct {
	rc   io.ReadCloser
	max  int64
	n    int64
	over bool
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, tooLarge("response", b.max)
	}
	// room+1 is computed only when it is below len(p), so a cap near
	// math.MaxInt64 cannot overflow.
	if room := b.max - b.n; room < int64(len(p))-1 {
		p = p[:room+1]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		b.over = true
		return n - int(b.n-b.max), tooLarge("response", b.max)
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// cappedRequestBody fails the send once more than max bytes are read.
type cappedRequestBody struct {
	rc       io.ReadCloser
	max      int64
	n        int64
	exceeded atomic.Bool // read by RoundTrip, written by the transport's writer
}

func (b *cappedRequestBody) Read(p []byte) (int, error) {
	if b.exceeded.Load() {
		return 0, tooLarge("request", b.max)
	}
	// room+1 is computed only when it is below len(p), so a cap near
	// math.MaxInt64 cannot overflow.
	if room := b.max - b.n; room < int64(len(p))-1 {
		p = p[:room+1]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		b.exceeded.Store(true)
		return 0, tooLarge("request", b.max)
	}
	return n, err
}

func (b *cappedRequestBody) Close() error { return b.rc.Close() }

// callBody ends the call's timeout when the caller closes the body, and
// reports the deadline as the context's error.
type callBody struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelFunc
}

func (b *callBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, ErrTooLarge) {
		if cerr := context.Cause(b.ctx); cerr != nil {
			return n, fmt.Errorf("netguard: reading the response body: %w", cerr)
		}
	}
	return n, err
}

func (b *callBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// retryableMethod reports the idempotent methods retried by default.
func retryableMethod(m string) bool {
	switch m {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// retryableStatus reports the statuses worth another attempt.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests ||
		code >= 500 && code <= 599 && code != http.StatusNotImplemented && code != http.StatusHTTPVersionNotSupported
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP
// date. ok is false when absent or malformed. A delay too long for a
// time.Duration (about 292 years) saturates to the longest one: it is
// still a request to wait, longer than any MaxRetryWait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if allDigits(v) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > uint64(math.MaxInt64/int64(time.Second)) {
			// err can only be ErrRange: more than 64 bits of digits.
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		d = 0
	}
	return d, true
}

// allDigits reports a non-empty string of ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
