// Command conformance is an MCP server made only of toolpack packs, serving
// the test tools of the official MCP conformance suite
// (@modelcontextprotocol/conformance; see packs/conformance). CI runs the
// suite against it (.ci/run).
//
//	go run ./examples/conformance -addr 127.0.0.1:3001   # streamable HTTP at /mcp
//	go run ./examples/conformance -stdio                  # MCP over stdin/stdout
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/packs/conformance"
	"github.com/toolpack-go/toolpack/registry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr, nil)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done. When ready is non-nil it receives the
// listening address (HTTP mode).
func run(ctx context.Context, argv []string, stderr io.Writer, ready chan<- string) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:3001", "listen address (host:port) of the streamable HTTP endpoint /mcp")
	stdio := fs.Bool("stdio", false, "speak MCP on stdin/stdout instead of HTTP")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	reg := registry.New(registry.Options{Logger: log})
	p, err := conformance.New(conformance.Options{})
	if err != nil {
		return err
	}
	if err := reg.AddPack(p); err != nil {
		return err
	}
	opts := mcpserver.Options{Logger: log}
	if *stdio {
		return mcpserver.ServeStdio(ctx, reg, opts)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.HTTPHandler(mcpserver.NewServer(reg, opts), mcpserver.HTTPOptions{Logger: log}))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("serving MCP", "url", "http://"+ln.Addr().String()+"/mcp")
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Streams still open after the grace period are cut.
		if errors.Is(err, context.DeadlineExceeded) {
			return srv.Close()
		}
		return err
	}
	return nil
}
