package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// record is one call as stored: one JSON object on one line,
//
//	{"time":"2026-11-23T16:52:00.123456789Z","tool":"brave.search","pack":"brave",
//	 "duration_ns":1234567,"success":false,"error_type":"timeout","bytes_in":42,"bytes_out":0}
//
// pack is omitted for a tool without a pack and error_type for a success.
type record struct {
	time     time.Time     // when the call started (UTC in files)
	tool     string        // final tool name
	pack     string        // the tool's pack, "" for none
	dur      time.Duration // how long the call took
	ok       bool          // success
	errType  string        // failure's error type; "" on success
	bytesIn  int64         // raw arguments
	bytesOut int64         // value (or failure text)
}

// Caps on what a record line may hold: a longer line or field is corrupt
// when read; error types longer than maxField are cut when written.
const (
	maxLineBytes = 4096
	maxField     = 256
)

// appendRecord appends r as one JSON line (with its newline) to b. It is the
// writer's hot path, so it appends by hand rather than through
// encoding/json's reflection; record_test checks that encoding/json reads
// back exactly what was written, for any field values.
func appendRecord(b []byte, r *record, tc *timeCache) []byte {
	b = append(b, `{"time":"`...)
	b = tc.append(b, r.time)
	b = append(b, `","tool":`...)
	b = appendString(b, r.tool)
	if r.pack != "" {
		b = append(b, `,"pack":`...)
		b = appendString(b, r.pack)
	}
	b = append(b, `,"duration_ns":`...)
	b = strconv.AppendInt(b, int64(r.dur), 10)
	b = append(b, `,"success":`...)
	b = strconv.AppendBool(b, r.ok)
	if !r.ok && r.errType != "" {
		b = append(b, `,"error_type":`...)
		b = appendString(b, r.errType)
	}
	b = append(b, `,"bytes_in":`...)
	b = strconv.AppendInt(b, r.bytesIn, 10)
	b = append(b, `,"bytes_out":`...)
	b = strconv.AppendInt(b, r.bytesOut, 10)
	return append(b, "}\n"...)
}

// timeCache formats times as time.RFC3339Nano in UTC, remembering the
// text of the last second: the records of a batch mostly share their
// second, so usually only the fraction is formatted.
type timeCache struct {
	sec  int64
	text []byte // "2006-01-02T15:04:05" of sec; nil before the first use
}

func (c *timeCache) append(b []byte, t time.Time) []byte {
	t = t.UTC()
	if s := t.Unix(); s != c.sec || c.text == nil {
		c.sec = s
		c.text = t.AppendFormat(c.text[:0], "2006-01-02T15:04:05")
	}
	b = append(b, c.text...)
	if ns := t.Nanosecond(); ns != 0 { // the fraction without trailing zeros, as RFC3339Nano
		var d [10]byte
		d[0] = '.'
		for i := 9; i >= 1; i-- {
			d[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(d)
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return append(b, 'Z')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped (RFC 8259), invalid UTF-8 replaced by U+FFFD as
// encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// lineJSON is the decoding form of a record line; pointers tell a missing
// required field from a zero one.
type lineJSON struct {
	Time       *time.Time `json:"time"`
	Tool       string     `json:"tool"`
	Pack       string     `json:"pack"`
	DurationNs *int64     `json:"duration_ns"`
	Success    *bool      `json:"success"`
	ErrorType  string     `json:"error_type"`
	BytesIn    int64      `json:"bytes_in"`
	BytesOut   int64      `json:"bytes_out"`
}

// fields are a line's values as read, before they are checked.
type fields struct {
	time               time.Time
	tool, pack, errTyp string
	dur                int64
	ok                 bool
	hasTime, hasDur    bool
	hasOK              bool
	in, out            int64
}

var errCorrupt = errors.New("corrupt record")

// lineParser reads record lines. A line in the exact layout appendRecord
// writes is read directly; any other line (another field order, escapes,
// white space, unknown fields) by encoding/json, with the same outcome.
// Its names map keeps one copy of each tool, pack and error type text
// met, so that reading a file does not allocate them per record. The zero
// value is ready; it is not safe for concurrent use.
type lineParser struct {
	names map[string]string
	// sec is the Unix second of the last time read in the UTC form the
	// writer uses ("2006-01-02T15:04:05[.fraction]Z"), secText its text up
	// to the seconds; the writer's records mostly share their second.
	sec     int64
	secText [19]byte
	hasSec  bool
}

// The bounds of a plausible record: no call was made before 2001 (2000-01-01
// is a date clocks reset to) or
// after 9999, lasted over a week, or took or gave a tebibyte. A record
// outside them (written by hand, a clock far off) is skipped and counted,
// as a damaged line is; it would otherwise stretch a timeline over
// centuries or make the sums overflow.
var (
	earliestRecord = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	latestRecord   = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

const (
	maxRecordDuration = 7 * 24 * time.Hour
	maxRecordBytes    = 1 << 40
)

// maxInterned bounds the texts a lineParser keeps.
const maxInterned = 4096

// parse reads one line (without its newline). Anything that is not a
// complete, plausible record is errCorrupt: a line cut short by a crash,
// garbage, a missing field, a negative duration or size, an over-long field.
// Unknown fields are ignored, so that later versions can add some.
func (p *lineParser) parse(line []byte) (record, error) {
	if len(line) == 0 || len(line) > maxLineBytes {
		return record{}, fmt.Errorf("%w: %d bytes", errCorrupt, len(line))
	}
	f, ok := p.canonical(line)
	if !ok {
		var err error
		if f, err = decodeJSON(line); err != nil {
			return record{}, err
		}
	}
	return f.record()
}

// record checks the values read and makes them a record.
func (f *fields) record() (record, error) {
	switch {
	case !f.hasTime || f.time.IsZero():
		return record{}, fmt.Errorf("%w: no time", errCorrupt)
	case f.tool == "" || len(f.tool) > maxField || len(f.pack) > maxField || len(f.errTyp) > maxField:
		return record{}, fmt.Errorf("%w: tool, pack or error_type empty or too long", errCorrupt)
	case !f.hasDur || f.dur < 0:
		return record{}, fmt.Errorf("%w: duration_ns missing or negative", errCorrupt)
	case !f.hasOK:
		return record{}, fmt.Errorf("%w: no success", errCorrupt)
	case f.in < 0 || f.out < 0:
		return record{}, fmt.Errorf("%w: negative byte count", errCorrupt)
	case f.time.Before(earliestRecord) || f.time.After(latestRecord):
		return record{}, fmt.Errorf("%w: time %s is not one a call was made at", errCorrupt, f.time.Format(time.RFC3339))
	case f.dur > int64(maxRecordDuration):
		return record{}, fmt.Errorf("%w: duration_ns over %s", errCorrupt, maxRecordDuration)
	case f.in > maxRecordBytes || f.out > maxRecordBytes:
		return record{}, fmt.Errorf("%w: byte count over %d", errCorrupt, int64(maxRecordBytes))
	}
	return record{
		time:     f.time,
		tool:     f.tool,
		pack:     f.pack,
		dur:      time.Duration(f.dur),
		ok:       f.ok,
		errType:  failureType(f.ok, f.errTyp),
		bytesIn:  f.in,
		bytesOut: f.out,
	}, nil
}

// decodeJSON reads a line with encoding/json.
func decodeJSON(line []byte) (fields, error) {
	var l lineJSON
	if err := json.Unmarshal(line, &l); err != nil {
		return fields{}, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	f := fields{tool: l.Tool, pack: l.Pack, errTyp: l.ErrorType, in: l.BytesIn, out: l.BytesOut}
	if l.Time != nil {
		f.time, f.hasTime = *l.Time, true
	}
	if l.DurationNs != nil {
		f.dur, f.hasDur = *l.DurationNs, true
	}
	if l.Success != nil {
		f.ok, f.hasOK = *l.Success, true
	}
	return f, nil
}

// canonical reads line when it is exactly in appendRecord's layout, its
// strings free of escapes and control characters and valid UTF-8, its
// numbers plain non-negative integers within int64; otherwise ok is
// false and nothing is decided (encoding/json reads the line).
func (p *lineParser) canonical(line []byte) (f fields, ok bool) {
	c := cursor{b: line}
	if !c.lit(`{"time":`) {
		return f, false
	}
	ts, ok := c.str()
	if !ok {
		return f, false
	}
	if f.time, ok = p.time(line[ts.from-1 : ts.to+1]); !ok || !c.lit(`,"tool":`) {
		return f, false
	}
	f.hasTime = true
	if f.tool, ok = p.text(&c); !ok {
		return f, false
	}
	if c.lit(`,"pack":`) {
		if f.pack, ok = p.text(&c); !ok {
			return f, false
		}
	}
	if !c.lit(`,"duration_ns":`) {
		return f, false
	}
	if f.dur, ok = c.int(); !ok || !c.lit(`,"success":`) {
		return f, false
	}
	f.hasDur = true
	switch {
	case c.lit("true"):
		f.ok = true
	case c.lit("false"):
	default:
		return f, false
	}
	f.hasOK = true
	if c.lit(`,"error_type":`) {
		if f.errTyp, ok = p.text(&c); !ok {
			return f, false
		}
	}
	if !c.lit(`,"bytes_in":`) {
		return f, false
	}
	if f.in, ok = c.int(); !ok || !c.lit(`,"bytes_out":`) {
		return f, false
	}
	if f.out, ok = c.int(); !ok || !c.lit("}") || c.i != len(line) {
		return f, false
	}
	return f, true
}

// time reads a quoted time as time.Time's UnmarshalJSON does (which
// encoding/json calls), reading only the fraction when the seconds are the
// last UTC time's.
func (p *lineParser) time(quoted []byte) (time.Time, bool) {
	text := quoted[1 : len(quoted)-1]
	if p.hasSec && len(text) >= 20 && [19]byte(text[:19]) == p.secText {
		if ns, ok := utcFraction(text[19:]); ok {
			return time.Unix(p.sec, ns).UTC(), true
		}
	}
	var t time.Time
	if t.UnmarshalJSON(quoted) != nil {
		return t, false
	}
	if len(text) >= 20 {
		if _, ok := utcFraction(text[19:]); ok {
			p.sec, p.secText, p.hasSec = t.Unix(), [19]byte(text[:19]), true
		}
	}
	return t, true
}

// utcFraction reads what follows the seconds of a UTC time as the writer
// writes it: "Z", or "." with one to nine digits and "Z".
func utcFraction(b []byte) (int64, bool) {
	if len(b) == 1 && b[0] == 'Z' {
		return 0, true
	}
	if len(b) < 3 || len(b) > 11 || b[0] != '.' || b[len(b)-1] != 'Z' {
		return 0, false
	}
	var ns int64
	for _, d := range b[1 : len(b)-1] {
		if d < '0' || d > '9' {
			return 0, false
		}
		ns = ns*10 + int64(d-'0')
	}
	for range 9 - (len(b) - 2) { // to nanoseconds
		ns *= 10
	}
	return ns, true
}

// text consumes the string at c (see cursor.str) and returns its text,
// interned.
func (p *lineParser) text(c *cursor) (string, bool) {
	s, ok := c.str()
	if !ok {
		return "", false
	}
	return p.intern(c.b[s.from:s.to]), true
}

// intern returns b as a string, the same string for the same text while
// the parser's table has room.
func (p *lineParser) intern(b []byte) string {
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.names == nil {
		p.names = make(map[string]string)
	}
	if len(p.names) < maxInterned {
		p.names[s] = s
	}
	return s
}

// cursor walks a line for lineParser.canonical.
type cursor struct {
	b []byte
	i int
}

// span is a string's content: b[from:to], between its quotes.
type span struct{ from, to int }

// lit consumes s when the line continues with it.
func (c *cursor) lit(s string) bool {
	if len(c.b)-c.i < len(s) || string(c.b[c.i:c.i+len(s)]) != s {
		return false
	}
	c.i += len(s)
	return true
}

// str consumes a JSON string with no escape, no control character and
// valid UTF-8 content.
func (c *cursor) str() (span, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return span{}, false
	}
	from := c.i + 1
	ascii := true
	for j := from; j < len(c.b); j++ {
		switch ch := c.b[j]; {
		case ch == '"':
			if !ascii && !utf8.Valid(c.b[from:j]) {
				return span{}, false
			}
			c.i = j + 1
			return span{from, j}, true
		case ch == '\\' || ch < 0x20:
			return span{}, false
		case ch >= utf8.RuneSelf:
			ascii = false
		}
	}
	return span{}, false
}

// int consumes a JSON integer 0 or [1-9][0-9]* that fits an int64.
func (c *cursor) int() (int64, bool) {
	j := c.i
	var v int64
	for ; j < len(c.b) && c.b[j] >= '0' && c.b[j] <= '9'; j++ {
		d := int64(c.b[j] - '0')
		if v > (math.MaxInt64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if n := j - c.i; n == 0 || (n > 1 && c.b[c.i] == '0') {
		return 0, false
	}
	c.i = j
	return v, true
}

// failureType is a record's error type: "" for a success, t for a
// failure, errorTypeUnknown for a failure that named none.
func failureType(ok bool, t string) string {
	switch {
	case ok:
		return ""
	case t == "":
		return errorTypeUnknown
	}
	return t
}

// cleanField makes s storable: invalid UTF-8 replaced by U+FFFD, then cut
// to at most maxField bytes on a rune boundary, so that it reads back as
// written and within the cap.
func cleanField(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= maxField {
		return s
	}
	i := maxField
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
