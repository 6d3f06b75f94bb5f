package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
)

// SchemaFor returns the JSON Schema (draft 2020-12) of A's arguments,
// derived from the same validate tags Decode enforces (see the package
// documentation for the mapping). It is built once per type and cached; the
// returned bytes are shared and must not be modified.
func SchemaFor[A any]() (json.RawMessage, error) {
	return SchemaOf(reflect.TypeFor[A]())
}

// SchemaOf is SchemaFor for a reflect.Type. The error wraps ErrNotStruct,
// ErrUnsupportedTag, ErrUnsupportedType, ErrRecursiveType, ErrEmbedded or
// ErrBadTagValue and names the struct, field and tag concerned.
func SchemaOf(t reflect.Type) (json.RawMessage, error) {
	p, err := planFor(t)
	if err != nil {
		return nil, err
	}
	return p.schemaJSON()
}

// schemaBuilds counts schema constructions; tests use it to prove caching.
var schemaBuilds atomicCounter

func (p *typePlan) schemaJSON() (json.RawMessage, error) {
	p.schemaOnce.Do(func() {
		schemaBuilds.add()
		sb := &schemaBuilder{out: p.mode == modeOutput}
		var s obj
		if p.mode == modeOutput {
			s = sb.root(p.root)
		} else {
			s = sb.position(p.root, posCtx{})
		}
		var b bytes.Buffer
		writeJSON(&b, s)
		p.schema = json.RawMessage(b.Bytes())
	})
	return p.schema, p.schemaErr
}

// kv is one member of a schema object; obj keeps members in order.
type kv struct {
	k string
	v any // string, bool, json.Number, json.RawMessage, obj, []any, []string
}

type obj []kv

func (o obj) get(k string) (any, bool) {
	for _, m := range o {
		if m.k == k {
			return m.v, true
		}
	}
	return nil, false
}

func (o obj) without(keys ...string) obj {
	out := make(obj, 0, len(o))
	for _, m := range o {
		drop := false
		for _, k := range keys {
			if m.k == k {
				drop = true
			}
		}
		if !drop {
			out = append(out, m)
		}
	}
	return out
}

func writeJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case obj:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonQuote(m.k))
			b.WriteByte(':')
			writeJSON(b, m.v)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonQuote(e))
		}
		b.WriteByte(']')
	case string:
		b.Write(jsonQuote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(string(x))
	case json.RawMessage:
		b.Write(x)
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("args: schema value of type %T", v))
	}
}

type schemaBuilder struct {
	out bool // result schemas
}

// posCtx is what a position's schema depends on beyond its node.
type posCtx struct {
	// omitsNil: (results) the position is a field with json omitempty or
	// omitzero, so a nil pointer or nil slice/map there is absent, not null.
	omitsNil bool
}

// root is a result type's schema: a pointer at the top is not nullable by
// itself; a nil one is null, which the schema of T decides.
func (sb *schemaBuilder) root(n *node) obj {
	c := *n
	c.ptr = false
	return sb.position(&c, posCtx{})
}

// position is the schema of the value at one position (a field, an element,
// the root): its type, its rules, and null when the position may hold it.
func (sb *schemaBuilder) position(n *node, pc posCtx) obj {
	r := &n.rules
	req := r.required
	var s obj
	switch n.kind {
	case kString:
		s = sb.stringSchema(n)
	case kInt, kUint, kFloat:
		s = sb.numberSchema(n)
	case kDuration:
		if sb.out {
			s = sb.numberSchema(n)
		} else {
			s = obj{{"type", "string"}, {"pattern", durationPattern}}
		}
	case kBool:
		s = obj{{"type", "boolean"}}
		if sb.out && req {
			s = append(s, kv{"const", true})
		}
	case kTime:
		s = obj{{"type", "string"}, {"format", "date-time"}, {"pattern", dateTimeRule.pattern}}
	case kAny, kRaw:
		s = obj{}
		if req {
			s = append(s, kv{"not", obj{{"type", "null"}}})
		}
		return s
	case kCustom:
		s = append(obj{}, n.custom.schema...)
		switch {
		case n.ptr && !req && !n.noNull && (!sb.out || !pc.omitsNil):
			return obj{{"anyOf", []any{s, obj{{"type", "null"}}}}}
		case n.ptr && req && typeMentionsNull(s):
			return obj{{"allOf", []any{s}}, {"not", obj{{"type", "null"}}}}
		}
		return s
	case kSlice:
		s = obj{{"type", "array"}}
		s = append(s, sb.lengthKeys(n, "minItems", "maxItems")...)
		s = append(s, kv{"items", sb.position(n.elem, posCtx{})})
	case kMap:
		s = obj{{"type", "object"}}
		s = append(s, sb.lengthKeys(n, "minProperties", "maxProperties")...)
		s = append(s, kv{"additionalProperties", sb.position(n.elem, posCtx{})})
	case kStruct:
		s = sb.structSchema(n)
	}

	nullable := n.ptr && !n.noNull
	if sb.out {
		nullable = n.ptr && !pc.omitsNil
		if (n.kind == kSlice || n.kind == kMap) && (n.ptr || !pc.omitsNil) {
			nullable = true
		}
	}
	if nullable && !req {
		s = addNull(s)
	}
	return s
}

// addNull lets null through a schema that has a "type".
func addNull(s obj) obj {
	for i, m := range s {
		switch m.k {
		case "type":
			s[i].v = []string{m.v.(string), "null"}
		case "const":
			s[i] = kv{"enum", []any{m.v, nil}}
		case "enum":
			s[i].v = append(m.v.([]any), nil)
		}
	}
	return s
}

func (sb *schemaBuilder) structSchema(n *node) obj {
	props := obj{}
	var req []string
	for _, f := range n.fields {
		var ps obj
		if f.consent != "" {
			ps = obj{{"type", "string"}, {"const", f.consent}}
		} else {
			ps = sb.position(f.node, posCtx{omitsNil: f.omitEmpty || f.omitZero})
		}
		ps = withExtras(ps, f)
		props = append(props, kv{f.name, ps})
		if f.required {
			req = append(req, f.name)
		}
	}
	s := obj{{"type", "object"}, {"properties", props}}
	if len(req) > 0 {
		s = append(s, kv{"required", req})
	}
	s = append(s, kv{"additionalProperties", false})
	if n.keywords != nil {
		s = append(s, n.keywords.kvs...)
	}
	return s
}

// withExtras merges a field's description, default and example tags into
// its property schema, replacing the same keywords of a type's own schema.
func withExtras(s obj, f *field) obj {
	if f.desc == "" && f.def == nil && f.example == nil {
		return s
	}
	var drop []string
	if f.desc != "" {
		drop = append(drop, "description")
	}
	if f.def != nil {
		drop = append(drop, "default")
	}
	if f.example != nil {
		drop = append(drop, "examples")
	}
	s = s.without(drop...)
	if f.desc != "" {
		s = append(s, kv{"description", f.desc})
	}
	if f.def != nil {
		s = append(s, kv{"default", f.def})
	}
	if f.example != nil {
		s = append(s, kv{"examples", []any{f.example}})
	}
	return s
}

func (sb *schemaBuilder) stringSchema(n *node) obj {
	r := &n.rules
	var c obj // constraints
	lo, hi := lengthBounds(r)
	// required on a string value: the validator rejects "".
	if r.required && !n.ptr && lo < 1 && r.eq == nil && r.oneof == nil && r.format == nil {
		lo = 1
	}
	if r.format != nil {
		fr := formatRuleOf(r.format)
		if fr.format != "" {
			c = append(c, kv{"format", fr.format})
		}
		if fr.pattern != "" {
			c = append(c, kv{"pattern", fr.pattern})
		}
		if fr.maxLen > 0 && (hi < 0 || hi > fr.maxLen) {
			hi = fr.maxLen
		}
	}
	if lo > 0 {
		c = append(c, kv{"minLength", json.Number(strconv.Itoa(lo))})
	}
	if hi >= 0 {
		c = append(c, kv{"maxLength", json.Number(strconv.Itoa(hi))})
	}
	if r.eq != nil {
		c = append(c, kv{"const", r.eq.param})
	}
	if r.oneof != nil {
		vals := make([]any, len(r.oneof.strs))
		for i, v := range r.oneof.strs {
			vals[i] = v
		}
		c = append(c, kv{"enum", vals})
	}
	return withZero(obj{{"type", "string"}}, c, r, "")
}

// withZero combines a type with its constraints; when omitempty lets the
// zero value skip them (zeroOK), the zero value joins an enum, or the
// constraints move into anyOf beside {"const": zero}.
func withZero(base, c obj, r *rules, zero any) obj {
	if !r.zeroOK {
		return append(base, c...)
	}
	if len(c) == 1 && (c[0].k == "enum" || c[0].k == "const") {
		vals := []any{c[0].v}
		if c[0].k == "enum" {
			vals = append([]any(nil), c[0].v.([]any)...)
		}
		return append(base, kv{"enum", append(vals, zero)})
	}
	return append(base, kv{"anyOf", []any{obj{{"const", zero}}, c}})
}

func (sb *schemaBuilder) numberSchema(n *node) obj {
	r := &n.rules
	typ := "number"
	if n.kind != kFloat {
		typ = "integer"
	}
	base := obj{{"type", typ}}
	var c obj
	lo, hi := "", ""
	if !sb.out {
		lo, hi = typeBounds(n)
	}
	param := func(ru *rule) json.Number {
		if n.kind == kDuration {
			return json.Number(ru.nanos)
		}
		return json.Number(ru.param)
	}
	bound := func(ru *rule, incl, excl, implied, impliedKey string) {
		switch {
		case ru != nil && ru.exclusive:
			c = append(c, kv{excl, param(ru)})
		case ru != nil:
			c = append(c, kv{incl, param(ru)})
		case implied != "":
			// The Go type's range stays outside anyOf: it always applies.
			base = append(base, kv{impliedKey, json.Number(implied)})
		}
	}
	bound(r.min, "minimum", "exclusiveMinimum", lo, lowKey(n))
	bound(r.max, "maximum", "exclusiveMaximum", hi, highKey(n))
	if r.eq != nil {
		c = append(c, kv{"const", param(r.eq)})
	}
	if r.oneof != nil {
		vals := make([]any, len(r.oneof.strs))
		for i, v := range r.oneof.strs {
			vals[i] = json.Number(v)
			if n.kind == kDuration {
				vals[i] = json.Number(strconv.FormatInt(r.oneof.vals[i].i, 10))
			}
		}
		c = append(c, kv{"enum", vals})
	}
	// required on a number value: the validator rejects 0.
	if r.required && !n.ptr && !rulesExcludeZero(n, sb.out) {
		c = append(c, kv{"not", obj{{"const", json.Number("0")}}})
	}
	return withZero(base, c, r, json.Number("0"))
}

// rulesExcludeZero reports whether n's rules (other than required) already
// reject the zero value.
func rulesExcludeZero(n *node, out bool) bool {
	probe := *n
	probe.ptr = false
	probe.rules.required, probe.rules.omitempty = false, false
	c := &checker{out: out}
	c.check(reflect.Zero(n.t), &probe)
	return len(c.errs) > 0
}

// lengthBounds returns the inclusive length bounds of r's min and max
// rules (gt/lt made inclusive); -1 where there is none.
func lengthBounds(r *rules) (lo, hi int) {
	lo, hi = -1, -1
	if r.min != nil {
		lo = r.min.length
		if r.min.exclusive {
			lo++
		}
	}
	if r.max != nil {
		hi = r.max.length
		if r.max.exclusive {
			hi--
		}
	}
	return lo, hi
}

func (sb *schemaBuilder) lengthKeys(n *node, minKey, maxKey string) obj {
	r := &n.rules
	var s obj
	lo, hi := lengthBounds(r)
	if r.eq != nil {
		lo, hi = r.eq.length, r.eq.length
	}
	if lo > 0 {
		s = append(s, kv{minKey, json.Number(strconv.Itoa(lo))})
	}
	if hi >= 0 {
		s = append(s, kv{maxKey, json.Number(strconv.Itoa(hi))})
	}
	return s
}

// Limits of float32: ParseFloat(s, 32) accepts exactly the numbers whose
// magnitude is below 2^128 - 2^103 (they round to at most MaxFloat32).
var float32Limit = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), new(big.Int).Lsh(big.NewInt(1), 103)).String()

// typeBounds returns the implicit limits of n's Go type, as JSON numbers.
// float64 has none in the schema (see the package documentation).
func typeBounds(n *node) (lo, hi string) {
	switch n.kind {
	case kInt, kUint:
		l, h := intRange(n)
		return l.String(), h.String()
	case kFloat:
		if n.bits == 32 {
			return "-" + float32Limit, float32Limit
		}
	}
	return "", ""
}

func lowKey(n *node) string {
	if n.kind == kFloat {
		return "exclusiveMinimum"
	}
	return "minimum"
}

func highKey(n *node) string {
	if n.kind == kFloat {
		return "exclusiveMaximum"
	}
	return "maximum"
}
