package results

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// orphanGrace is how old a temporary file, or a text without its index,
// must be before a sweep removes it: younger ones may be a Put in progress
// (of this process or another one sharing the directory).
const orphanGrace = 10 * time.Minute

// Reasons written in a tombstone.
const (
	goneExpired byte = 'e'
	goneEvicted byte = 'b'
)

// copyBuffer is the size of the buffer Put copies through.
const copyBuffer = 256 << 10

// Store keeps large outputs on disk and serves them page by page. It is
// safe for concurrent use. Open one per directory; Close it when done.
type Store struct {
	opts Options
	log  *slog.Logger

	mu     sync.Mutex
	live   map[string]entry // handle → what the store knows of it
	total  int64            // bytes of every live output and its index
	seq    uint64           // incremented by every Put, so a sweep keeps what it did not see
	closed bool

	stop context.CancelFunc // ends the background sweep (Close)
	done chan struct{}      // closed when the background sweep has returned
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
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	s := &Store{opts: o, log: o.Logger, live: map[string]entry{}, done: make(chan struct{})}
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
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stop()
	<-s.done
	return nil
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
				s.log.Warn("results: sweep failed", slog.String("dir", s.opts.Dir), slog.Any("error", err))
			}
		}
	}
}

func (s *Store) path(handle, ext string) string {
	return filepath.Join(s.opts.Dir, handle+ext)
}

// Put stores the text read from r and returns its handle object. It reads
// at most Options.MaxOutputBytes; when r holds more, the text is cut after
// its last whole line (or line piece) within the cap and the summary says
// so. The output is served once Put returns, until its TTL passes.
func (s *Store) Put(ctx context.Context, r io.Reader) (Stored, error) {
	return s.put(ctx, r, kindText, nil)
}

// put stores r; shape describes a JSON value for the summary.
func (s *Store) put(ctx context.Context, r io.Reader, kind int, shape *jsonShape) (Stored, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return Stored{}, ErrClosed
	}
	h := newHandle()
	hdr, err := s.write(ctx, h, r, kind)
	if err != nil {
		return Stored{}, err
	}
	st, err := s.describe(h, hdr, shape) // before accounting: no eviction can take it yet
	if err != nil {
		s.remove(h, goneExpired)
		return Stored{}, err
	}
	s.account(h, hdr)
	return st, nil
}

// write writes the text and its index under temporary names, syncs them
// and renames them into place, index last.
func (s *Store) write(ctx context.Context, h string, r io.Reader, kind int) (hdr header, err error) {
	dataTmp, idxTmp := s.path(h, extData+extTemp), s.path(h, extIndex+extTemp)
	df, err := os.OpenFile(dataTmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	xf, err := os.OpenFile(idxTmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		_ = df.Close()
		_ = os.Remove(dataTmp)
		return hdr, fmt.Errorf("results: %w", err)
	}
	defer func() {
		_ = df.Close()
		_ = xf.Close()
		if err != nil {
			_ = os.Remove(dataTmp)
			_ = os.Remove(idxTmp)
		}
	}()

	dw := bufio.NewWriterSize(df, copyBuffer)
	xw := bufio.NewWriterSize(xf, 64<<10)
	if _, err := xw.Write(make([]byte, headerSize)); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	seg := &segmenter{w: xw, max: int64(s.opts.MaxLineBytes)}
	lr := &io.LimitedReader{R: r, N: s.opts.MaxOutputBytes}
	buf := make([]byte, copyBuffer)
	for {
		if err := ctx.Err(); err != nil {
			return hdr, fmt.Errorf("results: output not stored: %w", err)
		}
		n, rerr := lr.Read(buf)
		if n > 0 {
			if _, err := dw.Write(buf[:n]); err != nil {
				return hdr, fmt.Errorf("results: %w", err)
			}
			if err := seg.write(buf[:n]); err != nil {
				return hdr, fmt.Errorf("results: %w", err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return hdr, fmt.Errorf("results: reading the output: %w", rerr)
		}
	}
	cut := false
	if lr.N == 0 { // the cap was reached: is there more?
		var one [1]byte
		n, rerr := io.ReadFull(r, one[:])
		if rerr != nil && rerr != io.EOF {
			return hdr, fmt.Errorf("results: reading the output: %w", rerr)
		}
		cut = n == 1
	}
	lines, size := seg.finish(cut)
	if err := dw.Flush(); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	if err := xw.Flush(); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	if cut {
		if err := df.Truncate(size); err != nil {
			return hdr, fmt.Errorf("results: %w", err)
		}
		if err := xf.Truncate(headerSize + entrySize*lines); err != nil {
			return hdr, fmt.Errorf("results: %w", err)
		}
	}
	var end [entrySize]byte
	binary.LittleEndian.PutUint64(end[:], uint64(size))
	if _, err := xf.WriteAt(end[:], headerSize+entrySize*lines); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	now := s.opts.Now()
	hdr = header{created: now.UnixNano(), expires: now.Add(s.opts.TTL).UnixNano(), size: size, lines: lines, maxLine: int64(s.opts.MaxLineBytes)}
	if cut {
		hdr.flags |= flagTruncated
	}
	if kind == kindJSON {
		hdr.flags |= flagJSON
	}
	if _, err := xf.WriteAt(hdr.marshal(), 0); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	if s.opts.Sync {
		if err := df.Sync(); err != nil {
			return hdr, fmt.Errorf("results: %w", err)
		}
		if err := xf.Sync(); err != nil {
			return hdr, fmt.Errorf("results: %w", err)
		}
	}
	if err := os.Rename(dataTmp, s.path(h, extData)); err != nil {
		return hdr, fmt.Errorf("results: %w", err)
	}
	if err := os.Rename(idxTmp, s.path(h, extIndex)); err != nil {
		_ = os.Remove(s.path(h, extData))
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
		s.remove(v, goneEvicted)
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

// remove deletes an output's files, leaving a tombstone saying why, so
// that its handle is reported expired rather than not found.
func (s *Store) remove(h string, why byte) {
	var t [9]byte
	binary.LittleEndian.PutUint64(t[:], uint64(s.opts.Now().UnixNano()))
	t[8] = why
	if err := os.WriteFile(s.path(h, extGone), t[:], 0o600); err != nil {
		s.log.Warn("results: cannot write a tombstone", slog.String("handle", h), slog.Any("error", err))
	}
	for _, ext := range []string{extIndex, extData} {
		if err := os.Remove(s.path(h, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("results: cannot remove a stored output", slog.String("handle", h), slog.Any("error", err))
		}
	}
	if why == goneEvicted {
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

// sweep scans the directory: expired outputs and damaged ones are removed,
// as are old tombstones, temporary files and texts without an index older
// than orphanGrace; outputs written by another Store are taken into the
// accounts, and the oldest are evicted while the store is over its budget.
func (s *Store) sweep(ctx context.Context) error {
	s.mu.Lock()
	startSeq := s.seq
	s.mu.Unlock()
	des, err := os.ReadDir(s.opts.Dir)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	now := s.opts.Now()
	names := make(map[string]bool, len(des))
	for _, de := range des {
		names[de.Name()] = true
	}
	found := map[string]entry{}
	for _, de := range des {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("results: sweep: %w", err)
		}
		name := de.Name()
		ext := filepath.Ext(name)
		base := strings.TrimSuffix(name, ext)
		switch ext {
		case extIndex:
			if !validHandle(base) {
				continue
			}
			hdr, err := s.readHeader(base)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue
			case err != nil:
				s.log.Warn("results: removing a damaged stored output", slog.String("handle", base), slog.Any("error", err))
				s.remove(base, goneExpired)
				continue
			case hdr.expires <= now.UnixNano():
				s.remove(base, goneExpired)
				continue
			}
			found[base] = entry{created: hdr.created, expires: hdr.expires, bytes: hdr.size + indexSize(hdr.lines)}
		case extData:
			if validHandle(base) && !names[base+extIndex] {
				s.removeIfOld(name, now)
			}
		case extTemp:
			if validHandle(strings.TrimSuffix(strings.TrimSuffix(base, extData), extIndex)) {
				s.removeIfOld(name, now)
			}
		case extGone:
			if validHandle(base) {
				s.sweepTombstone(base, now)
			}
		}
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
		s.remove(v, goneEvicted)
	}
	return nil
}

func (s *Store) removeIfOld(name string, now time.Time) {
	p := filepath.Join(s.opts.Dir, name)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < orphanGrace {
		return
	}
	_ = os.Remove(p)
}

// sweepTombstone removes a tombstone older than the TTL, or malformed.
func (s *Store) sweepTombstone(h string, now time.Time) {
	when, _, ok := s.tombstone(h)
	if ok && now.Sub(when) < s.opts.TTL {
		return
	}
	_ = os.Remove(s.path(h, extGone))
}

// tombstone reads h's tombstone: when the output was removed and why.
func (s *Store) tombstone(h string) (time.Time, byte, bool) {
	f, err := os.Open(s.path(h, extGone))
	if err != nil {
		return time.Time{}, 0, false
	}
	defer f.Close()
	var b [10]byte
	n, _ := io.ReadFull(f, b[:])
	if n != 9 || (b[8] != goneExpired && b[8] != goneEvicted) {
		return time.Time{}, 0, false
	}
	return time.Unix(0, int64(binary.LittleEndian.Uint64(b[:]))), b[8], true
}

// readHeader reads and checks h's index header, and that the index file
// has the size the header implies.
func (s *Store) readHeader(h string) (header, error) {
	f, err := os.Open(s.path(h, extIndex))
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	return headerOf(f)
}

// headerOf reads the header of an open index file and checks the file's
// size against it.
func headerOf(f *os.File) (header, error) {
	fi, err := f.Stat()
	if err != nil {
		return header{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() < headerSize {
		return header{}, fmt.Errorf("%w: index of %d bytes", errHeader, fi.Size())
	}
	b := make([]byte, headerSize)
	if _, err := f.ReadAt(b, 0); err != nil {
		return header{}, err
	}
	hdr, err := parseHeader(b)
	if err != nil {
		return header{}, err
	}
	if want := indexSize(hdr.lines); fi.Size() != want {
		return header{}, fmt.Errorf("%w: index of %d bytes, expected %d for %d lines", errHeader, fi.Size(), want, hdr.lines)
	}
	return hdr, nil
}
