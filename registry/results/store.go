package results

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// copyBuffer is the size of the buffer Put copies through.
const copyBuffer = 256 << 10

// Store keeps large outputs on disk and serves them page by page. It is
// safe for concurrent use. Open one per directory; Close it when done.
type Store struct {
	opts Options
	log  *slog.Logger
	be   Backend

	mu     sync.Mutex
	live   map[string]entry // handle → what the store knows of it
	total  int64            // bytes of every live output and its index
	seq    uint64           // incremented by every Put, so a sweep keeps what it did not see
	closed bool

	stop context.CancelFunc // ends the background sweep (Close)
	done chan struct{}      // closed when the background sweep has returned

	// scanHook, when set (by tests), is called with a search's context
	// and each line's number before the line is matched.
	scanHook func(ctx context.Context, line int64)
}

// entry is the store's record of one live output.
type entry struct {
	created, expires int64 // Unix nanoseconds
	bytes            int64 // text and index
	seq              uint64
}

// Open opens (creating it when missing) the store directory of opts.Dir,
// removes what has expired, and starts the background sweep. Outputs stored
// by an earlier Store on the same directory are served until they expire.
// An invalid option is reported by name.
func Open(ctx context.Context, opts Options) (*Store, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("results: opening: %w", err)
	}
	be := o.Backend
	if be == nil {
		if err := os.MkdirAll(o.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		be = &fileBackend{dir: o.Dir, sync: o.Sync}
	}
	s := &Store{opts: o, log: o.Logger, be: be, live: map[string]entry{}, done: make(chan struct{})}
	if err := s.sweep(ctx); err != nil {
		return nil, err
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	go s.sweeper(bg)
	return s, nil
}

// Close stops the background sweep (interrupting one under way) and waits
// for it. Stored outputs stay on disk for the next Store. Put and Query
// fail with ErrClosed afterwards. Close is idempotent.
func (s *Store) Close() error {
	if s == nil || s.done == nil {
		return nil // nothing was opened (a nil or zero Store)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stop()
	<-s.done
	return s.be.Close()
}

// sweeper runs sweep every SweepInterval until ctx ends.
func (s *Store) sweeper(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.opts.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("results: sweep failed", slog.Any("error", err))
			}
		}
	}
}

// Put stores the text read from r and returns its handle object. It reads
// at most Options.MaxOutputBytes; when the text and its line index would
// take more than that, the text is cut after its last whole line (or line
// piece) within the cap and the summary says so. The output is served once
// Put returns, until its TTL passes.
func (s *Store) Put(ctx context.Context, r io.Reader) (Stored, error) {
	return s.put(ctx, r, kindText, nil)
}

// put stores r; shape describes a JSON value for the summary.
func (s *Store) put(ctx context.Context, r io.Reader, kind int, shape *jsonShape) (Stored, error) {
	s.mu.Lock()
	closed := s.closed || s.be == nil // closed, or the zero Store
	s.mu.Unlock()
	if closed {
		return Stored{}, ErrClosed
	}
	h := newHandle()
	hdr, err := s.write(ctx, h, r, kind)
	if err != nil {
		return Stored{}, err
	}
	st, err := s.describe(ctx, h, hdr, shape) // before accounting: no eviction can take it yet
	if err != nil {
		s.remove(h, false)
		return Stored{}, err
	}
	s.account(h, hdr)
	return st, nil
}

// write writes the text and its index through a Draft of the backend and
// commits it, header last.
func (s *Store) write(ctx context.Context, h string, r io.Reader, kind int) (hdr header, err error) {
	d, err := s.be.Create(ctx, h)
	if err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	defer func() {
		if err != nil {
			d.Abort()
		}
	}()
	dw, xw := d.Text(), d.Index()
	// The text and its index together stay within MaxOutputBytes: the
	// segmenter takes bytes while the text, an entry per line, the
	// header and the final entry fit.
	seg := &segmenter{w: bufio.NewWriterSize(xw, 64<<10), max: int64(s.opts.MaxLineBytes),
		budget: s.opts.MaxOutputBytes - headerSize - entrySize}
	// lr keeps Put from reading past the cap. It never runs out before the
	// segmenter refuses a byte (it takes at most MaxOutputBytes less the
	// index's header): a text over the budget is always found so.
	lr := &io.LimitedReader{R: r, N: s.opts.MaxOutputBytes}
	buf := make([]byte, copyBuffer)
	cut := false
	for {
		if err := ctx.Err(); err != nil {
			return hdr, fmt.Errorf("results: output not stored: %w", err)
		}
		n, rerr := lr.Read(buf)
		if n > 0 {
			k, err := seg.write(buf[:n])
			if err != nil {
				return hdr, fmt.Errorf("results: %w", err)
			}
			if _, err := dw.Write(buf[:k]); err != nil {
				return hdr, fmt.Errorf("results: %w", err)
			}
			cut = k < n // the budget is reached and the text goes on
		}
		if cut || rerr == io.EOF {
			break
		}
		if rerr != nil {
			return hdr, fmt.Errorf("results: reading the output: %w", rerr)
		}
	}
	lines, size, err := seg.finish(cut)
	if err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	if err := seg.w.Flush(); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	if cut {
		if err := d.Truncate(size, entrySize*lines); err != nil {
			return hdr, fmt.Errorf("results: %w", err)
		}
	}
	var end [entrySize]byte
	binary.LittleEndian.PutUint64(end[:], uint64(size))
	if _, err := xw.Write(end[:]); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	now := s.opts.Now()
	hdr = header{created: now.UnixNano(), expires: now.Add(s.opts.TTL).UnixNano(), size: size, lines: lines, maxLine: headerMaxLine(s.opts.MaxLineBytes, seg.wide)}
	if cut {
		hdr.flags |= flagTruncated
	}
	if kind == kindJSON {
		hdr.flags |= flagJSON
	}
	if err := d.Commit(ctx, hdr.marshal()); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	return hdr, nil
}

// account records a new output and evicts the oldest others while the
// store is over MaxDirBytes.
func (s *Store) account(h string, hdr header) {
	s.mu.Lock()
	s.seq++
	e := entry{created: hdr.created, expires: hdr.expires, bytes: hdr.size + indexSize(hdr.lines), seq: s.seq}
	if old, ok := s.live[h]; ok { // a sweep saw the files first
		s.total -= old.bytes
	}
	s.live[h] = e
	s.total += e.bytes
	victims := s.overBudgetLocked(h)
	s.mu.Unlock()
	for _, v := range victims {
		s.remove(v, true)
	}
}

// overBudgetLocked drops the oldest outputs but keep from the accounts
// until the store is within MaxDirBytes, and returns their handles for
// removal; s.mu must be held.
func (s *Store) overBudgetLocked(keep string) []string {
	if s.total <= s.opts.MaxDirBytes {
		return nil
	}
	type aged struct {
		h       string
		created int64
	}
	all := make([]aged, 0, len(s.live))
	for h, e := range s.live {
		if h != keep {
			all = append(all, aged{h, e.created})
		}
	}
	slices.SortFunc(all, func(a, b aged) int {
		if a.created != b.created {
			return compareInt64(a.created, b.created)
		}
		return strings.Compare(a.h, b.h)
	})
	var victims []string
	for _, a := range all {
		if s.total <= s.opts.MaxDirBytes {
			break
		}
		s.total -= s.live[a.h].bytes
		delete(s.live, a.h)
		victims = append(victims, a.h)
	}
	return victims
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// remove deletes an output, leaving a tombstone saying why (evicted to
// stay within the budget, or expired), so that its handle is reported
// expired rather than not found.
func (s *Store) remove(h string, evicted bool) {
	if err := s.be.Remove(context.Background(), h, Tombstone{At: s.opts.Now(), Evicted: evicted}); err != nil {
		s.log.Warn("results: cannot remove a stored output", slog.String("handle", h), slog.Any("error", err))
	}
	if evicted {
		s.log.Debug("results: output removed to stay within the size budget", slog.String("handle", h))
	}
}

// forget drops h from the accounts (its files were found gone or
// expired).
func (s *Store) forget(h string) {
	s.mu.Lock()
	if e, ok := s.live[h]; ok {
		s.total -= e.bytes
		delete(s.live, h)
	}
	s.mu.Unlock()
}

// TombstoneKeep is the least time a removed output's tombstone is kept
// (one TTL when that is longer), during which its handle is reported
// expired rather than unknown: an agent that comes back to a handle the
// next day is told the output expired, not that it mistyped the handle.
const TombstoneKeep = 24 * time.Hour

// sweep scans the backend: expired outputs and damaged ones are removed
// (and the backend's old tombstones and abandoned drafts); outputs written
// by another Store are taken into the accounts, and the oldest are evicted
// while the store is over its budget.
func (s *Store) sweep(ctx context.Context) error {
	s.mu.Lock()
	startSeq := s.seq
	s.mu.Unlock()
	now := s.opts.Now()
	found := map[string]entry{}
	var expired, damaged []string
	err := s.be.Scan(ctx, now, max(s.opts.TTL, TombstoneKeep), func(h string, hb []byte, idxSize int64) {
		if !validHandle(h) {
			return
		}
		hdr, err := checkHeader(hb, idxSize)
		switch {
		case err != nil:
			s.log.Warn("results: removing a damaged stored output", slog.String("handle", h), slog.Any("error", err))
			damaged = append(damaged, h)
		case hdr.expires <= now.UnixNano():
			expired = append(expired, h)
		default:
			found[h] = entry{created: hdr.created, expires: hdr.expires, bytes: hdr.size + indexSize(hdr.lines)}
		}
	})
	if err != nil {
		return fmt.Errorf("results: sweep: %w", err)
	}
	for _, h := range append(expired, damaged...) {
		s.remove(h, false)
	}
	s.mu.Lock()
	for h, e := range s.live {
		if _, ok := found[h]; !ok && e.seq <= startSeq {
			s.total -= e.bytes
			delete(s.live, h)
		}
	}
	for h, e := range found {
		if _, ok := s.live[h]; !ok {
			s.live[h] = e
			s.total += e.bytes
		}
	}
	victims := s.overBudgetLocked("")
	s.mu.Unlock()
	for _, v := range victims {
		s.remove(v, true)
	}
	return nil
}

// checkHeader parses an index header and checks the index's size against
// it.
func checkHeader(b []byte, idxSize int64) (header, error) {
	if len(b) < headerSize || idxSize < headerSize {
		return header{}, fmt.Errorf("%w: index of %d bytes", errHeader, idxSize)
	}
	hdr, err := parseHeader(b[:headerSize])
	if err != nil {
		return header{}, err
	}
	if want := indexSize(hdr.lines); idxSize != want {
		return header{}, fmt.Errorf("%w: index of %d bytes, expected %d for %d lines", errHeader, idxSize, want, hdr.lines)
	}
	return hdr, nil
}
