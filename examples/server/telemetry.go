package main

import (
	"context"
	"log/slog"
	"regexp"
	"sync"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"

	"github.com/toolpack-go/toolpack/internal/sparselog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/disclosure"
	"github.com/toolpack-go/toolpack/registry/telemetry"
	"github.com/toolpack-go/toolpack/result"
)

// startTelemetry traces and measures every tool call when the OTEL_*
// environment variables ask for an exporter (see registry/telemetry);
// otherwise it installs no provider, middleware or exporter (only
// OpenTelemetry's logger and error handler, which write to the server's
// log instead of Go's standard logger, are always set). The returned function flushes and stops
// the exporters; the middleware (nil when nothing is exported) is for
// the registries served in front of reg (progressive disclosure's
// search_tools, describe_tool and call_tool), whose calls are calls too.
func startTelemetry(ctx context.Context, reg *registry.Registry, stdio bool, log *slog.Logger) (func(), registry.Middleware, error) {
	// Before Setup, which reads the environment and may already complain
	// (through the SDK's logger or its error handler).
	otel.SetLogger(logr.New(sdkLog{log}))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("OpenTelemetry: setting up", "error", quotesHidden(err))
	}))
	p, err := telemetry.Setup(ctx, telemetry.SetupOptions{ServiceName: "toolpack-server", StdoutReserved: stdio})
	if err != nil {
		return nil, nil, err
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
		defer cancel()
		if err := p.Shutdown(sctx); err != nil {
			log.Warn("flushing OpenTelemetry exporters", "error", err)
		}
	}
	if !p.Tracing && !p.Metrics {
		return stop, nil, nil
	}
	mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider})
	if err != nil {
		stop()
		return nil, nil, err
	}
	reg.UseOuter(mw)
	otel.SetErrorHandler(exportErrors(ctx, log))
	log.Info("OpenTelemetry export on (OTEL_* environment)", "traces", p.Tracing, "metrics", p.Metrics)
	return stop, mw, nil
}

// exportErrors is OpenTelemetry's error handler for the server: the SDK's
// failures (a collector away) go to the server's log, not Go's standard
// logger, and only the 1st, 2nd, 4th, 8th … of them, as for the other
// work retried on a schedule: an exporter failing every interval does not
// write a line each time.
func exportErrors(ctx context.Context, log *slog.Logger) otel.ErrorHandler {
	var mu sync.Mutex
	var f sparselog.Failures
	return otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		f.Record(ctx, log, err, "OpenTelemetry export failed", "")
	})
}

// sdkLog is the OpenTelemetry SDK's own logger (otel.SetLogger) for the
// server: its messages go to the server's log (stderr, the -log-level and
// format of the rest) instead of Go's standard logger, errors and warnings
// as warnings, its informational and debug messages (spans dropped from a
// full queue among them) at debug level. Only the message and the error
// are kept, and the error's quoted parts hidden: the SDK's key/value pairs
// and errors can quote configuration values (an OTEL_EXPORTER_OTLP_HEADERS
// value holding an API key, an endpoint URL with credentials), which never
// reach a log.
type sdkLog struct{ log *slog.Logger }

func (sdkLog) Init(logr.RuntimeInfo) {}

// Enabled takes every level: the SDK logs warnings at 1, information at 4
// and debug messages at 8; Info sorts them.
func (s sdkLog) Enabled(int) bool { return true }

func (s sdkLog) Info(level int, msg string, _ ...any) {
	lvl := slog.LevelDebug
	if level <= 1 {
		lvl = slog.LevelWarn
	}
	s.log.Log(context.Background(), lvl, "OpenTelemetry: "+msg)
}

func (s sdkLog) Error(err error, msg string, _ ...any) {
	s.log.Warn("OpenTelemetry: "+msg, "error", quotesHidden(err))
}

// quotesHidden is err's text with every quoted part replaced by "…": the
// SDK's errors quote the values they could not read (a URL with its
// credentials: parse "https://user:secret@…": invalid URL escape), and
// what went wrong stays readable without them.
func quotesHidden(err error) string {
	if err == nil {
		return ""
	}
	return quotedRE.ReplaceAllString(err.Error(), `"…"`)
}

// quotedRE matches a double-quoted part of a message, escapes included.
var quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

func (s sdkLog) WithValues(...any) logr.LogSink { return s }

func (s sdkLog) WithName(string) logr.LogSink { return s }

// metaToolsOnly applies mw to the calls of progressive disclosure's
// meta-tools only: a visible tool's copy (-visible-tools) forwards to the
// full registry, which traces and counts the call already (it was traced
// and counted twice).
func metaToolsOnly(mw registry.Middleware) registry.Middleware {
	return func(next registry.Handler) registry.Handler {
		traced := mw(next)
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			if c != nil && c.Tool != nil {
				switch c.Tool.BaseName {
				case disclosure.SearchTools, disclosure.DescribeTool, disclosure.CallTool:
					return traced(ctx, c)
				}
			}
			return next(ctx, c)
		}
	}
}
