package catalogue

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/internal/regfile"
	"github.com/toolpack-go/toolpack/internal/sparselog"
)

// BuiltInBundle declares a bundle compiled into the binary: its tools are
// Go functions (or fixed http tools) the host ships, served through the
// same Store and API as stored ones, read-only except their enabled flag.
type BuiltInBundle struct {
	// ID is the bundle's fixed UUIDv7. Generate it once (uuid.NewV7) and
	// keep it as a constant: clients and the enabled overlay refer to it.
	ID uuid.UUID
	// Spec is the bundle's slug, display name and description; IsEnabled
	// is its state until someone switches it.
	Spec BundleSpec
	// Tools are the bundle's tool versions.
	Tools []BuiltInTool
}

// BuiltInTool declares one built-in tool version. Its id is derived from
// the bundle id, slug and version ([BuiltInToolID]), so it is the same in
// every process and every release that keeps the version.
type BuiltInTool struct {
	// Slug and Version follow the rules of stored tools.
	Slug, Version string
	// Spec is the tool's definition, checked like a PUT body; IsEnabled is
	// its state until someone switches it.
	Spec ToolSpec
}

// BuiltInOptions configures [WithBuiltIns].
type BuiltInOptions struct {
	// Dir holds the overlay file (builtins.json, with its lock file):
	// the enabled switches of built-ins, when each was first served and
	// their usage counts. Required, unless the wrapped store keeps the
	// overlay itself ([BuiltInsKeeper]: the PostgreSQL store); then an
	// overlay file found in Dir is carried into the kept overlay once,
	// while that has never been written, and Dir is not used otherwise.
	// The catalogue's data directory will do.
	Dir string
	// Bundles are the built-in bundles.
	Bundles []BuiltInBundle
	// HasFunc reports whether a Go function is registered with the host.
	// A go tool (built-in or stored) whose function is not registered is
	// reported disabled — never deleted or rewritten — until it is. Nil
	// means every function is registered.
	HasFunc func(name string) bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// FlushInterval is how often buffered usage counts of built-ins are
	// written to the overlay. Zero means one second.
	FlushInterval time.Duration
	// WatchInterval is how often Watch reads the overlay for switches
	// made by other processes. Zero means DefaultWatchInterval.
	WatchInterval time.Duration
	// Logger receives background write failures; nil means
	// slog.Default().
	Logger *slog.Logger
}

// BuiltInStore is a [Store] serving built-in bundles beside the ones of
// the store it wraps. Create it with [WithBuiltIns].
type BuiltInStore struct {
	inner   Store
	keeper  BuiltInsKeeper // inner, when it keeps the overlay; nil: the file
	hasFunc func(string) bool
	now     func() time.Time
	log     *slog.Logger
	path    string
	lock    string

	bundles map[uuid.UUID]*builtInBundle
	order   []uuid.UUID // built-in bundle ids, sorted

	mu      sync.Mutex
	ov      overlay
	ovStamp fs.FileInfo // of the overlay file last read; nil: read it
	keptAt  time.Time   // when the keeper's overlay was last read
	// reading is set while a read brings the kept overlay up to date,
	// so that readers arriving meanwhile serve the copy held instead of
	// each asking the keeper.
	reading atomic.Bool
	// known is the switches as of this process's last look: Watch reports
	// a difference from them; foreign is set when a write of this
	// process found switches it did not know (another process's).
	known      map[uuid.UUID]bool
	foreign    bool
	watchEvery time.Duration
	pending    map[uuid.UUID]Usage // built-in tool id → counts not yet written
	closed     bool
	stop       chan struct{}
	done       chan struct{}
}

type builtInBundle struct {
	b     Bundle
	tools []Tool // in the stores' order (ToolKey.Compare)
}

// overlay is the content of builtins.json.
type overlay struct {
	// Enabled holds the switched state of bundles and tools by id.
	Enabled map[uuid.UUID]bool `json:"enabled"`
	// FirstSeen is when each built-in was first served: its createdAt and
	// modifiedAt.
	FirstSeen map[uuid.UUID]time.Time `json:"firstSeen"`
	// Calls are the usage counts of built-in tools.
	Calls map[uuid.UUID]Usage `json:"calls"`
	// Version counts the writes of an overlay a [BuiltInsKeeper] keeps,
	// so that a read never replaces a later one.
	Version int64 `json:"version,omitempty"`
}

// BuiltInsKeeper is a [Store] that keeps the built-ins overlay itself —
// the enabled switches of built-in bundles and tools, when each was first
// served, their usage counts — so that every host sharing the store
// shares them, wherever its files are. [WithBuiltIns] uses it in place
// of the overlay file when the wrapped store implements it, reads it
// again at most every BuiltInOptions.WatchInterval, and writes it only
// through UpdateBuiltIns. The document is the overlay's JSON; a keeper
// stores it as it is.
type BuiltInsKeeper interface {
	// ReadBuiltIns returns the overlay document; nil when none was
	// written yet.
	ReadBuiltIns(ctx context.Context) ([]byte, error)
	// UpdateBuiltIns calls change with the document (nil when none was
	// written yet) under a lock every host sharing the store respects,
	// and stores the document change returns when it reports a change.
	// change may be called more than once (a retried transaction); the
	// last call's document is the one stored.
	UpdateBuiltIns(ctx context.Context, change func(doc []byte) (updated []byte, changed bool, err error)) error
}

// BuiltInReserver is a [Store] that holds the ids of built-in bundles as
// read-only records, so that no host sharing it — one started without
// those built-ins, or running another build — can take such an id:
// PutBundle, PutTool into it and SoftDeleteBundle give ErrBuiltIn,
// ImportBundle ErrBundleExists. [WithBuiltIns] reserves every built-in
// bundle it serves in a wrapped store that implements it (the file and
// PostgreSQL stores do). A host without the built-in lists the record
// (builtIn true, no tools); a host with it serves its own in its place.
type BuiltInReserver interface {
	// ReserveBuiltIn stores b as a built-in bundle record with no tools
	// (BuiltIn set; its spec, CreatedAt, ModifiedAt and SlugSince as
	// given) when the store holds no bundle with its id, and brings the
	// slug, display name and description of a built-in record holding
	// it up to b's. A stored bundle that is not built-in holding the id
	// gives an error wrapping ErrBundleExists that names its slug; it is
	// left as it is. Reservations are not held to a store's cap on
	// bundles.
	ReserveBuiltIn(ctx context.Context, b Bundle) error
}

var _ Store = (*BuiltInStore)(nil)

// BuiltInToolID is the id of a built-in tool: a UUIDv7 carrying the
// bundle id's timestamp and 74 bits of SHA-256 of slug and version.
func BuiltInToolID(bundleID uuid.UUID, slug, version string) uuid.UUID {
	h := sha256.New()
	h.Write(bundleID[:])
	h.Write([]byte(slug))
	h.Write([]byte{0})
	h.Write([]byte(version))
	sum := h.Sum(nil)
	var id uuid.UUID
	copy(id[:6], bundleID[:6])
	copy(id[6:], sum[:10])
	id[6] = 0x70 | id[6]&0x0f
	id[8] = 0x80 | id[8]&0x3f
	return id
}

// WithBuiltIns returns inner with the built-in bundles of opts served
// beside its own. Every declaration is checked like a PUT (all problems
// at once, wrapping ErrInvalid). When inner is a [BuiltInReserver], the
// id of every built-in bundle is reserved in it, so that no host sharing
// inner can create a bundle with that id. A bundle inner holds under a
// built-in's id (made before the id was reserved, by a host without the
// built-in) does not stop the start: this store serves the built-in in
// its place and leaves the stored bundle and its tools out of every
// answer, and the clash is logged as a warning naming both. Built-ins
// are read-only: PutBundle,
// SoftDeleteBundle, PutTool into them and DeleteTool of them give
// ErrBuiltIn; SetBundleEnabled and SetToolEnabled write the overlay file
// in opts.Dir under a file lock, so every process sharing the directory
// sees the switch — or, when inner is a [BuiltInsKeeper], the overlay
// inner keeps, so every host sharing inner does. Close the returned
// store (it closes inner).
func WithBuiltIns(ctx context.Context, inner Store, opts BuiltInOptions) (*BuiltInStore, error) {
	if inner == nil {
		return nil, errors.New("catalogue: WithBuiltIns: expected a store, got nil")
	}
	keeper, _ := inner.(BuiltInsKeeper)
	if opts.Dir == "" && keeper == nil {
		return nil, errors.New("catalogue: WithBuiltIns: BuiltInOptions.Dir: expected the overlay directory, got an empty path")
	}
	if opts.WatchInterval < 0 {
		return nil, fmt.Errorf("catalogue: WithBuiltIns: BuiltInOptions.WatchInterval: expected zero or a positive duration, got %s", opts.WatchInterval)
	}
	s := &BuiltInStore{inner: inner, keeper: keeper, hasFunc: opts.HasFunc, now: opts.Now, log: opts.Logger,
		path: filepath.Join(opts.Dir, "builtins.json"), lock: filepath.Join(opts.Dir, "builtins.lock"),
		bundles: map[uuid.UUID]*builtInBundle{}, pending: map[uuid.UUID]Usage{},
		stop: make(chan struct{}), done: make(chan struct{})}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.watchEvery = cmp.Or(opts.WatchInterval, DefaultWatchInterval)
	if err := s.declare(opts.Bundles); err != nil {
		return nil, err
	}
	var seed *overlay // an overlay file to carry into a kept overlay not written yet
	if keeper == nil {
		if err := os.MkdirAll(opts.Dir, 0o750); err != nil {
			return nil, fmt.Errorf("catalogue: built-ins overlay: %w", err)
		}
	} else if opts.Dir != "" {
		seed = s.fileOverlay()
	}
	// Record when each built-in was first served.
	stamp := s.now().UTC().Truncate(time.Microsecond)
	if err := s.update(ctx, func(ov *overlay) bool {
		changed := false
		if seed != nil && ov.Version == 0 && len(ov.Enabled)+len(ov.FirstSeen)+len(ov.Calls) == 0 {
			*ov, changed = *seed, true
			ov.Version = 0 // updateKept counts this write
		}
		for _, id := range s.allIDs() {
			if _, ok := ov.FirstSeen[id]; !ok {
				ov.FirstSeen[id] = stamp
				changed = true
			}
		}
		return changed
	}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.known = maps.Clone(s.ov.Enabled)
	s.mu.Unlock()
	if err := s.reserve(ctx); err != nil {
		return nil, err
	}
	every := opts.FlushInterval
	if every <= 0 {
		every = time.Second
	}
	go s.flushLoop(every)
	return s, nil
}

// reserve reserves the id of every built-in bundle in the wrapped store
// (a BuiltInReserver; otherwise it looks for a stored bundle with the
// id), logging each id a stored bundle holds: this store serves the
// built-in in its place. Other failures are returned.
func (s *BuiltInStore) reserve(ctx context.Context) error {
	reserver, _ := s.inner.(BuiltInReserver)
	for _, id := range s.order {
		s.mu.Lock()
		b := s.view(s.bundles[id])
		s.mu.Unlock()
		var err error
		if reserver != nil {
			err = reserver.ReserveBuiltIn(ctx, b)
		} else if stored, gerr := s.inner.GetBundle(ctx, id); gerr == nil {
			err = fmt.Errorf("bundle %s (%q): %w", id, stored.Slug, ErrBundleExists)
		} else if !errors.Is(gerr, ErrNotFound) {
			err = gerr
		}
		switch {
		case errors.Is(err, ErrBundleExists):
			s.log.Warn("catalogue: the store holds a bundle with the id of a built-in bundle; this host serves the built-in "+
				"and leaves the stored bundle and its tools out (give the stored bundle another id: export it, change the id "+
				"in bundle.json, import it and delete the original, on a host without this built-in)",
				"id", id, "builtIn", b.Slug, "stored", err.Error())
		case err != nil:
			return fmt.Errorf("catalogue: reserving the id of built-in bundle %s: %w", id, err)
		}
	}
	return nil
}

// declare checks the declarations and builds the records.
func (s *BuiltInStore) declare(bundles []BuiltInBundle) error {
	var p problems
	for i, d := range bundles {
		path := fmt.Sprintf("bundles[%d]", i)
		if err := ValidateID(d.ID); err != nil {
			p.add(path+".id", "%v", err)
		} else if _, dup := s.bundles[d.ID]; dup {
			p.add(path+".id", "expected a unique id, %s repeats", d.ID)
		}
		addAll(&p, path+".spec", d.Spec.Validate())
		bb := &builtInBundle{b: Bundle{ID: d.ID, BundleSpec: d.Spec, BuiltIn: true}}
		seen := map[string]bool{}
		for j, t := range d.Tools {
			tp := fmt.Sprintf("%s.tools[%d]", path, j)
			if err := ValidateSlug(t.Slug); err != nil {
				p.add(tp+".slug", "%v", err)
			}
			if err := ValidateVersion(t.Version); err != nil {
				p.add(tp+".version", "%v", err)
			}
			name := toolFileName(t.Slug, t.Version)
			if seen[name] {
				p.add(tp, "expected a unique <slug, version>, %s@%s repeats", t.Slug, t.Version)
			}
			seen[name] = true
			addAll(&p, tp+".spec", t.Spec.Validate())
			spec := t.Spec
			spec.Tags = slices.Clone(spec.Tags)
			bb.tools = append(bb.tools, Tool{ID: BuiltInToolID(d.ID, t.Slug, t.Version), BundleID: d.ID,
				Slug: t.Slug, Version: t.Version, ToolSpec: spec, BuiltIn: true})
		}
		slices.SortFunc(bb.tools, func(a, b Tool) int { return a.Key().Compare(b.Key()) })
		if d.ID != uuid.Nil {
			s.bundles[d.ID] = bb
			s.order = append(s.order, d.ID)
		}
	}
	if err := p.err(); err != nil {
		return fmt.Errorf("catalogue: built-ins: %w", err)
	}
	slices.SortFunc(s.order, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	return nil
}

// addAll adds the fields of a *ValidationError under prefix.
func addAll(p *problems, prefix string, err error) {
	var ve *ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			field := prefix
			if f.Field != "" {
				field += "." + f.Field
			}
			p.add(field, "%s", f.Problem)
		}
	}
}

func (s *BuiltInStore) allIDs() []uuid.UUID {
	var ids []uuid.UUID
	for _, id := range s.order {
		ids = append(ids, id)
		for _, t := range s.bundles[id].tools {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// fileOverlay reads the overlay file a store that now keeps the overlay
// itself (a BuiltInsKeeper) leaves behind, so that the switches and counts
// made before are carried over; nil when there is none or it cannot be
// read (logged: the file is no longer used).
func (s *BuiltInStore) fileOverlay() *overlay {
	data, err := readFileCapped(s.path, DefaultMaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var ov overlay
	if err == nil {
		ov, err = decodeOverlay(data)
	}
	if err != nil {
		s.log.Warn("catalogue: the built-ins overlay file left by an earlier version cannot be read; its switches are not carried over", "path", s.path, "err", err)
		return nil
	}
	return &ov
}

// readOverlay reads the overlay file when it changed since the last read
// (another process may have switched a built-in). Call with s.mu held.
func (s *BuiltInStore) readOverlay() error {
	if s.keeper != nil {
		return nil // read by update, snapshot and the watch, outside s.mu
	}
	fi, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.ov, s.ovStamp = overlay{}, nil
		s.ov.init()
		return nil
	}
	if err != nil {
		return fmt.Errorf("catalogue: built-ins overlay: %w", err)
	}
	if s.ovStamp != nil && sameFile(s.ovStamp, fi) && s.ov.Enabled != nil {
		return nil
	}
	data, err := readFileCapped(s.path, DefaultMaxFileBytes)
	if err != nil {
		return fmt.Errorf("catalogue: built-ins overlay: %w", err)
	}
	ov, err := decodeOverlay(data)
	if err != nil {
		return fmt.Errorf("%w (%s)", err, s.path)
	}
	s.ov, s.ovStamp = ov, fi
	return nil
}

func (ov *overlay) init() {
	if ov.Enabled == nil {
		ov.Enabled = map[uuid.UUID]bool{}
	}
	if ov.FirstSeen == nil {
		ov.FirstSeen = map[uuid.UUID]time.Time{}
	}
	if ov.Calls == nil {
		ov.Calls = map[uuid.UUID]Usage{}
	}
}

// readFileCapped reads the overlay file at path, of at most max bytes
// (only max+1 are read). A larger file, or one that is not a regular file
// (a FIFO, whose open would wait for a writer for good), is an error
// wrapping ErrCorrupt, at once.
func readFileCapped(path string, max int64) ([]byte, error) {
	data, err := regfile.ReadFile(path, max)
	switch {
	case errors.Is(err, regfile.ErrTooLarge):
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrCorrupt, max)
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	case err != nil:
		return nil, err
	}
	return data, nil
}

// update changes the overlay under the file lock: read the file, apply
// change, write it atomically when change reports a change.
func (s *BuiltInStore) update(ctx context.Context, change func(*overlay) bool) error {
	if s.keeper != nil {
		return s.updateKept(ctx, change)
	}
	fl, err := regfile.Lock(ctx, s.lock, 0o600, false, time.Millisecond)
	if err != nil {
		return fmt.Errorf("catalogue: locking the built-ins overlay: %w", err)
	}
	defer func() { _ = fl.Unlock(); _ = fl.Close() }()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ovStamp = nil // always read under the lock
	if err := s.readOverlay(); err != nil {
		return err
	}
	if s.known != nil && !maps.Equal(s.known, s.ov.Enabled) {
		s.foreign = true
	}
	if !change(&s.ov) {
		return nil
	}
	data, err := json.MarshalIndent(&s.ov, "", "  ")
	if err != nil {
		return err
	}
	var w FileStore // writeAtomic uses no field of the store
	if err := w.writeAtomic(s.path, append(data, '\n')); err != nil {
		return fmt.Errorf("catalogue: writing the built-ins overlay: %w", err)
	}
	if fi, err := os.Stat(s.path); err == nil {
		s.ovStamp = fi
	}
	if s.known != nil {
		s.known = maps.Clone(s.ov.Enabled)
	}
	return nil
}

// updateKept is update for an overlay the wrapped store keeps: the
// keeper's lock in place of the file lock, and this process's copy
// replaced only once the keeper stored the change.
func (s *BuiltInStore) updateKept(ctx context.Context, change func(*overlay) bool) error {
	at := time.Now()
	var next *overlay
	var before map[uuid.UUID]bool
	err := s.keeper.UpdateBuiltIns(ctx, func(doc []byte) ([]byte, bool, error) {
		ov, err := decodeOverlay(doc)
		if err != nil {
			return nil, false, err
		}
		next, before = &ov, maps.Clone(ov.Enabled)
		if !change(&ov) {
			return nil, false, nil
		}
		ov.Version++
		data, err := json.Marshal(&ov)
		return data, true, err
	})
	if err == nil && next == nil {
		err = errors.New("the keeper stored nothing and reported no error")
	}
	if err != nil {
		return fmt.Errorf("catalogue: writing the built-ins overlay: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known != nil && !maps.Equal(s.known, before) {
		s.foreign = true // another host's switch, read first by this write
	}
	s.takeKept(*next)
	s.keptAt = at
	if s.known != nil {
		s.known = maps.Clone(s.ov.Enabled)
	}
	return nil
}

// readKept reads the overlay the wrapped store keeps, outside s.mu, and
// takes it unless this process already holds a later one. A read that
// fails is tried again a watch interval later, not at every read.
func (s *BuiltInStore) readKept(ctx context.Context) error {
	at := time.Now()
	doc, err := s.keeper.ReadBuiltIns(ctx)
	if err != nil {
		s.mu.Lock()
		s.keptAt = at
		s.mu.Unlock()
		return fmt.Errorf("catalogue: reading the built-ins overlay: %w", err)
	}
	ov, err := decodeOverlay(doc)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.takeKept(ov)
	s.keptAt = at
	return nil
}

// takeKept makes ov this process's copy of the kept overlay unless the
// copy is later; s.mu must be held.
func (s *BuiltInStore) takeKept(ov overlay) {
	if s.ov.Enabled != nil && ov.Version < s.ov.Version {
		return
	}
	s.ov = ov
}

// decodeOverlay decodes an overlay document, as read from the file or
// returned by a keeper (nil: none written yet; an empty file is no
// document).
func decodeOverlay(doc []byte) (overlay, error) {
	var ov overlay
	if doc != nil {
		if int64(len(doc)) > DefaultMaxFileBytes {
			return ov, fmt.Errorf("catalogue: built-ins overlay: %w: larger than %d bytes", ErrCorrupt, DefaultMaxFileBytes)
		}
		if err := json.Unmarshal(doc, &ov); err != nil {
			return ov, fmt.Errorf("catalogue: built-ins overlay: %w: %v", ErrCorrupt, err)
		}
	}
	ov.init()
	return ov, nil
}

// setEnabled records the enabled switch of a built-in bundle or tool in
// the overlay (no write when it already holds that state).
func (s *BuiltInStore) setEnabled(ctx context.Context, id uuid.UUID, enabled bool) error {
	return s.update(ctx, func(ov *overlay) bool {
		if cur, ok := ov.Enabled[id]; ok && cur == enabled {
			return false
		}
		ov.Enabled[id] = enabled
		return true
	})
}

// view returns the records of built-in bundle id as served now.
func (s *BuiltInStore) view(bb *builtInBundle) Bundle {
	b := bb.b
	if on, ok := s.ov.Enabled[b.ID]; ok {
		b.IsEnabled = on
	}
	b.CreatedAt = s.ov.FirstSeen[b.ID]
	b.ModifiedAt = b.CreatedAt
	b.SlugSince = b.CreatedAt
	return b
}

func (s *BuiltInStore) viewTool(t Tool) Tool {
	if on, ok := s.ov.Enabled[t.ID]; ok {
		t.IsEnabled = on
	}
	t.CreatedAt = s.ov.FirstSeen[t.ID]
	t.ModifiedAt = t.CreatedAt
	u := s.ov.Calls[t.ID].Plus(s.pending[t.ID])
	t.CallCount = u.Count
	if !u.Last.IsZero() {
		last := u.Last
		t.LastCalledAt = &last
	}
	t.Tags = slices.Clone(t.Tags)
	return s.funcCheck(t)
}

// funcCheck reports a go tool whose function is not registered disabled.
func (s *BuiltInStore) funcCheck(t Tool) Tool {
	if t.Type == TypeGo && s.hasFunc != nil && (t.GoImpl == nil || !s.hasFunc(t.GoImpl.Func)) {
		t.IsEnabled = false
	}
	return t
}

// snapshot brings this process's copy of the overlay up to date: the
// file when it changed, the kept overlay when it was read longer than
// the watch interval ago.
func (s *BuiltInStore) snapshot(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.keeper == nil {
		defer s.mu.Unlock()
		return s.readOverlay()
	}
	due := time.Since(s.keptAt) >= s.watchEvery
	s.mu.Unlock()
	if due && s.reading.CompareAndSwap(false, true) {
		defer s.reading.Store(false)
		// A read that fails serves the copy held (the switches as last
		// read), as the registry serves the tools it has while the store
		// is away; Watch logs the failure.
		_ = s.readKept(ctx)
	}
	return nil
}

// PutBundle implements [Store]; a built-in bundle gives ErrBuiltIn.
func (s *BuiltInStore) PutBundle(ctx context.Context, id uuid.UUID, spec BundleSpec) (Bundle, bool, error) {
	if _, ok := s.bundles[id]; ok {
		return Bundle{}, false, fmt.Errorf("bundle %s: %w", id, ErrBuiltIn)
	}
	return s.inner.PutBundle(ctx, id, spec)
}

// GetBundle implements [Store].
func (s *BuiltInStore) GetBundle(ctx context.Context, id uuid.UUID) (Bundle, error) {
	bb, ok := s.bundles[id]
	if !ok {
		return s.inner.GetBundle(ctx, id)
	}
	if err := s.snapshot(ctx); err != nil {
		return Bundle{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view(bb), nil
}

// ListBundles implements [Store]: built-in and stored bundles in one
// order (by id).
func (s *BuiltInStore) ListBundles(ctx context.Context, q BundleQuery) ([]Bundle, error) {
	out, err := s.listStoredBundles(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := s.snapshot(ctx); err != nil {
		return nil, err
	}
	want := idSet(q.IDs)
	s.mu.Lock()
	for _, id := range s.order {
		if bytes.Compare(id[:], q.After[:]) <= 0 || (want != nil && !want[id]) {
			continue
		}
		b := s.view(s.bundles[id])
		if !b.IsEnabled && !q.IncludeDisabled {
			continue
		}
		out = append(out, b)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Bundle) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// listStoredBundles lists the wrapped store's bundles but those with a
// built-in's id (its reservations, or a bundle stored under the id before
// it was reserved: the built-in is served in their place), still filling
// q.Limit.
func (s *BuiltInStore) listStoredBundles(ctx context.Context, q BundleQuery) ([]Bundle, error) {
	var out []Bundle
	for {
		page, err := s.inner.ListBundles(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, b := range page {
			if _, builtIn := s.bundles[b.ID]; !builtIn {
				out = append(out, b)
			}
		}
		if q.Limit == 0 || len(page) < q.Limit || len(out) >= q.Limit {
			if q.Limit > 0 && len(out) > q.Limit {
				out = out[:q.Limit]
			}
			return out, nil
		}
		q.After = page[len(page)-1].ID
	}
}

// SetBundleEnabled implements [Store]; for a built-in bundle the switch
// goes to the overlay.
func (s *BuiltInStore) SetBundleEnabled(ctx context.Context, id uuid.UUID, enabled bool) (Bundle, error) {
	bb, ok := s.bundles[id]
	if !ok {
		return s.inner.SetBundleEnabled(ctx, id, enabled)
	}
	if err := s.checkOpen(); err != nil {
		return Bundle{}, err
	}
	if err := s.setEnabled(ctx, id, enabled); err != nil {
		return Bundle{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view(bb), nil
}

// SoftDeleteBundle implements [Store]; a built-in bundle gives
// ErrBuiltIn.
func (s *BuiltInStore) SoftDeleteBundle(ctx context.Context, id uuid.UUID) (Bundle, error) {
	if _, ok := s.bundles[id]; ok {
		return Bundle{}, fmt.Errorf("bundle %s: %w", id, ErrBuiltIn)
	}
	return s.inner.SoftDeleteBundle(ctx, id)
}

// PutTool implements [Store]; a built-in bundle gives ErrBuiltIn.
func (s *BuiltInStore) PutTool(ctx context.Context, key ToolKey, spec ToolSpec) (Tool, error) {
	if _, ok := s.bundles[key.BundleID]; ok {
		if err := key.Validate(); err != nil {
			return Tool{}, err
		}
		if err := spec.Validate(); err != nil {
			return Tool{}, err
		}
		return Tool{}, fmt.Errorf("bundle %s: %w", key.BundleID, ErrBuiltIn)
	}
	t, err := s.inner.PutTool(ctx, key, spec)
	return s.funcCheck(t), err
}

// builtInTool finds a built-in tool by key.
func (s *BuiltInStore) builtInTool(key ToolKey) (*builtInBundle, int, bool) {
	bb, ok := s.bundles[key.BundleID]
	if !ok {
		return nil, 0, false
	}
	for i := range bb.tools {
		if bb.tools[i].Slug == key.Slug && bb.tools[i].Version == key.Version {
			return bb, i, true
		}
	}
	return bb, 0, false
}

// GetTool implements [Store].
func (s *BuiltInStore) GetTool(ctx context.Context, key ToolKey) (Tool, error) {
	bb, i, ok := s.builtInTool(key)
	if bb == nil {
		t, err := s.inner.GetTool(ctx, key)
		return s.funcCheck(t), err
	}
	if !ok {
		return Tool{}, toolNotFound(key)
	}
	if err := s.snapshot(ctx); err != nil {
		return Tool{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewTool(bb.tools[i]), nil
}

// ListTools implements [Store]: built-in and stored tools in the store's
// order (bundles by id). Tools reported disabled because their Go
// function is not registered are left out unless q.IncludeDisabled.
func (s *BuiltInStore) ListTools(ctx context.Context, q ToolQuery) ([]Tool, error) {
	stored, err := s.listStored(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := s.snapshot(ctx); err != nil {
		return nil, err
	}
	want := idSet(q.BundleIDs)
	var out []Tool
	s.mu.Lock()
	for _, id := range s.order {
		if bytes.Compare(id[:], q.After.BundleID[:]) < 0 || (want != nil && !want[id]) {
			continue
		}
		bb := s.bundles[id]
		b := s.view(bb)
		if !b.IsEnabled && !q.IncludeDisabled {
			continue
		}
		for _, t := range bb.tools {
			if id == q.After.BundleID && t.Key().Compare(q.After) <= 0 {
				continue
			}
			v := s.viewTool(t)
			if (!v.IsEnabled && !q.IncludeDisabled) || !hasAnyTag(v.Tags, q.Tags) {
				continue
			}
			out = append(out, v)
		}
	}
	s.mu.Unlock()
	if len(out) == 0 {
		return stored, nil
	}
	out = append(out, stored...)
	slices.SortStableFunc(out, func(a, b Tool) int { return bytes.Compare(a.BundleID[:], b.BundleID[:]) })
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// listStored lists the inner store's tools, leaving out the tools of a
// bundle stored under a built-in's id (the built-in's are served) and
// (unless q.IncludeDisabled) the go tools whose function is not
// registered, while still filling q.Limit.
func (s *BuiltInStore) listStored(ctx context.Context, q ToolQuery) ([]Tool, error) {
	var out []Tool
	for {
		page, err := s.inner.ListTools(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, t := range page {
			if _, builtIn := s.bundles[t.BundleID]; builtIn {
				continue
			}
			t = s.funcCheck(t)
			if !t.IsEnabled && !q.IncludeDisabled {
				continue
			}
			out = append(out, t)
		}
		if q.Limit == 0 || len(page) < q.Limit || len(out) >= q.Limit {
			if q.Limit > 0 && len(out) > q.Limit {
				out = out[:q.Limit]
			}
			return out, nil
		}
		q.After = page[len(page)-1].Key()
	}
}

// SetToolEnabled implements [Store]; for a built-in tool the switch goes
// to the overlay (inside a disabled built-in bundle it gives
// ErrBundleDisabled, as for stored ones).
func (s *BuiltInStore) SetToolEnabled(ctx context.Context, key ToolKey, enabled bool) (Tool, error) {
	bb, i, ok := s.builtInTool(key)
	if bb == nil {
		t, err := s.inner.SetToolEnabled(ctx, key, enabled)
		return s.funcCheck(t), err
	}
	if !ok {
		return Tool{}, toolNotFound(key)
	}
	if err := s.snapshot(ctx); err != nil {
		return Tool{}, err
	}
	s.mu.Lock()
	on := s.view(bb).IsEnabled
	s.mu.Unlock()
	if !on {
		return Tool{}, fmt.Errorf("bundle %s: %w", key.BundleID, ErrBundleDisabled)
	}
	id := bb.tools[i].ID
	if err := s.setEnabled(ctx, id, enabled); err != nil {
		return Tool{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewTool(bb.tools[i]), nil
}

// DeleteTool implements [Store]; a built-in tool gives ErrBuiltIn.
func (s *BuiltInStore) DeleteTool(ctx context.Context, key ToolKey) error {
	if bb, _, ok := s.builtInTool(key); bb != nil {
		if !ok {
			return toolNotFound(key)
		}
		return fmt.Errorf("tool %s@%s: %w", key.Slug, key.Version, ErrBuiltIn)
	}
	return s.inner.DeleteTool(ctx, key)
}

// RecordUsage implements [Store]: counts of built-ins are buffered in
// memory and added to the overlay in the background and at Close.
func (s *BuiltInStore) RecordUsage(ctx context.Context, key ToolKey, at time.Time) error {
	bb, i, ok := s.builtInTool(key)
	if bb == nil {
		return s.inner.RecordUsage(ctx, key, at)
	}
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	id := bb.tools[i].ID
	s.pending[id] = s.pending[id].Plus(Usage{Count: 1, Last: at.UTC().Truncate(time.Microsecond)})
	return nil
}

// ImportBundle implements [Store]; the id of a built-in bundle gives
// ErrBundleExists (it exists).
func (s *BuiltInStore) ImportBundle(ctx context.Context, b Bundle, tools []Tool) error {
	if _, ok := s.bundles[b.ID]; ok {
		return fmt.Errorf("bundle %s (built-in): %w", b.ID, ErrBundleExists)
	}
	return s.inner.ImportBundle(ctx, b, tools)
}

// ReapDeleted implements [Store] (built-ins are never deleted).
func (s *BuiltInStore) ReapDeleted(ctx context.Context) ([]uuid.UUID, error) {
	return s.inner.ReapDeleted(ctx)
}

func (s *BuiltInStore) checkOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// flushUsage adds the buffered counts to the overlay.
func (s *BuiltInStore) flushUsage(ctx context.Context) error {
	s.mu.Lock()
	batch := s.pending
	s.pending = map[uuid.UUID]Usage{}
	s.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := s.update(ctx, func(ov *overlay) bool {
		for id, u := range batch {
			ov.Calls[id] = ov.Calls[id].Plus(u)
		}
		return true
	})
	if err != nil {
		// Keep the counts for the next attempt.
		s.mu.Lock()
		for id, u := range batch {
			s.pending[id] = s.pending[id].Plus(u)
		}
		s.mu.Unlock()
	}
	return err
}

func (s *BuiltInStore) flushLoop(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	var failures sparselog.Failures // a store away is not logged every second
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			failures.Record(context.Background(), s.log, s.flushUsage(context.Background()),
				"catalogue: writing built-in usage counts failed; they stay buffered", "catalogue: writing built-in usage counts again")
		}
	}
}

// Close writes the buffered usage counts of built-ins, stops the
// background writer and closes the wrapped store.
func (s *BuiltInStore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	close(s.stop)
	<-s.done
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.flushUsage(ctx)
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return errors.Join(err, s.inner.Close())
}

// Watch implements [Watcher]. It watches the wrapped store when that is a
// Watcher ([FileStore], the PostgreSQL store), and every
// BuiltInOptions.WatchInterval the overlay file, whose enabled switches
// other processes sharing the directory may change (the usage counts
// they write there are not changes): a switch made elsewhere since the
// store was made, and not made through this store, is reported. changed
// is never called from two goroutines at once. Watch returns when ctx
// ends, the store is closed, or the wrapped store's Watch returns (with
// its error).
func (s *BuiltInStore) Watch(ctx context.Context, changed func()) error {
	return s.WatchBundles(ctx, func([]uuid.UUID) { changed() })
}

// WatchBundles implements [BundleWatcher]: Watch, with the bundles each
// change touched — the wrapped store's, when it is a BundleWatcher (nil
// otherwise), and the built-in bundles for a switch.
func (s *BuiltInStore) WatchBundles(ctx context.Context, changed func(bundles []uuid.UUID)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var callMu sync.Mutex
	call := func(ids []uuid.UUID) {
		callMu.Lock()
		defer callMu.Unlock()
		changed(ids)
	}
	innerDone := make(chan error, 1)
	switch w := s.inner.(type) {
	case BundleWatcher:
		go func() { innerDone <- w.WatchBundles(ctx, call) }()
		defer func() { cancel(); <-innerDone }()
	case Watcher:
		go func() { innerDone <- w.Watch(ctx, func() { call(nil) }) }()
		defer func() { cancel(); <-innerDone }()
	}
	t := time.NewTicker(s.watchEvery)
	defer t.Stop()
	var failures sparselog.Failures
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-innerDone:
			innerDone <- err // for the deferred wait
			return err
		case <-t.C:
		}
		if len(s.order) == 0 { // no built-ins: no switch to look for
			if err := s.checkOpen(); err != nil {
				return err
			}
			continue
		}
		switched, err := s.switched(ctx)
		if errors.Is(err, ErrClosed) {
			return err
		}
		failures.Record(ctx, s.log, err, "catalogue: reading the built-ins overlay for other processes' switches failed",
			"catalogue: reading the built-ins overlay for other processes' switches again")
		if switched {
			call(slices.Clone(s.order))
		}
	}
}

// switched reads the overlay (when its file changed) and reports whether
// its switches differ from the ones this process knew, or a write of this
// process found ones it did not know.
func (s *BuiltInStore) switched(ctx context.Context) (bool, error) {
	if s.keeper != nil {
		if err := s.checkOpen(); err != nil {
			return false, err
		}
		if err := s.readKept(ctx); err != nil {
			return false, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, ErrClosed
	}
	if err := s.readOverlay(); err != nil {
		return false, err
	}
	if !s.foreign && maps.Equal(s.known, s.ov.Enabled) {
		return false, nil
	}
	s.foreign = false
	s.known = maps.Clone(s.ov.Enabled)
	return true, nil
}
