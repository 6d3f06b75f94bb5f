package valuesize

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// encodedLen is what bytes out has always been for a non-text value: the
// length of its encoding/json encoding without HTML escaping, 0 when it
// cannot be encoded.
func encodedLen(v any) int64 {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return 0
	}
	return int64(b.Len() - 1)
}

// Types whose encoding runs code or rules of their own, mixed into the
// random values so that the walk's hand-over to encoding/json is tested.
type (
	sizeNamedString string
	sizeNamedBytes  []byte
	sizeTextKey     string // MarshalText on a string-kind map key (ignored by encoding/json)
	sizeIntTextKey  int    // MarshalText on an integer map key (used)
	sizePtrMarshal  struct{ N int }
	sizeValMarshal  struct{ S string }
	sizeTextValue   struct{ S string }
	sizeZeroer      struct{ N int }
	sizeEmbedded    struct {
		Inner
		*sizeInner2
		N int `json:"n"`
	}
	sizeInner2 struct {
		N int // conflicts with Inner.N at the same depth: both dropped
		P string
	}
	Inner struct {
		N int
		M string `json:"m,omitempty"`
	}
	sizeQuoted struct {
		N int     `json:"n,string"`
		F float64 `json:",string"`
		S string  `json:"s,string"`
	}
	sizeZeroField struct {
		Z sizeZeroer `json:"z,omitzero"`
		T time.Time  `json:"t,omitzero"`
	}
)

func (k sizeTextKey) MarshalText() ([]byte, error) { return []byte("k:" + string(k)), nil }
func (k sizeIntTextKey) MarshalText() ([]byte, error) {
	return []byte("key-" + string(rune('a'+k%26))), nil
}
func (p *sizePtrMarshal) MarshalJSON() ([]byte, error) {
	if p.N < 0 {
		return nil, errors.New("negative")
	}
	return []byte(`{ "ptr" : ` + string(rune('0'+p.N%10)) + ` }`), nil
}
func (v sizeValMarshal) MarshalJSON() ([]byte, error) { return json.Marshal("<" + v.S + ">") }
func (v sizeTextValue) MarshalText() ([]byte, error)  { return []byte("text:" + v.S), nil }
func (z sizeZeroer) IsZero() bool                     { return z.N%2 == 0 }

// trickyRunes are the characters whose encoding differs from their bytes.
var trickyRunes = []rune{'a', 'é', '"', '\\', '\n', '\r', '\t', '\b', '\f', 0x01, 0x1f, 0x7f, '<', '>', '&', '\u2028', '\u2029', '😀', utf8Invalid}

const utf8Invalid = -1

func genString(t *rapid.T, label string) string {
	return rapid.OneOf(
		rapid.String(),
		rapid.Custom(func(t *rapid.T) string {
			rs := rapid.SliceOfN(rapid.SampledFrom(trickyRunes), 0, 12).Draw(t, "runes")
			var b []byte
			for _, r := range rs {
				if r == utf8Invalid {
					b = append(b, 0xff)
				} else {
					b = append(b, string(r)...)
				}
			}
			return string(b)
		}),
	).Draw(t, label)
}

func genFloat(t *rapid.T, label string) float64 {
	return rapid.OneOf(
		rapid.Float64(),
		rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 9.99e-7, 1e20, 1e21, 123456789e13, 1.5e300, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1), 3.4e38, 1.17e-38}),
	).Draw(t, label)
}

var sizeLeafTypes = []reflect.Type{
	reflect.TypeFor[bool](), reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[int64](),
	reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint64](), reflect.TypeFor[uintptr](),
	reflect.TypeFor[float32](), reflect.TypeFor[float64](), reflect.TypeFor[string](),
	reflect.TypeFor[sizeNamedString](), reflect.TypeFor[[]byte](), reflect.TypeFor[sizeNamedBytes](),
	reflect.TypeFor[json.Number](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[time.Time](),
	reflect.TypeFor[sizePtrMarshal](), reflect.TypeFor[sizeValMarshal](), reflect.TypeFor[sizeTextValue](),
	reflect.TypeFor[sizeEmbedded](), reflect.TypeFor[sizeQuoted](), reflect.TypeFor[sizeZeroField](),
	reflect.TypeFor[any](), reflect.TypeFor[error](), reflect.TypeFor[chan int](), reflect.TypeFor[complex128](),
}

var sizeFieldNames = []string{"A", "B", "Name", "Value", "X"}
var sizeTags = []string{"", "", "-", "-,", "a", "a,omitempty", ",omitempty", ",omitzero", "b,omitempty,omitzero", "x<y", "bad\"name", "ünï", "A"}

// genType draws a type: a leaf, or a pointer, slice, array, map or struct
// of drawn types.
func genType(t *rapid.T, depth int) reflect.Type {
	kinds := 1
	if depth > 0 {
		kinds = 7
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 1:
		return reflect.PointerTo(genType(t, depth-1))
	case 2:
		return reflect.SliceOf(genType(t, depth-1))
	case 3:
		return reflect.ArrayOf(rapid.IntRange(0, 3).Draw(t, "len"), genType(t, depth-1))
	case 4:
		key := rapid.SampledFrom([]reflect.Type{
			reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[uint8](),
			reflect.TypeFor[sizeTextKey](), reflect.TypeFor[sizeIntTextKey](),
		}).Draw(t, "key")
		return reflect.MapOf(key, genType(t, depth-1))
	case 5, 6:
		n := rapid.IntRange(0, 4).Draw(t, "fields")
		var fields []reflect.StructField
		used := map[string]bool{}
		for i := range n {
			name := rapid.SampledFrom(sizeFieldNames).Draw(t, "name")
			if used[name] {
				name += string(rune('A' + i))
			}
			used[name] = true
			tag := rapid.SampledFrom(sizeTags).Draw(t, "tag")
			fields = append(fields, reflect.StructField{Name: name, Type: genType(t, depth-1), Tag: reflect.StructTag(`json:"` + tag + `"`)})
		}
		return reflect.StructOf(fields)
	}
	return rapid.SampledFrom(sizeLeafTypes).Draw(t, "leaf")
}

// genValue draws a value of typ.
func genValue(t *rapid.T, typ reflect.Type, depth int) reflect.Value {
	v := reflect.New(typ).Elem()
	if rapid.IntRange(0, 9).Draw(t, "zero") == 0 {
		return v
	}
	switch typ {
	case reflect.TypeFor[json.Number]():
		v.SetString(rapid.SampledFrom([]string{"0", "12", "-1.5e10", "1E+2", "", "abc", "01"}).Draw(t, "number"))
		return v
	case reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(rapid.SampledFrom([]string{`{ "a" : [1, 2] }`, `"x"`, `null`, ``, `{bad`, " \n\t7 "}).Draw(t, "raw")))
		return v
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Unix(rapid.Int64Range(-1e12, 1e12).Draw(t, "unix"), rapid.Int64Range(0, 999999999).Draw(t, "nsec")).UTC()))
		return v
	case reflect.TypeFor[sizePtrMarshal]():
		v.Field(0).SetInt(rapid.Int64Range(-2, 20).Draw(t, "n"))
		return v
	case reflect.TypeFor[sizeEmbedded]():
		e := sizeEmbedded{Inner: Inner{N: 1, M: genString(t, "m")}, N: 3}
		if rapid.Bool().Draw(t, "inner2") {
			e.sizeInner2 = &sizeInner2{N: 2, P: genString(t, "p")}
		}
		v.Set(reflect.ValueOf(e))
		return v
	case reflect.TypeFor[sizeZeroer]():
		v.Field(0).SetInt(rapid.Int64Range(0, 5).Draw(t, "n"))
		return v
	}
	switch typ.Kind() {
	case reflect.Bool:
		v.SetBool(rapid.Bool().Draw(t, "bool"))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(rapid.Int64().Draw(t, "int"))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(rapid.Uint64().Draw(t, "uint"))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(genFloat(t, "float"))
	case reflect.String:
		v.SetString(genString(t, "string"))
	case reflect.Complex128:
		v.SetComplex(complex(1, 2))
	case reflect.Chan:
		v.Set(reflect.MakeChan(typ, 0))
	case reflect.Interface:
		if typ == reflect.TypeFor[error]() {
			v.Set(reflect.ValueOf(errors.New(genString(t, "err"))))
			break
		}
		dyn := genType(t, max(depth-1, 0))
		v.Set(genValue(t, dyn, depth-1))
	case reflect.Pointer:
		v.Set(genValue(t, typ.Elem(), depth-1).Addr())
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(genString(t, "bytes")))
			break
		}
		n := rapid.IntRange(0, 4).Draw(t, "len")
		s := reflect.MakeSlice(typ, n, n)
		for i := range n {
			s.Index(i).Set(genValue(t, typ.Elem(), depth-1))
		}
		v.Set(s)
	case reflect.Array:
		for i := range typ.Len() {
			v.Index(i).Set(genValue(t, typ.Elem(), depth-1))
		}
	case reflect.Map:
		m := reflect.MakeMap(typ)
		for range rapid.IntRange(0, 4).Draw(t, "entries") {
			m.SetMapIndex(genValue(t, typ.Key(), 0), genValue(t, typ.Elem(), depth-1))
		}
		v.Set(m)
	case reflect.Struct:
		for i := range typ.NumField() {
			if f := v.Field(i); f.CanSet() {
				f.Set(genValue(t, typ.Field(i).Type, depth-1))
			}
		}
	}
	return v
}

// TestValueSize_EqualsEncoding: bytes out of a non-text value is exactly
// the length of its encoding/json encoding (0 when it cannot be encoded),
// for random types and values — structs with random tags, pointers,
// slices, arrays, maps, interfaces, strings with escapes and invalid
// UTF-8, floats at the format cutoffs, NaN, and types with MarshalJSON,
// MarshalText, IsZero, embedded fields and ",string" — held both for the
// value itself and for a pointer to it (which makes its parts
// addressable, so pointer-receiver methods run).
func TestValueSize_EqualsEncoding(t *testing.T) {
	rec := New()
	rapid.Check(t, func(t *rapid.T) {
		typ := genType(t, 3)
		v := genValue(t, typ, 3)
		x := v.Interface()
		switch x.(type) {
		case nil, string, []byte, json.RawMessage: // text: its length, by design; nil: 0
			return
		}
		require.Equal(t, encodedLen(x), rec.Size(x), "value %#v", x)
		p := reflect.New(typ)
		p.Elem().Set(v)
		require.Equal(t, encodedLen(p.Interface()), rec.Size(p.Interface()), "pointer to %#v", x)
	})
}

// TestValueSize_CommonShapesNeedNoEncoding: a struct of plain fields is
// measured by the walk alone (no allocation), which is what keeps the
// middleware cheap for struct values.
func TestValueSize_CommonShapesNeedNoEncoding(t *testing.T) {
	rec := New()
	type hit struct {
		Title string   `json:"title"`
		Score float64  `json:"score,omitempty"`
		Tags  []string `json:"tags"`
	}
	type out struct {
		Hits  []hit          `json:"hits"`
		Total int            `json:"total"`
		Next  *string        `json:"next,omitempty"`
		Meta  map[string]any `json:"meta"`
	}
	v := out{Hits: []hit{{Title: "a \"quoted\" <title>", Score: 0.5, Tags: []string{"x"}}, {Title: "b\u2028"}}, Total: 2, Meta: map[string]any{"took_ms": 12.5, "ok": true}}
	require.Equal(t, encodedLen(v), rec.Size(v))
	var x any = out{Hits: v.Hits, Total: 2}
	allocs := testing.AllocsPerRun(100, func() { _ = rec.Size(x) })
	require.Zero(t, allocs, "sizing a plain struct allocates")
}

// TestValueSize_Cycle: a pointer cycle, which encoding/json refuses, is
// size 0 as before (and does not exhaust the stack).
func TestValueSize_Cycle(t *testing.T) {
	rec := New()
	type node struct {
		Name string
		Next *node
	}
	n := &node{Name: "a"}
	n.Next = n
	require.Zero(t, rec.Size(n))
	deep := &node{Name: "end"}
	for range 2000 {
		deep = &node{Name: "n", Next: deep}
	}
	require.Equal(t, encodedLen(deep), rec.Size(deep))
}

// FuzzValueSize: for any JSON document decoded into an interface value
// (maps, slices, strings, float64s, booleans, nulls), bytes out equals the
// length of its encoding.
func FuzzValueSize(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-7,"x\u2028"],"b":null}`, `[true,false,{}]`, `"\ud800"`, `1e400`, `{"k":{"k":{"k":[]}}}`} {
		f.Add([]byte(s))
	}
	rec := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		if _, text := v.(string); text {
			v = []any{v} // a top-level string is text, sized by its length
		}
		require.Equal(t, encodedLen(v), rec.Size(v))
	})
}
