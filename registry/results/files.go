package results

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolpack-go/toolpack/internal/regfile"
)

// orphanGrace is how old a temporary file, or a text without its index,
// must be before a sweep removes it: younger ones may be a Put in progress
// (of this process or another one sharing the directory).
const orphanGrace = 10 * time.Minute

// Reasons written in a tombstone file.
const (
	goneExpired byte = 'e'
	goneEvicted byte = 'b'
)

// fileBackend is the default Backend: the files of one directory,
//
//	{handle}.out   the text
//	{handle}.idx   the index
//	{handle}.gone  a tombstone (9 bytes: removal time in Unix nanoseconds,
//	               and why)
//
// written under temporary names and renamed into place, index last, so
// that an output whose index is missing is never served.
type fileBackend struct {
	dir  string
	sync bool // Options.Sync
}

func (b *fileBackend) path(handle, ext string) string {
	return filepath.Join(b.dir, handle+ext)
}

func (b *fileBackend) Close() error { return nil }

// fileDraft writes an output's two temporary files.
type fileDraft struct {
	b         *fileBackend
	h         string
	df, xf    *os.File
	dw, xw    *bufio.Writer
	committed bool
	aborted   bool // Abort ran (or a failed Commit did)
}

func (b *fileBackend) Create(_ context.Context, h string) (Draft, error) {
	dataTmp, idxTmp := b.path(h, extData+extTemp), b.path(h, extIndex+extTemp)
	df, err := os.OpenFile(dataTmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		// The directory went away under the running store (removed by
		// hand, a cleaner): made again, as Open makes it.
		if merr := os.MkdirAll(b.dir, 0o700); merr == nil {
			df, err = os.OpenFile(dataTmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		}
	}
	if err != nil {
		return nil, err
	}
	xf, err := os.OpenFile(idxTmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		_ = df.Close()
		_ = os.Remove(dataTmp)
		return nil, err
	}
	d := &fileDraft{b: b, h: h, df: df, xf: xf, dw: bufio.NewWriterSize(df, copyBuffer), xw: bufio.NewWriterSize(xf, 64<<10)}
	if _, err := d.xw.Write(make([]byte, headerSize)); err != nil {
		d.Abort()
		return nil, err
	}
	return d, nil
}

func (d *fileDraft) Text() io.Writer  { return d.dw }
func (d *fileDraft) Index() io.Writer { return d.xw }

func (d *fileDraft) Truncate(textSize, indexSize int64) error {
	if err := errors.Join(d.dw.Flush(), d.xw.Flush()); err != nil {
		return err
	}
	if err := d.df.Truncate(textSize); err != nil {
		return err
	}
	if err := d.xf.Truncate(headerSize + indexSize); err != nil {
		return err
	}
	_, err1 := d.df.Seek(textSize, io.SeekStart)
	_, err2 := d.xf.Seek(headerSize+indexSize, io.SeekStart)
	return errors.Join(err1, err2)
}

// Commit writes the header and renames the files into place, index last.
// A Commit that fails has dropped the draft (as Abort does): its files
// are closed and its temporary files removed, whether or not Abort is
// called after it.
func (d *fileDraft) Commit(ctx context.Context, header []byte) (err error) {
	defer func() {
		if err != nil {
			d.Abort()
		}
	}()
	if d.aborted {
		return errors.New("draft already dropped")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := errors.Join(d.dw.Flush(), d.xw.Flush()); err != nil {
		return err
	}
	if _, err := d.xf.WriteAt(header, 0); err != nil {
		return err
	}
	if d.b.sync {
		if err := errors.Join(d.df.Sync(), d.xf.Sync()); err != nil {
			return err
		}
	}
	if err := errors.Join(d.df.Close(), d.xf.Close()); err != nil {
		return err
	}
	if err := os.Rename(d.df.Name(), d.b.path(d.h, extData)); err != nil {
		return err
	}
	if err := os.Rename(d.xf.Name(), d.b.path(d.h, extIndex)); err != nil {
		_ = os.Remove(d.b.path(d.h, extData))
		return err
	}
	d.committed = true
	return nil
}

func (d *fileDraft) Abort() {
	if d.committed || d.aborted {
		return
	}
	d.aborted = true
	_ = d.df.Close()
	_ = d.xf.Close()
	_ = os.Remove(d.df.Name())
	_ = os.Remove(d.xf.Name())
}

// fileBlobs is an output's two open files.
type fileBlobs struct {
	idx, data         *os.File
	idxSize, dataSize int64
}

func (f *fileBlobs) Text() io.ReaderAt  { return f.data }
func (f *fileBlobs) TextSize() int64    { return f.dataSize }
func (f *fileBlobs) Index() io.ReaderAt { return f.idx }
func (f *fileBlobs) IndexSize() int64   { return f.idxSize }
func (f *fileBlobs) Close() error       { return errors.Join(f.idx.Close(), f.data.Close()) }

func (b *fileBackend) Open(_ context.Context, h string) (Blobs, error) {
	idx, err := openRegular(b.path(h, extIndex))
	if err != nil {
		return nil, err
	}
	data, err := openRegular(b.path(h, extData))
	if err != nil {
		_ = idx.Close()
		return nil, err // fs.ErrNotExist: removed since the index was opened
	}
	f := &fileBlobs{idx: idx, data: data}
	xi, err1 := idx.Stat()
	di, err2 := data.Stat()
	if err := errors.Join(err1, err2); err != nil {
		_ = f.Close()
		return nil, err
	}
	if !xi.Mode().IsRegular() || !di.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%s: not a regular file", h)
	}
	f.idxSize, f.dataSize = xi.Size(), di.Size()
	return f, nil
}

// Remove writes the tombstone, then deletes the output's files.
func (b *fileBackend) Remove(_ context.Context, h string, t Tombstone) error {
	var buf [9]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(t.At.UnixNano()))
	buf[8] = goneExpired
	if t.Evicted {
		buf[8] = goneEvicted
	}
	var errs []error
	if err := b.writeTombstone(h, buf[:]); err != nil {
		errs = append(errs, fmt.Errorf("writing its tombstone: %w", err))
	}
	for _, ext := range []string{extIndex, extData} {
		if err := os.Remove(b.path(h, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeTombstone writes h's tombstone whole or not at all (a temporary
// file renamed): a reader never finds it empty or half-written, which
// the sweep would take for a damaged one and delete, turning "expired"
// into "not found" for the rest of TombstoneKeep.
func (b *fileBackend) writeTombstone(h string, data []byte) error {
	f, err := os.CreateTemp(b.dir, h+extGone+".*"+extTemp)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), b.path(h, extGone))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// openRegular opens path for reading when it is a regular file; anything
// else (a FIFO, which would block the open until a writer came; a
// directory; a device) is refused without waiting, with an error wrapping
// errNotRegular (internal/regfile: the type checked is the opened
// file's, so a FIFO swapped in after a check is caught too). A file that
// cannot be opened for another reason than its absence — the store's
// directory replaced by a file, its permissions taken away, an I/O error
// — is an error wrapping ErrUnavailable that names base names only: the
// output may be readable once the directory is repaired.
func openRegular(path string) (*os.File, error) {
	f, err := regfile.Open(path)
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotRegular) {
		return f, err
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, fmt.Errorf("%w: the output directory cannot be read (%s in %s: %w)", ErrUnavailable,
			filepath.Base(pe.Path), filepath.Base(filepath.Dir(pe.Path)), pe.Err)
	}
	return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// errNotRegular: a store file that is not a regular file.
var errNotRegular = regfile.ErrNotRegular

func (b *fileBackend) Tombstone(_ context.Context, h string) (Tombstone, bool, error) {
	f, err := openRegular(b.path(h, extGone))
	if errors.Is(err, fs.ErrNotExist) {
		return Tombstone{}, false, nil
	}
	if err != nil {
		return Tombstone{}, false, err
	}
	defer f.Close()
	var buf [10]byte
	n, _ := io.ReadFull(f, buf[:])
	if n != 9 || (buf[8] != goneExpired && buf[8] != goneEvicted) {
		return Tombstone{}, false, nil
	}
	return Tombstone{At: time.Unix(0, int64(binary.LittleEndian.Uint64(buf[:]))), Evicted: buf[8] == goneEvicted}, true, nil
}

// Scan lists the directory: every index is reported with its header, and
// old tombstones, temporary files and texts without an index older than
// orphanGrace are removed.
func (b *fileBackend) Scan(ctx context.Context, now time.Time, keep time.Duration, fn func(string, []byte, int64)) error {
	des, err := os.ReadDir(b.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed under the store: nothing is left to sweep; the next Create makes it again
	}
	if err != nil {
		return err
	}
	names := make(map[string]bool, len(des))
	for _, de := range des {
		names[de.Name()] = true
	}
	for _, de := range des {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := de.Name()
		ext := filepath.Ext(name)
		base := strings.TrimSuffix(name, ext)
		switch ext {
		case extIndex:
			if !validHandle(base) {
				continue
			}
			hb, size, err := b.readHeader(base)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			fn(base, hb, size)
		case extData:
			if validHandle(base) && !names[base+extIndex] {
				b.removeIfOld(name, now)
			}
		case extTemp:
			// {handle}.out.tmp, {handle}.idx.tmp, {handle}.gone.*.tmp
			if h, _, _ := strings.Cut(base, "."); validHandle(h) {
				b.removeIfOld(name, now)
			}
		case extGone:
			if validHandle(base) {
				t, ok, _ := b.Tombstone(ctx, base)
				switch {
				case ok && now.Sub(t.At) >= keep:
					_ = os.Remove(b.path(base, extGone))
				case !ok:
					b.removeIfOld(name, now) // damaged: removed once no writer can be at it
				}
			}
		}
	}
	return nil
}

// readHeader reads the first headerSize bytes of h's index (fewer when it
// is shorter, none when it is not a regular file) and the index's size.
func (b *fileBackend) readHeader(h string) ([]byte, int64, error) {
	f, err := openRegular(b.path(h, extIndex))
	if errors.Is(err, errNotRegular) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, nil
	}
	buf := make([]byte, headerSize)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	return buf[:n], fi.Size(), nil
}

func (b *fileBackend) removeIfOld(name string, now time.Time) {
	p := filepath.Join(b.dir, name)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < orphanGrace {
		return
	}
	_ = os.Remove(p)
}
