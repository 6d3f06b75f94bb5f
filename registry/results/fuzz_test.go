package results

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"log/slog"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// FuzzParseHeader: any 64 bytes (or any other length) are parsed without
// panicking; a header that parses marshals back to the same bytes.
func FuzzParseHeader(f *testing.F) {
	f.Add(header{created: 1, expires: 2, size: 100, lines: 10, maxLine: 64}.marshal())
	f.Add(header{created: 1, expires: 2, size: 0, lines: 0, maxLine: 1 << 20, flags: flagTruncated | flagJSON}.marshal())
	f.Add(make([]byte, headerSize))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseHeader(b)
		if err != nil {
			if !errors.Is(err, errHeader) {
				t.Fatalf("error not marked errHeader: %v", err)
			}
			return
		}
		if got := h.marshal(); string(got) != string(b) {
			t.Fatalf("round trip changed the header:\n%x\n%x", b, got)
		}
	})
}

var handleRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// FuzzHandle: only 32 lowercase hexadecimal characters are handles; any
// other string is reported not found, whatever it holds (paths, NULs,
// dots), and never reaches the file system as a name.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{"", "nonexistent", "../../etc/passwd", strings.Repeat("a", 32), strings.Repeat("A", 32),
		strings.Repeat("0", 31) + "/", "0123456789abcdef0123456789abcdef", "..\x00", strings.Repeat("f", 33)} {
		f.Add(s)
	}
	s, err := Open(context.Background(), Options{Dir: f.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	f.Fuzz(func(t *testing.T, h string) {
		if validHandle(h) != handleRE.MatchString(h) {
			t.Fatalf("validHandle(%q) = %v", h, validHandle(h))
		}
		_, err := s.Query(context.Background(), Request{Handle: h, Offset: 1, Limit: 10})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("handle %q: %v", h, err)
		}
	})
}

// fuzzHandle is the handle FuzzStoredFiles writes damaged files under.
const fuzzHandle = "00112233445566778899aabbccddeeff"

// FuzzStoredFiles writes arbitrary bytes as a stored output's index and
// text and reads them every way a store does (pages at several offsets,
// a regular-expression and a fuzzy search, a sweep): nothing panics, and
// every failure is one of the store's kinds. An index starting with the
// format's magic gets its checksum fixed, so that header values reach the
// checks behind it.
func FuzzStoredFiles(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	dir := f.TempDir()
	s, err := Open(context.Background(), Options{Dir: dir, Logger: slog.New(slog.DiscardHandler), MaxLineBytes: 64,
		Now: func() time.Time { return now }, SearchTimeout: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	for _, text := range []string{"line 1\nline 2\nline 3", "", strings.Repeat("é", 100) + "\nerror\n"} {
		st, err := s.Put(context.Background(), strings.NewReader(text))
		if err != nil {
			f.Fatal(err)
		}
		idx, err1 := os.ReadFile(s.be.(*fileBackend).path(st.Handle, extIndex))
		data, err2 := os.ReadFile(s.be.(*fileBackend).path(st.Handle, extData))
		if err := errors.Join(err1, err2); err != nil {
			f.Fatal(err)
		}
		f.Add(idx, data)
	}
	f.Fuzz(func(t *testing.T, idx, data []byte) {
		if len(idx) >= headerSize && string(idx[:len(magic)]) == magic {
			// Keep the checksum right, so that changed header fields reach
			// the checks behind it.
			idx = append([]byte(nil), idx...)
			binary.LittleEndian.PutUint32(idx[60:], crc32.ChecksumIEEE(idx[:60]))
		}
		if err := errors.Join(os.WriteFile(s.be.(*fileBackend).path(fuzzHandle, extIndex), idx, 0o600),
			os.WriteFile(s.be.(*fileBackend).path(fuzzHandle, extData), data, 0o600)); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for _, q := range []Request{
			{Offset: 1, Limit: 100}, {Offset: 2, Limit: 1}, {Offset: min(1<<40, math.MaxInt), Limit: min(1<<40, math.MaxInt)},
			{Offset: 1, Limit: 5, Search: "e"}, {Offset: 1, Limit: 5, Search: "line", Fuzzy: true},
		} {
			q.Handle = fuzzHandle
			p, err := s.Query(ctx, q)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrExpired) && !errors.Is(err, ErrNotFound) {
					t.Fatalf("%+v: unexpected failure %v", q, err)
				}
				continue
			}
			if p.Returned != len(p.Lines) || p.Returned > q.Limit {
				t.Fatalf("%+v: page %+v", q, p)
			}
		}
		_ = s.sweep(ctx)
	})
}

// FuzzSegmenter: the segmenter's promises hold for any bytes, any line
// size and any chunking; a valid UTF-8 text reads as referenceLines.
func FuzzSegmenter(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(0), uint8(3))
	f.Add([]byte(strings.Repeat("é€𝄞", 40)), uint8(1), uint8(7))
	f.Add([]byte("\xff\xfe\x80\x80\x80\x80"+strings.Repeat("x", 70)), uint8(2), uint8(1))
	f.Add([]byte(strings.Repeat("x", 64)+"\r\ntail"), uint8(0), uint8(0)) // "\r\n" after a full piece: one line break
	f.Fuzz(func(t *testing.T, text []byte, extra, chunk uint8) {
		max := int64(minLineBytes) + int64(extra%64)
		ps := pieces(t, text, max, []int{int(chunk)})
		checkPieces(t, text, max, ps)
	})
}

// FuzzShapeOf: the summary's JSON reader never panics, and on valid JSON
// counts the members of an object or array as encoding/json does.
func FuzzShapeOf(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":1,"b":[1,2,{"c":"}"}]}`, `[1,"a\"],",{"x":[]},null]`, `"str"`, `12`,
		`{"k\u00e9y":{"n":{"m":1}},"z":"\\"}`, `{`, `]`, `[[[[`, `{"a"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sh := shapeOf(b)
		if !json.Valid(b) {
			return
		}
		// json.Number: a valid number too large for a float64 (1e400) is
		// still valid JSON whose shape is asked for.
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		switch x := v.(type) {
		case map[string]any:
			// Duplicate keys collapse in a map: count at least its size.
			if sh.kind != "object" || sh.items < len(x) {
				t.Fatalf("%s: shape %+v for %d keys", b, sh, len(x))
			}
		case []any:
			if sh.kind != "array" || sh.items != len(x) {
				t.Fatalf("%s: shape %+v for %d items", b, sh, len(x))
			}
		}
	})
}

// FuzzSearch stores arbitrary text and searches it with an arbitrary
// query, a regular expression or (fuzzy) a text: building the matcher
// from the user's query never panics, a query is refused only as an
// invalid query, and every line a search returns is a line of the output
// at its number, given once; a regular expression's lines match it, in
// order, and a fuzzy search puts first a line holding the text
// (case-insensitively) when there is one.
func FuzzSearch(f *testing.F) {
	f.Add("error", []byte("line 1\nan Error here\nerror\n"), true)
	f.Add("reqest 42", []byte("request 42 GET\nrequest 41\n"), true)
	f.Add("é€𝄞", []byte(strings.Repeat("é€𝄞x", 40)+"\n\xff\xfe\n"), true)
	f.Add("\xff", []byte("a\xffb\n\uFFFD\n"), true)
	f.Add(strings.Repeat("ab", 32), []byte(strings.Repeat("ab", 40)), true)
	f.Add("K", []byte("\u212a\nk\n"), true) // the Kelvin sign lowers to k
	f.Add(`[a-j]{10}Z`, []byte("abcdefghijZ\nzzzz\n"), false)
	f.Add(`^$`, []byte("\n\n\r\nx\r\n"), false)
	f.Add(`(`, []byte("x"), false)
	base := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		base = "/dev/shm" // no disk to sync while fuzzing
	}
	dir, err := os.MkdirTemp(base, "FuzzSearch")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = os.RemoveAll(dir) })
	s, err := Open(context.Background(), Options{Dir: dir, Logger: slog.New(slog.DiscardHandler), MaxLineBytes: 64, SearchTimeout: time.Minute})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	f.Fuzz(func(t *testing.T, query string, text []byte, fuzzy bool) {
		ctx := context.Background()
		st, err := s.Put(ctx, bytes.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		defer s.remove(st.Handle, false)
		all, err := s.Query(ctx, Request{Handle: st.Handle, Offset: 1, Limit: 1 << 30})
		if err != nil || all.HasMore {
			t.Fatalf("whole output: %v, more: %v", err, all.HasMore)
		}
		q := Request{Handle: st.Handle, Offset: 1, Limit: 1000, Search: query, Fuzzy: fuzzy}
		p, err := s.Query(ctx, q)
		if err != nil {
			if !errors.Is(err, ErrInvalidQuery) {
				t.Fatalf("%q: unexpected failure %v", query, err)
			}
			return
		}
		if query == "" {
			return
		}
		if p.Returned != len(p.Lines) || len(p.LineNumbers) != len(p.Lines) || p.Returned > q.Limit || p.TotalLines != all.TotalLines {
			t.Fatalf("%q: page %+v", query, p)
		}
		seen := map[int]bool{}
		for i, n := range p.LineNumbers {
			if n < 1 || n > len(all.Lines) || seen[n] || p.Lines[i] != all.Lines[n-1] {
				t.Fatalf("%q: line %d (%q) is not that line of the output", query, n, p.Lines[i])
			}
			seen[n] = true
			if !fuzzy && (i > 0 && n <= p.LineNumbers[i-1] || !regexp.MustCompile(query).MatchString(p.Lines[i])) {
				t.Fatalf("%q: line %d (%q) out of order or not matching", query, n, p.Lines[i])
			}
		}
		if !fuzzy {
			return
		}
		lq := strings.ToLower(query)
		for _, l := range all.Lines {
			if strings.Contains(strings.ToLower(l), lq) {
				if p.Returned == 0 || !strings.Contains(strings.ToLower(p.Lines[0]), lq) {
					t.Fatalf("%q: line %q holds the text, the first match is %q", query, l, p.Lines)
				}
				break
			}
		}
	})
}
