package ot

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRenderLongList writes ot.stats's answer for 20,000 tools in
// chunks (renderYAML) and as one document (the baseline), alternating,
// and reports the ratio of their times and of their peak heaps (sampled
// while each renders).
func BenchmarkRenderLongList(b *testing.B) {
	rows := make([]any, 20000)
	for i := range rows {
		rows[i] = object{{"tool", fmt.Sprintf("pack.tool_%d", i)}, {"calls", int64(i)},
			{"success_rate", decimal{99.5, 1}}, {"avg_ms", decimal{1.5, 1}}, {"p95_ms", decimal{3.5, 1}}}
	}
	v := object{{"period", "all"}, {"total_calls", int64(len(rows))}, {"tools", rows}}
	measure := func(f func(any) (string, error)) (time.Duration, uint64) {
		runtime.GC()
		var peak atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		})
		start := time.Now()
		if _, err := f(v); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		close(stop)
		wg.Wait()
		return d, peak.Load()
	}
	var tChunk, tWhole time.Duration
	var hChunk, hWhole uint64
	for b.Loop() {
		d, h := measure(renderYAML)
		tChunk, hChunk = tChunk+d, max(hChunk, h)
		d, h = measure(renderWhole)
		tWhole, hWhole = tWhole+d, max(hWhole, h)
	}
	b.ReportMetric(float64(tChunk)/float64(tWhole), "x-whole-time")
	b.ReportMetric(float64(hChunk)/float64(hWhole), "x-whole-peak-heap")
	b.ReportMetric(float64(hChunk)/(1<<20), "chunked-peak-MB")
	b.ReportMetric(float64(hWhole)/(1<<20), "whole-peak-MB")
}
