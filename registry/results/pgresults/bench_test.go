package pgresults_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/results"
)

// logText is n bytes of log-like lines ("2026-11-23T… request 123 GET
// /path …").
type logText struct{ n, line int }

func (l *logText) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, io.EOF
	}
	w := 0
	for w < len(p) && l.n > 0 {
		l.line++
		s := fmt.Sprintf("2026-11-23T12:%02d:%02d.%06dZ request %d GET /api/v1/items/%d status=200 bytes=%d\n",
			l.line/60%60, l.line%60, l.line%1000000, l.line, l.line*7, l.line%5000)
		if len(s) > l.n {
			s = s[:l.n]
		}
		if len(s) > len(p)-w {
			l.line-- // whole lines only; retry at the next Read
			break
		}
		w += copy(p[w:], s)
		l.n -= len(s)
	}
	return w, nil
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkPagePostgresVsFiles stores the same output (PGRESULTS_BENCH_MIB
// MiB of log lines, 256 by default) in files and in PostgreSQL and reads
// 100-line pages (ot.result's default) of it, interleaving in every
// iteration the first, middle, last and a random page of each. It reports
// every page's p50 and p99 in µs, PostgreSQL's over the files' (the
// baseline, same run) and PostgreSQL's last page over its first (the cost
// must not grow with the offset).
func BenchmarkPagePostgresVsFiles(b *testing.B) {
	dsn := pgtest.DSN(b)
	mib := 256
	if v, err := strconv.Atoi(os.Getenv("PGRESULTS_BENCH_MIB")); err == nil && v > 0 {
		mib = v
	}
	o := results.Options{MaxOutputBytes: int64(mib+1) << 20, MaxDirBytes: int64(mib+2) << 20, TTL: 24 * time.Hour, Logger: quiet}
	stores := map[string]*results.Store{"files": openFiles(b, o), "pg": openPG(b, dsn, pgtest.FreshSchema(b, dsn), o)}
	handles := map[string]results.Stored{}
	for name, st := range stores {
		t0 := time.Now()
		s, err := st.Put(context.Background(), &logText{n: mib << 20})
		if err != nil {
			b.Fatal(err)
		}
		handles[name] = s
		b.Logf("%s: %d MiB, %d lines stored in %s", name, mib, s.TotalLines, time.Since(t0).Round(time.Millisecond))
	}
	lines := handles["files"].TotalLines
	const limit = 100
	offsets := map[string]int{"first": 1, "middle": lines / 2, "last": lines - limit + 1}
	kinds := []string{"first", "middle", "last", "random"}
	lat := map[string][]time.Duration{}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		for _, k := range kinds {
			off := offsets[k]
			if k == "random" {
				off = 1 + rng.IntN(lines-limit)
			}
			for _, name := range []string{"files", "pg"} {
				t0 := time.Now()
				p, err := stores[name].Query(ctx, results.Request{Handle: handles[name].Handle, Offset: off, Limit: limit})
				d := time.Since(t0)
				if err != nil || p.Returned != limit {
					b.Fatalf("%s offset %d: %v (%d lines)", name, off, err, p.Returned)
				}
				lat[name+"-"+k] = append(lat[name+"-"+k], d)
			}
		}
	}
	b.StopTimer()
	for _, name := range []string{"files", "pg"} {
		for _, k := range kinds {
			b.ReportMetric(float64(pct(lat[name+"-"+k], 0.5).Nanoseconds())/1e3, name+"-"+k+"-p50-µs")
			b.ReportMetric(float64(pct(lat[name+"-"+k], 0.99).Nanoseconds())/1e3, name+"-"+k+"-p99-µs")
		}
	}
	var pg, files []time.Duration
	for _, k := range kinds {
		pg, files = append(pg, lat["pg-"+k]...), append(files, lat["files-"+k]...)
	}
	b.ReportMetric(float64(pct(pg, 0.5))/float64(pct(files, 0.5)), "x-pg/files-p50")
	b.ReportMetric(float64(pct(lat["pg-last"], 0.5))/float64(pct(lat["pg-first"], 0.5)), "x-pg-last/first-p50")
	b.ReportMetric(float64(pct(lat["pg-last"], 0.99))/float64(pct(lat["pg-first"], 0.99)), "x-pg-last/first-p99")
}
