package stats

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/toolpack-go/toolpack/internal/regfile"
)

// The files under Options.Dir: one JSON Lines file per UTC day, named by the
// day its records started, and the lock file every writer and reader of the
// directory shares.
const (
	filePrefix = "stats-"
	fileSuffix = ".jsonl"
	dayLayout  = "2006-01-02"
	lockName   = "stats.lock"
	// lockRetry is how often a waiting writer or reader retries the lock.
	lockRetry = 2 * time.Millisecond
)

// dayFileName is the file of the UTC day of t.
func dayFileName(t time.Time) string {
	return filePrefix + t.UTC().Format(dayLayout) + fileSuffix
}

// lockDir takes the directory's lock, exclusive or shared, waiting as long as
// ctx allows. The caller must Unlock the returned lock.
// A lock file that is not a regular file (a FIFO, which would block the
// open for good) is refused at once (internal/regfile).
func lockDir(ctx context.Context, dir string, shared bool) (*flock.Flock, error) {
	path := filepath.Join(dir, lockName)
	l, err := regfile.Lock(ctx, path, 0o600, shared, lockRetry)
	if err != nil {
		return nil, fmt.Errorf("stats: lock %s: %w", path, err)
	}
	return l, nil
}

// writeBatch appends recs to their day files under dir, holding the
// directory's exclusive lock, so that processes sharing the directory never
// interleave their lines. A file whose last line was cut short (a writer
// that crashed mid-line) gets a newline first: that fragment stays one
// corrupt line and the new records stay whole.
func writeBatch(ctx context.Context, dir string, recs []record, buf []byte, tc *timeCache) ([]byte, error) {
	if len(recs) == 0 {
		return buf, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return buf, fmt.Errorf("stats: %w", err)
	}
	l, err := lockDir(ctx, dir, false)
	if err != nil {
		return buf, err
	}
	defer func() { _ = l.Unlock() }()
	// Records are nearly always of one day; a batch across midnight is
	// written as one write per day.
	var ends []int // the end of each record of the day in buf
	for start := 0; start < len(recs); {
		y, m, d := recs[start].time.UTC().Date()
		buf, ends = buf[:0], ends[:0]
		end := start
		for ; end < len(recs); end++ {
			if y2, m2, d2 := recs[end].time.UTC().Date(); y2 != y || m2 != m || d2 != d {
				break
			}
			buf = appendRecord(buf, &recs[end], tc)
			ends = append(ends, len(buf))
		}
		kept, err := appendFile(filepath.Join(dir, dayFileName(recs[start].time)), buf)
		if err != nil {
			written := start
			for _, e := range ends {
				if e <= kept {
					written++
				}
			}
			return buf, &writtenError{written: written, err: err}
		}
		start = end
	}
	return buf, nil
}

// writtenError is writeBatch's error after the first written records of
// the batch were stored (the days before the one that failed, the whole
// lines a failed write left): only the others are to be written again.
type writtenError struct {
	written int
	err     error
}

func (e *writtenError) Error() string { return e.err.Error() }
func (e *writtenError) Unwrap() error { return e.err }

// appendFile appends data, whole lines, to path with one write (os.File.Write
// retries a short write until all is written or an error occurs). When the
// write fails (a full disk), the file is cut back to its size before it, so
// that no record is stored twice when the batch is written again; kept is
// how many bytes of data stayed in the file all the same (0 once cut back).
// A path that is not a regular file (a FIFO would take the records into a
// pipe nobody reads, or block once its buffer is full) is refused before
// anything is written, with an error wrapping regfile.ErrNotRegular.
func appendFile(path string, data []byte) (kept int, err error) {
	f, err := regfile.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return 0, fmt.Errorf("stats: append to %s: %w", path, err)
	}
	st, err := f.Stat()
	var base int64
	if err == nil {
		base = st.Size()
		if base > 0 {
			var last [1]byte
			if _, err = f.ReadAt(last[:], base-1); err == nil && last[0] != '\n' {
				if _, err = f.Write([]byte{'\n'}); err == nil {
					base++
				}
			}
		}
	}
	if err == nil {
		kept, err = f.Write(data)
		if err != nil && f.Truncate(base) == nil {
			kept = 0
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return kept, fmt.Errorf("stats: append to %s: %w", path, err)
	}
	return kept, nil
}

// pruneFiles removes the day files under dir whose whole day is before
// cutoff, holding the directory's exclusive lock (no process is writing or
// reading them meanwhile), and returns how many it removed. A file another
// process removed first is not an error.
func pruneFiles(ctx context.Context, dir string, cutoff time.Time) (int64, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	l, err := lockDir(ctx, dir, false)
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Unlock() }()
	files, err := listDayFiles(dir, time.Time{})
	if err != nil {
		return 0, err
	}
	var n int64
	var errs []error
	for _, f := range files {
		if f.day.Add(24 * time.Hour).After(cutoff) {
			continue
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if len(errs) > 0 {
		return n, fmt.Errorf("stats: %w", errors.Join(errs...))
	}
	return n, nil
}

// dayFile is one record file found under the directory.
type dayFile struct {
	path string
	day  time.Time // UTC midnight of its day
	size int64
}

// listDayFiles returns the record files whose day may hold records at or
// after since, newest first. Other files are ignored; a missing directory
// has none.
func listDayFiles(dir string, since time.Time) ([]dayFile, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	var out []dayFile
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, filePrefix) || !strings.HasSuffix(name, fileSuffix) {
			continue
		}
		day, err := time.Parse(dayLayout, strings.TrimSuffix(strings.TrimPrefix(name, filePrefix), fileSuffix))
		if err != nil {
			continue
		}
		if !since.IsZero() && !day.Add(24*time.Hour).After(since) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, dayFile{path: filepath.Join(dir, name), day: day, size: info.Size()})
	}
	slices.SortFunc(out, func(a, b dayFile) int { return b.day.Compare(a.day) })
	return out, nil
}

// readStats is what reading the files found beside the records.
type readStats struct {
	corrupt   int64 // lines skipped: not a complete, plausible record
	truncated bool  // the byte budget stopped the reading
}

// readRecords calls fn for every record of the day files under dir that may
// hold records at or after since, newest file first, reading at most budget
// bytes: when a file does not fit, only its newest part is read and the
// reading stops there. It holds the directory's shared lock, so no writer is
// mid-line meanwhile.
func readRecords(ctx context.Context, dir string, since time.Time, budget int64, fn func(*record)) (readStats, error) {
	var st readStats
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	l, err := lockDir(ctx, dir, true)
	if err != nil {
		return st, err
	}
	defer func() { _ = l.Unlock() }()
	files, err := listDayFiles(dir, since)
	if err != nil {
		return st, err
	}
	for _, df := range files {
		var offset int64
		if df.size > budget {
			offset = df.size - budget
			st.truncated = true
		}
		c, err := readFile(ctx, df.path, offset, df.size, fn)
		st.corrupt += c
		if err != nil {
			return st, err
		}
		budget -= df.size - offset
		if st.truncated {
			break
		}
	}
	return st, nil
}

// readFile reads the lines of path between offset and size (the size when
// listed) and calls fn with each record; it returns how many lines were
// corrupt. Reading from an offset inside a line skips the rest of that
// line without counting it. A file removed since listed, or replaced by
// one that is not a regular file, is skipped as the listing skips it.
func readFile(ctx context.Context, path string, offset, size int64, fn func(*record)) (int64, error) {
	f, err := regfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, regfile.ErrNotRegular) {
		return 0, nil // removed or replaced since listed
	}
	if err != nil {
		return 0, fmt.Errorf("stats: %w", err)
	}
	defer func() { _ = f.Close() }()
	skip := false
	if offset > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], offset-1); err != nil {
			return 0, fmt.Errorf("stats: %w", err)
		}
		skip = prev[0] != '\n'
	}
	return scanLines(ctx, io.NewSectionReader(f, offset, size-offset), skip, fn)
}

// scanLines reads record lines from r. A line over maxLineBytes, a line that
// does not parse and an unterminated last line (a writer that crashed
// mid-line) count as corrupt. With skipFirst the first line, which starts
// before r does, is skipped uncounted. fn gets every record in one variable
// that the next line overwrites: it copies what it keeps.
func scanLines(ctx context.Context, r io.Reader, skipFirst bool, fn func(*record)) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var corrupt int64
	var p lineParser
	var rec record // one for every line: fn must not keep the pointer
	for n := 0; ; n++ {
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return corrupt, fmt.Errorf("stats: reading records: %w", err)
			}
		}
		line, err := br.ReadSlice('\n')
		long := false
		for errors.Is(err, bufio.ErrBufferFull) {
			long = true
			_, err = br.ReadSlice('\n')
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return corrupt, fmt.Errorf("stats: reading records: %w", err)
		}
		text := bytes.TrimRight(line, "\r\n")
		switch {
		case skipFirst:
			skipFirst = false
		case long:
			corrupt++
		case len(text) == 0: // a blank line (a newline written after a cut line) is no record
		case errors.Is(err, io.EOF): // unterminated: a writer stopped mid-line
			corrupt++
		default:
			var perr error
			if rec, perr = p.parse(text); perr != nil {
				corrupt++
			} else {
				fn(&rec)
			}
		}
		if err != nil {
			return corrupt, nil
		}
	}
}
