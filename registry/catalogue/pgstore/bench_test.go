package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
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
