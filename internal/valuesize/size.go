package valuesize

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// The bytes out of a value that is not text are the size of its JSON
// encoding by encoding/json (HTML characters not escaped, no trailing
// newline). Encoding a value only to count its bytes costs a few hundred
// nanoseconds even for a small struct, which is most of what a middleware
// would add to a call; so the common shapes (structs of exported,
// non-embedded fields, pointers, slices, arrays, maps with string or
// integer keys, strings, numbers, booleans, interfaces holding any of
// these) are measured by walking them with reflect, and everything whose
// encoding depends on code or rules the walk does not repeat (a
// MarshalJSON or MarshalText method, json.Number, embedded fields, the
// ",string" tag option, an IsZero method with ",omitzero", duplicate field
// names, unsupported kinds) is encoded with encoding/json as before, as a
// whole or just that part. TestValueSize_EqualsEncoding (rapid) and
// FuzzValueSize hold the result equal to the encoding's length.

// sizeKind is how a type's encoded size is counted.
type sizeKind uint8

const (
	sizeEncode sizeKind = iota // encode with encoding/json (the exact rule)
	sizeBool
	sizeInt
	sizeUint
	sizeFloat32
	sizeFloat64
	sizeString
	sizeBytes // []byte: base64 in quotes
	sizeInterface
	sizePointer
	sizeSlice
	sizeArray
	sizeMap
	sizeStruct
)

// typeSize is the compiled counting rule of one type. Rules are built once
// per type and never modified after they are published in the cache.
type typeSize struct {
	typ    reflect.Type
	kind   sizeKind
	elem   *typeSize // pointer, slice, array elements; map values
	keyInt bool      // map keys are integers (quoted decimals), else strings
	fields []fieldSize
}

// fieldSize is one encoded struct field.
type fieldSize struct {
	index     int
	head      int64 // len(`"name":`)
	omitEmpty bool
	omitZero  bool
	size      *typeSize
}

// maxSizeDepth bounds the nesting the walk follows; deeper values (or a
// pointer cycle, which encoding/json refuses) are encoded instead, which
// gives the same answer.
const maxSizeDepth = 500

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

// sizeRules caches counting rules by type (reflect.Type → *typeSize); each
// Sizer has its own. Rules depend on the type alone and never change.
type sizeRules struct{ m sync.Map }

// ruleFor returns the rule of t, building (and caching) it on first use.
func (c *sizeRules) ruleFor(t reflect.Type) *typeSize {
	if r, ok := c.m.Load(t); ok {
		return r.(*typeSize)
	}
	building := map[reflect.Type]*typeSize{}
	r := c.build(t, building)
	for bt, br := range building {
		c.m.LoadOrStore(bt, br)
	}
	if got, ok := c.m.Load(t); ok {
		return got.(*typeSize)
	}
	return r
}

// hasCustomEncoding reports whether t's encoding runs a method of its own
// (as encoding/json decides it, for t or *t).
func hasCustomEncoding(t reflect.Type) bool {
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		return true
	}
	if t.Kind() != reflect.Pointer {
		p := reflect.PointerTo(t)
		return p.Implements(marshalerType) || p.Implements(textMarshalerType)
	}
	return false
}

// build builds the rule of t; building holds the rules under
// construction, so that recursive types end.
func (c *sizeRules) build(t reflect.Type, building map[reflect.Type]*typeSize) *typeSize {
	if r, ok := building[t]; ok {
		return r
	}
	if r, ok := c.m.Load(t); ok {
		return r.(*typeSize)
	}
	r := &typeSize{typ: t, kind: sizeEncode}
	building[t] = r
	if hasCustomEncoding(t) || t == numberType {
		return r
	}
	switch t.Kind() {
	case reflect.Bool:
		r.kind = sizeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r.kind = sizeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		r.kind = sizeUint
	case reflect.Float32:
		r.kind = sizeFloat32
	case reflect.Float64:
		r.kind = sizeFloat64
	case reflect.String:
		r.kind = sizeString
	case reflect.Interface:
		r.kind = sizeInterface
	case reflect.Pointer:
		r.kind, r.elem = sizePointer, c.build(t.Elem(), building)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !hasCustomEncoding(t.Elem()) {
			r.kind = sizeBytes
		} else {
			r.kind, r.elem = sizeSlice, c.build(t.Elem(), building)
		}
	case reflect.Array:
		r.kind, r.elem = sizeArray, c.build(t.Elem(), building)
	case reflect.Map:
		k := t.Key()
		if hasCustomEncoding(k) {
			break
		}
		switch k.Kind() {
		case reflect.String:
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			r.keyInt = true
		default:
			return r
		}
		r.kind, r.elem = sizeMap, c.build(t.Elem(), building)
	case reflect.Struct:
		fields, ok := c.structFields(t, building)
		if ok {
			r.kind, r.fields = sizeStruct, fields
		}
	}
	return r
}

// structFields returns the encoded fields of t, or false when t's fields
// need encoding/json's own rules (embedded fields, ",string", duplicate
// names, an IsZero method with ",omitzero").
func (c *sizeRules) structFields(t reflect.Type, building map[reflect.Type]*typeSize) ([]fieldSize, bool) {
	var fields []fieldSize
	names := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil, false
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !ValidTagName(name) {
			name = sf.Name
		}
		omitEmpty, omitZero := false, false
		for opts != "" {
			var o string
			o, opts, _ = strings.Cut(opts, ",")
			switch o {
			case "string":
				return nil, false
			case "omitempty":
				omitEmpty = true
			case "omitzero":
				omitZero = true
			}
		}
		if omitZero && (sf.Type.Implements(isZeroerType) || reflect.PointerTo(sf.Type).Implements(isZeroerType)) {
			return nil, false
		}
		if names[name] {
			return nil, false
		}
		names[name] = true
		fields = append(fields, fieldSize{
			index: i, head: int64(len(name)) + 3,
			omitEmpty: omitEmpty, omitZero: omitZero,
			size: c.build(sf.Type, building),
		})
	}
	return fields, true
}

// ValidTagName reports whether encoding/json accepts s as the name in a
// json tag (it ignores other names and uses the Go field name instead).
// The args package follows the same rule.
func ValidTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// Sizer counts the bytes of values as encoding/json would write them. It
// keeps the counting rules of the types it has seen; it is safe for
// concurrent use. Make one with New.
type Sizer struct {
	counters sync.Pool                // *counter, for values whose size needs encoding
	rules    sizeRules                // counting rules of value types
	last     atomic.Pointer[typeSize] // the rule of the last value sized by its type: spares the cache lookup while calls return one type
}

// New returns a Sizer.
func New() *Sizer {
	s := &Sizer{}
	s.counters.New = func() any {
		c := &counter{}
		c.enc = json.NewEncoder(c)
		c.enc.SetEscapeHTML(false)
		return c
	}
	return s
}

// counter counts the bytes of a value's JSON encoding without keeping them.
type counter struct {
	n   int64
	enc *json.Encoder
}

// Write counts p.
func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// Size is the size of a value as a tool's output: the length of a string,
// []byte or json.RawMessage, the size of the JSON encoding of anything
// else (encoding/json without HTML escaping and without the trailing
// newline), 0 for nil or a value that cannot be encoded.
func (s *Sizer) Size(v any) int64 {
	switch v := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(v))
	case []byte:
		return int64(len(v))
	case json.RawMessage:
		return int64(len(v))
	case bool:
		if v {
			return 4
		}
		return 5
	}
	rv := reflect.ValueOf(v)
	t := rv.Type()
	rule := s.last.Load()
	if rule == nil || rule.typ != t {
		rule = s.rules.ruleFor(t)
		s.last.Store(rule)
	}
	n, ok := s.sizeOf(rv, rule, false, 0)
	if !ok {
		return 0
	}
	return n
}

// sizeOf is the encoded size of v by rule t; addr tells whether
// encoding/json would see v as addressable (which decides whether a
// pointer method's MarshalJSON runs). false: v cannot be encoded.
func (s *Sizer) sizeOf(v reflect.Value, t *typeSize, addr bool, depth int) (int64, bool) {
	switch t.kind {
	case sizeBool:
		if v.Bool() {
			return 4, true
		}
		return 5, true
	case sizeInt:
		return intLen(v.Int()), true
	case sizeUint:
		return uintLen(v.Uint()), true
	case sizeFloat64:
		return floatLen(v.Float(), 64)
	case sizeFloat32:
		return floatLen(v.Float(), 32)
	case sizeString:
		return stringLen(v.String()), true
	}
	if depth >= maxSizeDepth {
		return s.encodedSize(v, addr)
	}
	depth++
	switch t.kind {
	case sizeBytes:
		if v.IsNil() {
			return 4, true
		}
		return int64(base64.StdEncoding.EncodedLen(v.Len())) + 2, true
	case sizeInterface:
		if v.IsNil() {
			return 4, true
		}
		e := v.Elem()
		return s.sizeOf(e, s.rules.ruleFor(e.Type()), false, depth)
	case sizePointer:
		if v.IsNil() {
			return 4, true
		}
		return s.sizeOf(v.Elem(), t.elem, true, depth)
	case sizeSlice, sizeArray:
		if t.kind == sizeSlice {
			if v.IsNil() {
				return 4, true
			}
			addr = true
		}
		n := v.Len()
		total := int64(2)
		if n > 1 {
			total += int64(n - 1)
		}
		for i := range n {
			s, ok := s.sizeOf(v.Index(i), t.elem, addr, depth)
			if !ok {
				return 0, false
			}
			total += s
		}
		return total, true
	case sizeMap:
		if v.IsNil() {
			return 4, true
		}
		n := v.Len()
		if n == 0 {
			return 2, true
		}
		total := int64(2 + n - 1 + n) // braces, commas, colons
		key := reflect.New(v.Type().Key()).Elem()
		val := reflect.New(v.Type().Elem()).Elem()
		it := v.MapRange()
		for it.Next() {
			key.SetIterKey(it)
			if t.keyInt {
				if key.CanInt() {
					total += intLen(key.Int()) + 2
				} else {
					total += uintLen(key.Uint()) + 2
				}
			} else {
				total += stringLen(key.String())
			}
			val.SetIterValue(it)
			s, ok := s.sizeOf(val, t.elem, false, depth)
			if !ok {
				return 0, false
			}
			total += s
		}
		return total, true
	case sizeStruct:
		total, n := int64(2), 0
		for i := range t.fields {
			f := &t.fields[i]
			fv := v.Field(f.index)
			if f.omitEmpty && OmitEmpty(fv) || f.omitZero && fv.IsZero() {
				continue
			}
			s, ok := s.sizeOf(fv, f.size, addr, depth)
			if !ok {
				return 0, false
			}
			total += f.head + s
			n++
		}
		if n > 1 {
			total += int64(n - 1)
		}
		return total, true
	}
	return s.encodedSize(v, addr)
}

// OmitEmpty reports whether encoding/json's ",omitempty" leaves v out
// (its "empty" values). The argument and output validation of the args
// package uses it too, so that both follow encoding/json alike.
func OmitEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// encodedSize encodes v with encoding/json into a counting writer. An
// addressable v is encoded through its address, so that a MarshalJSON or
// MarshalText with a pointer receiver runs as it would within the whole
// value.
func (s *Sizer) encodedSize(v reflect.Value, addr bool) (int64, bool) {
	var x any
	if addr && v.CanAddr() {
		x = v.Addr().Interface()
	} else {
		x = v.Interface()
	}
	c := s.counters.Get().(*counter)
	c.n = 0
	err := c.enc.Encode(x)
	n := c.n - 1 // Encode ends with a newline
	s.counters.Put(c)
	if err != nil {
		return 0, false
	}
	return n, true
}

// intLen is the number of bytes of i in decimal.
func intLen(i int64) int64 {
	if i < 0 {
		if i == math.MinInt64 {
			return 20
		}
		return 1 + uintLen(uint64(-i))
	}
	return uintLen(uint64(i))
}

// uintLen is the number of bytes of u in decimal.
func uintLen(u uint64) int64 {
	n := int64(1)
	for u >= 10000 {
		u /= 10000
		n += 4
	}
	for u >= 10 {
		u /= 10
		n++
	}
	return n
}

// floatLen is the size of f as encoding/json writes it (ES6 number
// formatting); false for NaN and infinities, which it refuses.
func floatLen(f float64, bits int) (int64, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	var buf [32]byte
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b := strconv.AppendFloat(buf[:0], f, format, -1, bits)
	n := int64(len(b))
	if format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		n-- // e-09 is written e-9
	}
	return n, true
}

// stringLen is the size of s as a JSON string by encoding/json without
// HTML escaping: quotes, escapes of '"', '\\' and control characters,
// \ufffd for each invalid byte, \u2028 and \u2029 escaped.
func stringLen(s string) int64 {
	n := int64(len(s)) + 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += int64(asciiExtra[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5 // one byte becomes \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 3 // three bytes become \u202x
		}
		i += size
	}
	return n
}

// asciiExtra is the bytes an ASCII character's escape adds to it: 1 for
// '"', '\\', \b, \f, \n, \r, \t; 5 for other control characters (\u00XX).
var asciiExtra = func() (t [utf8.RuneSelf]uint8) {
	for c := range 0x20 {
		t[c] = 5
	}
	for _, c := range []byte{'"', '\\', '\b', '\f', '\n', '\r', '\t'} {
		t[c] = 1
	}
	return t
}()
