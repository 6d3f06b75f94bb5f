package pgstats_test

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/stats"
	"github.com/toolpack-go/toolpack/result"
)

// recorded is a Recorder and a registry whose one tool it records.
func recorded(b *testing.B, o stats.Options) (*stats.Recorder, *registry.Registry) {
	b.Helper()
	o.Enabled, o.FlushInterval, o.Logger = true, time.Hour, slog.New(slog.DiscardHandler)
	o.MaxPending = 1 << 20
	rec, err := stats.New(o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rec.Close(context.Background()) })
	reg := registry.New(registry.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := registry.AddFunc(reg, "ping", func(context.Context, struct{}) (result.Result[string], error) {
		return result.Ok("pong"), nil
	}, registry.ToolOptions{Doc: "Pongs."}); err != nil {
		b.Fatal(err)
	}
	reg.Use(rec.Middleware())
	return rec, reg
}

func calls(b *testing.B, reg *registry.Registry, n int) {
	for range n {
		if _, err := reg.Invoke(context.Background(), "ping", []byte(`{}`)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSinkVsFiles: the cost per record of a flush (4,096 records)
// and of a Summary over 100,000 records (PGSTATS_BENCH_CALLS others), with the records in PostgreSQL
// (folded by the database, and read record by record) beside the JSON
// Lines files (the baseline), same machine, same calls.
func BenchmarkSinkVsFiles(b *testing.B) {
	dsn := pgtest.DSN(b)
	stores := []struct {
		name string
		opts func(b *testing.B) stats.Options
	}{
		{"baseline=files", func(b *testing.B) stats.Options { return stats.Options{Dir: b.TempDir()} }},
		{"postgresql", func(b *testing.B) stats.Options {
			return stats.Options{Sink: open(b, dsn, pgtest.FreshSchema(b, dsn)), ReportsDir: b.TempDir()}
		}},
		// The same Sink read record by record, as before Aggregate.
		{"postgresql-read-each", func(b *testing.B) stats.Options {
			return stats.Options{Sink: recordsOnly{open(b, dsn, pgtest.FreshSchema(b, dsn))}, ReportsDir: b.TempDir()}
		}},
	}
	for _, st := range stores {
		b.Run(st.name+"/flush", func(b *testing.B) {
			rec, reg := recorded(b, st.opts(b))
			const batch = 4096
			var flushing time.Duration
			for b.Loop() {
				calls(b, reg, batch)
				t0 := time.Now()
				if err := rec.Flush(context.Background()); err != nil {
					b.Fatal(err)
				}
				flushing += time.Since(t0)
			}
			b.ReportMetric(float64(flushing.Nanoseconds())/float64(b.N*batch), "ns/record")
		})
		b.Run(st.name+"/summary", func(b *testing.B) {
			rec, reg := recorded(b, st.opts(b))
			n := 100_000
			if v, err := strconv.Atoi(os.Getenv("PGSTATS_BENCH_CALLS")); err == nil && v > 0 {
				n = v
			}
			calls(b, reg, n)
			if err := rec.Flush(context.Background()); err != nil {
				b.Fatal(err)
			}
			var summing time.Duration
			for b.Loop() {
				t0 := time.Now()
				s, err := rec.Summary(context.Background(), stats.Query{})
				summing += time.Since(t0)
				if err != nil || s.TotalCalls != int64(n) {
					b.Fatal(err, s.TotalCalls)
				}
			}
			b.ReportMetric(float64(summing.Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}
