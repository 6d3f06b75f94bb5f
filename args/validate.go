package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"

	"github.com/toolpack-go/toolpack/internal/valuesize"
)

// Errors returned when a type cannot be used. They come wrapped with the
// struct, field and tag concerned; test them with errors.Is.
var (
	// ErrNotStruct: the argument type is not a struct.
	ErrNotStruct = errors.New("argument type must be a struct")
	// ErrUnsupportedTag: a validate (or schema) tag has no faithful JSON
	// Schema mapping, or breaks a rule listed in the package documentation.
	ErrUnsupportedTag = errors.New("unsupported tag")
	// ErrUnsupportedType: a field's Go type cannot be decoded strictly or
	// described by a schema.
	ErrUnsupportedType = errors.New("unsupported field type")
	// ErrRecursiveType: the type refers to itself; schemas are inlined, so
	// recursion cannot be expressed.
	ErrRecursiveType = errors.New("recursive argument type")
	// ErrEmbedded: an embedded (anonymous) struct cannot be flattened as
	// encoding/json does — a promoted field hidden by a name conflict
	// carries a validate tag, or an embedded pointer to an unexported struct
	// type would have to be allocated.
	ErrEmbedded = errors.New("embedded field cannot be used")
	// ErrBadTagValue: a default or example tag does not parse as the field's
	// type or breaks the field's rules.
	ErrBadTagValue = errors.New("bad default or example tag")
)

// builtin is a pristine validator: the format rules (email, url, uri,
// uuid) are its own, narrowed by formatPatterns.
var builtin = validator.New()

// formatRule is the narrowing applied to a format rule.
type formatRule struct {
	format  string // JSON Schema format
	pattern string // the agreement pattern, also emitted in the schema
	re      *regexp.Regexp
	maxLen  int // bytes; emitted as maxLength (ASCII-only patterns)
}

// formatPatterns: where validator/v10 and JSON Schema formats disagree
// (see the package documentation), both sides are narrowed to these
// patterns, under which they agree.
var formatPatterns = map[string]*formatRule{
	"email": {format: "email", maxLen: 254,
		pattern: `^[A-Za-z0-9._%+-]{1,64}@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$`},
	"url": {format: "uri",
		pattern: `^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+([/?#]\S*)?$`},
	"uri": {format: "uri",
		pattern: `^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+([/?#]\S*)?$`},
	"uuid": {format: "uuid",
		pattern: `^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`},
}

// dateTimeRule narrows datetime=2006-01-02T15:04:05Z07:00 and time.Time
// (Go's RFC 3339 parser accepts comma fractions and +24:00 offsets, JSON
// Schema accepts lower-case t/z and leap seconds; neither is in the
// pattern).
var dateTimeRule = &formatRule{format: "date-time",
	pattern: `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`}

var dateRule = &formatRule{format: "date"}

// durationPattern is the form of a time.Duration argument: up to six
// components, each a decimal number and a unit (h, m, s, ms, us, µs, ns),
// or "0". Digit counts are capped (hours 5, minutes 7, others 9 before the
// point, 9 after) so that no matching string overflows time.Duration;
// time.ParseDuration accepts every string the pattern matches.
const durationPattern = `^[-+]?(0|([0-9]{1,5}(\.[0-9]{1,9})?h|[0-9]{1,7}(\.[0-9]{1,9})?m|[0-9]{1,9}(\.[0-9]{1,9})?(s|ms|us|µs|μs|ns)){1,6})$`

var durationRe = regexp.MustCompile(durationPattern)

func init() {
	for _, f := range formatPatterns {
		f.re = regexp.MustCompile(f.pattern)
	}
	dateTimeRule.re = regexp.MustCompile(dateTimeRule.pattern)
}

func formatRuleOf(ru *rule) *formatRule {
	if ru.name == "datetime" {
		if ru.param == time3339 {
			return dateTimeRule
		}
		return dateRule
	}
	return formatPatterns[ru.name]
}

// formatOK reports whether s passes a format rule: the validator's own rule
// (time.Parse for datetime) and the agreement pattern.
func formatOK(ru *rule, s string) bool {
	if ru.name == "datetime" {
		if ru.param == time3339 && !dateTimeRule.re.MatchString(s) {
			return false
		}
		_, err := time.Parse(ru.param, s)
		return err == nil
	}
	f := formatPatterns[ru.name]
	return (f.maxLen == 0 || len(s) <= f.maxLen) && f.re.MatchString(s) && builtin.Var(s, ru.name) == nil
}

// parseTime reads a time.Time argument: the date-time pattern and RFC 3339.
func parseTime(s string) (time.Time, bool) {
	if !dateTimeRule.re.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

// parseDuration reads a time.Duration argument: the duration pattern and
// time.ParseDuration.
func parseDuration(s string) (time.Duration, bool) {
	if !durationRe.MatchString(s) {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// Validate runs the validate tags of v (a struct or pointer to struct) as
// Decode does for arguments, plus the consent-phrase check, and returns a
// *ValidationError listing every violation (up to MaxFieldErrors), or nil. Field paths use JSON
// names. A type that cannot be planned (see SchemaOf) yields that error
// instead. For a tool's result use ValidateOutput.
func Validate(v any) error {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return &ValidationError{Errors: []FieldError{{Rule: "required", Message: "arguments are missing (nil)"}}}
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return fmt.Errorf("args: Validate(nil): %w", ErrNotStruct)
	}
	p, err := planFor(rv.Type())
	if err != nil {
		return err
	}
	c := &checker{}
	c.check(rv, p.root)
	if len(c.errs) > 0 {
		return &ValidationError{Errors: c.errs}
	}
	return nil
}

// checker applies a plan's rules to a Go value, collecting violations with
// JSON paths. Arguments (out false): an absent field holds its zero value.
// Results (out true): values are judged as encoding/json writes them.
type checker struct {
	out  bool
	path []seg
	errs []FieldError
	skip map[string]struct{} // paths that failed to decode: not checked again
}

func (c *checker) fail(rule, msg string) {
	top := topLevel(c.path)
	if !listing(c.errs, top) {
		c.errs = addError(c.errs, FieldError{}, false)
		return
	}
	c.errs = addError(c.errs, FieldError{Field: renderPath(c.path), Rule: rule, Message: msg}, top)
}

func (c *checker) push(s seg) { c.path = append(c.path, s) }
func (c *checker) pop()       { c.path = c.path[:len(c.path)-1] }

// check validates v, a value of the position n describes (a pointer when
// n.ptr). At most one violation is reported per position, as the
// validator does: the first rule, in tag order, that fails.
func (c *checker) check(v reflect.Value, n *node) {
	if len(c.skip) > 0 && skipped(renderPath(c.path), c.skip) {
		return
	}
	r := &n.rules
	if n.ptr {
		if v.IsNil() {
			if r.required {
				c.fail("required", "is required")
			}
			return
		}
		v = v.Elem()
	}
	switch n.kind {
	case kSlice, kMap:
		if v.IsNil() {
			if r.required {
				c.fail("required", "is required")
				return
			}
			if c.out || r.omitempty {
				// A nil slice or map in a result is null, which length
				// rules do not constrain.
				return
			}
		}
	case kFloat:
		if c.out {
			if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
				c.fail("type", "is not a finite number; JSON cannot carry NaN or infinities")
				return
			}
		}
	case kAny:
		null := v.IsNil()
		if c.out && !null {
			if _, err := json.Marshal(v.Interface()); err != nil {
				c.fail("type", "cannot be written as JSON: "+errText(err))
				return
			}
			null = jsonNull(v.Elem())
		}
		if null && r.required {
			c.fail("required", "is required and must not be null")
		}
		return
	case kRaw:
		if c.out && !v.IsNil() && !json.Valid(v.Bytes()) {
			c.fail("type", "is not valid JSON")
			return
		}
		if r.required && (v.IsNil() || string(bytes.TrimSpace(v.Bytes())) == "null") {
			c.fail("required", "is required and must not be null")
		}
		return
	case kTime:
		if c.out {
			if _, err := v.Interface().(time.Time).MarshalJSON(); err != nil {
				c.fail("type", "cannot be written as an RFC 3339 date-time (the year must be 0–9999 and the zone offset within ±23:59)")
			}
		}
		return
	case kCustom:
		if c.out {
			if _, err := json.Marshal(v.Interface()); err != nil {
				c.fail("type", "cannot be written as JSON: "+errText(err))
			}
		}
		return
	}
	if r.omitempty && !n.ptr && omitZero(v, n) {
		return
	}
	if r.required && !n.ptr {
		if msg := requiredFails(v, n, c.out); msg != "" {
			c.fail("required", msg)
			return
		}
	}
	switch n.kind {
	case kString:
		s := v.String()
		if c.out && !utf8.ValidString(s) {
			s = jsonUTF8(s)
		}
		for i := range r.list {
			if !stringPasses(&r.list[i], s) {
				c.fail(r.list[i].name, message(&r.list[i], n))
				return
			}
		}
	case kInt, kUint, kFloat, kDuration:
		for i := range r.list {
			if !numberPasses(&r.list[i], v, n) {
				c.fail(r.list[i].name, message(&r.list[i], n))
				return
			}
		}
	case kSlice, kMap:
		l := v.Len()
		for i := range r.list {
			if !lengthPasses(&r.list[i], l) {
				c.fail(r.list[i].name, message(&r.list[i], n))
				return
			}
		}
		if n.kind == kSlice {
			for i := 0; i < l; i++ {
				c.push(seg{kind: segIndex, index: i})
				c.check(v.Index(i), n.elem)
				c.pop()
			}
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			c.push(seg{kind: segKey, name: k.String()})
			c.check(v.MapIndex(k), n.elem)
			c.pop()
		}
	case kStruct:
		c.fields(v, n)
		if c.out && n.keywords != nil {
			c.checkKeywords(v, n.keywords)
		}
	}
}

// fields checks each JSON property of struct v.
func (c *checker) fields(v reflect.Value, n *node) {
	for _, f := range n.fields {
		fv, ok := fieldRead(v, f.index)
		c.push(seg{name: f.name})
		switch {
		case c.out && (!ok || (f.omitEmpty && valuesize.OmitEmpty(fv)) || (f.omitZero && f.isZero(fv))):
			// Absent from the JSON.
			if f.required {
				c.fail("required", "is required")
			}
		case f.consent != "":
			if len(c.skip) > 0 && skipped(f.name, c.skip) {
				break
			}
			if !ok {
				fv = reflect.Zero(f.typ)
			}
			if got := fv.String(); got != f.consent {
				c.errs = addError(c.errs, consentError(f, got), true)
			}
		default:
			if !ok {
				fv = reflect.Zero(f.typ)
			}
			c.check(fv, f.node)
		}
		c.pop()
	}
}

// omitZero reports whether omitempty skips the rules for v: the zero value
// of a string, number, duration or bool (0 and -0 alike), a nil slice or map.
func omitZero(v reflect.Value, n *node) bool {
	switch n.kind {
	case kString:
		return v.Len() == 0
	case kInt, kDuration:
		return v.Int() == 0
	case kUint:
		return v.Uint() == 0
	case kFloat:
		return v.Float() == 0
	case kBool:
		return !v.Bool()
	case kSlice, kMap:
		return v.IsNil()
	case kStruct:
		return false
	}
	return false
}

// requiredFails returns the message when v, a value (not pointer)
// position, fails required: an empty string, 0, false (results), a nil
// slice or map.
func requiredFails(v reflect.Value, n *node, out bool) string {
	switch n.kind {
	case kString:
		if v.Len() == 0 {
			return "is required and must not be empty"
		}
	case kInt, kDuration:
		if v.Int() == 0 {
			return "is required and must not be 0"
		}
	case kUint:
		if v.Uint() == 0 {
			return "is required and must not be 0"
		}
	case kFloat:
		if v.Float() == 0 {
			return "is required and must not be 0"
		}
	case kBool:
		if out && !v.Bool() {
			return "is required: must be true"
		}
	}
	return ""
}

func stringPasses(ru *rule, s string) bool {
	switch ru.name {
	case "min", "gte", "gt", "max", "lte", "lt", "len":
		return lengthPasses(ru, utf8.RuneCountInString(s))
	case "eq":
		return s == ru.param
	case "oneof":
		return slices.Contains(ru.strs, s)
	}
	return formatOK(ru, s)
}

func lengthPasses(ru *rule, l int) bool {
	switch ru.name {
	case "min", "gte":
		return l >= ru.length
	case "gt":
		return l > ru.length
	case "max", "lte":
		return l <= ru.length
	case "lt":
		return l < ru.length
	case "len", "eq":
		return l == ru.length
	}
	return false
}

func numberPasses(ru *rule, v reflect.Value, n *node) bool {
	var x num
	switch n.kind {
	case kInt, kDuration:
		x.i = v.Int()
	case kUint:
		x.u = v.Uint()
	case kFloat:
		x.f = v.Float()
	}
	switch ru.name {
	case "oneof":
		for _, o := range ru.vals {
			if cmpNum(n, x, o) == 0 {
				return true
			}
		}
		return false
	}
	c := cmpNum(n, x, ru.num)
	switch ru.name {
	case "min", "gte":
		return c >= 0
	case "gt":
		return c > 0
	case "max", "lte":
		return c <= 0
	case "lt":
		return c < 0
	case "eq":
		return c == 0
	}
	return false
}

// cmpNum compares two numbers of n's type.
func cmpNum(n *node, a, b num) int {
	switch n.kind {
	case kUint:
		switch {
		case a.u < b.u:
			return -1
		case a.u > b.u:
			return 1
		}
		return 0
	case kFloat:
		switch {
		case a.f < b.f:
			return -1
		case a.f > b.f:
			return 1
		}
		return 0
	}
	switch {
	case a.i < b.i:
		return -1
	case a.i > b.i:
		return 1
	}
	return 0
}

// jsonNull reports whether encoding/json writes the value v (the dynamic
// value of an interface) as null.
func jsonNull(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		if v.IsNil() {
			return true
		}
		if v.Type() == typeRaw {
			return string(bytes.TrimSpace(v.Bytes())) == "null"
		}
		if v.Kind() == reflect.Interface {
			return jsonNull(v.Elem())
		}
	}
	return false
}

// jsonUTF8 is s as encoding/json writes it: each byte of invalid UTF-8
// becomes U+FFFD.
func jsonUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func consentError(f *field, got string) FieldError {
	what := "is required"
	if got != "" {
		what = "does not match"
	}
	return FieldError{Field: f.name, Rule: "consent", Message: fmt.Sprintf(
		"%s: must be exactly %q; send it only when the user explicitly asked for this action", what, f.consent)}
}

func skipped(path string, skip map[string]struct{}) bool {
	// The path or one of its ancestors (the path cut before a '.' or a
	// '['): a few lookups, however many paths failed.
	for p := path; ; {
		if _, ok := skip[p]; ok {
			return true
		}
		i := strings.LastIndexAny(p, ".[")
		if i <= 0 {
			return false
		}
		p = p[:i]
	}
}

// message words a failed rule so a model can fix its call.
func message(ru *rule, n *node) string {
	p := ru.param
	unit := ""
	switch n.kind {
	case kString:
		unit = " characters"
		if p == "1" {
			unit = " character"
		}
	case kSlice:
		unit = " items"
		if p == "1" {
			unit = " item"
		}
	case kMap:
		unit = " entries"
		if p == "1" {
			unit = " entry"
		}
	}
	isLen := unit != ""
	switch ru.name {
	case "min", "gte":
		if isLen {
			return "must have at least " + p + unit
		}
		return "must be at least " + p
	case "max", "lte":
		if isLen {
			return "must have at most " + p + unit
		}
		return "must be at most " + p
	case "gt":
		if isLen {
			return "must have more than " + p + unit
		}
		return "must be greater than " + p
	case "lt":
		if isLen {
			return "must have fewer than " + p + unit
		}
		return "must be less than " + p
	case "len":
		return "must have exactly " + p + unit
	case "eq":
		if n.kind == kString {
			return fmt.Sprintf("must be exactly %q", p)
		}
		if isLen {
			return "must have exactly " + p + unit
		}
		return "must equal " + p
	case "oneof":
		return "must be one of: " + strings.Join(ru.strs, ", ")
	case "email":
		return "must be a valid email address"
	case "uuid":
		return "must be a UUID (8-4-4-4-12 hexadecimal digits)"
	case "url":
		return "must be an absolute URL with a scheme (e.g. https://example.com/path)"
	case "uri":
		return "must be an absolute URI with a scheme"
	case "datetime":
		if p == "2006-01-02" {
			return "must be a date like 2006-01-02"
		}
		return "must be an RFC 3339 date-time like 2006-01-02T15:04:05Z"
	}
	return "fails rule " + ru.name
}
