package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/telemetry"
	"github.com/toolpack-go/toolpack/result"
)

type lookupArgs struct {
	Handle string `json:"handle" validate:"required" description:"Handle."`
	Offset int    `json:"offset" default:"1" description:"First line."`
	Token  string `json:"token" description:"A secret the span must never carry."`
}

type lookupOut struct {
	Lines []string `json:"lines"`
}

// harness is a registry whose tools are traced into an in-memory span
// recorder and measured into a manual metric reader.
type harness struct {
	reg    *registry.Registry
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newHarness(t *testing.T, prefix string) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: tp, MeterProvider: mp})
	require.NoError(t, err)
	h.reg = registry.New(registry.Options{Prefix: &prefix, Logger: slog.New(slog.DiscardHandler)})
	h.reg.UseOuter(mw)
	pk := &registry.Pack{Name: "store", Description: "Stored things."}
	require.NoError(t, errors.Join(
		registry.AddFunc(pk, "store.lookup", func(_ context.Context, a lookupArgs) (result.Result[lookupOut], error) {
			switch a.Handle {
			case "missing":
				return result.Failure[lookupOut]("no output "+a.Token, result.NotFound), nil
			case "broken":
				return result.Result[lookupOut]{}, errors.New("disk on fire")
			case "untyped":
				return result.Result[lookupOut]{Error: "went wrong"}, nil
			}
			return result.Ok(lookupOut{Lines: []string{"a", "b"}}), nil
		}, registry.ToolOptions{Doc: "Look up.", TraceArgs: []string{"handle", "offset"}}),
		registry.AddFunc(pk, "store.slow", func(ctx context.Context, _ struct{}) (result.Result[string], error) {
			<-ctx.Done()
			return result.Result[string]{}, ctx.Err()
		}, registry.ToolOptions{Doc: "Waits for its context."}),
	))
	require.NoError(t, h.reg.AddPack(pk))
	return h
}

func attrs(kvs []attribute.KeyValue) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// Every call gets one span, named after the tool as declared (not as
// prefixed), with the operation, the called name and the pack; argument
// values appear only for the arguments the tool
// names in TraceArgs — never the others.
func TestMiddleware_SpanPerCall(t *testing.T) {
	h := newHarness(t, "tp_")
	raw := json.RawMessage(`{"handle":"h1","offset":7,"token":"s3cr3t-token"}`)
	res, err := h.reg.Invoke(context.Background(), "tp_store.lookup", raw)
	require.NoError(t, err)
	require.True(t, res.Success)

	spans := h.spans.Ended()
	require.Len(t, spans, 1)
	s := spans[0]
	assert.Equal(t, "store.lookup", s.Name(), "the declared name, whatever the prefix")
	a := attrs(s.Attributes())
	assert.Equal(t, "execute_tool", a["gen_ai.operation.name"].AsString())
	assert.Equal(t, "tp_store.lookup", a["gen_ai.tool.name"].AsString())
	assert.Equal(t, "store", a["toolpack.pack"].AsString())
	assert.Equal(t, "h1", a["handle"].AsString())
	assert.Equal(t, int64(7), a["offset"].AsInt64())
	assert.NotContains(t, a, "token")
	assert.NotContains(t, a, "error.type")
	assert.Equal(t, codes.Unset, s.Status().Code)
	for k, v := range a {
		assert.NotContains(t, v.String(), "s3cr3t", "attribute %s", k)
	}
}

// An argument a tool traces (TraceArgs) that the call leaves out is
// recorded with the default its input schema declares, the value the tool
// ran with (seed 001: ot.result's span SHALL include offset and limit).
func TestMiddleware_TracedArgumentLeftOutRecordsItsDefault(t *testing.T) {
	h := newHarness(t, "")
	_, err := h.reg.Invoke(context.Background(), "store.lookup", json.RawMessage(`{"handle":"h1"}`))
	require.NoError(t, err)
	spans := h.spans.Ended()
	require.Len(t, spans, 1)
	a := attrs(spans[0].Attributes())
	assert.Equal(t, "h1", a["handle"].AsString())
	assert.Equal(t, int64(1), a["offset"].AsInt64(), "the schema's default")
}

// A tool's span joins the caller's trace: the W3C trace context an agent
// sent in the HTTP headers (REST, MCP over streamable HTTP) or in the MCP
// request's _meta (any transport) is the span's remote parent, _meta
// first; a call with neither starts a trace of its own, and a malformed
// traceparent is ignored.
func TestMiddleware_SpanJoinsTheCallersTrace(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
		metaTID = "0af7651916cd43dd8448eb211c80319c"
	)
	h := newHarness(t, "")
	call := func(info *registry.RequestInfo) sdktrace.ReadOnlySpan {
		t.Helper()
		h.spans.Reset()
		ctx := registry.WithRequest(context.Background(), info)
		_, err := h.reg.Invoke(ctx, "store.lookup", json.RawMessage(`{"handle":"h1"}`))
		require.NoError(t, err)
		spans := h.spans.Ended()
		require.Len(t, spans, 1)
		return spans[0]
	}

	header := http.Header{}
	header.Set("Traceparent", "00-"+traceID+"-"+spanID+"-01")
	s := call(&registry.RequestInfo{Transport: "http", Header: header})
	assert.Equal(t, traceID, s.SpanContext().TraceID().String())
	assert.Equal(t, spanID, s.Parent().SpanID().String())
	assert.True(t, s.Parent().IsRemote())

	s = call(&registry.RequestInfo{Transport: "mcp", Header: header, Meta: map[string]any{"traceparent": "00-" + metaTID + "-" + spanID + "-01", "progressToken": 3}})
	assert.Equal(t, metaTID, s.SpanContext().TraceID().String(), "_meta first")

	s = call(&registry.RequestInfo{Transport: "mcp"})
	assert.False(t, s.Parent().IsValid(), "no caller's context: a trace of its own")

	bad := http.Header{}
	bad.Set("Traceparent", "00-zz-nothex-01")
	s = call(&registry.RequestInfo{Transport: "http", Header: bad})
	assert.False(t, s.Parent().IsValid())
	assert.True(t, s.SpanContext().IsValid())
}

// A domain failure marks the span Error with its error type (the
// failure's text, which may quote arguments, is not recorded); a failure
// naming no type is "unknown"; a protocol failure is protocol_error with
// the error recorded as an event; a cancelled call is "cancelled".
func TestMiddleware_FailuresCarryTheErrorType(t *testing.T) {
	h := newHarness(t, "")
	ctx := context.Background()
	_, _ = h.reg.Invoke(ctx, "store.lookup", json.RawMessage(`{"handle":"missing","token":"s3cr3t"}`))
	_, _ = h.reg.Invoke(ctx, "store.lookup", json.RawMessage(`{"handle":"untyped"}`))
	_, err := h.reg.Invoke(ctx, "store.lookup", json.RawMessage(`{"handle":"broken"}`))
	require.Error(t, err)
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	_, err = h.reg.Invoke(cctx, "store.slow", json.RawMessage(`{}`))
	require.Error(t, err)

	spans := h.spans.Ended()
	require.Len(t, spans, 4)
	want := []string{string(result.NotFound), "unknown", telemetry.ErrorTypeProtocol, string(result.Cancelled)}
	for i, s := range spans {
		a := attrs(s.Attributes())
		assert.Equal(t, want[i], a["error.type"].AsString(), "span %d", i)
		assert.Equal(t, codes.Error, s.Status().Code, "span %d", i)
		assert.Equal(t, want[i], s.Status().Description, "span %d", i)
		for _, ev := range s.Events() {
			for _, kv := range ev.Attributes {
				assert.NotContains(t, kv.Value.String(), "s3cr3t")
			}
		}
	}
	assert.Empty(t, spans[0].Events(), "a domain failure's text is not recorded")
	require.NotEmpty(t, spans[2].Events(), "a protocol failure is marked by an event")
	assert.Equal(t, "exception", spans[2].Events()[0].Name)
	assert.Equal(t, map[string]string{"exception.type": telemetry.ErrorTypeProtocol}, eventAttrs(spans[2].Events()[0]),
		"its type only: an error's text may quote the arguments")
}

// eventAttrs is an event's attributes as text.
func eventAttrs(ev sdktrace.Event) map[string]string {
	out := map[string]string{}
	for _, kv := range ev.Attributes {
		out[string(kv.Key)] = kv.Value.Emit()
	}
	return out
}

// A call's span is the parent of what the tool does with its context.
func TestMiddleware_SpanIsInTheToolsContext(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: tp, MeterProvider: sdkmetric.NewMeterProvider()})
	require.NoError(t, err)
	reg := registry.New(registry.Options{Prefix: new("")})
	reg.Use(mw)
	pk := &registry.Pack{Name: "inner", Description: "Opens a span of its own."}
	require.NoError(t, registry.AddFunc(pk, "inner.work", func(ctx context.Context, _ struct{}) (result.Result[string], error) {
		_, span := tp.Tracer("tool").Start(ctx, "inner-step")
		span.End()
		return result.Ok("ok"), nil
	}, registry.ToolOptions{Doc: "Works."}))
	require.NoError(t, reg.AddPack(pk))
	_, err = reg.Invoke(context.Background(), "inner.work", json.RawMessage(`{}`))
	require.NoError(t, err)
	spans := recorder.Ended()
	require.Len(t, spans, 2)
	assert.Equal(t, "inner-step", spans[0].Name())
	assert.Equal(t, spans[1].SpanContext().SpanID(), spans[0].Parent().SpanID())
}

// Metrics: calls, duration, bytes in and out per tool; failures by error
// type.
func TestMiddleware_Metrics(t *testing.T) {
	h := newHarness(t, "")
	ctx := context.Background()
	ok := json.RawMessage(`{"handle":"h"}`)
	missing := json.RawMessage(`{"handle":"missing"}`)
	for range 3 {
		_, err := h.reg.Invoke(ctx, "store.lookup", ok)
		require.NoError(t, err)
	}
	_, err := h.reg.Invoke(ctx, "store.lookup", missing)
	require.NoError(t, err)

	var rm metricdata.ResourceMetrics
	require.NoError(t, h.reader.Collect(ctx, &rm))
	got := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		require.Equal(t, telemetry.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			got[m.Name] = m.Data
		}
	}
	sum := func(name string) (int64, []attribute.Set) {
		d, ok := got[name].(metricdata.Sum[int64])
		require.True(t, ok, "%s is an int64 sum", name)
		var n int64
		var sets []attribute.Set
		for _, p := range d.DataPoints {
			n += p.Value
			sets = append(sets, p.Attributes)
		}
		return n, sets
	}
	calls, sets := sum("toolpack.tool.calls")
	assert.Equal(t, int64(4), calls)
	v, _ := sets[0].Value("gen_ai.tool.name")
	assert.Equal(t, "store.lookup", v.AsString())
	failures, fsets := sum("toolpack.tool.failures")
	assert.Equal(t, int64(1), failures)
	et, _ := fsets[0].Value("error.type")
	assert.Equal(t, string(result.NotFound), et.AsString())
	in, _ := sum("toolpack.tool.bytes_in")
	assert.Equal(t, int64(3*len(ok)+len(missing)), in)
	out, _ := sum("toolpack.tool.bytes_out")
	assert.Equal(t, int64(3*len(`{"lines":["a","b"]}`)+len("no output ")), out)
	hist, okh := got["toolpack.tool.duration"].(metricdata.Histogram[float64])
	require.True(t, okh)
	require.Len(t, hist.DataPoints, 1)
	assert.Equal(t, uint64(4), hist.DataPoints[0].Count)
	assert.Equal(t, telemetry.DurationBuckets(), hist.DataPoints[0].Bounds, "bounds in seconds, sub-millisecond to minutes")
	assert.Zero(t, hist.DataPoints[0].BucketCounts[len(hist.DataPoints[0].BucketCounts)-1], "none past the last bound")
}

// Installed with UseOuter, the middleware traces and counts a call refused
// for its arguments: a span with error.type validation_error and a
// failure counted by that type; none of the refused arguments' values is
// put on the span, not even those TraceArgs names.
func TestMiddleware_CallsRefusedForTheirArguments(t *testing.T) {
	h := newHarness(t, "")
	ctx := context.Background()
	res, err := h.reg.Invoke(ctx, "store.lookup", json.RawMessage(`{"offset":"s3cr3t","token":"s3cr3t"}`))
	require.NoError(t, err)
	require.Equal(t, result.ValidationError, res.ErrorType)

	spans := h.spans.Ended()
	require.Len(t, spans, 1)
	a := attrs(spans[0].Attributes())
	assert.Equal(t, string(result.ValidationError), a["error.type"].AsString())
	assert.Equal(t, codes.Error, spans[0].Status().Code)
	assert.NotContains(t, a, "offset", "arguments that failed validation are not read")
	assert.NotContains(t, a, "handle")

	assert.Equal(t, map[string]int64{string(result.ValidationError): 1}, failuresByType(t, h.reader))

	// A tool without a decoder (a proxy's, a raw handler) has its named
	// arguments traced once they passed the registry's caps.
	require.NoError(t, h.reg.Add(&registry.Tool{Name: "raw", Description: "Raw.", TraceArgs: []string{"q"},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		Handler:     func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any]("ok"), nil }}))
	_, err = h.reg.Invoke(ctx, "raw", json.RawMessage(`{"q":"golang"}`))
	require.NoError(t, err)
	spans = h.spans.Ended()
	require.Len(t, spans, 2)
	assert.Equal(t, "golang", attrs(spans[1].Attributes())["q"].AsString())
}

// failuresByType collects reader and sums the failures counter by error
// type.
func failuresByType(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	types := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "toolpack.tool.failures" {
				continue
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				v, _ := p.Attributes.Value("error.type")
				types[v.AsString()] += p.Value
			}
		}
	}
	return types
}

// clearOTelEnv unsets every variable Setup reads, for the test's span.
func clearOTelEnv(t *testing.T) {
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
		"OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_EXPORT_TIMEOUT", "OTEL_BSP_MAX_QUEUE_SIZE",
		"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
		"OTEL_METRIC_EXPORT_INTERVAL", "OTEL_METRIC_EXPORT_TIMEOUT", "OTEL_METRICS_EXEMPLAR_FILTER"} {
		t.Setenv(v, "")
	}
	for _, s := range []string{"ENDPOINT", "PROTOCOL", "HEADERS", "TIMEOUT", "COMPRESSION"} {
		for _, signal := range []string{"", "TRACES_", "METRICS_"} {
			t.Setenv("OTEL_EXPORTER_OTLP_"+signal+s, "")
		}
	}
}

// With no OTEL_* variable set, nothing is exported: the providers are
// no-ops and a traced call records nothing.
func TestSetup_NothingExportedWhenUnset(t *testing.T) {
	clearOTelEnv(t)
	p, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{ServiceName: "test"})
	require.NoError(t, err)
	assert.False(t, p.Tracing)
	assert.False(t, p.Metrics)
	_, span := p.TracerProvider.Tracer("x").Start(context.Background(), "s")
	assert.False(t, span.IsRecording())
	require.NoError(t, p.Shutdown(context.Background()))

	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_SDK_DISABLED", "true")
	p, err = telemetry.Setup(context.Background(), telemetry.SetupOptions{})
	require.NoError(t, err)
	assert.False(t, p.Tracing || p.Metrics, "OTEL_SDK_DISABLED wins")
}

// A console exporter is refused when standard output carries MCP stdio.
func TestSetup_RefusesConsoleWhenStdoutReserved(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv("OTEL_TRACES_EXPORTER", "console")
	_, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{StdoutReserved: true})
	require.ErrorIs(t, err, telemetry.ErrStdoutExporter)
}

// collector is a fake OTLP/HTTP collector on 127.0.0.1 keeping what it
// receives.
type collector struct {
	mu      sync.Mutex
	paths   []string
	spans   []string // span names
	service string
	calls   int // data points of toolpack.tool.calls
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paths = append(c.paths, r.URL.Path)
	if r.URL.Path == "/v1/traces" {
		var req coltrace.ExportTraceServiceRequest
		if proto.Unmarshal(body, &req) == nil {
			for _, rs := range req.ResourceSpans {
				for _, kv := range rs.Resource.GetAttributes() {
					if kv.Key == "service.name" {
						c.service = kv.Value.GetStringValue()
					}
				}
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						c.spans = append(c.spans, s.Name)
					}
				}
			}
		}
	}
	if r.URL.Path == "/v1/metrics" {
		var req colmetrics.ExportMetricsServiceRequest
		if proto.Unmarshal(body, &req) == nil {
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						if m.Name == "toolpack.tool.calls" {
							c.calls += len(m.GetSum().GetDataPoints())
						}
					}
				}
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans and metrics go to the
// collector over OTLP/HTTP; Shutdown flushes them. The service name is
// the host's unless the environment names one.
func TestSetup_ExportsOTLPToCollector(t *testing.T) {
	clearOTelEnv(t)
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, reg := exportingRegistry(t, ctx)
	pk := &registry.Pack{Name: "ot", Description: "Introspection."}
	require.NoError(t, registry.AddFunc(pk, "ot.version", func(context.Context, struct{}) (result.Result[string], error) {
		return result.Ok("1.0.0"), nil
	}, registry.ToolOptions{Doc: "Version."}))
	require.NoError(t, reg.AddPack(pk))
	_, err := reg.Invoke(ctx, "ot.version", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.NoError(t, p.Shutdown(ctx))

	col.mu.Lock()
	defer col.mu.Unlock()
	assert.Contains(t, col.paths, "/v1/traces")
	assert.Contains(t, col.paths, "/v1/metrics")
	assert.Equal(t, []string{"ot.version"}, col.spans, "span name ot.{function}")
	assert.Equal(t, "toolpack-test", col.service)
	assert.False(t, strings.Contains(strings.Join(col.paths, ","), "console"))
}

// Metric series per instrument are bounded by SetupOptions.MetricSeries
// (DefaultMetricSeries, room for a catalogue's tools, when zero; no bound
// when negative, as documented), not the SDK's 2,000: past the bound,
// further tools share one overflow series.
func TestSetup_MetricSeriesBound(t *testing.T) {
	for _, tc := range []struct {
		series, want int
	}{{0, 8}, {4, 4}, {-1, 8}} {
		clearOTelEnv(t)
		col := &collector{}
		srv := httptest.NewServer(col)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
		t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		p, err := telemetry.Setup(ctx, telemetry.SetupOptions{ServiceName: "toolpack-test", MetricSeries: tc.series})
		require.NoError(t, err)
		mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider})
		require.NoError(t, err)
		reg := registry.New(registry.Options{Prefix: new("")})
		reg.Use(mw)
		for i := range 8 {
			require.NoError(t, registry.AddFunc(reg, fmt.Sprintf("t%d", i), func(context.Context, struct{}) (result.Result[string], error) {
				return result.Ok("x"), nil
			}, registry.ToolOptions{Doc: "T."}))
			_, err := reg.Invoke(ctx, fmt.Sprintf("t%d", i), json.RawMessage(`{}`))
			require.NoError(t, err)
		}
		require.NoError(t, p.Shutdown(ctx))
		cancel()
		srv.Close()
		col.mu.Lock()
		assert.Equal(t, tc.want, col.calls, "MetricSeries %d: one series per tool up to the bound (the last one the overflow)", tc.series)
		col.mu.Unlock()
	}
}

// A tool inventing error types cannot grow the metrics without end: past
// 64 distinct types per tool, failures are counted as "other" (the span
// still carries the type as is).
func TestMiddleware_FailureTypesBounded(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	mw, err := telemetry.Middleware(telemetry.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	require.NoError(t, err)
	reg := registry.New(registry.Options{Prefix: new("")})
	reg.Use(mw)
	type kindArgs struct {
		Kind string `json:"kind" validate:"required" description:"The error type to fail with."`
	}
	pk := &registry.Pack{Name: "bad", Description: "Invents error types."}
	require.NoError(t, registry.AddFunc(pk, "bad.fail", func(_ context.Context, a kindArgs) (result.Result[string], error) {
		return result.Failure[string]("failed", result.ErrorType(a.Kind)), nil
	}, registry.ToolOptions{Doc: "Fails."}))
	require.NoError(t, reg.AddPack(pk))
	ctx := context.Background()
	for i := range 100 {
		_, err := reg.Invoke(ctx, "bad.fail", json.RawMessage(`{"kind":"type_`+strconv.Itoa(i)+`"}`))
		require.NoError(t, err)
	}
	types := failuresByType(t, reader)
	assert.Len(t, types, 65, "64 types and other")
	assert.Equal(t, int64(36), types["other"])
	spans := recorder.Ended()
	require.Len(t, spans, 100)
	assert.Equal(t, "type_99", attrs(spans[99].Attributes())["error.type"].AsString())
}

// An unknown exporter name is an error naming the variable and what is
// expected, not a silent default.
func TestSetup_UnknownExporterNamesTheVariable(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv("OTEL_TRACES_EXPORTER", "bogus")
	_, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `OTEL_TRACES_EXPORTER="bogus"`)
	assert.Contains(t, err.Error(), "expected otlp")
	clearOTelEnv(t)
	t.Setenv("OTEL_METRICS_EXPORTER", "bogus")
	_, err = telemetry.Setup(context.Background(), telemetry.SetupOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `OTEL_METRICS_EXPORTER="bogus"`)
}

// Exporter settings Go's SDK cannot serve are refused naming the variable
// at fault and its value: a list of exporters, a name with spaces around
// it, an OTLP protocol other than http/protobuf or grpc.
func TestSetup_UnservableSettingsNameTheirVariable(t *testing.T) {
	for _, tc := range []struct{ v, val, want string }{
		{"OTEL_TRACES_EXPORTER", "otlp,console", `OTEL_TRACES_EXPORTER="otlp,console": expected one exporter (otlp, console or none); a list is not supported`},
		{"OTEL_TRACES_EXPORTER", " otlp", `OTEL_TRACES_EXPORTER=" otlp": expected otlp, console or none without spaces`},
		{"OTEL_METRICS_EXPORTER", "otlp,prometheus", `OTEL_METRICS_EXPORTER="otlp,prometheus": expected one exporter`},
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", `OTEL_EXPORTER_OTLP_PROTOCOL="http/json": expected http/protobuf or grpc`},
		{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "udp", `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="udp": expected http/protobuf or grpc`},
	} {
		clearOTelEnv(t)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
		t.Setenv(tc.v, tc.val)
		_, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{})
		require.Error(t, err, tc.v)
		assert.Contains(t, err.Error(), tc.want)
	}
	// A protocol setting no OTLP exporter in use reads is not refused:
	// overridden by the signal's own, or with OTLP not used at all.
	clearOTelEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	p, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{})
	require.NoError(t, err)
	require.NoError(t, p.Shutdown(context.Background()))
}

// OTLP settings the SDK would log and then ignore — exporting to its
// default endpoint, without the headers, with its default timeout — are
// refused at start naming the variable, and a header value or a URL's
// password (secrets) is never repeated in the message.
func TestSetup_MalformedOTLPSettingsRefused(t *testing.T) {
	const secret = "s3cr3t-token"
	for _, tc := range []struct{ v, val, want string }{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318", `OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318": expected an http or https URL with a host`},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://c/x?api_key=" + secret, `OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://c/x": expected an http or https URL with a host`},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://user:" + secret + "@", `OTEL_EXPORTER_OTLP_ENDPOINT: "http://user:xxxxx@": expected an http or https URL with a host`},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "collector", `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "collector": expected an http or https URL`},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://[::1", `OTEL_EXPORTER_OTLP_ENDPOINT: not a URL`},
		{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization Bearer " + secret, `OTEL_EXPORTER_OTLP_HEADERS: entry 1 has no '='`},
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "a=1,bad name=" + secret, `OTEL_EXPORTER_OTLP_TRACES_HEADERS: entry 2: "bad name" is not a header name`},
		{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%zz" + secret, `OTEL_EXPORTER_OTLP_HEADERS: entry 1 (Authorization): the value is not valid percent-encoding`},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "10s", `OTEL_EXPORTER_OTLP_TIMEOUT="10s": expected a whole number of milliseconds`},
		{"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "-1", `OTEL_EXPORTER_OTLP_METRICS_TIMEOUT="-1": expected a whole number of milliseconds`},
		{"OTEL_EXPORTER_OTLP_COMPRESSION", "zstd", `OTEL_EXPORTER_OTLP_COMPRESSION="zstd": expected gzip or none`},
		{"OTEL_RESOURCE_ATTRIBUTES", "team=a,token=" + secret + "%ZZ", `OTEL_RESOURCE_ATTRIBUTES: entry 2 (token): the value is not valid percent-encoding`},
		{"OTEL_RESOURCE_ATTRIBUTES", "team", `OTEL_RESOURCE_ATTRIBUTES: entry 1 has no '='`},
	} {
		clearOTelEnv(t)
		t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
		t.Setenv("OTEL_METRICS_EXPORTER", "otlp")
		t.Setenv(tc.v, tc.val)
		_, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{})
		require.Error(t, err, tc.v+"="+tc.val)
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), secret)
	}
	// Well-formed settings pass: URLs with a path, header lists with
	// percent-encoded values, a unix socket over gRPC; and a signal not
	// exported over OTLP has its variables left alone.
	for _, env := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example:4318/base", "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20x, X-Tenant=a",
			"OTEL_RESOURCE_ATTRIBUTES":   "deployment.environment=prod,team=a%20b",
			"OTEL_EXPORTER_OTLP_TIMEOUT": "5000", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "unix:///run/otel.sock"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "dns:///collector:4317"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": " http://c:4318 ", "OTEL_EXPORTER_OTLP_TIMEOUT": " 10000", "OTEL_EXPORTER_OTLP_HEADERS": "a=1,"},
		{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "nonsense"},
	} {
		clearOTelEnv(t)
		t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
		t.Setenv("OTEL_METRICS_EXPORTER", "otlp")
		for k, v := range env {
			t.Setenv(k, v)
		}
		p, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{})
		require.NoError(t, err, env)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_ = p.Shutdown(ctx) // nothing listens; only the start is under test
		cancel()
	}
}

// The SDK's own settings it would log and replace by its default (an
// unknown sampler, a ratio outside 0…1, an interval that is not whole
// milliseconds, an unknown exemplar filter), or that would make it panic
// or exhaust memory when the provider is made (a negative or huge span
// queue or batch), are refused at start naming the variable and what was
// expected; well-formed ones pass, and a signal not exported has its
// settings left alone.
func TestSetup_SDKSettingsRefusedBeforeTheyPanicOrAreIgnored(t *testing.T) {
	for _, tc := range []struct{ v, val, want string }{
		{"OTEL_BSP_MAX_QUEUE_SIZE", "-5", `OTEL_BSP_MAX_QUEUE_SIZE="-5": expected a whole number from 1 to 16777216`},
		{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "-5", `OTEL_BSP_MAX_EXPORT_BATCH_SIZE="-5": expected a whole number from 1 to 16777216`},
		{"OTEL_BSP_MAX_QUEUE_SIZE", "2000000000", `OTEL_BSP_MAX_QUEUE_SIZE="2000000000": expected a whole number from 1 to 16777216`},
		{"OTEL_BSP_MAX_QUEUE_SIZE", "abc", `OTEL_BSP_MAX_QUEUE_SIZE="abc"`},
		{"OTEL_BSP_SCHEDULE_DELAY", "0", `OTEL_BSP_SCHEDULE_DELAY="0": expected a whole number from 1 to 9223372036854`},
		{"OTEL_BSP_EXPORT_TIMEOUT", " 30", `OTEL_BSP_EXPORT_TIMEOUT=" 30"`},
		{"OTEL_TRACES_SAMPLER", "bogus", `OTEL_TRACES_SAMPLER="bogus": expected always_on, always_off, traceidratio`},
		{"OTEL_TRACES_SAMPLER_ARG", "abc", `OTEL_TRACES_SAMPLER_ARG="abc": expected the ratio of traces sampled, from 0 to 1`},
		{"OTEL_TRACES_SAMPLER_ARG", "1.5", `OTEL_TRACES_SAMPLER_ARG="1.5"`},
		{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "many", `OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT="many": expected a whole number (a negative one for no limit)`},
		{"OTEL_METRIC_EXPORT_INTERVAL", "-1", `OTEL_METRIC_EXPORT_INTERVAL="-1": expected a whole number from 1 to 9223372036854`},
		{"OTEL_METRIC_EXPORT_TIMEOUT", "abc", `OTEL_METRIC_EXPORT_TIMEOUT="abc"`},
		{"OTEL_METRICS_EXEMPLAR_FILTER", "sometimes", `OTEL_METRICS_EXEMPLAR_FILTER="sometimes": expected always_on, always_off or trace_based`},
	} {
		clearOTelEnv(t)
		t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
		t.Setenv("OTEL_METRICS_EXPORTER", "otlp")
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
		if tc.v == "OTEL_TRACES_SAMPLER_ARG" {
			t.Setenv("OTEL_TRACES_SAMPLER", "parentbased_traceidratio")
		}
		t.Setenv(tc.v, tc.val)
		var err error
		require.NotPanics(t, func() { _, err = telemetry.Setup(context.Background(), telemetry.SetupOptions{}) }, tc.v+"="+tc.val)
		require.Error(t, err, tc.v+"="+tc.val)
		assert.Contains(t, err.Error(), tc.want)
	}
	for _, env := range []map[string]string{
		{"OTEL_TRACES_SAMPLER": "ParentBased_TraceIDRatio", "OTEL_TRACES_SAMPLER_ARG": " 0.25", "OTEL_BSP_MAX_QUEUE_SIZE": "4096",
			"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "256", "OTEL_BSP_SCHEDULE_DELAY": "500", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "-1",
			"OTEL_METRIC_EXPORT_INTERVAL": "10000", "OTEL_METRICS_EXEMPLAR_FILTER": "Always_Off"},
		{"OTEL_TRACES_SAMPLER": "always_on", "OTEL_TRACES_SAMPLER_ARG": "ignored by this sampler"},
		// Values the SDK accepts stay accepted: the specification's
		// samplers it does not serve (shared environments name them), no
		// export timeout, long intervals, large queues.
		{"OTEL_TRACES_SAMPLER": "jaeger_remote", "OTEL_BSP_EXPORT_TIMEOUT": "0", "OTEL_METRIC_EXPORT_INTERVAL": "172800000",
			"OTEL_BSP_MAX_QUEUE_SIZE": "2000000", "OTEL_BSP_SCHEDULE_DELAY": "86400001"},
		{"OTEL_TRACES_SAMPLER": "xray"},
		{"OTEL_TRACES_SAMPLER": "parentbased_jaeger_remote"},
		{"OTEL_TRACES_EXPORTER": "none", "OTEL_BSP_MAX_QUEUE_SIZE": "-5", "OTEL_TRACES_SAMPLER": "bogus"},
		{"OTEL_METRICS_EXPORTER": "none", "OTEL_METRIC_EXPORT_INTERVAL": "-1"},
	} {
		clearOTelEnv(t)
		t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
		t.Setenv("OTEL_METRICS_EXPORTER", "otlp")
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
		for k, v := range env {
			t.Setenv(k, v)
		}
		p, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{})
		require.NoError(t, err, env)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_ = p.Shutdown(ctx)
		cancel()
	}
}

// Shutdown flushes the signals at once: a traces collector that stopped
// answering does not keep the metrics from reaching theirs.
func TestShutdown_StalledTracesDoNotHoldBackMetrics(t *testing.T) {
	clearOTelEnv(t)
	stalled := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stalled:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(stalled)
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", hang.URL+"/v1/traces")
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", srv.URL+"/v1/metrics")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	p, reg := exportingRegistry(t, context.Background())
	require.NoError(t, reg.Add(&registry.Tool{Name: "t", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
		return result.Ok[any](1), nil
	}}))
	_, err := reg.Invoke(context.Background(), "t", nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	assert.Error(t, p.Shutdown(ctx), "the traces could not be sent in time")
	col.mu.Lock()
	defer col.mu.Unlock()
	assert.Contains(t, col.paths, "/v1/metrics", "the metrics were sent all the same")
}

// exportingRegistry sets the providers up from the environment (both
// signals must be on) and returns them with a registry traced and
// measured by them.
func exportingRegistry(t *testing.T, ctx context.Context) (*telemetry.Providers, *registry.Registry) {
	t.Helper()
	p, err := telemetry.Setup(ctx, telemetry.SetupOptions{ServiceName: "toolpack-test"})
	require.NoError(t, err)
	require.True(t, p.Tracing)
	require.True(t, p.Metrics)
	mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider})
	require.NoError(t, err)
	reg := registry.New(registry.Options{Prefix: new("")})
	reg.Use(mw)
	return p, reg
}

// A panic in middleware added with Use, inside the telemetry middleware
// (installed with UseOuter, as a host installs it) and outside the
// handler's own Recover, still ends the call's span — status Error,
// error.type internal_error, an exception event carrying the type only —
// and counts the call and its failure; the panic goes on to the
// registry's outer Recover, which turns it into the internal_error result
// as before.
func TestMiddleware_PanicInUseMiddlewareEndsTheSpanAndCountsTheCall(t *testing.T) {
	h := newHarness(t, "")
	h.reg.Use(func(registry.Handler) registry.Handler {
		return func(context.Context, *registry.Call) (result.Result[any], error) {
			panic("boom s3cr3t")
		}
	})
	res, err := h.reg.Invoke(context.Background(), "store.lookup", json.RawMessage(`{"handle":"h1"}`))
	require.NoError(t, err)
	require.Equal(t, result.InternalError, res.ErrorType, "Recover still turns the panic into a failure")

	spans := h.spans.Ended()
	require.Len(t, spans, 1, "the span is ended")
	s := spans[0]
	assert.Equal(t, string(result.InternalError), attrs(s.Attributes())["error.type"].AsString())
	assert.Equal(t, codes.Error, s.Status().Code)
	assert.Equal(t, string(result.InternalError), s.Status().Description)
	require.Len(t, s.Events(), 1)
	assert.Equal(t, "exception", s.Events()[0].Name)
	assert.Equal(t, map[string]string{"exception.type": string(result.InternalError)}, eventAttrs(s.Events()[0]),
		"the panic's value is not recorded: it may hold data")

	assert.Equal(t, int64(1), counterSum(t, h.reader, "toolpack.tool.calls"), "the call is counted")
	assert.Equal(t, map[string]int64{string(result.InternalError): 1}, failuresByType(t, h.reader))
}

// counterSum collects reader and sums the int64 counter name over its
// series.
func counterSum(t *testing.T, reader *sdkmetric.ManualReader, name string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
					n += p.Value
				}
			}
		}
	}
	return n
}

// The host's service name (SetupOptions.ServiceName) is used unless the
// environment sets service.name as the SDK reads it: OTEL_SERVICE_NAME,
// or the key service.name in OTEL_RESOURCE_ATTRIBUTES once trimmed. A key
// that merely ends in service.name (app.service.name) does not count, and
// a service.name written with spaces around its key does.
func TestSetup_ServiceNameOnlyWhenTheEnvironmentSetsNone(t *testing.T) {
	for _, tc := range []struct {
		attrs, svc, want string
	}{
		{"", "", "toolpack-test"},
		{"app.service.name=x", "", "toolpack-test"},
		{"team=a,my.service.name=y", "", "toolpack-test"},
		{"service.name =foo", "", "foo"},
		{"team=a, service.name=bar ", "", "bar"},
		{"service.name=", "", "toolpack-test"},
		{"service.name=attr", "env-svc", "env-svc"},
		{"", " env-svc ", "env-svc"},
	} {
		clearOTelEnv(t)
		col := &collector{}
		srv := httptest.NewServer(col)
		t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", srv.URL+"/v1/traces")
		t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
		t.Setenv("OTEL_RESOURCE_ATTRIBUTES", tc.attrs)
		t.Setenv("OTEL_SERVICE_NAME", tc.svc)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		p, err := telemetry.Setup(ctx, telemetry.SetupOptions{ServiceName: "toolpack-test"})
		require.NoError(t, err)
		_, span := p.TracerProvider.Tracer("x").Start(ctx, "s")
		span.End()
		require.NoError(t, p.Shutdown(ctx))
		cancel()
		srv.Close()
		col.mu.Lock()
		assert.Equal(t, tc.want, col.service, "OTEL_RESOURCE_ATTRIBUTES=%q OTEL_SERVICE_NAME=%q", tc.attrs, tc.svc)
		col.mu.Unlock()
	}
}

// A gRPC endpoint that is not a URL (host:port without a scheme, an IP
// address) is refused with an example for gRPC — the OTLP/gRPC port 4317,
// http for plain text and https for TLS — not the OTLP/HTTP one.
func TestSetup_GRPCEndpointHintNamesTheGRPCPort(t *testing.T) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		clearOTelEnv(t)
		t.Setenv("OTEL_METRICS_EXPORTER", "none")
		t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
		t.Setenv(v, "127.0.0.1:4317")
		_, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{})
		require.Error(t, err, v)
		assert.Contains(t, err.Error(), v+": not a URL")
		assert.Contains(t, err.Error(), "http://collector:4317")
		assert.Contains(t, err.Error(), "https://")
		assert.NotContains(t, err.Error(), "4318")
	}
	// Over OTLP/HTTP the example stays the HTTP port.
	clearOTelEnv(t)
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "127.0.0.1:4318")
	_, err := telemetry.Setup(context.Background(), telemetry.SetupOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "http://collector:4318")
}

// The propagators the middleware reads the caller's trace context with
// are those OTEL_PROPAGATORS names (names trimmed): none takes no context
// from clients, b3 reads B3 and not W3C; unset, W3C Trace Context and
// Baggage as before. An unknown name is refused naming the variable.
func TestMiddleware_PropagatorsFromTheEnvironment(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	w3c := map[string]any{"traceparent": "00-" + traceID + "-" + spanID + "-01"}
	b3 := map[string]any{"b3": traceID + "-" + spanID + "-1"}
	parentOf := func(env string, meta map[string]any) trace.SpanContext {
		t.Helper()
		t.Setenv("OTEL_PROPAGATORS", env)
		recorder := tracetest.NewSpanRecorder()
		mw, err := telemetry.Middleware(telemetry.Options{
			TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder)),
			MeterProvider:  sdkmetric.NewMeterProvider()})
		require.NoError(t, err)
		reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
		reg.UseOuter(mw)
		require.NoError(t, reg.Add(&registry.Tool{Name: "t", Description: "d", Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return result.Ok[any](1), nil
		}}))
		_, err = reg.Invoke(registry.WithRequest(context.Background(), &registry.RequestInfo{Transport: "mcp", Meta: meta}), "t", nil)
		require.NoError(t, err)
		spans := recorder.Ended()
		require.Len(t, spans, 1)
		return spans[0].Parent()
	}
	assert.Equal(t, spanID, parentOf("", w3c).SpanID().String(), "unset: W3C trace context")
	assert.Equal(t, spanID, parentOf(" tracecontext , baggage", w3c).SpanID().String())
	assert.False(t, parentOf("none", w3c).IsValid(), "none: no context taken from clients")
	assert.False(t, parentOf("b3", w3c).IsValid(), "b3 alone does not read traceparent")
	assert.Equal(t, spanID, parentOf("b3", b3).SpanID().String())
	assert.Equal(t, traceID, parentOf("tracecontext,b3", b3).TraceID().String())

	t.Setenv("OTEL_PROPAGATORS", "tracecontext,bogus")
	_, err := telemetry.Middleware(telemetry.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `OTEL_PROPAGATORS="tracecontext,bogus"`)
	assert.Contains(t, err.Error(), "bogus")
}
