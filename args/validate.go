package args

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/go-playground/validator/v10"
)

// Errors returned when an argument type cannot be used. They come wrapped
// with the struct, field and tag concerned; test them with errors.Is.
var (
	// ErrNotStruct: the argument type is not a struct.
	ErrNotStruct = errors.New("argument type must be a struct")
	// ErrUnsupportedTag: a validate (or schema) tag has no faithful JSON
	// Schema mapping, or breaks a rule listed in the package documentation.
	ErrUnsupportedTag = errors.New("unsupported tag")
	// ErrUnsupportedType: a field's Go type cannot be decoded strictly.
	ErrUnsupportedType = errors.New("unsupported field type")
	// ErrRecursiveType: the type refers to itself; schemas are inlined, so
	// recursion cannot be expressed.
	ErrRecursiveType = errors.New("recursive argument type")
	// ErrEmbedded: embedded (anonymous) struct fields are not supported.
	ErrEmbedded = errors.New("embedded fields are not supported; give the field a name")
	// ErrBadTagValue: a default or example tag does not parse as the field's
	// type or breaks the field's rules.
	ErrBadTagValue = errors.New("bad default or example tag")
)

// validate is the one validator instance (safe for concurrent use). It
// reports JSON names in field paths.
var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New()
	v.RegisterTagNameFunc(func(sf reflect.StructField) string {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch name {
		case "-":
			return ""
		case "":
			return sf.Name
		}
		return name
	})
	// The format rules are narrowed to the strings on which the validator
	// and JSON Schema's formats agree (see formatPatterns): the built-in
	// rule of a pristine validator AND the documented pattern.
	builtin := validator.New()
	for tag, f := range formatPatterns {
		tag, f := tag, f
		if err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			if fl.Field().Kind() != reflect.String {
				return false
			}
			s := fl.Field().String()
			return (f.maxLen == 0 || len(s) <= f.maxLen) && f.re.MatchString(s) && builtin.Var(s, tag) == nil
		}); err != nil {
			panic("args: registering format " + tag + ": " + err.Error())
		}
	}
	if err := v.RegisterValidation("datetime", func(fl validator.FieldLevel) bool {
		if fl.Field().Kind() != reflect.String {
			return false
		}
		s := fl.Field().String()
		if fl.Param() == time3339 && !dateTimeRule.re.MatchString(s) {
			return false
		}
		return builtin.Var(s, "datetime="+fl.Param()) == nil
	}); err != nil {
		panic("args: registering datetime: " + err.Error())
	}
	return v
}

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

// dateTimeRule narrows datetime=2006-01-02T15:04:05Z07:00 (Go's RFC 3339
// parser accepts comma fractions and +24:00 offsets, JSON Schema accepts
// lower-case t/z and leap seconds; neither is in the pattern).
var dateTimeRule = &formatRule{format: "date-time",
	pattern: `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`}

func init() {
	for _, f := range formatPatterns {
		f.re = regexp.MustCompile(f.pattern)
	}
	dateTimeRule.re = regexp.MustCompile(dateTimeRule.pattern)
}

type atomicCounter struct{ n atomic.Int64 }

func (c *atomicCounter) add()       { c.n.Add(1) }
func (c *atomicCounter) get() int64 { return c.n.Load() }

// checkFieldRules enforces the rules that keep validation and schema in
// agreement for a field a caller may omit. An omitted field decodes to its
// zero value (or nil for a pointer), and the schema accepts an omitted
// optional field, so the validator must accept that value too.
func checkFieldRules(f *field, where string) error {
	n := f.node
	if f.required {
		return nil
	}
	ft := n.t
	if n.ptr {
		ft = reflect.PointerTo(n.t)
	}
	zero := reflect.Zero(ft).Interface()
	if n.kind == kStruct && !n.ptr {
		if err := validate.Struct(zero); err != nil {
			return fmt.Errorf("args: %s: optional object field %q: its zero value fails the nested rules (%s), so omitting it would be rejected although the schema allows it; use a pointer (*%s): %w",
				where, f.name, strings.TrimSpace(err.Error()), n.t, ErrUnsupportedTag)
		}
	}
	if f.tag == "" || n.rules.zeroInEnum {
		return nil
	}
	tag := f.tag
	if !n.ptr {
		// omitempty on a value field would accept an explicit zero that the
		// schema rejects; judge the tag without it.
		tag = stripOmitEmpty(tag)
	}
	if tag == "" {
		return nil
	}
	if err := validate.Var(zero, tag); err != nil {
		if n.ptr {
			return fmt.Errorf("args: %s: optional pointer field %q: rules %q reject nil; add omitempty (validate:\"omitempty,%s\") or required: %w",
				where, f.name, f.tag, f.tag, ErrUnsupportedTag)
		}
		return fmt.Errorf("args: %s: optional field %q: rules %q reject the zero value %s that an omitted field decodes to; add required, use a pointer with omitempty (*%s, validate:\"omitempty,…\"), or relax the rules: %w",
			where, f.name, f.tag, zeroText(n), n.t, ErrUnsupportedTag)
	}
	return nil
}

func stripOmitEmpty(tag string) string {
	// only the head (before dive) applies to the field itself
	head, tail, dive := strings.Cut(tag, ",dive")
	parts := strings.Split(head, ",")
	out := parts[:0]
	for _, p := range parts {
		if p != "omitempty" {
			out = append(out, p)
		}
	}
	s := strings.Join(out, ",")
	if dive {
		if s == "" {
			return "dive" + tail
		}
		return s + ",dive" + tail
	}
	return s
}

func zeroText(n *node) string {
	switch n.kind {
	case kString:
		return `""`
	case kInt, kUint, kFloat:
		return "0"
	case kBool:
		return "false"
	case kSlice, kMap:
		return "nil"
	}
	return "{}"
}

// Validate runs the validate tags of v (a struct or pointer to struct),
// plus the consent-phrase check, and returns a *ValidationError listing
// every violation, or nil. Field paths use JSON names. A type that cannot
// be planned (see SchemaOf) yields that error instead.
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
	var errs []FieldError
	errs = p.validateValue(rv, v, errs, nil)
	if len(errs) > 0 {
		return &ValidationError{Errors: errs}
	}
	return nil
}

// validateValue runs the validator over the struct (ptr is a pointer or the
// value itself, as handed to validator.Struct) and appends the violations,
// skipping paths already reported as undecodable (skip).
func (p *typePlan) validateValue(rv reflect.Value, ptr any, errs []FieldError, skip []string) []FieldError {
	if err := validate.Struct(ptr); err != nil {
		var ves validator.ValidationErrors
		if !errors.As(err, &ves) {
			return append(errs, FieldError{Rule: "internal", Message: err.Error()})
		}
		for _, fe := range ves {
			path := fieldPath(fe.Namespace(), p.rootName)
			if skipped(path, skip) {
				continue
			}
			errs = append(errs, FieldError{Field: path, Rule: fe.Tag(), Message: message(fe)})
		}
	}
	for _, f := range p.consent {
		if skipped(f.name, skip) {
			continue
		}
		got := rv.Field(f.index).String()
		if got != f.consent {
			errs = append(errs, consentError(f, got))
		}
	}
	return errs
}

func consentError(f *field, got string) FieldError {
	what := "is required"
	if got != "" {
		what = "does not match"
	}
	return FieldError{Field: f.name, Rule: "consent", Message: fmt.Sprintf(
		"%s: must be exactly %q; send it only when the user explicitly asked for this action", what, f.consent)}
}

func skipped(path string, skip []string) bool {
	for _, s := range skip {
		if path == s || (strings.HasPrefix(path, s) && (path[len(s)] == '.' || path[len(s)] == '[')) {
			return true
		}
	}
	return false
}

// fieldPath turns the validator's namespace ("Args.filter.tags[2]") into a
// JSON path ("filter.tags[2]").
func fieldPath(ns, root string) string {
	if strings.HasPrefix(ns, root) && len(ns) > len(root) && ns[len(root)] == '.' {
		return ns[len(root)+1:]
	}
	if _, rest, ok := strings.Cut(ns, "."); ok {
		return rest
	}
	return ns
}

// message words a validator failure so a model can fix its call.
func message(fe validator.FieldError) string {
	k := fe.Kind()
	p := fe.Param()
	unit := ""
	switch k {
	case reflect.String:
		unit = " characters"
		if p == "1" {
			unit = " character"
		}
	case reflect.Slice, reflect.Array:
		unit = " items"
		if p == "1" {
			unit = " item"
		}
	case reflect.Map:
		unit = " entries"
		if p == "1" {
			unit = " entry"
		}
	}
	isLen := unit != ""
	switch fe.Tag() {
	case "required":
		switch k {
		case reflect.String:
			return "is required and must not be empty"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			return "is required and must not be 0"
		}
		return "is required"
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
		if isLen && k != reflect.String {
			return "must have exactly " + p + unit
		}
		if k == reflect.String {
			return fmt.Sprintf("must be exactly %q", p)
		}
		return "must equal " + p
	case "oneof":
		vals, _ := splitOneOf(p)
		return "must be one of: " + strings.Join(vals, ", ")
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
	return "fails rule " + fe.Tag()
}
