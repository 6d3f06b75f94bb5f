package stats

import (
	"bytes"
	"context"
	"encoding/json"
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
		base := rapid.Int64Range(0, 1<<62).Draw(t, "ns")
		for i := range 3 {
			ns := base + rapid.Int64Range(-2e9, 2e9).Draw(t, "delta")
			if rapid.Bool().Draw(t, "whole second") {
				ns -= ns % 1e9
			}
			r := record{
				time:     time.Unix(0, max(ns, 0)).In(time.FixedZone("X", 3600*rapid.IntRange(-12, 12).Draw(t, "zone"))),
				tool:     cleanField(rapid.StringMatching(`[A-Za-z0-9_.-]{1,128}`).Draw(t, "tool")),
				pack:     cleanField(rapid.StringMatching(`[A-Za-z0-9_.-]{0,128}`).Draw(t, "pack")),
				dur:      time.Duration(rapid.Int64Range(0, 1<<50).Draw(t, "dur")),
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
			got, err := parseRecord(line[:len(line)-1])
			require.NoError(t, err, "%s", line)
			require.True(t, r.time.Equal(got.time))
			got.time = r.time
			require.Equal(t, r, got)
		}
	})
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
