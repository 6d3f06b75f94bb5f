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
	"sync/atomic"
	"time"
)

// kind is the JSON shape of a Go type.
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
	kTime     // time.Time: an RFC 3339 string
	kDuration // time.Duration: a Go duration string in arguments, integer nanoseconds in results
	kAny      // interface{}: any JSON value
	kRaw      // json.RawMessage: any JSON value, kept verbatim
	kCustom   // a type with its own JSON or text decoding (arguments) or encoding (results)
)

// mode says whether a plan describes arguments (decoded from JSON) or
// results (encoded to JSON by encoding/json).
type mode uint8

const (
	modeInput mode = iota
	modeOutput
)

// node describes how one Go type (pointer stripped) decodes, encodes and
// validates at one position: a field, an element or the root.
type node struct {
	t   reflect.Type // the type after stripping one pointer
	ptr bool         // the position holds a pointer
	// noNull: (arguments) a pointer field tagged nullable:"false": it may
	// be absent, but null is refused and the schema does not admit it.
	noNull bool
	kind   kind
	bits   int   // int/uint/float bit size
	elem   *node // slice element or map value

	// structs
	fields []*field
	byName map[string]*field
	names  string // "a, b, c" for unknown-field messages

	custom *customType

	// keywords: (results) a struct type's extra schema keywords
	// (SchemaKeywords), checked by ValidateOutput.
	keywords *keywords

	// rules that apply to the value at this position (from the owning
	// field's tag before "dive", or the part after a "dive").
	rules rules
}

// field is one JSON property of a struct (promoted ones included).
type field struct {
	name     string // JSON name
	goName   string
	typ      reflect.Type // the Go field's type
	index    []int        // path through embedded structs
	viaPtr   bool         // reached through an embedded pointer
	pos      int          // position in the struct node's fields
	node     *node
	tag      string // the raw validate tag
	desc     string
	def      json.RawMessage // default tag as JSON (nil when absent)
	example  json.RawMessage // example tag as JSON (nil when absent)
	consent  string          // non-empty for a Consent field: the exact phrase
	required bool            // listed in the schema's required

	omitEmpty, omitZero bool                     // json tag options (results)
	isZero              func(reflect.Value) bool // omitzero's test (results)
}

// rule is one parsed validate rule.
type rule struct {
	name      string // as written: min, gte, gt, len, eq, oneof, email, …
	param     string
	exclusive bool     // gt, lt
	length    int      // strings, slices, maps: the length parameter
	num       num      // numbers: the parameter
	vals      []num    // oneof on numbers
	strs      []string // oneof: the values as written
	nanos     string   // a duration bound in a result: its nanoseconds, for the schema
}

// num is a number parameter in the form the field's type compares.
type num struct {
	i int64
	u uint64
	f float64
}

// rules are the validate rules that apply at one position.
type rules struct {
	required  bool
	omitempty bool
	dive      bool
	list      []rule // every rule other than required, omitempty and dive, in tag order
	// Digest of list for the schema: at most one of each.
	min, max *rule // min/gte/gt and max/lte/lt (len sets both)
	eq       *rule
	oneof    *rule
	format   *rule // email, uuid, url, uri, datetime
	// zeroOK: omitempty on a value string or number whose rules reject the
	// zero value; the validator skips the rules for it, so the schema
	// accepts the zero value besides what the rules accept.
	zeroOK bool
}

// customType is a type that decodes or encodes itself.
type customType struct {
	schema obj  // the type's own schema (SchemaProvider) or {"type":"string"}
	json   bool // uses UnmarshalJSON (arguments) / MarshalJSON (results); else the text form
}

// typePlan is everything derived once per type and mode.
type typePlan struct {
	root    *node
	mode    mode
	consent []*field

	schemaOnce sync.Once
	schema     json.RawMessage
	schemaErr  error

	mdOnce sync.Once
	md     string
}

type planEntry struct {
	once sync.Once
	plan *typePlan
	err  error
}

// plans caches one typePlan per type, one map per mode; building it is the
// only reflection over a type's tags.
var plans [2]sync.Map // reflect.Type → *planEntry

// planBuilds counts plan constructions; tests use it to prove caching.
var planBuilds atomicCounter

type atomicCounter struct{ n atomic.Int64 }

func (c *atomicCounter) add()       { c.n.Add(1) }
func (c *atomicCounter) get() int64 { return c.n.Load() }

// planFor is the argument plan of t.
func planFor(t reflect.Type) (*typePlan, error) { return cachedPlan(t, modeInput) }

// outputPlanFor is the result plan of t.
func outputPlanFor(t reflect.Type) (*typePlan, error) { return cachedPlan(t, modeOutput) }

func cachedPlan(t reflect.Type, m mode) (*typePlan, error) {
	e, ok := plans[m].Load(t)
	if !ok {
		e, _ = plans[m].LoadOrStore(t, &planEntry{})
	}
	pe := e.(*planEntry)
	pe.once.Do(func() { pe.plan, pe.err = buildPlan(t, m) })
	return pe.plan, pe.err
}

var (
	typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	typeJSONUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	typeTextMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	typeJSONMarshaler   = reflect.TypeFor[json.Marshaler]()
	typeSchemaProvider  = reflect.TypeFor[SchemaProvider]()
	typeTime            = reflect.TypeFor[time.Time]()
	typeDuration        = reflect.TypeFor[time.Duration]()
	typeRaw             = reflect.TypeFor[json.RawMessage]()
	typeIsZeroer        = reflect.TypeFor[interface{ IsZero() bool }]()
)

// schemaTags are struct tags other schema generators turn into constraints.
// Decoding would not enforce them, so they are refused: every constraint
// comes from the validate tag.
var schemaTags = []string{
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
	"uniqueItems", "minProperties", "maxProperties", "enum", "const",
	"required", "examples",
}

func buildPlan(t reflect.Type, m mode) (*typePlan, error) {
	planBuilds.add()
	if t == nil {
		return nil, fmt.Errorf("args: nil type: %w", ErrNotStruct)
	}
	b := &planBuilder{inProgress: map[reflect.Type]bool{}, mode: m}
	p := &typePlan{mode: m}
	if m == modeInput {
		if t.Kind() != reflect.Struct {
			return nil, fmt.Errorf("args: argument type %v: %w", t, ErrNotStruct)
		}
		if ct, err := b.customOf(t, t.String()); err != nil || ct != nil {
			return nil, fmt.Errorf("args: argument type %s decodes itself (UnmarshalJSON or UnmarshalText); arguments must be a plain struct whose fields Decode checks strictly: %w", t, ErrUnsupportedType)
		}
		root, err := b.structNode(t, t.String())
		if err != nil {
			return nil, err
		}
		p.root = root
		for _, f := range root.fields {
			if f.consent != "" {
				p.consent = append(p.consent, f)
			}
		}
		return p, nil
	}
	root, err := b.typeNode(t, nil, t.String())
	if err != nil {
		return nil, err
	}
	p.root = root
	return p, nil
}

type planBuilder struct {
	inProgress map[reflect.Type]bool
	depth      int // struct nesting: 1 for the argument struct itself
	mode       mode
}

func (b *planBuilder) out() bool { return b.mode == modeOutput }

func (b *planBuilder) structNode(t reflect.Type, where string) (*node, error) {
	if b.inProgress[t] {
		return nil, fmt.Errorf("args: %s: %w", t, ErrRecursiveType)
	}
	b.inProgress[t] = true
	b.depth++
	defer func() { delete(b.inProgress, t); b.depth-- }()

	visible, hidden := jsonFields(t)
	for _, h := range hidden {
		if h.sf.Tag.Get("validate") != "" {
			return nil, fmt.Errorf("args: %s.%s: encoding/json hides this field (another field of %s has the JSON name %q at the same or a shallower depth), so its validate tag would never apply; give it its own json name or drop the tag: %w",
				h.owner, h.sf.Name, t, h.name, ErrEmbedded)
		}
	}
	n := &node{t: t, kind: kStruct, byName: make(map[string]*field, len(visible))}
	names := make([]string, 0, len(visible))
	for _, jf := range visible {
		sf := jf.sf
		fwhere := fmt.Sprintf("%s.%s", jf.owner, sf.Name)
		for _, st := range schemaTags {
			if _, ok := sf.Tag.Lookup(st); ok {
				return nil, fmt.Errorf("args: %s: tag %q is not supported; declare constraints in the validate tag: %w", fwhere, st, ErrUnsupportedTag)
			}
		}
		if !b.out() && jf.viaPtr && !embeddedPathSettable(t, jf.index) {
			return nil, fmt.Errorf("args: %s: promoted through an embedded pointer to an unexported struct type, which a decoder cannot allocate (encoding/json fails there too); embed it by value or export the type: %w", fwhere, ErrEmbedded)
		}
		f := &field{name: jf.name, goName: sf.Name, typ: sf.Type, index: jf.index, viaPtr: jf.viaPtr, pos: len(n.fields),
			tag: sf.Tag.Get("validate"), desc: sf.Tag.Get("description"),
			omitEmpty: jf.option("omitempty"), omitZero: jf.option("omitzero")}
		if jf.option("string") {
			switch k := sf.Type.Kind(); {
			case k == reflect.String || k == reflect.Bool || (k >= reflect.Int && k <= reflect.Float64) || k == reflect.Pointer:
				return nil, fmt.Errorf("args: %s: the json \",string\" option (a number or bool inside a JSON string) is not supported; declare the field with the type it carries: %w", fwhere, ErrUnsupportedTag)
			}
		}
		if err := b.fieldNode(f, sf, fwhere); err != nil {
			return nil, err
		}
		if err := b.presenceTags(f, sf, fwhere); err != nil {
			return nil, err
		}
		if f.omitZero {
			f.isZero = zeroTest(sf.Type)
		}
		n.fields = append(n.fields, f)
		n.byName[f.name] = f
		names = append(names, f.name)
	}
	n.names = strings.Join(names, ", ")
	kw, err := b.keywordsOf(t, t.String())
	if err != nil {
		return nil, err
	}
	n.keywords = kw
	return n, nil
}

// presenceTags applies the nullable and optional tags, which say what a
// schema cannot learn from the Go type: nullable:"false" on an optional
// argument pointer (absent is allowed, null is not) and optional:"true"
// on a result field that is always written but that the schema should not
// promise (it is left out of required).
func (b *planBuilder) presenceTags(f *field, sf reflect.StructField, where string) error {
	if v, ok := sf.Tag.Lookup("nullable"); ok {
		switch {
		case v != "false":
			return fmt.Errorf("args: %s: nullable tag %q: the only value is \"false\" (a pointer admits null by default): %w", where, v, ErrUnsupportedTag)
		case b.out():
			return fmt.Errorf("args: %s: nullable:\"false\" applies to arguments; in a result a nil pointer is written as null, so use a non-pointer type or omitempty: %w", where, ErrUnsupportedTag)
		case !f.node.ptr:
			return fmt.Errorf("args: %s: nullable:\"false\" applies to pointer fields (an optional argument whose absence the pointer shows); %s is not one: %w", where, f.typ, ErrUnsupportedTag)
		}
		f.node.noNull = true
	}
	if v, ok := sf.Tag.Lookup("optional"); ok {
		switch {
		case v != "true":
			return fmt.Errorf("args: %s: optional tag %q: the only value is \"true\": %w", where, v, ErrUnsupportedTag)
		case !b.out():
			return fmt.Errorf("args: %s: optional:\"true\" applies to results; an argument is optional unless its validate tag says required: %w", where, ErrUnsupportedTag)
		case f.node.rules.required:
			return fmt.Errorf("args: %s: optional:\"true\" contradicts the validate tag's required: %w", where, ErrUnsupportedTag)
		}
		f.required = false
	}
	return nil
}

// embeddedPathSettable reports whether every embedded pointer on the path
// to a promoted field can be allocated (it is an exported field).
func embeddedPathSettable(t reflect.Type, index []int) bool {
	for _, x := range index[:len(index)-1] {
		sf := t.Field(x)
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			if !sf.IsExported() {
				return false
			}
			ft = ft.Elem()
		}
		t = ft
	}
	return true
}

func (b *planBuilder) fieldNode(f *field, sf reflect.StructField, where string) error {
	ft := sf.Type
	// Consent fields: an exact phrase, always required, no other rules.
	if ft.Implements(typeConsentField) && ft.Kind() == reflect.String {
		if b.out() {
			return fmt.Errorf("args: %s: Consent belongs in argument types, not in results: %w", where, ErrUnsupportedType)
		}
		if b.depth > 1 {
			return fmt.Errorf("args: %s: Consent must be a field of the argument struct itself (or of a struct embedded in it), not of a nested object: %w", where, ErrUnsupportedType)
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
	var segments []string
	if f.tag != "" {
		segments = strings.Split(f.tag, ",")
	}
	n, err := b.typeNode(ft, segments, where)
	if err != nil {
		return err
	}
	f.node = n
	if b.out() {
		mayBeAbsent := f.omitEmpty || f.omitZero || f.viaPtr
		f.required = !mayBeAbsent || n.rules.required
	} else {
		f.required = n.rules.required
		if err := b.checkOmitted(f, where); err != nil {
			return err
		}
	}
	return b.parseExtras(f, sf, where)
}

// checkOmitted applies the zero-value rule to an argument field: an omitted
// field decodes to its zero value (nil for a pointer), which the schema
// accepts unless the field is required, so its rules must accept that value.
// A struct value whose zero value breaks its fields' rules is required
// instead: the object must be sent.
func (b *planBuilder) checkOmitted(f *field, where string) error {
	if f.required {
		return nil
	}
	n := f.node
	c := &checker{}
	c.check(reflect.Zero(f.typ), n)
	if len(c.errs) == 0 {
		return nil
	}
	first := c.errs[0]
	why := first.Message
	if first.Field != "" {
		why = first.Field + " " + why
	}
	switch {
	case n.kind == kStruct && !n.ptr:
		if n.rules.omitempty {
			return fmt.Errorf("args: %s: omitempty on a struct value cannot make it optional: its zero value breaks its fields' rules (%s); use a pointer (*%s with omitempty): %w",
				where, why, n.t, ErrUnsupportedTag)
		}
		// The object must be sent: the schema lists it as required.
		f.required = true
		return nil
	case n.ptr:
		return fmt.Errorf("args: %s: optional pointer field %q: rules %q reject nil; start them with omitempty (validate:\"omitempty,…\") or add required: %w",
			where, f.name, f.tag, ErrUnsupportedTag)
	}
	fix := "add required, add omitempty to skip the rules for the zero value, or relax the rules"
	if n.kind == kSlice || n.kind == kMap {
		fix = "add required, or omitempty to skip the rules when the field is absent"
	}
	return fmt.Errorf("args: %s: optional field %q: rules %q reject the zero value %s that an omitted field decodes to (%s); %s: %w",
		where, f.name, f.tag, zeroText(n), why, fix, ErrUnsupportedTag)
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
		if t.Kind() == reflect.Interface {
			return nil, fmt.Errorf("args: %s: pointer to interface %s: use %s itself: %w", where, t, t, ErrUnsupportedType)
		}
	}
	n.t = t
	if t.Implements(typeConsentField) {
		return nil, fmt.Errorf("args: %s: Consent must be a direct, non-pointer field of the argument struct: %w", where, ErrUnsupportedType)
	}
	if err := b.classify(n, where); err != nil {
		return nil, err
	}
	if n.kind == kStruct {
		sn, err := b.structNode(t, where)
		if err != nil {
			return nil, err
		}
		sn.ptr = n.ptr
		n = sn
	}

	// Split the tag at the first dive: the head applies here, the tail to
	// the elements.
	head, tail, dive := segs, []string(nil), false
	for i, s := range segs {
		if s == "dive" {
			head, tail, dive = segs[:i], segs[i+1:], true
			break
		}
	}
	r, err := b.parseRules(n, head, where)
	if err != nil {
		return nil, err
	}
	r.dive = dive
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
	if err := b.checkPosition(n, where); err != nil {
		return nil, err
	}
	return n, nil
}

// classify sets n.kind (and bits/custom) for n.t.
func (b *planBuilder) classify(n *node, where string) error {
	t := n.t
	switch t {
	case typeTime:
		n.kind = kTime
		return nil
	case typeDuration:
		n.kind = kDuration
		return nil
	case typeRaw:
		n.kind = kRaw
		return nil
	}
	if ct, err := b.customOf(t, where); err != nil || ct != nil {
		n.kind, n.custom = kCustom, ct
		return err
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
			return fmt.Errorf("args: %s: %s (base64 in JSON) is not supported; use string, or json.RawMessage for raw JSON: %w", where, t, ErrUnsupportedType)
		}
		n.kind = kSlice
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("args: %s: map keys must be strings, got %s: %w", where, t.Key(), ErrUnsupportedType)
		}
		k := t.Key()
		if k.Implements(typeTextUnmarshaler) || reflect.PointerTo(k).Implements(typeTextUnmarshaler) || k.Implements(typeTextMarshaler) {
			return fmt.Errorf("args: %s: map key type %s has its own text form; use string keys: %w", where, k, ErrUnsupportedType)
		}
		n.kind = kMap
	case reflect.Struct:
		n.kind = kStruct
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return fmt.Errorf("args: %s: interface type %s is not supported; use any (interface{}) for a field that holds any JSON value: %w", where, t, ErrUnsupportedType)
		}
		n.kind = kAny
	default:
		return fmt.Errorf("args: %s: type %s is not supported (use string, bool, integers, floats, time.Time, time.Duration, any, json.RawMessage, slices, string-keyed maps, structs or pointers to them): %w", where, t, ErrUnsupportedType)
	}
	return nil
}

// parseRules checks each rule against the kind of n and keeps its meaning.
func (b *planBuilder) parseRules(n *node, segs []string, where string) (rules, error) {
	var r rules
	for i, s := range segs {
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
			if hasParam {
				return r, bad("takes no parameter")
			}
			if err := b.checkRequired(n, bad); err != nil {
				return r, err
			}
			r.required = true
			continue
		case "omitempty":
			if i != 0 {
				return r, bad("must come first (the validator honours omitempty only as the first rule of its part)")
			}
			r.omitempty = true
			continue
		}
		switch n.kind {
		case kTime:
			return r, bad("does not apply to time.Time; only required (on *time.Time) and omitempty do")
		case kDuration:
			if !b.out() {
				return r, bad("cannot be stated in the schema of a time.Duration argument, which is a string like \"1m30s\"; check the range in your function, or use an integer field with a unit (e.g. timeout_seconds)")
			}
		case kAny, kRaw:
			return r, bad(fmt.Sprintf("does not apply to %s; only required and omitempty do", n.t))
		case kCustom:
			return r, bad(fmt.Sprintf("does not apply to %s, which decodes itself and states its own schema; only required (on a pointer) and omitempty do", n.t))
		case kStruct:
			return r, bad(fmt.Sprintf("does not apply to the struct %s; put rules on its fields", n.t))
		case kBool:
			return r, bad("does not apply to a bool")
		}
		ru := rule{name: name, param: param}
		switch name {
		case "min", "max", "len", "gt", "gte", "lt", "lte", "eq", "oneof":
			if !hasParam || param == "" {
				return r, bad("needs a parameter")
			}
			if name == "oneof" && (n.kind == kSlice || n.kind == kMap) {
				return r, bad("does not apply to a slice or map; use dive,oneof=… for the elements")
			}
			if err := b.parseParam(n, &ru); err != nil {
				return r, bad(err.Error())
			}
			var slot **rule
			switch name {
			case "min", "gte", "gt":
				ru.exclusive = name == "gt"
				slot = &r.min
			case "max", "lte", "lt":
				ru.exclusive = name == "lt"
				slot = &r.max
			case "len":
				if r.min != nil || r.max != nil {
					return r, bad("conflicts with another length rule; keep one")
				}
				lo, hi := ru, ru
				r.min, r.max = &lo, &hi
			case "eq":
				slot = &r.eq
			case "oneof":
				slot = &r.oneof
			}
			if slot != nil {
				if *slot != nil {
					return r, bad(fmt.Sprintf("conflicts with %q; keep one", (*slot).name+"="+(*slot).param))
				}
				rr := ru
				*slot = &rr
			}
		case "email", "uuid", "url", "uri":
			if n.kind != kString || hasParam {
				return r, bad("applies to strings only and takes no parameter")
			}
			if r.format != nil {
				return r, bad("conflicts with another format rule; keep one")
			}
			rr := ru
			r.format = &rr
		case "datetime":
			if n.kind != kString {
				return r, bad("applies to strings only (a time.Time field needs no rule)")
			}
			if param != time3339 && param != "2006-01-02" {
				return r, bad(fmt.Sprintf("layout is not supported; use datetime=%s or datetime=2006-01-02 (or a time.Time field)", time3339))
			}
			if r.format != nil {
				return r, bad("conflicts with another format rule; keep one")
			}
			rr := ru
			r.format = &rr
		default:
			return r, bad("is not supported (supported: required, omitempty, min, max, len, gt, gte, lt, lte, eq, oneof, email, url, uri, uuid, datetime, dive)")
		}
		r.list = append(r.list, ru)
	}
	if r.min != nil && r.max != nil && n.kind != kString && n.kind != kSlice && n.kind != kMap {
		if cmpNum(n, r.min.num, r.max.num) > 0 {
			return r, fmt.Errorf("args: %s: %s=%s and %s=%s leave no value: %w", where, r.min.name, r.min.param, r.max.name, r.max.param, ErrUnsupportedTag)
		}
	}
	return r, nil
}

// checkRequired refuses required where neither the schema nor a decoder
// could tell an absent value from a present zero one.
func (b *planBuilder) checkRequired(n *node, bad func(string) error) error {
	if n.ptr || b.out() {
		return nil
	}
	switch n.kind {
	case kBool:
		return bad("on a bool would reject false; use *bool for a required boolean")
	case kStruct:
		return bad(fmt.Sprintf("on a struct value is not checked (an absent object decodes to the zero struct); use *%s for a required object — a struct value is required by itself when its zero value breaks its fields' rules", n.t))
	case kTime:
		return bad("on a time.Time value cannot be checked (an absent time decodes to the zero time, which is a valid date-time); use *time.Time")
	case kDuration:
		return bad("on a time.Duration value would reject \"0s\"; use *time.Duration for a required duration")
	case kCustom:
		return bad(fmt.Sprintf("on a %s value cannot be checked (the type decodes itself); use *%s for a required value", n.t, n.t))
	}
	return nil
}

const time3339 = "2006-01-02T15:04:05Z07:00"

// parseParam makes sure a rule's parameter is a length (strings, slices,
// maps) or a value of the field's type (numbers), so the schema can carry
// it verbatim and the checker compares it exactly.
func (b *planBuilder) parseParam(n *node, ru *rule) error {
	if n.kind == kString && (ru.name == "eq" || ru.name == "oneof") {
		if ru.name == "oneof" {
			vals, err := splitOneOf(ru.param)
			if err != nil {
				return err
			}
			ru.strs = vals
		}
		return nil
	}
	switch n.kind {
	case kString, kSlice, kMap:
		v, err := strconv.ParseUint(ru.param, 10, 31)
		if err != nil || v > math.MaxInt32 {
			return fmt.Errorf("parameter must be a non-negative whole number (a length)")
		}
		ru.length = int(v)
		if ru.name == "lt" && v == 0 {
			return fmt.Errorf("can never pass (no length is below 0)")
		}
		return nil
	}
	if ru.name == "oneof" {
		vals, err := splitOneOf(ru.param)
		if err != nil {
			return err
		}
		for _, v := range vals {
			x, err := parseNum(n, v)
			if err != nil {
				return fmt.Errorf("value %q: %w", v, err)
			}
			ru.vals = append(ru.vals, x)
		}
		ru.strs = vals
		return nil
	}
	x, err := parseNum(n, ru.param)
	if err != nil {
		return err
	}
	ru.num = x
	if n.kind == kDuration {
		// The schema states nanoseconds.
		ru.nanos = strconv.FormatInt(x.i, 10)
	}
	return nil
}

// parseNum parses s as a value of n's number type.
func parseNum(n *node, s string) (num, error) {
	switch n.kind {
	case kInt:
		v, err := strconv.ParseInt(s, 10, n.bits)
		if err != nil {
			return num{}, fmt.Errorf("parameter must be an integer that fits %s", n.t)
		}
		return num{i: v}, nil
	case kUint:
		v, err := strconv.ParseUint(s, 10, n.bits)
		if err != nil {
			return num{}, fmt.Errorf("parameter must be a non-negative integer that fits %s", n.t)
		}
		return num{u: v}, nil
	case kDuration:
		if d, err := time.ParseDuration(s); err == nil {
			return num{i: int64(d)}, nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return num{}, fmt.Errorf("parameter must be a duration such as 1m30s, or nanoseconds")
		}
		return num{i: v}, nil
	case kFloat:
		f, err := strconv.ParseFloat(s, n.bits)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return num{}, fmt.Errorf("parameter must be a finite number")
		}
		if strconv.FormatFloat(f, 'g', -1, n.bits) != s && !exactDecimal(s, f) {
			return num{}, fmt.Errorf("parameter %s is not exactly representable as %s; write it as %s", s, n.t, strconv.FormatFloat(f, 'g', -1, n.bits))
		}
		return num{f: f}, nil
	}
	return num{}, fmt.Errorf("does not apply to %s", n.t)
}

// exactDecimal reports whether param denotes exactly the float f, e.g.
// "0.5" or "10". Parameters that round (0.1) are accepted only in their
// shortest form; see parseNum.
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

// checkPosition keeps omitempty and nil honest at one value position (a
// field, or an element after dive).
//
// A nullable pointer's rules must accept nil, so they start with omitempty
// (or the pointer is required). On a value string or number, omitempty
// makes the validator skip the rules for the zero value; the schema says
// the same with "the zero value, or what the rules accept" (zeroOK).
func (b *planBuilder) checkPosition(n *node, where string) error {
	r := &n.rules
	if n.ptr {
		// In a result a nil pointer is null, which the rules do not
		// constrain; only arguments keep the validator's reading.
		if !b.out() && !r.required && !r.omitempty && len(r.list) > 0 {
			return fmt.Errorf("args: %s: rules reject null/absent for a pointer; start them with omitempty or add required: %w", where, ErrUnsupportedTag)
		}
		return nil
	}
	if !r.omitempty || len(r.list) == 0 {
		return nil
	}
	switch n.kind {
	case kString, kInt, kUint, kFloat, kDuration:
	default:
		return nil
	}
	if rulesExcludeZero(n, b.out()) {
		r.zeroOK = true
	}
	return nil
}

// parseExtras reads the default and example tags, decoding each as the
// field's JSON value and checking it against the field's own rules.
func (b *planBuilder) parseExtras(f *field, sf reflect.StructField, where string) error {
	for _, tag := range []string{"default", "example"} {
		text, ok := sf.Tag.Lookup(tag)
		if !ok {
			continue
		}
		js, err := b.extraValue(f, sf.Type, text)
		if err != nil {
			return fmt.Errorf("args: %s: %s tag %q %s: %w", where, tag, text, err.Error(), ErrBadTagValue)
		}
		if tag == "default" {
			f.def = js
		} else {
			f.example = js
		}
	}
	return nil
}

// extraValue turns a default or example tag into the JSON the schema
// carries, after checking it the way a value of the field would be.
func (b *planBuilder) extraValue(f *field, t reflect.Type, text string) (json.RawMessage, error) {
	raw := []byte(text)
	if stringForm(f.node) {
		raw = jsonQuote(text)
	}
	if f.consent != "" {
		if text != f.consent {
			return nil, fmt.Errorf("differs from the consent phrase %q", f.consent)
		}
		return raw, nil
	}
	if b.out() && f.node.kind == kCustom {
		// A result type encodes itself; its own schema states the form.
		if !json.Valid(raw) {
			return nil, fmt.Errorf("is not valid JSON")
		}
		return compactJSON(raw), nil
	}
	pv := reflect.New(t)
	d := &decoder{raw: raw, maxDepth: DefaultMaxDepth}
	if !d.value(pv.Elem(), f.node) || !d.end() || len(d.errs) > 0 {
		return nil, fmt.Errorf("is not a valid %s", jsonTypeName(f.node))
	}
	c := &checker{out: b.out()}
	if c.check(pv.Elem(), f.node); len(c.errs) > 0 {
		return nil, fmt.Errorf("breaks the field's validate rules %q (%s)", f.tag, c.errs[0].Message)
	}
	if b.out() {
		m, err := json.Marshal(pv.Elem().Interface())
		if err != nil {
			return nil, fmt.Errorf("cannot be written as JSON: %v", err)
		}
		return m, nil
	}
	return compactJSON(raw), nil
}

// stringForm reports whether a default/example tag for n is written as the
// bare string (rather than as JSON).
func stringForm(n *node) bool {
	switch n.kind {
	case kString, kTime, kDuration:
		return true
	case kCustom:
		return !n.custom.json
	}
	return false
}

// zeroTest is encoding/json's omitzero test for a field of type t: its
// IsZero method when it has one, else the zero value.
func zeroTest(t reflect.Type) func(reflect.Value) bool {
	switch {
	case t.Kind() == reflect.Interface && t.Implements(typeIsZeroer):
		return func(v reflect.Value) bool {
			return v.IsNil() || (v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) || v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(typeIsZeroer):
		return func(v reflect.Value) bool {
			return v.IsNil() || v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case t.Implements(typeIsZeroer):
		return func(v reflect.Value) bool { return v.Interface().(interface{ IsZero() bool }).IsZero() }
	case reflect.PointerTo(t).Implements(typeIsZeroer):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				c := reflect.New(v.Type()).Elem()
				c.Set(v)
				v = c
			}
			return v.Addr().Interface().(interface{ IsZero() bool }).IsZero()
		}
	}
	return reflect.Value.IsZero
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
