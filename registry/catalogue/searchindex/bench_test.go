package searchindex_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex/ftsindex"
)

// domain are the words tools are named after; filler words (made up,
// Zipf-distributed) pad descriptions as prose does.
var domain = strings.Fields(`weather forecast radar map route geocode search web fetch crawl scrape
	file read write list delete upload download user account login token invoice payment refund order
	customer ticket issue comment email send inbox calendar event meeting translate summarize classify
	image resize convert video audio transcribe database query table schema backup restore metrics alert
	log trace deploy build release branch commit review merge repository package version config secret
	queue message publish subscribe stream cache lookup price stock currency exchange shipping tracking
	address phone contact note task project board sprint report chart export import archive compress
	encrypt decrypt sign verify hash random uuid time date timezone holiday country city airport flight`)

var verbs = strings.Fields(`get list create update delete search find fetch send sync check run start stop`)

// catalogueFixture is a generated catalogue of n tools in bundles of 100.
type catalogueFixture struct {
	store   *memStore
	queries []string
}

func newFixture(tb testing.TB, n int) *catalogueFixture {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	syll := strings.Fields("ka lo mi nu pe ra si to vu xe ba de fi go hu ja ke li mo ny")
	filler := make([]string, 4000)
	for i := range filler {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		filler[i] = b.String()
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, uint64(len(filler)-1))
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := newMemStore(func() time.Time { return clock })
	ctx := context.Background()
	// Bundle ids come from a seeded source too, so that which bundles are
	// disabled (and so what every query finds) is the same in every run.
	ids := rand.NewChaCha8([32]byte{5})
	var bundle uuid.UUID
	for i := range n {
		if i%100 == 0 {
			bundle = uuid.Must(uuid.NewRandomFromReader(ids))
			_, _, err := st.PutBundle(ctx, bundle, catalogue.BundleSpec{Slug: fmt.Sprintf("b%d", i/100), DisplayName: "Bundle", IsEnabled: true})
			require.NoError(tb, err)
		}
		clock = clock.Add(time.Duration(rng.IntN(3)) * time.Second) // some ties
		v, n1, n2 := verbs[rng.IntN(len(verbs))], domain[rng.IntN(len(domain))], domain[rng.IntN(len(domain))]
		desc := make([]string, 8+rng.IntN(16))
		for j := range desc {
			if rng.IntN(4) == 0 {
				desc[j] = domain[rng.IntN(len(domain))]
			} else {
				desc[j] = filler[zipf.Uint64()]
			}
		}
		spec := catalogue.ToolSpec{
			DisplayName: strings.ToUpper(v[:1]) + v[1:] + " " + n1 + " " + n2,
			Description: strings.Join(desc, " ") + ".",
			Tags:        []string{domain[rng.IntN(len(domain))], domain[rng.IntN(len(domain))] + "-tools"},
			IsEnabled:   rng.IntN(10) != 0, Type: catalogue.TypeGo,
		}
		key := catalogue.ToolKey{BundleID: bundle, Slug: fmt.Sprintf("%s-%s-%s", v, n1, n2), Version: fmt.Sprintf("%d", 1+rng.IntN(3))}
		if _, err := st.PutTool(ctx, key, spec); err != nil {
			key.Version += fmt.Sprintf(".%d", i)
			_, err = st.PutTool(ctx, key, spec)
			require.NoError(tb, err)
		}
	}
	for i, b := range st.bundles { // one bundle in ten disabled
		if b.ID[15]%10 == 0 {
			_, err := st.SetBundleEnabled(ctx, i, false)
			require.NoError(tb, err)
		}
	}
	// The query mix: prefixes of slugs, whole words, one-typo words and
	// two-word queries, 250 of each, drawn from the catalogue's words.
	var qs []string
	for i := range 1000 {
		w := domain[rng.IntN(len(domain))]
		switch i % 4 {
		case 0: // prefix of a slug: "get-wea"
			s := verbs[rng.IntN(len(verbs))] + "-" + w
			qs = append(qs, s[:len(s)-rng.IntN(3)])
		case 1:
			qs = append(qs, w)
		case 2: // one typo, as typed: swap, drop or replace a letter
			r := []byte(w)
			j := 1 + rng.IntN(len(r)-2)
			switch rng.IntN(3) {
			case 0:
				r[j], r[j+1] = r[j+1], r[j]
			case 1:
				r = slices.Delete(r, j, j+1)
			default:
				r[j] = 'x'
			}
			qs = append(qs, string(r))
		default:
			qs = append(qs, w+" "+domain[rng.IntN(len(domain))])
		}
	}
	return &catalogueFixture{store: st, queries: qs}
}

// measure runs the queries b.N times in all and reports the latency
// percentiles as custom metrics; it returns the p99.
func measure(b *testing.B, s searchindex.Searcher, queries []string) time.Duration {
	b.Helper()
	ctx := context.Background()
	var lat []time.Duration
	var kinds [4][]time.Duration // prefix, word, typo, two words (the mix's order)
	i := 0
	for b.Loop() {
		q := searchindex.Query{Text: queries[i%len(queries)], Limit: 50}
		start := time.Now()
		if _, err := s.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		lat = append(lat, d)
		kinds[i%4] = append(kinds[i%4], d)
		i++
	}
	p := func(lat []time.Duration, f float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		slices.Sort(lat)
		return lat[min(len(lat)-1, int(f*float64(len(lat))))]
	}
	b.ReportMetric(float64(p(lat, 0.50).Nanoseconds()), "p50-ns")
	for k, name := range []string{"prefix", "word", "typo", "2words"} {
		b.ReportMetric(float64(p(kinds[k], 0.99).Nanoseconds()), name+"-p99-ns")
	}
	p99 := p(lat, 0.99)
	b.ReportMetric(float64(p99.Nanoseconds()), "p99-ns")
	return p99
}

// scanP99 measures the full scan's p99 over the first queries of the mix
// (the baseline of the ratio; the scan is too slow for the whole mix).
func scanP99(b *testing.B, f *catalogueFixture) time.Duration {
	b.Helper()
	scan := searchindex.NewScan(f.store)
	var lat []time.Duration
	for _, q := range f.queries[:40] {
		start := time.Now()
		if _, err := scan.Search(context.Background(), searchindex.Query{Text: q, Limit: 50}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	return lat[len(lat)*99/100]
}

// BenchmarkSearch100k: 100,000 tools, a realistic query mix; p50-ns and
// p99-ns are per query (page of 50, tools read back from the store);
// scan-p99/p99 is how many times faster than the full scan (the ranking
// catalogueapi used before, same run) the searcher's p99 is.
func BenchmarkSearch100k(b *testing.B) {
	f := newFixture(b, 100_000)
	idx, err := searchindex.Wrap(context.Background(), f.store, searchindex.Options{})
	require.NoError(b, err)
	base := scanP99(b, f)
	b.Run("index", func(b *testing.B) {
		p99 := measure(b, idx, f.queries)
		b.ReportMetric(float64(base)/float64(p99), "scan-p99/p99")
	})
	b.Run("fts", func(b *testing.B) {
		fts, err := ftsindex.Wrap(context.Background(), f.store, ftsindex.Options{})
		require.NoError(b, err)
		b.ResetTimer()
		p99 := measure(b, fts, f.queries)
		b.ReportMetric(float64(base)/float64(p99), "scan-p99/p99")
	})
	b.Run("scan", func(b *testing.B) {
		measure(b, searchindex.NewScan(f.store), f.queries)
	})
}

// BenchmarkBuild100kFTS: building the SQLite FTS5 index of the same
// 100,000 tools (ftsindex.Wrap, listing included), beside
// BenchmarkBuild100k.
func BenchmarkBuild100kFTS(b *testing.B) {
	f := newFixture(b, 100_000)
	for b.Loop() {
		st, err := ftsindex.Wrap(context.Background(), f.store, ftsindex.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		// Close only the index: the fixture's store is kept.
		require.NoError(b, st.CloseIndex())
		b.StartTimer()
	}
}

// BenchmarkBuild100k: building the in-memory index of 100,000 tools
// (Wrap: the store's listing included; the store is in memory).
func BenchmarkBuild100k(b *testing.B) {
	f := newFixture(b, 100_000)
	for b.Loop() {
		if _, err := searchindex.Wrap(context.Background(), f.store, searchindex.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// listedStore is a store whose listings are read once and then served
// as they are: building over it measures the index's own work, without
// the listing (which depends on the store: a copy and sort here, file
// reads for the file store, a query for PostgreSQL).
type listedStore struct {
	*memStore
	tools   []catalogue.Tool
	bundles []catalogue.Bundle
}

func (s *listedStore) ListTools(context.Context, catalogue.ToolQuery) ([]catalogue.Tool, error) {
	return s.tools, nil
}

func (s *listedStore) ListBundles(context.Context, catalogue.BundleQuery) ([]catalogue.Bundle, error) {
	return s.bundles, nil
}

// BenchmarkBuild100kIndexOnly: BenchmarkBuild100k without the listing —
// the index built from 100,000 tools already read.
func BenchmarkBuild100kIndexOnly(b *testing.B) {
	f := newFixture(b, 100_000)
	ctx := context.Background()
	tools, err := f.store.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(b, err)
	bundles, err := f.store.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	require.NoError(b, err)
	st := &listedStore{memStore: f.store, tools: tools, bundles: bundles}
	for b.Loop() {
		if _, err := searchindex.Wrap(ctx, st, searchindex.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
