package args

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"

	"github.com/swaggest/jsonschema-go"
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
	p.schemaOnce.Do(func() { p.schema, p.schemaErr = buildSchema(t, p) })
	return p.schema, p.schemaErr
}

// schemaBuilds counts schema reflections; tests use it to prove caching.
var schemaBuilds atomicCounter

type fieldKey struct {
	name string
	typ  reflect.Type
	tag  reflect.StructTag
}

func buildSchema(t reflect.Type, p *typePlan) (json.RawMessage, error) {
	schemaBuilds.add()
	// Index the plan's fields by what determines their rules: the Go
	// field's name, type and tags. Equal keys have equal plans.
	fields := map[fieldKey]*field{}
	var index func(n *node)
	index = func(n *node) {
		if n == nil {
			return
		}
		for _, f := range n.fields {
			sf := n.t.Field(f.index)
			fields[fieldKey{sf.Name, sf.Type, sf.Tag}] = f
			index(f.node)
		}
		index(n.elem)
	}
	index(p.root)

	var applyErr error
	r := jsonschema.Reflector{}
	s, err := r.Reflect(reflect.New(t).Elem().Interface(),
		jsonschema.InlineRefs,
		jsonschema.ProcessWithoutTags,
		func(rc *jsonschema.ReflectContext) { rc.SkipNonConstraints = true },
		jsonschema.InterceptProp(func(params jsonschema.InterceptPropParams) error {
			if !params.Processed {
				return nil
			}
			sf := params.Field
			f, ok := fields[fieldKey{sf.Name, sf.Type, sf.Tag}]
			if !ok {
				// Fields the plan skips (unexported, json:"-") never get here.
				applyErr = fmt.Errorf("args: %s: field %s has no plan: %w", t, sf.Name, ErrUnsupportedType)
				return applyErr
			}
			if err := applyField(params.PropertySchema, f); err != nil {
				applyErr = err
				return err
			}
			if f.required {
				params.ParentSchema.Required = append(params.ParentSchema.Required, f.name)
			}
			return nil
		}),
		jsonschema.InterceptSchema(func(params jsonschema.InterceptSchemaParams) (bool, error) {
			if !params.Processed {
				return false, nil
			}
			vt := params.Value.Type()
			for vt.Kind() == reflect.Pointer {
				vt = vt.Elem()
			}
			if vt.Kind() == reflect.Struct {
				closeObject(params.Schema)
			}
			return false, nil
		}),
	)
	if applyErr != nil {
		return nil, applyErr
	}
	if err != nil {
		return nil, fmt.Errorf("args: schema of %s: %w", t, err)
	}
	s.Type = (&jsonschema.Type{}).WithSimpleTypes(jsonschema.Object)
	s.Title = nil
	closeObject(&s)
	out, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("args: schema of %s: %w", t, err)
	}
	return out, nil
}

// closeObject makes an object schema strict and gives it a properties
// member even when it has no fields (providers require it).
func closeObject(s *jsonschema.Schema) {
	f := false
	s.AdditionalProperties = &jsonschema.SchemaOrBool{TypeBoolean: &f}
	if len(s.Properties) == 0 {
		s.WithExtraPropertiesItem("properties", map[string]any{})
	}
}

// applyField sets the property schema of one field from its plan.
func applyField(s *jsonschema.Schema, f *field) error {
	if f.consent != "" {
		*s = jsonschema.Schema{}
		s.WithType(jsonschema.String.Type())
		var c any = f.consent
		s.Const = &c
	} else if err := applyNode(s, f.node, f.node.rules.required); err != nil {
		return fmt.Errorf("args: field %q: %w", f.name, err)
	}
	s.Title = nil
	if f.desc != "" {
		d := f.desc
		s.Description = &d
	}
	if f.hasDef {
		var d any = f.def
		s.Default = &d
	}
	if f.hasEx {
		s.Examples = []any{f.example}
	}
	return nil
}

// applyNode writes the type and constraints of n into s, recursing into
// array items and map values. Keywords swaggest set from its own
// conventions are replaced: every constraint comes from the plan.
func applyNode(s *jsonschema.Schema, n *node, required bool) error {
	// Reset constraint keywords swaggest may have set (e.g. uint minimum).
	s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum = nil, nil, nil, nil
	s.Format, s.Pattern, s.Enum, s.Const = nil, nil, nil, nil
	s.Title, s.Default, s.Examples = nil, nil, nil
	s.MinLength, s.MaxLength, s.MinItems, s.MaxItems = 0, nil, 0, nil
	s.MinProperties, s.MaxProperties = 0, nil
	s.ExtraProperties = nil

	st := jsonType(n)
	if n.ptr && !required {
		s.Type = (&jsonschema.Type{}).WithSliceOfSimpleTypeValues(st, jsonschema.Null)
	} else {
		s.Type = (&jsonschema.Type{}).WithSimpleTypes(st)
	}
	r := n.rules
	extra := func(k string, v any) { s.WithExtraPropertiesItem(k, v) }
	switch n.kind {
	case kString:
		lo, hi, err := lengthBounds(r)
		if err != nil {
			return err
		}
		// required on a string value: the validator rejects "".
		if required && !n.ptr && lo < 1 && r.eq == nil && r.oneof == nil && r.format == "" {
			lo = 1
		}
		if lo > 0 {
			s.MinLength = lo
		}
		if hi != nil {
			s.MaxLength = hi
		}
		if r.eq != nil {
			var c any = *r.eq
			s.Const = &c
		}
		if r.oneof != nil {
			for _, v := range r.oneof {
				s.Enum = append(s.Enum, v)
			}
		}
		if r.format != "" {
			if err := applyFormat(s, r); err != nil {
				return err
			}
		}
	case kInt, kUint, kFloat:
		lo, hi := typeBounds(n)
		if r.min != nil {
			k := "minimum"
			if r.min.exclusive {
				k = "exclusiveMinimum"
			}
			extra(k, json.Number(r.min.param))
		} else if lo != "" {
			extra(lowKey(n), json.Number(lo))
		}
		if r.max != nil {
			k := "maximum"
			if r.max.exclusive {
				k = "exclusiveMaximum"
			}
			extra(k, json.Number(r.max.param))
		} else if hi != "" {
			extra(highKey(n), json.Number(hi))
		}
		if r.eq != nil {
			var c any = json.Number(*r.eq)
			s.Const = &c
		}
		if r.oneof != nil {
			for _, v := range r.oneof {
				s.Enum = append(s.Enum, json.Number(v))
			}
		}
		// required on a number value: the validator rejects 0.
		if required && !n.ptr && validate.Var(reflect.Zero(n.t).Interface(), ruleTag(r)) == nil {
			var zero any = 0
			s.Not = &jsonschema.SchemaOrBool{TypeObject: &jsonschema.Schema{Const: &zero}}
		}
	case kSlice, kMap:
		lo, hi, err := lengthBounds(r)
		if err != nil {
			return err
		}
		if r.eq != nil {
			v, _ := strconv.ParseInt(*r.eq, 10, 64)
			lo, hi = v, &v
		}
		if n.kind == kSlice {
			s.MinItems, s.MaxItems = lo, hi
			if s.Items == nil || s.Items.SchemaOrBool == nil || s.Items.SchemaOrBool.TypeObject == nil {
				return fmt.Errorf("items schema missing for %s: %w", n.t, ErrUnsupportedType)
			}
			return applyNode(s.Items.SchemaOrBool.TypeObject, n.elem, n.elem.rules.required)
		}
		s.MinProperties, s.MaxProperties = lo, hi
		if s.AdditionalProperties == nil || s.AdditionalProperties.TypeObject == nil {
			return fmt.Errorf("value schema missing for %s: %w", n.t, ErrUnsupportedType)
		}
		return applyNode(s.AdditionalProperties.TypeObject, n.elem, n.elem.rules.required)
	case kStruct:
		closeObject(s)
	}
	if n.rules.zeroInEnum {
		if s.Const != nil {
			s.Enum, s.Const = []any{*s.Const}, nil
		}
		if n.kind == kString {
			s.Enum = append(s.Enum, "")
		} else {
			s.Enum = append(s.Enum, json.Number("0"))
		}
	}
	if n.ptr && !required {
		// enum and const constrain every type: let null through.
		if s.Const != nil {
			s.Enum, s.Const = []any{*s.Const}, nil
		}
		if s.Enum != nil {
			s.Enum = append(s.Enum, nil)
		}
	}
	return nil
}

// ruleTag renders the rules other than required, to ask the validator
// whether they already exclude the zero value.
func ruleTag(r rules) string {
	var parts []string
	add := func(s string) { parts = append(parts, s) }
	if r.min != nil {
		if r.min.exclusive {
			add("gt=" + r.min.param)
		} else {
			add("gte=" + r.min.param)
		}
	}
	if r.max != nil {
		if r.max.exclusive {
			add("lt=" + r.max.param)
		} else {
			add("lte=" + r.max.param)
		}
	}
	if r.eq != nil {
		add("eq=" + *r.eq)
	}
	if r.oneof != nil {
		q := ""
		for i, v := range r.oneof {
			if i > 0 {
				q += " "
			}
			q += v
		}
		add("oneof=" + q)
	}
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ","
		}
		out += p
	}
	return out
}

func lengthBounds(r rules) (lo int64, hi *int64, err error) {
	if r.min != nil {
		v, _ := strconv.ParseInt(r.min.param, 10, 64)
		if r.min.exclusive {
			v++
		}
		lo = v
	}
	if r.max != nil {
		v, _ := strconv.ParseInt(r.max.param, 10, 64)
		if r.max.exclusive {
			v--
		}
		if v < 0 {
			return 0, nil, fmt.Errorf("rule lt=%s on a length can never pass: %w", r.max.param, ErrUnsupportedTag)
		}
		hi = &v
	}
	return lo, hi, nil
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

func jsonType(n *node) jsonschema.SimpleType {
	switch n.kind {
	case kString:
		return jsonschema.String
	case kBool:
		return jsonschema.Boolean
	case kInt, kUint:
		return jsonschema.Integer
	case kFloat:
		return jsonschema.Number
	case kSlice:
		return jsonschema.Array
	}
	return jsonschema.Object
}

// applyFormat maps a string format rule to JSON Schema.
func applyFormat(s *jsonschema.Schema, r rules) error {
	fr := formatPatterns[r.format]
	switch r.format {
	case "date-time":
		fr = dateTimeRule
	case "date":
		f := "date"
		s.Format = &f
		return nil
	}
	if fr == nil {
		return fmt.Errorf("format %q has no mapping: %w", r.format, ErrUnsupportedTag)
	}
	f, p := fr.format, fr.pattern
	s.Format, s.Pattern = &f, &p
	if fr.maxLen > 0 && (s.MaxLength == nil || *s.MaxLength > int64(fr.maxLen)) {
		m := int64(fr.maxLen)
		s.MaxLength = &m
	}
	return nil
}
