package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/pgstore"
)

// benchTools is how many tools the store holds during the benchmarks:
// PGSTORE_BENCH_TOOLS, default 10,000.
func benchTools() int {
	if n, err := strconv.Atoi(os.Getenv("PGSTORE_BENCH_TOOLS")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// fillStore imports n tools into bundles of at most 10,000 (the per-bundle
// cap) and returns their keys.
func fillStore(b *testing.B, s catalogue.Store, n int) []catalogue.ToolKey {
	b.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	var keys []catalogue.ToolKey
	for start := 0; start < n; start += 10_000 {
		bid, _ := catalogue.NewID()
		bundle := catalogue.Bundle{ID: bid, BundleSpec: catalogue.BundleSpec{Slug: fmt.Sprintf("b%d", start), DisplayName: "B", IsEnabled: true}, CreatedAt: now, ModifiedAt: now}
		var tools []catalogue.Tool
		for i := start; i < min(n, start+10_000); i++ {
			tid, _ := catalogue.NewID()
			t := catalogue.Tool{ID: tid, BundleID: bid, Slug: fmt.Sprintf("tool-%d", i), Version: "1", CreatedAt: now, ModifiedAt: now,
				ToolSpec: benchSpec(i)}
			tools = append(tools, t)
			keys = append(keys, t.Key())
		}
		if err := s.ImportBundle(ctx, bundle, tools); err != nil {
			b.Fatal(err)
		}
	}
	return keys
}

func benchSpec(i int) catalogue.ToolSpec {
	return catalogue.ToolSpec{DisplayName: fmt.Sprintf("Tool %d", i), Description: "Fetches the weather forecast for a city and returns it as Markdown.",
		Tags: []string{"weather"}, IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`), GoImpl: &catalogue.GoImpl{Func: "echo"}}
}

// BenchmarkStores: the catalogue's put, get and one page of a list on
// PostgreSQL beside the file store (the baseline), same machine, same
// data. Search answers from searchindex's in-memory index over either
// store, so it does not differ between them and is not repeated here.
func BenchmarkStores(b *testing.B) {
	dsn := os.Getenv(pgtest.EnvDSN)
	if dsn == "" {
		b.Skipf("%s is not set", pgtest.EnvDSN)
	}
	n := benchTools()
	open := map[string]func(b *testing.B) catalogue.Store{
		"baseline=files": func(b *testing.B) catalogue.Store {
			s, err := catalogue.OpenFileStore(context.Background(), b.TempDir(), catalogue.FileOptions{Logger: slog.New(slog.DiscardHandler), ReapInterval: -1})
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
		"postgresql": func(b *testing.B) catalogue.Store {
			schema := "bench_" + strconv.FormatInt(time.Now().UnixNano(), 36)
			s, err := pgstore.Open(context.Background(), dsn, pgstore.Options{Schema: schema, Logger: slog.New(slog.DiscardHandler), ReapInterval: -1})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { pgtest.DropSchema(dsn, schema) })
			return s
		},
	}
	for _, name := range []string{"baseline=files", "postgresql"} {
		b.Run(name, func(b *testing.B) {
			s := open[name](b)
			defer s.Close()
			keys := fillStore(b, s, n)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(1, 2))
			if pg, ok := s.(*pgstore.Store); ok {
				// What autovacuum does soon after a bulk load.
				if err := pg.Analyze(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("put", func(b *testing.B) {
				bid, _ := catalogue.NewID()
				if _, _, err := s.PutBundle(ctx, bid, catalogue.BundleSpec{Slug: "puts", DisplayName: "Puts", IsEnabled: true}); err != nil {
					b.Fatal(err)
				}
				i := 0
				for b.Loop() {
					key := catalogue.ToolKey{BundleID: bid, Slug: "new-" + uuid.NewString()[:8], Version: strconv.Itoa(i)}
					if _, err := s.PutTool(ctx, key, benchSpec(i)); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
			b.Run("get", func(b *testing.B) {
				for b.Loop() {
					if _, err := s.GetTool(ctx, keys[rng.IntN(len(keys))]); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("list-page-100", func(b *testing.B) {
				for b.Loop() {
					after := keys[rng.IntN(len(keys))]
					if _, err := s.ListTools(ctx, catalogue.ToolQuery{After: after, Limit: 100}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkTwoHostsRacingWrites: two Stores on one schema (two hosts, two
// pools) put tools as fast as they can, each from 4 goroutines, half of
// the puts racing a goroutine of the other host for the same <slug,
// version>: exactly one of the two wins, the other gets ErrConflict.
// The baseline, in the same run, is one Store doing the same puts from 8
// goroutines: x-two-hosts/one is the cost of the second host.
func BenchmarkTwoHostsRacingWrites(b *testing.B) {
	dsn := pgtest.DSN(b)
	schema := pgtest.FreshSchema(b, dsn)
	open := func() *pgstore.Store {
		s, err := pgstore.Open(context.Background(), dsn, pgstore.Options{Schema: schema, Logger: slog.New(slog.DiscardHandler), ReapInterval: -1, MaxConns: 4, MaxToolsPerBundle: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, c := open(), open()
	ctx := context.Background()
	bid, _ := catalogue.NewID()
	if _, _, err := a.PutBundle(ctx, bid, catalogue.BundleSpec{Slug: "race", DisplayName: "Race", IsEnabled: true}); err != nil {
		b.Fatal(err)
	}
	const workers, perRound = 8, 64
	var conflicts atomic.Int64
	// round runs perRound puts from each of 8 goroutines, on stores[w%2],
	// and returns how long it took.
	round := func(stores [2]*pgstore.Store, r int) time.Duration {
		t0 := time.Now()
		errs := make(chan error, workers)
		for w := range workers {
			go func() {
				s := stores[w%2]
				for i := range perRound {
					slug := fmt.Sprintf("r%d-w%d-%d", r, w, i)
					if i%2 == 0 { // the same key on both hosts
						slug = fmt.Sprintf("r%d-shared-%d-%d", r, w/2, i)
					}
					_, err := s.PutTool(ctx, catalogue.ToolKey{BundleID: bid, Slug: slug, Version: "1"}, benchSpec(i))
					if errors.Is(err, catalogue.ErrConflict) && i%2 == 0 {
						conflicts.Add(1)
						continue
					}
					if err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range workers {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	var one, two time.Duration
	r := 0
	for b.Loop() {
		one += round([2]*pgstore.Store{a, a}, r)
		two += round([2]*pgstore.Store{a, c}, r+1)
		r += 2
	}
	puts := float64(b.N * workers * perRound)
	b.ReportMetric(puts/two.Seconds(), "two-hosts-puts/s")
	b.ReportMetric(puts/one.Seconds(), "one-host-puts/s")
	b.ReportMetric(float64(two)/float64(one), "x-two-hosts/one")
	if want := int64(b.N * 2 * workers / 2 * perRound / 2); conflicts.Load() != want {
		b.Fatalf("%d conflicts, expected %d: one of each racing pair", conflicts.Load(), want)
	}
}
