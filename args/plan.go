package args

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// kind is the JSON shape a Go type decodes from.
type kind uint8

const (
	kString kind = iota + 1
	kBool
	kInt
	kUint
	kFloat
	kSlice
	kMap
	kStruct
)

// node describes how one Go type (pointer stripped) decodes and validates.
type node struct {
	t    reflect.Type // the type after stripping one pointer
	ptr  bool         // the position holds a pointer: JSON null is allowed
	kind kind
	bits int   // int/uint/float bit size
	elem *node // slice element or map value

	// structs
	fields []*field
	byName map[string]*field
	names  string // "a, b, c" for unknown-field messages

	// rules that apply to the value at this position (from the owning
	// field's tag before "dive", or the part after a "dive").
	rules rules
}

// field is one decoded struct field.
type field struct {
	name     string // JSON name
	goName   string
	index    int
	node     *node
	tag      string // the raw validate tag
	desc     string
	def      any // parsed default tag (nil when absent)
	hasDef   bool
	example  any
	hasEx    bool
	consent  string // non-empty for a Consent field: the exact phrase
	required bool
}

// rules are the supported validate rules that apply to one position.
type rules struct {
	required  bool
	omitempty bool
	// numeric bounds (numbers) or length bounds (strings, slices, maps).
	min, max       *bound
	eq             *string // eq= parameter (const)
	oneof          []string
	format         string // email, uri, url, uuid, date-time, date
	datetimeLayout string
	dive           bool
	// zeroInEnum: an omitempty value position whose only rules are oneof
	// or eq; the validator also accepts the zero value, so the schema's
	// enum includes it.
	zeroInEnum bool
}

// bound is a numeric limit; exclusive for gt/lt.
type bound struct {
	param     string // the tag parameter as written
	exclusive bool
}

// typePlan is everything derived once per argument type.
type typePlan struct {
	root     *node
	rootName string // reflect.Type.Name(), the validator's namespace root
	consent  []*field

	schemaOnce sync.Once
	schema     json.RawMessage
	schemaErr  error

	mdOnce sync.Once
	md     string
	mdErr  error
}

type planEntry struct {
	once sync.Once
	plan *typePlan
	err  error
}

// plans caches one typePlan per argument type; building it is the only
// reflection over a type's tags.
var plans sync.Map // reflect.Type → *planEntry

// planBuilds counts plan constructions; tests use it to prove caching.
var planBuilds atomicCounter

func planFor(t reflect.Type) (*typePlan, error) {
	if e, ok := plans.Load(t); ok {
		pe := e.(*planEntry)
		pe.once.Do(func() { pe.plan, pe.err = buildPlan(t) })
		return pe.plan, pe.err
	}
	e, _ := plans.LoadOrStore(t, &planEntry{})
	pe := e.(*planEntry)
	pe.once.Do(func() { pe.plan, pe.err = buildPlan(t) })
	return pe.plan, pe.err
}

var (
	typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	typeJSONUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

// swaggestTags are struct tags the schema library would turn into
// constraints of its own. Validation would not enforce them, so they are
// refused: every constraint must come from the validate tag.
var swaggestTags = []string{
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
	"uniqueItems", "minProperties", "maxProperties", "enum", "const",
	"required", "nullable", "examples",
}

func buildPlan(t reflect.Type) (*typePlan, error) {
	planBuilds.add()
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("args: argument type %v: %w", t, ErrNotStruct)
	}
	b := &planBuilder{inProgress: map[reflect.Type]bool{}}
	root, err := b.structNode(t)
	if err != nil {
		return nil, err
	}
	p := &typePlan{root: root, rootName: t.Name()}
	for _, f := range root.fields {
		if f.consent != "" {
			p.consent = append(p.consent, f)
		}
	}
	return p, nil
}

type planBuilder struct {
	inProgress map[reflect.Type]bool
	depth      int // struct nesting: 1 for the argument struct itself
}

func (b *planBuilder) structNode(t reflect.Type) (*node, error) {
	if b.inProgress[t] {
		return nil, fmt.Errorf("args: %s: %w", t, ErrRecursiveType)
	}
	b.inProgress[t] = true
	b.depth++
	defer func() { delete(b.inProgress, t); b.depth-- }()

	n := &node{t: t, kind: kStruct, byName: map[string]*field{}}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		jsonTag := sf.Tag.Get("json")
		name, _, _ := strings.Cut(jsonTag, ",")
		if !sf.IsExported() {
			if sf.Anonymous {
				return nil, fmt.Errorf("args: %s.%s: %w", t, sf.Name, ErrEmbedded)
			}
			continue
		}
		if name == "-" && jsonTag == "-" {
			if sf.Tag.Get("validate") != "" {
				return nil, fmt.Errorf("args: %s.%s: field is hidden from JSON (json:\"-\") but has a validate tag: %w", t, sf.Name, ErrUnsupportedTag)
			}
			continue
		}
		if sf.Anonymous {
			return nil, fmt.Errorf("args: %s.%s: %w", t, sf.Name, ErrEmbedded)
		}
		if name == "" {
			name = sf.Name
		}
		for _, st := range swaggestTags {
			if _, ok := sf.Tag.Lookup(st); ok {
				return nil, fmt.Errorf("args: %s.%s: tag %q is not supported; declare constraints in the validate tag: %w", t, sf.Name, st, ErrUnsupportedTag)
			}
		}
		if _, dup := n.byName[name]; dup {
			return nil, fmt.Errorf("args: %s.%s: JSON name %q is used twice: %w", t, sf.Name, name, ErrUnsupportedType)
		}
		f := &field{name: name, goName: sf.Name, index: i, tag: sf.Tag.Get("validate"), desc: sf.Tag.Get("description")}
		where := fmt.Sprintf("%s.%s", t, sf.Name)
		if err := b.fieldNode(f, sf, where); err != nil {
			return nil, err
		}
		n.fields = append(n.fields, f)
		n.byName[name] = f
		names = append(names, name)
	}
	n.names = strings.Join(names, ", ")
	return n, nil
}

func (b *planBuilder) fieldNode(f *field, sf reflect.StructField, where string) error {
	ft := sf.Type
	// Consent fields: an exact phrase, always required, no other rules.
	if ft.Implements(typeConsentField) && ft.Kind() == reflect.String {
		if b.depth > 1 {
			return fmt.Errorf("args: %s: Consent must be a direct field of the argument struct, not of a nested object: %w", where, ErrUnsupportedType)
		}
		phrase, err := phraseOf(ft)
		if err != nil {
			return err
		}
		if f.tag != "" {
			return fmt.Errorf("args: %s: a Consent field takes no validate tag (it is always required and must equal %q): %w", where, phrase, ErrUnsupportedTag)
		}
		f.consent = phrase
		f.required = true
		f.node = &node{t: ft, kind: kString}
		return b.parseExtras(f, sf, where)
	}
	segments := strings.Split(f.tag, ",")
	if f.tag == "" {
		segments = nil
	}
	n, err := b.typeNode(ft, segments, where)
	if err != nil {
		return err
	}
	f.node = n
	f.required = n.rules.required
	if err := checkFieldRules(f, where); err != nil {
		return err
	}
	return b.parseExtras(f, sf, where)
}

// typeNode builds the node for type t with the validate tag segments that
// apply to it (the part of the tag up to and including its dive).
func (b *planBuilder) typeNode(t reflect.Type, segs []string, where string) (*node, error) {
	n := &node{}
	if t.Kind() == reflect.Pointer {
		n.ptr = true
		t = t.Elem()
		if t.Kind() == reflect.Pointer {
			return nil, fmt.Errorf("args: %s: pointer to pointer %s: %w", where, t, ErrUnsupportedType)
		}
	}
	n.t = t
	if t.Implements(typeJSONUnmarshaler) || reflect.PointerTo(t).Implements(typeJSONUnmarshaler) ||
		t.Implements(typeTextUnmarshaler) || reflect.PointerTo(t).Implements(typeTextUnmarshaler) {
		return nil, fmt.Errorf("args: %s: type %s has its own JSON/text decoding: %w", where, t, ErrUnsupportedType)
	}
	if t.Implements(typeConsentField) {
		return nil, fmt.Errorf("args: %s: Consent must be a direct, non-pointer field of the argument struct: %w", where, ErrUnsupportedType)
	}
	switch t.Kind() {
	case reflect.String:
		n.kind = kString
	case reflect.Bool:
		n.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, n.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind, n.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = kFloat, t.Bits()
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, fmt.Errorf("args: %s: []byte (base64 in JSON) is not supported; use string: %w", where, ErrUnsupportedType)
		}
		n.kind = kSlice
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("args: %s: map keys must be strings, got %s: %w", where, t.Key(), ErrUnsupportedType)
		}
		n.kind = kMap
	case reflect.Struct:
		sn, err := b.structNode(t)
		if err != nil {
			return nil, err
		}
		sn.ptr = n.ptr
		n = sn
	default:
		return nil, fmt.Errorf("args: %s: type %s is not supported (use string, bool, integers, floats, slices, string-keyed maps, structs or pointers to them): %w", where, t, ErrUnsupportedType)
	}

	// Split the tag at the first dive: the head applies here, the tail to
	// the elements.
	var head, tail []string
	dive := false
	for i, s := range segs {
		if s == "dive" {
			head, tail, dive = segs[:i], segs[i+1:], true
			break
		}
	}
	if !dive {
		head = segs
	}
	r, err := parseRules(n, head, where)
	if err != nil {
		return nil, err
	}
	r.dive = dive
	if err := checkPosition(n, &r, head, segs, where); err != nil {
		return nil, err
	}
	n.rules = r
	if dive && n.kind != kSlice && n.kind != kMap {
		return nil, fmt.Errorf("args: %s: validate rule \"dive\" needs a slice or map, got %s: %w", where, t, ErrUnsupportedTag)
	}
	if n.kind == kSlice || n.kind == kMap {
		elem, err := b.typeNode(t.Elem(), tail, where+"[]")
		if err != nil {
			return nil, err
		}
		n.elem = elem
	}
	return n, nil
}

// parseRules checks each rule against the kind of n and keeps its meaning.
func parseRules(n *node, segs []string, where string) (rules, error) {
	var r rules
	for _, s := range segs {
		name, param, hasParam := strings.Cut(s, "=")
		bad := func(why string) error {
			return fmt.Errorf("args: %s: validate rule %q %s: %w", where, s, why, ErrUnsupportedTag)
		}
		if strings.ContainsAny(s, "|") {
			return r, bad("uses alternatives (|), which have no JSON Schema mapping here")
		}
		switch name {
		case "":
			return r, bad("is empty")
		case "required":
			if n.kind == kBool && !n.ptr {
				return r, bad("on a bool would reject false; use *bool for a required boolean")
			}
			if n.kind == kStruct && !n.ptr {
				return r, bad("on a struct value is not enforced by the validator; use a pointer (*T) for a required object")
			}
			r.required = true
		case "omitempty":
			r.omitempty = true
		case "min", "max", "len", "gt", "gte", "lt", "lte", "eq", "oneof":
			if !hasParam || param == "" {
				return r, bad("needs a parameter")
			}
			switch n.kind {
			case kString, kSlice, kMap, kInt, kUint, kFloat:
			default:
				return r, bad(fmt.Sprintf("does not apply to %s", n.t))
			}
			if err := checkParam(n, name, param); err != nil {
				return r, bad(err.Error())
			}
			switch name {
			case "min", "gte":
				r.min = &bound{param: param}
			case "gt":
				r.min = &bound{param: param, exclusive: true}
			case "max", "lte":
				r.max = &bound{param: param}
			case "lt":
				r.max = &bound{param: param, exclusive: true}
			case "len":
				r.min, r.max = &bound{param: param}, &bound{param: param}
			case "eq":
				p := param
				r.eq = &p
			case "oneof":
				if n.kind == kSlice || n.kind == kMap {
					return r, bad("does not apply to a slice or map; use dive,oneof=… for the elements")
				}
				vals, err := splitOneOf(param)
				if err != nil {
					return r, bad(err.Error())
				}
				r.oneof = vals
			}
		case "email", "uuid", "url", "uri":
			if n.kind != kString || hasParam {
				return r, bad("applies to strings only and takes no parameter")
			}
			r.format = name
		case "datetime":
			if n.kind != kString {
				return r, bad("applies to strings only")
			}
			switch param {
			case time3339:
				r.format = "date-time"
			case "2006-01-02":
				r.format = "date"
			default:
				return r, bad(fmt.Sprintf("layout is not supported; use datetime=%s or datetime=2006-01-02", time3339))
			}
			r.datetimeLayout = param
		default:
			return r, bad("is not supported (supported: required, omitempty, min, max, len, gt, gte, lt, lte, eq, oneof, email, url, uri, uuid, datetime, dive)")
		}
	}
	return r, nil
}

const time3339 = "2006-01-02T15:04:05Z07:00"

// checkParam makes sure a rule's parameter is a number of the right kind
// (a length for strings/slices/maps, a value of the field's type for
// numbers), so the schema can carry it verbatim.
func checkParam(n *node, name, param string) error {
	if name == "oneof" {
		return nil
	}
	if name == "eq" && n.kind == kString {
		return nil
	}
	switch n.kind {
	case kString, kSlice, kMap:
		if v, err := strconv.ParseUint(param, 10, 31); err != nil || v > math.MaxInt32 {
			return fmt.Errorf("parameter must be a non-negative whole number (a length)")
		}
	case kInt:
		if _, err := strconv.ParseInt(param, 10, n.bits); err != nil {
			return fmt.Errorf("parameter must be an integer that fits %s", n.t)
		}
	case kUint:
		if _, err := strconv.ParseUint(param, 10, n.bits); err != nil {
			return fmt.Errorf("parameter must be a non-negative integer that fits %s", n.t)
		}
	case kFloat:
		f, err := strconv.ParseFloat(param, n.bits)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("parameter must be a finite number")
		}
		if strconv.FormatFloat(f, 'g', -1, n.bits) != param && !exactDecimal(param, f) {
			return fmt.Errorf("parameter %s is not exactly representable as %s; write it as %s", param, n.t, strconv.FormatFloat(f, 'g', -1, n.bits))
		}
	}
	return nil
}

// exactDecimal reports whether param denotes exactly the float f, e.g.
// "0.5" or "10". Parameters that round (0.1) are accepted only in their
// shortest form; see checkParam.
func exactDecimal(param string, f float64) bool {
	g, err := strconv.ParseFloat(param, 64)
	return err == nil && g == f
}

// splitOneOf splits a oneof parameter the way the validator does: values
// separated by spaces, single quotes group a value containing spaces.
func splitOneOf(param string) ([]string, error) {
	var out []string
	rest := param
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			break
		}
		if rest[0] == '\'' {
			end := strings.IndexByte(rest[1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("has an unterminated quote")
			}
			out = append(out, rest[1:end+1])
			rest = rest[end+2:]
			continue
		}
		v, r, _ := strings.Cut(rest, " ")
		out = append(out, v)
		rest = r
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("lists no values")
	}
	return out, nil
}

// parseExtras reads the default and example tags, converting each to the
// field's JSON type and checking it against the field's own rules.
func (b *planBuilder) parseExtras(f *field, sf reflect.StructField, where string) error {
	for _, tag := range []string{"default", "example"} {
		text, ok := sf.Tag.Lookup(tag)
		if !ok {
			continue
		}
		ptr := reflect.New(sf.Type)
		var err error
		if f.node.kind == kString {
			ptr.Elem().SetString(text)
		} else {
			err = json.Unmarshal([]byte(text), ptr.Interface())
		}
		if err != nil {
			return fmt.Errorf("args: %s: %s tag %q is not a valid %s: %w", where, tag, text, jsonTypeName(f.node), ErrBadTagValue)
		}
		if f.consent != "" {
			if text != f.consent {
				return fmt.Errorf("args: %s: %s tag %q differs from the consent phrase %q: %w", where, tag, text, f.consent, ErrBadTagValue)
			}
		} else if f.tag != "" {
			if verr := validate.Var(ptr.Elem().Interface(), f.tag); verr != nil {
				return fmt.Errorf("args: %s: %s tag %q breaks the field's validate rules %q: %w", where, tag, text, f.tag, ErrBadTagValue)
			}
		}
		raw, err := json.Marshal(ptr.Elem().Interface())
		if err != nil {
			return fmt.Errorf("args: %s: %s tag %q: %w", where, tag, text, ErrBadTagValue)
		}
		if tag == "default" {
			f.def, f.hasDef = json.RawMessage(raw), true
		} else {
			f.example, f.hasEx = json.RawMessage(raw), true
		}
	}
	return nil
}

// checkPosition keeps omitempty and nil honest at one value position (a
// field, or an element after dive): the schema cannot say "this rule,
// unless the value is zero", so omitempty on a value type is allowed only
// when the zero value passes anyway, or when the rules are an enum (the
// zero value joins the enum); a nullable pointer's rules must accept nil.
func checkPosition(n *node, r *rules, head, segs []string, where string) error {
	if n.ptr {
		if !r.required && len(segs) > 0 {
			ptrZero := reflect.Zero(reflect.PointerTo(n.t)).Interface()
			if validate.Var(ptrZero, strings.Join(segs, ",")) != nil {
				return fmt.Errorf("args: %s: rules %q reject null/absent for a pointer; start them with omitempty or add required: %w",
					where, strings.Join(segs, ","), ErrUnsupportedTag)
			}
		}
		return nil
	}
	if !r.omitempty {
		return nil
	}
	var rest []string
	for _, s := range head {
		if s != "omitempty" {
			rest = append(rest, s)
		}
	}
	if len(rest) == 0 {
		return nil
	}
	zero := reflect.Zero(n.t).Interface()
	if validate.Var(zero, strings.Join(rest, ",")) == nil {
		return nil
	}
	if (r.oneof != nil || r.eq != nil) && r.min == nil && r.max == nil && r.format == "" &&
		(n.kind == kString || n.kind == kInt || n.kind == kUint || n.kind == kFloat) {
		r.zeroInEnum = true
		return nil
	}
	return fmt.Errorf("args: %s: omitempty with rules %q accepts the zero value %s, which the schema cannot express; use a pointer (*%s) so absence is null: %w",
		where, strings.Join(rest, ","), zeroText(n), n.t, ErrUnsupportedTag)
}
