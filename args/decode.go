package args

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode strictly decodes raw (a JSON object) into an A and validates it.
//
// Bad input yields a *ValidationError listing every violation found (up to
// MaxFieldErrors, then one entry saying more were found): the
// body's size, syntax (with the byte offset) and nesting depth, then
// unknown fields, duplicate keys and type mismatches at any level, nulls
// where no pointer allows them, then the validate tags and consent phrases.
// An argument type that cannot be planned (see SchemaOf), or opts that
// DecodeOptions.Validate refuses (a negative cap), yields that error,
// never a *ValidationError.
func Decode[A any](raw []byte, opts DecodeOptions) (A, error) {
	var a A
	p, err := planFor(reflect.TypeFor[A]())
	if err != nil {
		return a, err
	}
	maxBytes, maxDepth := opts.MaxBytes, opts.MaxDepth
	if maxBytes <= 0 || maxDepth <= 0 {
		if err := opts.Validate(); err != nil {
			return a, err
		}
		if maxBytes == 0 {
			maxBytes = DefaultMaxBytes
		}
		if maxDepth == 0 {
			maxDepth = DefaultMaxDepth
		}
	}
	if len(raw) > maxBytes {
		return a, one("", "too_large", fmt.Sprintf("arguments are %d bytes; the limit is %d bytes", len(raw), maxBytes))
	}
	pathBuf := pathBufs.Get().(*[8]seg)
	defer func() {
		*pathBuf = [8]seg{} // let go of the field names
		pathBufs.Put(pathBuf)
	}()
	d := decoder{raw: raw, maxDepth: maxDepth, path: pathBuf[:0]}
	rv := reflect.ValueOf(&a).Elem()
	d.root(rv, p.root)
	if d.abort != nil {
		if d.abort.Rule == RuleInvalidUTF8 {
			// Syntax and depth come first: the body may break them after
			// the bad byte.
			s := decoder{raw: raw, maxDepth: maxDepth, path: pathBuf[:0], anyBytes: true}
			if s.skip(false) && s.end() || s.abort == nil {
				s.abort = d.abort
			}
			d.abort = s.abort
		}
		var zero A
		return zero, &ValidationError{Errors: []FieldError{*d.abort}}
	}
	c := checker{errs: d.errs, path: pathBuf[:0]}
	if len(d.bad) > 0 {
		c.skip = make(map[string]struct{}, len(d.bad))
		for _, p := range d.bad {
			c.skip[p] = struct{}{}
		}
	}
	c.check(rv, p.root)
	if len(c.errs) > 0 {
		var zero A
		return zero, &ValidationError{Errors: c.errs}
	}
	return a, nil
}

// pathBufs holds the JSON-path buffers of Decode: the decoder and the
// checker escape to the heap through the plan's functions, and with them
// a buffer of their own would, on every call.
var pathBufs = sync.Pool{New: func() any { return new([8]seg) }}

func one(field, rule, msg string) *ValidationError {
	return &ValidationError{Errors: []FieldError{{Field: field, Rule: rule, Message: msg}}}
}

// decoder reads JSON in one pass straight into Go values, following a
// plan: it checks the syntax (stopping at the first error, with its byte
// offset) and the nesting depth, and collects every unknown field,
// duplicate key and type mismatch with its JSON path.
type decoder struct {
	raw      []byte
	pos      int
	maxDepth int
	depth    int
	path     []seg
	errs     []FieldError // at most MaxFieldErrors, then tooManyErrors
	found    int          // problems found, listed in errs or not
	bad      []string     // paths whose value failed to decode
	abort    *FieldError  // syntax, depth or invalid UTF-8: decoding stopped
	badKey   bool         // the invalid UTF-8 that stopped decoding is in a key
	anyBytes bool         // strings may hold bytes that are not UTF-8 (syntax only)
}

// seg is one step of a JSON path.
type seg struct {
	name  string
	index int
	kind  segKind
}

type segKind uint8

const (
	segField segKind = iota // .name
	segKey                  // [key] (map entries)
	segIndex                // [index]
)

func renderPath(path []seg) string {
	if len(path) == 1 && path[0].kind == segField {
		return path[0].name
	}
	var b strings.Builder
	for i, s := range path {
		switch s.kind {
		case segField:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case segKey:
			b.WriteByte('[')
			b.WriteString(s.name)
			b.WriteByte(']')
		case segIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func (d *decoder) push(s seg) { d.path = append(d.path, s) }
func (d *decoder) pop()       { d.path = d.path[:len(d.path)-1] }

// fail records a value that could not be decoded; its rules are not
// checked afterwards.
func (d *decoder) fail(rule, msg string) {
	d.found++
	top := topLevel(d.path)
	if !listing(d.errs, top) {
		// Not listed: the checker, whose list is this one, lists no
		// more problems below the top level either, so the path need
		// not be skipped.
		d.errs = addError(d.errs, FieldError{}, false)
		return
	}
	p := renderPath(d.path)
	d.errs = addError(d.errs, FieldError{Field: p, Rule: rule, Message: msg}, top)
	d.bad = append(d.bad, p)
}

// topLevel reports whether path is a declared top-level parameter's: past
// MaxFieldErrors its problems are still listed (one each at most).
func topLevel(path []seg) bool { return len(path) == 1 && path[0].kind == segField }

// report records a problem with a key (unknown, duplicate).
func (d *decoder) report(rule, msg string) {
	d.found++
	if !listing(d.errs, false) {
		d.errs = addError(d.errs, FieldError{}, false)
		return
	}
	d.errs = addError(d.errs, FieldError{Field: renderPath(d.path), Rule: rule, Message: msg}, false)
}

const dupMessage = "appears more than once in this object; send each key once"

func (d *decoder) syntaxErr(msg string) bool {
	if d.abort == nil {
		d.abort = &FieldError{Rule: "syntax", Message: fmt.Sprintf("arguments are not valid JSON at byte %d: %s", d.pos, msg)}
	}
	return false
}

// unexpected reports the byte at d.pos (or the end of input) as a syntax
// error.
func (d *decoder) unexpected(context string) bool {
	if d.pos >= len(d.raw) {
		return d.syntaxErr("unexpected end of input")
	}
	return d.syntaxErr("invalid character " + quoteByte(d.raw[d.pos]) + " " + context)
}

func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (d *decoder) ws() {
	for d.pos < len(d.raw) {
		switch d.raw[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// end checks that only whitespace follows the top-level value.
func (d *decoder) end() bool {
	d.ws()
	if d.pos < len(d.raw) {
		return d.syntaxErr("unexpected data after the top-level value")
	}
	return true
}

func (d *decoder) enter() bool {
	d.depth++
	if d.depth > d.maxDepth {
		if d.abort == nil {
			d.abort = &FieldError{Rule: "too_deep", Message: fmt.Sprintf("arguments nest deeper than %d levels", d.maxDepth)}
		}
		return false
	}
	return true
}

// root decodes the argument object.
func (d *decoder) root(v reflect.Value, n *node) {
	d.ws()
	if d.pos == len(d.raw) {
		d.abort = &FieldError{Rule: "type", Message: "arguments are empty; expected a JSON object such as {}"}
		return
	}
	if c := d.raw[d.pos]; c != '{' {
		if !d.skip(false) || !d.end() {
			return
		}
		d.abort = &FieldError{Rule: "type", Message: "arguments must be a JSON object, got " + literalKind(c)}
		return
	}
	if d.value(v, n) {
		d.end()
	}
}

func literalKind(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return "a boolean"
	}
	return "a number"
}

// value decodes the JSON value at d.pos into v, a settable value of the
// position n describes. It returns false when decoding must stop (d.abort).
func (d *decoder) value(v reflect.Value, n *node) bool {
	d.ws()
	if d.pos >= len(d.raw) {
		return d.syntaxErr("unexpected end of input")
	}
	c := d.raw[d.pos]
	if c == 'n' {
		switch {
		case n.ptr && !n.noNull, n.kind == kAny:
			if !d.literal("null") {
				return false
			}
			v.SetZero()
			return true
		case n.kind == kRaw:
			if !d.literal("null") {
				return false
			}
			v.SetBytes([]byte("null"))
			return true
		case n.kind == kCustom && n.custom.json:
		default:
			return d.mismatch(n)
		}
	}
	if n.ptr {
		pv := reflect.New(n.t)
		v.Set(pv)
		v = pv.Elem()
	}
	switch n.kind {
	case kString:
		if c != '"' {
			return d.mismatch(n)
		}
		s, ok := d.str()
		if !ok {
			return false
		}
		v.SetString(s)
	case kBool:
		switch c {
		case 't':
			if !d.literal("true") {
				return false
			}
			v.SetBool(true)
		case 'f':
			if !d.literal("false") {
				return false
			}
			v.SetBool(false)
		default:
			return d.mismatch(n)
		}
	case kInt, kUint, kFloat:
		if c != '-' && !isDigit(c) {
			return d.mismatch(n)
		}
		tok, ok := d.number()
		if !ok {
			return false
		}
		d.setNumber(v, n, tok)
	case kDuration:
		if c != '"' {
			return d.mismatch(n)
		}
		s, ok := d.str()
		if !ok {
			return false
		}
		dur, ok := parseDuration(s)
		if !ok {
			d.fail("type", "expected a duration string such as \"1m30s\" (numbers with units h, m, s, ms, us, ns), got string "+quoteShort(s))
			return true
		}
		v.SetInt(int64(dur))
	case kTime:
		if c != '"' {
			return d.mismatch(n)
		}
		s, ok := d.str()
		if !ok {
			return false
		}
		t, ok := parseTime(s)
		if !ok {
			d.fail("type", "expected an RFC 3339 date-time string such as \"2006-01-02T15:04:05Z\" (or with an offset like +07:00), got string "+quoteShort(s))
			return true
		}
		v.Set(reflect.ValueOf(t))
	case kSlice:
		return d.slice(v, n)
	case kMap:
		return d.mapValue(v, n)
	case kStruct:
		return d.object(v, n)
	case kAny:
		x, ok := d.anyValue()
		if !ok {
			return false
		}
		if x == nil {
			v.SetZero()
		} else {
			v.Set(reflect.ValueOf(x))
		}
	case kRaw:
		start := d.pos
		if !d.skip(true) {
			return false
		}
		v.SetBytes(bytes.Clone(d.raw[start:d.pos]))
	case kCustom:
		return d.custom(v, n)
	}
	return true
}

// literal consumes lit (true, false, null) at d.pos.
func (d *decoder) literal(lit string) bool {
	for i := 0; i < len(lit); i++ {
		if d.pos >= len(d.raw) {
			return d.syntaxErr("unexpected end of input")
		}
		if d.raw[d.pos] != lit[i] {
			return d.unexpected("in literal " + lit)
		}
		d.pos++
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans a JSON number at d.pos and returns its text.
func (d *decoder) number() ([]byte, bool) {
	raw, i := d.raw, d.pos
	start := i
	if i < len(raw) && raw[i] == '-' {
		i++
	}
	switch {
	case i >= len(raw):
		d.pos = i
		return nil, d.syntaxErr("unexpected end of input")
	case raw[i] == '0':
		i++
	case raw[i] >= '1' && raw[i] <= '9':
		for i < len(raw) && isDigit(raw[i]) {
			i++
		}
	default:
		d.pos = i
		return nil, d.unexpected("in numeric literal")
	}
	if i < len(raw) && raw[i] == '.' {
		i++
		if i >= len(raw) || !isDigit(raw[i]) {
			d.pos = i
			return nil, d.unexpected("after decimal point in numeric literal")
		}
		for i < len(raw) && isDigit(raw[i]) {
			i++
		}
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		if i >= len(raw) || !isDigit(raw[i]) {
			d.pos = i
			return nil, d.unexpected("in exponent of numeric literal")
		}
		for i < len(raw) && isDigit(raw[i]) {
			i++
		}
	}
	d.pos = i
	return raw[start:i], true
}

// scanString scans the string starting at d.pos (a quote) and leaves d.pos
// after its closing quote. It returns the end of its content and whether
// the content has escapes. A byte that is not valid UTF-8 stops decoding
// (rule invalid_utf8) with d.pos on it.
func (d *decoder) scanString() (end int, esc, ok bool) {
	raw := d.raw
	i := d.pos + 1
	for i < len(raw) {
		c := raw[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return i, esc, true
		case c == '\\':
			esc = true
			i++
			if i >= len(raw) {
				d.pos = i
				return 0, esc, d.syntaxErr("unexpected end of input")
			}
			switch raw[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(raw) {
						d.pos = i
						return 0, esc, d.syntaxErr("unexpected end of input")
					}
					if !isHex(raw[i]) {
						d.pos = i
						return 0, esc, d.unexpected("in \\u hexadecimal character escape")
					}
					i++
				}
			default:
				d.pos = i
				return 0, esc, d.unexpected("in string escape code")
			}
		case c < 0x20:
			d.pos = i
			return 0, esc, d.unexpected("in string literal")
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 && !d.anyBytes {
				d.pos = i
				return 0, esc, d.invalidUTF8()
			}
			i += size
		}
	}
	d.pos = i
	return 0, esc, d.syntaxErr("unexpected end of input")
}

// invalidUTF8 stops decoding at the byte at d.pos, which is not valid
// UTF-8, naming the field whose string holds it (key then says when the
// string is a key).
func (d *decoder) invalidUTF8() bool {
	if d.abort == nil {
		fe := utf8Error(renderPath(d.path), d.pos, false)
		d.abort = &fe
	}
	return false
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// str reads the string at d.pos.
func (d *decoder) str() (string, bool) {
	start := d.pos + 1
	end, esc, ok := d.scanString()
	if !ok {
		return "", false
	}
	return unquote(d.raw[start:end], esc), true
}

// unquote returns the text of a string's content (valid UTF-8, which
// scanString checked), as encoding/json does: escapes resolved, each
// unpaired surrogate escape replaced by U+FFFD.
func unquote(b []byte, esc bool) string {
	if !esc {
		return string(b)
	}
	out := make([]byte, 0, len(b)+4)
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\\':
			switch b[i+1] {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(b[i+2 : i+6])
				i += 6
				if utf16.IsSurrogate(r) {
					if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, hex4(b[i+2:i+6])); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default: // " \ /
				out = append(out, b[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			_, size := utf8.DecodeRune(b[i:])
			out = append(out, b[i:i+size]...)
			i += size
		}
	}
	return string(out)
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// key reads an object key and the colon after it.
func (d *decoder) key() (kb []byte, esc, ok bool) {
	d.ws()
	if d.pos >= len(d.raw) || d.raw[d.pos] != '"' {
		return nil, false, d.unexpected("looking for beginning of object key string")
	}
	start := d.pos + 1
	end, esc, ok := d.scanString()
	if !ok {
		if a := d.abort; a != nil && a.Rule == RuleInvalidUTF8 && !d.badKey {
			// In a key: reported at the object holding it.
			*a, d.badKey = utf8Error(a.Field, d.pos, true), true
		}
		return nil, false, false
	}
	d.ws()
	if d.pos >= len(d.raw) || d.raw[d.pos] != ':' {
		return nil, false, d.unexpected("after object key")
	}
	d.pos++
	return d.raw[start:end], esc, true
}

// next consumes the separator after a member or element: it returns more
// for ',' and !more for the closing byte.
func (d *decoder) next(closing byte, context string) (more, ok bool) {
	d.ws()
	if d.pos >= len(d.raw) {
		return false, d.syntaxErr("unexpected end of input")
	}
	switch d.raw[d.pos] {
	case ',':
		d.pos++
		return true, true
	case closing:
		d.pos++
		d.depth--
		return false, true
	}
	return false, d.unexpected(context)
}

// open consumes '{' or '[' and reports whether the container is empty.
func (d *decoder) open(closing byte) (empty, ok bool) {
	if !d.enter() {
		return false, false
	}
	d.pos++
	d.ws()
	if d.pos < len(d.raw) && d.raw[d.pos] == closing {
		d.pos++
		d.depth--
		return true, true
	}
	return false, true
}

func (d *decoder) object(v reflect.Value, n *node) bool {
	if d.raw[d.pos] != '{' {
		return d.mismatch(n)
	}
	empty, ok := d.open('}')
	if !ok || empty {
		return ok
	}
	var seen uint64
	var seenMore []bool
	if len(n.fields) > 64 {
		seenMore = make([]bool, len(n.fields))
	}
	for {
		kb, esc, ok := d.key()
		if !ok {
			return false
		}
		var f *field
		key := ""
		if !esc {
			f = n.byName[string(kb)]
		} else {
			key = unquote(kb, esc)
			f = n.byName[key]
		}
		if f == nil {
			if key == "" {
				key = string(kb)
			}
			d.push(seg{name: key})
			msg := "unknown field; this object has no fields"
			if n.names != "" {
				msg = "unknown field; expected one of: " + n.names
			}
			d.report("unknown_field", msg)
			ok = d.skip(false)
			d.pop()
		} else {
			d.push(seg{name: f.name})
			dup := false
			if seenMore != nil {
				dup, seenMore[f.pos] = seenMore[f.pos], true
			} else {
				bit := uint64(1) << f.pos
				dup = seen&bit != 0
				seen |= bit
			}
			if dup {
				d.report("duplicate_key", dupMessage)
				ok = d.skip(false)
			} else {
				ok = d.value(fieldAlloc(v, f.index), f.node)
			}
			d.pop()
		}
		if !ok {
			return false
		}
		more, ok := d.next('}', "after object key:value pair")
		if !ok || !more {
			return ok
		}
	}
}

func (d *decoder) mapValue(v reflect.Value, n *node) bool {
	if d.raw[d.pos] != '{' {
		return d.mismatch(n)
	}
	m := reflect.MakeMap(n.t)
	v.Set(m)
	empty, ok := d.open('}')
	if !ok || empty {
		return ok
	}
	kt := n.t.Key()
	ev := reflect.New(n.t.Elem()).Elem()
	for {
		kb, esc, ok := d.key()
		if !ok {
			return false
		}
		key := unquote(kb, esc)
		kv := reflect.ValueOf(key)
		if kt.Kind() == reflect.String && kt != kv.Type() {
			kv = kv.Convert(kt)
		}
		d.push(seg{kind: segKey, name: key})
		if m.MapIndex(kv).IsValid() {
			d.report("duplicate_key", dupMessage)
			ok = d.skip(false)
		} else {
			ev.SetZero()
			ok = d.value(ev, n.elem)
			m.SetMapIndex(kv, ev)
		}
		d.pop()
		if !ok {
			return false
		}
		more, ok := d.next('}', "after object key:value pair")
		if !ok || !more {
			return ok
		}
	}
}

func (d *decoder) slice(v reflect.Value, n *node) bool {
	if d.raw[d.pos] != '[' {
		return d.mismatch(n)
	}
	v.Set(reflect.MakeSlice(n.t, 0, 0))
	empty, ok := d.open(']')
	if !ok || empty {
		return ok
	}
	for i := 0; ; i++ {
		if i >= v.Cap() {
			v.Grow(1)
		}
		v.SetLen(i + 1)
		ev := v.Index(i)
		ev.SetZero()
		d.push(seg{kind: segIndex, index: i})
		ok := d.value(ev, n.elem)
		d.pop()
		if !ok {
			return false
		}
		more, ok := d.next(']', "after array element")
		if !ok || !more {
			return ok
		}
	}
}

// anyValue decodes any JSON value as encoding/json does into an interface
// with UseNumber: objects as map[string]any, arrays as []any, numbers as
// json.Number (precision kept).
func (d *decoder) anyValue() (any, bool) {
	d.ws()
	if d.pos >= len(d.raw) {
		return nil, d.syntaxErr("unexpected end of input")
	}
	switch c := d.raw[d.pos]; {
	case c == '{':
		m := map[string]any{}
		empty, ok := d.open('}')
		if !ok || empty {
			return m, ok
		}
		for {
			kb, esc, ok := d.key()
			if !ok {
				return nil, false
			}
			key := unquote(kb, esc)
			d.push(seg{name: key})
			if _, dup := m[key]; dup {
				d.report("duplicate_key", dupMessage)
				ok = d.skip(false)
			} else {
				var x any
				x, ok = d.anyValue()
				m[key] = x
			}
			d.pop()
			if !ok {
				return nil, false
			}
			more, ok := d.next('}', "after object key:value pair")
			if !ok {
				return nil, false
			}
			if !more {
				return m, true
			}
		}
	case c == '[':
		arr := []any{}
		empty, ok := d.open(']')
		if !ok || empty {
			return arr, ok
		}
		for i := 0; ; i++ {
			d.push(seg{kind: segIndex, index: i})
			x, ok := d.anyValue()
			d.pop()
			if !ok {
				return nil, false
			}
			arr = append(arr, x)
			more, ok := d.next(']', "after array element")
			if !ok {
				return nil, false
			}
			if !more {
				return arr, true
			}
		}
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || isDigit(c):
		tok, ok := d.number()
		return json.Number(tok), ok
	}
	return nil, d.unexpected("looking for beginning of value")
}

// skip consumes one JSON value, checking its syntax and depth; with dups it
// also reports duplicate keys at any level inside it.
func (d *decoder) skip(dups bool) bool {
	d.ws()
	if d.pos >= len(d.raw) {
		return d.syntaxErr("unexpected end of input")
	}
	switch c := d.raw[d.pos]; {
	case c == '{':
		empty, ok := d.open('}')
		if !ok || empty {
			return ok
		}
		var keys keySet
		for {
			kb, esc, ok := d.key()
			if !ok {
				return false
			}
			if dups {
				key := unquote(kb, esc)
				d.push(seg{name: key})
				if keys.add(key) {
					d.report("duplicate_key", dupMessage)
				}
				ok = d.skip(true)
				d.pop()
			} else {
				ok = d.skip(false)
			}
			if !ok {
				return false
			}
			more, ok := d.next('}', "after object key:value pair")
			if !ok || !more {
				return ok
			}
		}
	case c == '[':
		empty, ok := d.open(']')
		if !ok || empty {
			return ok
		}
		for i := 0; ; i++ {
			if dups {
				d.push(seg{kind: segIndex, index: i})
			}
			ok := d.skip(dups)
			if dups {
				d.pop()
			}
			if !ok {
				return false
			}
			more, ok := d.next(']', "after array element")
			if !ok || !more {
				return ok
			}
		}
	case c == '"':
		_, _, ok := d.scanString()
		return ok
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || isDigit(c):
		_, ok := d.number()
		return ok
	}
	return d.unexpected("looking for beginning of value")
}

// keySet remembers an object's keys to find duplicates: a list while it is
// short, a map beyond.
type keySet struct {
	list []string
	m    map[string]struct{}
}

// add records k and reports whether it was already there.
func (s *keySet) add(k string) bool {
	if s.m != nil {
		if _, ok := s.m[k]; ok {
			return true
		}
		s.m[k] = struct{}{}
		return false
	}
	for _, x := range s.list {
		if x == k {
			return true
		}
	}
	s.list = append(s.list, k)
	if len(s.list) > 16 {
		s.m = make(map[string]struct{}, 32)
		for _, x := range s.list {
			s.m[x] = struct{}{}
		}
	}
	return false
}

// custom hands the value to the type's own decoding.
func (d *decoder) custom(v reflect.Value, n *node) bool {
	if n.custom.json {
		start, before := d.pos, d.found
		if !d.skip(true) {
			return false
		}
		if d.found > before {
			return true // duplicate keys: not handed over
		}
		if err := callUnmarshalJSON(v, d.raw[start:d.pos]); err != nil {
			d.fail("type", "invalid value: "+errText(err))
		}
		return true
	}
	if d.raw[d.pos] != '"' {
		return d.mismatch(n)
	}
	s, ok := d.str()
	if !ok {
		return false
	}
	if err := callUnmarshalText(v, s); err != nil {
		d.fail("type", "invalid value "+quoteShort(s)+": "+errText(err))
	}
	return true
}

func callUnmarshalJSON(v reflect.Value, raw []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the type's UnmarshalJSON panicked")
		}
	}()
	return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw)
}

func callUnmarshalText(v reflect.Value, s string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the type's UnmarshalText panicked")
		}
	}()
	return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
}

// errText is a type's error message, cut to a length fit for a model.
func errText(err error) string {
	s := err.Error()
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// mismatch reports the value at d.pos as the wrong type and skips it.
func (d *decoder) mismatch(n *node) bool {
	var got string
	ok := true
	switch c := d.raw[d.pos]; {
	case c == '"':
		var s string
		s, ok = d.str()
		got = "string " + quoteShort(s)
	case c == 't':
		ok, got = d.literal("true"), "boolean true"
	case c == 'f':
		ok, got = d.literal("false"), "boolean false"
	case c == 'n':
		ok, got = d.literal("null"), "null"
	case c == '[':
		ok, got = d.skip(false), "array"
	case c == '{':
		ok, got = d.skip(false), "object"
	case c == '-' || isDigit(c):
		var tok []byte
		tok, ok = d.number()
		got = "number " + shortNumber(tok)
	default:
		return d.unexpected("looking for beginning of value")
	}
	if !ok {
		return false
	}
	d.fail("type", "expected "+jsonTypeName(n)+", got "+got)
	return true
}

func shortNumber(tok []byte) string {
	if len(tok) > 40 {
		return string(tok[:40]) + "…"
	}
	return string(tok)
}

func (d *decoder) setNumber(v reflect.Value, n *node, tok []byte) {
	if n.kind == kFloat {
		f, err := strconv.ParseFloat(string(tok), n.bits)
		if err != nil {
			d.fail("type", fmt.Sprintf("number %s is out of range for a %d-bit float", shortNumber(tok), n.bits))
			return
		}
		v.SetFloat(f)
		return
	}
	neg := tok[0] == '-'
	digits := tok
	if neg {
		digits = tok[1:]
	}
	if len(digits) <= 18 && allDigits(digits) {
		var u uint64
		for _, c := range digits {
			u = u*10 + uint64(c-'0')
		}
		if n.kind == kInt {
			x := int64(u)
			if neg {
				x = -x
			}
			if x >= math.MinInt64>>(64-n.bits) && x <= math.MaxInt64>>(64-n.bits) {
				v.SetInt(x)
				return
			}
		} else if (!neg || u == 0) && u <= math.MaxUint64>>(64-n.bits) {
			v.SetUint(u)
			return
		}
		lo, hi := intRange(n)
		d.fail("type", fmt.Sprintf("expected an integer between %s and %s, got %s", lo, hi, tok))
		return
	}
	d.setBigInt(v, n, tok)
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// setBigInt accepts any JSON number with an integral value (1.0, 1e2), as
// JSON Schema's "integer" does, within the Go type's range.
func (d *decoder) setBigInt(v reflect.Value, n *node, tok []byte) {
	lo, hi := intRange(n)
	if len(tok) > 400 {
		d.fail("type", fmt.Sprintf("expected an integer between %s and %s, got a number with %d characters", lo, hi, len(tok)))
		return
	}
	// Decide huge exponents without big arithmetic: a non-zero mantissa of
	// at most 400 digits times 10^±1000 or more is out of range or not whole.
	mant, exp := tok, 0
	if i := bytes.IndexAny(tok, "eE"); i >= 0 {
		mant = tok[:i]
		e := tok[i+1:]
		neg := len(e) > 0 && e[0] == '-'
		if len(e) > 0 && (e[0] == '-' || e[0] == '+') {
			e = e[1:]
		}
		for _, c := range e {
			if exp < 100000 {
				exp = exp*10 + int(c-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	if exp > 1000 || exp < -1000 {
		if strings.Trim(string(mant), "-0.") == "" {
			v.SetZero()
			return
		}
		if exp > 0 {
			d.fail("type", fmt.Sprintf("expected an integer between %s and %s, got %s", lo, hi, shortNumber(tok)))
		} else {
			d.fail("type", fmt.Sprintf("expected an integer, got %s", shortNumber(tok)))
		}
		return
	}
	r, ok := new(big.Rat).SetString(string(tok))
	if !ok || !r.IsInt() {
		d.fail("type", fmt.Sprintf("expected an integer, got %s", shortNumber(tok)))
		return
	}
	i := r.Num()
	if i.Cmp(lo) < 0 || i.Cmp(hi) > 0 {
		d.fail("type", fmt.Sprintf("expected an integer between %s and %s, got %s", lo, hi, shortNumber(tok)))
		return
	}
	if n.kind == kInt {
		v.SetInt(i.Int64())
	} else {
		v.SetUint(i.Uint64())
	}
}

// intRange is the range of n's integer type.
func intRange(n *node) (lo, hi *big.Int) {
	if n.kind == kUint {
		hi = new(big.Int).SetUint64(math.MaxUint64 >> (64 - n.bits))
		return big.NewInt(0), hi
	}
	return big.NewInt(math.MinInt64 >> (64 - n.bits)), big.NewInt(math.MaxInt64 >> (64 - n.bits))
}

// jsonTypeName names the JSON type a node expects.
func jsonTypeName(n *node) string {
	var s string
	switch n.kind {
	case kString:
		s = "string"
	case kBool:
		s = "boolean"
	case kInt, kUint:
		s = "integer"
	case kFloat:
		s = "number"
	case kSlice:
		s = "array of " + jsonTypeName(n.elem)
	case kMap:
		s = "object of " + jsonTypeName(n.elem)
	case kStruct:
		s = "object"
	case kTime:
		s = "date-time string"
	case kDuration:
		s = "duration string"
	case kAny, kRaw:
		s = "JSON value"
	case kCustom:
		s = "string"
		if n.custom.json {
			s = "JSON value"
		}
	}
	// A required pointer is not nullable: its schema has no "null" and the
	// validator rejects nil, so "or null" would mislead.
	if n.ptr && !n.rules.required && !n.noNull {
		s += " or null"
	}
	return s
}

func describeJSON(x any) string {
	switch v := x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case json.Number:
		return "number " + shortNumber([]byte(v))
	case string:
		return "string " + quoteShort(v)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}

func quoteShort(s string) string {
	if len(s) > 40 {
		r := []rune(s)
		if len(r) > 40 {
			s = string(r[:40]) + "…"
		}
	}
	return strconv.Quote(s)
}
