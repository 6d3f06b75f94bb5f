package mcpproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// ErrInvalidConfig is wrapped by every *ConfigError; check with errors.Is.
var ErrInvalidConfig = errors.New("mcpproxy: invalid configuration")

// ConfigError reports one invalid field of one server's Config. It never
// holds header or environment values.
type ConfigError struct {
	// Server is the server's Name, or "servers[i]" when the name itself is
	// missing.
	Server string
	// Field is the Config field at fault, such as "URL" or "Headers[X-Key]".
	Field string
	// Problem says what was expected.
	Problem string
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("mcpproxy: server %s: field %s: %s", e.Server, e.Field, e.Problem)
}

// Unwrap lets errors.Is(err, ErrInvalidConfig) match.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// TransportFactory returns a fresh transport for one connection attempt. It
// is called again for every reconnection.
type TransportFactory func(ctx context.Context) (mcp.Transport, error)

// Config describes one remote MCP server. Exactly one of Command, URL and
// Transport must be set.
type Config struct {
	// Name is the pack name and the first part of every proxied tool name
	// ("{Name}.{remote tool}"). It must match [A-Za-z0-9_.-]{1,64}, the
	// tool-name alphabet of MCP.
	Name string
	// Description is the pack description; empty means one is built from
	// the remote server's name and version.
	Description string

	// Command is the argv of a server spoken to over stdio.
	Command []string
	// Env is the command's environment, beside the few variables it
	// inherits from the host's process (InheritedEnv: PATH, HOME, USER, …
	// on POSIX, and InheritEnv's); an Env variable wins over an inherited
	// one. Nothing else of the host's environment reaches the command —
	// not the host's own tokens, nor other servers' keys. Its values are
	// secrets: they are redacted from logs, errors, Status, the command's
	// standard error and the results of its tools (see the package
	// documentation, Secrets) — all but plain settings that no credential
	// is (true, off, debug, error, 8080, …). Give here what the server
	// needs that is a credential (its API key); a plain setting that
	// tools may return (LANG, TMPDIR, a proxy's address) goes in
	// InheritEnv instead, or it is redacted from their results.
	Env map[string]string
	// InheritEnv names further variables of the host's process passed to
	// the command as they are, beside InheritedEnv's (LANG, TZ, TMPDIR,
	// HTTP_PROXY, HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE, XDG_*, DISPLAY,
	// …); one the host has not set is left out, as is a value starting
	// with "()" (an exported shell function). Their values are not
	// secrets: they are never redacted, so a tool's result that holds one
	// ("wrote /tmp/report.txt", "locale C.UTF-8") comes back whole. Never
	// name a credential here (it would reach logs and results as it is):
	// pass one in Env (in a host configuration, env: {KEY: "${KEY}"}). A
	// name is given once, and not in Env too.
	InheritEnv []string
	// Dir is the command's working directory; empty means the current one.
	Dir string

	// URL is the endpoint of a streamable HTTP server (http or https),
	// without user information: user:password@ is refused (ConfigError on
	// the field URL, neither quoted) — credentials go in Headers. Its
	// query values are secrets.
	URL string
	// Headers are sent with every HTTP request (for example Authorization).
	// Their values are secrets: they are redacted from logs, errors, Status
	// and the results of the server's tools — all but those of standard
	// headers describing the request (Accept, Content-Type, User-Agent, …)
	// and plain settings (true, 8080, …).
	Headers map[string]string
	// Secrets are further values kept out of the proxy's logs, Status,
	// the child's stderr and the errors of failed connections and calls —
	// the text and error data of a remote's isError result and the
	// message and data of a remote JSON-RPC error included: a token in
	// the URL's path or host, an API key passed as a command argument (a
	// host configuration's ${VAR} values: hostconfig.Server.Secrets).
	// Unlike header values they are not taken out of successful results
	// and the tools' descriptions, which may rightly hold such a value (a
	// directory given as an argument). Plain settings (true, 8080, …) are
	// left alone.
	Secrets []string

	// Transport, when set, supplies the transport directly (tests use
	// in-memory transports).
	Transport TransportFactory
}

// Backoff configures reconnection. The zero value retries for as long as
// the proxy is open, waiting 500ms, then growing by 1.5× up to 30s between
// attempts.
type Backoff struct {
	// Initial is the first wait; zero means 500ms.
	Initial time.Duration
	// Max caps every wait; zero means 30s.
	Max time.Duration
	// MaxTries, when positive, bounds the attempts of one reconnection
	// round; the server then stays disconnected until Refresh is called.
	// Zero means no bound (the waits are still capped by Max).
	MaxTries uint
}

// Defaults used for zero Options fields.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultCallTimeout    = 5 * time.Minute
	DefaultKeepAlive      = 15 * time.Second
	DefaultMaxTools       = 1000
	DefaultMaxSchemaBytes = 1 << 20
	DefaultMaxResultBytes = 16 << 20
	defaultBackoffInitial = 500 * time.Millisecond
	defaultBackoffMax     = 30 * time.Second
)

// Options configure a Proxy. The zero value is usable.
type Options struct {
	// Logger receives connection events (INFO: connected; WARN: connection
	// failures, skipped tools, reconnections; DEBUG: retries); nil means
	// slog.Default(). Secrets are redacted from everything logged, and
	// argument values are never logged.
	Logger *slog.Logger
	// ConnectTimeout bounds each connection attempt (connect, initialize,
	// list tools); zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// CallTimeout bounds each forwarded call; zero means DefaultCallTimeout,
	// negative means no bound besides the caller's context. Tests should set
	// a few seconds, so that a hung remote fails them fast.
	CallTimeout time.Duration
	// Backoff configures reconnection.
	Backoff Backoff
	// HTTPClient is the base client for URL servers; nil means a client
	// with http.DefaultTransport. Config.Headers are added by a wrapping
	// RoundTripper, the client itself is not modified.
	HTTPClient *http.Client
	// Stderr receives the standard error of Command servers, line by line
	// with the server's secrets redacted; nil means the child's stderr is
	// discarded.
	Stderr io.Writer
	// MaxTools caps the tools listed per server; zero means DefaultMaxTools.
	// A server listing more is an error for that server.
	MaxTools int
	// MaxSchemaBytes caps the JSON size of one tool's input or output
	// schema; zero means DefaultMaxSchemaBytes. Larger tools are skipped.
	MaxSchemaBytes int
	// MaxResultBytes caps the text or structured content of one result;
	// zero means DefaultMaxResultBytes. A larger result is an
	// upstream_failure. Over stdio one message is at most 16 MiB besides
	// (the go-sdk's mcp.DefaultMaxLineLength): a larger answer is an
	// upstream_failure saying so, and the server is reconnected, since its
	// stream cannot be read past the message.
	MaxResultBytes int
	// OnStatus, when set, is called after every change of a server's
	// status, from the goroutine that changed it; it must not block.
	OnStatus func(Status)
	// KeepAlive is how often a connected server without calls in flight
	// is pinged to find out it has gone (a remote that died or hangs
	// without closing the connection): two pings in a row that get no
	// answer within half the interval drop the connection, the server
	// shows disconnected and reconnection starts. A server busy with calls
	// is not pinged (it may not answer until they end; they have
	// CallTimeout). Zero means DefaultKeepAlive; negative sends no pings
	// (the loss is then found by the next call).
	KeepAlive time.Duration
	// Propagator writes the caller's trace context into each forwarded
	// call (its _meta, and the HTTP headers of a streamable HTTP server);
	// nil means the propagators OTEL_PROPAGATORS names (tracecontext,
	// baggage, b3, b3multi, jaeger, xray, ottrace, or none to send no
	// context), as the telemetry middleware (registry/telemetry) reads
	// them, and W3C Trace Context (traceparent, tracestate) when it is
	// unset. New refuses an unknown name (ErrInvalidConfig).
	Propagator propagation.TextMapPropagator
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Backoff.Initial <= 0 {
		o.Backoff.Initial = defaultBackoffInitial
	}
	if o.Backoff.Max <= 0 {
		o.Backoff.Max = defaultBackoffMax
	}
	if o.Backoff.Max < o.Backoff.Initial {
		o.Backoff.Max = o.Backoff.Initial
	}
	if o.MaxTools <= 0 {
		o.MaxTools = DefaultMaxTools
	}
	if o.MaxSchemaBytes <= 0 {
		o.MaxSchemaBytes = DefaultMaxSchemaBytes
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	return o
}

var (
	serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// validate checks every config and the uniqueness of names.
func validate(cfgs []Config) error {
	seen := map[string]bool{}
	var errs []error
	for i, c := range cfgs {
		label := fmt.Sprintf("servers[%d]", i)
		bad := func(field, problem string) {
			errs = append(errs, &ConfigError{Server: label, Field: field, Problem: problem})
		}
		switch {
		case c.Name == "":
			bad("Name", "expected a non-empty name matching [A-Za-z0-9_.-]{1,64}")
		case !serverNameRE.MatchString(c.Name):
			bad("Name", fmt.Sprintf("expected [A-Za-z0-9_.-]{1,64}, got %q", c.Name))
		default:
			label = fmt.Sprintf("%q", c.Name)
			if seen[c.Name] {
				bad("Name", "expected a unique name; it is used by another server")
			}
			seen[c.Name] = true
		}
		kinds := 0
		for _, set := range []bool{len(c.Command) > 0, c.URL != "", c.Transport != nil} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			bad("Command/URL/Transport", fmt.Sprintf("expected exactly one of Command, URL and Transport, got %d", kinds))
		}
		if len(c.Command) > 0 && strings.TrimSpace(c.Command[0]) == "" {
			bad("Command[0]", "expected the program to run, got an empty string")
		}
		for k := range c.Env {
			if !envNameRE.MatchString(k) {
				bad("Env", fmt.Sprintf("expected variable names matching [A-Za-z_][A-Za-z0-9_]*, got %q", k))
			}
		}
		if len(c.Env) > 0 && len(c.Command) == 0 {
			bad("Env", "only applies to a Command server")
		}
		for i, k := range c.InheritEnv {
			switch {
			case !envNameRE.MatchString(k):
				bad("InheritEnv", fmt.Sprintf("expected variable names matching [A-Za-z_][A-Za-z0-9_]*, got %q", k))
			case slices.ContainsFunc(c.InheritEnv[:i], func(s string) bool { return sameName(s, k) }):
				bad("InheritEnv", fmt.Sprintf("%s is named twice; expected each variable once", k))
			case configured(c.Env, k):
				bad("InheritEnv", fmt.Sprintf("%s is set in Env too; expected each variable in one of them (Env for a secret, InheritEnv for a plain setting)", k))
			case hostconfig.CredentialEnvName(k):
				bad("InheritEnv", fmt.Sprintf("%s holds a credential by its name; expected plain settings only (pass it in Env, which redacts it)", k))
			}
		}
		if len(c.InheritEnv) > 0 && len(c.Command) == 0 {
			bad("InheritEnv", "only applies to a Command server")
		}
		if c.Dir != "" && len(c.Command) == 0 {
			bad("Dir", "only applies to a Command server")
		}
		if c.URL != "" {
			if p := checkURL(c.URL); p != "" {
				bad("URL", p)
			}
		}
		for k, v := range c.Headers {
			if !headerNameRE.MatchString(k) {
				bad("Headers", fmt.Sprintf("expected HTTP header names (RFC 9110 tokens), got %q", k))
			} else if strings.ContainsAny(v, "\r\n\x00") {
				bad("Headers["+k+"]", "expected a value without CR, LF or NUL (value not shown)")
			}
		}
		if len(c.Headers) > 0 && c.URL == "" {
			bad("Headers", "only applies to a URL server")
		}
	}
	return errors.Join(errs...)
}

// checkURL returns the problem with raw, or "" when it is usable. The URL
// itself is not repeated (it may carry credentials).
func checkURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "expected an absolute http or https URL; it does not parse"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Sprintf("expected an http or https URL, got scheme %q", u.Scheme)
	}
	if u.Host == "" {
		return "expected an absolute http or https URL with a host"
	}
	if u.User != nil {
		// As the host configuration's readers (servers:, -proxy) refuse
		// it: a credential in the URL is one more place it may leak from.
		return "expected a URL without user information (user:password@); send credentials in Headers (Authorization: \"Basic …\" or \"Bearer …\"), which are redacted (value not shown)"
	}
	return ""
}

// displayURL is raw without its user information (user name and password:
// a token is often given as the user name) and query values, for logs.
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment = ""
	return u.String()
}
