package main

import (
	"context"
	"log/slog"
	"sync"

	"go.opentelemetry.io/otel"

	"github.com/toolpack-go/toolpack/internal/sparselog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/telemetry"
)

// startTelemetry traces and measures every tool call when the OTEL_*
// environment variables ask for an exporter (see registry/telemetry);
// otherwise it installs nothing. The returned function flushes and stops
// the exporters.
func startTelemetry(ctx context.Context, reg *registry.Registry, stdio bool, log *slog.Logger) (func(), error) {
	p, err := telemetry.Setup(ctx, telemetry.SetupOptions{ServiceName: "toolpack-server", StdoutReserved: stdio})
	if err != nil {
		return nil, err
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
		defer cancel()
		if err := p.Shutdown(sctx); err != nil {
			log.Warn("flushing OpenTelemetry exporters", "error", err)
		}
	}
	if !p.Tracing && !p.Metrics {
		return stop, nil
	}
	mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider})
	if err != nil {
		stop()
		return nil, err
	}
	reg.UseOuter(mw)
	otel.SetErrorHandler(exportErrors(ctx, log))
	log.Info("OpenTelemetry export on (OTEL_* environment)", "traces", p.Tracing, "metrics", p.Metrics)
	return stop, nil
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
