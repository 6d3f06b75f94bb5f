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
	"runtime/debug"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/registry"
)

// Defaults of the command line.
const (
	defaultAddr = "127.0.0.1:8080"
	// shutdownGrace bounds the graceful HTTP shutdown; open MCP streams
	// are closed when it runs out.
	shutdownGrace = 5 * time.Second
	// readHeaderTimeout bounds how long a client may take to send headers.
	readHeaderTimeout = 10 * time.Second
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
	)
	fs.StringVar(&c.addr, "addr", defaultAddr, "HTTP listen address")
	fs.BoolVar(&c.stdio, "stdio", false, "serve MCP over stdin/stdout instead of HTTP")
	fs.StringVar(&packs, "packs", "", "comma-separated packs to serve (default: all of "+packNames()+")")
	fs.StringVar(&prefix, "prefix", "", "tool name prefix (when not given: $MCP_TOOL_PREFIX, else none)")
	fs.StringVar(&display, "display", "value", `how MCP results show: "value" (the plain value) or "envelope" (the full Result JSON)`)
	fs.StringVar(&level, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&c.proxy, "proxy", "", "JSON file of remote MCP servers to mirror as packs (see the package doc)")
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
	switch display {
	case "envelope":
		c.display = mcpserver.DisplayEnvelope
	case "value":
		c.display = mcpserver.DisplayValue
	default:
		return c, usageError("flag -display: got %q; expected envelope or value", display)
	}
	if err := c.level.UnmarshalText([]byte(level)); err != nil {
		return c, usageError("flag -log-level: got %q; expected debug, info, warn or error", level)
	}
	if !c.stdio {
		if _, _, err := net.SplitHostPort(c.addr); err != nil {
			return c, usageError("flag -addr: got %q; expected host:port such as %s", c.addr, defaultAddr)
		}
	}
	return c, nil
}

// run is the whole program: parse argv, build the registry, serve until ctx
// is done (or, with -stdio, until the client disconnects). Logs go to
// stderr; with -stdio, stdout carries MCP messages and nothing else.
func run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(argv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.level}))

	reg := registry.New(registry.Options{Prefix: cfg.prefix, Logger: log})
	plain, err := loadPacks(reg, cfg.packs, cfg.explicit, log)
	if err != nil {
		return err
	}
	var proxy *mcpproxy.Proxy
	if cfg.proxy != "" {
		if proxy, err = startProxy(ctx, reg, cfg.proxy, log, stderr); err != nil {
			return err
		}
		defer proxy.Close()
	}
	srv := mcpserver.NewServer(reg, mcpserver.Options{Implementation: &sdk.Implementation{Name: "toolpack-example", Version: version()},
		Display: cfg.display,
		DisplayFor: func(t *registry.Tool) (mcpserver.Display, bool) {
			return mcpserver.DisplayValue, plain[t.Pack]
		},
		Logger: log,
	})
	var loaded []string
	for _, p := range reg.Packs() {
		loaded = append(loaded, p.Name)
	}
	log.Info("registry ready", "tools", len(reg.List()), "packs", strings.Join(loaded, ","), "prefix", reg.Prefix())

	if cfg.stdio {
		log.Info("serving MCP over stdio")
		var tr sdk.Transport = &mcpstdio.IOTransport{Reader: stdin, Writer: stdout, Logger: log}
		if stdin == io.Reader(os.Stdin) && stdout == io.Writer(os.Stdout) {
			// The process's own streams: StdioTransport reads a stdin pipe
			// or socket through the poller (Linux) instead of a goroutine.
			tr = &mcpstdio.Transport{Logger: log}
		}
		err := srv.Run(ctx, tr)
		if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			log.Info("stdio session ended")
			return nil
		}
		return fmt.Errorf("stdio: %w", err)
	}
	return serveHTTP(ctx, cfg.addr, newMux(reg, srv, proxy, log), log)
}

// newMux routes /mcp, the REST API and /healthz. proxy may be nil.
func newMux(reg *registry.Registry, srv *sdk.Server, proxy *mcpproxy.Proxy, log *slog.Logger) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.HTTPHandler(srv, &sdk.StreamableHTTPOptions{Logger: log}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		var packs []string
		for _, p := range reg.Packs() {
			packs = append(packs, p.Name)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "ok", "tools": len(reg.List()), "packs": packs,
			"proxy": proxyHealth(proxy)})
	})
	mountREST(mux, reg, log)
	return mux
}

// serveHTTP serves h on addr until ctx is done, then shuts down gracefully.
func serveHTTP(ctx context.Context, addr string, h http.Handler, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("flag -addr: listen on %s: %w", addr, err)
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	log.Info("serving HTTP", "addr", ln.Addr().String(), "mcp", base+"/mcp", "rest", base+"/tools", "health", base+"/healthz")

	select {
	case err := <-errc:
		return fmt.Errorf("http: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownGrace)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("graceful shutdown incomplete; closing open connections", "error", err)
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http: %w", err)
	}
	log.Info("stopped")
	return nil
}

// version is the module version the binary was built from, or "dev".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
