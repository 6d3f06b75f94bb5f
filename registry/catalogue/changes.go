package catalogue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/internal/regfile"
)

// DefaultWatchInterval is how often [FileStore.Watch] and
// [BuiltInStore.Watch] look for other processes' changes when their
// options leave the interval at zero.
const DefaultWatchInterval = 500 * time.Millisecond

// Watcher is a [Store] that tells when other processes sharing it (other
// hosts) change the catalogue: [FileStore], [BuiltInStore] and the
// PostgreSQL store implement it. Watch calls changed, on Watch's
// goroutine until ctx ends, after each change made elsewhere that reads
// of the store may have missed (a burst may arrive as one call); the
// caller then reads the catalogue again. Where a store cannot know what
// happened before Watch started, it calls changed once at the start.
type Watcher interface {
	Watch(ctx context.Context, changed func()) error
}

// BundleWatcher is a Watcher that can also tell which bundles each change
// touched, so that a host re-reads those bundles only (searchindex's
// ResyncBundles, cataloguehost's SyncBundles). WatchBundles calls changed
// as Watch does, with the bundles' ids, or with nil when they are not
// known (re-read everything). [FileStore], [BuiltInStore] and the
// PostgreSQL store (pgstore) implement it.
type BundleWatcher interface {
	Watcher
	WatchBundles(ctx context.Context, changed func(bundles []uuid.UUID)) error
}

var (
	_ BundleWatcher = (*FileStore)(nil)
	_ BundleWatcher = (*BuiltInStore)(nil)
)

// changeCount is a store directory's change counter: the file "changes"
// holds a decimal count that every change made through a FileStore on
// the directory increments, under the flock of locks/changes.lock, and
// the file "changes.log" a line "<count> <bundle id>" for each bundle the
// change touched (started afresh past maxChangesLog bytes, and whenever
// the count starts again). It is a hint for watchers, not a record: it is
// overwritten in place, always with the same number of bytes and without
// fsync (a rename over it would make some file systems flush it: a
// millisecond on every change), and a count lost, cut short or reset
// reads as one more change.
type changeCount struct {
	path string
	mu   chan struct{} // the in-process half of the lock

	ownMu sync.Mutex
	own   map[uint64]struct{} // counts written by this store, newest ownKept
	top   uint64              // the highest of them

	failing atomic.Bool // the last bump failed (logged once until one succeeds)
}

// ownKept bounds the counts a store remembers writing. A watcher that
// falls further behind its own store's writes than that reads the gap as
// a change made elsewhere: one more re-read, never a missed change.
const ownKept = 4096

// countWidth is the width of the count in the file: 20 digits (any
// uint64) and a newline.
const countWidth = 21

// maxChangesFile caps the read of the counter file.
const maxChangesFile = 64

// maxChangesLog caps the change log (about 1,100 lines); past it the log
// starts afresh, and a watcher that finds a count missing from it re-reads
// everything.
const maxChangesLog = 64 << 10

// maxLoggedBundles is the most bundles one change logs; a change touching
// more (a reap of many) is not logged, so watchers re-read everything.
const maxLoggedBundles = 64

func newChangeCount(dir string) *changeCount {
	return &changeCount{path: filepath.Join(dir, "changes"), mu: make(chan struct{}, 1), own: map[uint64]struct{}{}}
}

func (c *changeCount) logPath() string { return c.path + ".log" }

// read returns the counter file's content (nil when it does not exist).
// A counter that is not a regular file (a FIFO would block the open for
// good) is an error wrapping regfile.ErrNotRegular, at once.
func (c *changeCount) read() ([]byte, error) {
	f, err := regfile.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// More than the cap reads as a count that does not parse.
	return io.ReadAll(io.LimitReader(f, maxChangesFile+1))
}

// count parses the counter file's content; ok is false for anything but
// a decimal count (a file cut short, written by hand).
func count(raw []byte) (uint64, bool) {
	n, err := strconv.ParseUint(string(bytes.TrimSpace(raw)), 10, 64)
	return n, err == nil
}

// bump increments the counter under the lock, logging the bundles the
// change touched; lock takes the lock file (FileStore.lockFile). The count
// written is remembered as this store's. A missing file or one that does
// not hold a count starts again from 1, with an empty log. The log is
// written before the count, so a watcher that reads the count finds its
// lines. A counter, log or lock file that is not a regular file fails the
// bump at once (internal/regfile).
func (c *changeCount) bump(ctx context.Context, lock func(context.Context, chan struct{}, string, string) (func(), error), ids []uuid.UUID) error {
	unlock, err := lock(ctx, c.mu, "changes.lock", "the change counter")
	if err != nil {
		return err
	}
	defer unlock()
	f, err := regfile.OpenFile(c.path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxChangesFile+1))
	if err != nil {
		return err
	}
	n, ok := count(raw)
	n++
	if err := c.log(n, !ok, ids); err != nil {
		return err
	}
	c.remember(n)
	if _, err := f.WriteAt(fmt.Appendf(nil, "%020d\n", n), 0); err != nil {
		return err
	}
	if len(raw) > countWidth {
		return f.Truncate(countWidth)
	}
	return nil
}

// log appends the lines of count n to the change log, started afresh when
// fresh is set or it is past maxChangesLog. A change touching more than
// maxLoggedBundles bundles is not logged.
func (c *changeCount) log(n uint64, fresh bool, ids []uuid.UUID) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fi, err := os.Stat(c.logPath()); fresh || (err == nil && fi.Size() > maxChangesLog) {
		flags |= os.O_TRUNC
	}
	f, err := regfile.OpenFile(c.logPath(), flags, 0o640)
	if err != nil {
		return err
	}
	var lines []byte
	if len(ids) <= maxLoggedBundles {
		for _, id := range ids {
			lines = fmt.Appendf(lines, "%020d %s\n", n, id)
		}
	}
	if len(lines) > 0 {
		_, err = f.Write(lines)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// bundlesOf returns the bundles the log names for the counts in need; ok
// is false when one of them is not in the log (cut short, started afresh,
// or not logged), so that everything must be read again.
func (c *changeCount) bundlesOf(need map[uint64]bool) (ids []uuid.UUID, ok bool) {
	f, err := regfile.Open(c.logPath())
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 2*maxChangesLog))
	if err != nil {
		return nil, false
	}
	seen := map[uint64]bool{}
	have := map[uuid.UUID]bool{}
	for line := range bytes.Lines(data) {
		num, rest, found := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(" "))
		if !found || !bytes.HasSuffix(line, []byte("\n")) {
			continue // a line being written
		}
		n, err := strconv.ParseUint(string(num), 10, 64)
		if err != nil || !need[n] {
			continue
		}
		id, err := uuid.ParseBytes(rest)
		if err != nil {
			continue
		}
		seen[n] = true
		if !have[id] {
			have[id] = true
			ids = append(ids, id)
		}
	}
	for n := range need {
		if !seen[n] {
			return nil, false
		}
	}
	return ids, true
}

// remember records n as written by this store, before it can be read.
func (c *changeCount) remember(n uint64) {
	c.ownMu.Lock()
	defer c.ownMu.Unlock()
	c.own[n] = struct{}{}
	c.top = max(c.top, n)
	if len(c.own) > ownKept {
		for k := range c.own {
			if k+ownKept <= c.top {
				delete(c.own, k)
			}
		}
	}
}

// news reads the counter's move from one read (from) to the next (to):
// moved is false when every count between was written by this store;
// otherwise ids are the bundles the other counts touched (empty when they
// touched none), or nil when they cannot be known. A count that went back
// or does not parse (a counter reset) is news of unknown bundles, and the
// counts remembered are forgotten: they may come again, written by
// others.
func (c *changeCount) news(from, to []byte) (moved bool, ids []uuid.UUID) {
	a, okA := count(from)
	if !okA && len(from) == 0 {
		a, okA = 0, true // no file yet
	}
	b, okB := count(to)
	c.ownMu.Lock()
	if !okA || !okB || b <= a {
		clear(c.own)
		c.top = 0
		c.ownMu.Unlock()
		return true, nil
	}
	if b-a > ownKept {
		c.ownMu.Unlock()
		return true, nil
	}
	need := map[uint64]bool{}
	for n := a + 1; n <= b; n++ {
		if _, mine := c.own[n]; !mine {
			need[n] = true
		}
	}
	c.ownMu.Unlock()
	if len(need) == 0 {
		return false, nil
	}
	ids, ok := c.bundlesOf(need)
	if !ok {
		return true, nil
	}
	if ids == nil {
		ids = []uuid.UUID{}
	}
	return true, ids
}

// watch polls the counter every interval and calls changed whenever the
// count moved, since it read last (the content given), by a change not
// made by this store. It returns ctx's error when ctx ends, or ErrClosed
// when closed reports true. A counter that cannot be read is logged once
// (warn) and, once it can be read again, taken as changed.
func (c *changeCount) watch(ctx context.Context, last []byte, every time.Duration, closed func() bool, warn func(error), changed func([]uuid.UUID)) error {
	failing := false
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if closed() {
			return ErrClosed
		}
		raw, err := c.read()
		if err != nil {
			if !failing {
				warn(err)
			}
			failing = true
			continue
		}
		if failing {
			// Changes may have been missed while it could not be read.
			failing = false
			last = raw
			changed(nil)
			continue
		}
		if bytes.Equal(raw, last) {
			continue
		}
		if moved, ids := c.news(last, raw); moved {
			changed(ids)
		}
		last = raw
	}
}

// changed records a change made through the store for the other
// processes' watchers. The change itself is made: a counter that cannot
// be written is logged (once, until it can be written again), never
// returned. It goes on when ctx is cancelled (the change was made), for at
// most ten seconds.
func (s *FileStore) changed(ctx context.Context, bundles ...uuid.UUID) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := s.changes.bump(ctx, s.lockFile, bundles)
	switch {
	case err != nil && !s.changes.failing.Swap(true):
		s.log.Warn("catalogue: recording changes for other processes fails; they see them only when they re-read the catalogue (logged once until it works again)",
			"err", err)
	case err == nil && s.changes.failing.Swap(false):
		s.log.Info("catalogue: recording changes for other processes works again")
	}
}

// Watch implements [Watcher]: every FileOptions.WatchInterval it reads
// the directory's change counter, which every change made through a
// FileStore increments, and calls changed when it moved since the store
// was opened or since the last call, unless every change counted was made
// through this store. A change made by hand in the files is not counted:
// it is seen at the next change counted or an explicit re-read. Watch
// returns ctx's error when ctx ends, or ErrClosed once the store is
// closed.
func (s *FileStore) Watch(ctx context.Context, changed func()) error {
	return s.WatchBundles(ctx, func([]uuid.UUID) { changed() })
}

// WatchBundles implements [BundleWatcher]: Watch, with the bundles the
// changes touched, read from the directory's change log ("changes.log");
// nil when the log no longer holds them all (it starts afresh past 64
// KiB), so that the caller re-reads everything.
func (s *FileStore) WatchBundles(ctx context.Context, changed func(bundles []uuid.UUID)) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.changes.watch(ctx, s.changesAtOpen, s.watchEvery, s.closed.Load, func(err error) {
		s.log.Warn("catalogue: reading the change counter failed; other processes' changes are not seen until it can be read", "err", fmt.Errorf("%s: %w", s.changes.path, err))
	}, changed)
}
