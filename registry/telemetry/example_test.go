package telemetry_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/telemetry"
	"github.com/toolpack-go/toolpack/result"
)

type readArgs struct {
	Handle string `json:"handle" validate:"required" description:"The stored output's handle."`
	Limit  int    `json:"limit" description:"Lines to read."`
}

// A host traces its registry's calls: here into an in-memory recorder; a
// server passes the providers of Setup, which exports by the OTEL_*
// environment variables.
func ExampleMiddleware() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	mw, err := telemetry.Middleware(telemetry.Options{TracerProvider: tp, MeterProvider: sdkmetric.NewMeterProvider()})
	if err != nil {
		panic(err)
	}
	reg := registry.New(registry.Options{})
	reg.UseOuter(mw)
	pk := &registry.Pack{Name: "out", Description: "Stored outputs."}
	_ = registry.AddFunc(pk, "out.read", func(_ context.Context, a readArgs) (result.Result[string], error) {
		return result.Ok("line 1"), nil
	}, registry.ToolOptions{Doc: "Reads a stored output.", TraceArgs: []string{"handle"}})
	if err := reg.AddPack(pk); err != nil {
		panic(err)
	}
	_, _ = reg.Invoke(context.Background(), "out.read", json.RawMessage(`{"handle":"abc123","limit":5}`))
	s := spans.Ended()[0]
	fmt.Println(s.Name())
	for _, kv := range s.Attributes() {
		fmt.Printf("%s=%s\n", kv.Key, kv.Value.String())
	}
	// Output:
	// out.read
	// gen_ai.operation.name=execute_tool
	// gen_ai.tool.name=out.read
	// toolpack.pack=out
	// handle=abc123
}
