// Command oj is a stdio MCP server for an OJ backend, a drop-in replacement
// for the oj-mcp-rs reference server built on the toolpack OJ pack.
//
//	oj --base-url https://oj.example.com [--token TOKEN]
//	oj --version
//
// It serves exactly five tools (get_daily_challenge, get_problem,
// find_similar_problems, resolve_problem, get_platform_status) over stdin
// and stdout, advertises the tools capability only, and returns plain
// Markdown (no Result envelope). --base-url is required and must be an
// origin; --token is sent as a bearer token and is never logged.
//
// Logs go to stderr. Their level comes from RUST_LOG, the variable the
// reference server reads: off, error, warn, info (the default when unset or
// empty), debug or trace (trace is debug here). Comma-separated directives
// such as "oj=debug,info" are accepted: the most verbose level named wins.
// Any other value is a startup error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/registry"
)

// Name and Version identify this server in the MCP handshake and --version.
const (
	Name    = "oj-mcp-toolpack"
	Version = "0.1.0"
)

// LogEnv is the environment variable holding the log level.
const LogEnv = "RUST_LOG"

// levelOff is above every level slog emits: nothing passes it.
const levelOff = slog.Level(100)

func main() {
	tuneRuntime()
	code := run(os.Args[1:], os.Getenv(LogEnv), os.Stdout, os.Stderr)
	atExit()
	os.Exit(code)
}

// tuneRuntime sets two runtime knobs for this server's workload (one
// client, calls mostly one at a time, each waiting on the backend and then
// converting a few KB of HTML), unless the user set them through the
// environment. Both were measured with the interleaved
// BenchmarkStdioGetProblem (see packs/oj/BENCHMARKS.md):
//
//   - GOMAXPROCS=1: with one P, a goroutine made ready (the SDK's request
//     goroutines, net/http's connection goroutines) never wakes a second OS
//     thread through a futex, and an idle server sleeps in the poller;
//     1.16–1.21× the calls per second of the same build with the default
//     (two here). Concurrent calls still overlap while they wait on the
//     backend; only their CPU work (decoding, HTML conversion) is
//     serialised.
//   - GOGC=400: a small, short-lived heap, collected less often;
//     1.14–1.39× against GOGC=100 (GOGC=1000 gained nothing more).
func tuneRuntime() {
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
}

// atExit runs after run returns, before the process exits (a hook for
// builds with the ojprofile tag; nothing otherwise).
var atExit = func() {}

// run is main without the process: it returns the exit status (0 success,
// 1 runtime or configuration error, 2 usage error).
func run(argv []string, logEnv string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", "", "origin of the OJ backend, e.g. https://oj.example.com (required)")
	token := fs.String("token", "", "bearer token for the backend (needed by get_platform_status)")
	version := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s --base-url <BASE_URL> [--token <TOKEN>]\n\nOptions:\n", Name)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nEnvironment:\n  %s  log level on stderr: off, error, warn, info (default), debug, trace\n", LogEnv)
	}
	if err := fs.Parse(argv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *version {
		fmt.Fprintf(stdout, "%s %s\n", Name, Version)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "error: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if *baseURL == "" {
		fmt.Fprintln(stderr, "error: the required flag --base-url was not provided")
		fs.Usage()
		return 2
	}
	level, err := ParseLevel(logEnv)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	client, err := oj.NewClient(oj.Config{BaseURL: *baseURL, Token: *token, Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	pack, err := client.Pack()
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	reg := registry.New(registry.Options{Prefix: new(""), Logger: logger})
	if err := reg.AddPack(pack); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	logger.Info("starting", "server", Name, "version", Version, "base_url", client.BaseURL(), "token", tokenState(*token))

	srv := sdk.NewServer(&sdk.Implementation{Name: Name, Version: Version}, &sdk.ServerOptions{
		Logger: logger,
		// Tools only, and the tool set never changes: like the reference,
		// no listChanged.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: false}},
	})
	mcpserver.Register(srv, reg, mcpserver.Options{Display: mcpserver.DisplayValue, Logger: logger})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The toolpack stdio transport: stdin read without a goroutine hop,
	// malformed lines answered (and logged here, without their content)
	// instead of ending the session.
	if err := srv.Run(ctx, &mcpstdio.Transport{Logger: logger}); err != nil && !errors.Is(err, context.Canceled) {
		logger.Error("serving failed", "err", err)
		return 1
	}
	logger.Info("stopped")
	return 0
}

func tokenState(token string) string {
	if token == "" {
		return "not configured"
	}
	return "configured"
}

// ParseLevel reads a RUST_LOG-style value: empty means info; "off" silences
// everything; error, warn, info, debug and trace (as debug) set the level;
// comma-separated directives, each "level" or "target=level", give the most
// verbose level named. Anything else is an error naming the variable and
// the accepted values.
func ParseLevel(v string) (slog.Level, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return slog.LevelInfo, nil
	}
	best, found := levelOff, false
	for _, d := range strings.Split(v, ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		if i := strings.LastIndexByte(d, '='); i >= 0 {
			d = d[i+1:]
		}
		var l slog.Level
		switch strings.ToLower(d) {
		case "off":
			l = levelOff
		case "error":
			l = slog.LevelError
		case "warn", "warning":
			l = slog.LevelWarn
		case "info":
			l = slog.LevelInfo
		case "debug", "trace":
			l = slog.LevelDebug
		default:
			return 0, fmt.Errorf("%s: unknown level %q (expected off, error, warn, info, debug or trace)", LogEnv, d)
		}
		if !found || l < best {
			best, found = l, true
		}
	}
	return best, nil
}
