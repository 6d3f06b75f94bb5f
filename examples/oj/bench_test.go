package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
)

// Shape of one measurement: benchRounds rounds of benchRoundCalls calls per
// server, so benchRounds×benchRoundCalls = 1,000 get_problem calls each.
const (
	benchRounds     = 10
	benchRoundCalls = 100
)

// countingBackend is the mock backend on 127.0.0.1 with a count of the TCP
// connections it has accepted (to see whether a server reuses them).
type countingBackend struct {
	url   string
	conns atomic.Int64
}

func newCountingBackend(tb testing.TB) *countingBackend {
	tb.Helper()
	cb := &countingBackend{}
	srv := httptest.NewUnstartedServer(mockbackend.New(mockbackend.Options{}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cb.conns.Add(1)
		}
	}
	srv.Start()
	tb.Cleanup(srv.Close)
	cb.url = srv.URL
	return cb
}

// round makes n get_problem calls on s, one after the other, each with the
// arguments the next call of args returns, and returns the rate in calls
// per second.
func round(b *testing.B, s *sdk.ClientSession, n int, args func() map[string]any) float64 {
	b.Helper()
	start := time.Now()
	for range n {
		res, err := s.CallTool(b.Context(), &sdk.CallToolParams{Name: "get_problem", Arguments: args()})
		if err != nil || res.IsError {
			b.Fatalf("get_problem failed: %v %+v", err, res)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}

// sameProblem is the workload: the same problem every call.
func sameProblem() func() map[string]any {
	args := map[string]any{"source": "leetcode", "id": "1"}
	return func() map[string]any { return args }
}

// distinctProblems asks for a different problem every call (a statement of
// the same shape naming its id: see mockbackend), so that no conversion is
// ever served from a memo. Each server gets its own sequence.
func distinctProblems() func() map[string]any {
	n := 0
	return func() map[string]any {
		n++
		return map[string]any{"source": "leetcode", "id": "distinct-" + strconv.Itoa(n)}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkStdioGetProblem drives the built examples/oj server (and the
// reference server when OJ_REF_BIN is set) over stdio with the go-sdk
// client against the mock backend on 127.0.0.1: per iteration, 1,000
// get_problem calls of the same problem per server in benchRounds rounds
// of benchRoundCalls, the two servers alternating round by round (and which
// goes first alternating too), so that load from other processes on a
// shared machine hits both alike.
//
// Metrics: ours_calls/s and ref_calls/s are the medians of the per-round
// rates; ratio is ours/ref of those medians and paired_ratio the median of
// the per-round ratios (goal: ≥ 1). backend_req/s is the mock backend's
// own sequential rate (a keep-alive Go client, measured in the same run):
// it must be far above both servers' rates for the backend not to be the
// bottleneck. ours_conns and ref_conns count the backend connections each
// server opened during the measured calls (0: the connection opened during
// the warm-up is kept alive and reused). ours_cpu_µs/call and
// ref_cpu_µs/call are each server process's CPU time (user + system, from
// /proc, 10 ms ticks) per measured call; 0 where /proc is unavailable.
//
// OJ_OUR_BIN, when set, replaces the examples/oj build under test (for
// example a build with -tags ojprofile writing a CPU profile to the file
// named by OJ_CPUPROFILE).
//
// Run it with -benchtime=1x (one iteration = 1,000 calls per server).
func BenchmarkStdioGetProblem(b *testing.B) { benchStdio(b, sameProblem) }

// BenchmarkStdioGetProblemDistinct is BenchmarkStdioGetProblem with a
// different problem statement on every call, so that our server's memo of
// conversions never hits: every call converts its HTML, as the reference
// always does.
func BenchmarkStdioGetProblemDistinct(b *testing.B) { benchStdio(b, distinctProblems) }

func benchStdio(b *testing.B, workload func() func() map[string]any) {
	cb := newCountingBackend(b)
	bin := ourBin
	if p := os.Getenv("OJ_OUR_BIN"); p != "" {
		bin = p // another build of examples/oj, e.g. -tags ojprofile
	}
	ours, oursCmd := connectCmd(b, bin, []string{"--base-url", cb.url})
	oursArgs := workload()
	var ref *sdk.ClientSession
	var refCmd *exec.Cmd
	refArgs := workload()
	if p := os.Getenv("OJ_REF_BIN"); p != "" {
		ref, refCmd = connectCmd(b, p, []string{"--base-url", cb.url})
	}
	// Warm both up (process start, first connection) outside the measurement.
	round(b, ours, 20, oursArgs)
	if ref != nil {
		round(b, ref, 20, refArgs)
	}
	var oursRates, refRates, paired, backendRates []float64
	var oursConns, refConns int64
	var oursCPU, refCPU time.Duration
	timed := func(s *sdk.ClientSession, cmd *exec.Cmd, args func() map[string]any, conns *int64, cpu *time.Duration) float64 {
		before, cpu0 := cb.conns.Load(), processCPU(cmd)
		r := round(b, s, benchRoundCalls, args)
		*conns += cb.conns.Load() - before
		*cpu += processCPU(cmd) - cpu0
		return r
	}
	n := 0
	for b.Loop() {
		for i := range benchRounds {
			var o, r float64
			if ref != nil && (n*benchRounds+i)%2 == 1 {
				r = timed(ref, refCmd, refArgs, &refConns, &refCPU)
				o = timed(ours, oursCmd, oursArgs, &oursConns, &oursCPU)
			} else {
				o = timed(ours, oursCmd, oursArgs, &oursConns, &oursCPU)
				if ref != nil {
					r = timed(ref, refCmd, refArgs, &refConns, &refCPU)
				}
			}
			oursRates = append(oursRates, o)
			if ref != nil {
				refRates = append(refRates, r)
				paired = append(paired, o/r)
			}
		}
		backendRates = append(backendRates, backendRate(b, cb.url))
		n++
	}
	calls := float64(n * benchRounds * benchRoundCalls)
	b.ReportMetric(median(oursRates), "ours_calls/s")
	b.ReportMetric(float64(oursConns)/float64(n), "ours_conns")
	b.ReportMetric(float64(oursCPU.Microseconds())/calls, "ours_cpu_µs/call")
	b.ReportMetric(median(backendRates), "backend_req/s")
	if ref != nil {
		b.ReportMetric(median(refRates), "ref_calls/s")
		b.ReportMetric(float64(refConns)/float64(n), "ref_conns")
		b.ReportMetric(float64(refCPU.Microseconds())/calls, "ref_cpu_µs/call")
		b.ReportMetric(median(oursRates)/median(refRates), "ratio")
		b.ReportMetric(median(paired), "paired_ratio")
	}
}

// processCPU returns the user + system CPU time used so far by cmd's
// process (all its threads), or 0 when /proc cannot tell.
func processCPU(cmd *exec.Cmd) time.Duration {
	if cmd == nil || cmd.Process == nil {
		return 0
	}
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name: state is field 3,
	// utime and stime are fields 14 and 15 (clock ticks of 1/100 s).
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// backendRate measures the mock backend alone: benchRoundCalls sequential
// GETs of the benchmark's problem with a keep-alive client.
func backendRate(b *testing.B, url string) float64 {
	b.Helper()
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	start := time.Now()
	for range benchRoundCalls {
		resp, err := c.Get(url + "/api/v1/problems/leetcode/1")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	return benchRoundCalls / time.Since(start).Seconds()
}
