package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/adapters/httpguard"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/packs/example"
	otpack "github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/packs/ot/othost"
	"github.com/toolpack-go/toolpack/packs/web"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/disclosure"
)

// Defaults of the command line.
const (
	defaultAddr = "127.0.0.1:8080"
	// shutdownGrace bounds the graceful HTTP shutdown; open MCP streams
	// are closed when it runs out.
	shutdownGrace = 5 * time.Second
	// maxHeaderBytes caps request headers (net/http's default is 1 MiB).
	maxHeaderBytes = 64 << 10
	// envAuthToken holds the bearer token(s) when -auth-token-file is not
	// given.
	envAuthToken = "TOOLPACK_AUTH_TOKEN"
)

// Defaults of the HTTP limits (flags of the same names).
const (
	defaultReadHeaderTimeout = 10 * time.Second
	defaultReadTimeout       = 30 * time.Second
	defaultWriteTimeout      = 30 * time.Second
	defaultIdleTimeout       = 2 * time.Minute
)

// config is the parsed command line.
type config struct {
	addr     string
	stdio    bool
	packs    []packEntry
	explicit bool    // -packs was given
	prefix   *string // nil: MCP_TOOL_PREFIX, else none
	display  mcpserver.Display
	level    slog.Level
	proxy    string // -proxy file, "" for none
	config   string // -config file, "" for none

	// HTTP only.
	tokenFile         string // -auth-token-file, "" for none
	insecure          bool   // -insecure
	allowedHosts      []string
	allowedOrigins    []string
	maxSessions       int
	sessionTimeout    time.Duration
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	writeTimeout      time.Duration
	idleTimeout       time.Duration
	// progressive serves the registry through the disclosure meta-tools
	// (-disclosure progressive), with visible tools listed as themselves.
	progressive bool
	visible     []string
	// name is the MCP implementation name the server reports (-name).
	name string
}

// levelNames are the -log-level values; trace is registry.LevelTrace, the
// level of the registry's per-call logs (seed 004's TRACE).
var levelNames = map[string]slog.Level{
	"trace": registry.LevelTrace, "debug": slog.LevelDebug, "info": slog.LevelInfo,
	"warn": slog.LevelWarn, "error": slog.LevelError,
}

func parseFlags(argv []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		c       config
		packs   string
		prefix  string
		display string
		level   string
		hosts   string
		origins string
	)
	fs.StringVar(&c.addr, "addr", defaultAddr, "HTTP listen address")
	fs.BoolVar(&c.stdio, "stdio", false, "serve MCP over stdin/stdout instead of HTTP")
	fs.StringVar(&packs, "packs", "", "comma-separated packs to serve (default: all of "+packNames()+" that are configured)")
	fs.StringVar(&prefix, "prefix", "", "tool name prefix (when not given: $MCP_TOOL_PREFIX, else none)")
	fs.StringVar(&display, "display", "value", `how MCP results show: "value" (the plain value) or "envelope" (the full Result JSON)`)
	fs.StringVar(&level, "log-level", "info", "log level: trace, debug, info, warn or error")
	fs.StringVar(&c.proxy, "proxy", "", "JSON file of remote MCP servers to mirror as packs (see the package doc)")
	fs.StringVar(&c.config, "config", "", "YAML configuration file (aliases, servers, …; see the package doc); SIGHUP reloads it")
	fs.StringVar(&c.tokenFile, "auth-token-file", "", "file of bearer tokens (one TOKEN or NAME:TOKEN per line) required on /mcp and the REST API; when not given, $"+envAuthToken+" if set")
	fs.BoolVar(&c.insecure, "insecure", false, "allow serving a non-loopback -addr without authentication")
	fs.StringVar(&hosts, "allowed-hosts", "", "comma-separated Host names served besides the loopback names (host or host:port)")
	fs.StringVar(&origins, "allowed-origins", "", "comma-separated origins (scheme://host[:port]) whose web pages may call the server")
	fs.IntVar(&c.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "most MCP sessions open at once; more get 503")
	fs.DurationVar(&c.sessionTimeout, "session-timeout", mcpserver.DefaultSessionTimeout, "close an MCP session idle for this long")
	fs.DurationVar(&c.readHeaderTimeout, "read-header-timeout", defaultReadHeaderTimeout, "time a client has to send its request headers")
	fs.DurationVar(&c.readTimeout, "read-timeout", defaultReadTimeout, "time a client has to send a whole request, body included")
	fs.DurationVar(&c.writeTimeout, "write-timeout", defaultWriteTimeout, "time each write to a client may take (a client that stops reading is cut off; streams may last longer)")
	fs.DurationVar(&c.idleTimeout, "idle-timeout", defaultIdleTimeout, "close a keep-alive connection idle for this long")
	fs.StringVar(&c.name, "name", "toolpack-example", "the MCP implementation name the server reports to clients (serverInfo.name)")
	var disclosureMode, visible string
	fs.StringVar(&disclosureMode, "disclosure", "full", `how tools are offered: "full" (every tool listed) or "progressive" (search_tools, describe_tool and call_tool, for large registries)`)
	fs.StringVar(&visible, "visible-tools", "", "with -disclosure progressive: comma-separated tools listed as themselves beside the meta-tools")
	if err := fs.Parse(argv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, usageError("unexpected argument %q; every option is a flag (see -h)", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "prefix" {
			c.prefix = &prefix
		}
	})
	var err error
	if c.packs, c.explicit, err = selectPacks(packs); err != nil {
		return c, err
	}
	if !validImplName(c.name) {
		return c, usageError("flag -name: got %q; expected 1 to 128 letters, digits, '.', '_' or '-'", c.name)
	}
	switch disclosureMode {
	case "full":
		if visible != "" {
			return c, usageError("flag -visible-tools: only with -disclosure progressive")
		}
	case "progressive":
		c.progressive = true
		for _, name := range strings.Split(visible, ",") {
			if name = strings.TrimSpace(name); name != "" {
				c.visible = append(c.visible, name)
			}
		}
	default:
		return c, usageError("flag -disclosure: got %q; expected full or progressive", disclosureMode)
	}
	switch display {
	case "envelope":
		c.display = mcpserver.DisplayEnvelope
	case "value":
		c.display = mcpserver.DisplayValue
	default:
		return c, usageError("flag -display: got %q; expected envelope or value", display)
	}
	lv, ok := levelNames[strings.ToLower(level)]
	if !ok {
		return c, usageError("flag -log-level: got %q; expected trace, debug, info, warn or error", level)
	}
	c.level = lv
	if c.stdio {
		return c, nil
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return c, usageError("flag -addr: got %q; expected host:port such as %s", c.addr, defaultAddr)
	}
	c.allowedHosts, c.allowedOrigins = splitList(hosts), splitList(origins)
	if _, err := httpguard.New(httpguard.Options{AllowedHosts: c.allowedHosts, TrustedOrigins: c.allowedOrigins}); err != nil {
		return c, usageError("flag -allowed-hosts or -allowed-origins: %v", err)
	}
	if c.maxSessions < 1 {
		return c, usageError("flag -max-sessions: got %d; expected at least 1", c.maxSessions)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"session-timeout", c.sessionTimeout}, {"read-header-timeout", c.readHeaderTimeout},
		{"read-timeout", c.readTimeout}, {"write-timeout", c.writeTimeout}, {"idle-timeout", c.idleTimeout},
	} {
		if d.v <= 0 {
			return c, usageError("flag -%s: got %s; expected a positive duration such as 30s", d.name, d.v)
		}
	}
	return c, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// loadTokens returns the bearer tokens of -auth-token-file, else of
// $TOOLPACK_AUTH_TOKEN when it is set, else nil, and where they came from.
// A variable set to nothing but whitespace is refused (a usage error, the
// value never shown): it is a token meant and lost, not "no
// authentication".
func loadTokens(cfg config) (*httpguard.Tokens, string, error) {
	if cfg.tokenFile != "" {
		t, err := httpguard.TokensFromFile(cfg.tokenFile)
		if err != nil {
			return nil, "", usageError("flag -auth-token-file: %v", err)
		}
		return t, "file " + cfg.tokenFile, nil
	}
	if v, ok := os.LookupEnv(envAuthToken); ok && v != "" {
		if strings.TrimSpace(v) == "" {
			return nil, "", usageError("environment variable %s is set but blank (whitespace only); expected one or more bearer tokens (one TOKEN or NAME:TOKEN per line), or unset it to serve without authentication", envAuthToken)
		}
		t, err := httpguard.TokensFromEnv(envAuthToken)
		if err != nil {
			return nil, "", usageError("%v", err)
		}
		return t, "environment variable " + envAuthToken, nil
	}
	return nil, "", nil
}

// checkExposure refuses to serve an address other machines can reach
// without authentication, unless -insecure says so; it reports whether the
// server will do so anyway.
func checkExposure(cfg config, auth bool) (insecure bool, err error) {
	if auth || httpguard.IsLoopbackAddr(cfg.addr) {
		return false, nil
	}
	if !cfg.insecure {
		return false, usageError("flag -addr: %s can be reached from other machines and no authentication is configured; "+
			"give -auth-token-file FILE or set %s, or add -insecure to serve without authentication", cfg.addr, envAuthToken)
	}
	return true, nil
}

// newLogger is the program's logger: text to stderr at level, with
// registry.LevelTrace written as TRACE.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.LevelKey {
				if l, ok := a.Value.Any().(slog.Level); ok && l == registry.LevelTrace {
					a.Value = slog.StringValue("TRACE")
				}
			}
			return a
		}}))
}

// run is the whole program: parse argv, build the registry, serve until ctx
// is done (or, with -stdio, until the client disconnects). Logs go to
// stderr; with -stdio, stdout carries MCP messages and nothing else.
func run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// SIGHUP is caught from the start: one sent while the server starts
	// (a service manager reloading right after starting it) would
	// otherwise kill it; it is kept and reloads once the server runs.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, err := parseFlags(argv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.level)
	var tokens *httpguard.Tokens
	if !cfg.stdio {
		var source string
		if tokens, source, err = loadTokens(cfg); err != nil {
			return err
		}
		if tokens != nil {
			log.Info("bearer authentication required on /mcp and the REST API", "tokens", tokens.Len(), "source", source)
		}
		insecure, err := checkExposure(cfg, tokens != nil)
		if err != nil {
			return err
		}
		if insecure {
			log.Warn("serving a non-loopback address WITHOUT authentication (-insecure): anyone who can reach it can call every tool", "addr", cfg.addr)
		}
	}

	reg := registry.New(registry.Options{Prefix: cfg.prefix, Logger: log})
	if p := reg.Prefix(); p != "" && !registry.ValidName(p) {
		src := "flag -prefix"
		if cfg.prefix == nil {
			src = "$" + registry.EnvToolPrefix
		}
		return usageError("%s: %q is not a tool-name prefix; expected 1 to %d characters from [A-Za-z0-9_.-]", src, p, registry.MaxNameLen)
	}
	stopTelemetry, traced, err := startTelemetry(ctx, reg, cfg.stdio, log)
	if err != nil {
		return err
	}
	defer stopTelemetry()
	plain, err := loadPacks(reg, cfg.packs, cfg.explicit, log)
	if err != nil {
		return err
	}
	// ot's answers are YAML and Markdown written to be read: plain text
	// whatever -display says, as the oj pack's are.
	plain[otpack.PackName] = true
	var proxy *mcpproxy.Proxy
	var fixed []mcpproxy.Config // the -proxy file's servers
	if cfg.proxy != "" || cfg.config != "" {
		if cfg.proxy != "" {
			if fixed, err = readProxyFile(cfg.proxy); err != nil {
				return err
			}
		}
		if proxy, err = startProxy(ctx, reg, fixed, log, stderr); err != nil {
			return err
		}
		defer proxy.Close()
	}
	var catalOpen atomic.Pointer[serverCatalogue] // set once the catalogue is open
	host, err := newConfigHost(reg, cfg.config, proxy, fixed, catalogueNames(&catalOpen))
	if err != nil {
		return err
	}
	// One bound on web.fetch's extractions for every build of the web
	// pack: each reload builds it again.
	slots := &webSlots{}
	for _, e := range cfg.packs {
		if e.name == web.PackName {
			e.fromConfig = newWebWith(slots)
		}
		if e.fromConfig != nil {
			host.OnApply(e.name, configPackHook(reg, e, cfg.explicit, log))
		}
	}
	httpTools := &swapInvoker{}
	host.OnApply("catalogue", catalogueHook(httpTools, log))
	ot, err := othost.Setup(ctx, othost.Options{Registry: reg, Host: host, Version: version(), Servers: serverStatus(proxy, fixed, host),
		Databases: catalogueDatabase(&catalOpen), Logger: log,
		Reloaded: func(err error) { logReload(host, log, otpack.ToolReload, err) }})
	if err != nil {
		return err
	}
	var catal *serverCatalogue
	defer func() {
		// After the servers stopped: the catalogue's usage counts and the
		// buffered statistics are written, within closeGrace together.
		closeStores(context.WithoutCancel(ctx), log, func(context.Context) error {
			if catal == nil {
				return nil
			}
			if err := catal.Close(); err != nil {
				return fmt.Errorf("closing the catalogue: %w", err)
			}
			return nil
		}, func(cctx context.Context) error {
			if err := ot.Close(cctx); err != nil {
				return fmt.Errorf("closing the statistics and output stores: %w", err)
			}
			return nil
		})
	}()
	// The catalogue's tools are registered before the first configuration
	// is applied, as they are on every reload, so that an alias to one is
	// judged alike at start and on reload; its settings (catalogue.dir,
	// dsn) come from the configuration read here and applied below.
	conf, err := readConfig(ctx, host)
	if err != nil {
		return err
	}
	catal, err = startCatalogue(ctx, reg, conf, httpTools, log)
	if err != nil {
		return err
	}
	catalOpen.Store(catal)
	if err := loadConfig(ctx, host, conf, log); err != nil {
		return err
	}
	log.Info("catalogue ready", "dir", conf.Catalogue.Dir, "postgresql", conf.Catalogue.DSN != "")
	ot.WarnUnserved()
	served := reg
	if cfg.progressive {
		// A stored output's query field is a call of ot.result as written,
		// so ot.result stays listed as itself.
		visible := cfg.visible
		if q := ot.QueryTool(); !slices.Contains(visible, q) {
			visible = append(slices.Clone(visible), q)
		}
		d, err := disclosure.New(reg, disclosure.Options{Visible: visible, Logger: log})
		if err != nil {
			return usageError("flag -visible-tools: %v", err)
		}
		defer d.Close()
		served = d.Registry()
		if traced != nil {
			served.UseOuter(metaToolsOnly(traced)) // a span per call of the three meta-tools; call_tool's tool is its child
		}
		log.Info("progressive disclosure: serving search_tools, describe_tool and call_tool", "visible", strings.Join(visible, ","))
	}
	// The MCP calls still running at the end of the shutdown grace are
	// stopped through stopCalls (REST calls too, over HTTP), and answered.
	stopCtx, stopCalls := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopCalls(nil)
	srv := mcpserver.NewServer(served, mcpserver.Options{Implementation: &sdk.Implementation{Name: cfg.name, Version: version()},
		Display: cfg.display,
		DisplayFor: func(t *registry.Tool) (mcpserver.Display, bool) {
			return mcpserver.DisplayValue, plain[t.Pack]
		},
		Logger: log,
		Stop:   stopCtx,
	})
	var loaded []string
	for _, p := range reg.Packs() {
		loaded = append(loaded, p.Name)
	}
	log.Info("registry ready", "tools", len(reg.List()), "packs", strings.Join(loaded, ","), "prefix", reg.Prefix())
	if len(reg.List()) == len(otTools(reg)) {
		log.Warn("no tools to serve beside the ot pack: set " + example.EnvIncludeExampleTools + "=true for the example tools, or " +
			envOJBaseURL + " for the oj pack (see -h and the package documentation)")
	}

	if cfg.stdio {
		log.Info("serving MCP over stdio")
		reloadOnSIGHUP(ctx, hup, host, log) // once serving: one sent while starting reloads now
		// A signal stops the reading (Stop) instead of cancelling the
		// session: the calls under way get shutdownGrace to finish; those
		// still running then are stopped and have stopAnswerGrace to
		// answer; their answers are written before the session ends.
		drain := shutdownGrace + stopAnswerGrace
		var tr sdk.Transport = &mcpstdio.IOTransport{Reader: stdin, Writer: stdout, Logger: log, Stop: ctx.Done(), DrainTimeout: drain}
		if stdin == io.Reader(os.Stdin) && stdout == io.Writer(os.Stdout) {
			// The process's own streams: StdioTransport reads a stdin pipe
			// or socket through the poller (Linux) instead of a goroutine.
			tr = &mcpstdio.Transport{Logger: log, Stop: ctx.Done(), DrainTimeout: drain}
		}
		defer stopAfterGrace(ctx, stopCalls, log)()
		err := srv.Run(context.WithoutCancel(ctx), mcpserver.CheckParams(tr))
		if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			log.Info("stdio session ended")
			return nil
		}
		return fmt.Errorf("stdio: %w", err)
	}
	hs, closeAPI, err := newHTTPServer(ctx, cfg, served, srv, proxy, catal, ot.Databases, ot.StoredSchema, tokens, log)
	if err != nil {
		return err
	}
	defer closeAPI()
	return serveHTTP(ctx, cfg.addr, hs, stopCtx, stopCalls, log, func() { reloadOnSIGHUP(ctx, hup, host, log) })
}

// stopAfterGrace stops the calls under way (stop, with the cause
// httpapi.ErrServerStopping) shutdownGrace after ctx ends, logging it;
// the returned func cancels that, once the serving has ended.
func stopAfterGrace(ctx context.Context, stop context.CancelCauseFunc, log *slog.Logger) (cancel func()) {
	ended := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-ended:
			return
		}
		grace := time.NewTimer(shutdownGrace)
		defer grace.Stop()
		select {
		case <-grace.C:
			log.Warn("the shutdown grace ran out; stopping the calls still running", "grace", shutdownGrace)
			stop(httpapi.ErrServerStopping)
		case <-ended:
		}
	}()
	return func() { close(ended) }
}

// newHTTPServer builds the HTTP side: /mcp, the REST API, the catalogue's
// API under /tools (when catal is not nil) and /healthz on one mux, behind the path check (httpapi.CanonicalPaths) and the guard
// (Host, Origin, per-write deadline), in an http.Server with the read and
// idle timeouts of cfg. With tokens, /mcp and both REST APIs require one
// of them; /healthz stays open for probes, and shows the databases
// reports (nil: none) when there is any; the REST API's OpenAPI document
// declares the handle object stored gives (nil: none) beside each tool's
// value (a large output is stored). The returned func ends the REST
// handler's registry subscription.
func newHTTPServer(ctx context.Context, cfg config, reg *registry.Registry, srv *sdk.Server, proxy *mcpproxy.Proxy, catal *serverCatalogue,
	databases func(context.Context) []otpack.DatabaseStatus, stored func(*registry.Tool) json.RawMessage, tokens *httpguard.Tokens, log *slog.Logger) (*http.Server, func(), error) {
	var requireToken func(http.Handler) http.Handler
	if tokens != nil {
		requireToken = httpguard.RequireBearer(tokens.Verify, httpguard.BearerOptions{AllowMissingExpiration: true, Logger: log})
	}
	guard, err := httpguard.New(httpguard.Options{
		AllowedHosts: cfg.allowedHosts, TrustedOrigins: cfg.allowedOrigins,
		WriteTimeout: cfg.writeTimeout, Logger: log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: flag -allowed-hosts or -allowed-origins: %w", errUsage, err)
	}
	mux := http.NewServeMux()
	mux.Handle(mcpPath, mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{
		MaxSessions: cfg.maxSessions, SessionTimeout: cfg.sessionTimeout, Auth: requireToken, Logger: log,
	}))
	dbHealth := &dbHealthCache{check: databases}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		var packs []string
		for _, p := range reg.Packs() {
			packs = append(packs, p.Name)
		}
		body := map[string]any{"status": "ok", "tools": len(reg.List()), "packs": packs, "proxy": proxyHealth(proxy)}
		if dbs := dbHealth.get(r.Context()); len(dbs) > 0 {
			body["postgresql"] = postgresHealth(dbs)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	api := mountREST(mux, reg, requireToken, stored, log)
	if catal != nil {
		catal.mount(mux, requireToken)
	}
	hs := &http.Server{
		Handler:           guard.Handler(httpapi.CanonicalPaths(mux)),
		ReadHeaderTimeout: cfg.readHeaderTimeout,
		ReadTimeout:       cfg.readTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return hs, api.Close, nil
}

// closeGrace bounds closing the stores at shutdown (their last writes
// included): a database that stopped answering must not keep the process
// alive past a supervisor's patience.
const closeGrace = 10 * time.Second

// closeStores runs the closes at once, with closeGrace for all of them:
// one that hangs (the catalogue's database stalled) does not keep the
// others from writing what they buffer. When the grace runs out, the
// closes still running are left to the end of the process, and that is
// logged; every close's error is.
func closeStores(ctx context.Context, log *slog.Logger, closes ...func(context.Context) error) {
	ctx, cancel := context.WithTimeout(ctx, closeGrace)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for _, c := range closes {
			wg.Go(func() {
				if err := c(ctx); err != nil {
					log.Warn("shutting down", "error", err)
				}
			})
		}
		wg.Wait()
	}()
	select {
	case <-done:
	case <-ctx.Done():
		log.Warn("the stores did not close within the grace; exiting without waiting for them (writes not finished are lost)", "grace", closeGrace)
	}
}

// mcpPath is where the server serves MCP over streamable HTTP.
const mcpPath = "/mcp"

// serveHTTP serves hs on addr until ctx is done, then shuts down
// gracefully: no new connections, and the requests running (tool calls
// over MCP and REST) get shutdownGrace to finish and send their answers.
// The calls still running then are stopped with stopCalls (cause
// httpapi.ErrServerStopping) and have stopAnswerGrace to answer before
// the connections close: every request but MCP's has its context
// cancelled when stop ends (REST: 503, the server is shutting down); an
// MCP call runs on its session's context, which the MCP server's
// Options.Stop (stop) cancels (a tool error result saying the same), and
// an MCP request keeps its context so that the SDK writes that answer.
// Event streams (GET with Accept: text/event-stream, an MCP session's
// stream for notifications), which never finish by themselves, end once
// the other requests have and their clients have had streamLinger to read
// the answers (a client whose stream ends takes its session for lost and
// fails the calls whose answers it has not read). serving runs once the
// server is serving.
func serveHTTP(ctx context.Context, addr string, hs *http.Server, stop context.Context, stopCalls context.CancelCauseFunc, log *slog.Logger, serving func()) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("flag -addr: listen on %s: %w", addr, err)
	}
	// Requests outlive ctx (the signal) by up to the grace: a call cut off
	// at the signal lost its answer, and its span and metrics were never
	// recorded before the exporters shut down. Those still running at the
	// end of the grace are stopped through stop.
	reqCtx := context.WithoutCancel(ctx)
	hs.BaseContext = func(net.Listener) context.Context { return reqCtx }
	streamsCtx, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	calls := &inFlight{}
	hs.Handler = calls.track(streamsCtx, stop, hs.Handler)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	log.Info("serving HTTP", "addr", ln.Addr().String(), "mcp", base+mcpPath, "rest", base+"/tools", "health", base+"/healthz")
	serving() // a SIGHUP sent while starting reloads now

	select {
	case err := <-errc:
		return fmt.Errorf("http: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownGrace)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	go func() {
		calls.wait(sctx)
		// The last answers are written; a client reads them on its own
		// goroutine, and one that sees its event stream end first takes
		// the session for lost and fails the calls it has not read yet.
		select {
		case <-time.After(streamLinger):
			endStreams()
		case <-sctx.Done():
			// The grace ran out: the streams end below, once the calls
			// stopped then have answered.
		}
	}()
	if err := hs.Shutdown(sctx); err != nil {
		// The calls still running are stopped first and given a moment to
		// answer (503 over REST, a tool error result over MCP: the server
		// is shutting down), so that their clients are told rather than
		// cut off.
		log.Warn("graceful shutdown incomplete; stopping the calls still running, then closing open connections", "error", err)
		stopCalls(httpapi.ErrServerStopping)
		actx, acancel := context.WithTimeout(context.WithoutCancel(ctx), stopAnswerGrace)
		calls.wait(actx)
		answered := actx.Err() == nil
		acancel()
		if answered {
			time.Sleep(streamLinger) // for the clients to read the answers before their streams end
		}
		endStreams()
		// A request counts as done when its handler returns, before
		// net/http has written the whole answer: connections are closed
		// once idle (every answer written), the others after a moment.
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), stopAnswerGrace)
		_ = hs.Shutdown(cctx)
		ccancel()
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http: %w", err)
	}
	log.Info("stopped")
	return nil
}

// stopAnswerGrace is how long the calls stopped at the end of the
// shutdown grace have to send their answers before connections close.
const stopAnswerGrace = time.Second

// streamLinger is how long event streams outlive the last other request
// at shutdown, for the clients to read the answers it wrote.
const streamLinger = 250 * time.Millisecond

// inFlight counts the requests running other than event streams.
type inFlight struct {
	mu    sync.Mutex
	n     int
	empty chan struct{} // closed when n falls to 0; nil while n is 0
}

// track returns h with the requests for an event stream (GET, Accept:
// text/event-stream) cancelled when streams ends, as well as when their
// own context does, and every other request counted while it runs; those
// other requests, but for MCP's (mcpPath), are also cancelled, with its
// cause, when stop ends (an MCP call is stopped by the MCP server's own
// Options.Stop, and its request must live on for the SDK to write the
// answer).
func (f *inFlight) track(streams, stop context.Context, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			rctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			end := context.AfterFunc(streams, cancel)
			defer end()
			h.ServeHTTP(w, r.WithContext(rctx))
			return
		}
		if r.URL.Path != mcpPath {
			rctx, cancel := context.WithCancelCause(r.Context())
			defer cancel(nil)
			end := context.AfterFunc(stop, func() { cancel(context.Cause(stop)) })
			defer end()
			r = r.WithContext(rctx)
		}
		f.mu.Lock()
		f.n++
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			if f.n--; f.n == 0 && f.empty != nil {
				close(f.empty)
				f.empty = nil
			}
			f.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

// wait returns when no counted request is running, or when ctx ends.
func (f *inFlight) wait(ctx context.Context) {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return
	}
	if f.empty == nil {
		f.empty = make(chan struct{})
	}
	empty := f.empty
	f.mu.Unlock()
	select {
	case <-empty:
	case <-ctx.Done():
	}
}

// version is the module version the binary was built from, or "dev".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// validImplName reports an implementation name a client can show: 1 to
// 128 letters, digits, '.', '_' or '-'.
func validImplName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
