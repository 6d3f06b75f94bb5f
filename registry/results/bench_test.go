package results_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolpack-go/toolpack/internal/cputime"
	"github.com/toolpack-go/toolpack/registry/results"
)

// The 1 GiB benchmarks share one stored output, written once per test
// binary (about 10 s) into a temporary directory that TestMain removes.
// They run only with -bench; `go test ./...` never builds the gigabyte.

// bigSize is the size of the big output: 1 GiB (a little more: its last
// line is finished).
const bigSize = 1 << 30

type bigOutput struct {
	dir   string
	st    *results.Store
	h     string
	lines int
	put   time.Duration
}

var (
	bigOnce sync.Once
	big     *bigOutput
	bigErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if big != nil {
		_ = big.st.Close()
		_ = os.RemoveAll(big.dir)
	}
	os.Exit(code)
}

// logLines generates log-like lines of 80 to 110 bytes until at least n
// bytes are written.
type logLines struct {
	n, written int64
	i          int
	buf        bytes.Buffer
}

func (g *logLines) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.written+int64(g.buf.Len()) < g.n {
		g.i++
		b := g.buf.AvailableBuffer()
		b = append(b, "2026-11-23T10:"...)
		b = append(b, byte('0'+g.i/600%6), byte('0'+g.i/60%10), ':', byte('0'+g.i/10%6), byte('0'+g.i%10))
		b = append(b, ".000Z INFO request "...)
		b = strconv.AppendInt(b, int64(g.i), 10)
		b = append(b, " GET /api/v1/items/"...)
		b = strconv.AppendInt(b, int64(g.i*7919%1000003), 10)
		b = append(b, " served in "...)
		b = strconv.AppendInt(b, int64(g.i%997), 10)
		b = append(b, " ms by worker-"...)
		b = strconv.AppendInt(b, int64(g.i%8), 10)
		b = append(b, strings.Repeat(" ", g.i%20)...)
		b = append(b, '\n')
		g.buf.Write(b)
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	n, _ := g.buf.Read(p)
	g.written += int64(n)
	return n, nil
}

func bigStore(b *testing.B) *bigOutput {
	b.Helper()
	bigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "results-bench")
		if err != nil {
			bigErr = err
			return
		}
		st, err := results.Open(context.Background(), results.Options{Dir: dir, TTL: 24 * time.Hour,
			MaxOutputBytes: 2 << 30, MaxDirBytes: 4 << 30, SearchTimeout: 10 * time.Minute,
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			bigErr = err
			return
		}
		start := time.Now()
		s, err := st.Put(context.Background(), &logLines{n: bigSize})
		if err != nil {
			bigErr = err
			return
		}
		big = &bigOutput{dir: dir, st: st, h: s.Handle, lines: s.TotalLines, put: time.Since(start)}
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return big
}

// rss returns the resident set size of this process (VmRSS), in bytes.
func rss(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status: RSS is measured on Linux only")
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkPage1GiB reads 100-line pages (ot.result's default) of a 1 GiB
// stored output, interleaving in every iteration the first page, the
// middle one, the last one, a random one, and the first page of a 1 MiB
// output (the baseline), and reports each one's p50 and p99 in µs, the
// ratios of the far pages to the first (the cost must not grow with the
// offset) and to the small output's page, and the growth of the process's
// RSS while serving them. On Linux it also reports each kind's p99 of the
// thread CPU time a page costs, which a loaded machine's waits for a CPU do
// not inflate.
func BenchmarkPage1GiB(b *testing.B) {
	bo := bigStore(b)
	small, err := bo.st.Put(context.Background(), &logLines{n: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	const limit = 100
	offsets := map[string]int{"first": 1, "middle": bo.lines / 2, "last": bo.lines - limit + 1}
	kinds := []string{"first", "middle", "last", "random", "small_first"}
	lat, cpu := map[string][]time.Duration{}, map[string][]time.Duration{}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	runtime.LockOSThread() // threadCPU measures this goroutine's thread
	defer runtime.UnlockOSThread()
	_, haveCPU := cputime.Thread()
	read := func(k, h string, off int) {
		c0, _ := cputime.Thread()
		t0 := time.Now()
		p, err := bo.st.Query(ctx, results.Request{Handle: h, Offset: off, Limit: limit})
		d := time.Since(t0)
		c1, _ := cputime.Thread()
		if err != nil || p.Returned != limit {
			b.Fatalf("offset %d: %v (%d lines)", off, err, p.Returned)
		}
		lat[k] = append(lat[k], d)
		cpu[k] = append(cpu[k], c1-c0)
	}
	runtime.GC()
	before, peak := rss(b), int64(0)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		for _, k := range kinds {
			switch k {
			case "random":
				read(k, bo.h, 1+rng.IntN(bo.lines-limit))
			case "small_first":
				read(k, small.Handle, 1)
			default:
				read(k, bo.h, offsets[k])
			}
		}
		if i++; i%1024 == 0 {
			peak = max(peak, rss(b))
		}
	}
	b.StopTimer()
	peak = max(peak, rss(b))
	for _, k := range kinds {
		b.ReportMetric(float64(percentile(lat[k], 0.50).Nanoseconds())/1e3, k+"-p50-µs")
		b.ReportMetric(float64(percentile(lat[k], 0.99).Nanoseconds())/1e3, k+"-p99-µs")
		if haveCPU {
			b.ReportMetric(float64(percentile(cpu[k], 0.99).Nanoseconds())/1e3, k+"-cpu-p99-µs")
		}
	}
	first50, first99 := percentile(lat["first"], 0.5), percentile(lat["first"], 0.99)
	b.ReportMetric(float64(percentile(lat["last"], 0.5))/float64(first50), "x-last/first-p50")
	b.ReportMetric(float64(percentile(lat["last"], 0.99))/float64(first99), "x-last/first-p99")
	b.ReportMetric(float64(percentile(lat["random"], 0.5))/float64(percentile(lat["small_first"], 0.5)), "x-random/small-p50")
	b.ReportMetric(float64(peak-before)/(1<<20), "rss-growth-MiB")
	if b.N > 1 {
		b.Logf("1 GiB output: %d lines, stored by Put in %s; RSS before %d MiB, peak while serving %d MiB",
			bo.lines, bo.put.Round(time.Millisecond), before>>20, peak>>20)
	}
}

// BenchmarkSearch1GiB searches the whole 1 GiB output for a pattern that
// matches only its last line (the worst case: every line is read), with a
// regular expression and fuzzily, and reports the scan rate and the RSS
// growth: the scan streams through fixed buffers.
func BenchmarkSearch1GiB(b *testing.B) {
	bo := bigStore(b)
	last := fmt.Sprintf("request %d GET", bo.lines)
	for _, c := range []struct {
		name  string
		q     results.Request
		fuzzy bool
	}{
		{"regexp", results.Request{Search: last + " "}, false},
		{"fuzzy", results.Request{Search: fmt.Sprintf("reqest %d", bo.lines), Fuzzy: true}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			q := c.q
			q.Handle, q.Offset, q.Limit = bo.h, 1, 100
			runtime.GC()
			before, peak := rss(b), int64(0)
			for b.Loop() {
				p, err := bo.st.Query(context.Background(), q)
				if err != nil || p.Returned == 0 || p.LineNumbers[0] != bo.lines {
					b.Fatalf("%v %+v", err, p.LineNumbers)
				}
				peak = max(peak, rss(b))
			}
			b.ReportMetric(float64(bigSize)/(1<<20)/(b.Elapsed().Seconds()/float64(b.N)), "MiB/s")
			b.ReportMetric(float64(peak-before)/(1<<20), "rss-growth-MiB")
		})
	}
}

// BenchmarkPut stores a 1 MiB text (about 11,000 lines) and reports its
// rate against copying the same bytes to a file (the baseline), in the
// same loop, and the CPU time of Put alone.
func BenchmarkPut(b *testing.B) {
	var text bytes.Buffer
	if _, err := io.Copy(&text, &logLines{n: 1 << 20}); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	st, err := results.Open(context.Background(), results.Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var tPut, tCopy, cPut time.Duration
	runtime.LockOSThread() // Put runs on this goroutine: its thread's CPU time is Put's
	defer runtime.UnlockOSThread()
	for b.Loop() {
		c0, _ := cputime.Thread()
		t0 := time.Now()
		if _, err := st.Put(context.Background(), bytes.NewReader(text.Bytes())); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		c1, _ := cputime.Thread()
		cPut += c1 - c0
		f, err := os.CreateTemp(dir, "copy")
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		_, _ = w.Write(text.Bytes())
		_ = w.Flush()
		_ = f.Close()
		_ = os.Remove(f.Name())
		tCopy += time.Since(t1)
		tPut += t1.Sub(t0)
	}
	b.ReportMetric(float64(tPut)/float64(tCopy), "x-copy")
	b.ReportMetric(float64(cPut)/float64(b.N), "put-cpu-ns/op") // steadier than ns/op on a loaded machine
	b.ReportMetric(float64(text.Len())/(1<<20)/(tPut.Seconds()/float64(b.N)), "MiB/s")
}
