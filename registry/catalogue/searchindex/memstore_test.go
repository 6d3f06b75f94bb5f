package searchindex_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// memStore is a catalogue.Store in memory for tests and benchmarks (the
// file store is too slow to fill with 100,000 tools). It keeps the rules
// search depends on: conflicts, disabled and soft-deleted bundles, the
// listing filters and order.
type memStore struct {
	mu      sync.Mutex
	now     func() time.Time
	bundles map[uuid.UUID]catalogue.Bundle
	tools   map[catalogue.ToolKey]catalogue.Tool
	// lists counts ListTools calls (a test checks the index does not scan).
	lists int
}

func newMemStore(now func() time.Time) *memStore {
	return &memStore{now: now, bundles: map[uuid.UUID]catalogue.Bundle{}, tools: map[catalogue.ToolKey]catalogue.Tool{}}
}

func (m *memStore) PutBundle(_ context.Context, id uuid.UUID, spec catalogue.BundleSpec) (catalogue.Bundle, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.bundles[id]
	if ok && b.SoftDeletedAt != nil {
		return catalogue.Bundle{}, false, catalogue.ErrBundleDeleted
	}
	if !ok {
		b = catalogue.Bundle{ID: id, CreatedAt: m.now()}
	}
	b.BundleSpec, b.ModifiedAt = spec, m.now()
	m.bundles[id] = b
	return b, !ok, nil
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

func (m *memStore) ListBundles(_ context.Context, q catalogue.BundleQuery) ([]catalogue.Bundle, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []catalogue.Bundle
	for _, b := range m.bundles {
		if (!b.IsEnabled && !q.IncludeDisabled) || (b.SoftDeletedAt != nil && !q.IncludeDeleted) {
			continue
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b catalogue.Bundle) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	return out, nil
}

func (m *memStore) changeBundle(id uuid.UUID, f func(*catalogue.Bundle)) (catalogue.Bundle, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.bundles[id]
	if !ok {
		return b, catalogue.ErrNotFound
	}
	f(&b)
	m.bundles[id] = b
	return b, nil
}

func (m *memStore) SetBundleEnabled(_ context.Context, id uuid.UUID, enabled bool) (catalogue.Bundle, error) {
	if b, err := m.GetBundle(context.Background(), id); err == nil && b.SoftDeletedAt != nil {
		return b, catalogue.ErrBundleDeleted
	}
	return m.changeBundle(id, func(b *catalogue.Bundle) { b.IsEnabled = enabled })
}

func (m *memStore) SoftDeleteBundle(_ context.Context, id uuid.UUID) (catalogue.Bundle, error) {
	return m.changeBundle(id, func(b *catalogue.Bundle) {
		if b.SoftDeletedAt == nil {
			now := m.now()
			b.SoftDeletedAt = &now
		}
	})
}

func (m *memStore) PutTool(_ context.Context, key catalogue.ToolKey, spec catalogue.ToolSpec) (catalogue.Tool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.bundles[key.BundleID]
	switch {
	case !ok:
		return catalogue.Tool{}, catalogue.ErrNotFound
	case b.SoftDeletedAt != nil:
		return catalogue.Tool{}, catalogue.ErrBundleDeleted
	case !b.IsEnabled:
		return catalogue.Tool{}, catalogue.ErrBundleDisabled
	}
	if _, ok := m.tools[key]; ok {
		return catalogue.Tool{}, fmt.Errorf("tool %s@%s: %w", key.Slug, key.Version, catalogue.ErrConflict)
	}
	now := m.now()
	t := catalogue.Tool{ID: uuid.New(), BundleID: key.BundleID, Slug: key.Slug, Version: key.Version, ToolSpec: spec,
		CreatedAt: now, ModifiedAt: now}
	m.tools[key] = t
	return t, nil
}

func (m *memStore) GetTool(_ context.Context, key catalogue.ToolKey) (catalogue.Tool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tools[key]
	if !ok {
		return t, catalogue.ErrNotFound
	}
	return t, nil
}

func (m *memStore) ListTools(_ context.Context, q catalogue.ToolQuery) ([]catalogue.Tool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lists++
	out := make([]catalogue.Tool, 0, len(m.tools))
	for _, t := range m.tools {
		b, ok := m.bundles[t.BundleID]
		if !ok || (!b.IsEnabled && !q.IncludeDisabled) || (b.SoftDeletedAt != nil && !q.IncludeDeleted) {
			continue
		}
		if !t.IsEnabled && !q.IncludeDisabled {
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b catalogue.Tool) int {
		if c := bytes.Compare(a.BundleID[:], b.BundleID[:]); c != 0 {
			return c
		}
		if c := strings.Compare(a.Slug, b.Slug); c != 0 {
			return c
		}
		return strings.Compare(a.Version, b.Version)
	})
	return out, nil
}

func (m *memStore) SetToolEnabled(_ context.Context, key catalogue.ToolKey, enabled bool) (catalogue.Tool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tools[key]
	if !ok {
		return t, catalogue.ErrNotFound
	}
	b := m.bundles[key.BundleID]
	if b.SoftDeletedAt != nil {
		return t, catalogue.ErrBundleDeleted
	}
	if !b.IsEnabled {
		return t, catalogue.ErrBundleDisabled
	}
	t.IsEnabled = enabled
	m.tools[key] = t
	return t, nil
}

func (m *memStore) DeleteTool(_ context.Context, key catalogue.ToolKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tools[key]; !ok {
		return catalogue.ErrNotFound
	}
	delete(m.tools, key)
	return nil
}

func (m *memStore) RecordUsage(_ context.Context, key catalogue.ToolKey, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.tools[key]; ok {
		t.CallCount++
		t.LastCalledAt = &at
		m.tools[key] = t
	}
	return nil
}

func (m *memStore) ReapDeleted(context.Context) ([]uuid.UUID, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []uuid.UUID
	for id, b := range m.bundles {
		if b.SoftDeletedAt == nil || m.now().Sub(*b.SoftDeletedAt) < catalogue.SoftDeleteRetention {
			continue
		}
		empty := true
		for k := range m.tools {
			if k.BundleID == id {
				empty = false
				break
			}
		}
		if empty {
			delete(m.bundles, id)
			out = append(out, id)
		}
	}
	return out, nil
}

// ImportBundle stores the records as given (CheckImport's rules).
func (m *memStore) ImportBundle(_ context.Context, b catalogue.Bundle, tools []catalogue.Tool) error {
	b, tools, err := catalogue.CheckImport(b, tools)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.bundles[b.ID]; ok {
		return catalogue.ErrConflict
	}
	m.bundles[b.ID] = b
	for _, t := range tools {
		m.tools[t.Key()] = t
	}
	return nil
}

func (m *memStore) Close() error { return nil }

var _ catalogue.Store = (*memStore)(nil)
