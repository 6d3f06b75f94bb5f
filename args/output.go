package args

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// OutputSchemaFor returns the JSON Schema of what encoding/json writes for
// a value of type T, checked by ValidateOutput; see OutputSchemaOf.
func OutputSchemaFor[T any]() (json.RawMessage, error) {
	return OutputSchemaOf(reflect.TypeFor[T]())
}

// OutputSchemaOf returns the JSON Schema (draft 2020-12) of what
// encoding/json writes for a value of type t — a tool's result. Any
// supported type may be a result, not only a struct: a pointer *T has the
// schema of T (a nil *T is written as null, which that schema rejects
// unless T is a slice, map, any or json.RawMessage), a slice or map at the
// top may be null (a nil one is written so), time.Duration is an integer of
// nanoseconds. Validate tags are constraints the value must meet (the rules
// for arguments that exist because an omitted argument decodes to its zero
// value do not apply); a field with json omitempty or omitzero, or promoted
// through an embedded pointer, may be absent and is not required unless its
// validate tag says required; a nil slice, map or pointer field is written
// as null and accepted as such unless required. The schema is built once
// per type and cached; the returned bytes are shared and must not be
// modified.
func OutputSchemaOf(t reflect.Type) (json.RawMessage, error) {
	p, err := outputPlanFor(t)
	if err != nil {
		return nil, err
	}
	return p.schemaJSON()
}

// ValidateOutput checks v, a tool's result, against the validate tags of
// its type as OutputSchemaOf(reflect.TypeOf(v)) states them, judging the
// JSON encoding/json writes for v: it returns nil exactly when that JSON
// is valid against that schema, and otherwise a *ValidationError whose
// fields are JSON paths ("items[2].name"). Values encoding/json cannot
// write (NaN or infinite floats, times outside years 0–9999, invalid
// json.RawMessage, a type whose MarshalJSON fails) are violations too. A
// nil v (no type) is JSON null and passes. A nil pointer is null too: it
// passes only when its element type's schema admits null (slices, maps,
// any, json.RawMessage), so a nil *T for a struct T is refused — return a
// failure instead. A type that cannot be planned yields that error (see
// OutputSchemaOf), never a *ValidationError.
//
// When the declared result type differs from v's dynamic type (a result
// declared as any, or as an interface), use ValidateOutputOf with the
// declared type.
func ValidateOutput(v any) error {
	if v == nil {
		return nil
	}
	return ValidateOutputOf(reflect.TypeOf(v), v)
}

// ValidateOutputOf is ValidateOutput for a value declared as type t: v
// must be a t (or nil, for a pointer, slice, map or interface t), and it is
// judged against OutputSchemaOf(t). For an interface t (any) the schema
// admits every JSON value, so only what encoding/json cannot write is
// refused.
func ValidateOutputOf(t reflect.Type, v any) error {
	p, err := outputPlanFor(t)
	if err != nil {
		return err
	}
	rv := reflect.New(t).Elem()
	if v != nil {
		x := reflect.ValueOf(v)
		if !x.Type().AssignableTo(t) {
			return fmt.Errorf("args: ValidateOutputOf(%s, value of type %s): the value is not a %s: %w", t, x.Type(), t, ErrUnsupportedType)
		}
		rv.Set(x)
	}
	c := &checker{out: true}
	n := p.root
	if n.ptr {
		if rv.IsNil() {
			if !nullableRoot(n) {
				return &ValidationError{result: true, Errors: []FieldError{{Rule: "required", Message: fmt.Sprintf("the result is a nil %s, written as null; a successful result must hold a value (return a failure instead)", t)}}}
			}
			return nil
		}
		rv = rv.Elem()
		root := *n
		root.ptr = false
		n = &root
	}
	c.check(rv, n)
	if len(c.errs) > 0 {
		return &ValidationError{result: true, Errors: c.errs}
	}
	return nil
}

// nullableRoot reports whether the schema of a result type admits null.
func nullableRoot(n *node) bool {
	switch n.kind {
	case kSlice, kMap, kAny, kRaw:
		return true
	}
	return false
}
