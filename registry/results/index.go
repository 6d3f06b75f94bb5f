package results

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
)

// The files of one stored output, named after its handle:
//
//	{handle}.out   the text, exactly as stored
//	{handle}.idx   a 64-byte header, then n+1 little-endian uint64: the
//	               byte offset where each of the n lines (line pieces)
//	               starts, and the size of the text
//	{handle}.gone  a tombstone left when the output is removed (9 bytes:
//	               removal time in Unix nanoseconds, and why)
//
// The index is committed last (written to a temporary file, synced and
// renamed), so an output whose index is missing is never served, and a
// page is read with one read of its offsets and one read of its text,
// wherever it lies.
const (
	extData  = ".out"
	extIndex = ".idx"
	extGone  = ".gone"
	extTemp  = ".tmp"

	headerSize = 64
	entrySize  = 8
	magic      = "TPRIDX01"

	flagTruncated = 1 << 0
	flagJSON      = 1 << 1
	knownFlags    = flagTruncated | flagJSON

	handleBytes = 16
	handleLen   = 2 * handleBytes
)

// newHandle returns 128 random bits as 32 lowercase hexadecimal characters.
func newHandle() string {
	var b [handleBytes]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// validHandle reports whether h is 32 lowercase hexadecimal characters: the
// only strings ever turned into file names.
func validHandle(h string) bool {
	if len(h) != handleLen {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// header is the first 64 bytes of an index file.
type header struct {
	created, expires int64 // Unix nanoseconds
	size             int64 // bytes of the text
	lines            int64 // lines (pieces) in the text
	maxLine          int64 // longest piece, without its "\n" or "\r\n"
	flags            uint32
}

func (h header) marshal() []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.LittleEndian.PutUint64(b[8:], uint64(h.created))
	binary.LittleEndian.PutUint64(b[16:], uint64(h.expires))
	binary.LittleEndian.PutUint64(b[24:], uint64(h.size))
	binary.LittleEndian.PutUint64(b[32:], uint64(h.lines))
	binary.LittleEndian.PutUint32(b[40:], uint32(h.maxLine))
	binary.LittleEndian.PutUint32(b[44:], h.flags)
	binary.LittleEndian.PutUint32(b[60:], crc32.ChecksumIEEE(b[:60]))
	return b
}

var errHeader = errors.New("bad index header")

// parseHeader decodes and checks an index header: magic, checksum, and
// values that agree with each other. It never panics.
func parseHeader(b []byte) (header, error) {
	if len(b) != headerSize {
		return header{}, fmt.Errorf("%w: %d bytes, expected %d", errHeader, len(b), headerSize)
	}
	if string(b[:8]) != magic {
		return header{}, fmt.Errorf("%w: unknown format", errHeader)
	}
	if crc32.ChecksumIEEE(b[:60]) != binary.LittleEndian.Uint32(b[60:]) {
		return header{}, fmt.Errorf("%w: checksum mismatch", errHeader)
	}
	h := header{
		created: int64(binary.LittleEndian.Uint64(b[8:])),
		expires: int64(binary.LittleEndian.Uint64(b[16:])),
		size:    int64(binary.LittleEndian.Uint64(b[24:])),
		lines:   int64(binary.LittleEndian.Uint64(b[32:])),
		maxLine: int64(binary.LittleEndian.Uint32(b[40:])),
		flags:   binary.LittleEndian.Uint32(b[44:]),
	}
	switch {
	case h.flags&^knownFlags != 0:
		return header{}, fmt.Errorf("%w: unknown flags %#x", errHeader, h.flags)
	case !allZero(b[48:60]):
		return header{}, fmt.Errorf("%w: reserved bytes set", errHeader)
	case h.size < 0 || h.lines < 0 || h.expires < h.created:
		return header{}, fmt.Errorf("%w: negative size, line count or lifetime", errHeader)
	case h.maxLine < minLineBytes || h.maxLine > maxLineBytes:
		return header{}, fmt.Errorf("%w: line size %d out of range", errHeader, h.maxLine)
	case h.lines > h.size || (h.size > 0 && h.lines == 0):
		return header{}, fmt.Errorf("%w: %d lines in %d bytes", errHeader, h.lines, h.size)
	case h.lines > 0 && (h.size-1)/maxSpan(h) >= h.lines:
		return header{}, fmt.Errorf("%w: %d lines cannot hold %d bytes", errHeader, h.lines, h.size)
	case h.lines > (1<<62)/entrySize:
		return header{}, fmt.Errorf("%w: %d lines", errHeader, h.lines)
	}
	return h, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// maxSpan is the most bytes one line (piece) of a text spans: maxLine, and
// its "\r\n". (Builds before this one read at most maxLine+1; see
// headerMaxLine.)
func maxSpan(h header) int64 { return h.maxLine + 2 }

// headerMaxLine is the line size a header records for pieces of at most
// max bytes: max, or max+1 when a full piece ended by "\r\n" spans max+2
// bytes (wide) and max+1 is still a valid line size, so that a build
// reading spans of at most maxLine+1 — one sharing the directory or the
// database, or the one rolled back to — reads the output instead of
// removing it as damaged.
func headerMaxLine(max int, wide bool) int64 {
	if wide && max < maxLineBytes {
		return int64(max) + 1
	}
	return int64(max)
}

// indexSize is the size of the index file of a text of n lines.
func indexSize(n int64) int64 { return headerSize + entrySize*(n+1) }

// checkEntries checks offsets read from an index: the starts of lines
// first..first+len(e)-2 and the end of the last of them (first is
// 0-based). They must increase, by at most one piece each, within the
// text; the end of the last line must be the text's size.
func checkEntries(h header, first int64, e []int64) error {
	if len(e) == 0 {
		return nil
	}
	if first == 0 && e[0] != 0 {
		return fmt.Errorf("first line starts at %d", e[0])
	}
	for i := 1; i < len(e); i++ {
		if d := e[i] - e[i-1]; d < 1 || d > maxSpan(h) {
			return fmt.Errorf("line %d spans %d bytes", first+int64(i), d)
		}
	}
	last := e[len(e)-1]
	if e[0] < 0 || last > h.size {
		return fmt.Errorf("offsets %d..%d outside a text of %d bytes", e[0], last, h.size)
	}
	if first+int64(len(e))-1 == h.lines && last != h.size {
		return fmt.Errorf("last line ends at %d, the text at %d", last, h.size)
	}
	return nil
}

// decodeEntries reads little-endian uint64 offsets; a value above the
// int64 range comes out negative and fails checkEntries.
func decodeEntries(b []byte, out []int64) []int64 {
	for i := 0; i+entrySize <= len(b); i += entrySize {
		out = append(out, int64(binary.LittleEndian.Uint64(b[i:])))
	}
	return out
}

// segmenter cuts a text, as it is written, into lines: a line ends after
// '\n', and a line longer than max bytes (without its "\n" or "\r\n") is
// cut into pieces of at most max bytes, between two UTF-8 characters when
// the text is valid there. A piece therefore spans at most max+2 bytes: a
// full one ended by "\r\n". It writes the start offset of each piece to w.
type segmenter struct {
	w   *bufio.Writer
	max int64
	// budget caps the text and its index entries together: pos plus
	// entrySize per piece never passes it (the Store's MaxOutputBytes less
	// the index's header and final entry).
	budget int64
	pos    int64   // bytes consumed
	start  int64   // start of the open piece
	open   bool    // a piece has started and not ended
	n      int64   // pieces started
	last   [3]byte // the last three bytes consumed, most recent last
	// cr: the open piece is full and a '\r' was consumed after it. A '\n'
	// next ends the piece ("\r\n" is its line break, read without the
	// '\r'); anything else, or the end of the text, makes the '\r' the
	// first byte of the next piece. (Cutting before the '\r' at once made
	// a full line ended by "\r\n" two lines, the second one empty.)
	cr bool
	// wide: some piece is a full one ended by "\r\n", spanning max+2
	// bytes (headerMaxLine).
	wide    bool
	scratch [entrySize]byte
}

func (s *segmenter) emit(off int64) error {
	binary.LittleEndian.PutUint64(s.scratch[:], uint64(off))
	_, err := s.w.Write(s.scratch[:])
	s.n++
	return err
}

func (s *segmenter) consume(q []byte) {
	s.pos += int64(len(q))
	if len(q) >= 3 {
		copy(s.last[:], q[len(q)-3:])
		return
	}
	for _, c := range q {
		s.last[0], s.last[1], s.last[2] = s.last[1], s.last[2], c
	}
}

// write consumes p, or its head: it returns how many bytes it consumed,
// fewer than len(p) only when the next byte would take the text and its
// index past s.budget.
func (s *segmenter) write(p []byte) (int, error) {
	total := len(p)
	// What the text and the index may still take, kept in step with pos
	// and n (a local: it is checked for every line). A new piece needs a
	// byte and an entry.
	avail := s.budget - s.pos - entrySize*s.n
loop:
	for len(p) > 0 {
		if !s.open {
			if avail < 1+entrySize {
				break
			}
			if err := s.emit(s.pos); err != nil {
				return total - len(p), err
			}
			s.start, s.open = s.pos, true
			avail -= entrySize
		}
		l := s.pos - s.start
		if room := s.max - 3 - l; room > 0 {
			take := min(room, int64(len(p)), avail)
			if take < 1 {
				break
			}
			if i := bytes.IndexByte(p[:take], '\n'); i >= 0 {
				s.consume(p[:i+1])
				p = p[i+1:]
				avail -= int64(i + 1)
				s.open = false
				continue
			}
			s.consume(p[:take])
			p = p[take:]
			avail -= take
			continue
		}
		// Within three bytes of the cap: one byte at a time.
		switch c := p[0]; {
		case c == '\n':
			if avail < 1 { // never after a held '\r', which kept room for more
				break loop
			}
			s.consume(p[:1])
			p = p[1:]
			avail--
			s.wide = s.wide || s.cr
			s.open, s.cr = false, false
		case s.cr: // the '\r' after a full piece ended no line: the next piece starts at it
			cut := s.pos - 1
			if err := s.emit(cut); err != nil { // the entry held the '\r' kept room for
				return total - len(p), err
			}
			avail -= entrySize
			s.start, s.cr = cut, false
		case l < s.max:
			if avail < 1 {
				break loop
			}
			s.consume(p[:1])
			p = p[1:]
			avail--
		case c == '\r': // full, and maybe "\r\n" next: held (s.cr), with room for the entry of a piece starting at it
			if avail < 1+entrySize {
				break loop
			}
			s.consume(p[:1])
			p = p[1:]
			avail--
			s.cr = true
		default: // full: the next piece starts here, or where c's character does
			if avail < 1+entrySize {
				break loop
			}
			cut := s.pos - s.back(c)
			if err := s.emit(cut); err != nil {
				return total - len(p), err
			}
			avail -= entrySize
			s.start = cut
		}
	}
	return total - len(p), nil
}

// back returns how many of the last bytes consumed belong to the character
// that c continues (0 when c starts a character, or the bytes are not
// valid UTF-8).
func (s *segmenter) back(c byte) int64 {
	if c&0xC0 != 0x80 {
		return 0
	}
	for j := 1; j <= 3; j++ {
		b := s.last[3-j]
		if b&0xC0 == 0x80 {
			continue
		}
		var need int
		switch {
		case b >= 0xF0 && b <= 0xF7:
			need = 4
		case b >= 0xE0:
			need = 3
		case b >= 0xC0:
			need = 2
		}
		if need > j && b < 0xF8 {
			return int64(j)
		}
		return 0
	}
	return 0
}

// finish ends the text and returns its line count and size. With cut (the
// text went on past the cap), a piece still open is dropped: it may be the
// head of a longer line or character. Without, a '\r' held after a full
// piece (s.cr) ends the text as a piece of its own.
func (s *segmenter) finish(cut bool) (lines, size int64, err error) {
	if cut && s.open {
		return s.n - 1, s.start, nil
	}
	if s.cr {
		if err := s.emit(s.pos - 1); err != nil {
			return 0, 0, err
		}
		s.cr = false
	}
	return s.n, s.pos, nil
}
