package stats

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/toolpack-go/toolpack/internal/cputime"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// benchArgs is registry's benchmark argument struct: five fields with
// bounds, an enum, an optional float and a slice.
type benchArgs struct {
	Query string   `json:"query" validate:"required,min=1,max=200" description:"Search text."`
	Limit int      `json:"limit" validate:"required,gte=1,lte=100" description:"Maximum hits."`
	Mode  string   `json:"mode" validate:"required,oneof=fast exact fuzzy" description:"Matching mode."`
	Boost *float64 `json:"boost,omitempty" validate:"omitempty,gte=0,lte=10" description:"Score boost."`
	Tags  []string `json:"tags" validate:"max=8,dive,min=1,max=32" description:"Tag filter."`
}

type benchOut struct {
	Hits  int    `json:"hits"`
	Query string `json:"query"`
}

var benchRaw = json.RawMessage(`{"query":"golang registry","limit":25,"mode":"fuzzy","boost":1.5,"tags":["go","mcp","tools"]}`)

// benchRegistry returns a registry with the tool "search" in pack "web":
// a struct result when structured, else a string.
func benchRegistry(b *testing.B, structured bool, rec *Recorder) *registry.Registry {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discard})
	p := &registry.Pack{Name: "web", Description: "Web."}
	var err error
	if structured {
		err = registry.AddFunc(p, "search", func(ctx context.Context, a benchArgs) (result.Result[benchOut], error) {
			return result.Ok(benchOut{Hits: a.Limit + len(a.Tags), Query: a.Query}), nil
		}, registry.ToolOptions{Doc: "Searches."})
	} else {
		err = registry.AddFunc(p, "search", func(ctx context.Context, a benchArgs) (result.Result[string], error) {
			return result.Ok("hits for " + a.Query), nil
		}, registry.ToolOptions{Doc: "Searches."})
	}
	if err == nil {
		err = reg.AddPack(p)
	}
	if err != nil {
		b.Fatal(err)
	}
	if rec != nil {
		reg.UseOuter(rec.Middleware())
	}
	return reg
}

func invoke(ctx context.Context, reg *registry.Registry) error {
	res, err := reg.Invoke(ctx, "search", benchRaw)
	if err == nil && !res.Success {
		err = errors.New(res.Error)
	}
	return err
}

// BenchmarkMiddlewareVsInvoke measures what the stats middleware adds to
// Registry.Invoke: each iteration runs a block of 16 calls of a tool without
// the middleware, then 16 calls of the same tool with it, in the same loop;
// ns/op is one such pair of blocks. It reports
//
//   - x-invoke-time: the ratio of the median block times (issue 11's goal:
//     ≤ 1.05), robust to the preemptions of a shared machine;
//   - overhead-ns: that difference per call;
//   - x-invoke-cpu: the ratio of the calling thread's CPU time (Linux),
//     which time spent descheduled does not distort;
//   - extra-allocs: allocations per call with the middleware minus without.
//
// Sub-benchmarks: "text" returns a string (its length is its size),
// "struct" a struct (its size counted by encoding it to a counting writer);
// "invoke" is Registry.Invoke alone, "invoke+marshal" adds json.Marshal of
// the Result, the path every adapter call takes (registry's
// BenchmarkInvokeVsFloor measures that path too); "control" compares two
// registries without the middleware, to show the measurement's noise.
//
// The recorder writes to a temporary directory as a server's does: its
// flusher runs in the background (default interval, and early every 4096
// records). What writing costs per record is BenchmarkFlush's.
func BenchmarkMiddlewareVsInvoke(b *testing.B) {
	for _, bc := range []struct {
		name                         string
		structured, marshal, control bool
	}{
		{"text/invoke", false, false, false}, {"text/invoke+marshal", false, true, false},
		{"struct/invoke", true, false, false}, {"struct/invoke+marshal", true, true, false},
		{"control", false, false, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rec, err := New(Options{Enabled: true, Dir: b.TempDir(), Logger: discard})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = rec.Close(context.Background()) }()
			plain := benchRegistry(b, bc.structured, nil)
			recorded := benchRegistry(b, bc.structured, rec)
			if bc.control {
				recorded = benchRegistry(b, bc.structured, nil)
			}
			ctx := context.Background()
			once := func(reg *registry.Registry) error {
				res, err := reg.Invoke(ctx, "search", benchRaw)
				if err == nil && !res.Success {
					err = errors.New(res.Error)
				}
				if err == nil && bc.marshal {
					_, err = json.Marshal(res)
				}
				return err
			}
			const block = 16
			const keep = 1 << 18 // blocks kept for the medians
			runtime.LockOSThread()
			unlock := runtime.UnlockOSThread
			defer unlock()
			var plainD, recD []time.Duration
			var cpuPlain, cpuRec time.Duration
			run := func(reg *registry.Registry) (time.Duration, time.Duration) {
				c0, t0 := threadCPU(), time.Now()
				for range block {
					if err := once(reg); err != nil {
						b.Fatal(err)
					}
				}
				return time.Since(t0), threadCPU() - c0
			}
			for b.Loop() {
				dp, cp := run(plain)
				dr, cr := run(recorded)
				cpuPlain += cp
				cpuRec += cr
				if len(plainD) < keep {
					plainD = append(plainD, dp)
					recD = append(recD, dr)
				}
			}
			mp, mr := float64(median(plainD)), float64(median(recD))
			b.ReportMetric(mr/mp, "x-invoke-time")
			b.ReportMetric((mr-mp)/block, "overhead-ns")
			if cpuPlain > 0 {
				b.ReportMetric(float64(cpuRec)/float64(cpuPlain), "x-invoke-cpu")
			}
			pa := testing.AllocsPerRun(500, func() { _ = once(plain) })
			ra := testing.AllocsPerRun(500, func() { _ = once(recorded) })
			b.ReportMetric(ra-pa, "extra-allocs")
		})
	}
}

// BenchmarkClockReads is the floor of any middleware that times calls: a
// pass-through middleware reading the monotonic clock before and after the
// call (as the stats middleware does), against the same tool without it,
// measured like BenchmarkMiddlewareVsInvoke/text/invoke.
func BenchmarkClockReads(b *testing.B) {
	plain := benchRegistry(b, false, nil)
	timed := benchRegistry(b, false, nil)
	base := time.Now()
	var total time.Duration
	timed.Use(func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			start := time.Since(base)
			res, err := next(ctx, c)
			total += time.Since(base) - start
			return res, err
		}
	})
	ctx := context.Background()
	const block = 16
	var plainD, timedD []time.Duration
	run := func(reg *registry.Registry) time.Duration {
		t0 := time.Now()
		for range block {
			if err := invoke(ctx, reg); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	for b.Loop() {
		plainD = append(plainD, run(plain))
		timedD = append(timedD, run(timed))
	}
	mp, mt := float64(median(plainD)), float64(median(timedD))
	b.ReportMetric(mt/mp, "x-invoke-time")
	b.ReportMetric((mt-mp)/block, "overhead-ns")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkFlush is the cost per record of writing a batch of 4096
// records (encode, lock, append).
func BenchmarkFlush(b *testing.B) {
	dir := b.TempDir()
	recs := make([]record, 4096)
	for i := range recs {
		recs[i] = record{time: time.Now(), tool: "web.search", pack: "web", dur: time.Millisecond, ok: true, bytesIn: 100, bytesOut: 2000}
	}
	var buf []byte
	var err error
	var tc timeCache
	for b.Loop() {
		if buf, err = writeBatch(context.Background(), dir, recs, buf, &tc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N*len(recs)), "ns/record")
}

// BenchmarkSummary is the cost per record of a Summary over 100,000
// records (read, parse, aggregate).
func BenchmarkSummary(b *testing.B) {
	dir := b.TempDir()
	now := time.Now()
	recs := make([]record, 100_000)
	tools := []string{"web.search", "web.fetch", "db.query", "ot.stats"}
	for i := range recs {
		recs[i] = record{time: now.Add(-time.Duration(i) * time.Second), tool: tools[i%len(tools)], dur: time.Duration(i%1000) * time.Microsecond, ok: i%9 != 0, errType: "timeout", bytesIn: 100, bytesOut: 2000}
	}
	if _, err := writeBatch(context.Background(), dir, recs, nil, &timeCache{}); err != nil {
		b.Fatal(err)
	}
	rec, err := New(Options{Enabled: true, Dir: dir, FlushInterval: time.Hour, Logger: discard})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = rec.Close(context.Background()) }()
	for b.Loop() {
		s, err := rec.Summary(context.Background(), Query{Now: now})
		if err != nil || s.TotalCalls != int64(len(recs)) {
			b.Fatal(err, s.TotalCalls)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N*len(recs)), "ns/record")
}

// threadCPU is the calling thread's CPU time (0 where it is not measured:
// x-invoke-cpu is then not meaningful).
func threadCPU() time.Duration {
	d, _ := cputime.Thread()
	return d
}

// BenchmarkParseRecord: reading record lines in the writer's layout
// directly against reading them with encoding/json (the baseline), in
// alternating blocks of 1,000 lines; x-json-time is the ratio of the median
// blocks (below 1 is faster).
func BenchmarkParseRecord(b *testing.B) {
	tools := []string{"web.search", "web.fetch", "db.query", "ot.stats"}
	var tc timeCache
	lines := make([][]byte, 1000)
	now := time.Now()
	for i := range lines {
		r := record{time: now.Add(time.Duration(i) * time.Millisecond), tool: tools[i%len(tools)], pack: "p", dur: time.Duration(i) * time.Microsecond, ok: i%9 != 0, errType: "timeout", bytesIn: 100, bytesOut: 2000}
		l := appendRecord(nil, &r, &tc)
		lines[i] = l[:len(l)-1]
	}
	var direct, viaJSON []time.Duration
	for b.Loop() {
		start := time.Now()
		for _, l := range lines {
			if _, err := parseViaJSON(l); err != nil {
				b.Fatal(err)
			}
		}
		viaJSON = append(viaJSON, time.Since(start))
		start = time.Now()
		var p lineParser
		for _, l := range lines {
			if _, err := p.parse(l); err != nil {
				b.Fatal(err)
			}
		}
		direct = append(direct, time.Since(start))
	}
	md, mj := float64(median(direct)), float64(median(viaJSON))
	b.ReportMetric(md/mj, "x-json-time")
	b.ReportMetric(md/float64(len(lines)), "ns/line")
	b.ReportMetric(mj/float64(len(lines)), "json-ns/line")
}
