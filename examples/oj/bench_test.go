package main

import (
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchCalls is how many get_problem calls one measurement makes.
const benchCalls = 1000

// measure makes benchCalls get_problem calls on s, one after the other,
// and returns the rate in calls per second.
func measure(b *testing.B, s *sdk.ClientSession) float64 {
	b.Helper()
	args := map[string]any{"source": "leetcode", "id": "1"}
	start := time.Now()
	for range benchCalls {
		res, err := s.CallTool(b.Context(), &sdk.CallToolParams{Name: "get_problem", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("get_problem failed: %v %+v", err, res)
		}
	}
	return benchCalls / time.Since(start).Seconds()
}

// BenchmarkStdioGetProblem drives the built examples/oj server (and the
// reference server when OJ_REF_BIN is set) over stdio with the go-sdk
// client: 1,000 get_problem calls per server per iteration against the
// mock backend on 127.0.0.1. It reports ours_calls/s and, with the
// reference, ref_calls/s and ratio (ours / reference; the goal is ≥ 1).
// Run it with -benchtime=1x for exactly 1,000 calls per server.
func BenchmarkStdioGetProblem(b *testing.B) {
	_, url := backend(b, "")
	ours := connect(b, ourBin, []string{"--base-url", url})
	var ref *sdk.ClientSession
	if p := os.Getenv("OJ_REF_BIN"); p != "" {
		ref = connect(b, p, []string{"--base-url", url})
	}
	// Warm both up (connections, caches) outside the measurement.
	for _, s := range []*sdk.ClientSession{ours, ref} {
		if s != nil {
			call(b, s, "get_problem", map[string]any{"source": "leetcode", "id": "1"})
		}
	}
	var oursRate, refRate float64
	n := 0
	for b.Loop() {
		// Alternate the order so neither server always runs first.
		if n%2 == 0 {
			oursRate += measure(b, ours)
			if ref != nil {
				refRate += measure(b, ref)
			}
		} else {
			if ref != nil {
				refRate += measure(b, ref)
			}
			oursRate += measure(b, ours)
		}
		n++
	}
	b.ReportMetric(oursRate/float64(n), "ours_calls/s")
	if ref != nil {
		b.ReportMetric(refRate/float64(n), "ref_calls/s")
		b.ReportMetric(oursRate/refRate, "ratio")
	}
}
