package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolpack-go/toolpack/internal/tracectx"
	"github.com/toolpack-go/toolpack/internal/valuesize"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/toolpack-go/toolpack/registry/telemetry"

// Attribute keys of spans and metrics.
const (
	KeyOperation = attribute.Key("gen_ai.operation.name")
	KeyToolName  = attribute.Key("gen_ai.tool.name")
	KeyPack      = attribute.Key("toolpack.pack")
	KeyErrorType = attribute.Key("error.type")

	keyExceptionType = attribute.Key("exception.type")
)

// DurationBuckets returns the bucket bounds, in seconds, of the
// toolpack.tool.duration histogram: OpenTelemetry's HTTP duration bounds
// (5 ms to 10 s) with sub-millisecond ones below (a local tool answers in
// microseconds) and minutes above (a model or a crawl may take them). The
// SDK's default bounds (0 to 10,000) are meant for milliseconds and would
// put every call under 5 s in one bucket.
func DurationBuckets() []float64 { return slices.Clone(durationBuckets) }

var durationBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1,
	0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120, 300}

// Error types recorded for protocol failures (a non-nil error from the
// pipeline), as the stats middleware records them.
const (
	// ErrorTypeProtocol is registry.ErrorTypeProtocol: a protocol failure
	// other than a cancellation (result.Cancelled) or an expired deadline
	// (result.Timeout).
	ErrorTypeProtocol = registry.ErrorTypeProtocol
	errorTypeUnknown  = "unknown"
	errorTypeOther    = "other" // past maxErrorTypes distinct types of one tool
)

// MaxArgAttrBytes bounds a string argument recorded on a span (see
// Tool.TraceArgs); longer values are cut at a rune boundary.
const MaxArgAttrBytes = 1024

// maxCachedTools bounds the per-tool attribute sets kept (tools come and
// go with catalogues; the least recently used set is rebuilt on need).
const maxCachedTools = 4096

// Options configures Middleware. The zero value uses OpenTelemetry's
// global providers (no-ops until a program installs others).
type Options struct {
	// TracerProvider makes the tracer; nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the instruments; nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Propagator reads the caller's trace context from the request an
	// adapter attached (registry.Request: the HTTP headers, or the MCP
	// request's _meta), so that a tool's span joins the trace of the agent
	// that called it; nil means the propagators OTEL_PROPAGATORS names
	// (tracecontext, baggage, b3, b3multi, jaeger, xray, ottrace, or none
	// to read no context), as adapters/mcpproxy sends the trace on, and
	// W3C Trace Context and Baggage (propagation.TraceContext,
	// propagation.Baggage) when it is unset.
	Propagator propagation.TextMapPropagator
}

// instruments are the middleware's metric instruments.
type instruments struct {
	calls, failures, bytesIn, bytesOut metric.Int64Counter
	duration                           metric.Float64Histogram
}

// toolAttrs are the span options and metric attributes of one tool,
// built once (passed as slices, so that a call allocates none).
type toolAttrs struct {
	start    []trace.SpanStartOption
	add      []metric.AddOption
	record   []metric.RecordOption
	base     []attribute.KeyValue
	failures sync.Map                   // error type → []metric.AddOption
	types    atomic.Int32               // entries of failures
	defaults map[string]json.RawMessage // TraceArgs' defaults in the input schema
}

// maxErrorTypes bounds the distinct error types the failures counter
// keeps per tool (a tool inventing types must not grow the metrics without
// end); further types are counted as "other". Spans carry the type as is.
const maxErrorTypes = 64

// Middleware returns the tracing and metrics middleware (see the package
// documentation). It fails when an instrument cannot be created, or when
// Options.Propagator is nil and OTEL_PROPAGATORS names an unknown
// propagator.
func Middleware(opts Options) (registry.Middleware, error) {
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	tracer := tp.Tracer(ScopeName)
	meter := mp.Meter(ScopeName)
	prop := opts.Propagator
	if prop == nil {
		var err error
		prop, err = tracectx.FromEnv(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
		if err != nil {
			return nil, fmt.Errorf("telemetry: %w", err)
		}
	}
	var ins instruments
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	ins.calls, err = meter.Int64Counter("toolpack.tool.calls", metric.WithUnit("{call}"), metric.WithDescription("Tool calls that reached the middleware chain."))
	add(err)
	ins.failures, err = meter.Int64Counter("toolpack.tool.failures", metric.WithUnit("{call}"), metric.WithDescription("Tool calls that failed, by error type."))
	add(err)
	ins.duration, err = meter.Float64Histogram("toolpack.tool.duration", metric.WithUnit("s"), metric.WithDescription("Duration of tool calls."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	add(err)
	ins.bytesIn, err = meter.Int64Counter("toolpack.tool.bytes_in", metric.WithUnit("By"), metric.WithDescription("Bytes of the raw arguments of tool calls."))
	add(err)
	ins.bytesOut, err = meter.Int64Counter("toolpack.tool.bytes_out", metric.WithUnit("By"), metric.WithDescription("Bytes of the values (or failure texts) of tool calls."))
	add(err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("telemetry: creating instruments: %w", err)
	}
	cache, err := lru.New[*registry.Tool, *toolAttrs](maxCachedTools)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	sizer := valuesize.New()
	attrsOf := func(t *registry.Tool) *toolAttrs {
		if a, ok := cache.Get(t); ok {
			return a
		}
		base := []attribute.KeyValue{KeyToolName.String(t.Name), KeyPack.String(t.Pack)}
		set := metric.WithAttributeSet(attribute.NewSet(base...))
		a := &toolAttrs{
			start: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal),
				trace.WithAttributes(KeyOperation.String("execute_tool"), base[0], base[1])},
			add:    []metric.AddOption{set},
			record: []metric.RecordOption{set},
			base:   base,
		}
		if len(t.TraceArgs) > 0 {
			a.defaults = schemaDefaults(t.InputSchema, t.TraceArgs)
		}
		cache.Add(t, a)
		return a
	}
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			if c == nil || c.Tool == nil {
				return next(ctx, c)
			}
			t := c.Tool
			a := attrsOf(t)
			name := t.BaseName
			if name == "" {
				name = t.Name
			}
			start := time.Now()
			// The caller's trace context is the span's remote parent when
			// ctx has no span: a nested call (a snippet's step) stays the
			// child of its caller's span.
			ctx = tracectx.FromRequest(ctx, prop)
			ctx, span := tracer.Start(ctx, name, a.start...)
			returned := false
			defer func() {
				if !returned {
					// A panic below (middleware added with Use, the decode
					// stage) that the handler's own Recover does not catch:
					// the span is ended and the call counted as the
					// registry's outer Recover will answer it, and the
					// panic goes on to that Recover untouched (not
					// recovered here). Its value is not recorded: it may
					// hold data.
					ins.end(ctx, span, a, c, time.Since(start), 0, string(result.InternalError), true)
				}
			}()
			res, err := next(ctx, c)
			returned = true
			elapsed := time.Since(start)

			var out int64
			errType := ""
			switch {
			case err != nil:
				errType = registry.ProtocolErrorType(err)
			case res.Success:
				out = sizer.Size(res.Value)
			default:
				errType = string(res.ErrorType)
				if errType == "" {
					errType = errorTypeUnknown
				}
				out = int64(len(res.Error))
			}
			ins.end(ctx, span, a, c, elapsed, out, errType, err != nil)
			return res, err
		}
	}, nil
}

// end records a call that took elapsed: its traced arguments, its
// failure (errType, empty for a success) and, when exception is set (a
// protocol failure or a panic), an "exception" event carrying the error
// type only — the error's text may quote the arguments (a URL built from
// them, say; the Logging middleware logs it for the operator) — on the
// span, which it ends; then the call's metrics, out being the bytes of its
// value or failure text.
func (ins *instruments) end(ctx context.Context, span trace.Span, a *toolAttrs, c *registry.Call, elapsed time.Duration, out int64, errType string, exception bool) {
	t := c.Tool
	// Only arguments that passed the registry's caps and validation are
	// read for attributes.
	if len(t.TraceArgs) > 0 && c.ArgsChecked() && span.IsRecording() {
		span.SetAttributes(argAttrs(c.Raw, t.TraceArgs, a.defaults)...)
	}
	if errType != "" && span.IsRecording() {
		span.SetAttributes(KeyErrorType.String(errType))
		if exception {
			span.AddEvent("exception", trace.WithAttributes(keyExceptionType.String(errType)))
		}
		span.SetStatus(codes.Error, errType)
	}
	span.End()
	// The metric SDK records whatever ctx's state: a cancelled call is
	// counted too.
	ins.calls.Add(ctx, 1, a.add...)
	ins.duration.Record(ctx, elapsed.Seconds(), a.record...)
	ins.bytesIn.Add(ctx, int64(len(c.Raw)), a.add...)
	ins.bytesOut.Add(ctx, out, a.add...)
	if errType != "" {
		ins.failures.Add(ctx, 1, a.failure(errType)...)
	}
}

// failure returns the measurement option of the tool's failures of one
// error type, built once per type.
func (a *toolAttrs) failure(errType string) []metric.AddOption {
	if o, ok := a.failures.Load(errType); ok {
		return o.([]metric.AddOption)
	}
	if a.types.Load() >= maxErrorTypes {
		errType = errorTypeOther
		if o, ok := a.failures.Load(errType); ok {
			return o.([]metric.AddOption)
		}
	}
	kv := append(append([]attribute.KeyValue(nil), a.base...), KeyErrorType.String(errType))
	o, loaded := a.failures.LoadOrStore(errType, []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(kv...))})
	if !loaded {
		a.types.Add(1)
	}
	return o.([]metric.AddOption)
}

// argAttrs are the span attributes of the named top-level arguments of
// raw that the call carries: strings (cut at MaxArgAttrBytes), integers,
// other numbers and booleans as such, anything else as its compact JSON
// (cut likewise). Arguments the call leaves out are not recorded.
func argAttrs(raw json.RawMessage, names []string, defaults map[string]json.RawMessage) []attribute.KeyValue {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	out := make([]attribute.KeyValue, 0, len(names))
	for _, n := range names {
		v, ok := obj[n]
		if !ok || string(v) == "null" {
			if v, ok = defaults[n]; !ok {
				continue
			}
		}
		key := attribute.Key(n)
		var s string
		var f float64
		var b bool
		switch {
		case json.Unmarshal(v, &s) == nil:
			out = append(out, key.String(cut(s)))
		case json.Unmarshal(v, &b) == nil:
			out = append(out, key.Bool(b))
		case json.Unmarshal(v, &f) == nil:
			if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				out = append(out, key.Int64(i))
			} else {
				out = append(out, key.Float64(f))
			}
		default:
			out = append(out, key.String(cut(string(v))))
		}
	}
	return out
}

// schemaDefaults returns the "default" of each of names among the
// top-level properties of an input schema: a call that leaves such an
// argument out ran with it, and its span says so.
func schemaDefaults(schema json.RawMessage, names []string) map[string]json.RawMessage {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out map[string]json.RawMessage
	for _, n := range names {
		if d := s.Properties[n].Default; len(d) > 0 && string(d) != "null" {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[n] = d
		}
	}
	return out
}

// cut shortens s to at most MaxArgAttrBytes at a rune boundary.
func cut(s string) string {
	if len(s) <= MaxArgAttrBytes {
		return s
	}
	i := MaxArgAttrBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
