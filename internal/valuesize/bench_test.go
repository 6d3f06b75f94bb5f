package valuesize

import (
	"reflect"
	"testing"
	"time"

	"github.com/toolpack-go/toolpack/internal/benchtool"
)

// benchOut is the struct value of the registry's and the stats
// middleware's benchmarks.
type benchOut struct {
	Hits  int    `json:"hits"`
	Query string `json:"query"`
}

// BenchmarkValueSize compares the two ways of counting a struct value's
// bytes: walking it with the cached rule (what Size does) against encoding
// it with encoding/json into a counting writer (the baseline), interleaved
// in blocks of 64; it reports the ratio of the median block times
// (x-encode-time, below 1 is faster) and ns per value of each.
func BenchmarkValueSize(b *testing.B) {
	s := New()
	var v any = benchOut{Hits: 28, Query: "golang registry"}
	rv := reflect.ValueOf(v)
	if w, e := s.Size(v), encodedLen(v); w != e {
		b.Fatalf("walk %d != encoding %d", w, e)
	}
	const block = 64
	var walkD, encD []time.Duration
	for b.Loop() {
		t0 := time.Now()
		for range block {
			_ = s.Size(v)
		}
		t1 := time.Now()
		for range block {
			_, _ = s.encodedSize(rv, false)
		}
		walkD = append(walkD, t1.Sub(t0))
		encD = append(encD, time.Since(t1))
	}
	mw, me := float64(benchtool.Median(walkD)), float64(benchtool.Median(encD))
	b.ReportMetric(mw/me, "x-encode-time")
	b.ReportMetric(mw/block, "walk-ns")
	b.ReportMetric(me/block, "encode-ns")
}
