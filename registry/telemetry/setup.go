package telemetry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"golang.org/x/net/http/httpguts"
)

// ErrStdoutExporter is returned by Setup when SetupOptions.StdoutReserved
// is set and the environment asks for a console exporter, which would
// write telemetry into the MCP stdio stream.
var ErrStdoutExporter = errors.New("telemetry: a console exporter writes to standard output, which carries the MCP stdio transport")

// SetupOptions configures Setup. The zero value reads the environment
// alone.
type SetupOptions struct {
	// ServiceName is the resource's service.name when the environment
	// names none: OTEL_SERVICE_NAME and the key service.name of
	// OTEL_RESOURCE_ATTRIBUTES unset or empty.
	ServiceName string
	// StdoutReserved refuses the console exporters (ErrStdoutExporter):
	// set it when standard output is the MCP stdio transport.
	StdoutReserved bool
	// MetricSeries is the most series (attribute sets: one per tool, and
	// per tool and error type for failures) one instrument keeps; past it
	// the SDK merges further series into one marked
	// otel.metric.overflow=true. Zero means DefaultMetricSeries; negative,
	// no limit. The SDK's experimental OTEL_GO_X_CARDINALITY_LIMIT, when
	// set, wins.
	MetricSeries int
}

// DefaultMetricSeries is SetupOptions.MetricSeries' default: room for a
// catalogue's tools (the SDK's own default, 2,000, would merge the tools
// past the 2,000th into one series without a word).
const DefaultMetricSeries = 20000

// Providers are the tracer and meter providers Setup built; no-ops for a
// signal the environment does not turn on.
type Providers struct {
	// TracerProvider is an SDK provider exporting spans, or a no-op.
	TracerProvider trace.TracerProvider
	// MeterProvider is an SDK provider exporting metrics, or a no-op.
	MeterProvider metric.MeterProvider
	// Tracing and Metrics report which signals are exported.
	Tracing, Metrics bool

	shutdown []func(context.Context) error
}

// Shutdown flushes what is buffered and stops the exporters, waiting as
// long as ctx allows. It is safe to call on the Providers of a Setup that
// exported nothing.
//
// The signals are flushed at once, each within ctx: an exporter that
// hangs (a traces collector that stopped answering) does not keep the
// other's data from being sent.
func (p *Providers) Shutdown(ctx context.Context) error {
	errs := make([]error, len(p.shutdown))
	var wg sync.WaitGroup
	for i, f := range p.shutdown {
		wg.Go(func() { errs[i] = f(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Setup builds providers from the OTEL_* environment variables (see the
// package documentation): nothing is exported when none is set. It does
// not install them as OpenTelemetry's globals; pass them to Middleware.
func Setup(ctx context.Context, opts SetupOptions) (*Providers, error) {
	p := &Providers{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return p, nil
	}
	traces := wanted("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	metrics := wanted("OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
	if !traces && !metrics {
		return p, nil
	}
	if opts.StdoutReserved {
		for _, v := range []string{"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER"} {
			if names(v)["console"] {
				return nil, fmt.Errorf("%w: %s=%s", ErrStdoutExporter, v, os.Getenv(v))
			}
		}
	}
	if err := checkEnv(traces, metrics); err != nil {
		return nil, err
	}
	res, err := newResource(opts.ServiceName)
	if err != nil {
		return nil, err
	}
	if traces {
		exp, err := autoexport.NewSpanExporter(ctx)
		if err != nil {
			return nil, fmt.Errorf("telemetry: span exporter (OTEL_TRACES_EXPORTER=%q; expected otlp, console or none): %w", os.Getenv("OTEL_TRACES_EXPORTER"), err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		p.TracerProvider, p.Tracing = tp, true
		p.shutdown = append(p.shutdown, tp.Shutdown)
	}
	if metrics {
		reader, err := autoexport.NewMetricReader(ctx)
		if err != nil {
			_ = p.Shutdown(ctx)
			return nil, fmt.Errorf("telemetry: metric reader (OTEL_METRICS_EXPORTER=%q; expected otlp, prometheus, console or none): %w", os.Getenv("OTEL_METRICS_EXPORTER"), err)
		}
		mopts := []sdkmetric.Option{sdkmetric.WithReader(reader), sdkmetric.WithResource(res)}
		if os.Getenv("OTEL_GO_X_CARDINALITY_LIMIT") == "" {
			series := opts.MetricSeries
			if series == 0 {
				series = DefaultMetricSeries
			}
			mopts = append(mopts, sdkmetric.WithCardinalityLimit(series))
		}
		mp := sdkmetric.NewMeterProvider(mopts...)
		p.MeterProvider, p.Metrics = mp, true
		p.shutdown = append(p.shutdown, mp.Shutdown)
	}
	return p, nil
}

// checkEnv refuses, naming the variable, the exporter settings the SDK's
// autoexport would refuse with a message naming another variable or none:
// a list of exporters (the specification allows one; autoexport serves a
// single name), a name with spaces around it, and an OTLP protocol other
// than http/protobuf and grpc (http/json is not offered by Go's SDK).
func checkEnv(traces, metrics bool) error {
	var errs []error
	single := func(v, expected string) {
		raw := os.Getenv(v)
		if raw == "" {
			return
		}
		if n := names(v); len(n) > 1 {
			errs = append(errs, fmt.Errorf("telemetry: %s=%q: expected one exporter (%s); a list is not supported", v, raw, expected))
		} else if strings.TrimSpace(raw) != raw {
			errs = append(errs, fmt.Errorf("telemetry: %s=%q: expected %s without spaces", v, raw, expected))
		}
	}
	if traces {
		single("OTEL_TRACES_EXPORTER", "otlp, console or none")
	}
	if metrics {
		single("OTEL_METRICS_EXPORTER", "otlp, prometheus, console or none")
	}
	errs = append(errs, checkSDKEnv(traces, metrics)...)
	if raw := os.Getenv("OTEL_RESOURCE_ATTRIBUTES"); raw != "" {
		if err := checkResourceAttributes(raw); err != nil {
			errs = append(errs, fmt.Errorf("telemetry: OTEL_RESOURCE_ATTRIBUTES: %w", err))
		}
	}
	// The protocol in effect for each signal exported over OTLP: its own
	// variable, else the general one.
	for _, sig := range []struct {
		on                            bool
		exporterVar, protoVar, signal string
	}{
		{traces, "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "TRACES_"},
		{metrics, "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "METRICS_"},
	} {
		if n := names(sig.exporterVar); !sig.on || (len(n) > 0 && !n["otlp"]) {
			continue
		}
		v := sig.protoVar
		if os.Getenv(v) == "" {
			v = "OTEL_EXPORTER_OTLP_PROTOCOL"
		}
		proto := strings.TrimSpace(os.Getenv(v))
		switch proto {
		case "", "http/protobuf", "grpc":
		default:
			errs = append(errs, fmt.Errorf("telemetry: %s=%q: expected http/protobuf or grpc", v, proto))
		}
		errs = append(errs, checkOTLPEnv(sig.signal, proto == "grpc")...)
	}
	return errors.Join(errs...)
}

// Bounds of the SDK's numeric settings that Setup accepts: a queue or
// batch of spans is allocated at its full size when the provider is made
// (two billion panics or exhausts memory), and an interval of zero or
// less would spin.
const (
	// maxSpanQueue is the most spans OTEL_BSP_MAX_QUEUE_SIZE and
	// OTEL_BSP_MAX_EXPORT_BATCH_SIZE may hold: 16,777,216, 256 MiB of
	// slots allocated at start (two billion exhausted memory).
	maxSpanQueue = 1 << 24
	// maxSDKMillis is the longest interval in milliseconds the SDK can
	// hold as a time.Duration.
	maxSDKMillis = math.MaxInt64 / int64(time.Millisecond)
)

// samplers are the values of OTEL_TRACES_SAMPLER that Go's SDK serves (it
// reads them case-insensitively); the ratio ones read
// OTEL_TRACES_SAMPLER_ARG.
var samplers = map[string]bool{"always_on": false, "always_off": false, "traceidratio": true,
	"parentbased_always_on": false, "parentbased_always_off": false, "parentbased_traceidratio": true}

// otherSamplers are the specification's samplers Go's SDK does not serve:
// an environment shared with other languages' services may name them, and
// the SDK logs them and samples as parentbased_always_on, as the
// specification asks of an unknown one. They are let through.
var otherSamplers = map[string]bool{"jaeger_remote": true, "parentbased_jaeger_remote": true, "xray": true}

// checkSDKEnv refuses the SDK settings it would log and then replace by
// its default (a sampler no specification names, a ratio outside 0…1, an
// interval that is not a positive whole number of milliseconds, an
// exemplar filter it does not know), or that would make it panic or
// exhaust memory when the provider is made (a negative or huge span queue
// or batch size), or spin (a schedule delay of 0): each names its
// variable, what was expected, and the value (these carry no secrets).
func checkSDKEnv(traces, metrics bool) []error {
	var errs []error
	get := func(v string) string { return strings.TrimSpace(os.Getenv(v)) }
	integer := func(v string, least, most int64) {
		raw := os.Getenv(v) // the SDK reads it untrimmed
		if raw == "" {
			return
		}
		if n, err := strconv.ParseInt(raw, 10, 64); err != nil || n < least || n > most {
			errs = append(errs, fmt.Errorf("telemetry: %s=%q: expected a whole number from %d to %d", v, os.Getenv(v), least, most))
		}
	}
	if traces {
		if name := strings.ToLower(get("OTEL_TRACES_SAMPLER")); name != "" {
			ratio, known := samplers[name]
			switch {
			case !known && !otherSamplers[name]:
				errs = append(errs, fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER=%q: expected always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio (or jaeger_remote, parentbased_jaeger_remote, xray, which this SDK samples as parentbased_always_on)", os.Getenv("OTEL_TRACES_SAMPLER")))
			case ratio && get("OTEL_TRACES_SAMPLER_ARG") != "":
				if r, err := strconv.ParseFloat(get("OTEL_TRACES_SAMPLER_ARG"), 64); err != nil || !(r >= 0 && r <= 1) {
					errs = append(errs, fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER_ARG=%q: expected the ratio of traces sampled, from 0 to 1 (such as 0.25)", os.Getenv("OTEL_TRACES_SAMPLER_ARG")))
				}
			}
		}
		integer("OTEL_BSP_SCHEDULE_DELAY", 1, maxSDKMillis)
		integer("OTEL_BSP_EXPORT_TIMEOUT", 0, maxSDKMillis) // 0: no timeout
		integer("OTEL_BSP_MAX_QUEUE_SIZE", 1, maxSpanQueue)
		integer("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1, maxSpanQueue)
		for _, v := range []string{"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT",
			"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_EVENT_COUNT_LIMIT",
			"OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_LINK_COUNT_LIMIT", "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT"} {
			if raw := os.Getenv(v); raw != "" {
				if _, err := strconv.Atoi(raw); err != nil {
					errs = append(errs, fmt.Errorf("telemetry: %s=%q: expected a whole number (a negative one for no limit)", v, raw))
				}
			}
		}
	}
	if metrics {
		integer("OTEL_METRIC_EXPORT_INTERVAL", 1, maxSDKMillis)
		integer("OTEL_METRIC_EXPORT_TIMEOUT", 1, maxSDKMillis)
		switch f := strings.ToLower(get("OTEL_METRICS_EXEMPLAR_FILTER")); f {
		case "", "always_on", "always_off", "trace_based":
		default:
			errs = append(errs, fmt.Errorf("telemetry: OTEL_METRICS_EXEMPLAR_FILTER=%q: expected always_on, always_off or trace_based", os.Getenv("OTEL_METRICS_EXEMPLAR_FILTER")))
		}
	}
	return errs
}

// checkOTLPEnv refuses the OTLP settings of one signal ("TRACES_" or
// "METRICS_") that the SDK would log and then ignore, exporting with its
// defaults instead: an endpoint that is not an http or https URL (spans
// would go to localhost:4318), a header entry it cannot read (an
// Authorization header silently dropped), a timeout that is not a whole
// number of milliseconds, a compression other than gzip or none. Each
// general variable is checked as well as the signal's own, since the SDK
// reads both. Header values and URL passwords are never repeated: they
// carry secrets.
func checkOTLPEnv(signal string, grpc bool) []error {
	var errs []error
	// As the SDK reads them: spaces around a value do not count.
	get := func(v string) string { return strings.TrimSpace(os.Getenv(v)) }
	for _, prefix := range []string{"OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_" + signal} {
		if v := prefix + "ENDPOINT"; get(v) != "" {
			if err := checkEndpoint(get(v), grpc); err != nil {
				errs = append(errs, fmt.Errorf("telemetry: %s: %w", v, err))
			}
		}
		if v := prefix + "HEADERS"; get(v) != "" {
			if err := checkHeaders(get(v)); err != nil {
				errs = append(errs, fmt.Errorf("telemetry: %s: %w", v, err))
			}
		}
		if v := prefix + "TIMEOUT"; get(v) != "" {
			if ms, err := strconv.Atoi(get(v)); err != nil || ms < 0 {
				errs = append(errs, fmt.Errorf("telemetry: %s=%q: expected a whole number of milliseconds, such as 10000", v, get(v)))
			}
		}
		if v := prefix + "COMPRESSION"; get(v) != "" {
			switch raw := get(v); raw {
			case "gzip", "none":
			default:
				errs = append(errs, fmt.Errorf("telemetry: %s=%q: expected gzip or none", v, raw))
			}
		}
	}
	return errs
}

// checkResourceAttributes accepts the SDK's attribute list: comma-separated
// key=value entries, keys not empty, values percent-encoded. The SDK drops
// the whole list, with a message, when one entry is wrong.
func checkResourceAttributes(raw string) error {
	for i, entry := range strings.Split(raw, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		key, value, found := strings.Cut(entry, "=")
		key = strings.TrimSpace(key)
		switch {
		case !found:
			return fmt.Errorf("entry %d has no '=': expected key=value pairs separated by commas", i+1)
		case key == "":
			return fmt.Errorf("entry %d has an empty key", i+1)
		}
		if _, err := url.PathUnescape(value); err != nil {
			return fmt.Errorf("entry %d (%s): the value is not valid percent-encoding", i+1, key)
		}
	}
	return nil
}

// checkEndpoint accepts an http or https URL naming a host; over gRPC,
// whose targets take other forms too (collector:4317, dns:///…, unix:…),
// anything that parses as a URL. The example it gives is for the protocol
// in use: OTLP/gRPC's port is 4317, OTLP/HTTP's 4318.
func checkEndpoint(raw string, grpc bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		if grpc {
			return errors.New("not a URL; expected one such as http://collector:4317 (https://collector:4317 for TLS)")
		}
		return errors.New("not a URL; expected one such as http://collector:4318")
	}
	if grpc {
		return nil
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		u.RawQuery, u.Fragment = "", "" // may hold a key; the password is hidden by Redacted
		return fmt.Errorf("%q: expected an http or https URL with a host, such as http://collector:4318", u.Redacted())
	}
	return nil
}

// checkHeaders accepts the SDK's header list: comma-separated
// name=value entries, names HTTP tokens, values percent-encoded.
func checkHeaders(raw string) error {
	for i, entry := range strings.Split(raw, ",") {
		if strings.TrimSpace(entry) == "" {
			continue // a trailing comma
		}
		name, value, found := strings.Cut(entry, "=")
		name = strings.TrimSpace(name)
		switch {
		case !found:
			return fmt.Errorf("entry %d has no '=': expected name=value pairs separated by commas", i+1)
		case !httpguts.ValidHeaderFieldName(name):
			return fmt.Errorf("entry %d: %q is not a header name", i+1, name)
		}
		if _, err := url.PathUnescape(value); err != nil {
			return fmt.Errorf("entry %d (%s): the value is not valid percent-encoding", i+1, name)
		}
	}
	return nil
}

// wanted reports whether the environment turns a signal on: its exporter
// variable names one other than "none", or it is unset and an OTLP
// endpoint (the general one or the signal's) is set.
func wanted(exporterVar, endpointVar string) bool {
	if v := strings.TrimSpace(os.Getenv(exporterVar)); v != "" {
		n := names(exporterVar)
		return len(n) > 0 && !(len(n) == 1 && n["none"])
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv(endpointVar) != ""
}

// names is the set of exporter names of a comma-separated variable.
func names(v string) map[string]bool {
	out := map[string]bool{}
	for _, n := range strings.Split(os.Getenv(v), ",") {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			out[n] = true
		}
	}
	return out
}

// keyServiceName is the resource attribute naming the service.
const keyServiceName = attribute.Key("service.name")

// newResource is the SDK's default resource with the attributes of
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, and service.name set to
// name when the environment leaves it to the default.
//
// Whether the environment sets service.name is read from its attributes
// as the SDK parses them (resource.Environment: keys and values trimmed,
// values percent-decoded, OTEL_SERVICE_NAME first), not from the text: a
// key that merely ends in service.name (app.service.name) is not it, and
// "service.name =foo" is. An empty value names no service. The attributes
// are read here rather than taken from resource.Default alone, which reads
// the environment once per process.
func newResource(name string) (*resource.Resource, error) {
	env := resource.Environment()
	res, err := resource.Merge(resource.Default(), env)
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	if v, ok := env.Set().Value(keyServiceName); name == "" || (ok && v.Emit() != "") {
		return res, nil
	}
	merged, err := resource.Merge(res, resource.NewSchemaless(keyServiceName.String(name)))
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	return merged, nil
}
