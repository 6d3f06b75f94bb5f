// Package tracectx reads the trace context of the agent that called a
// tool from the request an adapter attached to the call's context
// (registry.Request), so that the telemetry middleware's span and a
// proxied call forwarded by a host that does not trace join the caller's
// trace alike; and it decides, from OTEL_PROPAGATORS, the propagators
// both read and send that context with.
package tracectx

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/contrib/propagators/autoprop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/registry"
)

// FromRequest returns ctx when it carries a span of its own (a toolpack
// host's tool span, or its caller's in a nested call). Otherwise it
// returns ctx with the caller's trace context, read by prop from the
// request registry.Request(ctx) describes: each field (traceparent,
// baggage, …) from the MCP request's _meta (any transport) when it is
// there and readable, else from the HTTP headers (REST, MCP over
// streamable HTTP). What prop cannot read (a malformed traceparent) is
// left out; with neither, ctx is returned as it is. Baggage in _meta
// counts without a traceparent beside it (over stdio, the only carrier).
func FromRequest(ctx context.Context, prop propagation.TextMapPropagator) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	info := registry.Request(ctx)
	// Headers first, then _meta over them: each propagator leaves the
	// context as it is for a field the carrier lacks or cannot read.
	if info.Header != nil {
		ctx = prop.Extract(ctx, propagation.HeaderCarrier(info.Header))
	}
	if info.Meta != nil {
		ctx = prop.Extract(ctx, mcpmap.MetaCarrier(info.Meta))
	}
	return ctx
}

// EnvPropagators is the environment variable naming the propagators.
const EnvPropagators = "OTEL_PROPAGATORS"

// FromEnv returns the propagator OTEL_PROPAGATORS names, or def when it is
// unset or blank. Its value is a comma-separated list of tracecontext,
// baggage, b3, b3multi, jaeger, xray and ottrace (autoprop's names;
// spaces around a name and empty entries are ignored, case is not), or
// none: no context is read from clients nor sent on. An unknown name is
// an error naming the variable, not a silent default.
//
// The environment is read at each call: callers take the propagator once,
// when they are built.
func FromEnv(def propagation.TextMapPropagator) (propagation.TextMapPropagator, error) {
	raw := os.Getenv(EnvPropagators)
	var names []string
	for n := range strings.SplitSeq(raw, ",") {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return def, nil
	}
	prop, err := autoprop.TextMapPropagator(names...)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w; expected a comma-separated list of tracecontext, baggage, b3, b3multi, jaeger, xray, ottrace, or none",
			EnvPropagators, raw, err)
	}
	return prop, nil
}
