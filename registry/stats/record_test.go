package stats

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The hand-written string encoder agrees with encoding/json: for any
// string, encoding/json decodes it to what it decodes json.Marshal's
// encoding to (invalid UTF-8 replaced the same way).
func TestRecord_StringEncodingMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.String(),
			rapid.StringOf(rapid.SampledFrom(tricky)),
			rapid.Custom(func(t *rapid.T) string { return string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes")) }),
		).Draw(t, "s")
		enc := appendString(nil, s)
		var got, want string
		require.NoError(t, json.Unmarshal(enc, &got), "%q encoded as %s", s, enc)
		std, err := json.Marshal(s)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(std, &want))
		require.Equal(t, want, got)
		require.NotContains(t, string(enc[1:len(enc)-1]), "\n", "one record stays on one line")
	})
}

// tricky are the runes an encoder gets wrong: control characters, quotes,
// backslashes, line separators, multi-byte runes, HTML specials.
var tricky = []rune{'"', '\\', '\n', '\r', '\t', 0, 0x1f, 0x7f, '\u2028', '\u2029', 'é', '€', '😀', 'a', '<', '&', '\uFFFD'}

// Every record the writer stores reads back equal (strings made storable by
// cleanField), as one line, its time written as time.RFC3339Nano in UTC
// (also when the encoder reuses the text of the previous record's second).
func TestRecord_RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tc timeCache
		var p lineParser // one for the three lines, as a file is read
		base := rapid.Int64Range(earliestRecord.UnixNano()+2e9, 1<<62).Draw(t, "ns")
		for i := range 3 {
			ns := base + rapid.Int64Range(-2e9, 2e9).Draw(t, "delta")
			if rapid.Bool().Draw(t, "whole second") {
				ns -= ns % 1e9
			}
			r := record{
				time:     time.Unix(0, max(ns, 0)).In(time.FixedZone("X", 3600*rapid.IntRange(-12, 12).Draw(t, "zone"))),
				tool:     cleanField(rapid.StringMatching(`[A-Za-z0-9_.-]{1,128}`).Draw(t, "tool")),
				pack:     cleanField(rapid.StringMatching(`[A-Za-z0-9_.-]{0,128}`).Draw(t, "pack")),
				dur:      time.Duration(rapid.Int64Range(0, int64(maxRecordDuration)).Draw(t, "dur")),
				ok:       rapid.Bool().Draw(t, "ok"),
				bytesIn:  rapid.Int64Range(0, 1<<40).Draw(t, "in"),
				bytesOut: rapid.Int64Range(0, 1<<40).Draw(t, "out"),
			}
			if !r.ok {
				r.errType = cleanField(rapid.StringN(1, 400, -1).Draw(t, "errType"))
				if r.errType == "" {
					r.errType = errorTypeUnknown
				}
			}
			line := appendRecord(nil, &r, &tc)
			require.Equal(t, 1, bytes.Count(line, []byte("\n")))
			require.True(t, bytes.HasSuffix(line, []byte("\n")))
			require.True(t, bytes.HasPrefix(line, []byte(`{"time":"`+r.time.UTC().Format(time.RFC3339Nano)+`","tool":`)), "record %d: %s", i, line)
			require.LessOrEqual(t, len(line), maxLineBytes, "a stored line is within the reader's cap")
			got, err := p.parse(line[:len(line)-1])
			require.NoError(t, err, "%s", line)
			require.True(t, r.time.Equal(got.time))
			got.time = r.time
			require.Equal(t, r, got)
		}
	})
}

// A record no call could have made — dated before 2001 (a reset clock), lasting over a
// week, a tebibyte in or out — is skipped as a damaged line is: it
// stretched a report's timeline over two thousand years into one bucket
// and made the sums of durations and bytes overflow to nonsense. Sums of
// plausible records that would overflow stay at the largest value.
func TestRecord_ImplausibleRecordsSkipped(t *testing.T) {
	var p lineParser
	ok := `{"time":"2026-11-29T10:00:00Z","tool":"t","duration_ns":1000,"success":true,"bytes_in":1,"bytes_out":2}`
	_, err := p.parse([]byte(ok))
	require.NoError(t, err)
	for _, line := range []string{
		`{"time":"0001-01-01T00:00:01Z","tool":"t","duration_ns":1000,"success":true,"bytes_in":1,"bytes_out":2}`,
		`{"time":"1999-12-31T23:59:59Z","tool":"t","duration_ns":1000,"success":true,"bytes_in":1,"bytes_out":2}`,
		`{"time":"2000-01-01T00:00:00Z","tool":"t","duration_ns":1000,"success":true,"bytes_in":1,"bytes_out":2}`,
		`{"time":"2026-11-29T10:00:00Z","tool":"t","duration_ns":9223372036854775807,"success":true,"bytes_in":1,"bytes_out":2}`,
		`{"time":"2026-11-29T10:00:00Z","tool":"t","duration_ns":1000,"success":true,"bytes_in":1099511627777,"bytes_out":2}`,
		`{"time":"2026-11-29T10:00:00Z","tool":"t","duration_ns":1000,"success":true,"bytes_in":1,"bytes_out":9223372036854775807}`,
	} {
		_, err := p.parse([]byte(line))
		assert.ErrorIs(t, err, errCorrupt, line)
	}
	assert.Equal(t, int64(math.MaxInt64), addCapped(math.MaxInt64-1, 5))
	assert.Equal(t, int64(7), addCapped(2, 5))
}

// cleanField keeps fields valid UTF-8 and within maxField bytes without
// splitting a rune.
func TestRecord_CleanField(t *testing.T) {
	assert.Equal(t, "abc", cleanField("abc"))
	assert.Equal(t, "a\uFFFDb", cleanField("a\xffb"))
	long := strings.Repeat("é", 200) // 400 bytes
	c := cleanField(long)
	assert.LessOrEqual(t, len(c), maxField)
	assert.True(t, utf8.ValidString(c))
	assert.Equal(t, strings.Repeat("é", maxField/2), c)
}

// FuzzScanLines: whatever bytes a record file holds, reading it never
// panics, every line is either a record or counted as corrupt, and every
// record read is plausible.
func FuzzScanLines(f *testing.F) {
	good := appendRecord(nil, &record{time: t0, tool: "demo_search", pack: "web", dur: time.Millisecond, ok: true, bytesIn: 3, bytesOut: 4}, &timeCache{})
	bad := appendRecord(nil, &record{time: t0, tool: "demo_missing", dur: 5, errType: "not_found"}, &timeCache{})
	f.Add(good)
	f.Add(append(append([]byte{}, good...), bad...))
	f.Add(append(append([]byte{}, good...), good[:20]...))
	f.Add([]byte("garbage\n{}\n\n[1,2]\n"))
	f.Add([]byte(`{"time":"2026-11-23T15:30:00Z","tool":"x","duration_ns":1,"success":true,"bytes_in":-1,"bytes_out":0}` + "\n"))
	f.Add([]byte(`{"time":null,"tool":"x","duration_ns":1e3,"success":"yes"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []record
		corrupt, err := scanLines(context.Background(), bytes.NewReader(data), false, func(r *record) { recs = append(recs, *r) })
		require.NoError(t, err)
		lines := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimRight(l, "\r")) > 0 {
				lines++
			}
		}
		require.Equal(t, lines, len(recs)+int(corrupt), "every non-empty line is a record or corrupt")
		for _, r := range recs {
			require.NotEmpty(t, r.tool)
			require.False(t, r.time.IsZero())
			require.GreaterOrEqual(t, r.dur, time.Duration(0))
			require.GreaterOrEqual(t, r.bytesIn, int64(0))
			require.GreaterOrEqual(t, r.bytesOut, int64(0))
			if !r.ok {
				require.NotEmpty(t, r.errType)
			}
		}
	})
}

// FuzzSummaryOfFile: a Summary over a record file holding any bytes never
// fails or panics, and its totals agree with themselves.
func FuzzSummaryOfFile(f *testing.F) {
	f.Add(appendRecord(nil, &record{time: t0, tool: "a", dur: 1, ok: true}, &timeCache{}))
	f.Add([]byte("\x00\xff{\"time\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, dayFileName(t0)), data, 0o644))
		rec, err := New(Options{Enabled: true, Dir: dir, Logger: discard, FlushInterval: time.Hour})
		require.NoError(t, err)
		defer func() { _ = rec.Close(context.Background()) }()
		s, err := rec.Summary(context.Background(), Query{})
		require.NoError(t, err)
		var sum int64
		for _, ts := range s.Tools {
			sum += ts.Calls
		}
		require.Equal(t, s.TotalCalls, sum)
	})
}

// A line in the writer's own layout is read without encoding/json, with
// the same outcome: for any record the writer stores, the direct reading
// takes it whenever its texts need no escapes, and whenever it takes a line
// it reads what encoding/json reads.
func TestRecord_DirectReadingAgreesWithEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.OneOf(
			rapid.StringMatching(`[A-Za-z0-9_.-]{1,40}`),
			rapid.StringOf(rapid.SampledFrom(tricky)),
		)
		r := record{
			time:     time.Unix(0, rapid.Int64Range(1, 1<<62).Draw(t, "ns")),
			tool:     cleanField(text.Draw(t, "tool")),
			pack:     cleanField(text.Draw(t, "pack")),
			dur:      time.Duration(rapid.Int64Range(0, 1<<62).Draw(t, "dur")),
			ok:       rapid.Bool().Draw(t, "ok"),
			errType:  cleanField(text.Draw(t, "errType")),
			bytesIn:  rapid.Int64Range(0, 1<<62).Draw(t, "in"),
			bytesOut: rapid.Int64Range(0, 1<<62).Draw(t, "out"),
		}
		line := appendRecord(nil, &r, &timeCache{})
		line = line[:len(line)-1]
		var p lineParser
		direct, ok := p.canonical(line)
		plain := !strings.ContainsAny(r.tool+r.pack+r.errType, "\"\\\x00\x1f\n\r\t")
		if plain {
			require.True(t, ok, "a line of the writer's layout is read directly: %s", line)
		}
		if ok {
			viaJSON, err := decodeJSON(line)
			require.NoError(t, err)
			requireSameFields(t, viaJSON, direct, line)
		}
	})
}

func requireSameFields(t require.TestingT, want, got fields, line []byte) {
	require.True(t, want.time.Equal(got.time), "time of %s", line)
	require.Equal(t, want.time.Location().String(), got.time.Location().String())
	want.time, got.time = time.Time{}, time.Time{}
	require.Equal(t, want, got, "%s", line)
}

// FuzzParseRecord: for any lines, reading them one after the other (as a
// file is read) gives what encoding/json's reading of each gives — the same
// record or, both ways, a corrupt line.
func FuzzParseRecord(f *testing.F) {
	var tc timeCache
	good := appendRecord(nil, &record{time: t0, tool: "demo_search", pack: "web", dur: time.Millisecond, ok: true, bytesIn: 3, bytesOut: 4}, &tc)
	f.Add(good)
	f.Add(append(append(append([]byte{}, good...), appendRecord(nil, &record{time: t0.Add(123 * time.Millisecond), tool: "a\"b", dur: 5, errType: "not_found"}, &tc)...),
		appendRecord(nil, &record{time: t0.Add(time.Second + 1), tool: "c", dur: 5, ok: true}, &tc)...))
	f.Add([]byte(`{"time":"2026-11-23T15:30:00Z","tool":"x","duration_ns":01,"success":true,"bytes_in":0,"bytes_out":0}`))
	f.Add([]byte(`{"time":"2026-11-23T15:30:00Z","tool":"x","duration_ns":1,"success":true,"bytes_in":0,"bytes_out":0} `))
	f.Add([]byte(`{"time":"2026-11-23T15:30:00+01:00","tool":"\u00e9","duration_ns":1,"success":false,"error_type":"","bytes_in":0,"bytes_out":99999999999999999999}`))
	f.Add([]byte(`{"time":"2026-11-23T24:30:00Z","tool":"x","duration_ns":1,"success":true,"bytes_in":0,"bytes_out":0}`))
	f.Add([]byte("{\"time\":\"2026-11-23T15:30:00Z\",\"tool\":\"\xff\",\"duration_ns\":1,\"success\":true,\"bytes_in\":0,\"bytes_out\":0}"))
	f.Add([]byte(`{"time":"2026-11-23T15:30:00.5Z","tool":"x","duration_ns":1,"success":true,"bytes_in":0,"bytes_out":0}` + "\n" +
		`{"time":"2026-11-23T15:30:00.1234567891Z","tool":"x","duration_ns":1,"success":true,"bytes_in":0,"bytes_out":0}` + "\n" +
		`{"time":"2026-11-23T15:30:00.Z","tool":"x","duration_ns":1,"success":true,"bytes_in":0,"bytes_out":0}` + "\n" +
		`{"time":"2026-11-23T15:30:00,5Z","tool":"x","duration_ns":1,"success":true,"bytes_in":0,"bytes_out":0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p lineParser
		for _, line := range bytes.Split(data, []byte("\n")) {
			got, err := p.parse(line)
			want, wantErr := parseViaJSON(line)
			if wantErr != nil {
				require.ErrorIs(t, err, errCorrupt, "%q", line)
				continue
			}
			require.NoError(t, err, "%q", line)
			require.True(t, want.time.Equal(got.time), "%q: %v, want %v", line, got.time, want.time)
			require.Equal(t, want.time.Location().String(), got.time.Location().String())
			want.time, got.time = time.Time{}, time.Time{}
			require.Equal(t, want, got, "%q", line)
		}
	})
}

// parseViaJSON is lineParser.parse reading every line with encoding/json.
func parseViaJSON(line []byte) (record, error) {
	if len(line) == 0 || len(line) > maxLineBytes {
		return record{}, errCorrupt
	}
	f, err := decodeJSON(line)
	if err != nil {
		return record{}, err
	}
	return f.record()
}
