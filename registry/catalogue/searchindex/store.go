package searchindex

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// Options configures [Wrap]. The zero value is ready to use.
type Options struct {
	// ResyncInterval, when positive, rebuilds the index from the store
	// this often in the background, to pick up writes made by other
	// processes sharing the store. Zero means never (writes through this
	// Store are indexed at once either way); negative is an error.
	ResyncInterval time.Duration
	// Logger receives failures of background resyncs. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Store is a catalogue.Store with an in-memory search index. Every method
// of catalogue.Store is forwarded to the wrapped store; each successful
// write also updates the index, so Search sees it at once. Create one
// with [Wrap]; it is safe for concurrent use.
type Store struct {
	catalogue.Store

	log *slog.Logger

	mu        sync.RWMutex
	ix        *index
	recording bool           // a resync is reading the store
	journal   []func(*index) // writes made meanwhile, replayed on the new index

	scratch sync.Pool // *scratch, for searches

	resyncMu sync.Mutex // one resync at a time
	stop     chan struct{}
	done     chan struct{}
	closeMu  sync.Mutex
	closed   bool
}

var _ catalogue.Store = (*Store)(nil)
var _ Searcher = (*Store)(nil)

// Wrap indexes every tool of store (a full read) and returns the
// decorated store. Use the returned Store for every write so that the
// index follows; writes made by other processes are seen after Resync.
// Close closes the wrapped store too.
func Wrap(ctx context.Context, store catalogue.Store, opts Options) (*Store, error) {
	if store == nil {
		return nil, errors.New("searchindex: Wrap: expected a store, got nil")
	}
	if opts.ResyncInterval < 0 {
		return nil, fmt.Errorf("searchindex: Options.ResyncInterval: expected zero or a positive duration, got %v", opts.ResyncInterval)
	}
	s := &Store{Store: store, log: opts.Logger, ix: newIndex(maphash.MakeSeed(), 0)}
	if s.log == nil {
		s.log = slog.Default()
	}
	if err := s.Resync(ctx); err != nil {
		return nil, err
	}
	if opts.ResyncInterval > 0 {
		s.stop, s.done = make(chan struct{}), make(chan struct{})
		go s.loop(opts.ResyncInterval)
	}
	return s, nil
}

func (s *Store) loop(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stop
		cancel()
	}()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.Resync(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("searchindex: background resync failed; the index keeps its previous content", "err", err)
			}
		}
	}
}

// Resync rebuilds the index from the store: a full read, for writes made
// by other processes sharing the store's data. Searches keep answering
// from the previous index meanwhile, and writes made through this Store
// during the rebuild are applied to the new index too. On error the
// previous index stays.
func (s *Store) Resync(ctx context.Context) error {
	s.resyncMu.Lock()
	defer s.resyncMu.Unlock()
	s.mu.Lock()
	s.recording, s.journal = true, nil
	s.mu.Unlock()
	ix, err := s.build(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		for _, f := range s.journal {
			f(ix)
		}
		s.ix = ix
	}
	s.recording, s.journal = false, nil
	return err
}

// ResyncBundles re-reads the given bundles and their tools from the store
// and updates the index in place: for writes made by other processes
// whose bundles are known (catalogue.BundleWatcher), at the cost of those
// bundles alone. A bundle the store no longer holds is marked gone and
// its tools dropped. Writes made through this Store meanwhile are applied
// again after the update, as Resync does. No ids: nothing to do.
func (s *Store) ResyncBundles(ctx context.Context, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	s.resyncMu.Lock()
	defer s.resyncMu.Unlock()
	s.mu.Lock()
	s.recording, s.journal = true, nil
	s.mu.Unlock()
	// Tools before bundles, as build reads them.
	tools, err := s.Store.ListTools(ctx, catalogue.ToolQuery{BundleIDs: ids, IncludeDisabled: true, IncludeDeleted: true})
	var bundles []catalogue.Bundle
	if err == nil {
		bundles, err = s.Store.ListBundles(ctx, catalogue.BundleQuery{IDs: ids, IncludeDisabled: true, IncludeDeleted: true})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { s.recording, s.journal = false, nil }()
	if err != nil {
		return fmt.Errorf("searchindex: re-reading bundles: %w", err)
	}
	want := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	found := map[uuid.UUID]bool{}
	for i := range bundles {
		if want[bundles[i].ID] {
			s.ix.setBundle(&bundles[i])
			found[bundles[i].ID] = true
		}
	}
	for id := range want {
		if !found[id] {
			s.ix.dropBundle(id)
		}
	}
	read := make(map[catalogue.ToolKey]bool, len(tools))
	for i := range tools {
		if want[tools[i].BundleID] {
			s.ix.put(&tools[i])
			read[tools[i].Key()] = true
		}
	}
	var gone []catalogue.ToolKey
	for key := range s.ix.slots {
		if want[key.BundleID] && !read[key] {
			gone = append(gone, key)
		}
	}
	for _, key := range gone {
		s.ix.remove(key)
	}
	for _, f := range s.journal {
		f(s.ix)
	}
	return nil
}

// build reads the store into a new index. Tools are read before bundles:
// a bundle created in between holds none of the tools read.
func (s *Store) build(ctx context.Context) (*index, error) {
	tools, err := s.Store.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		return nil, fmt.Errorf("searchindex: reading tools: %w", err)
	}
	bundles, err := s.Store.ListBundles(ctx, catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		return nil, fmt.Errorf("searchindex: reading bundles: %w", err)
	}
	ix := newIndex(maphash.MakeSeed(), len(tools))
	for i := range bundles {
		ix.setBundle(&bundles[i])
	}
	// Slots in modifiedAt order, so that a search visiting candidates
	// newest first fills its page early (see index.search).
	order := make([]int32, len(tools))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return tools[a].ModifiedAt.Compare(tools[b].ModifiedAt) })
	// Preparing a tool's text depends on the tool alone: other CPUs
	// prepare chunks ahead while this goroutine numbers words and fills
	// postings in order.
	ix.startBulk()
	err = prepPipeline(ctx, ix.seed, tools, order, func(i int32, p prepped) { ix.putPrepped(&tools[i], p) })
	if err != nil {
		return nil, err
	}
	ix.finishBulk()
	return ix, nil
}

// prepChunk is the number of tools a preparing goroutine takes at a time.
const prepChunk = 512

// prepPipeline calls consume with every tools[order[n]], in the order of
// order, and its preparation, made ahead on GOMAXPROCS-1 goroutines (at
// least one). It stops at ctx's end with its error.
func prepPipeline(ctx context.Context, seed maphash.Seed, tools []catalogue.Tool, order []int32, consume func(int32, prepped)) error {
	preps := make([]prepped, len(order))
	chunks := (len(order) + prepChunk - 1) / prepChunk
	ready := make([]chan struct{}, chunks)
	for c := range ready {
		ready[c] = make(chan struct{})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	defer wg.Wait()
	for range max(1, min(runtime.GOMAXPROCS(0)-1, chunks)) {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				if ctx.Err() == nil {
					for n := c * prepChunk; n < min((c+1)*prepChunk, len(order)); n++ {
						preps[n] = prepTool(seed, &tools[order[n]])
					}
				}
				close(ready[c])
			}
		})
	}
	for c := range chunks {
		<-ready[c]
		if err := ctx.Err(); err != nil {
			next.Store(int64(chunks)) // the goroutines take no more chunks
			return err
		}
		for n := c * prepChunk; n < min((c+1)*prepChunk, len(order)); n++ {
			consume(order[n], preps[n])
			preps[n] = prepped{}
		}
	}
	return nil
}

// apply runs a change on the index (and records it while a resync runs).
func (s *Store) apply(f func(*index)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.ix)
	if s.recording {
		s.journal = append(s.journal, f)
	}
}

// Len returns the number of indexed tools (of every state).
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.ix.live()
}

// PutBundle implements catalogue.Store and indexes the bundle's state.
func (s *Store) PutBundle(ctx context.Context, id uuid.UUID, spec catalogue.BundleSpec) (catalogue.Bundle, bool, error) {
	b, created, err := s.Store.PutBundle(ctx, id, spec)
	if err == nil {
		s.apply(func(ix *index) { ix.setBundle(&b) })
	}
	return b, created, err
}

// SetBundleEnabled implements catalogue.Store; the bundle's tools leave
// or rejoin the results at once.
func (s *Store) SetBundleEnabled(ctx context.Context, id uuid.UUID, enabled bool) (catalogue.Bundle, error) {
	b, err := s.Store.SetBundleEnabled(ctx, id, enabled)
	if err == nil {
		s.apply(func(ix *index) { ix.setBundle(&b) })
	}
	return b, err
}

// SoftDeleteBundle implements catalogue.Store; the bundle's tools leave
// the results at once.
func (s *Store) SoftDeleteBundle(ctx context.Context, id uuid.UUID) (catalogue.Bundle, error) {
	b, err := s.Store.SoftDeleteBundle(ctx, id)
	if err == nil {
		s.apply(func(ix *index) { ix.setBundle(&b) })
	}
	return b, err
}

// PutTool implements catalogue.Store and indexes the new tool.
func (s *Store) PutTool(ctx context.Context, key catalogue.ToolKey, spec catalogue.ToolSpec) (catalogue.Tool, error) {
	t, err := s.Store.PutTool(ctx, key, spec)
	if err != nil {
		return t, err
	}
	s.mu.RLock()
	st := s.ix.bundles[key.BundleID]
	known := st != nil && st.known
	s.mu.RUnlock()
	var b catalogue.Bundle
	if !known { // created by another process since the last resync
		b, err = s.Store.GetBundle(ctx, key.BundleID)
		known = err == nil
	}
	s.apply(func(ix *index) {
		if known && b.ID == key.BundleID {
			ix.setBundle(&b)
		}
		ix.put(&t)
	})
	return t, nil
}

// SetToolEnabled implements catalogue.Store and updates the tool's state
// in the index.
func (s *Store) SetToolEnabled(ctx context.Context, key catalogue.ToolKey, enabled bool) (catalogue.Tool, error) {
	t, err := s.Store.SetToolEnabled(ctx, key, enabled)
	if err == nil {
		s.apply(func(ix *index) { ix.put(&t) })
	}
	return t, err
}

// DeleteTool implements catalogue.Store and drops the tool from the
// index.
func (s *Store) DeleteTool(ctx context.Context, key catalogue.ToolKey) error {
	err := s.Store.DeleteTool(ctx, key)
	if err == nil || errors.Is(err, catalogue.ErrNotFound) {
		s.apply(func(ix *index) { ix.remove(key) })
	}
	return err
}

// ImportBundle implements catalogue.Store and indexes the imported
// bundle and its tools (as stored: the records are kept verbatim).
func (s *Store) ImportBundle(ctx context.Context, b catalogue.Bundle, tools []catalogue.Tool) error {
	if err := s.Store.ImportBundle(ctx, b, tools); err != nil {
		return err
	}
	stored, berr := s.Store.GetBundle(ctx, b.ID)
	list, terr := s.Store.ListTools(ctx, catalogue.ToolQuery{BundleIDs: []uuid.UUID{b.ID}, IncludeDisabled: true, IncludeDeleted: true})
	if berr != nil || terr != nil { // the next Resync catches up
		s.log.Warn("searchindex: indexing an imported bundle", "bundle", b.ID, "err", errors.Join(berr, terr))
		return nil
	}
	s.apply(func(ix *index) {
		ix.setBundle(&stored)
		for i := range list {
			ix.put(&list[i])
		}
	})
	return nil
}

// ReapDeleted implements catalogue.Store and forgets the reaped bundles.
func (s *Store) ReapDeleted(ctx context.Context) ([]uuid.UUID, error) {
	ids, err := s.Store.ReapDeleted(ctx)
	if len(ids) > 0 {
		s.apply(func(ix *index) {
			for _, id := range ids {
				ix.dropBundle(id)
			}
		})
	}
	return ids, err
}

// Close stops the background resync and closes the wrapped store.
func (s *Store) Close() error {
	s.closeMu.Lock()
	if !s.closed && s.stop != nil {
		close(s.stop)
		<-s.done
	}
	s.closed = true
	s.closeMu.Unlock()
	return s.Store.Close()
}

// Search implements [Searcher] from the index. The page's tools are read
// from the store, so they carry current data (usage counts); a tool
// deleted or disabled by another process since the last Resync is left
// out of the page (the cursor still moves past it).
func (s *Store) Search(ctx context.Context, q Query) (Page, error) {
	if err := q.validate(); err != nil {
		return Page{}, err
	}
	s.mu.RLock()
	sc, _ := s.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	hits, next := s.ix.search(&q, sc)
	s.scratch.Put(sc)
	s.mu.RUnlock()
	return fetch(ctx, s.Store, &q, hits, next)
}

// fetch reads a page's tools from the store.
func fetch(ctx context.Context, st catalogue.Store, q *Query, hits []hit, next *Cursor) (Page, error) {
	page := Page{Tools: make([]catalogue.Tool, 0, len(hits)), Next: next}
	for i := range hits {
		t, err := st.GetTool(ctx, hits[i].key)
		if errors.Is(err, catalogue.ErrNotFound) {
			continue
		}
		if err != nil {
			return Page{}, fmt.Errorf("searchindex: reading tool %s@%s: %w", hits[i].key.Slug, hits[i].key.Version, err)
		}
		if !t.IsEnabled && !q.IncludeDisabled {
			continue
		}
		page.Tools = append(page.Tools, t)
	}
	return page, nil
}
