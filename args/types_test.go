package args

import (
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeVE decodes body into an A and returns its *ValidationError.
func decodeVE[A any](t *testing.T, body string) *ValidationError {
	t.Helper()
	_, err := Decode[A]([]byte(body), DecodeOptions{})
	require.Error(t, err)
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "want *ValidationError, got %T: %v", err, err)
	return ve
}

func propsOf(t *testing.T, typ reflect.Type) map[string]any {
	t.Helper()
	return schemaMap(t, typ)["properties"].(map[string]any)
}

type timeArgs struct {
	At    time.Time  `json:"at"`
	Due   *time.Time `json:"due" validate:"required"`
	Maybe *time.Time `json:"maybe"`
}

// time.Time: an RFC 3339 string, format date-time narrowed to one pattern;
// a bad string is a field error naming the field and the expected form.
func TestDecodeTimeTime(t *testing.T) {
	a, err := Decode[timeArgs]([]byte(`{"at":"2024-02-29T12:30:00.5+07:00","due":"2006-01-02T15:04:05Z"}`), DecodeOptions{})
	require.NoError(t, err)
	assert.True(t, a.At.Equal(time.Date(2024, 2, 29, 5, 30, 0, 5e8, time.UTC)))
	require.NotNil(t, a.Due)
	assert.Nil(t, a.Maybe)

	ve := decodeVE[timeArgs](t, `{"at":"yesterday","due":"2006-01-02t15:04:05z","maybe":"2016-12-31T23:59:60Z"}`)
	f := fieldsOf(ve)
	for _, k := range []string{"at", "due", "maybe"} {
		assert.Equal(t, "type", f[k].Rule, k)
		assert.Contains(t, f[k].Message, `expected an RFC 3339 date-time string such as "2006-01-02T15:04:05Z"`, k)
	}
	assert.Contains(t, f["at"].Message, `got string "yesterday"`)
	assert.Equal(t, "is required", fieldsOf(decodeVE[timeArgs](t, `{}`))["due"].Message)

	props := propsOf(t, reflect.TypeFor[timeArgs]())
	at := props["at"].(map[string]any)
	assert.Equal(t, "string", at["type"])
	assert.Equal(t, "date-time", at["format"])
	assert.Equal(t, dateTimeRule.pattern, at["pattern"])
	assert.Equal(t, []any{"string", "null"}, props["maybe"].(map[string]any)["type"])

	type reqTime struct {
		At time.Time `json:"at" validate:"required"`
	}
	_, err = SchemaFor[reqTime]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "use *time.Time")
}

type durationArgs struct {
	Every time.Duration   `json:"every"`
	Wait  *time.Duration  `json:"wait" validate:"required"`
	Steps []time.Duration `json:"steps"`
}

// time.Duration: a Go duration string ("1m30s") in arguments, the form a
// model writes and reads; schema and decoder share one pattern.
func TestDecodeDuration(t *testing.T) {
	a, err := Decode[durationArgs]([]byte(`{"every":"1m30s","wait":"1.5h","steps":["250ms","0","-2h45m","3µs"]}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, a.Every)
	assert.Equal(t, 90*time.Minute, *a.Wait)
	assert.Equal(t, []time.Duration{250 * time.Millisecond, 0, -(2*time.Hour + 45*time.Minute), 3 * time.Microsecond}, a.Steps)

	ve := decodeVE[durationArgs](t, `{"every":"5 minutes","wait":90,"steps":["1d","100000h"]}`)
	f := fieldsOf(ve)
	assert.Equal(t, `expected a duration string such as "1m30s" (numbers with units h, m, s, ms, us, ns), got string "5 minutes"`, f["every"].Message)
	assert.Equal(t, "expected duration string, got number 90", f["wait"].Message)
	assert.Equal(t, "type", f["steps[0]"].Rule)
	assert.Equal(t, "type", f["steps[1]"].Rule, "digit counts are capped so no value overflows")

	every := propsOf(t, reflect.TypeFor[durationArgs]())["every"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "string", "pattern": durationPattern}, every)
}

// min/max on a duration argument cannot be stated in its string schema:
// refused with the fix.
func TestSchemaDurationBoundsRefused(t *testing.T) {
	type bounded struct {
		D time.Duration `json:"d" validate:"max=1h"`
	}
	_, err := SchemaFor[bounded]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "bounded.D")
	assert.Contains(t, err.Error(), "timeout_seconds")
	// In a result a duration is an integer of nanoseconds, so bounds work.
	s, err := OutputSchemaFor[bounded]()
	require.NoError(t, err)
	assert.Contains(t, string(s), `"d":{"type":"integer","maximum":3600000000000}`)
}

type customArgs struct {
	Level  level     `json:"level" description:"How loud" default:"\"mid\""`
	PLevel *level    `json:"plevel"`
	RLevel *level    `json:"rlevel" validate:"required"`
	Color  hexColor  `json:"color"`
	Shout  upper     `json:"shout"`
	Span   span      `json:"span"`
	Panics panicky   `json:"panics"`
	Texts  []upper   `json:"texts"`
	Colors *hexColor `json:"colors" validate:"omitempty"`
}

// panicky panics while decoding: the panic is a field error, never a
// crash.
type panicky struct{}

func (*panicky) UnmarshalJSON([]byte) error { panic("boom") }
func (panicky) JSONSchema() json.RawMessage { return json.RawMessage(`{"type":"integer"}`) }

// Types with their own decoding: the type's schema (which may say what tags
// cannot: null, allOf/if/then) with the field's description and default
// merged in; decoding by the type, its errors and panics as field errors.
func TestCustomTypeSchemaAndDecode(t *testing.T) {
	props := propsOf(t, reflect.TypeFor[customArgs]())
	assert.Equal(t, map[string]any{"type": []any{"string", "null"}, "enum": []any{"low", "mid", "high", nil},
		"description": "How loud", "default": "mid"}, props["level"], "tag keywords replace the type's own")
	assert.Equal(t, map[string]any{"anyOf": []any{
		map[string]any{"type": []any{"string", "null"}, "enum": []any{"low", "mid", "high", nil}, "description": "type's own"},
		map[string]any{"type": "null"}}}, props["plevel"])
	assert.Contains(t, props["rlevel"], "not", "a required pointer excludes null even when the type's schema admits it")
	assert.Equal(t, map[string]any{"type": "string"}, props["shout"], "UnmarshalText without a schema method is a string")
	span := props["span"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"if": map[string]any{"required": []any{"to"}}, "then": map[string]any{"required": []any{"from"}}}}, span["allOf"])

	a, err := Decode[customArgs]([]byte(`{"level":"high","rlevel":null,"color":"#a0b0c0","shout":"hi","span":{"from":1,"to":2},"texts":["a","b"]}`), DecodeOptions{})
	require.Error(t, err, "rlevel is required")
	a, err = Decode[customArgs]([]byte(`{"level":"high","rlevel":"low","color":"#a0b0c0","shout":"hi","span":{"from":1,"to":2},"texts":["a","b"]}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, level{v: "high", set: true}, a.Level)
	assert.Equal(t, upper("HI"), a.Shout)
	assert.Equal(t, []upper{"A", "B"}, a.Texts)
	assert.Equal(t, big.NewInt(2), a.Span.To)

	ve := decodeVE[customArgs](t, `{"level":"loud","rlevel":"low","color":"red","shout":1,"span":{"to":2},"panics":1}`)
	f := fieldsOf(ve)
	assert.Equal(t, `invalid value: unknown level "loud" (want low, mid or high)`, f["level"].Message)
	assert.Equal(t, `invalid value "red": want #rrggbb in lower-case hex`, f["color"].Message)
	assert.Equal(t, "expected string, got number 1", f["shout"].Message)
	assert.Equal(t, "invalid value: to needs from", f["span"].Message)
	assert.Equal(t, "invalid value: the type's UnmarshalJSON panicked", f["panics"].Message)
	for _, fe := range ve.Errors {
		assert.Equal(t, "type", fe.Rule, fe.Field)
	}
}

// A type with UnmarshalJSON and no schema method is refused at schema time
// with the fix; a schema method on a plain type, or a schema with $ref, too.
func TestCustomTypeNeedsSchemaMethod(t *testing.T) {
	type noSchema struct {
		V jsonNoSchema `json:"v"`
	}
	_, err := SchemaFor[noSchema]()
	require.ErrorIs(t, err, ErrUnsupportedType)
	assert.Contains(t, err.Error(), "add a method `func (jsonNoSchema) JSONSchema() json.RawMessage`")
	type plain struct {
		V schemaOnly `json:"v"`
	}
	_, err = SchemaFor[plain]()
	require.ErrorIs(t, err, ErrUnsupportedType)
	assert.Contains(t, err.Error(), "remove it or add one")
	type withRef struct {
		V refSchema `json:"v"`
	}
	_, err = SchemaFor[withRef]()
	require.ErrorIs(t, err, ErrUnsupportedType)
	assert.Contains(t, err.Error(), `"$ref"`)
	type withTag struct {
		V level `json:"v" validate:"max=3"`
	}
	_, err = SchemaFor[withTag]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "states its own schema")
}

type jsonNoSchema struct{}

func (*jsonNoSchema) UnmarshalJSON([]byte) error { return nil }

type schemaOnly string

func (schemaOnly) JSONSchema() json.RawMessage { return json.RawMessage(`{"type":"string"}`) }

type refSchema struct{}

func (*refSchema) UnmarshalJSON([]byte) error { return nil }
func (refSchema) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"items":{"$ref":"#/$defs/x"}}`)
}

// Embedded structs are flattened exactly as encoding/json does: promoted
// fields, name conflicts by depth and tags, embedded pointers, an embedded
// struct with a json name as a nested object. Checked against
// encoding/json's own output and decoding.
func TestEmbeddedFlattenedAsEncodingJSON(t *testing.T) {
	checkFlatten[agreeEmbedded](t)
	checkFlatten[embedTricky](t)
	checkFlatten[embedTwice](t)

	props := propsOf(t, reflect.TypeFor[agreeEmbedded]())
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"id", "rank", "tag", "deep", "named", "note"}, keys, "Same is ambiguous at one depth: dropped")
	assert.Equal(t, float64(5), props["note"].(map[string]any)["maxLength"], "the shallower note wins")
	assert.ElementsMatch(t, []any{"id", "named"}, schemaMap(t, reflect.TypeFor[agreeEmbedded]())["required"])

	a, err := Decode[agreeEmbedded]([]byte(`{"id":"x","named":{"x":1},"rank":2}`), DecodeOptions{})
	require.NoError(t, err)
	require.NotNil(t, a.AgreeEmbedPtr, "a promoted field allocates its embedded pointer")
	assert.Equal(t, 2, a.Rank)
	ve := decodeVE[agreeEmbedded](t, `{"named":{"x":1},"rank":9,"Same":"s"}`)
	f := fieldsOf(ve)
	assert.Equal(t, "is required and must not be empty", f["id"].Message, "a promoted field's path is its JSON name")
	assert.Equal(t, "must be at most 3", f["rank"].Message)
	assert.Equal(t, "unknown_field", f["Same"].Rule)
}

type embedDeep struct {
	Name string `json:"name"`
	Z    int
}

type embedMid struct {
	embedDeep
	Name string // untagged at depth 1: loses to nothing at depth 0, beats depth 2
	Y    int    `json:"y"`
}

type EmbedTaggedWin struct {
	Y int `json:"y"` // tagged y at depth 1 beside embedMid's y at depth 1: tie, both dropped
}

type embedTricky struct {
	embedMid
	*EmbedTaggedWin
	Inner embedDeep `json:"inner"`
	Named embedDeep `json:"named_obj"`
	X     int       `json:"x,omitempty"`
}

type embedA struct{ V int }

type embedB struct {
	embedA
	B int
}

type embedC struct {
	embedA
	C int
}

// embedTwice reaches embedA through embedB and embedC at one depth: its V
// is ambiguous and dropped; Wrap is a nested object.
type embedTwice struct {
	embedB
	embedC
	Wrap struct{ embedA }
}

// checkFlatten compares the plan's fields of T with the keys encoding/json
// writes for a fully populated T, and Decode with json.Unmarshal on that
// JSON.
func checkFlatten[T any](t *testing.T) {
	t.Helper()
	typ := reflect.TypeFor[T]()
	p, err := planFor(typ)
	require.NoError(t, err)
	var names []string
	for _, f := range p.root.fields {
		names = append(names, f.name)
	}
	v := reflect.New(typ).Elem()
	fillNonZero(v, 0)
	raw, err := json.Marshal(v.Interface())
	require.NoError(t, err)
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &keys))
	var got []string
	for k := range keys {
		got = append(got, k)
	}
	assert.ElementsMatch(t, got, names, "%s: fields as encoding/json writes them (%s)", typ, raw)

	var want T
	require.NoError(t, json.Unmarshal(raw, &want))
	var mine T
	err = decodeInto(raw, &mine)
	require.NoError(t, err, "%s", raw)
	assert.Equal(t, want, mine, "%s: Decode and json.Unmarshal agree on %s", typ, raw)
}

func decodeInto[T any](raw []byte, dst *T) error {
	v, err := Decode[T](raw, DecodeOptions{})
	*dst = v
	return err
}

// fillNonZero sets every settable field reachable in v to a non-zero
// value (allocating pointers) that passes simple rules.
func fillNonZero(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() && v.CanSet() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			fillNonZero(v.Elem(), depth+1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() || v.Type().Field(i).Anonymous {
				fillNonZero(v.Field(i), depth+1)
			}
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString("x")
		}
	case reflect.Int, reflect.Int64:
		if v.CanSet() {
			v.SetInt(1)
		}
	}
}

// An embedded field hidden by encoding/json's rules that carries a
// validate tag would never see input: refused, naming it.
func TestEmbeddedHiddenTaggedFieldRefused(t *testing.T) {
	type base struct {
		ID string `json:"id" validate:"required"`
	}
	type outer struct {
		base
		ID string `json:"id"`
	}
	_, err := SchemaFor[outer]()
	require.ErrorIs(t, err, ErrEmbedded)
	assert.Contains(t, err.Error(), "base.ID")
	assert.Contains(t, err.Error(), "hides this field")
	type unexportedPtr struct {
		*embedDeep
	}
	_, err = SchemaFor[unexportedPtr]()
	require.ErrorIs(t, err, ErrEmbedded)
	assert.Contains(t, err.Error(), "embed it by value or export the type")
	_, err = OutputSchemaFor[unexportedPtr]()
	require.NoError(t, err, "results only read through the pointer")
}

type nestedValueArgs struct {
	Filter nestedFilter `json:"filter"`
	Opt    nestedOpt    `json:"opt"`
}

type nestedFilter struct {
	Q string `json:"q" validate:"required"`
}

type nestedOpt struct {
	Lo int `json:"lo" validate:"lte=3"`
}

// A struct value with its own rules: it is required by itself exactly when
// its zero value breaks them (an absent object decodes to that zero value);
// required on it is refused with that explanation in one line.
func TestNestedStructValueRequiredByItself(t *testing.T) {
	m := schemaMap(t, reflect.TypeFor[nestedValueArgs]())
	assert.Equal(t, []any{"filter"}, m["required"])
	ve := decodeVE[nestedValueArgs](t, `{}`)
	assert.Equal(t, "is required and must not be empty", fieldsOf(ve)["filter.q"].Message)
	_, err := Decode[nestedValueArgs]([]byte(`{"filter":{"q":"x"}}`), DecodeOptions{})
	require.NoError(t, err)

	type reqStruct struct {
		F nestedOpt `json:"f" validate:"required"`
	}
	_, err = SchemaFor[reqStruct]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.NotContains(t, err.Error(), "\n")
	assert.Contains(t, err.Error(), "use *args.nestedOpt for a required object")
	assert.Contains(t, err.Error(), "required by itself when its zero value breaks its fields' rules")
	type omitStruct struct {
		F nestedFilter `json:"f" validate:"omitempty"`
	}
	_, err = SchemaFor[omitStruct]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "use a pointer")
}

type anyArgs struct {
	Any  any                        `json:"any"`
	Need any                        `json:"need" validate:"required" description:"anything but null"`
	Raw  json.RawMessage            `json:"raw"`
	Raws map[string]json.RawMessage `json:"raws"`
}

// any and json.RawMessage: any JSON value; numbers keep their precision
// (json.Number), raw values are kept verbatim.
func TestDecodeAnyAndRawMessage(t *testing.T) {
	a, err := Decode[anyArgs]([]byte(`{"any":{"n":12345678901234567890123,"l":[1.5,null,"s"]},"need":0,"raw": [1, 2.50] ,"raws":{"x":{"a" : 1}}}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"n": json.Number("12345678901234567890123"), "l": []any{json.Number("1.5"), nil, "s"}}, a.Any)
	assert.Equal(t, json.Number("0"), a.Need)
	assert.Equal(t, json.RawMessage(`[1, 2.50]`), a.Raw)
	assert.Equal(t, json.RawMessage(`{"a" : 1}`), a.Raws["x"])

	ve := decodeVE[anyArgs](t, `{"need":null}`)
	assert.Equal(t, "is required and must not be null", fieldsOf(ve)["need"].Message)
	props := propsOf(t, reflect.TypeFor[anyArgs]())
	assert.Equal(t, map[string]any{}, props["any"])
	assert.Equal(t, map[string]any{"not": map[string]any{"type": "null"}, "description": "anything but null"}, props["need"])
}

type mapArgs struct {
	Structs map[string]nestedOpt         `json:"structs" validate:"max=2"`
	Lists   map[string][]int             `json:"lists" validate:"dive,max=2"`
	Times   map[string]time.Time         `json:"times"`
	Waits   map[string]time.Duration     `json:"waits"`
	Levels  map[string]level             `json:"levels"`
	Ptrs    map[string]*nestedOpt        `json:"ptrs"`
	Nested  map[string]map[string]string `json:"nested" validate:"dive,dive,min=1"`
}

// map[string]T for every supported T, with element paths "m[key]".
func TestDecodeMapsOfEveryType(t *testing.T) {
	a, err := Decode[mapArgs]([]byte(`{"structs":{"a":{"lo":1}},"lists":{"x":[1,2]},"times":{"t":"2006-01-02T15:04:05Z"},`+
		`"waits":{"w":"2s"},"levels":{"l":"low"},"ptrs":{"p":null,"q":{"lo":2}},"nested":{"o":{"i":"v"}}}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, nestedOpt{Lo: 1}, a.Structs["a"])
	assert.Equal(t, 2*time.Second, a.Waits["w"])
	assert.Nil(t, a.Ptrs["p"])
	assert.Equal(t, "v", a.Nested["o"]["i"])

	ve := decodeVE[mapArgs](t, `{"structs":{"a":{"lo":9}},"lists":{"x":[1,2,3]},"times":{"t":"now"},"waits":{"w":5},"nested":{"o":{"i":""}}}`)
	f := fieldsOf(ve)
	assert.Equal(t, "must be at most 3", f["structs[a].lo"].Message)
	assert.Equal(t, "must have at most 2 items", f["lists[x]"].Message)
	assert.Equal(t, "type", f["times[t]"].Rule)
	assert.Equal(t, "type", f["waits[w]"].Rule)
	assert.Equal(t, "must have at least 1 character", f["nested[o][i]"].Message)
}

type omitBoundArgs struct {
	Limit int     `json:"limit" validate:"omitempty,min=1,max=25"`
	Name  string  `json:"name" validate:"omitempty,min=3"`
	Mail  string  `json:"mail" validate:"omitempty,email"`
	Ratio float64 `json:"ratio" validate:"omitempty,gt=0.5"`
	Tags  []int   `json:"tags" validate:"omitempty,min=2"`
}

// omitempty with bounds on a value (common in the wild): the zero value or
// what the rules accept, stated with anyOf.
func TestOmitemptyWithBounds(t *testing.T) {
	props := propsOf(t, reflect.TypeFor[omitBoundArgs]())
	assert.Equal(t, map[string]any{"type": "integer", "anyOf": []any{
		map[string]any{"const": 0.0}, map[string]any{"minimum": 1.0, "maximum": 25.0}}}, props["limit"])
	assert.Equal(t, []any{map[string]any{"const": ""}, map[string]any{"minLength": 3.0}}, props["name"].(map[string]any)["anyOf"])
	assert.Equal(t, 2.0, props["tags"].(map[string]any)["minItems"], "an absent slice skips the rules; a sent one meets them")

	for _, ok := range []string{`{}`, `{"limit":0,"name":"","mail":"","ratio":0}`, `{"limit":1,"name":"abc","mail":"a@b.co","ratio":0.75,"tags":[1,2]}`} {
		_, err := Decode[omitBoundArgs]([]byte(ok), DecodeOptions{})
		require.NoError(t, err, ok)
	}
	ve := decodeVE[omitBoundArgs](t, `{"limit":26,"name":"ab","mail":"x","ratio":0.25,"tags":[]}`)
	assert.Len(t, ve.Errors, 5)

	type noFix struct {
		Tags []int `json:"tags" validate:"min=2"`
	}
	_, err := SchemaFor[noFix]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "add required, or omitempty to skip the rules when the field is absent")
}

// Invalid JSON is described as invalid JSON with the byte offset, never as
// "got null" or "got a boolean".
func TestDecodeInvalidJSONHasOffset(t *testing.T) {
	cases := map[string]string{
		`nul`:                         "at byte 3: unexpected end of input",
		`tru`:                         "at byte 3: unexpected end of input",
		`nulx`:                        "at byte 3: invalid character 'x' in literal null",
		`{"a":1`:                      "at byte 6: unexpected end of input",
		`[1,`:                         "at byte 3: unexpected end of input",
		`{} x`:                        "at byte 3: unexpected data after the top-level value",
		`{"query":"golang"}]`:         "at byte 18: unexpected data after the top-level value",
		`{"query":tru}`:               "at byte 12: invalid character '}' in literal true",
		`{"query":"a` + "\x01" + `"}`: "at byte 11: invalid character '\\x01' in string literal",
		`{"limit":01}`:                "at byte 10: invalid character '1' after object key:value pair",
		`{"limit":-}`:                 "at byte 10: invalid character '}' in numeric literal",
		`{"query":"\q"}`:              "at byte 11: invalid character 'q' in string escape code",
	}
	for body, want := range cases {
		ve := decodeErr(t, body)
		require.Len(t, ve.Errors, 1, body)
		assert.Equal(t, "syntax", ve.Errors[0].Rule, body)
		assert.Equal(t, "arguments are not valid JSON "+want, ve.Errors[0].Message, body)
	}
	// Valid JSON that is not an object is named as such.
	for body, want := range map[string]string{`null`: "got null", `true`: "got a boolean", `[1]`: "got an array"} {
		ve := decodeErr(t, body)
		assert.Equal(t, "type", ve.Errors[0].Rule)
		assert.Equal(t, "arguments must be a JSON object, "+want, ve.Errors[0].Message)
	}
}

type dupArgs struct {
	Q      string            `json:"q"`
	Inner  *nestedOpt        `json:"inner"`
	Labels map[string]string `json:"labels"`
	Any    any               `json:"any"`
	Raw    json.RawMessage   `json:"raw"`
	Span   span              `json:"span"`
	List   []nestedOpt       `json:"list"`
}

// Duplicate keys are rejected at every level (structs, maps, any values,
// raw values, a type's own JSON), each named by its path with rule
// duplicate_key, escaped spellings included.
func TestDecodeDuplicateKeysRejected(t *testing.T) {
	ve := decodeVE[dupArgs](t, `{"q":"a","q":"b","inner":{"lo":1,"lo":2},"labels":{"x":"1","\u0078":"2"},`+
		`"any":{"k":[{"z":1,"z":2}]},"raw":{"r":1,"r":1},"span":{"from":1,"from":1},"list":[{},{"lo":1,"lo":1}]}`)
	f := fieldsOf(ve)
	for _, path := range []string{"q", "inner.lo", "labels[x]", "any.k[0].z", "raw.r", "span.from", "list[1].lo"} {
		if assert.Contains(t, f, path) {
			assert.Equal(t, "duplicate_key", f[path].Rule, path)
			assert.Equal(t, dupMessage, f[path].Message, path)
		}
	}
	assert.Len(t, ve.Errors, 7)
	_, err := Decode[dupArgs]([]byte(`{"q":"a","Q":"b"}`), DecodeOptions{})
	require.Error(t, err, "a case variant is an unknown field, not a duplicate")
}

// Decode of valid input agrees with encoding/json (with UseNumber) on
// types both decode the same way.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`{"s":"a\u00e9\ud83d\ude00\n\"","n":-12,"f":1.5e-3,"l":["x",""],"m":{"k":"v"},"a":{"x":[1,{"y":null}]},"p":null}`,
		`{"s":"\ud800x\udc00","f":-0,"l":[],"m":{},"a":[],"p":{"s":"q"}}`,
		"{\"s\":\"d\u00e9j\u00e0 \xe6\x97\xa5\"}",
	} {
		var want, got plainArgs
		dec := json.NewDecoder(strings.NewReader(body))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&want), body)
		got, err := Decode[plainArgs]([]byte(body), DecodeOptions{})
		require.NoError(t, err, body)
		assert.Equal(t, want, got, body)
	}
}

// plainArgs decodes the same under Decode and encoding/json: no integer
// written as 1.0, no validate tags.
type plainArgs struct {
	S string            `json:"s"`
	N int               `json:"n"`
	F float64           `json:"f"`
	L []string          `json:"l"`
	M map[string]string `json:"m"`
	A any               `json:"a"`
	P *plainInner       `json:"p"`
}

type plainInner struct {
	S string `json:"s"`
}
