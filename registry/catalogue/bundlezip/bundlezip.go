package bundlezip

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// Names and format of the archive (see the package doc).
const (
	// ManifestName is the name of the manifest entry.
	ManifestName = "bundle.json"
	// ToolsDir is the folder of the tool entries, "tools/<slug>@<version>.json".
	ToolsDir = "tools/"
	// Format is the manifest's "format" value.
	Format = "toolpack.catalogue.bundle"
	// FormatVersion is the manifest's "formatVersion" value this package
	// writes and reads.
	FormatVersion = 1
)

// Defaults of [Options].
const (
	// DefaultMaxArchiveBytes caps the archive itself.
	DefaultMaxArchiveBytes = 32 << 20
	// DefaultMaxEntries caps the number of entries: the manifest, the
	// tools folder and catalogue.DefaultMaxToolsPerBundle tools.
	DefaultMaxEntries = catalogue.DefaultMaxToolsPerBundle + 2
	// DefaultMaxEntryBytes caps the bytes one entry expands to.
	DefaultMaxEntryBytes = 4 << 20
	// DefaultMaxTotalBytes caps the bytes all entries expand to together.
	DefaultMaxTotalBytes = 128 << 20
	// DefaultMaxRatio caps how many times larger than its compressed
	// bytes an entry may expand.
	DefaultMaxRatio = 100
	// RatioFloorBytes is the size below which an entry is never refused
	// for its ratio (short JSON files of repeated text compress very well
	// and are harmless).
	RatioFloorBytes = 64 << 10
)

// ErrTooLarge is wrapped (beside catalogue.ErrInvalid) by the error of an
// archive larger than Options.MaxArchiveBytes, so that an HTTP handler
// can answer 413 to it and 400 to every other problem.
var ErrTooLarge = errors.New("bundlezip: archive too large")

// Options bounds what [Import] reads. The zero value uses every default;
// a negative value is refused.
type Options struct {
	// MaxArchiveBytes caps the size of the archive. Zero means
	// DefaultMaxArchiveBytes.
	MaxArchiveBytes int64
	// MaxEntries caps the number of entries. Zero means
	// DefaultMaxEntries.
	MaxEntries int
	// MaxEntryBytes caps the bytes one entry expands to, counted while
	// reading (headers are not trusted). Zero means DefaultMaxEntryBytes.
	MaxEntryBytes int64
	// MaxTotalBytes caps the bytes all entries expand to together,
	// counted while reading. Zero means DefaultMaxTotalBytes.
	MaxTotalBytes int64
	// MaxRatio caps the expansion of an entry larger than
	// RatioFloorBytes: at most MaxRatio times its compressed size. Zero
	// means DefaultMaxRatio.
	MaxRatio int64
}

func (o Options) withDefaults() (Options, error) {
	var p []catalogue.FieldError
	for _, f := range []struct {
		name string
		v    int64
	}{{"MaxArchiveBytes", o.MaxArchiveBytes}, {"MaxEntries", int64(o.MaxEntries)},
		{"MaxEntryBytes", o.MaxEntryBytes}, {"MaxTotalBytes", o.MaxTotalBytes}, {"MaxRatio", o.MaxRatio}} {
		if f.v < 0 {
			p = append(p, catalogue.FieldError{Field: "Options." + f.name, Problem: fmt.Sprintf("expected zero (the default) or a positive number, got %d", f.v)})
		}
	}
	if len(p) > 0 {
		return o, &catalogue.ValidationError{Fields: p}
	}
	if o.MaxArchiveBytes == 0 {
		o.MaxArchiveBytes = DefaultMaxArchiveBytes
	}
	if o.MaxEntries == 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxEntryBytes == 0 {
		o.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if o.MaxTotalBytes == 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxRatio == 0 {
		o.MaxRatio = DefaultMaxRatio
	}
	return o, nil
}

// ToolEntryName is the archive name of a tool version's entry:
// "tools/<slug>@<version>.json".
func ToolEntryName(slug, version string) string {
	return ToolsDir + slug + "@" + version + ".json"
}

// manifest is the JSON of bundle.json.
type manifest struct {
	Format        string       `json:"format"`
	FormatVersion int          `json:"formatVersion"`
	Bundle        bundleRecord `json:"bundle"`
	Tools         []string     `json:"tools"`
}

type bundleRecord struct {
	ID            uuid.UUID            `json:"id"`
	CreatedAt     time.Time            `json:"createdAt"`
	ModifiedAt    time.Time            `json:"modifiedAt"`
	SoftDeletedAt *time.Time           `json:"softDeletedAt,omitempty"`
	Spec          catalogue.BundleSpec `json:"spec"`
}

// toolRecord is the JSON of a tool entry.
type toolRecord struct {
	ID           uuid.UUID          `json:"id"`
	Slug         string             `json:"slug"`
	Version      string             `json:"version"`
	CreatedAt    time.Time          `json:"createdAt"`
	ModifiedAt   time.Time          `json:"modifiedAt"`
	LastCalledAt *time.Time         `json:"lastCalledAt,omitempty"`
	CallCount    int64              `json:"callCount"`
	Spec         catalogue.ToolSpec `json:"spec"`
}

// exportPage is how many tools Export asks the store for at a time.
const exportPage = 256

// Export writes the bundle bundleID and every tool version in it
// (enabled or not, soft-deleted or not, usage counts included) to w as a
// ZIP archive in the layout of the package doc. The output depends only
// on the records: exporting twice gives the same bytes. A missing bundle
// gives an error wrapping catalogue.ErrNotFound; a built-in bundle or
// tool one wrapping catalogue.ErrBuiltIn (built-ins come with the binary,
// not with archives).
func Export(ctx context.Context, store catalogue.Store, bundleID uuid.UUID, w io.Writer) error {
	b, err := store.GetBundle(ctx, bundleID)
	if err != nil {
		return err
	}
	if b.BuiltIn {
		return fmt.Errorf("bundlezip: bundle %s is built in and cannot be exported: %w", b.ID, catalogue.ErrBuiltIn)
	}
	zw := zip.NewWriter(w)
	m := manifest{Format: Format, FormatVersion: FormatVersion, Tools: []string{},
		Bundle: bundleRecord{ID: b.ID, CreatedAt: b.CreatedAt, ModifiedAt: b.ModifiedAt, SoftDeletedAt: b.SoftDeletedAt, Spec: b.BundleSpec}}
	q := catalogue.ToolQuery{BundleIDs: []uuid.UUID{b.ID}, IncludeDisabled: true, IncludeDeleted: true, Limit: exportPage}
	for {
		page, err := store.ListTools(ctx, q)
		if err != nil {
			return err
		}
		for _, t := range page {
			if t.BuiltIn {
				return fmt.Errorf("bundlezip: tool %s@%s is built in and cannot be exported: %w", t.Slug, t.Version, catalogue.ErrBuiltIn)
			}
			name := ToolEntryName(t.Slug, t.Version)
			rec := toolRecord{ID: t.ID, Slug: t.Slug, Version: t.Version, CreatedAt: t.CreatedAt, ModifiedAt: t.ModifiedAt,
				LastCalledAt: t.LastCalledAt, CallCount: t.CallCount, Spec: t.ToolSpec}
			if err := writeEntry(zw, name, t.ModifiedAt, rec); err != nil {
				return err
			}
			m.Tools = append(m.Tools, name)
		}
		if len(page) < exportPage {
			break
		}
		q.After = page[len(page)-1].Key()
	}
	if err := writeEntry(zw, ManifestName, b.ModifiedAt, m); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("bundlezip: writing the archive: %w", err)
	}
	return nil
}

func writeEntry(zw *zip.Writer, name string, modified time.Time, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("bundlezip: encoding %s: %w", name, err)
	}
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified.UTC()})
	if err != nil {
		return fmt.Errorf("bundlezip: writing %s: %w", name, err)
	}
	if _, err := fw.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("bundlezip: writing %s: %w", name, err)
	}
	return nil
}

// problems collects the problems of an archive; each names the entry
// ("" for the archive as a whole) and, inside an entry, the JSON field.
type problems struct{ list []catalogue.FieldError }

func (p *problems) add(entry, field, format string, args ...any) {
	name := entry
	if field != "" {
		name = entry + ":" + field
	}
	p.list = append(p.list, catalogue.FieldError{Field: name, Problem: fmt.Sprintf(format, args...)})
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &catalogue.ValidationError{Fields: p.list}
}

// tooLarge is the error of an archive above MaxArchiveBytes: a
// *catalogue.ValidationError that also matches ErrTooLarge.
type tooLarge struct{ ve *catalogue.ValidationError }

func (e *tooLarge) Error() string   { return e.ve.Error() }
func (e *tooLarge) Unwrap() []error { return []error{e.ve, ErrTooLarge} }

// invalid is a single archive problem.
func invalid(entry, format string, args ...any) error {
	var p problems
	p.add(entry, "", format, args...)
	return p.err()
}

// Import reads a ZIP archive made by [Export] (or by hand in its layout)
// from r (size bytes) and stores the bundle with every tool exactly as
// recorded, through [catalogue.Store.ImportBundle]: all or nothing. It
// returns the stored bundle.
//
// Every problem of the archive is an error wrapping catalogue.ErrInvalid
// (a *catalogue.ValidationError whose fields name the entry, and inside
// an entry the JSON field, as "tools/echo@1.json:spec.argSchema"): not a
// ZIP archive, a damaged or truncated one, a name that is not a plain
// relative path ("..", a leading "/", a backslash, NUL, control
// characters, ':'), a name given twice, an entry that is not part of the
// layout or is missing from it, an encrypted or non-regular entry, an
// entry expanding beyond the caps of opts (bytes are counted as they are
// read; headers are not trusted), and every record that breaks a rule of
// the catalogue. An archive above opts.MaxArchiveBytes also wraps
// [ErrTooLarge]. A bundle id that exists already gives the store's
// catalogue.ErrBundleExists (a catalogue.ErrConflict); an archive whose
// manifest gives another bundle id imports as a copy. Names inside the
// archive are never used as file system paths.
func Import(ctx context.Context, store catalogue.Store, r io.ReaderAt, size int64, opts Options) (catalogue.Bundle, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return catalogue.Bundle{}, err
	}
	c, err := Read(ctx, r, size, opts)
	if err != nil {
		return catalogue.Bundle{}, err
	}
	if err := store.ImportBundle(ctx, c.Bundle, c.Tools); err != nil {
		return catalogue.Bundle{}, renameFields(err, c.Entries)
	}
	return store.GetBundle(ctx, c.Bundle.ID)
}

// Contents is what an archive holds, decoded.
type Contents struct {
	// Bundle is the bundle of the manifest.
	Bundle catalogue.Bundle
	// Tools are its tool versions, in the manifest's order; each carries
	// the bundle's id.
	Tools []catalogue.Tool
	// Entries[i] is the archive entry Tools[i] was read from.
	Entries []string
}

// Read checks and decodes an archive without storing it. Import is Read
// followed by Store.ImportBundle; Read alone lets a caller show what an
// upload holds before accepting it. Errors are those of Import, except
// the store's (so a record Store.ImportBundle would refuse for a rule
// only it checks, such as callCount without lastCalledAt, passes Read).
func Read(ctx context.Context, r io.ReaderAt, size int64, opts Options) (Contents, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Contents{}, err
	}
	if size < 0 {
		return Contents{}, invalid("", "expected a ZIP archive, got a negative size %d", size)
	}
	if size > opts.MaxArchiveBytes {
		return Contents{}, &tooLarge{invalid("", "expected an archive of at most %d bytes, got %d", opts.MaxArchiveBytes, size).(*catalogue.ValidationError)}
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // unsafe names get their own error below
		return Contents{}, invalid("", "expected a ZIP archive: %s", zipProblem(err))
	}
	rd := &reader{opts: opts}
	files, err := rd.index(zr.File)
	if err != nil {
		return Contents{}, err
	}
	mf, ok := files[ManifestName]
	if !ok {
		return Contents{}, invalid(ManifestName, "expected the manifest entry %s, got none", ManifestName)
	}
	data, err := rd.read(mf)
	if err != nil {
		return Contents{}, err
	}
	var p problems
	b, names := decodeManifest(&p, data)
	if err := p.err(); err != nil {
		return Contents{}, err
	}
	listed := make(map[string]bool, len(names))
	for i, n := range names {
		field := fmt.Sprintf("tools[%d]", i)
		switch {
		case listed[n]:
			p.add(ManifestName, field, "expected each tool entry listed once, got %q again", clip(n))
		case !strings.HasPrefix(n, ToolsDir) || strings.Contains(n[len(ToolsDir):], "/") || !strings.HasSuffix(n, ".json"):
			p.add(ManifestName, field, "expected a name of the form tools/<slug>@<version>.json, got %q", clip(n))
		case files[n] == nil:
			p.add(ManifestName, field, "lists the entry %q, which the archive does not hold", clip(n))
		}
		listed[n] = true
	}
	for _, f := range zr.File {
		if name := f.Name; files[name] == f && name != ManifestName && !listed[name] {
			p.add(name, "", "unknown entry: the manifest does not list it (expected only %s and the tool entries it lists)", ManifestName)
		}
	}
	if err := p.err(); err != nil {
		return Contents{}, err
	}
	tools := make([]catalogue.Tool, len(names))
	for i, n := range names {
		if err := ctx.Err(); err != nil {
			return Contents{}, err
		}
		data, err := rd.read(files[n])
		if err != nil {
			return Contents{}, err
		}
		tools[i] = decodeTool(&p, n, data, b.ID)
	}
	if err := p.err(); err != nil {
		return Contents{}, err
	}
	return Contents{Bundle: b, Tools: tools, Entries: names}, nil
}

// reader reads entries within the caps.
type reader struct {
	opts  Options
	total int64 // bytes expanded so far
}

// index checks every entry's name and header and returns the file
// entries by name (the optional "tools/" folder entry left out).
func (rd *reader) index(list []*zip.File) (map[string]*zip.File, error) {
	if len(list) > rd.opts.MaxEntries {
		return nil, invalid("", "expected at most %d entries, got %d", rd.opts.MaxEntries, len(list))
	}
	var p problems
	files := make(map[string]*zip.File, len(list))
	seen := make(map[string]bool, len(list))
	for _, f := range list {
		name := f.Name
		if problem := unsafeName(name); problem != "" {
			p.add(quote(name), "", "%s", problem)
			continue
		}
		if seen[name] {
			p.add(name, "", "expected each name once, got it repeated (which copy is meant is ambiguous)")
			continue
		}
		seen[name] = true
		switch {
		case f.Flags&0x1 != 0:
			p.add(name, "", "expected an unencrypted entry")
		case f.Method != zip.Store && f.Method != zip.Deflate:
			p.add(name, "", "expected the compression method store (0) or deflate (8), got %d", f.Method)
		case name == ToolsDir:
			if !f.Mode().IsDir() || f.UncompressedSize64 != 0 {
				p.add(name, "", "expected the empty folder entry %s", ToolsDir)
			}
		case f.Mode()&fs.ModeType != 0:
			p.add(name, "", "expected a regular file, got mode %s", f.Mode())
		case name != ManifestName && (!strings.HasPrefix(name, ToolsDir) || strings.Contains(name[len(ToolsDir):], "/") || !strings.HasSuffix(name, ".json")):
			p.add(name, "", "unknown entry: expected only %s and tools/<slug>@<version>.json", ManifestName)
		case f.UncompressedSize64 > uint64(rd.opts.MaxEntryBytes):
			p.add(name, "", "expected an entry of at most %d bytes, its header declares %d", rd.opts.MaxEntryBytes, f.UncompressedSize64)
		default:
			files[name] = f
		}
	}
	return files, p.err()
}

// unsafeName says why a name could escape a folder if it were used as a
// path (it never is here), or "".
func unsafeName(name string) string {
	switch {
	case name == "":
		return "expected a name, got an empty one"
	case !utf8.ValidString(name):
		return "expected a UTF-8 name"
	case strings.ContainsRune(name, 0):
		return "unsafe name: it contains a NUL byte"
	case strings.Contains(name, `\`):
		return `unsafe name: it contains a backslash (a path separator on Windows); expected "/" only`
	case strings.HasPrefix(name, "/"):
		return "unsafe name: it is an absolute path; expected a relative one"
	case strings.Contains(name, ":"):
		return "unsafe name: it contains ':' (a drive or stream separator on Windows)"
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "unsafe name: it contains a control character"
	}
	for _, seg := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		switch seg {
		case "..":
			return "unsafe name: a \"..\" segment climbs out of the archive's folder"
		case "", ".":
			return "expected a clean relative name, got an empty or \".\" segment"
		}
	}
	return ""
}

// read expands one entry, counting the bytes actually produced against
// the per-entry, total and ratio caps.
func (rd *reader) read(f *zip.File) ([]byte, error) {
	limit := rd.opts.MaxEntryBytes
	why := fmt.Sprintf("expected an entry of at most %d bytes once expanded", rd.opts.MaxEntryBytes)
	if left := rd.opts.MaxTotalBytes - rd.total; left < limit {
		limit = left
		why = fmt.Sprintf("expected all entries together to expand to at most %d bytes", rd.opts.MaxTotalBytes)
	}
	if byRatio := ratioLimit(f.CompressedSize64, rd.opts.MaxRatio); byRatio < limit {
		limit = byRatio
		why = fmt.Sprintf("expected an entry expanding at most %d times its %d compressed bytes (a ZIP bomb?)", rd.opts.MaxRatio, f.CompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, invalid(f.Name, "expected a readable entry: %s", zipProblem(err))
	}
	defer rc.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(rc, limit+1))
	rd.total += n
	if n > limit {
		return nil, invalid(f.Name, "%s", why)
	}
	if err != nil {
		return nil, invalid(f.Name, "expected a whole entry: %s", zipProblem(err))
	}
	return buf.Bytes(), nil
}

func ratioLimit(compressed uint64, ratio int64) int64 {
	const maxInt = int64(^uint64(0) >> 1)
	if compressed > uint64(maxInt/ratio) {
		return maxInt - 1
	}
	return max(int64(compressed)*ratio, RatioFloorBytes)
}

// zipProblem says what a read error of archive/zip or flate means.
func zipProblem(err error) string {
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, zip.ErrFormat):
		return "the archive is malformed (or an entry is longer than its header declares)"
	case errors.Is(err, zip.ErrChecksum):
		return "a checksum does not match: the archive is damaged"
	case errors.Is(err, zip.ErrAlgorithm):
		return "an unsupported compression method"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the archive is truncated (or an entry is shorter than its header declares)"
	case errors.As(err, &ce):
		return "the compressed data is damaged"
	}
	return err.Error()
}

func quote(name string) string { return strconv.Quote(clip(name)) }

func clip(s string) string {
	if len(s) <= 200 {
		return s
	}
	i := 200
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
