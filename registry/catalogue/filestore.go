package catalogue

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/internal/regfile"
)

// Defaults of [FileOptions].
const (
	// DefaultMaxFileBytes is the default cap on one stored file, read or
	// written.
	DefaultMaxFileBytes = 8 << 20
	// DefaultMaxToolsPerBundle is the default cap on the tool versions of
	// one bundle.
	DefaultMaxToolsPerBundle = 10_000
	// DefaultMaxBundles is the default cap on the bundles of a store (so,
	// with DefaultMaxToolsPerBundle, on the number of tools).
	DefaultMaxBundles = 1_000
)

// FileOptions configures [OpenFileStore]. The zero value is ready to use.
type FileOptions struct {
	// Now is the store's clock (timestamps, the reaper). Nil means
	// time.Now. Tests inject a fake clock here.
	Now func() time.Time
	// Logger receives warnings about skipped files and failed background
	// writes. Nil means slog.Default().
	Logger *slog.Logger
	// FlushInterval is how often buffered usage counts are written. Zero
	// means one second; negative means only at Flush and Close.
	FlushInterval time.Duration
	// ReapInterval is how often the background reaper runs. Zero means one
	// hour; negative disables it (call ReapDeleted yourself).
	ReapInterval time.Duration
	// MaxFileBytes caps every stored file, read or written. Zero means
	// DefaultMaxFileBytes; negative is refused.
	MaxFileBytes int64
	// WatchInterval is how often Watch looks for changes made by other
	// processes. Zero means DefaultWatchInterval.
	WatchInterval time.Duration
	// MaxToolsPerBundle caps the tool versions of one bundle; a PutTool
	// beyond it fails with ErrLimit. Zero means DefaultMaxToolsPerBundle;
	// negative means no cap.
	MaxToolsPerBundle int
	// MaxBundles caps the bundles of the store, soft-deleted ones
	// included until reaped: creating one more (PutBundle, ImportBundle)
	// fails with ErrLimit. With MaxToolsPerBundle it bounds the number of
	// tools. It holds across processes sharing the directory: creations
	// take a store-wide lock. Zero means DefaultMaxBundles; negative means
	// no cap.
	MaxBundles int
}

// Problem is a stored file the store could not read as a whole record; it
// is skipped by reads and left in place.
type Problem struct {
	// Path is the file.
	Path string
	// Err says what is wrong; it wraps ErrCorrupt.
	Err error
}

// FileStore is the default [Store]: flat, human-readable JSON files under
// one directory, shareable by several processes.
//
// Layout:
//
//	<dir>/bundles/<bundleID>/bundle.json            the bundle manifest
//	<dir>/bundles/<bundleID>/tools/<name>.json      one file per tool version
//	<dir>/locks/<bundleID>.lock                     the bundle's lock (kept forever)
//	<dir>/changes                                   the change counter (see Watch)
//	<dir>/changes.log                               the bundles each change touched (see WatchBundles)
//	<dir>/locks/changes.lock                        their lock
//	<dir>/pagetoken.key                             the page token key (see PageTokenKey), mode 0600
//	<dir>/locks/pagetoken.lock                      its lock, held while the first process makes it
//
// A tool file's name is "<slug>@<version>~<hash>.json" (the slug@version
// part shortened to 200 bytes if needed; the hash is of the exact slug and
// version, so names differ even on case-insensitive file systems).
//
// Every write goes to a temporary file in the same directory, is synced,
// renamed over the target, and the directory is synced: a reader sees the
// old record or the new one, never a part. An imported bundle
// ([FileStore.ImportBundle]) is written whole into a staging directory
// "<dir>/bundles/.import-<bundleID>-<random>" (every file and directory
// synced) and renamed to its place in one step, so it appears with all
// its tools or not at all; Open removes staging directories a crashed
// import left behind. Every change happens under the
// bundle's lock: a mutex within the process and an flock(2) lock on the
// bundle's lock file across processes, so <slug, version> uniqueness holds
// for every process sharing the directory. Open cleans temporary files a
// crashed writer left behind and reports files that are not whole records
// (see [FileStore.Problems]); reads skip them.
//
// Tools read are kept decoded in memory (about a kilobyte each) while
// their files stay unchanged: same inode, size and modification time, the
// file last changed at least two seconds before it was read. Reading such
// a tool again costs a stat instead of an open, a read and a decode: a
// host starting on a large catalogue lists it whole several times but
// reads each file once. A change made behind the store's back is seen as
// soon as the file's inode, size or modification time differs; every
// tool returned is a copy of its own.
//
// Every change also increments the directory's change counter, which
// [FileStore.Watch] polls: a host sharing the directory with others
// learns of their changes within WatchInterval.
type FileStore struct {
	dir        string
	now        func() time.Time
	log        *slog.Logger
	maxFile    int64
	maxTools   int
	maxBundles int

	stripes [64]chan struct{}
	// creating is held, with the flock of locks/create.lock, from counting
	// the bundles to writing a new one: MaxBundles holds across processes.
	creating chan struct{}
	closed   atomic.Bool

	usage UsageBuffer

	// flushMu keeps reads from seeing counts between the buffer and the
	// file during a flush. Lock order: flushMu before a bundle lock.
	flushMu sync.RWMutex

	probMu   sync.Mutex
	problems map[string]error

	decoded toolCache // tools read, kept while their files are unchanged

	changes       *changeCount // <dir>/changes, for other processes' watchers
	changesAtOpen []byte       // its content when the store was opened
	watchEvery    time.Duration

	maint     *Maintenance
	closeOnce sync.Once
	closeErr  error
}

var _ Store = (*FileStore)(nil)

// OpenFileStore opens (creating if needed) the store in dir. It removes
// temporary files left by crashed writers and records files that are not
// whole records as problems, never failing on them. Close the store to
// write buffered usage counts.
func OpenFileStore(ctx context.Context, dir string, opts FileOptions) (*FileStore, error) {
	if dir == "" {
		return nil, fmt.Errorf("catalogue: open file store: expected a directory, got an empty path")
	}
	s := &FileStore{
		dir:        dir,
		now:        opts.Now,
		log:        opts.Logger,
		maxFile:    opts.MaxFileBytes,
		maxTools:   opts.MaxToolsPerBundle,
		maxBundles: opts.MaxBundles,
		problems:   map[string]error{},
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.maxFile < 0 {
		return nil, fmt.Errorf("catalogue: open file store: FileOptions.MaxFileBytes is %d; expected zero (DefaultMaxFileBytes) or a positive number of bytes", s.maxFile)
	}
	if s.maxFile == 0 {
		s.maxFile = DefaultMaxFileBytes
	}
	if s.maxTools == 0 {
		s.maxTools = DefaultMaxToolsPerBundle
	}
	if s.maxBundles == 0 {
		s.maxBundles = DefaultMaxBundles
	}
	if opts.WatchInterval < 0 {
		return nil, fmt.Errorf("catalogue: open file store: FileOptions.WatchInterval: expected zero or a positive duration, got %s", opts.WatchInterval)
	}
	s.watchEvery = cmp.Or(opts.WatchInterval, DefaultWatchInterval)
	s.changes = newChangeCount(dir)
	s.creating = make(chan struct{}, 1)
	for i := range s.stripes {
		s.stripes[i] = make(chan struct{}, 1)
	}
	for _, d := range []string{s.bundlesDir(), s.locksDir()} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("catalogue: open file store: %w", err)
		}
	}
	if err := s.recover(ctx); err != nil {
		return nil, err
	}
	s.maint = StartMaintenance(opts.FlushInterval, opts.ReapInterval, s.Flush, s.ReapDeleted, s.log)
	return s, nil
}

// Dir returns the store's directory.
func (s *FileStore) Dir() string { return s.dir }

// Problems returns the files found not to be whole records so far (at
// Open and by later reads), sorted by path.
func (s *FileStore) Problems() []Problem {
	s.probMu.Lock()
	defer s.probMu.Unlock()
	out := make([]Problem, 0, len(s.problems))
	for p, err := range s.problems {
		out = append(out, Problem{Path: p, Err: err})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func (s *FileStore) report(path string, err error) {
	s.probMu.Lock()
	_, seen := s.problems[path]
	s.problems[path] = err
	s.probMu.Unlock()
	if !seen {
		s.log.Warn("catalogue: skipping a stored file that is not a whole record", "path", path, "err", err)
	}
}

func (s *FileStore) forget(path string) {
	s.probMu.Lock()
	delete(s.problems, path)
	s.probMu.Unlock()
}

func (s *FileStore) bundlesDir() string { return filepath.Join(s.dir, "bundles") }
func (s *FileStore) locksDir() string   { return filepath.Join(s.dir, "locks") }
func (s *FileStore) bundleDir(id uuid.UUID) string {
	return filepath.Join(s.bundlesDir(), id.String())
}
func (s *FileStore) bundleFile(id uuid.UUID) string {
	return filepath.Join(s.bundleDir(id), "bundle.json")
}
func (s *FileStore) toolsDir(id uuid.UUID) string { return filepath.Join(s.bundleDir(id), "tools") }
func (s *FileStore) toolFile(k ToolKey) string {
	return filepath.Join(s.toolsDir(k.BundleID), toolFileName(k.Slug, k.Version))
}

// maxToolBase is the most bytes of "slug@version" a tool file name keeps.
const maxToolBase = 200

// toolFileName is the file name of a tool version (see FileStore).
func toolFileName(slug, version string) string {
	h := sha256.Sum256([]byte(slug + "\x00" + version))
	base := slug + "@" + version
	if len(base) > maxToolBase {
		i := maxToolBase
		for i > 0 && !utf8.RuneStart(base[i]) {
			i--
		}
		base = base[:i]
	}
	return base + "~" + hex.EncodeToString(h[:8]) + ".json"
}

// keyFromFileName reads the slug and version out of a tool file name made
// by toolFileName. ok is false for a name that is not of that form, and
// for one whose "slug@version" part may have been cut short and is not the
// name of the key it spells (a slug and version are never "@" or "~").
func keyFromFileName(name string) (slug, version string, ok bool) {
	const tail = len("~") + 16 + len(".json")
	if len(name) <= tail || !strings.HasSuffix(name, ".json") || name[len(name)-tail] != '~' {
		return "", "", false
	}
	base := name[:len(name)-tail]
	slug, version, ok = strings.Cut(base, "@")
	if !ok {
		return "", "", false
	}
	// A cut keeps at least maxToolBase-3 bytes (it backs up to the start
	// of a rune of at most four): a shorter part is whole.
	if len(base) > maxToolBase-utf8.UTFMax && toolFileName(slug, version) != name {
		return "", "", false
	}
	return slug, version, true
}

// toolNotFound is the error for a tool version that is not stored, the
// same in every store.
func toolNotFound(k ToolKey) error {
	return fmt.Errorf("%s: %w", k.Describe(), ErrNotFound)
}

const tmpPrefix = ".tmp-"

// stamp is the store's clock in UTC, truncated to microseconds (what
// every back-end, PostgreSQL included, keeps).
func (s *FileStore) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// lock takes the bundle's lock: a mutex stripe in this process, then the
// flock on its lock file.
func (s *FileStore) lock(ctx context.Context, id uuid.UUID) (func(), error) {
	stripe := s.stripes[id[15]%byte(len(s.stripes))]
	return s.lockFile(ctx, stripe, id.String()+".lock", "bundle "+id.String())
}

// lockFile takes mu (a channel of capacity 1) and then the flock of the
// lock file name, waiting as long as ctx allows; what names the lock in
// errors and logs.
func (s *FileStore) lockFile(ctx context.Context, mu chan struct{}, name, what string) (func(), error) {
	select {
	case mu <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// A lock file that is not a regular file (a FIFO would block the open
	// for good) is refused at once.
	fl, err := regfile.Lock(ctx, filepath.Join(s.locksDir(), name), 0o600, false, time.Millisecond)
	if err != nil {
		<-mu
		return nil, fmt.Errorf("catalogue: locking %s: %w", what, err)
	}
	return func() {
		if err := fl.Unlock(); err != nil {
			s.log.Warn("catalogue: unlocking", "lock", what, "err", err)
		}
		_ = fl.Close()
		<-mu
	}, nil
}

// readCapped reads a whole file of at most s.maxFile bytes.
func (s *FileStore) readCapped(path string) ([]byte, error) {
	data, _, err := s.readCappedInfo(path)
	return data, err
}

// readCappedInfo is readCapped that also describes the file read (its
// inode, size and modification time, taken from the open file). A path
// that is not a regular file (a FIFO, whose open would wait for a writer
// for good, a socket, a device, a directory) is not a whole record: an
// error wrapping ErrCorrupt and regfile.ErrNotRegular, without waiting.
func (s *FileStore) readCappedInfo(path string) ([]byte, fs.FileInfo, error) {
	f, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, s.maxFile+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > s.maxFile {
		return nil, nil, fmt.Errorf("%w: larger than %d bytes", ErrCorrupt, s.maxFile)
	}
	return data, fi, nil
}

// writeAtomic replaces path with data: temp file, fsync, rename, fsync of
// the directory.
func (s *FileStore) writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

func (s *FileStore) encode(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	if int64(len(data)) > s.maxFile {
		return nil, &ValidationError{Fields: []FieldError{{Problem: fmt.Sprintf("expected a record of at most %d bytes once stored, got %d", s.maxFile, len(data))}}}
	}
	return data, nil
}

// readBundle reads a bundle manifest: ErrNotFound if absent, ErrCorrupt
// (and a reported problem) if not a whole record.
func (s *FileStore) readBundle(id uuid.UUID) (Bundle, error) {
	path := s.bundleFile(id)
	data, err := s.readCapped(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Bundle{}, fmt.Errorf("bundle %s: %w", id, ErrNotFound)
	}
	if err != nil && !errors.Is(err, ErrCorrupt) {
		return Bundle{}, fmt.Errorf("catalogue: reading bundle %s: %w", id, err)
	}
	var b Bundle
	if err == nil {
		err = checkBundleRecord(data, id, &b)
	}
	if err != nil {
		err = fmt.Errorf("bundle %s: %w", id, err)
		s.report(path, err)
		return Bundle{}, err
	}
	s.forget(path)
	return b, nil
}

func checkBundleRecord(data []byte, id uuid.UUID, b *Bundle) error {
	if err := json.Unmarshal(data, b); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	switch {
	case b.ID != id:
		return fmt.Errorf("%w: id %s does not match its directory", ErrCorrupt, b.ID)
	case b.CreatedAt.IsZero():
		return fmt.Errorf("%w: no createdAt", ErrCorrupt)
	case ValidateSlug(b.Slug) != nil:
		return fmt.Errorf("%w: bad slug %q", ErrCorrupt, clip(b.Slug))
	}
	if b.SlugSince.IsZero() { // written before the store kept it
		// Not CreatedAt: an import keeps its archive's, and before, the
		// plain name went to the smallest id (IDTime keeps that order).
		b.SlugSince = IDTime(b.ID)
	}
	return nil
}

// readTool reads a tool file: ErrNotFound if absent, ErrCorrupt (and a
// reported problem) if not a whole record of key (want nil: any key).
func (s *FileStore) readTool(path string, bundleID uuid.UUID, want *ToolKey) (Tool, error) {
	name := filepath.Base(path)
	if t, ok := s.decoded.get(bundleID, name, path); ok {
		return wantTool(t, want)
	}
	data, fi, err := s.readCappedInfo(path)
	if errors.Is(err, fs.ErrNotExist) {
		if want != nil {
			return Tool{}, toolNotFound(*want)
		}
		return Tool{}, fmt.Errorf("tool file %s: %w", name, ErrNotFound)
	}
	if err != nil && !errors.Is(err, ErrCorrupt) {
		return Tool{}, fmt.Errorf("catalogue: reading tool: %w", err)
	}
	var t Tool
	if err == nil {
		err = checkToolRecord(data, bundleID, name, &t)
	}
	if err != nil {
		err = fmt.Errorf("tool file %s: %w", name, err)
		s.report(path, err)
		return Tool{}, err
	}
	s.forget(path)
	s.decoded.put(bundleID, name, fi, &t)
	return wantTool(t, want)
}

// wantTool returns t, or ErrNotFound when it is not the tool of key want
// (want nil: any tool).
func wantTool(t Tool, want *ToolKey) (Tool, error) {
	if want != nil && t.Key() != *want {
		return Tool{}, toolNotFound(*want)
	}
	return t, nil
}

func checkToolRecord(data []byte, bundleID uuid.UUID, name string, t *Tool) error {
	if err := json.Unmarshal(data, t); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	switch {
	case t.ID == uuid.Nil:
		return fmt.Errorf("%w: no id", ErrCorrupt)
	case t.BundleID != bundleID:
		return fmt.Errorf("%w: bundleID %s does not match its directory", ErrCorrupt, t.BundleID)
	case ValidateSlug(t.Slug) != nil || ValidateVersion(t.Version) != nil:
		return fmt.Errorf("%w: bad slug or version", ErrCorrupt)
	case toolFileName(t.Slug, t.Version) != name:
		return fmt.Errorf("%w: slug and version do not match the file name", ErrCorrupt)
	case !t.Type.Known():
		return fmt.Errorf("%w: bad type %q", ErrCorrupt, t.Type)
	case t.CreatedAt.IsZero() || len(t.ArgSchema) == 0:
		return fmt.Errorf("%w: missing createdAt or argSchema", ErrCorrupt)
	}
	return nil
}

// recover runs at Open: under each bundle's lock, temporary files are
// removed, an empty bundle directory without a manifest (a creation cut
// short) is removed, and every file is checked.
func (s *FileStore) recover(ctx context.Context) error {
	if err := s.removeStaging(ctx); err != nil {
		return err
	}
	// Read before any record: Watch reports every change counted after.
	s.changesAtOpen, _ = s.changes.read()
	ids, err := s.bundleIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		unlock, err := s.lock(ctx, id)
		if err != nil {
			return err
		}
		s.recoverBundle(id)
		unlock()
	}
	return nil
}

func (s *FileStore) recoverBundle(id uuid.UUID) {
	removeTemps(s.bundleDir(id))
	removeTemps(s.toolsDir(id))
	names, _ := toolNames(s.toolsDir(id))
	if _, err := s.readBundle(id); errors.Is(err, ErrNotFound) {
		if len(names) == 0 {
			_ = os.Remove(s.toolsDir(id))
			_ = os.Remove(s.bundleDir(id))
			return
		}
		s.report(s.bundleFile(id), fmt.Errorf("%w: a bundle directory with tools but no bundle.json", ErrCorrupt))
	}
	// Each file is checked (and kept decoded for the reads that follow)
	// on up to GOMAXPROCS goroutines: a large store opens in less time.
	dir := s.toolsDir(id)
	eachParallel(len(names), func(i int) {
		_, _ = s.readTool(filepath.Join(dir, names[i]), id, nil)
	})
}

// eachParallel runs fn(i) for every i in [0, n) on up to GOMAXPROCS
// goroutines, returning when all are done.
func eachParallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

func removeTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	removed := false
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			if os.Remove(filepath.Join(dir, e.Name())) == nil {
				removed = true
			}
		}
	}
	if removed {
		_ = syncDir(dir)
	}
}

// reserveBundle refuses a new bundle id once the store holds MaxBundles
// bundles. Otherwise it returns with the store's creation lock held (in
// this process and across processes); the caller releases it once the new
// bundle's directory is in place, so that no other creator counts before
// it exists. The caller holds the bundle's lock (lock order: bundle, then
// creation).
func (s *FileStore) reserveBundle(ctx context.Context, id uuid.UUID) (func(), error) {
	if s.maxBundles < 0 {
		return func() {}, nil
	}
	unlock, err := s.lockFile(ctx, s.creating, "create.lock", "bundle creation")
	if err != nil {
		return nil, err
	}
	ids, err := s.bundleIDs()
	if err != nil {
		unlock()
		return nil, err
	}
	n := len(ids)
	if slices.ContainsFunc(ids, func(x uuid.UUID) bool { return x == id }) {
		n-- // a directory left without a manifest: this bundle reuses it
	}
	if n >= s.maxBundles {
		unlock()
		return nil, fmt.Errorf("the store holds %d bundles, the most allowed: %w", n, ErrLimit)
	}
	return unlock, nil
}

// bundleIDs lists the bundle directories, sorted by id.
func (s *FileStore) bundleIDs() ([]uuid.UUID, error) {
	entries, err := os.ReadDir(s.bundlesDir())
	if err != nil {
		return nil, fmt.Errorf("catalogue: listing bundles: %w", err)
	}
	ids := make([]uuid.UUID, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() || len(e.Name()) != 36 {
			continue
		}
		id, err := uuid.Parse(e.Name())
		if err != nil || id.String() != e.Name() {
			continue
		}
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	return ids, nil
}

// toolNames lists the tool files of a directory, sorted. An entry that
// is not a regular file (a FIFO, a device, a directory) under a tool
// file's name is listed too, so that reading it reports it as damaged,
// as a file of bad JSON is; symbolic links are not listed.
func toolNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("catalogue: listing tools: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

func (s *FileStore) checkOpen() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return nil
}

// PutBundle implements [Store].
func (s *FileStore) PutBundle(ctx context.Context, id uuid.UUID, spec BundleSpec) (Bundle, bool, error) {
	if err := s.checkOpen(); err != nil {
		return Bundle{}, false, err
	}
	if err := CheckBundlePut(id, spec); err != nil {
		return Bundle{}, false, err
	}
	unlock, err := s.lock(ctx, id)
	if err != nil {
		return Bundle{}, false, err
	}
	defer unlock()
	now := s.stamp()
	b, err := s.readBundle(id)
	created := false
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
		// A corrupt manifest is replaced by a new one: PUT repairs it.
		if errors.Is(err, ErrNotFound) {
			release, err := s.reserveBundle(ctx, id)
			if err != nil {
				return Bundle{}, false, err
			}
			defer release()
		}
		b, created = Bundle{ID: id, CreatedAt: now, SlugSince: now}, true
	case err != nil:
		return Bundle{}, false, err
	case b.SoftDeletedAt != nil:
		return Bundle{}, false, fmt.Errorf("bundle %s: %w", id, ErrBundleDeleted)
	case b.BuiltIn:
		return Bundle{}, false, fmt.Errorf("bundle %s: %w", id, ErrBuiltIn)
	}
	if spec.Slug != b.Slug {
		b.SlugSince = now
	}
	b.BundleSpec = spec
	b.ModifiedAt = now
	if err := s.writeBundle(b); err != nil {
		return Bundle{}, false, err
	}
	s.changed(ctx, id)
	return b, created, nil
}

var _ BuiltInReserver = (*FileStore)(nil)

// ReserveBuiltIn implements [BuiltInReserver]: under the bundle's lock,
// so that a PutBundle or ImportBundle of the id in any process sharing
// the directory comes before (and the reservation finds the bundle) or
// after (and is refused).
func (s *FileStore) ReserveBuiltIn(ctx context.Context, b Bundle) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	b, err := CheckReservation(b)
	if err != nil {
		return err
	}
	unlock, err := s.lock(ctx, b.ID)
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := s.readBundle(b.ID)
	switch {
	case errors.Is(err, ErrNotFound):
		cur = b
	case err != nil:
		return err
	case !cur.BuiltIn:
		return fmt.Errorf("bundle %s (%q): %w", b.ID, cur.Slug, ErrBundleExists)
	case cur.Slug == b.Slug && cur.DisplayName == b.DisplayName && cur.Description == b.Description:
		return nil
	default:
		cur.Slug, cur.DisplayName, cur.Description = b.Slug, b.DisplayName, b.Description
	}
	if err := s.writeBundle(cur); err != nil {
		return err
	}
	s.changed(ctx, b.ID)
	return nil
}

func (s *FileStore) writeBundle(b Bundle) error {
	data, err := s.encode(b)
	if err != nil {
		return err
	}
	if _, err := os.Stat(s.toolsDir(b.ID)); errors.Is(err, fs.ErrNotExist) {
		// A new bundle: its directories, and their entries in the parent
		// directories, are made durable before the manifest is written.
		if err := os.MkdirAll(s.toolsDir(b.ID), 0o750); err != nil {
			return fmt.Errorf("catalogue: writing bundle %s: %w", b.ID, err)
		}
		for _, d := range []string{s.bundlesDir(), s.bundleDir(b.ID)} {
			if err := syncDir(d); err != nil {
				return fmt.Errorf("catalogue: writing bundle %s: %w", b.ID, err)
			}
		}
	}
	if err := s.writeAtomic(s.bundleFile(b.ID), data); err != nil {
		return fmt.Errorf("catalogue: writing bundle %s: %w", b.ID, err)
	}
	s.forget(s.bundleFile(b.ID))
	return nil
}

// GetBundle implements [Store].
func (s *FileStore) GetBundle(ctx context.Context, id uuid.UUID) (Bundle, error) {
	if err := s.checkOpen(); err != nil {
		return Bundle{}, err
	}
	return s.readBundle(id)
}

// ListBundles implements [Store].
func (s *FileStore) ListBundles(ctx context.Context, q BundleQuery) ([]Bundle, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	ids, err := s.bundleIDs()
	if err != nil {
		return nil, err
	}
	want := idSet(q.IDs)
	var out []Bundle
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if bytes.Compare(id[:], q.After[:]) <= 0 || (want != nil && !want[id]) {
			continue
		}
		b, err := s.readBundle(id)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrCorrupt) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if (!b.IsEnabled && !q.IncludeDisabled) || (b.SoftDeletedAt != nil && !q.IncludeDeleted) {
			continue
		}
		out = append(out, b)
		if q.Limit > 0 && len(out) == q.Limit {
			break
		}
	}
	return out, nil
}

func idSet(ids []uuid.UUID) map[uuid.UUID]bool {
	if len(ids) == 0 {
		return nil
	}
	m := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// SetBundleEnabled implements [Store].
func (s *FileStore) SetBundleEnabled(ctx context.Context, id uuid.UUID, enabled bool) (Bundle, error) {
	return s.updateBundle(ctx, id, func(b *Bundle) error {
		if b.SoftDeletedAt != nil {
			return fmt.Errorf("bundle %s: %w", id, ErrBundleDeleted)
		}
		b.IsEnabled = enabled
		return nil
	})
}

// SoftDeleteBundle implements [Store].
func (s *FileStore) SoftDeleteBundle(ctx context.Context, id uuid.UUID) (Bundle, error) {
	return s.updateBundle(ctx, id, func(b *Bundle) error {
		if b.BuiltIn {
			return fmt.Errorf("bundle %s: %w", id, ErrBuiltIn)
		}
		if b.SoftDeletedAt == nil {
			now := s.stamp()
			b.SoftDeletedAt = &now
		}
		return nil
	})
}

func (s *FileStore) updateBundle(ctx context.Context, id uuid.UUID, change func(*Bundle) error) (Bundle, error) {
	if err := s.checkOpen(); err != nil {
		return Bundle{}, err
	}
	if _, err := s.readBundle(id); err != nil {
		return Bundle{}, err
	}
	unlock, err := s.lock(ctx, id)
	if err != nil {
		return Bundle{}, err
	}
	defer unlock()
	b, err := s.readBundle(id)
	if err != nil {
		return Bundle{}, err
	}
	before := b
	if err := change(&b); err != nil {
		return Bundle{}, err
	}
	if sameBundle(before, b) {
		return b, nil
	}
	if err := s.writeBundle(b); err != nil {
		return Bundle{}, err
	}
	s.changed(ctx, id)
	return b, nil
}

func sameBundle(a, b Bundle) bool {
	return a.BundleSpec == b.BundleSpec && (a.SoftDeletedAt == nil) == (b.SoftDeletedAt == nil)
}

// bundleForChange reads the bundle under its lock and refuses changes
// inside a soft-deleted or disabled one (returning the bundle read with
// that error).
func (s *FileStore) bundleForChange(id uuid.UUID) (Bundle, error) {
	b, err := s.readBundle(id)
	if err != nil {
		return Bundle{}, err
	}
	if b.SoftDeletedAt != nil {
		return b, fmt.Errorf("bundle %s: %w", id, ErrBundleDeleted)
	}
	if !b.IsEnabled {
		return b, fmt.Errorf("bundle %s: %w", id, ErrBundleDisabled)
	}
	return b, nil
}

// PutTool implements [Store].
func (s *FileStore) PutTool(ctx context.Context, key ToolKey, spec ToolSpec) (Tool, error) {
	if err := s.checkOpen(); err != nil {
		return Tool{}, err
	}
	if err := CheckToolPut(key, spec); err != nil {
		return Tool{}, err
	}
	if _, err := s.readBundle(key.BundleID); err != nil {
		return Tool{}, err
	}
	unlock, err := s.lock(ctx, key.BundleID)
	if err != nil {
		return Tool{}, err
	}
	defer unlock()
	b, err := s.bundleForChange(key.BundleID)
	if b.BuiltIn { // read-only whatever its state
		return Tool{}, fmt.Errorf("bundle %s: %w", b.ID, ErrBuiltIn)
	}
	if err != nil {
		return Tool{}, err
	}
	path := s.toolFile(key)
	if _, err := os.Lstat(path); err == nil {
		return Tool{}, fmt.Errorf("%s: %w", key.Describe(), ErrConflict)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Tool{}, fmt.Errorf("catalogue: checking tool: %w", err)
	}
	if s.maxTools > 0 {
		names, err := toolNames(s.toolsDir(key.BundleID))
		if err != nil {
			return Tool{}, err
		}
		if len(names) >= s.maxTools {
			return Tool{}, fmt.Errorf("bundle %s holds %d tool versions, the most allowed: %w", key.BundleID, len(names), ErrLimit)
		}
	}
	id, err := NewID()
	if err != nil {
		return Tool{}, fmt.Errorf("catalogue: new tool id: %w", err)
	}
	now := s.stamp()
	t := Tool{ID: id, BundleID: key.BundleID, Slug: key.Slug, Version: key.Version, ToolSpec: spec, CreatedAt: now, ModifiedAt: now}
	data, err := s.encode(t)
	if err != nil {
		return Tool{}, err
	}
	if err := os.MkdirAll(s.toolsDir(key.BundleID), 0o750); err != nil {
		return Tool{}, fmt.Errorf("catalogue: writing tool: %w", err)
	}
	if err := s.writeAtomic(path, data); err != nil {
		return Tool{}, fmt.Errorf("catalogue: writing tool: %w", err)
	}
	s.changed(ctx, key.BundleID)
	return t, nil
}

// GetTool implements [Store].
func (s *FileStore) GetTool(ctx context.Context, key ToolKey) (Tool, error) {
	if err := s.checkOpen(); err != nil {
		return Tool{}, err
	}
	if err := key.Validate(); err != nil {
		return Tool{}, err
	}
	s.flushMu.RLock()
	defer s.flushMu.RUnlock()
	t, err := s.readTool(s.toolFile(key), key.BundleID, &key)
	if err != nil {
		return Tool{}, err
	}
	s.usage.Apply(&t)
	return t, nil
}

// ListTools implements [Store].
func (s *FileStore) ListTools(ctx context.Context, q ToolQuery) ([]Tool, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	ids, err := s.bundleIDs()
	if err != nil {
		return nil, err
	}
	s.decoded.keepBundles(ids)
	want := idSet(q.BundleIDs)
	s.flushMu.RLock()
	defer s.flushMu.RUnlock()
	var out []Tool
	for _, id := range ids {
		if c := bytes.Compare(id[:], q.After.BundleID[:]); c < 0 || (want != nil && !want[id]) {
			continue
		}
		b, err := s.readBundle(id)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrCorrupt) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if (!b.IsEnabled && !q.IncludeDisabled) || (b.SoftDeletedAt != nil && !q.IncludeDeleted) {
			continue
		}
		names, err := toolNames(s.toolsDir(id))
		if err != nil {
			return nil, err
		}
		s.decoded.keepOnly(id, names)
		for _, e := range s.inKeyOrder(id, names) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if id == q.After.BundleID && e.key.Compare(q.After) <= 0 {
				continue
			}
			t, err := s.readTool(filepath.Join(s.toolsDir(id), e.name), id, nil)
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrCorrupt) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if (!t.IsEnabled && !q.IncludeDisabled) || !hasAnyTag(t.Tags, q.Tags) {
				continue
			}
			s.usage.Apply(&t)
			out = append(out, t)
			if q.Limit > 0 && len(out) == q.Limit {
				return out, nil
			}
		}
	}
	return out, nil
}

// namedTool is a tool file of a bundle and the key it holds.
type namedTool struct {
	name string
	key  ToolKey
}

// inKeyOrder returns the tool files names of bundle id in the order every
// store lists tools ([ToolKey.Compare]): slug, then version, byte by
// byte. The key comes from the file name, or, for a name cut short, from
// the file (kept decoded for the read that follows); a file whose key
// cannot be read is left out, as listings skip it anyway.
func (s *FileStore) inKeyOrder(id uuid.UUID, names []string) []namedTool {
	out := make([]namedTool, 0, len(names))
	for _, n := range names {
		k := ToolKey{BundleID: id}
		var ok bool
		if k.Slug, k.Version, ok = keyFromFileName(n); !ok {
			t, err := s.readTool(filepath.Join(s.toolsDir(id), n), id, nil)
			if err != nil {
				continue
			}
			k = t.Key()
		}
		out = append(out, namedTool{name: n, key: k})
	}
	slices.SortFunc(out, func(a, b namedTool) int { return a.key.Compare(b.key) })
	return out
}

func hasAnyTag(have, want []string) bool {
	if len(want) == 0 {
		return true
	}
	for _, w := range want {
		if slices.Contains(have, w) {
			return true
		}
	}
	return false
}

// SetToolEnabled implements [Store].
func (s *FileStore) SetToolEnabled(ctx context.Context, key ToolKey, enabled bool) (Tool, error) {
	if err := s.checkOpen(); err != nil {
		return Tool{}, err
	}
	if err := key.Validate(); err != nil {
		return Tool{}, err
	}
	if _, err := s.readBundle(key.BundleID); err != nil {
		return Tool{}, err
	}
	// Lock order, as in Flush: flushMu, then the bundle.
	s.flushMu.RLock()
	defer s.flushMu.RUnlock()
	unlock, err := s.lock(ctx, key.BundleID)
	if err != nil {
		return Tool{}, err
	}
	defer unlock()
	if _, err := s.bundleForChange(key.BundleID); err != nil {
		return Tool{}, err
	}
	path := s.toolFile(key)
	t, err := s.readTool(path, key.BundleID, &key)
	if err != nil {
		return Tool{}, err
	}
	if t.IsEnabled != enabled {
		t.IsEnabled = enabled
		data, err := s.encode(t)
		if err != nil {
			return Tool{}, err
		}
		if err := s.writeAtomic(path, data); err != nil {
			return Tool{}, fmt.Errorf("catalogue: writing tool: %w", err)
		}
		s.changed(ctx, key.BundleID)
	}
	s.usage.Apply(&t)
	return t, nil
}

// DeleteTool implements [Store].
func (s *FileStore) DeleteTool(ctx context.Context, key ToolKey) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := key.Validate(); err != nil {
		return err
	}
	if _, err := s.readBundle(key.BundleID); err != nil && !errors.Is(err, ErrCorrupt) {
		return err
	}
	unlock, err := s.lock(ctx, key.BundleID)
	if err != nil {
		return err
	}
	defer unlock()
	path := s.toolFile(key)
	t, err := s.readTool(path, key.BundleID, &key)
	if errors.Is(err, ErrNotFound) {
		return err
	}
	if err == nil && t.BuiltIn {
		return fmt.Errorf("tool %s@%s: %w", key.Slug, key.Version, ErrBuiltIn)
	}
	// A corrupt file is deleted too: that is how it is cleared.
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return toolNotFound(key)
		}
		return fmt.Errorf("catalogue: deleting tool: %w", err)
	}
	s.forget(path)
	s.decoded.drop(key.BundleID, filepath.Base(path))
	s.usage.Forget(key)
	s.changed(ctx, key.BundleID)
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("catalogue: deleting tool: %w", err)
	}
	return nil
}

// RecordUsage implements [Store]. It only takes an in-memory lock.
func (s *FileStore) RecordUsage(ctx context.Context, key ToolKey, at time.Time) error {
	return s.usage.Record(key, at)
}

// Flush writes the buffered usage counts now. Counts that cannot be
// written stay buffered for the next flush; counts of tools that no longer
// exist are dropped.
func (s *FileStore) Flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	batch := s.usage.Take()
	if len(batch) == 0 {
		return nil
	}
	byBundle := map[uuid.UUID][]ToolKey{}
	for k := range batch {
		byBundle[k.BundleID] = append(byBundle[k.BundleID], k)
	}
	var errs []error
	for id, keys := range byBundle {
		if err := s.flushBundle(ctx, id, keys, batch); err != nil {
			errs = append(errs, err)
		}
	}
	// What is left in batch was not written (flushBundle removes each key
	// it writes or drops): it stays buffered for the next flush.
	s.usage.Return(batch)
	return errors.Join(errs...)
}

// flushBundle writes the counts of keys; each written key is removed from
// batch, so on error batch holds what is left.
func (s *FileStore) flushBundle(ctx context.Context, id uuid.UUID, keys []ToolKey, batch map[ToolKey]Usage) error {
	unlock, err := s.lock(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	for _, k := range keys {
		if k.Validate() != nil {
			delete(batch, k)
			continue
		}
		path := s.toolFile(k)
		t, err := s.readTool(path, id, &k)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrCorrupt) {
			delete(batch, k)
			continue
		}
		if err != nil {
			return err
		}
		batch[k].applyTo(&t)
		data, err := s.encode(t)
		if err != nil {
			return err
		}
		if err := s.writeAtomic(path, data); err != nil {
			return fmt.Errorf("catalogue: writing usage of %s@%s: %w", k.Slug, k.Version, err)
		}
		delete(batch, k)
	}
	return nil
}

const stagePrefix = ".import-"

// removeStaging removes the staging directories of imports cut short by a
// crash. Each is removed under its bundle's lock: an import still running
// in another process holds that lock until its rename.
func (s *FileStore) removeStaging(ctx context.Context) error {
	entries, err := os.ReadDir(s.bundlesDir())
	if err != nil {
		return fmt.Errorf("catalogue: listing bundles: %w", err)
	}
	removed := false
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, stagePrefix) || len(name) < len(stagePrefix)+36 {
			continue
		}
		id, err := uuid.Parse(name[len(stagePrefix) : len(stagePrefix)+36])
		if err != nil {
			continue
		}
		unlock, err := s.lock(ctx, id)
		if err != nil {
			return err
		}
		if err := os.RemoveAll(filepath.Join(s.bundlesDir(), name)); err != nil {
			s.log.Warn("catalogue: removing an unfinished import", "dir", name, "err", err)
		} else {
			removed = true
		}
		unlock()
	}
	if removed {
		_ = syncDir(s.bundlesDir())
	}
	return nil
}

// ImportBundle implements [Store]. The records are encoded first, then,
// under the bundle's lock, written into a staging directory beside the
// bundles and renamed into place (see FileStore).
func (s *FileStore) ImportBundle(ctx context.Context, b Bundle, tools []Tool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	b, tools, err := CheckImport(b, tools)
	if err != nil {
		return err
	}
	if s.maxTools > 0 && len(tools) > s.maxTools {
		return fmt.Errorf("bundle %s: %d tool versions, more than the %d allowed: %w", b.ID, len(tools), s.maxTools, ErrLimit)
	}
	b.SlugSince = s.stamp()
	files := make(map[string][]byte, len(tools))
	for i := range tools {
		data, err := s.encode(tools[i])
		if err != nil {
			return prefixed(err, fmt.Sprintf("tools[%d]", i))
		}
		files[toolFileName(tools[i].Slug, tools[i].Version)] = data
	}
	manifest, err := s.encode(b)
	if err != nil {
		return prefixed(err, "bundle")
	}
	// flushMu is not taken: a long import must not hold up a flush, and
	// readers behind it. See the end for buffered counts.
	unlock, err := s.lock(ctx, b.ID)
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.clearForImport(b.ID); err != nil {
		return err
	}
	release, err := s.reserveBundle(ctx, b.ID)
	if err != nil {
		return err
	}
	defer release()
	stage, err := os.MkdirTemp(s.bundlesDir(), stagePrefix+b.ID.String()+"-")
	if err != nil {
		return fmt.Errorf("catalogue: importing bundle %s: %w", b.ID, err)
	}
	done := false
	defer func() {
		if !done {
			_ = os.RemoveAll(stage)
		}
	}()
	if err := os.Chmod(stage, 0o750); err != nil {
		return fmt.Errorf("catalogue: importing bundle %s: %w", b.ID, err)
	}
	if err := writeStaged(ctx, stage, manifest, files); err != nil {
		return fmt.Errorf("catalogue: importing bundle %s: %w", b.ID, err)
	}
	if err := os.Rename(stage, s.bundleDir(b.ID)); err != nil {
		return fmt.Errorf("catalogue: importing bundle %s: %w", b.ID, err)
	}
	done = true
	s.changed(ctx, b.ID)
	// Counts buffered for these keys are calls of tools that did not
	// exist: they are dropped, as RecordUsage's contract says. (A flush
	// that took them from the buffer just before would apply them; only a
	// caller recording calls of tools that do not exist yet can see that.)
	s.usage.ForgetBundle(b.ID)
	if err := syncDir(s.bundlesDir()); err != nil {
		return fmt.Errorf("catalogue: importing bundle %s: %w", b.ID, err)
	}
	return nil
}

// clearForImport refuses an import over an existing bundle. A directory
// left by a creation cut short (no manifest, no tool) is removed, as Open
// would.
func (s *FileStore) clearForImport(id uuid.UUID) error {
	if _, err := os.Lstat(s.bundleDir(id)); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("catalogue: importing bundle %s: %w", id, err)
	}
	names, err := toolNames(s.toolsDir(id))
	if err != nil {
		return err
	}
	if _, err := os.Lstat(s.bundleFile(id)); errors.Is(err, fs.ErrNotExist) && len(names) == 0 {
		removeTemps(s.toolsDir(id))
		removeTemps(s.bundleDir(id))
		_ = os.Remove(s.toolsDir(id))
		if err := os.Remove(s.bundleDir(id)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("bundle %s: %w", id, ErrBundleExists)
}

// stageWriters is how many tool files an import writes and syncs at
// once: file systems batch concurrent fsyncs into fewer journal commits.
const stageWriters = 16

// writeStaged writes the manifest and the tool files into stage, syncing
// every file and both directories.
func writeStaged(ctx context.Context, stage string, manifest []byte, files map[string][]byte) error {
	tools := filepath.Join(stage, "tools")
	if err := os.Mkdir(tools, 0o750); err != nil {
		return err
	}
	names := make(chan string)
	errs := make(chan error, stageWriters)
	var wg sync.WaitGroup
	for range min(stageWriters, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := writeSynced(filepath.Join(tools, name), files[name]); err != nil {
					errs <- err
					for range names { // drain: the import fails as a whole
					}
					return
				}
			}
		}()
	}
	var err error
feed:
	for name := range files {
		select {
		case names <- name:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(names)
	wg.Wait()
	close(errs)
	if err != nil {
		return err
	}
	if err := <-errs; err != nil {
		return err
	}
	if err := syncDir(tools); err != nil {
		return err
	}
	if err := writeSynced(filepath.Join(stage, "bundle.json"), manifest); err != nil {
		return err
	}
	return syncDir(stage)
}

// writeSynced creates path (which must not exist) with data and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// prefixed puts record before the fields of a *ValidationError.
func prefixed(err error, record string) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	out := &ValidationError{Fields: make([]FieldError, len(ve.Fields))}
	for i, f := range ve.Fields {
		out.Fields[i] = FieldError{Field: under(record, f.Field), Problem: f.Problem}
	}
	return out
}

// ReapDeleted implements [Store].
func (s *FileStore) ReapDeleted(ctx context.Context) ([]uuid.UUID, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	ids, err := s.bundleIDs()
	if err != nil {
		return nil, err
	}
	var reaped []uuid.UUID
	defer func() {
		if len(reaped) > 0 {
			s.changed(ctx, reaped...)
		}
	}()
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return reaped, err
		}
		if !s.dueForReaping(id) {
			continue
		}
		unlock, err := s.lock(ctx, id)
		if err != nil {
			return reaped, err
		}
		ok, err := s.reapLocked(id)
		unlock()
		if err != nil {
			return reaped, err
		}
		if ok {
			reaped = append(reaped, id)
		}
	}
	if len(reaped) > 0 {
		if err := syncDir(s.bundlesDir()); err != nil {
			return reaped, fmt.Errorf("catalogue: reaping: %w", err)
		}
	}
	return reaped, nil
}

func (s *FileStore) dueForReaping(id uuid.UUID) bool {
	b, err := s.readBundle(id)
	return err == nil && b.SoftDeletedAt != nil && !s.now().Before(b.SoftDeletedAt.Add(SoftDeleteRetention))
}

func (s *FileStore) reapLocked(id uuid.UUID) (bool, error) {
	if !s.dueForReaping(id) {
		return false, nil
	}
	names, err := toolNames(s.toolsDir(id))
	if err != nil || len(names) > 0 {
		return false, err
	}
	removeTemps(s.toolsDir(id))
	removeTemps(s.bundleDir(id))
	for _, p := range []string{s.toolsDir(id), s.bundleFile(id), s.bundleDir(id)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("catalogue: reaping bundle %s: %w", id, err)
		}
	}
	return true, nil
}

// Close implements [Store]: it stops the background work and writes the
// buffered usage counts. Later calls return the first result.
func (s *FileStore) Close() error {
	s.closeOnce.Do(func() {
		// A RecordUsage either lands before the buffer closes and is
		// flushed below, or fails with ErrClosed.
		s.closed.Store(true)
		s.usage.Close()
		s.maint.Stop()
		s.closeErr = s.Flush(context.Background())
	})
	return s.closeErr
}
