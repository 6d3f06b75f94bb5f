package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"

	"github.com/toolpack-go/toolpack/internal/jsontext"
	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/internal/tracectx"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// Errors of the proxy; check with errors.Is.
var (
	// ErrUnknownServer: Refresh named no configured server.
	ErrUnknownServer = errors.New("mcpproxy: unknown server")
	// ErrTooManyTools: a server listed more than Options.MaxTools tools.
	ErrTooManyTools = errors.New("mcpproxy: too many tools")
	// ErrCall: a forwarded call failed below the MCP protocol (transport,
	// malformed response). The text is redacted; JSON-RPC errors of the
	// remote server are returned as *RemoteError instead.
	ErrCall = errors.New("mcpproxy: call failed")
	// ErrClosed: the proxy is closed.
	ErrClosed = errors.New("mcpproxy: proxy closed")
)

// RemoteError is the error of a forwarded call that the remote server
// answered with a JSON-RPC error. Its text names the server, the tool and
// the JSON-RPC code only: remote messages often repeat the call's
// arguments, and error texts end up in logs (the registry logs every
// handler error at ERROR). The remote error itself, with the server's
// secrets redacted from its message and data, is Err; errors.As with a
// *jsonrpc.Error finds it.
type RemoteError struct {
	// Server is the configured server name.
	Server string
	// Tool is the remote tool name.
	Tool string
	// Code is the JSON-RPC error code of the remote answer.
	Code int64
	// Err is the remote error, secrets redacted, message cut to 2000
	// bytes, data dropped when it is larger than 64 KiB or not JSON.
	Err *jsonrpc.Error
}

// Error implements error; it never holds the remote message.
func (e *RemoteError) Error() string {
	return fmt.Sprintf("mcpproxy: server %q tool %q: remote protocol error (JSON-RPC code %d)", e.Server, e.Tool, e.Code)
}

// Unwrap returns Err.
func (e *RemoteError) Unwrap() error { return e.Err }

// maxErrorData caps the data of a remote JSON-RPC error kept in
// RemoteError.Err.
const maxErrorData = 64 << 10

// State is a server's connection state.
type State string

// States reported in Status.State.
const (
	// Connected: a session is open and the server's tools are registered.
	Connected State = "connected"
	// Disconnected: no session; calls fail with error type unavailable.
	Disconnected State = "disconnected"
)

// Transport kinds reported in Status.Transport.
const (
	TransportStdio  = "stdio"
	TransportHTTP   = "http"
	TransportCustom = "custom"
)

// Health values returned by Proxy.Health (seed 001's ot.health).
const (
	HealthOK       = "ok"
	HealthDegraded = "degraded"
)

// Status is a snapshot of one server's health. It holds no secrets.
type Status struct {
	// Name is the server (and pack) name.
	Name string
	// State is Connected or Disconnected.
	State State
	// Transport is TransportStdio, TransportHTTP or TransportCustom.
	Transport string
	// Tools is the number of the server's tools in the registry.
	Tools int
	// Skipped is the number of listed tools left out (invalid name,
	// oversized or non-object schema); each is logged as a warning.
	Skipped int
	// Remote is the remote implementation's "name version", once known
	// (secrets redacted, cut to 200 bytes).
	Remote string
	// LastError is the most recent connection error, redacted and cut to
	// 2000 bytes; it is kept after a successful reconnection so that
	// health output can show it.
	LastError string
	// Connects counts successful connections (1 after the first).
	Connects int
}

// Proxy mirrors remote MCP servers into a registry, one pack per server.
// It is safe for concurrent use.
type Proxy struct {
	reg    *registry.Registry
	opts   Options
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	// prop carries the caller's trace to the remote servers, in a
	// request's _meta (as OpenTelemetry's conventions for MCP put it) and
	// in the HTTP headers of a streamable HTTP server: Options.Propagator,
	// else the propagators OTEL_PROPAGATORS names, else W3C Trace Context
	// (traceparent, tracestate). The trace is the call context's span's
	// (a toolpack host's tool span, or the caller's) or, when it carries
	// no span (a host that does not trace), the caller's own as its
	// request carried it (tracectx.FromRequest: _meta, else the HTTP headers; what prop
	// cannot read, a malformed traceparent, is not passed on).
	prop propagation.TextMapPropagator

	reconf sync.Mutex // serialises Reconfigure

	mu      sync.Mutex // guards the fields below
	servers []*server  // the configured servers, sorted by name
	byName  map[string]*server
	closed  bool

	// packMu serialises registering and unregistering packs; owner maps
	// a pack name to the server whose pack is registered under it.
	packMu sync.Mutex
	owner  map[string]*server
}

// server is the live state of one configured server.
type server struct {
	p      *Proxy
	cfg    Config
	ctx    context.Context // ends when the server is retired or the proxy closes
	cancel context.CancelFunc
	done   chan struct{} // closed when run returns
	ready  chan struct{} // closed when the first connection attempt has ended
	kind   string
	source string
	// registered is the tool list registered last and registeredRemote
	// the remote's name then (written under p.packMu; registered is read
	// without it by forward, which a registry subscriber may reach while
	// p.packMu is held); nil when none is.
	registered       atomic.Pointer[[]remoteTool]
	registeredRemote string
	// desc is the pack description given (Config.Description; guarded by
	// p.packMu): a Reconfigure that changes nothing else updates it in
	// place, without reconnecting.
	desc    string
	red     *redactor // secrets of the headers and env: kept out of everything, successful results included
	logRed  *redactor // red and Config.Secrets: kept out of logs, status, stderr, errors and failures
	log     *slog.Logger
	client  *mcp.Client
	refresh chan struct{}
	broken  chan struct{} // a call found the session unusable

	mu         sync.Mutex
	sess       *mcp.ClientSession
	sessCtx    context.Context    // ends when sess is dropped or the proxy closes
	sessCancel context.CancelFunc // cancels sessCtx
	status     Status
	stderr     *redactWriter // of the current child (Command servers with Options.Stderr)
	calls      int           // forwarded calls in flight
	idle       chan struct{} // closed when calls drops to zero, while draining
	// closing: the server is retired (Reconfigure) and takes no new
	// calls; a call of one of its tools made later (a tool a snippet
	// held across the reload) goes to successor, the server that
	// replaced it, or fails saying the server was removed when none did.
	closing   bool
	successor *server

	// retiring: the server is no longer configured (Reconfigure): its
	// status is no longer reported and its pack, while it still has it,
	// is taken over by a successor of the same name.
	retiring atomic.Bool
}

// New validates the configs, connects to every server concurrently, and
// registers the tools of those that answer as packs of reg. A server that
// cannot be reached is logged as a warning and marked disconnected; it is
// retried in the background with back-off, and the rest of the registry
// works meanwhile. New returns once every server's first attempt has ended
// (each bounded by Options.ConnectTimeout); ctx bounds that wait only, the
// proxy then runs until Close.
//
// Invalid configs return an error wrapping ErrInvalidConfig that names the
// server and field (one *ConfigError per problem, joined).
func New(ctx context.Context, reg *registry.Registry, cfgs []Config, opts Options) (*Proxy, error) {
	if reg == nil {
		return nil, fmt.Errorf("%w: registry: expected a *registry.Registry, got nil", ErrInvalidConfig)
	}
	if err := validate(cfgs); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	prop := opts.Propagator
	if prop == nil {
		var err error
		if prop, err = tracectx.FromEnv(propagation.TraceContext{}); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &Proxy{reg: reg, opts: opts, prop: prop, byName: map[string]*server{}, owner: map[string]*server{}, ctx: bg, cancel: cancel}
	for _, c := range cfgs {
		s := p.newServer(c)
		p.servers = append(p.servers, s)
		p.byName[c.Name] = s
	}
	sortServers(p.servers)
	p.start(p.servers)
	if err := waitReady(ctx, p.servers); err != nil {
		_ = p.Close()
		return nil, err
	}
	return p, nil
}

func sortServers(ss []*server) {
	sort.Slice(ss, func(i, j int) bool { return ss[i].cfg.Name < ss[j].cfg.Name })
}

// start runs each server's connection loop (waitReady waits for their
// first attempts). p.wg must be able to take them: p.mu held and p not
// closed, or p not yet shared.
func (p *Proxy) start(ss []*server) {
	for _, s := range ss {
		p.wg.Add(1)
		go s.run()
	}
}

// waitReady waits for the first attempt of every server of ss (its
// ready), or for ctx to end.
func waitReady(ctx context.Context, ss []*server) error {
	for _, s := range ss {
		select {
		case <-s.ready:
		case <-ctx.Done():
			return fmt.Errorf("mcpproxy: waiting for the first connections: %w", ctx.Err())
		}
	}
	return nil
}

// Validate checks server configurations as New and Reconfigure do: every
// problem is a *ConfigError naming the server and field (joined), and
// the error wraps ErrInvalidConfig. No value of a header or environment
// variable is ever quoted.
func Validate(cfgs []Config) error { return validate(cfgs) }

// Reconfigure makes cfgs the proxy's servers, as New would have made
// them, without disturbing the servers whose Config is unchanged:
//
//   - a server no longer in cfgs has its pack removed at once (new calls
//     of its tools are unknown tools); the calls already forwarded to it
//     finish, then it is disconnected (in the background). A call of one
//     of its tools made later by a caller that held the tool (a
//     snippet's later step, see registry.Pinned) fails with error type
//     unavailable, saying the server was removed from the configuration;
//   - a new server is connected and its tools registered, as by New;
//   - a server whose Config changed in how it is reached (Command, Env,
//     InheritEnv, Dir, URL, Headers, Secrets, Transport) is restarted: the new one
//     connects while the old one keeps serving; when the new one's first
//     attempt succeeds, its tools replace the old ones in one step
//     (Registry.ReplacePack), so calls never find the tools missing; when
//     it fails, the old one's pack is removed and the new one retries
//     with back-off. Either way the old one finishes the calls already
//     forwarded to it and is then disconnected; a call of one of the old
//     one's tools made after that (a caller that held the tool across
//     the change) is forwarded to the new one, so no call fails because
//     of the change. A Config with a Transport counts as changed
//     (functions cannot be compared);
//   - a server whose Description alone changed keeps its session: its
//     pack is replaced with the new description (one registry change).
//
// Invalid configs change nothing and return an error wrapping
// ErrInvalidConfig (see Validate). Reconfigure returns once every new
// server's first attempt has ended (each bounded by
// Options.ConnectTimeout); ctx bounds that wait only. Calls of Reconfigure
// are serialised; after Close it returns ErrClosed.
func (p *Proxy) Reconfigure(ctx context.Context, cfgs []Config) error {
	if err := validate(cfgs); err != nil {
		return err
	}
	p.reconf.Lock()
	defer p.reconf.Unlock()

	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	old := p.byName
	next := make(map[string]*server, len(cfgs))
	var fresh, changed, removed []*server
	redescribe := map[*server]string{}
	for _, c := range cfgs {
		if s, ok := old[c.Name]; ok && sameConnection(s.cfg, c) {
			next[c.Name] = s
			redescribe[s] = c.Description
			continue
		}
		s := p.newServer(c)
		if prev, ok := old[c.Name]; ok {
			changed = append(changed, prev)
			prev.mu.Lock()
			prev.successor = s
			prev.mu.Unlock()
		}
		fresh = append(fresh, s)
		next[c.Name] = s
	}
	for name, s := range old {
		if _, ok := next[name]; !ok {
			removed = append(removed, s)
		}
	}
	servers := make([]*server, 0, len(next))
	for _, s := range next {
		servers = append(servers, s)
	}
	sortServers(servers)
	for _, s := range append(changed, removed...) {
		s.retiring.Store(true)
	}
	p.servers, p.byName = servers, next
	p.start(fresh)
	p.wg.Add(len(changed) + len(removed))
	p.mu.Unlock()

	for s, desc := range redescribe {
		s.describe(desc)
	}
	for _, s := range removed {
		s.log.Info("MCP server removed from the configuration; finishing its calls in flight")
		s.unregister()
		go s.retire()
	}
	err := waitReady(ctx, fresh)
	for _, s := range changed {
		s.log.Info("MCP server configuration changed; the old connection finishes its calls in flight")
		go s.retire()
	}
	return err
}

// sameConnection reports whether two configs reach the same server the
// same way: all but the Description are the same (the description is
// changed in place, see server.describe). A Transport cannot be
// compared: a config with one is never the same.
func sameConnection(a, b Config) bool {
	return a.Transport == nil && b.Transport == nil && a.Name == b.Name &&
		slices.Equal(a.Command, b.Command) && maps.Equal(a.Env, b.Env) && slices.Equal(a.InheritEnv, b.InheritEnv) && a.Dir == b.Dir &&
		a.URL == b.URL && maps.Equal(a.Headers, b.Headers) && slices.Equal(a.Secrets, b.Secrets)
}

// describe makes desc the server's pack description; the pack, when the
// server has it registered, is replaced (same tools, same handlers) in
// one step.
func (s *server) describe(desc string) {
	p := s.p
	p.packMu.Lock()
	defer p.packMu.Unlock()
	if s.desc == desc {
		return
	}
	s.desc = desc
	tools := s.registered.Load()
	if p.owner[s.cfg.Name] != s || tools == nil {
		return
	}
	if err := p.reg.ReplacePack(s.pack(*tools, s.registeredRemote)); err != nil {
		s.log.Warn("updating the description of the MCP server's pack failed", "error", err)
	}
}

// retire ends a server that is no longer configured: it takes no new
// calls (later calls of its tools go to its successor, see call), waits
// for the calls in flight (each bounded by the caller or
// Options.CallTimeout), stops the connection loop, closes the session and
// removes the pack if the server still has it (a successor of the same
// name may have taken it over).
func (s *server) retire() {
	defer s.p.wg.Done()
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.drain()
	s.cancel()
	<-s.done
	s.unregister()
	s.flushStderr()
}

// drain waits until no call is in flight on s or the proxy closes.
func (s *server) drain() {
	s.mu.Lock()
	if s.calls == 0 {
		s.mu.Unlock()
		return
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	idle := s.idle
	s.mu.Unlock()
	select {
	case <-idle:
	case <-s.p.ctx.Done():
	}
}

// callEnded counts a call in flight (see call) as ended, for drain.
func (s *server) callEnded() {
	s.mu.Lock()
	s.calls--
	if s.calls == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	s.mu.Unlock()
}

func (p *Proxy) newServer(c Config) *server {
	results := c
	results.Secrets = nil
	s := &server{p: p, cfg: c, source: registry.SourceProxyPrefix + c.Name, red: newRedactor(results), logRed: newRedactor(c),
		refresh: make(chan struct{}, 1), broken: make(chan struct{}, 1), done: make(chan struct{}), ready: make(chan struct{}),
		desc: c.Description}
	s.ctx, s.cancel = context.WithCancel(p.ctx)
	switch {
	case len(c.Command) > 0:
		s.kind = TransportStdio
	case c.URL != "":
		s.kind = TransportHTTP
	default:
		s.kind = TransportCustom
	}
	s.log = slog.New(&redactHandler{inner: p.opts.Logger.Handler(), r: s.logRed}).
		With("mcp_server", c.Name, "transport", s.kind)
	if c.URL != "" {
		s.log = s.log.With("url", displayURL(c.URL))
	}
	s.status = Status{Name: c.Name, State: Disconnected, Transport: s.kind}
	s.client = mcp.NewClient(&mcp.Implementation{Name: "toolpack-mcpproxy", Version: "1.0.0"}, &mcp.ClientOptions{
		Logger:       s.log,
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.poke()
		},
	})
	return s
}

// Status reports every server, sorted by name.
func (p *Proxy) Status() []Status {
	p.mu.Lock()
	servers := p.servers
	p.mu.Unlock()
	out := make([]Status, len(servers))
	for i, s := range servers {
		s.mu.Lock()
		out[i] = s.status
		s.mu.Unlock()
	}
	return out
}

// Health is "ok" when every server is connected (or none is configured) and
// "degraded" otherwise.
func (p *Proxy) Health() string {
	for _, st := range p.Status() {
		if st.State != Connected {
			return HealthDegraded
		}
	}
	return HealthOK
}

// Refresh asks the named server to re-list its tools and refresh its pack
// when connected, or to start a new round of connection attempts when it
// gave up (Backoff.MaxTries, name clash). It does not wait.
func (p *Proxy) Refresh(name string) error {
	p.mu.Lock()
	s, ok := p.byName[name]
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	s.poke()
	return nil
}

// Close disconnects every server (calls in flight end at once with error
// type unavailable), stops every goroutine of the proxy, and removes the
// proxied tools from the registry. It is idempotent.
func (p *Proxy) Close() error {
	p.once.Do(func() {
		p.mu.Lock()
		p.closed = true
		servers := p.servers
		p.mu.Unlock()
		p.cancel()
		p.wg.Wait()
		for _, s := range servers {
			s.unregister()
			s.flushStderr()
		}
	})
	return nil
}

// flushStderr writes out the partial last line of the current child's
// standard error. It is called once the child's session is closed (which
// ends the child); anything the child writes later is dropped, so that no
// secret can be written in two pieces.
func (s *server) flushStderr() {
	s.mu.Lock()
	w := s.stderr
	s.mu.Unlock()
	if w != nil {
		w.Flush()
	}
}

func (s *server) poke() {
	select {
	case s.refresh <- struct{}{}:
	default:
	}
}

// update changes the status under the lock and reports it.
func (s *server) update(fn func(st *Status)) {
	s.mu.Lock()
	fn(&s.status)
	st := s.status
	s.mu.Unlock()
	if s.p.opts.OnStatus != nil && !s.retiring.Load() {
		s.p.opts.OnStatus(st)
	}
}

// run connects, watches the session and reconnects until s.ctx ends.
// s.ready is closed when the first attempt has ended.
func (s *server) run() {
	ctx := s.ctx
	defer s.p.wg.Done()
	defer close(s.done)
	var readyOnce sync.Once
	signal := func() { readyOnce.Do(func() { close(s.ready) }) }
	defer signal()
	for {
		sess, err := s.connectWithBackoff(ctx, signal)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("MCP server stays disconnected until refreshed", "error", err)
			signal() // after the warning, so that New's caller finds it logged
			select {
			case <-ctx.Done():
				return
			case <-s.refresh:
				continue
			}
		}
		signal()
		if !s.watch(ctx, sess) {
			return
		}
	}
}

// connectWithBackoff runs connection attempts with back-off until one
// succeeds, the attempts are exhausted, a permanent error occurs, or ctx
// ends.
func (s *server) connectWithBackoff(ctx context.Context, firstFailed func()) (*mcp.ClientSession, error) {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = s.p.opts.Backoff.Initial
	b.MaxInterval = s.p.opts.Backoff.Max
	b.Multiplier = 1.5
	attempt := 0
	ro := []backoff.RetryOption{
		backoff.WithBackOff(b),
		backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, next time.Duration) {
			s.log.Debug("next MCP server connection attempt", "after", next)
			firstFailed()
		}),
	}
	if n := s.p.opts.Backoff.MaxTries; n > 0 {
		ro = append(ro, backoff.WithMaxTries(n))
	}
	return backoff.Retry(ctx, func() (*mcp.ClientSession, error) {
		attempt++
		sess, err := s.connectOnce(ctx)
		if err != nil {
			s.flushStderr()
		}
		if err != nil && ctx.Err() == nil {
			s.update(func(st *Status) { st.State = Disconnected; st.LastError = s.logRed.errText(err) })
			if attempt == 1 {
				s.log.Warn("cannot connect to MCP server; marked disconnected", "error", err)
			} else {
				s.log.Debug("MCP server connection attempt failed", "attempt", attempt, "error", err)
			}
		}
		return sess, err
	}, ro...)
}

// connectOnce opens a session, lists the tools and registers the pack. The
// returned error is redacted.
func (s *server) connectOnce(ctx context.Context) (*mcp.ClientSession, error) {
	if err := ctx.Err(); err != nil {
		return nil, backoff.Permanent(err)
	}
	cctx, cancel := context.WithTimeout(ctx, s.p.opts.ConnectTimeout)
	defer cancel()
	t, err := s.transport(cctx)
	if err != nil {
		return nil, s.wrap("creating the transport", err)
	}
	sess, err := s.client.Connect(cctx, t, nil)
	if err != nil {
		return nil, s.wrap("connecting", err)
	}
	if err := s.sync(cctx, sess); err != nil {
		_ = sess.Close()
		return nil, err
	}
	s.update(func(st *Status) { st.Connects++ })
	return sess, nil
}

// sync lists the tools of sess, replaces the server's pack, and marks the
// server connected with sess. A name clash is a permanent error.
func (s *server) sync(ctx context.Context, sess *mcp.ClientSession) error {
	tools, skipped, err := s.list(ctx, sess)
	if err != nil {
		return err
	}
	remote := ""
	if ir := sess.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		remote = truncate(s.red.text(ir.ServerInfo.Name+" "+ir.ServerInfo.Version), 200)
	}
	// The session is the server's before its tools are registered: a
	// call of a tool is served from the moment the registry has it (a
	// changed server's tools replace the old ones in one step).
	s.mu.Lock()
	fresh := s.sess != sess
	if fresh {
		if s.sessCancel != nil {
			s.sessCancel()
		}
		s.sessCtx, s.sessCancel = context.WithCancel(s.ctx)
	}
	s.sess = sess
	s.mu.Unlock()
	changed, err := s.register(tools, remote)
	if err != nil {
		s.unregister()
		err = backoff.Permanent(s.wrap("registering the tools", err))
		if fresh {
			s.markDropped(sess, s.logRed.errText(err))
		}
		return err
	}
	s.update(func(st *Status) {
		st.State = Connected
		st.Tools = len(tools)
		st.Skipped = skipped
		st.Remote = s.logRed.text(remote) // Status keeps Config.Secrets out too
	})
	switch {
	case fresh:
		s.log.Info("MCP server connected", "tools", len(tools), "skipped", skipped, "remote", remote)
	case changed:
		s.log.Info("MCP server's tools changed", "tools", len(tools), "skipped", skipped)
	}
	return nil
}

// wrap returns an error with the redacted text of err (the original error is
// not kept, so that no secret can leak through Unwrap).
func (s *server) wrap(op string, err error) error {
	if errors.Is(err, ErrTooManyTools) {
		return fmt.Errorf("mcpproxy: server %q: %s: %w", s.cfg.Name, op, err)
	}
	if errors.Is(err, registry.ErrNameClash) || errors.Is(err, registry.ErrInvalidName) {
		return fmt.Errorf("mcpproxy: server %q: %s: %w", s.cfg.Name, op, err)
	}
	return fmt.Errorf("mcpproxy: server %q: %s: %s", s.cfg.Name, op, s.logRed.errText(err))
}

// list reads every page of tools/list, bounded by Options.MaxTools.
func (s *server) list(ctx context.Context, sess *mcp.ClientSession) ([]remoteTool, int, error) {
	var listed []*mcp.Tool
	cp := newCapture(s.p.opts.MaxResultBytes)
	for t, err := range sess.Tools(withCapture(ctx, cp), nil) {
		if err != nil {
			return nil, 0, s.wrap("listing tools", err)
		}
		if len(listed) == s.p.opts.MaxTools {
			return nil, 0, backoff.Permanent(s.wrap("listing tools",
				fmt.Errorf("%w: more than %d (Options.MaxTools)", ErrTooManyTools, s.p.opts.MaxTools)))
		}
		listed = append(listed, t)
	}
	rawListed := rawTools(cp.finish())
	var out []remoteTool
	skipped, own := 0, 0
	for _, t := range listed {
		if t == nil {
			skipped++
			continue
		}
		via := hostsOf(t.Meta)
		if slices.Contains(via, s.p.reg.ID()) {
			// This host's own tool served back (the server proxies this
			// host, or is this host): served again, it would come back
			// once more under a longer name, without end.
			skipped++
			own++
			continue
		}
		raw, known := rawListed[t.Name]
		rt, why := convertTool(s.cfg.Name, t, s.p.opts.MaxSchemaBytes, s.red, raw, known)
		if why != "" {
			skipped++
			s.log.Warn("skipping remote tool", "tool", truncate(t.Name, 200), "reason", why)
			continue
		}
		rt.via = via
		out = append(out, rt)
	}
	if own > 0 {
		s.log.Warn("skipping the remote tools that are this host's own, served back to it: the server proxies this host, or is this host", "tools", own)
	}
	return out, skipped, nil
}

// register replaces the server's pack in the registry. A list equal to
// the one registered last leaves the pack as it is (changed false):
// replacing it would tell MCP clients the tool list changed, and two
// hosts proxying each other would answer each other's notifications
// with refreshes for ever.
func (s *server) register(tools []remoteTool, remote string) (changed bool, err error) {
	p := s.p
	p.packMu.Lock()
	last := s.registered.Load()
	same := p.owner[s.cfg.Name] == s && last != nil && remote == s.registeredRemote && reflect.DeepEqual(tools, *last)
	p.packMu.Unlock()
	if same {
		return false, nil
	}
	if err := s.replacePack(tools, remote); err != nil {
		return false, err
	}
	p.packMu.Lock()
	s.registered.Store(&tools)
	s.registeredRemote = remote
	p.packMu.Unlock()
	return true, nil
}

// pack builds the server's pack of tools (p.packMu held: it reads desc).
func (s *server) pack(tools []remoteTool, remote string) *registry.Pack {
	desc := s.desc
	if desc == "" {
		desc = fmt.Sprintf("Tools of the MCP server %q", s.cfg.Name)
		if remote != "" {
			desc += " (" + remote + ")"
		}
		desc += ", forwarded by the proxy."
	}
	pack := &registry.Pack{Name: s.cfg.Name, Description: desc}
	for _, rt := range tools {
		pack.Tools = append(pack.Tools, &registry.Tool{
			Name:         ToolName(s.cfg.Name, rt.name),
			Title:        rt.title,
			Description:  rt.description,
			InputSchema:  rt.inputSchema,
			OutputSchema: rt.outputSchema,
			Annotations:  rt.annotations,
			Source:       s.source,
			Via:          rt.via,
			Usage:        registry.Usage{Signature: rt.signature, Args: rt.args, Returns: rt.returns},
			Handler:      s.handler(rt),
		})
	}
	return pack
}

// replacePack puts the server's pack of tools in the registry.
func (s *server) replacePack(tools []remoteTool, remote string) error {
	p := s.p
	p.packMu.Lock()
	defer p.packMu.Unlock()
	pack := s.pack(tools, remote)
	owner := p.owner[s.cfg.Name]
	var err error
	switch {
	case owner == s, owner != nil && owner.retiring.Load() && !s.retiring.Load():
		// Our own pack, or a retired predecessor's: replaced in one step.
		err = p.reg.ReplacePack(pack)
	case s.retiring.Load():
		return errRetired
	default:
		err = p.reg.AddPack(pack)
	}
	if err != nil {
		return err
	}
	p.owner[s.cfg.Name] = s
	return nil
}

// errRetired: a server no longer configured does not register its tools.
var errRetired = errors.New("mcpproxy: the server was removed from the configuration")

// unregister removes this server's pack and tools from the registry; a
// pack of the same name registered by someone else (another package or a
// successor of the server) is left alone.
func (s *server) unregister() {
	p := s.p
	p.packMu.Lock()
	defer p.packMu.Unlock()
	if p.owner[s.cfg.Name] == s {
		delete(p.owner, s.cfg.Name)
		_ = p.reg.RemovePack(s.cfg.Name)
	}
	s.registered.Store(nil)
}

// watch serves one session until it ends or ctx ends; it reports whether
// the server should reconnect.
func (s *server) watch(ctx context.Context, sess *mcp.ClientSession) bool {
	done := make(chan struct{})
	go func() {
		_ = sess.Wait()
		close(done)
	}()
	var pings <-chan time.Time
	if every := s.p.opts.KeepAlive; every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		pings = t.C
	}
	missed := 0
	for {
		select {
		case <-pings:
			if s.answersPing(ctx, sess) {
				missed = 0
				continue
			}
			if missed++; missed < 2 {
				continue
			}
			s.log.Warn("MCP server did not answer two pings in a row; reconnecting with back-off")
			s.drop(sess, "the server stopped answering")
			<-done
			return true
		case <-ctx.Done():
			s.drop(sess, "proxy closed")
			<-done
			return false
		case <-s.refresh:
			rctx, cancel := context.WithTimeout(ctx, s.p.opts.ConnectTimeout)
			err := s.sync(rctx, sess)
			cancel()
			if err != nil {
				s.log.Warn("refreshing the tools of the MCP server failed; reconnecting", "error", err)
				s.drop(sess, s.logRed.errText(err))
			}
		case <-s.broken:
			s.mu.Lock()
			stale := s.sess == sess // the signal was about an earlier session
			s.mu.Unlock()
			if !stale {
				s.log.Warn("MCP server unreachable during a call; reconnecting with back-off")
				s.drop(sess, "")
				<-done
				return true
			}
		case <-done:
			s.drop(sess, "connection closed by the server")
			s.log.Warn("MCP server connection dropped; reconnecting with back-off")
			return true
		}
	}
}

// answersPing reports whether the server answers a ping within half the
// keep-alive interval. A server with calls in flight is not asked: one
// that runs its tools on the thread that would answer (a busy event loop)
// cannot answer until they end, and those calls have their own timeout.
// An error the server sent (it does not know ping) is an answer too.
func (s *server) answersPing(ctx context.Context, sess *mcp.ClientSession) bool {
	s.mu.Lock()
	busy := s.calls > 0
	s.mu.Unlock()
	if busy {
		return true
	}
	pctx, cancel := context.WithTimeout(ctx, s.p.opts.KeepAlive/2)
	defer cancel()
	err := sess.Ping(pctx, nil)
	var werr *jsonrpc.Error
	return err == nil || (errors.As(err, &werr) && werr.Code != codeRejectedByTransport) || ctx.Err() != nil
}

// markDropped marks the server disconnected if sess is its current session
// and reports whether it was. Calls still in flight on sess end at once
// (unavailable): the SDK's ClientSession.Close waits for them, so a call
// stuck on a dead connection would otherwise hold up reconnection and Close.
func (s *server) markDropped(sess *mcp.ClientSession, why string) bool {
	s.mu.Lock()
	current := s.sess == sess
	if current {
		s.sess = nil
		s.sessCancel()
		s.sessCtx, s.sessCancel = nil, nil
	}
	s.mu.Unlock()
	if current {
		s.update(func(st *Status) { st.State = Disconnected; st.LastError = why })
	}
	return current
}

// drop closes sess and, if it is the current session, marks the server
// disconnected (why == "" keeps the last error).
func (s *server) drop(sess *mcp.ClientSession, why string) {
	s.mu.Lock()
	if why == "" {
		why = s.status.LastError
	}
	s.mu.Unlock()
	s.markDropped(sess, why)
	_ = sess.Close()
	s.flushStderr()
}

// callBroke is called when a call finds sess unusable: the server is marked
// disconnected at once (later calls fail promptly) and the watching
// goroutine closes the session and reconnects.
func (s *server) callBroke(sess *mcp.ClientSession, why string) {
	if s.markDropped(sess, why) {
		select {
		case s.broken <- struct{}{}:
		default:
		}
	}
}

// transport builds the transport of one connection attempt.
func (s *server) transport(ctx context.Context) (mcp.Transport, error) {
	c := s.cfg
	switch s.kind {
	case TransportStdio:
		cmd := exec.Command(c.Command[0], c.Command[1:]...)
		cmd.Dir = c.Dir
		cmd.Stderr = s.p.opts.Stderr
		if s.p.opts.Stderr != io.Discard {
			w := &redactWriter{w: s.p.opts.Stderr, r: s.logRed}
			s.mu.Lock()
			prev := s.stderr
			s.stderr = w
			s.mu.Unlock()
			if prev != nil {
				prev.Flush()
			}
			cmd.Stderr = w
		}
		cmd.Env = commandEnv(c.Env, c.InheritEnv, os.LookupEnv)
		return captureTransport{&mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}}, nil
	case TransportHTTP:
		base := s.p.opts.HTTPClient
		if base == nil {
			base = &http.Client{}
		}
		hc := *base
		rt := hc.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		hc.Transport = &headerTransport{base: rt, headers: c.Headers, prop: s.p.prop}
		return &mcp.StreamableClientTransport{Endpoint: c.URL, HTTPClient: &hc}, nil
	default:
		t, err := c.Transport(ctx)
		if err != nil || t == nil {
			return t, err
		}
		if _, ok := t.(*mcp.StreamableClientTransport); ok {
			return t, nil // its connection needs SDK hooks a wrapper would hide
		}
		return captureTransport{t}, nil
	}
}

// headerTransport adds the configured headers to every request, and the
// trace context of the call it belongs to (see Proxy.prop).
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	prop    propagation.TextMapPropagator
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	// A call's context already holds the caller's trace context (call read
	// it once); other requests run on the server's own, which has none.
	h.prop.Inject(req.Context(), propagation.HeaderCarrier(r.Header))
	cp := captureFrom(req.Context())
	if cp != nil {
		noteRequest(cp, r)
	}
	resp, err := h.base.RoundTrip(r)
	if cp != nil && err == nil {
		captureHTTP(cp, resp)
	}
	return resp, err
}

// callMeta is the _meta of a call forwarded with ctx: the trace context
// of ctx (a toolpack host's tool span, or the caller's, which the caller
// of callMeta has read with tracectx.FromRequest; see Proxy.prop),
// written by prop, so that the remote's spans join the
// trace, how deep in calls made by tools the
// forwarded call is (registry.MetaCallDepth) and, within a run of
// snippets, how many calls the run may still start
// (registry.MetaCallBudget), so that hosts calling each other stop at the
// bounds one host has.
func callMeta(ctx context.Context, prop propagation.TextMapPropagator) mcp.Meta {
	meta := mcp.Meta{registry.MetaCallDepth: registry.CallDepth(ctx)}
	if b := registry.BudgetOf(ctx); b != nil {
		// The calls the run may still start; the remote says how many it
		// started (MetaCallsUsed), counted here once it answers.
		meta[registry.MetaCallBudget] = b.Left()
	}
	prop.Inject(ctx, mcpmap.MetaCarrier(meta))
	return meta
}

// handler forwards calls of one remote tool.
func (s *server) handler(rt remoteTool) registry.Handler {
	return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
		return s.call(ctx, rt, c.Raw)
	}
}

// call forwards one call with the raw arguments.
func (s *server) call(ctx context.Context, rt remoteTool, raw json.RawMessage) (result.Result[any], error) {
	remote := rt.name
	if err := ctx.Err(); err != nil {
		return ctxFailure(err), nil
	}
	if d := registry.CallDepth(ctx); d >= registry.MaxCallDepth {
		return result.Failuref[any](result.Unavailable, "tool %q of MCP server %q not called: the call is already %d calls deep in tools calling tools, across servers (at most %d); do servers call each other in a loop?",
			remote, s.cfg.Name, d, registry.MaxCallDepth).
			WithInstruction("Do not retry this call; tell the user the servers' configuration makes tools call each other without end."), nil
	}
	argsJSON, bad := objectArgs(raw)
	if bad != "" {
		return result.Failure[any]("invalid arguments: "+bad, result.ValidationError).
			WithErrorData([]fieldError{{Field: "", Rule: "type", Message: bad}}), nil
	}
	// Taking the call and reading the session happen under one lock with
	// retire's closing: a call either runs on this server's session,
	// which retire then waits for, or goes to the successor.
	s.mu.Lock()
	if s.closing {
		succ := s.successor
		s.mu.Unlock()
		return s.forward(ctx, succ, rt, raw)
	}
	s.calls++
	sess, sessCtx, lastErr := s.sess, s.sessCtx, s.status.LastError
	s.mu.Unlock()
	defer s.callEnded()
	if sess == nil {
		msg := fmt.Sprintf("MCP server %q is disconnected; tool %q is unavailable until it reconnects", s.cfg.Name, remote)
		if lastErr != "" {
			msg += " (last error: " + lastErr + ")"
		}
		return result.Failure[any](msg, result.Unavailable), nil
	}
	if d := s.p.opts.CallTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	// The caller's trace context, read once: callMeta sends it in _meta,
	// and headerTransport finds it on the request's context.
	ctx = tracectx.FromRequest(ctx, s.p.prop)
	// The call also ends when its session is dropped or the proxy closes.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(sessCtx, cancel)()
	cp := newCapture(2*s.p.opts.MaxResultBytes + 64<<10) // text and structured content may both be there
	res, err := sess.CallTool(withCapture(cctx, cp), &mcp.CallToolParams{Name: remote, Arguments: argsJSON, Meta: callMeta(ctx, s.p.prop)})
	raws := cp.finish()
	if b := registry.BudgetOf(ctx); b != nil && res != nil {
		if used, ok := registry.CountFromMeta(res.Meta, registry.MetaCallsUsed, b.Size()); ok {
			b.Spend(used)
		}
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return ctxFailure(cerr), nil
		}
		if sessCtx.Err() != nil {
			why := "the connection was closed during the call"
			switch {
			case s.p.ctx.Err() != nil:
				why = "the proxy was closed during the call"
			case s.ctx.Err() != nil && s.replaced():
				why = "the server's configuration changed during the call"
			case s.ctx.Err() != nil:
				why = "the server was removed from the configuration during the call"
			}
			return result.Failuref[any](result.Unavailable,
				"MCP server %q: %s of %q; it is unavailable until it reconnects", s.cfg.Name, why, remote), nil
		}
		var werr *jsonrpc.Error
		if errors.As(err, &werr) && werr.Code != codeRejectedByTransport {
			return result.Result[any]{}, s.remoteError(remote, werr)
		}
		if werr != nil || errors.Is(err, mcp.ErrConnectionClosed) {
			why := "the call could not be delivered: " + s.logRed.errText(err)
			s.callBroke(sess, why)
			return result.Failuref[any](result.Unavailable,
				"MCP server %q could not be reached for the call of %q (%s); it is being reconnected", s.cfg.Name, remote, why), nil
		}
		if strings.Contains(err.Error(), sdkFrameTooLarge) {
			// The stream cannot be read past the message: the connection
			// goes, and the next call finds a new one.
			s.callBroke(sess, "an answer over the stdio message cap")
			return result.Failuref[any](result.UpstreamFailure,
				"MCP server %q answered the call of %q with a message over %d MiB, the most one stdio message may be; the answer was not read, and the server is being reconnected (ask it for less)",
				s.cfg.Name, remote, mcp.DefaultMaxLineLength>>20), nil
		}
		return result.Result[any]{}, fmt.Errorf("mcpproxy: server %q tool %q: %s: %w", s.cfg.Name, remote, s.logRed.errText(err), ErrCall)
	}
	var rawResult json.RawMessage
	if len(raws) == 1 {
		rawResult = raws[0]
	}
	return unwrapValue(mapResult(res, rawResult, s.p.opts.MaxResultBytes, s.red, s.logRed), rt, res.Meta), nil
}

// replaced reports whether a server of the same name replaced s
// (Reconfigure with a changed Config).
func (s *server) replaced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.successor != nil
}

// forward serves a call of one of s's tools made after s was retired (a
// caller held the tool across Reconfigure, as a snippet does for its
// steps): by succ, the server that replaced s, once its first connection
// attempt has ended, with succ's listing of the tool; when no server
// replaced s, the call fails saying it was removed. succ may itself be
// retired since; its call forwards in turn.
func (s *server) forward(ctx context.Context, succ *server, rt remoteTool, raw json.RawMessage) (result.Result[any], error) {
	if succ == nil {
		if s.p.ctx.Err() != nil {
			return result.Failuref[any](result.Unavailable,
				"tool %q of MCP server %q not called: the proxy is closed", rt.name, s.cfg.Name), nil
		}
		return result.Failuref[any](result.Unavailable,
			"tool %q not called: MCP server %q was removed from the configuration (a reload) after the call sequence started", rt.name, s.cfg.Name).
			WithInstruction("The server is no longer configured; do not retry this call."), nil
	}
	select {
	case <-succ.ready:
	case <-ctx.Done():
		return ctxFailure(ctx.Err()), nil
	}
	next, ok := succ.tool(rt)
	if !ok {
		return result.Failuref[any](result.NotFound,
			"tool %q not called: MCP server %q no longer offers it since its configuration changed (a reload) after the call sequence started", rt.name, s.cfg.Name), nil
	}
	return succ.call(ctx, next, raw)
}

// tool returns the server's listing of the remote tool rt names, and
// whether it lists it; when the server has no tools registered (not
// connected, or retired and forwarding in turn), it returns rt and true.
func (s *server) tool(rt remoteTool) (remoteTool, bool) {
	tools := s.registered.Load()
	if tools == nil {
		return rt, true
	}
	for _, t := range *tools {
		if t.name == rt.name {
			return t, true
		}
	}
	return remoteTool{}, false
}

// remoteError is the *RemoteError of a JSON-RPC error answer to a call of
// the remote tool, with the server's secrets redacted (Config.Secrets
// too, as from every error).
func (s *server) remoteError(remote string, werr *jsonrpc.Error) *RemoteError {
	e := &jsonrpc.Error{Code: werr.Code, Message: cut(s.logRed.text(werr.Message), maxErrorText)}
	if len(werr.Data) > 0 && len(werr.Data) <= maxErrorData {
		e.Data = s.logRed.rawJSON(werr.Data)
	}
	return &RemoteError{Server: s.cfg.Name, Tool: remote, Code: werr.Code, Err: e}
}

// sdkFrameTooLarge is the text of the go-sdk's error for an inbound
// message over mcp.DefaultMaxLineLength on a stdio connection (the error
// is not exported; TestStdioAnswerOverTheMessageCapSaysSo holds the text
// to the SDK in go.mod).
const sdkFrameTooLarge = "inbound JSON-RPC frame exceeded the configured maximum line length"

// codeRejectedByTransport is the go-sdk's JSON-RPC code for a request its
// client transport could not deliver (network failure, closed stream); the
// server never saw the call.
const codeRejectedByTransport = -32005

// fieldError has the JSON shape of the args package's field errors.
type fieldError struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// objectArgs returns the arguments to send: raw when it is a JSON object,
// {} when it is empty or null; otherwise a problem text.
func objectArgs(raw json.RawMessage) (json.RawMessage, string) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}"), ""
	}
	if !json.Valid(t) {
		return nil, "arguments: expected a JSON object, got malformed JSON"
	}
	if t[0] != '{' {
		return nil, "arguments: expected a JSON object, got " + jsontext.Kind(t)
	}
	return json.RawMessage(t), ""
}

// ctxFailure maps a context error to a timeout or cancelled failure.
func ctxFailure(err error) result.Result[any] {
	if errors.Is(err, context.DeadlineExceeded) {
		return result.Failure[any]("the call ran out of time", result.Timeout).WithException(err)
	}
	return result.Failure[any]("the call was cancelled", result.Cancelled).WithException(err)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
