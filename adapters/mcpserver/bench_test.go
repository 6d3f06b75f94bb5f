package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// The benchmark's 5-field tool, shared with the HTTP adapter's benchmark.
type (
	SearchArgs = benchtool.SearchArgs
	SearchOut  = benchtool.SearchOut
)

// searchImpl is the one function both registrations call.
var searchImpl = benchtool.Search

var benchArgs = json.RawMessage(`{"query":"golang mcp","limit":10,"mode":"fast","threshold":0.5,"tags":["go","sdk","bench"]}`)

// newAdapterSession serves the search tool through this adapter (registry
// pipeline: strict decode, validation, output schema check).
func newAdapterSession(b testing.TB, d mcpserver.Display) *session {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	tool, err := registry.Func("search", func(_ context.Context, a SearchArgs) (result.Result[SearchOut], error) {
		return result.Ok(searchImpl(a)), nil
	}, registry.ToolOptions{Doc: "Searches."})
	require.NoError(b, err)
	require.NoError(b, reg.Add(tool))
	return connect(b, mcpserver.NewServer(reg, mcpserver.Options{Display: d, Logger: discardLogger()}))
}

// newSDKSession serves the same function through the SDK's own typed
// AddTool, given the same input schema (so it validates the same
// constraints) and inferring the output schema from SearchOut.
func newSDKSession(b testing.TB) *session {
	in, err := args.SchemaFor[SearchArgs]()
	require.NoError(b, err)
	srv := sdk.NewServer(&sdk.Implementation{Name: "sdk"}, &sdk.ServerOptions{Logger: discardLogger()})
	sdk.AddTool(srv, &sdk.Tool{Name: "search", Description: "Searches.", InputSchema: in},
		func(_ context.Context, _ *sdk.CallToolRequest, a SearchArgs) (*sdk.CallToolResult, SearchOut, error) {
			return nil, searchImpl(a), nil
		})
	return connect(b, srv)
}

func callSearch(b testing.TB, s *session) {
	res, err := s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search", Arguments: benchArgs})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("tool error: %s", res.Content[0].(*sdk.TextContent).Text)
	}
}

// TestBenchmarkToolsAgree makes sure the benchmark compares like with like:
// both paths accept the call, reject the same bad call, and return the
// same structured value.
func TestBenchmarkToolsAgree(t *testing.T) {
	ours, theirs := newAdapterSession(t, mcpserver.DisplayValue), newSDKSession(t)
	for _, a := range []string{string(benchArgs), `{"query":"","limit":99,"mode":"slow","tags":[]}`} {
		r1, err := ours.call(t, "search", json.RawMessage(a))
		require.NoError(t, err)
		r2, err := theirs.call(t, "search", json.RawMessage(a))
		require.NoError(t, err)
		require.Equal(t, r2.IsError, r1.IsError, "same verdict for %s", a)
		if !r1.IsError {
			b1, _ := json.Marshal(r1.StructuredContent)
			b2, _ := json.Marshal(r2.StructuredContent)
			require.JSONEq(t, string(b2), string(b1))
		}
	}
}

// BenchmarkToolsCall measures tools/call of the 5-field tool over in-memory
// transports: the SDK's typed path (the baseline) and this adapter in both
// displays. The ratio sub-benchmarks interleave adapter and baseline calls
// in one loop and report the ratio of median call times as "ratio" (goal
// ≤ 1.0) and the ratio of total times as "mean-ratio".
func BenchmarkToolsCall(b *testing.B) {
	b.Run("sdk_typed", func(b *testing.B) {
		s := newSDKSession(b)
		b.ReportAllocs()
		for b.Loop() {
			callSearch(b, s)
		}
	})
	for _, d := range []mcpserver.Display{mcpserver.DisplayValue, mcpserver.DisplayEnvelope} {
		b.Run("adapter_"+d.String(), func(b *testing.B) {
			s := newAdapterSession(b, d)
			b.ReportAllocs()
			for b.Loop() {
				callSearch(b, s)
			}
		})
	}
	for _, d := range []mcpserver.Display{mcpserver.DisplayValue, mcpserver.DisplayEnvelope} {
		b.Run(fmt.Sprintf("ratio_%s_vs_sdk", d), func(b *testing.B) {
			ours, base := newAdapterSession(b, d), newSDKSession(b)
			mOurs, mBase := benchtool.Interleave(b, func() { callSearch(b, ours) }, func() { callSearch(b, base) })
			b.ReportMetric(float64(mOurs.Nanoseconds()), "adapter-median-ns/call")
			b.ReportMetric(float64(mBase.Nanoseconds()), "sdk-median-ns/call")
		})
	}
}

// pipeSession serves the test registry over two os.Pipe pairs with the
// transport mk returns and connects an SDK client to the other ends.
func pipeSession(b *testing.B, mk func(r, w *os.File) sdk.Transport) *sdk.ClientSession {
	sr, cw, err := os.Pipe()
	require.NoError(b, err)
	cr, sw, err := os.Pipe()
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	srv := mcpserver.NewServer(newTestRegistry(b), mcpserver.Options{Display: mcpserver.DisplayValue, Logger: discardLogger()})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(ctx, mk(sr, sw))
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	require.NoError(b, err)
	b.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-done
		for _, f := range []*os.File{sr, cw, cr, sw} {
			_ = f.Close()
		}
	})
	return cs
}

func callGreet(b *testing.B, cs *sdk.ClientSession) {
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Bench", "times": 2}})
	if err != nil || res.IsError {
		b.Fatalf("greet failed: %v %+v", err, res)
	}
}

// BenchmarkStdioTransport measures tools/call over OS pipes (what a stdio
// server sees) with this package's IOTransport against the SDK's own
// IOTransport as the baseline, same server, same client. "ratio" is the
// median call time with ours over the baseline's, one call of each
// alternating in the same loop (goal ≤ 1.0); "mean-ratio" is the ratio of
// the totals.
func BenchmarkStdioTransport(b *testing.B) {
	ours := func(r, w *os.File) sdk.Transport {
		return &mcpstdio.IOTransport{Reader: r, Writer: w, Logger: discardLogger()}
	}
	theirs := func(r, w *os.File) sdk.Transport { return &sdk.IOTransport{Reader: r, Writer: w} }
	b.Run("toolpack", func(b *testing.B) {
		cs := pipeSession(b, ours)
		b.ReportAllocs()
		for b.Loop() {
			callGreet(b, cs)
		}
	})
	b.Run("sdk", func(b *testing.B) {
		cs := pipeSession(b, theirs)
		b.ReportAllocs()
		for b.Loop() {
			callGreet(b, cs)
		}
	})
	b.Run("ratio_toolpack_vs_sdk", func(b *testing.B) {
		a, base := pipeSession(b, ours), pipeSession(b, theirs)
		benchtool.Interleave(b, func() { callGreet(b, a) }, func() { callGreet(b, base) })
	})
}
