package args

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Result types for the output agreement property; together they use every
// supported type in results.

type outInner struct {
	N    int      `json:"n" validate:"min=1"` // a plain constraint in a result
	Tags []string `json:"tags"`
}

type outEmbed struct {
	E1 string `json:"e1" validate:"required"`
}

// OutEmbedPtr is embedded through a pointer; its fields are absent when
// the pointer is nil.
type OutEmbedPtr struct {
	P int `json:"p" validate:"lte=3"`
}

type outAll struct {
	Name   string               `json:"name" validate:"required,max=5"`
	Count  int                  `json:"count" validate:"min=1"`
	OptCnt int                  `json:"opt_cnt,omitempty" validate:"min=1"`
	Ratio  float64              `json:"ratio" validate:"gte=0,lte=1"`
	F32    float32              `json:"f32"`
	Flag   bool                 `json:"flag" validate:"required"`
	PStr   *string              `json:"pstr" validate:"omitempty,min=2"`
	PStr2  *string              `json:"pstr2" validate:"min=2"` // nil is null in a result
	PReq   *int                 `json:"preq" validate:"required"`
	POmit  *int                 `json:"pomit,omitempty"`
	Items  []string             `json:"items" validate:"max=3,dive,min=1"`
	Must   []int                `json:"must" validate:"required"`
	OmitS  []int                `json:"omits,omitempty" validate:"min=2"`
	ZeroS  []int                `json:"zeros,omitzero"`
	Counts map[string]int       `json:"counts" validate:"dive,gte=0"`
	Inner  outInner             `json:"inner"`
	PInner *outInner            `json:"pinner"`
	List   []outInner           `json:"list"`
	ByKey  map[string]*outInner `json:"by_key"`
	When   time.Time            `json:"when"`
	WhenZ  time.Time            `json:"when_z,omitzero"`
	Every  time.Duration        `json:"every" validate:"gte=1s,lte=1h"`
	Wait   *time.Duration       `json:"wait"`
	Any    any                  `json:"any"`
	AnyReq any                  `json:"any_req" validate:"required"`
	Raw    json.RawMessage      `json:"raw"`
	Level  level                `json:"level"`
	Color  hexColor             `json:"color,omitempty"`
	Span   *span                `json:"span"`
	Mail   string               `json:"mail" validate:"omitempty,email"`
	Kind   string               `json:"kind" validate:"oneof=a b"`
	outEmbed
	*OutEmbedPtr
	Grid   [][]int `json:"grid" validate:"dive,dive,gte=0"`
	PSlice *[]int  `json:"pslice,omitempty"`
	Small  int8    `json:"small" validate:"omitempty,gt=5"`
	Req    outReq  `json:"req" validate:"required"`
}

// outReq: required on a struct value is fine in a result (it is present).
type outReq struct {
	On bool `json:"on"`
}

type outCase struct {
	name string
	typ  reflect.Type
}

func outCases() []outCase {
	return []outCase{
		{"struct", reflect.TypeFor[outAll]()},
		{"pointer", reflect.TypeFor[*outAll]()},
		{"slice", reflect.TypeFor[[]outInner]()},
		{"map", reflect.TypeFor[map[string]int]()},
		{"string", reflect.TypeFor[string]()},
		{"int", reflect.TypeFor[int]()},
		{"float", reflect.TypeFor[float64]()},
		{"bool", reflect.TypeFor[bool]()},
		{"ptrslice", reflect.TypeFor[[]*int]()},
		{"duration", reflect.TypeFor[time.Duration]()},
		{"time", reflect.TypeFor[time.Time]()},
		{"any", reflect.TypeFor[any]()},
		{"raw", reflect.TypeFor[json.RawMessage]()},
		{"custom", reflect.TypeFor[level]()},
		{"ptrtoslice", reflect.TypeFor[*[]string]()},
		{"empty", reflect.TypeFor[struct{}]()},
	}
}

// TestOutputAgreementValidateVsSchema: for generated Go values of every
// supported result type, ValidateOutput accepts exactly when the JSON
// encoding/json writes for the value is valid against OutputSchemaOf
// (santhosh-tekuri/jsonschema, draft 2020-12, format assertions on); a
// value encoding/json cannot write is rejected.
func TestOutputAgreementValidateVsSchema(t *testing.T) {
	for _, c := range outCases() {
		t.Run(c.name, func(t *testing.T) {
			raw, err := OutputSchemaOf(c.typ)
			require.NoError(t, err)
			s := jsonSchemaValidator(t, raw)
			p, err := outputPlanFor(c.typ)
			require.NoError(t, err)
			acc, rej := 0, 0
			rapid.Check(t, func(rt *rapid.T) {
				g := &outGen{t: rt, careful: rapid.Bool().Draw(rt, "careful")}
				v := g.value(c.typ, p.root, 0)
				verr := ValidateOutputOf(c.typ, v.Interface())
				var ve *ValidationError
				if verr != nil && !errors.As(verr, &ve) {
					rt.Fatalf("ValidateOutput returned a non-validation error: %v", verr)
				}
				b, merr := json.Marshal(v.Interface())
				if merr != nil {
					if verr == nil {
						rt.Fatalf("ValidateOutput accepted %#v, which encoding/json cannot write: %v", v.Interface(), merr)
					}
					rej++
					return
				}
				accepts, ok := schemaAccepts(s, b)
				require.True(rt, ok, "encoding/json wrote invalid JSON? %s", b)
				if accepts != (verr == nil) {
					rt.Fatalf("disagreement on %s\nschema accepts: %v\nValidateOutput: %v\nschema: %s", b, accepts, verr, raw)
				}
				if accepts {
					acc++
				} else {
					rej++
				}
			})
			t.Logf("%s: %d accepted, %d rejected", c.name, acc, rej)
			require.Positive(t, acc, "generator never produced an accepted value")
			if c.name == "struct" || c.name == "pointer" || c.name == "slice" {
				require.Positive(t, rej, "generator never produced a rejected value")
			}
		})
	}
}

// outGen generates Go values for a result plan: careful values meet their
// rules; wild ones probe every bound and what encoding/json cannot write.
type outGen struct {
	t       *rapid.T
	careful bool
}

func (g *outGen) value(typ reflect.Type, n *node, depth int) reflect.Value {
	t := g.t
	v := reflect.New(typ).Elem()
	if n.ptr {
		if !(g.careful && n.rules.required) && rapid.IntRange(0, 5).Draw(t, "nilptr") == 0 {
			return v
		}
		e := g.value(typ.Elem(), &node{t: n.t, kind: n.kind, bits: n.bits, elem: n.elem, fields: n.fields, custom: n.custom, rules: n.rules}, depth)
		p := reflect.New(typ.Elem())
		p.Elem().Set(e)
		v.Set(p)
		return v
	}
	switch n.kind {
	case kSlice, kMap, kStruct:
	default:
		if g.careful {
			// Leaves: draw until the value meets its rules.
			for range 10 {
				l := g.leaf(typ, n)
				c := &checker{out: true}
				if c.check(l, n); len(c.errs) == 0 {
					return l
				}
			}
		}
		return g.leaf(typ, n)
	}
	r := &n.rules
	switch n.kind {
	case kSlice:
		if !(g.careful && r.required) && rapid.IntRange(0, 4).Draw(t, "nilslice") == 0 {
			return v
		}
		l := g.count(n)
		s := reflect.MakeSlice(typ, l, l)
		for i := 0; i < l; i++ {
			s.Index(i).Set(g.value(typ.Elem(), n.elem, depth+1))
		}
		v.Set(s)
	case kMap:
		if !(g.careful && r.required) && rapid.IntRange(0, 4).Draw(t, "nilmap") == 0 {
			return v
		}
		l := g.count(n)
		m := reflect.MakeMap(typ)
		for i := 0; i < l; i++ {
			m.SetMapIndex(reflect.ValueOf(string(rune('a'+i))).Convert(typ.Key()), g.value(typ.Elem(), n.elem, depth+1))
		}
		v.Set(m)
	case kStruct:
		if depth > 3 {
			return v
		}
		for _, f := range n.fields {
			if rapid.IntRange(0, 6).Draw(t, "zero:"+f.name) == 0 && !g.careful {
				continue // leave the zero value
			}
			fv := fieldAlloc(v, f.index)
			fv.Set(g.value(f.typ, f.node, depth+1))
		}
		// Sometimes leave embedded pointers nil.
		for i := 0; i < typ.NumField(); i++ {
			sf := typ.Field(i)
			if sf.Anonymous && sf.Type.Kind() == reflect.Pointer && rapid.Bool().Draw(t, "nilembed") {
				v.Field(i).SetZero()
			}
		}
	}
	return v
}

// leaf draws a string, number, bool, time, any, raw or custom value.
func (g *outGen) leaf(typ reflect.Type, n *node) reflect.Value {
	t := g.t
	v := reflect.New(typ).Elem()
	switch n.kind {
	case kString:
		v.SetString(g.str(n))
	case kBool:
		v.SetBool(rapid.Bool().Draw(t, "bool"))
	case kInt, kUint, kFloat, kDuration:
		g.number(v, n)
	case kTime:
		v.Set(reflect.ValueOf(g.time()))
	case kAny:
		samples := []any{nil, "s", json.Number("12345678901234567890"), 1.5, true, map[string]any{"a": []any{1, nil}}, []any{}, (*int)(nil), json.RawMessage(`{"x":1}`), []int(nil)}
		if !g.careful {
			samples = append(samples, math.NaN(), json.RawMessage(`{`), make(chan int))
		}
		x := rapid.SampledFrom(samples).Draw(t, "any")
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case kRaw:
		samples := []string{"", `{"a":[1,2]}`, ` 1 `, `null`, `"s"`}
		if !g.careful {
			samples = append(samples, "{", "nul", " ")
		}
		s := rapid.SampledFrom(samples).Draw(t, "raw")
		if s != "" {
			v.SetBytes([]byte(s))
		}
	case kCustom:
		os := reflect.Zero(typ).Interface().(outSampler)
		samples := os.outGood()
		if !g.careful {
			samples = append(samples, os.outBad()...)
		}
		v.Set(reflect.ValueOf(rapid.SampledFrom(samples).Draw(t, "custom")))
	}
	return v
}

func (g *outGen) count(n *node) int {
	r := &n.rules
	lo, hi := 0, 3
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
	if !g.careful {
		lo, hi = max(lo-1, 0), hi+1
	}
	if hi > lo+3 {
		hi = lo + 3
	}
	return rapid.IntRange(lo, hi).Draw(g.t, "count")
}

func (g *outGen) str(n *node) string {
	t, r := g.t, &n.rules
	var cands []string
	if r.oneof != nil {
		cands = append(cands, r.oneof.strs...)
	}
	if r.format != nil {
		cands = append(cands, formatGood[formatKey(r.format)]...)
		if !g.careful {
			cands = append(cands, formatPool[formatKey(r.format)]...)
		}
	}
	if len(cands) == 0 {
		lo, hi := 0, 4
		if r.min != nil {
			lo = r.min.length
		}
		if r.max != nil {
			hi = r.max.length
		}
		if r.required && lo == 0 {
			lo = 1
		}
		if !g.careful {
			lo, hi = max(lo-1, 0), hi+1
		}
		l := rapid.IntRange(lo, min(hi, lo+4)).Draw(t, "len")
		pool := []string{"a", "é", "日", "😀", "<", "&"}
		if !g.careful {
			pool = append(pool, "\xff", "\xe6\x97")
		}
		var b strings.Builder
		for i := 0; i < l; i++ {
			b.WriteString(rapid.SampledFrom(pool).Draw(t, "piece"))
		}
		return b.String()
	}
	if !g.careful || r.zeroOK {
		cands = append(cands, "", "x")
	}
	return rapid.SampledFrom(cands).Draw(t, "str")
}

func (g *outGen) number(v reflect.Value, n *node) {
	t, r := g.t, &n.rules
	var cands []*big.Rat
	add := func(s string) {
		x, ok := new(big.Rat).SetString(s)
		if !ok {
			return
		}
		for _, d := range []int64{-1, 0, 1} {
			cands = append(cands, new(big.Rat).Add(x, big.NewRat(d, 1)))
		}
		if n.kind == kFloat {
			cands = append(cands, new(big.Rat).Add(x, big.NewRat(1, 4)), new(big.Rat).Sub(x, big.NewRat(1, 4)))
		}
	}
	add("0")
	add("3")
	for _, ru := range []*rule{r.min, r.max, r.eq} {
		if ru != nil {
			if n.kind == kDuration {
				add(ru.nanos)
			} else {
				add(ru.param)
			}
		}
	}
	if r.oneof != nil {
		for _, x := range r.oneof.strs {
			add(x)
		}
	}
	if n.kind == kInt || n.kind == kUint {
		lo, hi := intRange(n)
		add(lo.String())
		add(hi.String())
	}
	x := rapid.SampledFrom(cands).Draw(t, "num")
	switch n.kind {
	case kInt, kDuration:
		lo, hi := intRange(&node{kind: kInt, bits: 64})
		if n.kind == kInt {
			lo, hi = intRange(n)
		}
		i := new(big.Int).Quo(x.Num(), x.Denom())
		if i.Cmp(lo) < 0 || i.Cmp(hi) > 0 {
			i = big.NewInt(0)
		}
		v.SetInt(i.Int64())
	case kUint:
		lo, hi := intRange(n)
		i := new(big.Int).Quo(x.Num(), x.Denom())
		if i.Cmp(lo) < 0 || i.Cmp(hi) > 0 {
			i = big.NewInt(0)
		}
		v.SetUint(i.Uint64())
	case kFloat:
		f, _ := x.Float64()
		if !g.careful {
			f = rapid.SampledFrom([]float64{f, f, f, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.MaxFloat64}).Draw(t, "special")
		}
		v.SetFloat(f)
	}
}

func (g *outGen) time() time.Time {
	good := []time.Time{
		{},
		time.Date(2024, 2, 29, 12, 30, 0, 500, time.UTC),
		time.Date(2006, 1, 2, 15, 4, 5, 0, time.FixedZone("X", 7*3600)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("Y", -(23*3600+59*60))),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	if g.careful {
		return rapid.SampledFrom(good).Draw(g.t, "time")
	}
	bad := []time.Time{
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2006, 1, 2, 15, 4, 5, 0, time.FixedZone("Z", 24*3600)),
		time.Date(2006, 1, 2, 15, 4, 5, 0, time.FixedZone("S", 3600+30)),
	}
	return rapid.SampledFrom(append(good, bad...)).Draw(g.t, "time")
}

// outSampler is implemented by the custom test types that write
// themselves: values whose JSON their schema accepts, and values they
// cannot write.
type outSampler interface {
	outGood() []any
	outBad() []any
}

func (level) outGood() []any { return []any{level{}, level{v: "mid", set: true}} }
func (level) outBad() []any  { return nil }

func (hexColor) outGood() []any { return []any{hexColor(""), hexColor("#0a0b0c")} }
func (hexColor) outBad() []any  { return []any{hexColor("red")} }

func (span) outGood() []any { return []any{span{}, span{From: big.NewInt(1), To: big.NewInt(-5)}} }
func (span) outBad() []any  { return nil }

// TestOutputSchemaResultTypes pins the output schema of each kind of
// result: non-struct results, *T like T, durations as nanoseconds,
// nullable collections, optional omitempty fields.
func TestOutputSchemaResultTypes(t *testing.T) {
	cases := map[reflect.Type]string{
		reflect.TypeFor[int]():             `{"type":"integer"}`,
		reflect.TypeFor[*int]():            `{"type":"integer"}`,
		reflect.TypeFor[string]():          `{"type":"string"}`,
		reflect.TypeFor[bool]():            `{"type":"boolean"}`,
		reflect.TypeFor[[]string]():        `{"type":["array","null"],"items":{"type":"string"}}`,
		reflect.TypeFor[map[string]int]():  `{"type":["object","null"],"additionalProperties":{"type":"integer"}}`,
		reflect.TypeFor[time.Duration]():   `{"type":"integer"}`,
		reflect.TypeFor[any]():             `{}`,
		reflect.TypeFor[json.RawMessage](): `{}`,
		reflect.TypeFor[time.Time]():       `{"type":"string","format":"date-time","pattern":` + string(jsonQuote(dateTimeRule.pattern)) + `}`,
	}
	for typ, want := range cases {
		got, err := OutputSchemaOf(typ)
		require.NoError(t, err, typ.String())
		assert.JSONEq(t, want, string(got), typ.String())
	}
	type res struct {
		N     int            `json:"n" validate:"min=1"`
		Opt   string         `json:"opt,omitempty"`
		Tags  []string       `json:"tags"`
		Must  []string       `json:"must" validate:"required"`
		Wait  time.Duration  `json:"wait" validate:"lte=1m"`
		Ptr   *int           `json:"ptr"`
		Meta  map[string]any `json:"meta,omitempty"`
		Extra string         `json:"-"`
	}
	got, err := OutputSchemaFor[*res]()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{
		"n":{"type":"integer","minimum":1},
		"opt":{"type":"string"},
		"tags":{"type":["array","null"],"items":{"type":"string"}},
		"must":{"type":"array","items":{"type":"string"}},
		"wait":{"type":"integer","maximum":60000000000},
		"ptr":{"type":["integer","null"]},
		"meta":{"type":"object","additionalProperties":{}}
	},"required":["n","tags","must","wait","ptr"],"additionalProperties":false}`, string(got))
}

// A result field with min=1 is a constraint the value must meet; the
// zero-value rule of arguments does not apply to results.
func TestOutputNotHeldToInputRules(t *testing.T) {
	type res struct {
		N    int      `json:"n" validate:"min=1"`
		On   bool     `json:"on" validate:"required"`
		Obj  outReq   `json:"obj" validate:"required"`
		List []string `json:"list" validate:"min=1"`
	}
	_, err := SchemaFor[res]()
	require.ErrorIs(t, err, ErrUnsupportedTag, "as arguments these tags are refused")
	_, err = OutputSchemaFor[res]()
	require.NoError(t, err)
	require.NoError(t, ValidateOutput(res{N: 1, On: true, List: []string{"x"}}))
	require.NoError(t, ValidateOutput(res{N: 1, On: true}), "a nil slice is null, which min does not constrain")
	err = ValidateOutput(res{N: 0, On: false, List: []string{}})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	f := fieldsOf(ve)
	assert.Equal(t, "must be at least 1", f["n"].Message)
	assert.Equal(t, "is required: must be true", f["on"].Message)
	assert.Equal(t, "must have at least 1 item", f["list"].Message)
	assert.Len(t, ve.Errors, 3)
}

// A nil *T success is JSON null: refused for a struct (the schema is
// T's, not nullable), accepted for a slice.
func TestOutputNilPointerResult(t *testing.T) {
	err := ValidateOutput((*outInner)(nil))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, ve.Errors[0].Message, "nil *args.outInner")
	require.NoError(t, ValidateOutput((*[]string)(nil)))
	require.NoError(t, ValidateOutput(nil), "an untyped nil is null, the schema of any")
	require.NoError(t, ValidateOutput(&outInner{N: 2}))
}

// Values encoding/json cannot write are violations with their path.
func TestOutputUnwritableValues(t *testing.T) {
	type res struct {
		F   float64         `json:"f"`
		At  time.Time       `json:"at"`
		Raw json.RawMessage `json:"raw"`
		Any any             `json:"any"`
		C   hexColor        `json:"c"`
	}
	err := ValidateOutput(res{F: math.NaN(), At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Raw: json.RawMessage("{"), Any: math.Inf(1), C: "red"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	f := fieldsOf(ve)
	for _, k := range []string{"f", "at", "raw", "any", "c"} {
		assert.Equal(t, "type", f[k].Rule, k)
	}
	assert.Len(t, ve.Errors, 5)
}

// Output paths are JSON paths through slices, maps and promoted fields.
func TestOutputErrorPaths(t *testing.T) {
	v := outAll{Name: "toolong", Count: 1, Flag: true, PReq: new(int), Must: []int{}, Kind: "a",
		List: []outInner{{N: 1}, {N: 0}}, ByKey: map[string]*outInner{"k": {N: -1}},
		Every: time.Second, AnyReq: 1, OutEmbedPtr: &OutEmbedPtr{P: 9}, Req: outReq{}}
	err := ValidateOutput(v)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	f := fieldsOf(ve)
	assert.Equal(t, "must have at most 5 characters", f["name"].Message)
	assert.Equal(t, "must be at least 1", f["list[1].n"].Message)
	assert.Equal(t, "must be at least 1", f["by_key[k].n"].Message)
	assert.Equal(t, "must be at most 3", f["p"].Message)
	assert.Equal(t, "is required and must not be empty", f["e1"].Message)
	assert.Equal(t, "must be at least 1", f["inner.n"].Message)
}

// Output types with their own MarshalJSON need the schema method; a
// pointer-receiver MarshalJSON is refused.
func TestOutputCustomMarshalers(t *testing.T) {
	type noSchema struct{ V jsonOnly }
	_, err := OutputSchemaFor[noSchema]()
	require.ErrorIs(t, err, ErrUnsupportedType)
	assert.Contains(t, err.Error(), "JSONSchema() json.RawMessage")
	type ptrRecv struct{ V ptrMarshal }
	_, err = OutputSchemaFor[ptrRecv]()
	require.ErrorIs(t, err, ErrUnsupportedType)
	assert.Contains(t, err.Error(), "value receiver")
	type withConsent struct {
		C Consent[agreePhrase] `json:"c"`
	}
	_, err = OutputSchemaFor[withConsent]()
	require.ErrorIs(t, err, ErrUnsupportedType)
}

type jsonOnly struct{}

func (jsonOnly) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type ptrMarshal struct{}

func (*ptrMarshal) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }
