package catalogue

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// medianRatio reports the ratio of the medians of two interleaved samples.
func medianRatio(b *testing.B, name string, subject, baseline []time.Duration) {
	if len(subject) == 0 || len(baseline) == 0 {
		return
	}
	slices.Sort(subject)
	slices.Sort(baseline)
	s, base := subject[len(subject)/2], baseline[len(baseline)/2]
	b.ReportMetric(float64(s)/float64(base), name)
	b.ReportMetric(float64(base.Nanoseconds()), name+"-base-ns")
}

// BenchmarkPutTool measures FileStore.PutTool (validation with both schemas
// compiled, the bundle lock, the existence check, an atomic write) against
// two baselines on the same bytes, interleaved in one loop: a plain
// os.WriteFile (x-writefile) and the bare atomic write — temp file, fsync,
// rename, directory fsync — without validation or lock (x-atomic). ns/op is
// one PutTool plus both baselines.
func BenchmarkPutTool(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s := openFile(b, dir, nil)
	bid := mustBundle(b, s, "bench")
	spec := httpSpec("Echo", "demo")
	sample, err := s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "sample", Version: "1"}, spec)
	if err != nil {
		b.Fatal(err)
	}
	data, err := json.MarshalIndent(sample, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	plain := filepath.Join(b.TempDir(), "plain")
	atomicDir := b.TempDir()
	if err := os.MkdirAll(plain, 0o750); err != nil {
		b.Fatal(err)
	}
	var put, write, atomic []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if _, err := s.PutTool(ctx, ToolKey{BundleID: bid, Slug: "echo", Version: fmt.Sprint(i)}, spec); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := os.WriteFile(filepath.Join(plain, fmt.Sprint(i, ".json")), data, 0o600); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := s.writeAtomic(filepath.Join(atomicDir, fmt.Sprint(i, ".json")), data); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		put, write, atomic = append(put, t1.Sub(t0)), append(write, t2.Sub(t1)), append(atomic, t3.Sub(t2))
	}
	b.StopTimer()
	medianRatio(b, "x-writefile", slices.Clone(put), write)
	medianRatio(b, "x-atomic", put, atomic)
}

// BenchmarkGetTool measures FileStore.GetTool of a tool file changed
// lately (read with a cap, decode, record checks, buffered usage merged)
// against os.ReadFile of the same file, interleaved (x-readfile).
func BenchmarkGetTool(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s := openFile(b, dir, nil)
	bid := mustBundle(b, s, "bench")
	key := ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
	if _, err := s.PutTool(ctx, key, httpSpec("Echo", "demo")); err != nil {
		b.Fatal(err)
	}
	path := s.toolFile(key)
	future := time.Now().Add(time.Hour) // changed "lately": read every time
	if err := os.Chtimes(path, future, future); err != nil {
		b.Fatal(err)
	}
	var get, read []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.GetTool(ctx, key); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		get, read = append(get, t1.Sub(t0)), append(read, t2.Sub(t1))
	}
	b.StopTimer()
	medianRatio(b, "x-readfile", get, read)
}

// BenchmarkRecordUsage measures the cost a call pays to count itself, from
// all procs at once (nothing waits for storage; the flusher runs every
// millisecond meanwhile).
func BenchmarkRecordUsage(b *testing.B) {
	ctx := context.Background()
	s, err := OpenFileStore(ctx, b.TempDir(), FileOptions{Logger: discard, FlushInterval: time.Millisecond, ReapInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	bid := mustBundle(b, s, "bench")
	key := ToolKey{BundleID: bid, Slug: "echo", Version: "1"}
	if _, err := s.PutTool(ctx, key, httpSpec("Echo")); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.RecordUsage(ctx, key, now); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkListTools measures one ListTools over 10 bundles of 100 tools
// against reading the same files with os.ReadDir and os.ReadFile,
// interleaved (x-readfiles), in the two cases a store meets: files
// changed lately, each read, decoded and checked ("read"; dated in the
// future here so that they stay so), and files unchanged since the store
// last read them, served from memory after a stat ("kept"; dated an hour
// back). x-read is kept against read, same loop.
func BenchmarkListTools(b *testing.B) {
	ctx := context.Background()
	fill := func(when time.Time) (*FileStore, string) {
		dir := b.TempDir()
		s := openFile(b, dir, nil)
		for i := range 10 {
			bid := mustBundle(b, s, fmt.Sprint("b", i))
			for j := range 100 {
				k := ToolKey{BundleID: bid, Slug: "t", Version: fmt.Sprint(j)}
				if _, err := s.PutTool(ctx, k, httpSpec("T")); err != nil {
					b.Fatal(err)
				}
				if err := os.Chtimes(s.toolFile(k), when, when); err != nil {
					b.Fatal(err)
				}
			}
		}
		return s, dir
	}
	kept, _ := fill(time.Now().Add(-time.Hour))
	read, dir := fill(time.Now().Add(time.Hour))
	readAll := func() int {
		n := 0
		bundles, err := os.ReadDir(filepath.Join(dir, "bundles"))
		if err != nil {
			b.Fatal(err)
		}
		for _, bd := range bundles {
			if _, err := os.ReadFile(filepath.Join(dir, "bundles", bd.Name(), "bundle.json")); err != nil {
				b.Fatal(err)
			}
			tools := filepath.Join(dir, "bundles", bd.Name(), "tools")
			entries, err := os.ReadDir(tools)
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range entries {
				if _, err := os.ReadFile(filepath.Join(tools, e.Name())); err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
		return n
	}
	list := func(s *FileStore) time.Duration {
		t0 := time.Now()
		got, err := s.ListTools(ctx, ToolQuery{})
		if err != nil || len(got) != 1000 {
			b.Fatal(len(got), err)
		}
		return time.Since(t0)
	}
	list(kept) // what a store does at Open: every file read once
	var keptT, readT, files []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		keptT = append(keptT, list(kept))
		readT = append(readT, list(read))
		t0 := time.Now()
		if readAll() != 1000 {
			b.Fatal("files missing")
		}
		files = append(files, time.Since(t0))
	}
	b.StopTimer()
	medianRatio(b, "x-read", slices.Clone(keptT), slices.Clone(readT))
	medianRatio(b, "x-readfiles-kept", keptT, slices.Clone(files))
	medianRatio(b, "x-readfiles-read", readT, files)
}
