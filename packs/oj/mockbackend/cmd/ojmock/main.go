// Command ojmock runs the fake OJ backend of package mockbackend as a
// process, for manual comparisons with the reference server:
//
//	go run ./packs/oj/mockbackend/cmd/ojmock -addr 127.0.0.1:8099 -token secret
//
// It prints its base URL on stdout and serves until interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	token := flag.String("token", "", "bearer token /status requires (empty: none)")
	flag.Parse()
	if err := run(*addr, *token); err != nil {
		slog.Error("ojmock", "err", err)
		os.Exit(1)
	}
}

func run(addr, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	srv := &http.Server{Handler: mockbackend.New(mockbackend.Options{Token: token}), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
