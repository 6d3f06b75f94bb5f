package bundlezip_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/bundlezip"
)

// validEntries is an exported sample bundle, entry by entry.
func validEntries(t *testing.T) []entry {
	clock := newClock()
	s := openStore(t, clock.Now)
	return entriesOf(t, export(t, s, sampleBundle(t, s, clock)))
}

// refused imports data into an empty store, requires a validation error,
// checks that nothing was stored, and returns the problems by field.
func refused(t *testing.T, data []byte, opts bundlezip.Options) map[string]string {
	t.Helper()
	s := openStore(t, nil)
	_, err := importBytes(s, data, opts)
	require.Error(t, err)
	fields := fieldsOf(t, err)
	requireEmpty(t, s)
	return fields
}

// Zip-slip: a name that would leave the extraction folder if it were used
// as a path is refused by name, never written anywhere.
func TestImportRefusesZipSlipNames(t *testing.T) {
	for _, name := range []string{
		"../evil.json", "tools/../../evil.json", "/etc/passwd", `tools\..\..\evil.json`, `C:\evil.json`,
		"C:/evil.json", "tools/evil\x00.json", "tools/\x1b[31mred.json", "./bundle.json", "tools//x.json", "..",
	} {
		t.Run(strings.ToValidUTF8(name, "?"), func(t *testing.T) {
			entries := append(validEntries(t), entry{name: name, data: []byte(`{}`)})
			fields := refused(t, makeZip(t, entries...), bundlezip.Options{})
			require.Len(t, fields, 1, "%v", fields)
			problem, ok := fields[strconv.Quote(name)]
			require.True(t, ok, "names the entry (quoted): %v", fields)
			assert.Regexp(t, "unsafe name|clean relative name", problem)
		})
	}
}

// The same name twice (which copy is meant is ambiguous) is refused,
// for the manifest and for a tool.
func TestImportRefusesDuplicateNames(t *testing.T) {
	for _, name := range []string{"bundle.json", "tools/echo@1.0.json"} {
		t.Run(name, func(t *testing.T) {
			entries := validEntries(t)
			var dup entry
			for _, e := range entries {
				if e.name == name {
					dup = e
				}
			}
			fields := refused(t, makeZip(t, append(entries, dup)...), bundlezip.Options{})
			assert.Equal(t, map[string]string{name: "expected each name once, got it repeated (which copy is meant is ambiguous)"}, fields)
		})
	}
}

// Entries outside the layout, and layout entries the manifest does not
// list, are refused; so is a listed entry the archive lacks.
func TestImportRefusesUnknownAndMissingEntries(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"README.md", "unknown entry"},
		{"tools/sub/x.json", "unknown entry"},
		{"__MACOSX/._bundle.json", "unknown entry"},
		{"tools/extra@1.json", "the manifest does not list it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fields := refused(t, makeZip(t, append(validEntries(t), entry{name: c.name, data: []byte("{}")})...), bundlezip.Options{})
			require.Contains(t, fields, c.name)
			assert.Contains(t, fields[c.name], c.want)
		})
	}
	t.Run("missing", func(t *testing.T) {
		var kept []entry
		for _, e := range validEntries(t) {
			if e.name != "tools/add@v1.json" {
				kept = append(kept, e)
			}
		}
		fields := refused(t, makeZip(t, kept...), bundlezip.Options{})
		require.Len(t, fields, 1)
		for f, p := range fields {
			assert.Regexp(t, `^bundle\.json:tools\[\d\]$`, f)
			assert.Contains(t, p, `"tools/add@v1.json", which the archive does not hold`)
		}
	})
	t.Run("no manifest", func(t *testing.T) {
		fields := refused(t, makeZip(t, entry{name: "tools/echo@1.0.json", data: []byte("{}")}), bundlezip.Options{})
		assert.Contains(t, fields["bundle.json"], "expected the manifest entry")
	})
	t.Run("folder entry allowed", func(t *testing.T) {
		entries := append([]entry{{name: "tools/"}}, validEntries(t)...)
		_, err := importBytes(openStore(t, nil), makeZip(t, entries...), bundlezip.Options{})
		require.NoError(t, err, "zip tools add folder entries; tools/ is part of the layout")
	})
}

// Zip bombs: an entry expanding beyond the per-entry cap, entries beyond
// the total cap, an entry with a suspicious ratio, too many entries, an
// archive too large. Bytes are counted as read.
func TestImportRefusesZipBombs(t *testing.T) {
	zeros := bytes.Repeat([]byte{'0'}, 2<<20)
	t.Run("entry above its cap", func(t *testing.T) {
		fields := refused(t, makeZip(t, entry{name: "bundle.json", data: zeros}), bundlezip.Options{MaxEntryBytes: 1 << 20, MaxRatio: 1 << 20})
		assert.Contains(t, fields["bundle.json"], "declares 2097152")
	})
	t.Run("high ratio", func(t *testing.T) {
		fields := refused(t, makeZip(t, entry{name: "bundle.json", data: zeros}), bundlezip.Options{})
		assert.Contains(t, fields["bundle.json"], "expected an entry expanding at most 100 times")
	})
	t.Run("total above its cap", func(t *testing.T) {
		entries := validEntries(t)
		fields := refused(t, makeZip(t, entries...), bundlezip.Options{MaxTotalBytes: int64(len(entries[0].data) + 10)})
		require.Len(t, fields, 1)
		for _, p := range fields {
			assert.Contains(t, p, "expected all entries together to expand to at most")
		}
	})
	t.Run("too many entries", func(t *testing.T) {
		fields := refused(t, makeZip(t, validEntries(t)...), bundlezip.Options{MaxEntries: 2})
		assert.Equal(t, "expected at most 2 entries, got 3", fields[""])
	})
	t.Run("archive too large", func(t *testing.T) {
		data := makeZip(t, validEntries(t)...)
		s := openStore(t, nil)
		_, err := importBytes(s, data, bundlezip.Options{MaxArchiveBytes: int64(len(data) - 1)})
		assert.ErrorIs(t, err, bundlezip.ErrTooLarge)
		assert.ErrorIs(t, err, catalogue.ErrInvalid)
		requireEmpty(t, s)
	})
	t.Run("negative options", func(t *testing.T) {
		fields := refused(t, makeZip(t, validEntries(t)...), bundlezip.Options{MaxRatio: -1, MaxEntries: -1})
		assert.Contains(t, fields, "Options.MaxRatio")
		assert.Contains(t, fields, "Options.MaxEntries")
	})
}

// A lying header: the entry declares a few bytes and expands to
// megabytes. Reading stops where the data passes the declared size (or
// the cap); the entry is refused by name.
func TestImportRefusesLyingHeaders(t *testing.T) {
	big := bytes.Repeat([]byte("{}"), 1<<20)
	comp := deflate(t, big)
	for _, declared := range []uint64{10, 3 << 20} {
		hdr := &zip.FileHeader{Name: "bundle.json", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(big),
			CompressedSize64: uint64(len(comp)), UncompressedSize64: declared}
		fields := refused(t, makeZip(t, entry{header: hdr, data: comp}), bundlezip.Options{MaxEntryBytes: 1 << 20, MaxRatio: 1 << 20})
		require.Contains(t, fields, "bundle.json")
		if declared == 10 {
			assert.Contains(t, fields["bundle.json"], "longer than its header declares")
		} else {
			assert.Contains(t, fields["bundle.json"], "declares")
		}
	}
	// A header within every cap: the bytes counted while expanding stop
	// the entry at the ratio cap, long before the declared size.
	hdr := &zip.FileHeader{Name: "bundle.json", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(big),
		CompressedSize64: uint64(len(comp)), UncompressedSize64: uint64(len(big))}
	fields := refused(t, makeZip(t, entry{header: hdr, data: comp}), bundlezip.Options{})
	assert.Contains(t, fields["bundle.json"], "expected an entry expanding at most 100 times")
}

// Damaged and truncated archives are refused with a clear error, never a
// panic, whatever byte they end at.
func TestImportRefusesTruncatedAndDamagedArchives(t *testing.T) {
	data := makeZip(t, validEntries(t)...)
	s := openStore(t, nil)
	for n := 0; n < len(data); n += 7 {
		_, err := importBytes(s, data[:n], bundlezip.Options{})
		require.ErrorIs(t, err, catalogue.ErrInvalid, "truncated at %d", n)
	}
	requireEmpty(t, s)
	// Flip a byte inside the compressed data of the first entry.
	damaged := append([]byte(nil), data...)
	damaged[60] ^= 0xff
	_, err := importBytes(s, damaged, bundlezip.Options{})
	require.ErrorIs(t, err, catalogue.ErrInvalid)
	assert.Regexp(t, "damaged|checksum|malformed|JSON", err.Error())
	requireEmpty(t, s)
}

// Things that are not ZIP archives at all.
func TestImportRefusesNonZip(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("{}"), []byte(`{"format":"toolpack.catalogue.bundle"}`),
		bytes.Repeat([]byte{0}, 1024), []byte("PK\x03\x04 not really")} {
		fields := refused(t, data, bundlezip.Options{})
		assert.Contains(t, fields[""], "expected a ZIP archive", "%q", data)
	}
}

// Encrypted entries and entries that are not regular files (a symlink
// pointing elsewhere) are refused by name.
func TestImportRefusesEncryptedAndSpecialEntries(t *testing.T) {
	entries := validEntries(t)
	comp := deflate(t, entries[0].data)
	enc := &zip.FileHeader{Name: entries[0].name, Method: zip.Deflate, Flags: 0x1, CRC32: crc32.ChecksumIEEE(entries[0].data),
		CompressedSize64: uint64(len(comp)), UncompressedSize64: uint64(len(entries[0].data))}
	fields := refused(t, makeZip(t, append([]entry{{header: enc, data: comp}}, entries[1:]...)...), bundlezip.Options{})
	assert.Equal(t, "expected an unencrypted entry", fields[entries[0].name])

	link := &zip.FileHeader{Name: entries[0].name, Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte("/etc/passwd")),
		CompressedSize64: 11, UncompressedSize64: 11}
	link.SetMode(fs.ModeSymlink | 0o777)
	fields = refused(t, makeZip(t, append([]entry{{header: link, data: []byte("/etc/passwd")}}, entries[1:]...)...), bundlezip.Options{})
	assert.Contains(t, fields[entries[0].name], "expected a regular file")
}

// A manifest breaking a rule is refused by entry and field; it is read
// first, so its problems stop the import before any tool is read.
func TestImportNamesFieldOfBadManifest(t *testing.T) {
	entries := validEntries(t)
	manifest := entries[len(entries)-1]
	require.Equal(t, "bundle.json", manifest.name)
	bad := bytes.Replace(manifest.data, []byte(`"slug": "web"`), []byte(`"slug": "web tools"`), 1)
	bad = bytes.Replace(bad, []byte(`"formatVersion": 1`), []byte(`"formatVersion": 1, "extra": true`), 1)
	fields := refused(t, makeZip(t, replaceEntry(entries, "bundle.json", bad)...), bundlezip.Options{})
	assert.Equal(t, []string{"bundle.json:bundle.spec.slug", "bundle.json:extra"}, sortedKeys(fields))

	future := bytes.Replace(manifest.data, []byte(`"formatVersion": 1`), []byte(`"formatVersion": 2`), 1)
	fields = refused(t, makeZip(t, replaceEntry(entries, "bundle.json", future)...), bundlezip.Options{})
	assert.Equal(t, "expected 1 (the version this program reads), got 2", fields["bundle.json:formatVersion"])
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A tool entry breaking rules is refused with the entry and the JSON
// field of every problem at once.
func TestImportNamesEntryAndFieldOfBadTools(t *testing.T) {
	entries := validEntries(t)
	var echo []byte
	for _, x := range entries {
		if x.name == "tools/echo@1.0.json" {
			echo = x.data
		}
	}
	bad := bytes.Replace(echo, []byte(`"method": "GET"`), []byte(`"method": "TRACE"`), 1)
	bad = bytes.Replace(bad, []byte(`"callCount": 1`), []byte(`"callCount": "one"`), 1)
	bad = bytes.Replace(bad, []byte(`"spec": {`), []byte(`"builtIn": true, "spec": {"bogus": 1, `), 1)
	fields := refused(t, makeZip(t, replaceEntry(entries, "tools/echo@1.0.json", bad)...), bundlezip.Options{})
	assert.Contains(t, fields, "tools/echo@1.0.json:spec.httpImpl.request.method")
	assert.Contains(t, fields, "tools/echo@1.0.json:callCount")
	assert.Contains(t, fields, "tools/echo@1.0.json:builtIn", "built-ins cannot come from an archive")
	assert.Contains(t, fields, "tools/echo@1.0.json:spec.bogus")

	renamed := bytes.Replace(echo, []byte(`"slug": "echo"`), []byte(`"slug": "other"`), 1)
	fields = refused(t, makeZip(t, replaceEntry(entries, "tools/echo@1.0.json", renamed)...), bundlezip.Options{})
	assert.Equal(t, `expected the entry of other@1.0 to be named "tools/other@1.0.json"`, fields["tools/echo@1.0.json"])

	// A rule only the store checks comes back under the entry's name too.
	var withoutLast []byte
	for _, line := range bytes.SplitAfter(echo, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"lastCalledAt"`)) {
			withoutLast = append(withoutLast, line...)
		}
	}
	fields = refused(t, makeZip(t, replaceEntry(entries, "tools/echo@1.0.json", withoutLast)...), bundlezip.Options{})
	assert.Equal(t, map[string]string{"tools/echo@1.0.json:lastCalledAt": "expected the time of the last call, since callCount is 1"}, fields)
}

// Problems are errors callers can test: errors.Is ErrInvalid, errors.As
// *catalogue.ValidationError, and not ErrTooLarge unless too large.
func TestImportErrorsAreCheckable(t *testing.T) {
	_, err := importBytes(openStore(t, nil), []byte("nope"), bundlezip.Options{})
	require.ErrorIs(t, err, catalogue.ErrInvalid)
	assert.False(t, errors.Is(err, bundlezip.ErrTooLarge))
	_, err = bundlezip.Import(context.Background(), openStore(t, nil), bytes.NewReader(nil), -1, bundlezip.Options{})
	require.ErrorIs(t, err, catalogue.ErrInvalid)
}

// An entry whose JSON is not UTF-8 is refused naming the entry, the field
// holding the bytes and their offset — encoding/json would have stored
// them as U+FFFD — and never quoting them; the bytes inside a spec, the
// bundle's or a tool's, likewise.
func TestImportRefusesInvalidUTF8(t *testing.T) {
	entries := validEntries(t)
	var echo, manifest []byte
	for _, x := range entries {
		switch x.name {
		case "tools/echo@1.0.json":
			echo = x.data
		case "bundle.json":
			manifest = x.data
		}
	}
	for _, tc := range []struct {
		entry    string
		data     []byte
		old, new string
		field    string
	}{
		{"tools/echo@1.0.json", echo, `"displayName": "`, "\"displayName\": \"\xff", "tools/echo@1.0.json:spec.displayName"},
		{"tools/echo@1.0.json", echo, `"slug": "echo"`, "\"slug\": \"ech\xc3\"", "tools/echo@1.0.json:slug"},
		{"bundle.json", manifest, `"displayName": "`, "\"displayName\": \"B\xfe", "bundle.json:bundle.spec.displayName"},
		{"bundle.json", manifest, `"tools": [`, "\"tools\": [\"\xe2\x82\", ", "bundle.json:tools[0]"},
	} {
		require.Contains(t, string(tc.data), tc.old)
		bad := bytes.Replace(tc.data, []byte(tc.old), []byte(tc.new), 1)
		fields := refused(t, makeZip(t, replaceEntry(entries, tc.entry, bad)...), bundlezip.Options{})
		assert.Equal(t, []string{tc.field}, sortedKeys(fields), "%q", tc.new)
		assert.Contains(t, fields[tc.field], "expected text of valid UTF-8", "%q", tc.new)
		assert.Contains(t, fields[tc.field], "at byte", "%q", tc.new)
		for f, problem := range fields {
			assert.True(t, utf8.ValidString(f+problem), "the bytes are echoed: %q", f+problem)
		}
	}
}
