package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
)

// Decode strictly decodes raw (a JSON object) into an A and validates it.
//
// Bad input yields a *ValidationError listing every violation found: the
// body's size and nesting (checked before decoding), unknown fields at any
// level, type mismatches, nulls where no pointer allows them, then the
// validate tags and consent phrases. An argument type that cannot be
// planned (see SchemaOf) yields that error, never a *ValidationError.
func Decode[A any](raw []byte, opts DecodeOptions) (A, error) {
	var a A
	p, err := planFor(reflect.TypeFor[A]())
	if err != nil {
		return a, err
	}
	maxBytes, maxDepth := opts.MaxBytes, opts.MaxDepth
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	if len(raw) > maxBytes {
		return a, one("", "too_large", fmt.Sprintf("arguments are %d bytes; the limit is %d bytes", len(raw), maxBytes))
	}
	slow, fe := prescan(raw, p.root, maxDepth)
	if fe != nil {
		return a, &ValidationError{Errors: []FieldError{*fe}}
	}
	rv := reflect.ValueOf(&a).Elem()
	if !slow {
		// Fast path: the scan found only known fields and allowed nulls, so
		// the standard decoder does the rest; any error sends us to the slow
		// path, which explains it.
		if json.Unmarshal(raw, &a) == nil {
			var errs []FieldError
			if errs = p.validateValue(rv, &a, errs, nil); len(errs) > 0 {
				var zero A
				return zero, &ValidationError{Errors: errs}
			}
			return a, nil
		}
		var zero A
		a = zero
	}
	errs := p.slowDecode(raw, rv, &a)
	if len(errs) > 0 {
		var zero A
		return zero, &ValidationError{Errors: errs}
	}
	return a, nil
}

func one(field, rule, msg string) *ValidationError {
	return &ValidationError{Errors: []FieldError{{Field: field, Rule: rule, Message: msg}}}
}

// frame is one open object or array during the scan.
type frame struct {
	n         *node // the container's node; nil when unknown (mismatch)
	obj       bool
	expectKey bool
}

// prescan checks the root and the nesting depth and decides whether the
// fast path may run: every key must match a field exactly (the standard
// decoder matches case-insensitively) and every null must sit where a
// pointer allows it. It does not check syntax; the decoder does.
func prescan(raw []byte, root *node, maxDepth int) (slow bool, fe *FieldError) {
	i := skipSpace(raw, 0)
	if i == len(raw) {
		return false, &FieldError{Rule: "type", Message: "arguments are empty; expected a JSON object such as {}"}
	}
	if raw[i] != '{' {
		return false, &FieldError{Rule: "type", Message: "arguments must be a JSON object, got " + literalKind(raw[i])}
	}
	var buf [16]frame
	stack := buf[:0]
	pending := root // node of the next value; nil when unknown
	for i < len(raw) {
		c := raw[i]
		switch c {
		case ' ', '\t', '\n', '\r', ':':
			i++
		case ',':
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				if top.obj {
					top.expectKey = true
				} else if top.n != nil {
					pending = top.n.elem
				} else {
					pending = nil
				}
			}
			i++
		case '{', '[':
			if len(stack) >= maxDepth {
				return false, &FieldError{Rule: "too_deep", Message: fmt.Sprintf("arguments nest deeper than %d levels", maxDepth)}
			}
			f := frame{obj: c == '{', expectKey: c == '{'}
			if pending != nil {
				switch {
				case c == '{' && (pending.kind == kStruct || pending.kind == kMap):
					f.n = pending
				case c == '[' && pending.kind == kSlice:
					f.n = pending
				default:
					slow = true
				}
			}
			stack = append(stack, f)
			pending = nil
			if f.n != nil && !f.obj {
				pending = f.n.elem
			}
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			pending = nil
			i++
		case '"':
			end, escaped := scanString(raw, i)
			if end < 0 {
				// Unterminated: the decoder reports the syntax error.
				return true, nil
			}
			if len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].expectKey {
				top := &stack[len(stack)-1]
				top.expectKey = false
				pending = nil
				switch {
				case top.n == nil:
				case escaped:
					slow = true
				case top.n.kind == kStruct:
					if f, ok := top.n.byName[string(raw[i+1:end-1])]; ok {
						pending = f.node
					} else {
						slow = true
					}
				case top.n.kind == kMap:
					pending = top.n.elem
				}
			} else if pending != nil && pending.kind != kString {
				slow = true
			}
			i = end
		case 'n':
			if pending == nil || !pending.ptr {
				slow = true
			}
			i = skipLiteral(raw, i)
		default:
			i = skipLiteral(raw, i)
		}
	}
	return slow, nil
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the closing quote of the string that
// starts at raw[i] (-1 when it is not closed), and whether it contains
// escapes.
func scanString(raw []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

func skipLiteral(raw []byte, i int) int {
	i++
	for i < len(raw) {
		switch raw[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
			return i
		}
		i++
	}
	return i
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
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return fmt.Sprintf("invalid JSON (starts with %q)", c)
}

// slowDecode decodes raw through a generic tree so every problem can be
// named, then validates what decoded cleanly.
func (p *typePlan) slowDecode(raw []byte, rv reflect.Value, ptr any) []FieldError {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return []FieldError{syntaxError(err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return []FieldError{{Rule: "syntax", Message: fmt.Sprintf("arguments are not valid JSON: unexpected data after the object at byte %d", dec.InputOffset())}}
	}
	d := &slowDecoder{}
	d.assign(rv, tree, p.root, "")
	errs := p.validateValue(rv, ptr, d.errs, d.bad)
	return errs
}

func syntaxError(err error) FieldError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return FieldError{Rule: "syntax", Message: fmt.Sprintf("arguments are not valid JSON at byte %d: %s", se.Offset, se.Error())}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return FieldError{Rule: "syntax", Message: "arguments are not valid JSON: unexpected end of input"}
	}
	return FieldError{Rule: "syntax", Message: "arguments are not valid JSON: " + err.Error()}
}

type slowDecoder struct {
	errs []FieldError
	bad  []string // paths that failed to decode: skip their validation
}

func (d *slowDecoder) fail(path, rule, msg string) {
	d.errs = append(d.errs, FieldError{Field: path, Rule: rule, Message: msg})
	d.bad = append(d.bad, path)
}

func (d *slowDecoder) typeError(path string, n *node, x any) {
	d.fail(path, "type", fmt.Sprintf("expected %s, got %s", jsonTypeName(n), describeJSON(x)))
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// assign stores the generic JSON value x into v (of n's type, or a pointer
// to it when n.ptr), recording every error.
func (d *slowDecoder) assign(v reflect.Value, x any, n *node, path string) {
	if x == nil {
		if n.ptr {
			v.SetZero()
			return
		}
		d.typeError(path, n, x)
		return
	}
	if n.ptr {
		pv := reflect.New(n.t)
		v.Set(pv)
		v = pv.Elem()
	}
	switch n.kind {
	case kString:
		s, ok := x.(string)
		if !ok {
			d.typeError(path, n, x)
			return
		}
		v.SetString(s)
	case kBool:
		b, ok := x.(bool)
		if !ok {
			d.typeError(path, n, x)
			return
		}
		v.SetBool(b)
	case kInt, kUint:
		num, ok := x.(json.Number)
		if !ok {
			d.typeError(path, n, x)
			return
		}
		d.assignInt(v, num, n, path)
	case kFloat:
		num, ok := x.(json.Number)
		if !ok {
			d.typeError(path, n, x)
			return
		}
		f, err := strconv.ParseFloat(string(num), n.bits)
		if err != nil {
			d.fail(path, "type", fmt.Sprintf("number %s is out of range for a %d-bit float", num, n.bits))
			return
		}
		v.SetFloat(f)
	case kSlice:
		arr, ok := x.([]any)
		if !ok {
			d.typeError(path, n, x)
			return
		}
		s := reflect.MakeSlice(n.t, len(arr), len(arr))
		for i, e := range arr {
			d.assign(s.Index(i), e, n.elem, path+"["+strconv.Itoa(i)+"]")
		}
		v.Set(s)
	case kMap:
		obj, ok := x.(map[string]any)
		if !ok {
			d.typeError(path, n, x)
			return
		}
		m := reflect.MakeMapWithSize(n.t, len(obj))
		keys := sortedKeys(obj)
		for _, k := range keys {
			ev := reflect.New(n.t.Elem()).Elem()
			d.assign(ev, obj[k], n.elem, path+"["+k+"]")
			m.SetMapIndex(reflect.ValueOf(k).Convert(n.t.Key()), ev)
		}
		v.Set(m)
	case kStruct:
		obj, ok := x.(map[string]any)
		if !ok {
			d.typeError(path, n, x)
			return
		}
		for _, k := range sortedKeys(obj) {
			f, ok := n.byName[k]
			if !ok {
				msg := "unknown field; this object has no fields"
				if n.names != "" {
					msg = "unknown field; expected one of: " + n.names
				}
				d.fail(join(path, k), "unknown_field", msg)
				continue
			}
			d.assign(v.Field(f.index), obj[k], f.node, join(path, k))
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// assignInt accepts any JSON number with an integral value (1, 1.0, 1e2),
// as JSON Schema's "integer" does, within the Go type's range.
func (d *slowDecoder) assignInt(v reflect.Value, num json.Number, n *node, path string) {
	lo, hi := intRange(n)
	if len(num) > 400 {
		d.fail(path, "type", fmt.Sprintf("expected an integer between %s and %s, got a number with %d characters", lo, hi, len(num)))
		return
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok || !r.IsInt() {
		d.fail(path, "type", fmt.Sprintf("expected an integer, got %s", num))
		return
	}
	i := r.Num()
	if i.Cmp(lo) < 0 || i.Cmp(hi) > 0 {
		d.fail(path, "type", fmt.Sprintf("expected an integer between %s and %s, got %s", lo, hi, num))
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
	}
	// A required pointer is not nullable: its schema has no "null" and the
	// validator rejects nil, so "or null" would mislead.
	if n.ptr && !n.rules.required {
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
		s := string(v)
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		return "number " + s
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
