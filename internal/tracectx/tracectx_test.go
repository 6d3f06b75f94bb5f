package tracectx_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolpack-go/toolpack/internal/tracectx"
	"github.com/toolpack-go/toolpack/registry"
)

const (
	metaParent   = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	headerParent = "00-11111111111111111111111111111111-2222222222222222-01"
)

// Each field of the caller's context comes from the request's _meta when
// it is there and readable, else from its HTTP headers: baggage in _meta
// counts without a traceparent beside it (over stdio it was dropped), a
// malformed traceparent in _meta leaves the header's, and _meta wins over
// the headers field by field.
func TestFromRequest_EachFieldFromMetaElseHeaders(t *testing.T) {
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	read := func(meta map[string]any, header http.Header) (string, string) {
		ctx := registry.WithRequest(context.Background(), &registry.RequestInfo{Transport: "mcp", Meta: meta, Header: header})
		out := tracectx.FromRequest(ctx, prop)
		sc := trace.SpanContextFromContext(out)
		parent := ""
		if sc.IsValid() {
			parent = sc.TraceID().String()
		}
		return parent, baggage.FromContext(out).Member("tenant").Value()
	}
	hdr := http.Header{"Traceparent": {headerParent}, "Baggage": {"tenant=header"}}

	parent, tenant := read(map[string]any{"baggage": "tenant=acme"}, nil)
	assert.Equal(t, "", parent)
	assert.Equal(t, "acme", tenant, "baggage alone in _meta (stdio)")

	parent, tenant = read(map[string]any{"baggage": "tenant=acme"}, hdr)
	assert.Equal(t, "11111111111111111111111111111111", parent, "the header's traceparent")
	assert.Equal(t, "acme", tenant, "_meta's baggage over the header's")

	parent, tenant = read(map[string]any{"traceparent": "00-bad"}, hdr)
	assert.Equal(t, "11111111111111111111111111111111", parent, "a malformed traceparent in _meta leaves the header's")
	assert.Equal(t, "header", tenant)

	parent, _ = read(map[string]any{"traceparent": metaParent}, hdr)
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", parent, "_meta wins")

	parent, tenant = read(nil, nil)
	assert.Equal(t, "", parent)
	assert.Equal(t, "", tenant)
}
