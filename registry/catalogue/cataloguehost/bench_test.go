package cataloguehost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// benchCatalogue is a fixture holding two bundles of 1,000 tools: bundle
// ("bench", written through the registry's store) and other ("raw",
// written straight into the file store), and the tools' spec. Both
// bundles are the same size: the file store's cost grows with it.
func benchCatalogue(b *testing.B) (f *fixture, bundle, other uuid.UUID, spec catalogue.ToolSpec) {
	ctx := context.Background()
	f = newFixture(&testing.T{}, nil)
	bundle = f.bundle(&testing.T{}, "bench")
	other, err := catalogue.NewID()
	require.NoError(b, err)
	_, _, err = f.file.PutBundle(ctx, other, catalogue.BundleSpec{Slug: "raw", DisplayName: "raw", IsEnabled: true})
	require.NoError(b, err)
	spec = echoSpec("http://127.0.0.1:1/")
	for i := 0; i < 1000; i++ {
		for _, id := range []uuid.UUID{bundle, other} {
			_, err := f.file.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: fmt.Sprintf("seed%d", i), Version: "1"}, spec)
			require.NoError(b, err)
		}
	}
	return f, bundle, other, spec
}

// alternate runs via and direct (the baseline) in turn b.N times, timing
// each, and reports x-store-time, the ratio of their times, and
// overhead-µs, what via costs more per run.
func alternate(b *testing.B, via, direct func(i int) error) {
	var tVia, tDirect time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		err := via(i)
		t1 := time.Now()
		err2 := direct(i)
		t2 := time.Now()
		if err != nil || err2 != nil {
			b.Fatal(err, err2)
		}
		tVia += t1.Sub(t0)
		tDirect += t2.Sub(t1)
	}
	b.StopTimer()
	b.ReportMetric(float64(tVia)/float64(tDirect), "x-store-time")
	b.ReportMetric(float64(tVia-tDirect)/float64(b.N)/1e3, "overhead-µs")
}

// BenchmarkPutToolKeepsRegistryInStep measures a tool PUT through
// Catalogue.Store — the store's write plus the registry update — against
// the same PUT straight into the file store, in a catalogue already
// holding 2,000 tools (two bundles of 1,000), alternating the two in one loop. x-store-time is
// the ratio of their times: what keeping the registry in step costs.
func BenchmarkPutToolKeepsRegistryInStep(b *testing.B) {
	ctx := context.Background()
	f, bundle, other, spec := benchCatalogue(b)
	defer f.store.Close()
	require.NoError(b, f.cat.Sync(ctx))
	alternate(b, func(i int) error {
		_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: bundle, Slug: fmt.Sprintf("t%d", i), Version: "1"}, spec)
		return err
	}, func(i int) error {
		_, err := f.file.PutTool(ctx, catalogue.ToolKey{BundleID: other, Slug: fmt.Sprintf("t%d", i), Version: "1"}, spec)
		return err
	})
	if _, ok := f.reg.Lookup(fmt.Sprintf("bench.t%d.1", b.N-1)); !ok {
		b.Fatal("the last tool is not served")
	}
}

// BenchmarkBundlePutKeepsRegistryInStep measures a bundle PUT (its
// display name changed) through Catalogue.Store — the store's write plus
// the registry update — against the same PUT straight into the file
// store, alternating the two in one loop, in a catalogue of 2,000 tools in
// two bundles and twenty small ones. x-store-time is the ratio of their
// times; the update reads the bundles and the changed bundle's tools, not
// every tool.
func BenchmarkBundlePutKeepsRegistryInStep(b *testing.B) {
	ctx := context.Background()
	f, _, other, spec := benchCatalogue(b)
	defer f.store.Close()
	small := f.bundle(&testing.T{}, "small")
	for i := range 20 {
		id := f.bundle(&testing.T{}, fmt.Sprintf("s%d", i))
		_, err := f.file.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: "one", Version: "1"}, spec)
		require.NoError(b, err)
	}
	require.NoError(b, f.cat.Sync(ctx))
	alternate(b, func(i int) error {
		_, _, err := f.w.PutBundle(ctx, small, catalogue.BundleSpec{Slug: "small", DisplayName: fmt.Sprintf("Small %d", i), IsEnabled: true})
		return err
	}, func(i int) error {
		_, _, err := f.file.PutBundle(ctx, other, catalogue.BundleSpec{Slug: "raw", DisplayName: fmt.Sprintf("Small %d", i), IsEnabled: true})
		return err
	})
	if _, ok := f.reg.Lookup("bench.seed999.1"); !ok {
		b.Fatal("a tool of the big bundle is not served")
	}
}

// BenchmarkSyncServesNewTools: one Sync that finds 5,000 new steps tools in
// the store and serves them, against listing the same tools from the store
// alone (the baseline, in the same run): x-list-time is the ratio, heap-B/tool
// the memory the served tools keep.
func BenchmarkSyncServesNewTools(b *testing.B) {
	const n = 5000
	ctx := context.Background()
	spec := func(i int) catalogue.ToolSpec {
		return catalogue.ToolSpec{DisplayName: fmt.Sprintf("Tool %d", i), Description: fmt.Sprintf("Adds %d to n.", i), IsEnabled: true, Type: catalogue.TypeSteps,
			ArgSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"n":{"type":"integer","description":"the number","maximum":%d}},"required":["n"],"additionalProperties":false}`, 1000+i)),
			StepsImpl: &catalogue.StepsImpl{Body: fmt.Sprintf("r = add(a={{ n }}, b=%d)", i)}}
	}
	var sync, list time.Duration
	var heap uint64
	for b.Loop() {
		b.StopTimer()
		f := newFixture(&testing.T{}, nil)
		bundle := f.bundle(&testing.T{}, "bulk")
		for i := range n {
			if _, err := f.file.PutTool(ctx, catalogue.ToolKey{BundleID: bundle, Slug: fmt.Sprintf("t%d", i), Version: "1"}, spec(i)); err != nil {
				b.Fatal(err)
			}
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		b.StartTimer()
		t0 := time.Now()
		if err := f.cat.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		listed, err := f.store.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{bundle}})
		if err != nil {
			b.Fatal(err)
		}
		seen := len(listed)
		list += time.Since(t1)
		sync += t1.Sub(t0)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		heap += m1.HeapInuse - m0.HeapInuse
		if seen != n {
			b.Fatal("listed", seen)
		}
		if _, ok := f.reg.Lookup(fmt.Sprintf("bulk.t%d.1", n-1)); !ok {
			b.Fatal("the last tool is not served")
		}
		_ = f.cat.Close()
		_ = f.store.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(sync)/float64(list), "x-list-time")
	b.ReportMetric(float64(sync)/float64(b.N*n), "ns/tool")
	b.ReportMetric(float64(heap)/float64(b.N*n), "heap-B/tool")
}
