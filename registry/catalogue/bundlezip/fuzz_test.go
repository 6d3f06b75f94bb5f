package bundlezip_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/bundlezip"
)

// memStore keeps imported bundles in memory, checked by
// catalogue.CheckImport like every store: the fuzz target exercises the
// archive side without paying for fsyncs (the file store's side of
// ImportBundle has its own conformance and crash tests). Only the
// methods Import and Export call are implemented.
type memStore struct {
	catalogue.Store
	mu      sync.Mutex
	bundles map[uuid.UUID]catalogue.Bundle
	tools   map[uuid.UUID][]catalogue.Tool
}

func newMemStore() *memStore {
	return &memStore{bundles: map[uuid.UUID]catalogue.Bundle{}, tools: map[uuid.UUID][]catalogue.Tool{}}
}

func (m *memStore) ImportBundle(_ context.Context, b catalogue.Bundle, tools []catalogue.Tool) error {
	b, tools, err := catalogue.CheckImport(b, tools)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.bundles[b.ID]; ok {
		return fmt.Errorf("bundle %s: %w", b.ID, catalogue.ErrConflict)
	}
	slices.SortFunc(tools, func(a, b catalogue.Tool) int { return keyCmp(a.Key(), b.Key()) })
	m.bundles[b.ID], m.tools[b.ID] = b, tools
	return nil
}

func keyCmp(a, b catalogue.ToolKey) int {
	return cmp.Or(cmp.Compare(a.Slug, b.Slug), cmp.Compare(a.Version, b.Version))
}

func (m *memStore) GetBundle(_ context.Context, id uuid.UUID) (catalogue.Bundle, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.bundles[id]
	if !ok {
		return b, catalogue.ErrNotFound
	}
	return b, nil
}

func (m *memStore) ListTools(_ context.Context, q catalogue.ToolQuery) ([]catalogue.Tool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []catalogue.Tool
	for _, id := range q.BundleIDs {
		for _, t := range m.tools[id] {
			if q.After.BundleID == id && keyCmp(t.Key(), q.After) <= 0 {
				continue
			}
			out = append(out, t)
			if q.Limit > 0 && len(out) == q.Limit {
				return out, nil
			}
		}
	}
	return out, nil
}

// FuzzImport: any bytes, as an uploaded archive. Import never panics; an
// error is a *catalogue.ValidationError with a problem text for every
// field (or the store's conflict for a bundle already imported); an
// accepted archive stored exactly what Read decodes from it, and exports
// again to an archive that reads back to the same records. The seed
// corpus (testdata/fuzz/FuzzImport) holds a valid export and hostile
// variants of it.
func FuzzImport(f *testing.F) {
	clock := newClock()
	src := openStore(f, clock.Now)
	valid := export(f, src, sampleBundle(f, src, clock))
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	store := newMemStore()
	opts := bundlezip.Options{MaxArchiveBytes: 1 << 20, MaxTotalBytes: 4 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		b, err := importBytes(store, data, opts)
		if err != nil {
			if errors.Is(err, catalogue.ErrConflict) {
				return
			}
			var ve *catalogue.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, catalogue.ErrInvalid) || len(ve.Fields) == 0 {
				t.Fatalf("error %v (%T) is not a *catalogue.ValidationError with fields", err, err)
			}
			for _, fe := range ve.Fields {
				if fe.Problem == "" {
					t.Fatalf("field %q has no problem text", fe.Field)
				}
			}
			return
		}
		rc, err := bundlezip.Read(ctx, bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			t.Fatalf("Import accepted what Read refuses: %v", err)
		}
		if rb := rc.Bundle; !rb.CreatedAt.Equal(b.CreatedAt) || rb.ID != b.ID || rb.BundleSpec != b.BundleSpec {
			t.Fatalf("stored bundle %+v, archive holds %+v", b, rb)
		}
		stored := map[uuid.UUID]catalogue.ToolKey{}
		for _, tl := range store.tools[b.ID] {
			stored[tl.ID] = tl.Key()
		}
		for _, tl := range rc.Tools {
			if stored[tl.ID] != tl.Key() {
				t.Fatalf("tool %s %s@%s of the archive is not stored as such", tl.ID, tl.Slug, tl.Version)
			}
		}
		if len(stored) != len(rc.Tools) {
			t.Fatalf("stored %d tools, the archive holds %d", len(stored), len(rc.Tools))
		}
		var out bytes.Buffer
		if err := bundlezip.Export(ctx, store, b.ID, &out); err != nil {
			t.Fatalf("exporting an imported bundle: %v", err)
		}
		ec, err := bundlezip.Read(ctx, bytes.NewReader(out.Bytes()), int64(out.Len()), opts)
		if err != nil {
			t.Fatalf("reading the export of an imported bundle: %v", err)
		}
		if ec.Bundle.ID != rc.Bundle.ID || ec.Bundle.BundleSpec != rc.Bundle.BundleSpec || len(ec.Tools) != len(rc.Tools) {
			t.Fatalf("export differs from the import: %+v vs %+v, %d vs %d tools", ec.Bundle, rc.Bundle, len(ec.Tools), len(rc.Tools))
		}
	})
}
