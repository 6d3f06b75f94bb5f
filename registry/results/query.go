package results

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Request is one query of a stored output: what ot.result(handle, offset,
// limit, search, fuzzy) asks for. Offset and Limit have no zero default: a
// value below 1 is refused with the seed's message, exactly as ot.result
// refuses offset=0; a caller without its own defaults uses DefaultOffset
// and DefaultLimit.
type Request struct {
	// Handle is the handle Put (or Middleware) returned.
	Handle string
	// Offset is the first line to return, 1-indexed; with Search, the
	// first matching line (the 1st, 2nd, … match).
	Offset int
	// Limit is the most lines to return. A page also stops at
	// Options.MaxPageLines lines and Options.MaxPageBytes bytes; Returned
	// and HasMore say where it stopped.
	Limit int
	// Search, when not empty, keeps only the lines matching it, before
	// Offset and Limit apply: a regular expression (RE2 syntax, matched
	// against each line), or with Fuzzy the text to look for.
	Search string
	// Fuzzy makes Search a fuzzy text: lines holding it, or something
	// close to it, best first. Without Search it has no effect.
	Fuzzy bool
}

// Page is one page of a stored output.
type Page struct {
	// Lines are the lines returned, without their '\n'.
	Lines []string `json:"lines"`
	// TotalLines is the number of lines in the stored output (not the
	// number of matches).
	TotalLines int `json:"total_lines"`
	// Returned is len(Lines).
	Returned int `json:"returned"`
	// Offset is the offset used.
	Offset int `json:"offset"`
	// HasMore reports whether lines (or matches) remain after this page.
	HasMore bool `json:"has_more"`
	// LineNumbers are the 1-indexed numbers of Lines in the stored output,
	// given for a search only.
	LineNumbers []int `json:"line_numbers,omitempty"`
}

// Query returns a page of a stored output. Its failures are *Error values
// (offset or limit below 1 with the seed's messages, a search that does
// not compile, an unknown or expired handle, a search past its time limit,
// a damaged output), or an I/O error of the directory.
//
// A page without Search costs one read of its line offsets and one read of
// its text, wherever it lies in the output. A search reads the output from
// the start and stops as soon as its page is known (the page and one more
// match); a fuzzy search reads all of it and keeps the MaxFuzzyResults best
// matches. Both are bounded by Options.SearchTimeout and by ctx.
func (s *Store) Query(ctx context.Context, q Request) (Page, error) {
	if q.Offset < 1 {
		return Page{}, invalid("offset", "offset must be >= 1 (1-indexed), got %d", q.Offset)
	}
	if q.Limit < 1 {
		return Page{}, invalid("limit", "limit must be >= 1, got %d", q.Limit)
	}
	var match func(line []byte) (float64, bool)
	var weight int64
	if q.Search != "" {
		var err *Error
		if match, weight, err = s.matcher(q); err != nil {
			return Page{}, err
		}
	}
	s.mu.Lock()
	closed := s.closed || s.be == nil // closed, or the zero Store
	s.mu.Unlock()
	if closed {
		return Page{}, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	r, err := s.openOutput(ctx, q.Handle)
	if err != nil {
		return Page{}, err
	}
	defer r.close()
	count := min(q.Limit, s.opts.MaxPageLines)
	switch {
	case match == nil:
		return r.page(q.Offset, count, s.opts.MaxPageBytes)
	case q.Fuzzy:
		return s.searchFuzzy(ctx, r, q, count, match, weight)
	default:
		return s.searchRegexp(ctx, r, q, count, match, weight)
	}
}

// matcher checks q.Search and returns the function that tells whether a
// line matches (and how well, for a fuzzy search), and its weight: the
// work it does per byte of a line, in the units of checkWork.
func (s *Store) matcher(q Request) (func([]byte) (float64, bool), int64, *Error) {
	if len(q.Search) > MaxSearchBytes {
		return nil, 0, invalid("search", "search must be at most %d bytes, got %d", MaxSearchBytes, len(q.Search))
	}
	if !q.Fuzzy {
		re, err := regexp.Compile(q.Search)
		if err != nil {
			return nil, 0, &Error{Kind: ErrInvalidQuery, Field: "search", Cause: err,
				Msg: fmt.Sprintf("search is not a valid regular expression (RE2 syntax): %v", err)}
		}
		return func(line []byte) (float64, bool) { return 0, re.Match(line) }, regexpWeight(q.Search), nil
	}
	if n := utf8.RuneCountInString(q.Search); n > MaxFuzzyRunes {
		return nil, 0, invalid("search", "a fuzzy search must be at most %d characters, got %d", MaxFuzzyRunes, n)
	}
	if q.Offset > MaxFuzzyResults {
		return nil, 0, invalid("offset", "offset must be <= %d with fuzzy=true (a fuzzy search keeps the %d best matches), got %d",
			MaxFuzzyResults, MaxFuzzyResults, q.Offset)
	}
	if f := s.opts.Fuzzy; f != nil {
		return func(line []byte) (float64, bool) { return f(q.Search, string(line)) }, customFuzzyWeight, nil
	}
	return newFuzzy(q.Search).score, fuzzyWeight, nil
}

// The work of a search is counted in units of one byte of a line matched
// against one instruction of a regular expression's program: Go's
// regexp package costs at most about that many steps (its cost is the
// line's length times the program's size; some 40 ns a unit at worst,
// when the slowest engine runs every instruction on every byte). A scan
// looks at its context each time checkWork units have been done, and
// before any line that alone weighs as much, so a search stops within
// about one line's work after its deadline or its caller's cancellation,
// whatever the lines' lengths, while a search of short lines looks at its
// context only every few hundred lines.
const (
	// checkWork is the work between two looks at the context: about
	// 40 ms at worst.
	checkWork = 1 << 20
	// lineWork is the fixed work of one line, in bytes: a match's set-up.
	lineWork = 16
	// fuzzyWeight is the built-in fuzzy scorer's work per byte: a few
	// operations whatever the text (bit-parallel).
	fuzzyWeight = 1
	// customFuzzyWeight is the work per byte assumed of Options.Fuzzy,
	// as of a table of edits for a text of MaxFuzzyRunes characters.
	customFuzzyWeight = MaxFuzzyRunes
)

// regexpWeight is the work per byte of matching the regular expression
// expr (which compiles): the size of its compiled program, as package
// regexp builds it.
func regexpWeight(expr string) int64 {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 1 // unreachable: expr compiled with regexp.Compile, which parses it the same way
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 1
	}
	return int64(max(len(prog.Inst), 1))
}

// output is an open stored output.
type output struct {
	s         *Store
	handle    string
	hdr       header
	blobs     Blobs
	idx, data io.ReaderAt
}

func (r *output) close() {
	_ = r.blobs.Close()
}

// openOutput opens handle's index and text, after checking the handle's
// form, the header, the expiry and the text's size.
func (s *Store) openOutput(ctx context.Context, handle string) (*output, error) {
	if !validHandle(handle) {
		return nil, notFound(handle)
	}
	b, err := s.be.Open(ctx, handle)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, s.gone(handle)
	}
	if errors.Is(err, errNotRegular) {
		return nil, corrupt(handle, err) // a directory or FIFO where a file belongs
	}
	if errors.Is(err, ErrUnavailable) {
		return nil, err // its text starts with "results: "
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	hb := make([]byte, headerSize)
	n, rerr := b.Index().ReadAt(hb, 0)
	if rerr != nil && rerr != io.EOF {
		_ = b.Close()
		return nil, s.readFailure(handle, rerr)
	}
	hdr, err := checkHeader(hb[:n], b.IndexSize())
	if err != nil {
		_ = b.Close()
		return nil, corrupt(handle, err)
	}
	if hdr.expires <= s.opts.Now().UnixNano() {
		_ = b.Close()
		s.forget(handle)
		s.remove(handle, false)
		return nil, s.expired(handle, false)
	}
	if size := b.TextSize(); size != hdr.size {
		_ = b.Close()
		return nil, corrupt(handle, fmt.Errorf("text of %d bytes, the index says %d", size, hdr.size))
	}
	return &output{s: s, handle: handle, hdr: hdr, blobs: b, idx: b.Index(), data: b.Text()}, nil
}

// readFailure is the failure of a read of handle's text or index: a read
// that ends early means the output is damaged, and one the backend says
// found the output gone (removed since it was opened) is reported as
// expired or not found; any other error is the backend's (a dropped
// database connection, a disk error), returned as it is.
func (s *Store) readFailure(handle string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.forget(handle)
		return s.gone(handle)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return corrupt(handle, err)
	}
	return fmt.Errorf("results: reading stored result %q: %w", handle, err)
}

// gone is the failure for a handle whose files are missing: expired when
// a tombstone says it was removed, not found otherwise.
func (s *Store) gone(handle string) error {
	if t, ok, err := s.be.Tombstone(context.Background(), handle); err == nil && ok {
		return s.expired(handle, t.Evicted)
	}
	return notFound(handle)
}

// expired is the failure for a removed output: evicted to stay within the
// size budget, or past its TTL.
func (s *Store) expired(handle string, evicted bool) error {
	msg := fmt.Sprintf("stored result %q has expired (results are kept for %s); call the tool again to get a new handle",
		handle, shortDuration(s.opts.TTL))
	if evicted {
		msg = fmt.Sprintf("stored result %q has expired: it was removed to keep the result store within its size limit; call the tool again to get a new handle", handle)
	}
	return &Error{Kind: ErrExpired, Field: "handle", Msg: msg}
}

// shortDuration writes d without zero minutes and seconds: "1h", "1h30m",
// "45s".
func shortDuration(d time.Duration) string {
	t := d.String()
	if strings.HasSuffix(t, "m0s") {
		t = t[:len(t)-2]
	}
	if strings.HasSuffix(t, "h0m") {
		t = t[:len(t)-2]
	}
	return t
}

// entries reads the offsets of lines first..first+n-1 (0-based) and the
// end of the last, in one read, and checks them.
func (r *output) entries(first, n int64) ([]int64, error) {
	b := make([]byte, entrySize*(n+1))
	if _, err := r.idx.ReadAt(b, headerSize+entrySize*first); err != nil {
		return nil, r.s.readFailure(r.handle, err)
	}
	e := decodeEntries(b, make([]int64, 0, n+1))
	if err := checkEntries(r.hdr, first, e); err != nil {
		return nil, corrupt(r.handle, err)
	}
	return e, nil
}

// confirm reads and checks the index's last entry (where the text ends),
// for a query that reads no line — a page past the end, a search of an
// output without lines: every query reads the output past its header
// once, so that a Backend whose Open answered from a cache (pgresults)
// finds an output removed since, and reports it gone rather than serving
// an empty page.
func (r *output) confirm() error {
	_, err := r.entries(r.hdr.lines, 0)
	return err
}

// page reads lines offset..offset+count-1, or fewer when the page reaches
// maxBytes (at least one line) or the end.
func (r *output) page(offset, count, maxBytes int) (Page, error) {
	total := r.hdr.lines
	p := Page{Lines: []string{}, TotalLines: int(total), Offset: offset}
	first := int64(offset) - 1
	if first >= total {
		return p, r.confirm()
	}
	n := min(int64(count), total-first)
	e, err := r.entries(first, n)
	if err != nil {
		return Page{}, err
	}
	k := int64(1)
	for k < n && e[k+1]-e[0] <= int64(maxBytes) {
		k++
	}
	buf := make([]byte, e[k]-e[0])
	if _, err := r.data.ReadAt(buf, e[0]); err != nil {
		return Page{}, r.s.readFailure(r.handle, err)
	}
	text := string(buf)
	p.Lines = make([]string, k)
	for i := range k {
		seg := text[e[i]-e[0] : e[i+1]-e[0]]
		if !wholeLineString(seg) {
			return Page{}, corrupt(r.handle, fmt.Errorf("line %d holds a line break before its end: the index does not agree with the text", first+i+1))
		}
		p.Lines[i] = trimNL(seg)
	}
	p.Returned = int(k)
	p.HasMore = first+k < total
	return p, nil
}

// trimNL removes a line's break: "\n", or "\r\n" (text written on
// Windows, many HTTP bodies), so a line reads and matches the same
// whichever was used.
func trimNL(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
	}
	return s
}

// trimNLBytes is trimNL of a line's bytes.
func trimNLBytes(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// line reads line i (1-indexed).
func (r *output) line(i int64) (string, error) {
	e, err := r.entries(i-1, 1)
	if err != nil {
		return "", err
	}
	buf := make([]byte, e[1]-e[0])
	if _, err := r.data.ReadAt(buf, e[0]); err != nil {
		return "", r.s.readFailure(r.handle, err)
	}
	if !wholeLine(buf) {
		return "", corrupt(r.handle, fmt.Errorf("line %d holds a line break before its end: the index does not agree with the text", i))
	}
	return string(trimNLBytes(buf)), nil
}

// wholeLine reports whether a line's bytes, as the index delimits them,
// hold no line break before their last byte: an index whose offsets were
// moved (a file changed by hand, a disk error) would otherwise serve parts
// of two lines as one.
func wholeLine(seg []byte) bool {
	return len(seg) < 2 || bytes.IndexByte(seg[:len(seg)-1], '\n') < 0
}

// wholeLineString is wholeLine of a line held as a string.
func wholeLineString(seg string) bool {
	return len(seg) < 2 || strings.IndexByte(seg[:len(seg)-1], '\n') < 0
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// scan calls fn with every line in order, reading the index and the text
// sequentially with bounded buffers; fn returns errStop to end the scan.
// It returns the number of lines read. It checks ctx before the first
// line, then before a line each time the work since the last check
// reaches checkWork, a line weighing (its bytes + lineWork) × weight (the
// work fn does per byte): the work done after ctx ends is less than
// checkWork and one line's.
func (r *output) scan(ctx context.Context, weight int64, fn func(i int64, line []byte) error) (int64, error) {
	n := r.hdr.lines
	if n == 0 {
		return 0, r.confirm()
	}
	idx := bufio.NewReaderSize(io.NewSectionReader(r.idx, headerSize, entrySize*(n+1)), 64<<10)
	data := bufio.NewReaderSize(io.NewSectionReader(r.data, 0, r.hdr.size), copyBuffer)
	var eb [entrySize]byte
	next := func() (int64, error) {
		if _, err := io.ReadFull(idx, eb[:]); err != nil {
			return 0, r.s.readFailure(r.handle, err)
		}
		return int64(binary.LittleEndian.Uint64(eb[:])), nil // above the int64 range: negative, refused below
	}
	prev, err := next()
	if err != nil {
		return 0, err
	}
	if prev != 0 {
		return 0, corrupt(r.handle, fmt.Errorf("first line starts at %d", prev))
	}
	buf := make([]byte, maxSpan(r.hdr))
	work := int64(checkWork) // ctx is checked before the first line
	for i := int64(1); i <= n; i++ {
		end, err := next()
		if err != nil {
			return i - 1, err
		}
		d := end - prev
		if d < 1 || d > maxSpan(r.hdr) || end > r.hdr.size || (i == n && end != r.hdr.size) {
			return i - 1, corrupt(r.handle, fmt.Errorf("line %d: offsets %d..%d", i, prev, end))
		}
		if _, err := io.ReadFull(data, buf[:d]); err != nil {
			return i - 1, r.s.readFailure(r.handle, err)
		}
		if !wholeLine(buf[:d]) {
			return i - 1, corrupt(r.handle, fmt.Errorf("line %d holds a line break before its end: the index does not agree with the text", i))
		}
		if work += (d + lineWork) * weight; work >= checkWork {
			if err := ctx.Err(); err != nil {
				return i - 1, err
			}
			work = 0
		}
		if h := r.s.scanHook; h != nil {
			h(ctx, i)
		}
		if err := fn(i, trimNLBytes(buf[:d])); err != nil {
			if err == errStop {
				return i, nil
			}
			return i, err
		}
		prev = end
	}
	return n, nil
}

// searchCtx bounds a search by Options.SearchTimeout and turns running out
// of it into ErrSearchLimit.
func (s *Store) searchCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.opts.SearchTimeout)
}

func (s *Store) searchErr(parent context.Context, r *output, reached int64, err error) error {
	if parent.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: ErrSearchLimit, Field: "search", Cause: err,
			Msg: fmt.Sprintf("search stopped after %s at line %d of %d; use a more specific search", shortDuration(s.opts.SearchTimeout), reached, r.hdr.lines)}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("results: search: %w", err)
	}
	return err
}

// searchRegexp returns the matches offset..offset+count-1 in line order.
func (s *Store) searchRegexp(ctx context.Context, r *output, q Request, count int, match func([]byte) (float64, bool), weight int64) (Page, error) {
	p := Page{Lines: []string{}, LineNumbers: []int{}, TotalLines: int(r.hdr.lines), Offset: q.Offset}
	seen, bytes := 0, 0
	sctx, cancel := s.searchCtx(ctx)
	defer cancel()
	reached, err := r.scan(sctx, weight, func(i int64, line []byte) error {
		if _, ok := match(line); !ok {
			return nil
		}
		seen++
		if seen < q.Offset {
			return nil
		}
		if len(p.Lines) == count || (len(p.Lines) > 0 && bytes+len(line)+1 > s.opts.MaxPageBytes) {
			p.HasMore = true
			return errStop
		}
		p.Lines = append(p.Lines, string(line))
		p.LineNumbers = append(p.LineNumbers, int(i))
		bytes += len(line) + 1 // as a plain page counts it, '\n' included
		return nil
	})
	if err != nil {
		return Page{}, s.searchErr(ctx, r, reached, err)
	}
	p.Returned = len(p.Lines)
	return p, nil
}

// scored is a fuzzy match: its score and line number.
type scored struct {
	score float64
	line  int64
}

// better orders matches best first: higher score, then earlier line.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.line < b.line
}

// worstFirst is a heap of the best matches so far with the worst on top.
type worstFirst []scored

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return better(h[j], h[i]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// searchFuzzy scores every line, keeps the best offset+count-1 (at most
// MaxFuzzyResults) and returns the matches offset..offset+count-1, best
// first.
func (s *Store) searchFuzzy(ctx context.Context, r *output, q Request, count int, match func([]byte) (float64, bool), weight int64) (Page, error) {
	keep := min(q.Offset-1+count, MaxFuzzyResults)
	best := make(worstFirst, 0, min(keep, 1024))
	total := 0
	sctx, cancel := s.searchCtx(ctx)
	defer cancel()
	reached, err := r.scan(sctx, weight, func(i int64, line []byte) error {
		sc, ok := match(line)
		if !ok {
			return nil
		}
		total++
		m := scored{sc, i}
		switch {
		case len(best) < keep:
			heap.Push(&best, m)
		case better(m, best[0]):
			best[0] = m
			heap.Fix(&best, 0)
		}
		return nil
	})
	if err != nil {
		return Page{}, s.searchErr(ctx, r, reached, err)
	}
	slices.SortFunc(best, func(a, b scored) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
	p := Page{Lines: []string{}, LineNumbers: []int{}, TotalLines: int(r.hdr.lines), Offset: q.Offset}
	bytes := 0
	for j := q.Offset - 1; j < len(best) && len(p.Lines) < count; j++ {
		line, err := r.line(best[j].line)
		if err != nil {
			return Page{}, err
		}
		if len(p.Lines) > 0 && bytes+len(line)+1 > s.opts.MaxPageBytes {
			break
		}
		p.Lines = append(p.Lines, line)
		p.LineNumbers = append(p.LineNumbers, int(best[j].line))
		bytes += len(line) + 1 // as a plain page counts it, '\n' included
	}
	p.Returned = len(p.Lines)
	p.HasMore = min(total, MaxFuzzyResults) > q.Offset-1+p.Returned
	return p, nil
}
