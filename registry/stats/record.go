package stats

import (
	"encoding/json"
	"errors"
	"fmt"
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

var errCorrupt = errors.New("corrupt record")

// parseRecord reads one line (without its newline). Anything that is not a
// complete, plausible record is errCorrupt: a line cut short by a crash,
// garbage, a missing field, a negative duration or size, an over-long field.
// Unknown fields are ignored, so that later versions can add some.
func parseRecord(line []byte) (record, error) {
	if len(line) == 0 || len(line) > maxLineBytes {
		return record{}, fmt.Errorf("%w: %d bytes", errCorrupt, len(line))
	}
	var l lineJSON
	if err := json.Unmarshal(line, &l); err != nil {
		return record{}, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	switch {
	case l.Time == nil || l.Time.IsZero():
		return record{}, fmt.Errorf("%w: no time", errCorrupt)
	case l.Tool == "" || len(l.Tool) > maxField || len(l.Pack) > maxField || len(l.ErrorType) > maxField:
		return record{}, fmt.Errorf("%w: tool, pack or error_type empty or too long", errCorrupt)
	case l.DurationNs == nil || *l.DurationNs < 0:
		return record{}, fmt.Errorf("%w: duration_ns missing or negative", errCorrupt)
	case l.Success == nil:
		return record{}, fmt.Errorf("%w: no success", errCorrupt)
	case l.BytesIn < 0 || l.BytesOut < 0:
		return record{}, fmt.Errorf("%w: negative byte count", errCorrupt)
	}
	r := record{
		time:     *l.Time,
		tool:     l.Tool,
		pack:     l.Pack,
		dur:      time.Duration(*l.DurationNs),
		ok:       *l.Success,
		bytesIn:  l.BytesIn,
		bytesOut: l.BytesOut,
	}
	r.errType = failureType(r.ok, l.ErrorType)
	return r, nil
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
