package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/telemetry"
	"github.com/toolpack-go/toolpack/result"
)

// benchRaw is a valid call of the adapters' benchmark tool.
var benchRaw = json.RawMessage(`{"query":"golang registry","limit":25,"mode":"fast","threshold":0.5,"tags":["go","mcp","tools"]}`)

func benchRegistry(b *testing.B, mw registry.Middleware) *registry.Registry {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	p := &registry.Pack{Name: "web", Description: "Web."}
	err := registry.AddFunc(p, "search", func(ctx context.Context, a benchtool.SearchArgs) (result.Result[string], error) {
		return result.Ok("hits for " + a.Query), nil
	}, registry.ToolOptions{Doc: "Searches."})
	if err == nil {
		err = reg.AddPack(p)
	}
	if err != nil {
		b.Fatal(err)
	}
	if mw != nil {
		reg.UseOuter(mw)
	}
	return reg
}

// BenchmarkMiddlewareVsInvoke measures what the telemetry middleware adds
// to Registry.Invoke (the adapters' benchmark tool, internal/benchtool,
// with a text result): each iteration runs 16 calls without it, then 16
// with it, and x-invoke-time is the ratio of the median block times
// (issue 15's goal with a recording sampler: ≤ 1.10), overhead-ns that
// difference per call.
//
//   - "recording": SDK tracer provider, every span sampled and batched to
//     an exporter that drops them; SDK meter provider (default options,
//     so trace-based exemplars) aggregating in memory (a manual reader) —
//     what a host exporting telemetry through Setup pays;
//   - "unsampled": SDK providers, the sampler records no span (metrics
//     still recorded);
//   - "noop": no-op providers (Setup's when no OTEL_* variable is set).
func BenchmarkMiddlewareVsInvoke(b *testing.B) {
	for _, bc := range []struct {
		name string
		tp   func() trace.TracerProvider
		mp   func() metric.MeterProvider
	}{
		{"recording", func() trace.TracerProvider {
			return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		}, func() metric.MeterProvider {
			return sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		}},
		{"unsampled", func() trace.TracerProvider {
			return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		}, func() metric.MeterProvider {
			return sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		}},
		{"noop", func() trace.TracerProvider { return tracenoop.NewTracerProvider() }, func() metric.MeterProvider { return metricnoop.NewMeterProvider() }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: bc.tp(), MeterProvider: bc.mp()})
			if err != nil {
				b.Fatal(err)
			}
			plain, traced := benchRegistry(b, nil), benchRegistry(b, mw)
			ctx := context.Background()
			once := func(reg *registry.Registry) {
				res, err := reg.Invoke(ctx, "search", benchRaw)
				if err == nil && !res.Success {
					err = errors.New(res.Error)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			const block = 16
			var plainD, tracedD []time.Duration
			for b.Loop() {
				t0 := time.Now()
				for range block {
					once(plain)
				}
				t1 := time.Now()
				for range block {
					once(traced)
				}
				plainD = append(plainD, t1.Sub(t0))
				tracedD = append(tracedD, time.Since(t1))
			}
			mp, mt := float64(benchtool.Median(plainD)), float64(benchtool.Median(tracedD))
			b.ReportMetric(mt/mp, "x-invoke-time")
			b.ReportMetric((mt-mp)/block, "overhead-ns")
			pa := testing.AllocsPerRun(200, func() { once(plain) })
			ta := testing.AllocsPerRun(200, func() { once(traced) })
			b.ReportMetric(ta-pa, "extra-allocs")
		})
	}
}
