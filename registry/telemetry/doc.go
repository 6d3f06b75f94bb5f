// Package telemetry traces and measures tool calls with OpenTelemetry: a
// registry middleware that opens a span per call and records call counts,
// durations, failures by error type and bytes in and out, and Setup, which
// builds the tracer and meter providers from the standard OTEL_*
// environment variables.
//
// # The middleware
//
// Install it once, with Registry.UseOuter so that it sees every call,
// also those refused for their arguments:
//
//	p, err := telemetry.Setup(ctx, telemetry.SetupOptions{ServiceName: "my-host"})
//	…
//	defer p.Shutdown(context.Background())
//	mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: p.TracerProvider, MeterProvider: p.MeterProvider})
//	reg.UseOuter(mw)
//
// Each call gets a span named after the tool as it was declared
// (Tool.BaseName: "ot.tools", "ot.result", "oj.get_problem"), so the name
// does not change with a registry prefix. Its attributes:
//
//	gen_ai.operation.name   "execute_tool"
//	gen_ai.tool.name        the tool's final name (Tool.Name; a call through an
//	                        alias is recorded under the tool it runs)
//	toolpack.pack           the tool's pack
//	error.type              on failure: the failure's error type ("unknown" when it names none),
//	                        or cancelled, timeout or protocol_error for a protocol failure
//
// A span joins the trace of the agent that made the call: when the call's
// context carries no span, the caller's W3C trace context (traceparent,
// tracestate, baggage) is read from the request the adapter attached
// (registry.Request): the MCP request's params._meta, on any transport,
// then the HTTP headers (REST, MCP over streamable HTTP). Calls a tool
// makes itself (a snippet's steps) are children of its span, and a proxied
// tool (adapters/mcpproxy) passes the trace on to its remote server.
//
// OTEL_PROPAGATORS, when set, names the formats instead (a comma-separated
// list of tracecontext, baggage, b3, b3multi, jaeger, xray and ottrace),
// for this middleware and adapters/mcpproxy alike; none reads no context
// from clients and sends none to remote servers. An unknown name is
// refused (Middleware and mcpproxy.New fail naming the variable).
// Options.Propagator, when set, wins.
//
// A failed call's span has status Error with the error type as its
// description; a protocol failure adds an "exception" event carrying its
// error type only. Neither a protocol error's text (a URL built from the
// arguments, say; the Logging middleware logs it for the operator) nor a
// domain failure's (written for the model, often quoting the arguments)
// is recorded.
//
// A panic below the middleware that the handler's own recovery does not
// catch (in middleware added with Use) still ends the span and counts the
// call, as internal_error with an "exception" event carrying that type
// only (never the panic's value); the panic goes on to the registry's
// Recover, which answers the call with that failure.
//
// No argument value is recorded unless the tool names the argument in
// Tool.TraceArgs (registry.ToolOptions.TraceArgs): then its value is an
// attribute keyed by the argument's name — ot.result's span carries
// handle, offset, limit and search, as seed 001 asks. An argument the
// call leaves out is recorded with its input schema's default, the value
// the tool ran with. Strings are cut at MaxArgAttrBytes.
//
// Metrics (instrumentation scope "github.com/toolpack-go/toolpack/registry/telemetry"),
// each with the attributes gen_ai.tool.name and toolpack.pack, failures
// also with error.type (past 64 distinct types of one tool, "other": a
// tool inventing types cannot grow the metrics without end):
//
//	toolpack.tool.calls      counter, {call}
//	toolpack.tool.failures   counter, {call}, by error.type
//	toolpack.tool.duration   histogram, s (bounds DurationBuckets: 0.1 ms to 5 min)
//	toolpack.tool.bytes_in   counter, By: the size of the raw arguments
//	toolpack.tool.bytes_out  counter, By: the size of the value (as the stats middleware
//	                         counts it) or of the failure's text
//
// Setup bounds each instrument's series at SetupOptions.MetricSeries
// (DefaultMetricSeries, 20,000: one series per tool, so a catalogue's
// tools keep theirs), past which the SDK merges further series into one
// marked otel.metric.overflow=true.
//
// Installed with UseOuter, it traces and counts the calls refused for
// their arguments too (error.type validation_error); installed with Use,
// it sees only calls whose arguments passed. Calls refused before any
// middleware (unknown or disabled tools) are neither traced nor counted.
//
// # Exporters from the environment
//
// Setup reads the OpenTelemetry SDK's environment variables and exports
// nothing when none is set: no variable, no network traffic. Tracing is
// on when OTEL_TRACES_EXPORTER names an exporter other than "none", or
// when it is unset and OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (then OTLP, over
// OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf by default, or grpc);
// metrics likewise with OTEL_METRICS_EXPORTER and
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT. OTEL_SDK_DISABLED=true turns both
// off. Everything else — headers, timeouts, the sampler
// (OTEL_TRACES_SAMPLER), resource attributes and OTEL_SERVICE_NAME — is
// read by the SDK as its documentation says. Where the SDK would log a
// malformed OTLP setting and go on with its default (an endpoint that is
// not an http or https URL, a header entry without "=", a timeout that is
// not whole milliseconds, an unknown compression), Setup refuses it at
// start naming the variable, without repeating header values or URL
// passwords. So are the SDK's own settings it would log and replace by
// its default — an OTEL_TRACES_SAMPLER no specification names (the ones
// other SDKs serve, jaeger_remote, parentbased_jaeger_remote and xray,
// pass: Go's SDK samples as parentbased_always_on), an
// OTEL_TRACES_SAMPLER_ARG outside 0…1, an OTEL_BSP_* or
// OTEL_METRIC_EXPORT_* interval that is not a positive whole number of
// milliseconds (OTEL_BSP_EXPORT_TIMEOUT may be 0, no timeout), an unknown
// OTEL_METRICS_EXEMPLAR_FILTER, a span limit that is not a whole number —
// and span queues or batches (OTEL_BSP_MAX_QUEUE_SIZE,
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE) outside 1…16,777,216, which the SDK
// allocates whole when the provider is made (a negative size panics, two
// billion exhausts memory). A signal that is not exported has its
// settings left alone. The "console" exporters
// write to standard output; with SetupOptions.StdoutReserved (an MCP
// server on stdio) Setup refuses them.
package telemetry
