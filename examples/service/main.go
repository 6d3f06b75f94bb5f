// Command service shows toolpack inside a service of your own: two typed
// tools in one registry, served over MCP (stdio, or streamable HTTP at
// /mcp) and REST (/tools, /openapi.json) on one mux, behind the Host,
// Origin and bearer-token checks. README.md's "Use it in your service"
// section is this file.
//
//	go run ./examples/service                 # HTTP on 127.0.0.1:8090
//	go run ./examples/service -stdio          # MCP over stdin/stdout
//	SERVICE_TOKEN=… go run ./examples/service # require a bearer token
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/adapters/httpguard"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// UpperArgs are the arguments of upper: the tags drive decoding,
// validation, the JSON Schema and the description.
type UpperArgs struct {
	Text string `json:"text" validate:"required,max=1000" description:"The text to upper-case."`
}

// WordCount is the structured result of count_words.
type WordCount struct {
	Words int `json:"words" description:"Number of words."`
	Lines int `json:"lines" description:"Number of lines."`
}

func upper(ctx context.Context, a UpperArgs) (result.Result[string], error) {
	registry.Logger(ctx).Debug("upper-casing", "bytes", len(a.Text)) // carries tool=upper
	return result.Ok(strings.ToUpper(a.Text)), nil
}

func countWords(ctx context.Context, a UpperArgs) (result.Result[WordCount], error) {
	return result.Ok(WordCount{Words: len(strings.Fields(a.Text)), Lines: strings.Count(a.Text, "\n") + 1}), nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "HTTP listen address")
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout instead of HTTP")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil)) // stderr: stdout may carry MCP
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	reg := registry.New(registry.Options{Logger: logger})
	if err := errors.Join(
		registry.AddFunc(reg, "upper", upper, registry.ToolOptions{Doc: "Upper-cases a text.",
			Annotations: registry.Annotations{ReadOnly: new(true)}}),
		registry.AddFunc(reg, "count_words", countWords, registry.ToolOptions{Doc: "Counts words and lines.",
			Annotations: registry.Annotations{ReadOnly: new(true)}}),
	); err != nil {
		log.Fatal(err)
	}
	opts := mcpserver.Options{Implementation: &mcp.Implementation{Name: "service", Version: "v1"}, Logger: logger}
	if *stdio {
		if err := mcpserver.ServeStdio(ctx, reg, opts); err != nil {
			log.Fatal(err)
		}
		return
	}

	// Bearer tokens ("NAME:TOKEN" lines) when SERVICE_TOKEN is set; none otherwise.
	requireToken := func(h http.Handler) http.Handler { return h }
	if os.Getenv("SERVICE_TOKEN") != "" {
		tokens, err := httpguard.TokensFromEnv("SERVICE_TOKEN")
		if err != nil {
			log.Fatal(err)
		}
		requireToken = httpguard.RequireBearer(tokens.Verify, httpguard.BearerOptions{AllowMissingExpiration: true})
	}
	rest := httpapi.New(reg, httpapi.Options{Title: "service", Version: "v1", Logger: logger, Auth: requireToken})
	defer rest.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.HTTPHandler(mcpserver.NewServer(reg, opts), mcpserver.HTTPOptions{Auth: requireToken, Logger: logger}))
	mux.Handle("/", rest)                                          // GET /tools, GET /tools/{name}, POST /tools/{name}/invoke, GET /openapi.json
	guard, err := httpguard.New(httpguard.Options{Logger: logger}) // Host and Origin checks, write deadlines
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: guard.Handler(httpapi.CanonicalPaths(mux)),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	logger.Info("serving", "mcp", "http://"+ln.Addr().String()+"/mcp", "rest", "http://"+ln.Addr().String()+"/tools")
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
