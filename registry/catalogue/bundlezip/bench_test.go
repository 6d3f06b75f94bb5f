package bundlezip_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/bundlezip"
)

const benchTools = 1000

// BenchmarkExport1000 exports a bundle of 1,000 tool versions and, in the
// same loop, does the baseline: the same records read from the store and
// written as the same indented JSON, without the archive. "ratio" is
// export time over baseline time (the cost of compression and the ZIP
// container).
func BenchmarkExport1000(b *testing.B) {
	ctx := context.Background()
	s := openStore(b, nil)
	bundle, tools := manyTools(b, benchTools)
	if err := s.ImportBundle(ctx, bundle, tools); err != nil {
		b.Fatal(err)
	}
	var zipTime, baseTime time.Duration
	var size, plain int
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		var buf bytes.Buffer
		if err := bundlezip.Export(ctx, s, bundle.ID, &buf); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		var raw bytes.Buffer
		got, err := s.GetBundle(ctx, bundle.ID)
		if err != nil {
			b.Fatal(err)
		}
		list, err := s.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{bundle.ID}, IncludeDisabled: true, IncludeDeleted: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range append([]any{got}, anySlice(list)...) {
			data, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				b.Fatal(err)
			}
			raw.Write(data)
		}
		t2 := time.Now()
		zipTime += t1.Sub(t0)
		baseTime += t2.Sub(t1)
		size, plain = buf.Len(), raw.Len()
	}
	b.ReportMetric(float64(zipTime.Milliseconds())/float64(b.N), "export-ms/op")
	b.ReportMetric(float64(baseTime.Milliseconds())/float64(b.N), "json-ms/op")
	b.ReportMetric(float64(zipTime)/float64(baseTime), "ratio")
	b.ReportMetric(float64(size), "zip-bytes")
	b.ReportMetric(float64(plain), "json-bytes")
}

// BenchmarkImport1000 imports a 1,000-tool archive into a fresh file
// store and, in the same loop, two baselines: Store.ImportBundle of the
// already decoded records ("ratio-store": the cost of reading and
// checking the archive), and writing the archive's JSON files to a
// directory one by one with an fsync each, as a plain unzip that cared
// about durability would ("ratio-files").
func BenchmarkImport1000(b *testing.B) {
	ctx := context.Background()
	src := openStore(b, nil)
	bundle, tools := manyTools(b, benchTools)
	if err := src.ImportBundle(ctx, bundle, tools); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bundlezip.Export(ctx, src, bundle.ID, &buf); err != nil {
		b.Fatal(err)
	}
	archive := buf.Bytes()
	entries := entriesOf(b, archive)
	var zipTime, storeTime, fileTime time.Duration
	b.ReportAllocs()
	for b.Loop() {
		to, direct := openStore(b, nil), openStore(b, nil)
		dir := b.TempDir()
		t0 := time.Now()
		if _, err := importBytes(to, archive, bundlezip.Options{}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := direct.ImportBundle(ctx, bundle, tools); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := os.Mkdir(filepath.Join(dir, "tools"), 0o750); err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			writeSynced(b, filepath.Join(dir, e.name), e.data)
		}
		t3 := time.Now()
		zipTime += t1.Sub(t0)
		storeTime += t2.Sub(t1)
		fileTime += t3.Sub(t2)
	}
	b.ReportMetric(float64(zipTime.Milliseconds())/float64(b.N), "import-ms/op")
	b.ReportMetric(float64(storeTime.Milliseconds())/float64(b.N), "importbundle-ms/op")
	b.ReportMetric(float64(fileTime.Milliseconds())/float64(b.N), "files-ms/op")
	b.ReportMetric(float64(zipTime)/float64(storeTime), "ratio-store")
	b.ReportMetric(float64(zipTime)/float64(fileTime), "ratio-files")
}

// BenchmarkRead1000 is the archive side alone: Read (no store) against
// json.Unmarshal of the same entries, already expanded, into the records.
func BenchmarkRead1000(b *testing.B) {
	ctx := context.Background()
	src := openStore(b, nil)
	bundle, tools := manyTools(b, benchTools)
	if err := src.ImportBundle(ctx, bundle, tools); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bundlezip.Export(ctx, src, bundle.ID, &buf); err != nil {
		b.Fatal(err)
	}
	archive := buf.Bytes()
	entries := entriesOf(b, archive)
	var readTime, baseTime time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := bundlezip.Read(ctx, bytes.NewReader(archive), int64(len(archive)), bundlezip.Options{}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		for _, e := range entries {
			var v map[string]any
			if err := json.Unmarshal(e.data, &v); err != nil {
				b.Fatal(err)
			}
		}
		t2 := time.Now()
		readTime += t1.Sub(t0)
		baseTime += t2.Sub(t1)
	}
	b.ReportMetric(float64(readTime.Microseconds())/float64(b.N), "read-µs/op")
	b.ReportMetric(float64(baseTime.Microseconds())/float64(b.N), "unmarshal-µs/op")
	b.ReportMetric(float64(readTime)/float64(baseTime), "ratio")
}

func anySlice(list []catalogue.Tool) []any {
	out := make([]any, len(list))
	for i, t := range list {
		out[i] = t
	}
	return out
}

func writeSynced(b *testing.B, path string, data []byte) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}
