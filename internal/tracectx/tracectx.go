// Package tracectx reads the trace context of the agent that called a
// tool from the request an adapter attached to the call's context
// (registry.Request), so that the telemetry middleware's span and a
// proxied call forwarded by a host that does not trace join the caller's
// trace alike.
package tracectx

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/registry"
)

// FromRequest returns ctx when it carries a span of its own (a toolpack
// host's tool span, or its caller's in a nested call). Otherwise it
// returns ctx with the caller's trace context, read by prop from the
// request registry.Request(ctx) describes: the MCP request's _meta first
// (any transport), then the HTTP headers (REST, MCP over streamable HTTP).
// What prop cannot read (a malformed traceparent) is left out; with
// neither, ctx is returned as it is.
func FromRequest(ctx context.Context, prop propagation.TextMapPropagator) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	info := registry.Request(ctx)
	if info.Meta != nil {
		if out := prop.Extract(ctx, mcpmap.MetaCarrier(info.Meta)); trace.SpanContextFromContext(out).IsValid() {
			return out
		}
	}
	if info.Header != nil {
		return prop.Extract(ctx, propagation.HeaderCarrier(info.Header))
	}
	return ctx
}
