package results

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// What a stored text came from.
const (
	kindText = iota
	kindJSON
)

// Preview bounds: the first previewLines lines, within min(previewBytes,
// MaxInlineBytes/2) bytes.
const (
	previewLines = 10
	previewBytes = 2000
)

// Instruction is the instruction of a Result whose value Middleware
// replaced by a Stored handle object (unless the tool gave one of its own).
const Instruction = "The output was too large to return at once and was stored: call the query field's call " +
	"to read the next page (offset and limit count lines from 1), or add search=\"…\" (a regular expression) to find lines."

// Stored is the handle object of a stored output, returned by Put and, in
// place of the large value, by Middleware.
type Stored struct {
	// Handle names the output in Query (ot.result(handle=…)).
	Handle string `json:"handle"`
	// TotalLines is the number of lines stored.
	TotalLines int `json:"total_lines"`
	// SizeBytes is the size of the stored text.
	SizeBytes int64 `json:"size_bytes"`
	// Summary says what was stored: text or a JSON object or array (its
	// keys or items), lines and bytes, and whether the text was cut at the
	// store's per-output cap.
	Summary string `json:"summary"`
	// Preview holds the first lines (at most 10, within a small byte
	// budget); a line cut to fit ends with "…".
	Preview []string `json:"preview"`
	// Query is the exact call that reads the next page, the lines after
	// the preview's whole lines: ot.result(handle="…", offset=…, limit=100).
	Query string `json:"query"`
}

// StoredSchema returns the JSON Schema (draft 2020-12) of a Stored handle
// object, the value Middleware returns in place of a large one: an HTTP
// host declares it beside a tool's own output schema
// (adapters/httpapi Options.AltValueSchema), so that a client checking
// values against the OpenAPI document accepts a stored output.
func StoredSchema() json.RawMessage {
	s, err := storedSchema()
	if err != nil {
		panic(err) // Stored is a plain struct: its schema always builds
	}
	return slices.Clone(s)
}

var storedSchema = sync.OnceValues(args.OutputSchemaFor[Stored])

// Middleware returns the registry middleware that stores large outputs.
// A success whose text — the string itself for a string value, the JSON of
// any other value, written as REST and MCP serve it (<, > and & as they
// are, not \u003c) — is longer than Options.MaxInlineBytes is stored, and
// the caller gets a Stored handle object instead (its Message is kept; its
// Instruction is kept, or set to Instruction). A JSON value is stored
// indented, two spaces a level, so that its lines are worth paging
// through. Failures, nil values, smaller values and the results of
// Options.QueryTool and of tools Options.Skip names pass unchanged. When
// the store cannot take an output (a full disk, the database away, a
// closed Store), the failure is logged at ERROR and the value is returned
// unchanged when it is at most MaxUnstoredBytes; a larger one becomes a
// failure of type unavailable carrying its first lines and its size.
//
// Install it with Registry.Use. A tool with an output schema then returns,
// for a large value, a Stored object its schema does not describe: hosts
// whose clients check output schemas skip such tools (Options.Skip). It
// panics on a Store not made by Open (a zero Store), where the host is put
// together.
func (s *Store) Middleware() registry.Middleware {
	if s == nil || s.be == nil {
		// Every large output would otherwise fail with an internal error,
		// at run time; this fails where the host is put together.
		panic("results: Middleware of a Store not made by Open")
	}
	return func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			res, err := next(ctx, c)
			if err != nil || !res.Success || res.Value == nil || s.skip(c) {
				return res, err
			}
			st, ok, perr := s.storeValue(ctx, res.Value)
			if perr != nil {
				text := textOf(res.Value)
				if len(text) > MaxUnstoredBytes {
					registry.Logger(ctx).LogAttrs(ctx, slog.LevelError, "results: large output not stored, too large to return inline",
						slog.Int("bytes", len(text)), slog.Any("error", perr))
					return unstored(text, s.opts.MaxInlineBytes), nil
				}
				registry.Logger(ctx).LogAttrs(ctx, slog.LevelError, "results: large output not stored, returned inline",
					slog.Any("error", perr))
				return res, nil
			}
			if !ok {
				return res, nil
			}
			out := result.Ok[any](st).WithMessage(res.Message).WithInstruction(res.Instruction)
			if out.Instruction == "" {
				out.Instruction = Instruction
			}
			return out, nil
		}
	}
}

// MaxUnstoredBytes is the largest output returned inline when the store
// cannot take it (the database away, a full disk): a call does not fail
// for want of the store, but a client is not sent megabytes either. A
// larger output is a failure of type unavailable that carries its first
// lines (up to Options.MaxInlineBytes) and its size.
const MaxUnstoredBytes = 1 << 20

// textOf is the text of a value as storeValue measures it: a string
// itself, anything else its JSON without HTML escapes, as REST and MCP
// serve it ("" when it does not marshal).
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.RawMessage:
		return string(x)
	}
	b, err := toolmsg.MarshalValue(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// unstored is the failure of an output too large to return inline that
// the store could not take: its size and its first lines, up to limit
// bytes, in the text (what every client shows) and in the error data, so
// the caller sees what it holds and can ask for less.
func unstored(text string, limit int) result.Result[any] {
	preview := cutUTF8(text, limit)
	if i := strings.LastIndexByte(preview, '\n'); i > 0 {
		preview = preview[:i]
	}
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines++
	}
	return result.Failuref[any](result.Unavailable,
		"the output (%d bytes, %d lines) is too large to return whole and could not be stored for paging right now; its first lines:\n%s", len(text), lines, preview).
		WithInstruction("Try the call again in a moment, or ask for less output (a narrower query); tell the user if it keeps failing.").
		WithErrorData(map[string]any{"preview": preview, "size_bytes": len(text), "total_lines": lines})
}

func (s *Store) skip(c *registry.Call) bool {
	if c == nil || c.Tool == nil {
		return true
	}
	t := c.Tool
	return t.Name == s.opts.QueryTool || t.BaseName == s.opts.QueryTool || (s.opts.Skip != nil && s.opts.Skip(t))
}

// storeValue stores v when its text is over the inline limit.
func (s *Store) storeValue(ctx context.Context, v any) (Stored, bool, error) {
	limit := s.opts.MaxInlineBytes
	var raw []byte
	switch x := v.(type) {
	case string:
		if len(x) <= limit {
			return Stored{}, false, nil
		}
		st, err := s.put(ctx, strings.NewReader(x), kindText, nil)
		return st, err == nil, err
	case json.RawMessage:
		if len(x) <= limit {
			return Stored{}, false, nil
		}
		raw = x
	default:
		// Without HTML escapes (toolmsg.MarshalValue), as REST and MCP
		// serve the value: a stored web page is searched for "<title>",
		// a URL for "a=1&b=2", and the size measured is the size served.
		b, err := toolmsg.MarshalValue(v)
		if err != nil || len(b) <= limit {
			// A value that does not marshal is the adapter's to report.
			return Stored{}, false, nil
		}
		raw = b
	}
	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		st, err := s.put(ctx, bytes.NewReader(raw), kindText, nil) // not JSON after all: store it as text
		return st, err == nil, err
	}
	if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
		return Stored{}, false, fmt.Errorf("results: %w", err)
	}
	sh := shapeOf(compact.Bytes())
	st, err := s.put(ctx, &indented, kindJSON, &sh)
	return st, err == nil, err
}

// describe builds the handle object of a new output from its first page.
func (s *Store) describe(ctx context.Context, h string, hdr header, sh *jsonShape) (Stored, error) {
	r, err := s.openOutput(ctx, h)
	if err != nil {
		return Stored{}, err
	}
	defer r.close()
	p, err := r.page(1, previewLines, previewBytes)
	if err != nil {
		return Stored{}, err
	}
	budget := min(previewBytes, s.opts.MaxInlineBytes/2)
	preview := []string{}
	used, whole := 0, 0
	for _, l := range p.Lines {
		if used+len(l)+1 <= budget {
			preview = append(preview, l)
			used += len(l) + 1
			whole++
			continue
		}
		if rest := budget - used - len("…"); rest > 0 {
			preview = append(preview, cutUTF8(l, rest)+"…")
		}
		break
	}
	next := whole + 1
	if int64(whole) >= hdr.lines {
		next = 1
	}
	return Stored{
		Handle:     h,
		TotalLines: int(hdr.lines),
		SizeBytes:  hdr.size,
		Summary:    s.summary(hdr, sh),
		Preview:    preview,
		Query:      fmt.Sprintf("%s(handle=%q, offset=%d, limit=%d)", s.opts.QueryTool, h, next, DefaultLimit),
	}, nil
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (s *Store) summary(hdr header, sh *jsonShape) string {
	var b strings.Builder
	stored := count(hdr.lines, "line") + ", " + count(hdr.size, "byte")
	if sh == nil {
		b.WriteString("text: " + stored)
	} else {
		b.WriteString(sh.describe())
		b.WriteString(", " + count(int64(sh.bytes), "byte") + " as JSON; stored indented: " + stored)
	}
	if hdr.flags&flagTruncated != 0 {
		b.WriteString("; cut at the store's limit of " + thousands(s.opts.MaxOutputBytes) + " bytes for the text and its line index (the rest was not stored)")
	}
	return b.String()
}

// count writes n and the noun, plural unless n is 1: "1 line", "2,000
// lines".
func count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	d := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(d, "-")
	d = strings.TrimPrefix(d, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// jsonShape describes a JSON value for a summary: its type, and for an
// object or array its members.
type jsonShape struct {
	kind  string   // object, array, string, number, boolean, null, value
	items int      // members of an object or array
	keys  []string // the first few keys of an object
	bytes int      // size of the compact JSON
}

const (
	shapeKeys    = 8
	shapeKeyRune = 40
)

func (sh jsonShape) describe() string {
	switch sh.kind {
	case "object":
		d := "JSON object with " + count(int64(sh.items), "key")
		if len(sh.keys) > 0 {
			more := ""
			if sh.items > len(sh.keys) {
				more = ", …"
			}
			d += " (" + strings.Join(sh.keys, ", ") + more + ")"
		}
		return d
	case "array":
		return "JSON array of " + count(int64(sh.items), "item")
	}
	return "JSON " + sh.kind
}

// shapeOf reads the top level of compact JSON: the type, the number of
// members and the first keys. It never panics, whatever b holds.
func shapeOf(b []byte) jsonShape {
	sh := jsonShape{kind: "value", bytes: len(b)}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i == len(b) {
		return sh
	}
	switch b[i] {
	case '{':
		sh.kind = "object"
	case '[':
		sh.kind = "array"
	case '"':
		sh.kind = "string"
		return sh
	case 't', 'f':
		sh.kind = "boolean"
		return sh
	case 'n':
		sh.kind = "null"
		return sh
	default:
		sh.kind = "number"
		return sh
	}
	object := sh.kind == "object"
	depth, inStr, esc, key := 0, false, false, -1
	expectKey, members := false, false
	for j := i; j < len(b); j++ {
		c := b[j]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if key >= 0 {
					if len(sh.keys) < shapeKeys {
						sh.keys = append(sh.keys, keyText(b[key:j+1]))
					}
					key = -1
				}
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if depth == 1 && c != '}' && c != ']' && c != ',' {
			members = true
		}
		switch c {
		case '"':
			inStr = true
			if depth == 1 && object && expectKey {
				key, expectKey = j, false
			}
		case '{', '[':
			depth++
			if depth == 1 && object {
				expectKey = true
			}
		case '}', ']':
			depth--
			if depth <= 0 {
				j = len(b)
			}
		case ',':
			if depth == 1 {
				sh.items++
				expectKey = object
			}
		}
	}
	if members {
		sh.items++
	}
	return sh
}

// keyText unquotes a JSON key for a summary, cut to shapeKeyRune
// characters.
func keyText(q []byte) string {
	var k string
	if err := json.Unmarshal(q, &k); err != nil {
		k = string(bytes.Trim(q, `"`))
	}
	if utf8.RuneCountInString(k) > shapeKeyRune {
		k = string([]rune(k)[:shapeKeyRune]) + "…"
	}
	return k
}
