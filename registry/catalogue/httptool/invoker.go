package httptool

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/oauth2"

	"github.com/toolpack-go/toolpack/netguard"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/result"
)

// Defaults of Options.
const (
	// DefaultMaxTools is the number of per-tool clients kept when
	// Options.MaxTools is zero.
	DefaultMaxTools = 256
	// DefaultMaxArgsBytes caps the arguments when Options.MaxArgsBytes is
	// zero.
	DefaultMaxArgsBytes = 1 << 20
	// MaxExcerptBytes caps the excerpt of an upstream error body quoted in
	// a failure.
	MaxExcerptBytes = 256
)

// Error types of the failed Results Invoke returns, besides the common
// ones of package result (validation_error, security_error, timeout,
// cancelled, rate_limited, unavailable, upstream_failure).
const (
	// ErrTypeUpstream: the upstream answered with a status outside 2xx.
	// ErrorData is an UpstreamErrorData.
	ErrTypeUpstream result.ErrorType = "upstream_error"
	// ErrTypeOutputMismatch: the upstream's answer (after extract) does
	// not match the tool's output schema. ErrorData is a []Violation.
	ErrTypeOutputMismatch = catalogue.ErrTypeOutputMismatch
)

// Sentinel errors of the error Invoke returns beside a Result (a protocol
// failure: the tool cannot be run as defined, or the upstream's answer is
// not what its encoding says).
var (
	// ErrInvalidTool: the tool is not an http tool or its definition does
	// not compile (template, extract, output schema, limits).
	ErrInvalidTool = errors.New("httptool: invalid tool")
	// ErrBadResponse: the upstream's body does not decode as the declared
	// encoding.
	ErrBadResponse = errors.New("httptool: upstream response not decodable")
	// ErrRequest: the request could not be made (connection refused,
	// TLS failure, …). Invoke answers that with a failed Result of type
	// upstream_failure whose Exception (an error wrapping ErrRequest and
	// the netguard error) errors.Is finds it in.
	ErrRequest = errors.New("httptool: request failed")
	// ErrInvalidOptions is wrapped by every error New returns.
	ErrInvalidOptions = errors.New("httptool: invalid options")
)

// Options configure an Invoker. The zero value calls any public host with
// netguard's defaults, with no secrets and no logging.
type Options struct {
	// AllowedHosts limits the destinations (netguard.Options.AllowedHosts,
	// the host configuration's allowed hosts). Empty admits every public
	// host.
	AllowedHosts []string
	// AllowPrivate lets tools reach loopback and private addresses
	// (netguard.Options.AllowPrivate). Default false.
	AllowPrivate bool
	// AllowAddrs admits chosen non-public prefixes only (an internal
	// service; 127.0.0.1/32 for an httptest server in tests).
	AllowAddrs []netip.Prefix
	// Secrets maps a secret's name to its value (the host configuration's
	// catalogue.secrets). "${NAME}" placeholders resolve to them; every
	// value is redacted from errors and logs. Copied by New.
	Secrets map[string]string
	// Logger receives one Debug record per call and the refusals and
	// retries netguard logs; secrets are redacted. Nil means no logging.
	Logger *slog.Logger
	// MaxTools caps the per-tool clients kept (compiled templates, one
	// netguard.Client with the tool's limits, the OAuth2 token); the least
	// recently used is dropped beyond it. Zero means DefaultMaxTools.
	MaxTools int
	// MaxArgsBytes caps the arguments of a call. Zero means
	// DefaultMaxArgsBytes.
	MaxArgsBytes int64
	// Defaults are the host's limits, used for every zero field of a
	// tool's HTTPLimits; a field zero in both takes netguard's default.
	Defaults catalogue.HTTPLimits
	// RetryBaseWait is the first back-off wait between retries
	// (netguard.Options.RetryBaseWait). Zero means netguard's default.
	RetryBaseWait time.Duration
	// Now is the clock for HMAC timestamps and OAuth2 token expiry. Nil
	// means time.Now.
	Now func() time.Time
}

// Invoker runs catalogue http tools. It is safe for concurrent use.
type Invoker struct {
	opts    Options
	secrets map[string]string
	ngSec   []string // every secret, raw and as URL-encoded
	red     *strings.Replacer
	// hasSecrets is true when there is something to redact.
	hasSecrets bool
	maxSecret  int // the longest redacted string
	log        *slog.Logger

	cache *lru.Cache[cacheKey, *entry] // compiled tools, least recently used dropped first
}

type cacheKey struct {
	id       uuid.UUID
	version  string
	modified int64 // ModifiedAt in Unix nanoseconds: a rewritten body compiles anew
}

func keyOf(tool *catalogue.Tool) cacheKey {
	return cacheKey{tool.ID, tool.Version, tool.ModifiedAt.UnixNano()}
}

// New returns an Invoker. It fails, wrapping ErrInvalidOptions, on a
// negative MaxTools or MaxArgsBytes, an invalid Defaults.Timeout, or
// options netguard refuses (an AllowedHosts entry, an AllowAddrs prefix).
func New(opts Options) (*Invoker, error) {
	var errs []error
	if opts.MaxTools < 0 {
		errs = append(errs, fmt.Errorf("%w: MaxTools is %d; expected zero (default) or positive", ErrInvalidOptions, opts.MaxTools))
	}
	if opts.MaxArgsBytes < 0 {
		errs = append(errs, fmt.Errorf("%w: MaxArgsBytes is %d; expected zero (default) or positive", ErrInvalidOptions, opts.MaxArgsBytes))
	}
	if _, err := timeoutOf(opts.Defaults.Timeout, ""); err != nil {
		errs = append(errs, fmt.Errorf("%w: Defaults.Timeout: %v", ErrInvalidOptions, err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if opts.MaxTools == 0 {
		opts.MaxTools = DefaultMaxTools
	}
	if opts.MaxArgsBytes == 0 {
		opts.MaxArgsBytes = DefaultMaxArgsBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	inv := &Invoker{opts: opts, secrets: make(map[string]string, len(opts.Secrets))}
	names := make([]string, 0, len(opts.Secrets))
	for k, v := range opts.Secrets {
		inv.secrets[k] = v
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if v := opts.Secrets[k]; v != "" {
			inv.ngSec = append(inv.ngSec, v, escapePathValue(v), url.QueryEscape(v), base64.StdEncoding.EncodeToString([]byte(v)))
		}
	}
	inv.red = replacerFor(inv.ngSec)
	inv.hasSecrets = len(inv.ngSec) > 0
	for _, v := range inv.ngSec {
		inv.maxSecret = max(inv.maxSecret, len(v))
	}
	var cerr error
	inv.cache, cerr = lru.NewWithEvict(opts.MaxTools, func(_ cacheKey, e *entry) { e.client.CloseIdleConnections() })
	if cerr != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, cerr)
	}
	inv.log = opts.Logger
	if inv.log == nil {
		inv.log = slog.New(slog.DiscardHandler)
	}
	// Check the netguard options once, so that a bad host list fails here.
	if _, err := inv.netguardClient(catalogue.HTTPLimits{}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return inv, nil
}

func replacerFor(secrets []string) *strings.Replacer {
	s := make([]string, 0, len(secrets))
	for _, v := range secrets {
		if v != "" {
			s = append(s, v)
		}
	}
	sort.Slice(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	pairs := make([]string, 0, 2*len(s))
	for _, v := range s {
		pairs = append(pairs, v, "[REDACTED]")
	}
	return strings.NewReplacer(pairs...)
}

func (inv *Invoker) redact(s string) string { return inv.red.Replace(s) }

// redactValue removes secrets from every string and member name of a
// decoded answer (an upstream that echoes a key must not hand it to the
// model).
func (inv *Invoker) redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return inv.redact(x)
	case []any:
		for i := range x {
			x[i] = inv.redactValue(x[i])
		}
	case map[string]any:
		var renamed []string
		for k, e := range x {
			x[k] = inv.redactValue(e)
			if inv.redact(k) != k {
				renamed = append(renamed, k)
			}
		}
		for _, k := range renamed {
			e := x[k]
			delete(x, k)
			x[inv.redact(k)] = e
		}
	}
	return v
}

func timeoutOf(tool, def string) (time.Duration, error) {
	s := tool
	if s == "" {
		s = def
	}
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("expected a positive Go duration such as \"10s\", got %q", s)
	}
	return d, nil
}

func (inv *Invoker) netguardClient(l catalogue.HTTPLimits) (*netguard.Client, error) {
	d := inv.opts.Defaults
	timeout, err := timeoutOf(l.Timeout, d.Timeout)
	if err != nil {
		return nil, err
	}
	pick := func(a, b int64) int64 {
		if a != 0 {
			return a
		}
		return b
	}
	return netguard.New(netguard.Options{
		AllowedHosts:      inv.opts.AllowedHosts,
		AllowPrivate:      inv.opts.AllowPrivate,
		AllowAddrs:        inv.opts.AllowAddrs,
		Timeout:           timeout,
		MaxRequestBytes:   pick(l.MaxRequestBytes, d.MaxRequestBytes),
		MaxResponseBytes:  pick(l.MaxResponseBytes, d.MaxResponseBytes),
		MaxRetries:        int(pick(int64(l.MaxRetries), int64(d.MaxRetries))),
		MaxCallsPerMinute: int(pick(int64(l.MaxCallsPerMinute), int64(d.MaxCallsPerMinute))),
		RetryBaseWait:     inv.opts.RetryBaseWait,
		Logger:            inv.opts.Logger,
		Secrets:           inv.ngSec,
	})
}

// entry is a compiled tool.
type entry struct {
	key      cacheKey
	client   *netguard.Client
	timeout  time.Duration
	maxReq   int64
	method   string
	url      URLTemplate
	query    []named
	headers  []named
	body     BodyTemplate
	hasBody  bool
	auth     *authPlan
	text     bool
	sse      bool
	extract  *Path
	out      *jsonschema.Schema
	slug     string
	version  string
	bodyType string
}

type named struct {
	name string
	t    Template
}

var methods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// compile builds the entry of a tool. Its errors wrap ErrInvalidTool or
// are a *MissingSecretError.
func (inv *Invoker) compile(tool *catalogue.Tool) (*entry, error) {
	h := tool.HTTPImpl
	e := &entry{key: keyOf(tool), slug: tool.Slug, version: tool.Version, method: h.Request.Method}
	if !methods[e.method] {
		return nil, fmt.Errorf("%w: request.method: expected GET, HEAD, POST, PUT, PATCH or DELETE, got %q", ErrInvalidTool, e.method)
	}
	var err error
	if e.url, err = ParseURL(h.Request.URLTemplate); err != nil {
		return nil, fmt.Errorf("%w: request.urlTemplate: %w", ErrInvalidTool, err)
	}
	mapOf := func(field string, m map[string]string, header bool) ([]named, error) {
		out := make([]named, 0, len(m))
		for k, v := range m {
			if k == "" || header && !isToken(k) {
				return nil, fmt.Errorf("%w: %s[%q]: expected a header name of letters, digits and !#$%%&'*+-.^_`|~", ErrInvalidTool, field, k)
			}
			t, err := Parse(v)
			if err != nil {
				return nil, fmt.Errorf("%w: %s[%q]: %w", ErrInvalidTool, field, k, err)
			}
			out = append(out, named{k, t})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
		return out, nil
	}
	if e.query, err = mapOf("request.query", h.Request.Query, false); err != nil {
		return nil, err
	}
	if e.headers, err = mapOf("request.headers", h.Request.Headers, true); err != nil {
		return nil, err
	}
	if h.Request.Body != "" {
		e.hasBody = true
		if e.body, err = ParseBody(h.Request.Body); err != nil {
			return nil, fmt.Errorf("%w: request.body: %w", ErrInvalidTool, err)
		}
		e.bodyType = "text/plain; charset=utf-8"
		if e.body.IsJSON() {
			e.bodyType = "application/json"
		}
	}
	if e.auth, err = compileAuth(h.Request.Auth, inv.opts.Now, inv.secrets); err != nil {
		return nil, err
	}
	switch h.Response.Encoding {
	case "", "json":
	case "text":
		e.text = true
	case "sse":
		e.sse = true
	default:
		return nil, fmt.Errorf(`%w: response.encoding: expected "json", "text" or "sse", got %q`, ErrInvalidTool, h.Response.Encoding)
	}
	if h.Response.Extract != "" {
		if e.text {
			return nil, fmt.Errorf(`%w: response.extract: expected no extract with encoding "text"`, ErrInvalidTool)
		}
		p, err := ParsePath(h.Response.Extract)
		if err != nil {
			return nil, fmt.Errorf("%w: response.extract: %w", ErrInvalidTool, err)
		}
		e.extract = &p
	}
	if len(tool.OutputSchema) > 0 {
		if e.out, err = catalogue.CompileSchema(tool.OutputSchema); err != nil {
			return nil, fmt.Errorf("%w: outputSchema: %w", ErrInvalidTool, err)
		}
	}
	if e.timeout, err = timeoutOf(h.Limits.Timeout, inv.opts.Defaults.Timeout); err != nil {
		return nil, fmt.Errorf("%w: limits.timeout: %v", ErrInvalidTool, err)
	}
	if e.timeout == 0 {
		e.timeout = netguard.DefaultTimeout
	}
	e.maxReq = h.Limits.MaxRequestBytes
	if e.maxReq == 0 {
		e.maxReq = inv.opts.Defaults.MaxRequestBytes
	}
	if e.maxReq == 0 {
		e.maxReq = netguard.DefaultMaxRequestBytes
	}
	if e.client, err = inv.netguardClient(h.Limits); err != nil {
		return nil, fmt.Errorf("%w: limits: %w", ErrInvalidTool, err)
	}
	return e, nil
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return len(s) > 0
}

// entryFor returns the cached entry of a tool, compiling it on first use.
// A tool version's body does not change after its PUT, so the tool's ID,
// Version and ModifiedAt key it.
func (inv *Invoker) entryFor(tool *catalogue.Tool) (*entry, error) {
	k := keyOf(tool)
	if e, ok := inv.cache.Get(k); ok {
		return e, nil
	}
	// Compile outside any lock: schemas and clients take a while, and
	// other tools' calls must not wait for them.
	e, err := inv.compile(tool)
	if err != nil {
		return nil, err
	}
	if prev, ok, _ := inv.cache.PeekOrAdd(k, e); ok { // another call compiled it meanwhile
		e.client.CloseIdleConnections()
		return prev, nil
	}
	return e, nil
}

// Cached reports how many tools have a compiled entry (at most MaxTools).
func (inv *Invoker) Cached() int { return inv.cache.Len() }

// Close closes the idle connections of every cached tool and empties the
// cache. The Invoker stays usable.
func (inv *Invoker) Close() { inv.cache.Purge() }

// UpstreamErrorData is the ErrorData of an ErrTypeUpstream failure.
type UpstreamErrorData struct {
	// Status is the upstream's HTTP status code.
	Status int `json:"status"`
	// Excerpt is the start of the upstream's body, at most
	// MaxExcerptBytes, valid UTF-8, with secrets redacted.
	Excerpt string `json:"excerpt,omitempty"`
}

// Violation is one output-schema violation of an ErrTypeOutputMismatch
// failure: where and which keyword. It never quotes the value.
type Violation = catalogue.Violation

// Invoke calls an http tool with args (a JSON object already validated
// against the tool's argument schema; it is decoded again defensively).
//
// Problems the caller or the upstream can act on come back as a failed
// Result: arguments that do not fit the templates or the size caps
// (validation_error), a destination refused by netguard (security_error),
// a missing secret (unavailable), timeout, cancelled, rate_limited, a
// response over its cap (upstream_failure), a status outside 2xx
// (ErrTypeUpstream) and an answer that does not match the output schema
// (ErrTypeOutputMismatch), and an upstream that cannot be reached
// (upstream_failure, its Exception wrapping ErrRequest). The error is
// non-nil for a tool that cannot run as defined (ErrInvalidTool) and an
// answer that does not decode (ErrBadResponse). No error text or failure
// carries a secret.
func (inv *Invoker) Invoke(ctx context.Context, tool catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	if tool.Type != catalogue.TypeHTTP || tool.HTTPImpl == nil {
		return result.Result[any]{}, fmt.Errorf("%w: tool %q has type %q; expected %q with an httpImpl", ErrInvalidTool, tool.Slug, tool.Type, catalogue.TypeHTTP)
	}
	e, err := inv.entryFor(&tool)
	if err != nil {
		var ms *MissingSecretError
		if errors.As(err, &ms) {
			return result.Failure[any](ms.Error(), result.Unavailable).
				WithInstruction("The host must configure this secret; retrying will not help."), nil
		}
		return result.Result[any]{}, err
	}
	start := time.Now()
	res, err := inv.call(ctx, e, args)
	level := slog.LevelDebug
	if err != nil || !res.Success {
		level = slog.LevelWarn
	}
	if inv.log.Enabled(ctx, level) {
		attrs := []slog.Attr{slog.String("tool", e.slug), slog.String("version", e.version),
			slog.String("method", e.method), slog.Duration("duration", time.Since(start))}
		if err != nil {
			attrs = append(attrs, slog.String("error", inv.redact(err.Error())))
		} else if !res.Success {
			attrs = append(attrs, slog.String("error_type", string(res.ErrorType)), slog.String("error", inv.redact(res.Error)))
		}
		inv.log.LogAttrs(ctx, level, "catalogue http tool call", attrs...)
	}
	return res, err
}

func (inv *Invoker) call(ctx context.Context, e *entry, raw json.RawMessage) (result.Result[any], error) {
	if int64(len(raw)) > inv.opts.MaxArgsBytes {
		return result.Failuref[any](result.ValidationError, "arguments: %d bytes; expected at most %d", len(raw), inv.opts.MaxArgsBytes), nil
	}
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil || args == nil {
			return result.Failure[any]("arguments: expected a JSON object", result.ValidationError), nil
		}
	}
	look := func(name string) (Value, bool) {
		if r, ok := args[name]; ok {
			v, err := JSONValue(r)
			return v, err == nil
		}
		if s, ok := inv.secrets[name]; ok {
			return StringValue(s), true
		}
		return Value{}, false
	}
	req, body, err := inv.build(ctx, e, look)
	if err != nil {
		return inv.templateFailure(err)
	}
	var tok *oauth2.Token
	if e.auth != nil {
		r, t, err := inv.authorize(ctx, e, req, body)
		if err != nil || !r.Success {
			return r, err
		}
		tok = t
	}
	inv.reportSent(ctx, e, req, body)
	resp, err := e.client.Do(ctx, req)
	if err != nil {
		return inv.transportFailure(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if resp.StatusCode == http.StatusUnauthorized && tok != nil {
			// A revoked or rotated token: the next call fetches another.
			e.auth.oauth.invalidate(tok)
		}
		// Read past the cap by the longest secret, so that a secret
		// straddling the cap is redacted before the excerpt is cut.
		ex, _ := io.ReadAll(io.LimitReader(resp.Body, MaxExcerptBytes+int64(inv.maxSecret)))
		excerpt := inv.excerpt(ex)
		msg := fmt.Sprintf("upstream answered %s", resp.Status)
		if excerpt != "" {
			msg += ": " + excerpt
		}
		return result.Failure[any](inv.redact(msg), ErrTypeUpstream).
			WithErrorData(UpstreamErrorData{Status: resp.StatusCode, Excerpt: excerpt}), nil
	}
	var v any
	if e.sse {
		if v, err = inv.readSSE(ctx, resp.Body); err != nil {
			if errors.Is(err, ErrBadResponse) {
				return result.Result[any]{}, err
			}
			return inv.transportFailure(ctx, err)
		}
		return inv.finish(e, v)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return inv.transportFailure(ctx, err)
	}
	if e.text {
		v = strings.ToValidUTF8(string(data), "\uFFFD")
	} else if v, err = decodeJSON(data); err != nil {
		return result.Result[any]{}, err
	}
	return inv.finish(e, v)
}

// finish redacts secrets from a decoded answer, applies extract and
// checks the output schema.
func (inv *Invoker) finish(e *entry, v any) (result.Result[any], error) {
	var err error
	if inv.hasSecrets {
		v = inv.redactValue(v)
	}
	if e.extract != nil {
		if v, err = e.extract.Apply(v); err != nil {
			return result.Failure[any]("upstream answer: "+err.Error(), ErrTypeOutputMismatch).
				WithErrorData([]Violation{{Pointer: pointerOfExtract(err), Keyword: "extract"}}), nil
		}
	}
	if e.out != nil {
		if err := catalogue.ValidateValue(e.out, v); err != nil {
			return outputFailure(err), nil
		}
	}
	return result.Ok(v), nil
}

func pointerOfExtract(err error) string {
	var ee *ExtractError
	if errors.As(err, &ee) {
		return ee.Pointer
	}
	return ""
}

// decodeJSON decodes exactly one JSON value, numbers as json.Number. An
// empty body is null.
func decodeJSON(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: expected a JSON body: invalid JSON near byte %d", ErrBadResponse, dec.InputOffset())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: expected one JSON value, got more after byte %d", ErrBadResponse, dec.InputOffset())
	}
	return v, nil
}

func outputFailure(err error) result.Result[any] {
	return catalogue.OutputMismatch("upstream answer", err)
}

// excerpt is the start of an error body: valid UTF-8, control characters
// as spaces, secrets redacted.
func (inv *Invoker) excerpt(b []byte) string {
	s := strings.ToValidUTF8(string(b), "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	s = inv.redact(s)
	if len(s) > MaxExcerptBytes {
		i := MaxExcerptBytes
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// build renders the request of a call.
func (inv *Invoker) build(ctx context.Context, e *entry, look Lookup) (*http.Request, []byte, error) {
	u, err := e.url.Render("request.urlTemplate", look)
	if err != nil {
		return nil, nil, err
	}
	if len(e.query) > 0 {
		q := url.Values{}
		for _, n := range e.query {
			v, err := n.t.RenderText(fmt.Sprintf("request.query[%q]", n.name), look)
			if err != nil {
				return nil, nil, err
			}
			q.Add(n.name, v)
		}
		if u.RawQuery != "" {
			u.RawQuery += "&" + q.Encode()
		} else {
			u.RawQuery = q.Encode()
		}
	}
	var body []byte
	if e.hasBody {
		if body, err = e.body.Render("request.body", look); err != nil {
			return nil, nil, err
		}
		if int64(len(body)) > e.maxReq {
			return nil, nil, &ValueError{Field: "request.body", Name: "*", Reason: fmt.Sprintf("the rendered body has %d bytes; expected at most %d (maxRequestBytes)", len(body), e.maxReq)}
		}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, e.method, u.String(), rd)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: request: %v", ErrTemplate, redactURLError(err))
	}
	for _, n := range e.headers {
		v, err := n.t.RenderHeader(fmt.Sprintf("request.headers[%q]", n.name), look)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set(n.name, v)
	}
	if e.hasBody && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", e.bodyType)
	}
	if req.Header.Get("Accept") == "" {
		if e.sse {
			req.Header.Set("Accept", "text/event-stream")
		} else if e.text {
			req.Header.Set("Accept", "text/plain, */*;q=0.5")
		} else {
			req.Header.Set("Accept", "application/json")
		}
	}
	return req, body, nil
}

// templateFailure turns an error of build into a Result or an error.
func (inv *Invoker) templateFailure(err error) (result.Result[any], error) {
	var ue *UnknownError
	var ve *ValueError
	switch {
	case errors.As(err, &ue):
		return result.Failure[any](ue.Error(), result.ValidationError).WithErrorData(ue), nil
	case errors.As(err, &ve):
		return result.Failure[any](ve.Error(), result.ValidationError).WithErrorData(ve), nil
	}
	return result.Result[any]{}, fmt.Errorf("%w: %s", ErrInvalidTool, inv.redact(err.Error()))
}

// authorize adds the tool's authentication to req and returns the OAuth2
// token used, if any. A failed Result or an error stops the call.
func (inv *Invoker) authorize(ctx context.Context, e *entry, req *http.Request, body []byte) (result.Result[any], *oauth2.Token, error) {
	ok := result.Result[any]{Success: true}
	a := e.auth
	switch a.kind {
	case catalogue.AuthBearer:
		req.Header.Set("Authorization", "Bearer "+a.secret)
	case catalogue.AuthBasic:
		user, err := a.user.RenderHeader("auth.username", secretLookup(inv.secrets))
		if err != nil {
			var ue *UnknownError
			if errors.As(err, &ue) {
				return result.Failure[any]((&MissingSecretError{Field: ue.Field, Name: ue.Names[0]}).Error(), result.Unavailable), nil, nil
			}
			r, err := inv.templateFailure(err)
			return r, nil, err
		}
		req.SetBasicAuth(user, a.secret)
	case catalogue.AuthAPIKey:
		if a.in == "header" {
			req.Header.Set(a.name, a.secret)
		} else {
			q := req.URL.Query()
			q.Set(a.name, a.secret)
			req.URL.RawQuery = q.Encode()
		}
	case catalogue.AuthHMAC:
		signHMAC(req, a.newHash, []byte(a.secret), a.name, inv.opts.Now(), body)
	case catalogue.AuthOAuth2:
		tok, err := a.oauth.token(ctx, e.client.HTTPClient(), e.timeout)
		if err != nil {
			r, err := inv.tokenFailure(ctx, err)
			return r, nil, err
		}
		tok.SetAuthHeader(req)
		return ok, tok, nil
	}
	return ok, nil, nil
}

func (inv *Invoker) tokenFailure(ctx context.Context, err error) (result.Result[any], error) {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		msg := fmt.Sprintf("oauth2 token endpoint answered %d", status)
		if re.ErrorCode != "" {
			msg += ": " + clip(re.ErrorCode)
		}
		return result.Failure[any](inv.redact(msg), ErrTypeUpstream).
			WithErrorData(UpstreamErrorData{Status: status, Excerpt: inv.excerpt([]byte(clip(re.ErrorCode)))}), nil
	}
	return inv.transportFailure(ctx, err)
}

// redactedError carries a redacted text and the error it came from.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// transportFailure maps an error of netguard (or of reading the body).
func (inv *Invoker) transportFailure(ctx context.Context, err error) (result.Result[any], error) {
	safe := &redactedError{msg: inv.redact(err.Error()), err: err}
	fail := func(typ result.ErrorType, msg string) (result.Result[any], error) {
		return result.Failure[any](msg, typ).WithException(safe), nil
	}
	switch {
	case errors.Is(err, netguard.ErrBlocked):
		return fail(result.SecurityError, "request refused: "+safe.msg)
	case errors.Is(err, netguard.ErrRateLimited):
		return fail(result.RateLimited, "the tool's maxCallsPerMinute is reached; retry later")
	case errors.Is(err, netguard.ErrTooLarge):
		return fail(result.UpstreamFailure, "upstream response exceeds the tool's maxResponseBytes")
	case errors.Is(ctx.Err(), context.Canceled):
		return fail(result.Cancelled, "the call was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return fail(result.Timeout, "the upstream did not answer in time (the tool's timeout or the caller's deadline)")
	}
	// Refused, reset, no such host, a TLS failure: the upstream cannot be
	// reached, which the caller can act on (retry later, tell the user) as
	// on a 5xx answer; the exception keeps ErrRequest and the cause.
	safe.err = fmt.Errorf("%w: %w", ErrRequest, err)
	return fail(result.UpstreamFailure, "the upstream could not be reached: "+safe.msg)
}
