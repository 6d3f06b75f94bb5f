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

var (
	_ Watcher = (*FileStore)(nil)
	_ Watcher = (*BuiltInStore)(nil)
)

// changeCount is a store directory's change counter: the file "changes"
// holds a decimal count that every change made through a FileStore on
// the directory increments, under the flock of locks/changes.lock. It is
// a hint for watchers, not a record: it is overwritten in place, always
// with the same number of bytes and without fsync (a rename over it would
// make some file systems flush it: a millisecond on every change), and a
// count lost, cut short or reset reads as one more change.
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

func newChangeCount(dir string) *changeCount {
	return &changeCount{path: filepath.Join(dir, "changes"), mu: make(chan struct{}, 1), own: map[uint64]struct{}{}}
}

// read returns the counter file's content (nil when it does not exist).
func (c *changeCount) read() ([]byte, error) {
	f, err := os.Open(c.path)
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

// bump increments the counter under the lock; lock takes the lock file
// (FileStore.lockFile). The count written is remembered as this store's.
// A missing file or one that does not hold a count starts again from 1.
func (c *changeCount) bump(ctx context.Context, lock func(context.Context, chan struct{}, string, string) (func(), error)) error {
	unlock, err := lock(ctx, c.mu, "changes.lock", "the change counter")
	if err != nil {
		return err
	}
	defer unlock()
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxChangesFile+1))
	if err != nil {
		return err
	}
	n, _ := count(raw)
	n++
	c.remember(n)
	if _, err := f.WriteAt(fmt.Appendf(nil, "%020d\n", n), 0); err != nil {
		return err
	}
	if len(raw) > countWidth {
		return f.Truncate(countWidth)
	}
	return nil
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

// allOwn reports whether every count after from up to to was written by
// this store: the change from one read to the next was its own. A count
// that went back or does not parse (a counter reset) is not, and the
// counts remembered are forgotten: they may come again, written by
// others.
func (c *changeCount) allOwn(from, to []byte) bool {
	a, okA := count(from)
	b, okB := count(to)
	if !okA && len(from) == 0 {
		a, okA = 0, true // no file yet
	}
	c.ownMu.Lock()
	defer c.ownMu.Unlock()
	if !okA || !okB || b <= a {
		clear(c.own)
		c.top = 0
		return false
	}
	if b-a > ownKept {
		return false
	}
	for n := a + 1; n <= b; n++ {
		if _, ok := c.own[n]; !ok {
			return false
		}
	}
	return true
}

// watch polls the counter every interval and calls changed whenever the
// count moved, since it read last (the content given), by a change not
// made by this store. It returns ctx's error when ctx ends, or ErrClosed
// when closed reports true. A counter that cannot be read is logged once
// (warn) and, once it can be read again, taken as changed.
func (c *changeCount) watch(ctx context.Context, last []byte, every time.Duration, closed func() bool, warn func(error), changed func()) error {
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
			changed()
			continue
		}
		if bytes.Equal(raw, last) {
			continue
		}
		if !c.allOwn(last, raw) {
			changed()
		}
		last = raw
	}
}

// changed records a change made through the store for the other
// processes' watchers. The change itself is made: a counter that cannot
// be written is logged (once, until it can be written again), never
// returned. It goes on when ctx is cancelled (the change was made), for at
// most ten seconds.
func (s *FileStore) changed(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := s.changes.bump(ctx, s.lockFile)
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
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.changes.watch(ctx, s.changesAtOpen, s.watchEvery, s.closed.Load, func(err error) {
		s.log.Warn("catalogue: reading the change counter failed; other processes' changes are not seen until it can be read", "err", fmt.Errorf("%s: %w", s.changes.path, err))
	}, changed)
}
