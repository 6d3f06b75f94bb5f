package args

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func schemaMap(t *testing.T, typ reflect.Type) map[string]any {
	t.Helper()
	raw, err := SchemaOf(typ)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

func TestSchemaRootObjectStrict(t *testing.T) {
	m := schemaMap(t, reflect.TypeFor[searchArgs]())
	assert.Equal(t, "object", m["type"])
	assert.Equal(t, false, m["additionalProperties"])
	assert.ElementsMatch(t, []any{"query", "domain"}, m["required"])
	props := m["properties"].(map[string]any)
	assert.Len(t, props, 9)
	for _, nested := range []string{"filter", "deep"} {
		assert.Equal(t, false, props[nested].(map[string]any)["additionalProperties"], nested)
	}
}

func TestSchemaEmptyStructHasProperties(t *testing.T) {
	raw, err := SchemaFor[agreeEmpty]()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{},"additionalProperties":false}`, string(raw))
}

func TestSchemaNoRefsInlined(t *testing.T) {
	for _, c := range agreeCases() {
		raw, err := SchemaOf(c.typ)
		require.NoError(t, err)
		assert.NotContains(t, string(raw), `"$ref"`, c.name)
		assert.NotContains(t, string(raw), `"definitions"`, c.name)
		assert.NotContains(t, string(raw), `"$defs"`, c.name)
	}
}

func TestSchemaNoNullNoiseForPlainSlices(t *testing.T) {
	props := schemaMap(t, reflect.TypeFor[agreeCollections]())["properties"].(map[string]any)
	assert.Equal(t, "array", props["tags"].(map[string]any)["type"])
	assert.Equal(t, "object", props["labels"].(map[string]any)["type"])
	assert.Equal(t, []any{"array", "null"}, props["pair"].(map[string]any)["type"], "pointer fields are nullable")
	assert.Equal(t, "object", props["pinner"].(map[string]any)["type"], "required pointer is not nullable")
}

func TestSchemaTagMapping(t *testing.T) {
	strs := schemaMap(t, reflect.TypeFor[agreeStrings]())["properties"].(map[string]any)
	nums := schemaMap(t, reflect.TypeFor[agreeNumbers]())["properties"].(map[string]any)
	cols := schemaMap(t, reflect.TypeFor[agreeCollections]())["properties"].(map[string]any)
	get := func(m map[string]any, k string) map[string]any { return m[k].(map[string]any) }
	assert.Equal(t, 2.0, get(strs, "name")["minLength"])
	assert.Equal(t, 5.0, get(strs, "name")["maxLength"])
	assert.Equal(t, 3.0, get(strs, "code")["minLength"])
	assert.Equal(t, 3.0, get(strs, "code")["maxLength"])
	assert.Equal(t, 2.0, get(strs, "gt")["minLength"], "gt=1 on a string is minLength 2")
	assert.Equal(t, 3.0, get(strs, "gt")["maxLength"], "lt=4 on a string is maxLength 3")
	assert.Equal(t, "abc", get(strs, "fixed")["const"])
	assert.Equal(t, []any{"com", "cn", "a b"}, get(strs, "domain")["enum"])
	assert.Equal(t, "email", get(strs, "email")["format"])
	assert.Equal(t, "uuid", get(strs, "id")["format"])
	assert.Equal(t, "uri", get(strs, "link")["format"])
	assert.Equal(t, "date-time", get(strs, "when")["format"])
	assert.Equal(t, "date", get(strs, "day")["format"])
	assert.Equal(t, "DO_IT", get(strs, "confirm")["const"])
	assert.Equal(t, -3.0, get(nums, "count")["exclusiveMinimum"])
	assert.Equal(t, 7.0, get(nums, "count")["exclusiveMaximum"])
	assert.Equal(t, map[string]any{"const": 0.0}, get(nums, "count")["not"], "required int rejects 0")
	assert.Equal(t, -1.5, get(nums, "ratio")["minimum"])
	assert.Equal(t, []any{0.0, 2.0, 4.0}, get(nums, "pick")["enum"], "oneof on ints is a numeric enum")
	assert.Equal(t, 0.0, get(nums, "exact")["const"])
	assert.Equal(t, -128.0, get(nums, "small")["minimum"])
	assert.Equal(t, 127.0, get(nums, "small")["maximum"])
	assert.Equal(t, 3.0, get(cols, "tags")["maxItems"])
	assert.Equal(t, 1.0, get(get(cols, "tags"), "items")["minLength"], "dive puts element rules in items")
	assert.Equal(t, 2.0, get(cols, "labels")["maxProperties"])
	assert.Equal(t, []any{"a", "b"}, get(get(cols, "labels"), "additionalProperties")["enum"])
}

func TestSchemaDescriptionDefaultExample(t *testing.T) {
	type withExtras struct {
		Limit *int     `json:"limit" validate:"omitempty,gte=1,lte=50" default:"10" example:"20" description:"Max results"`
		Tags  []string `json:"tags" default:"[\"a\"]"`
		Mode  string   `json:"mode" validate:"omitempty,oneof=fast slow" default:"fast"`
	}
	props := schemaMap(t, reflect.TypeFor[withExtras]())["properties"].(map[string]any)
	limit := props["limit"].(map[string]any)
	assert.Equal(t, 10.0, limit["default"], "default is a JSON number, not a string")
	assert.Equal(t, []any{20.0}, limit["examples"])
	assert.Equal(t, "Max results", limit["description"])
	assert.Equal(t, []any{"a"}, props["tags"].(map[string]any)["default"])
	assert.Equal(t, "fast", props["mode"].(map[string]any)["default"])
}

func TestSchemaBadDefaultIsError(t *testing.T) {
	type badDefault struct {
		Limit *int `json:"limit" validate:"omitempty,gte=1,lte=50" default:"100"`
	}
	_, err := SchemaFor[badDefault]()
	require.ErrorIs(t, err, ErrBadTagValue)
	type notNumber struct {
		Limit int `json:"limit" default:"ten"`
	}
	_, err = SchemaFor[notNumber]()
	require.ErrorIs(t, err, ErrBadTagValue)
}

func TestSchemaUnsupportedTagIsError(t *testing.T) {
	type ipArgs struct {
		Addr string `json:"addr" validate:"required,ipv4"`
	}
	_, err := SchemaFor[ipArgs]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	for _, want := range []string{"ipArgs", "Addr", `"ipv4"`} {
		assert.Contains(t, err.Error(), want)
	}
	type custom struct {
		X string `json:"x" validate:"is-awesome"`
	}
	_, err = SchemaFor[custom]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "is-awesome")
	type orTag struct {
		X string `json:"x" validate:"email|uuid"`
	}
	_, err = SchemaFor[orTag]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	type swaggestTag struct {
		X string `json:"x" minLength:"3"`
	}
	_, err = SchemaFor[swaggestTag]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "minLength")
}

func TestSchemaZeroValueRule(t *testing.T) {
	type optionalMin struct {
		Name string `json:"name" validate:"min=3"`
	}
	_, err := SchemaFor[optionalMin]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "reject the zero value")
	type ptrNoOmit struct {
		Name *string `json:"name" validate:"min=3"`
	}
	_, err = SchemaFor[ptrNoOmit]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "start them with omitempty")
	type reqBool struct {
		On bool `json:"on" validate:"required"`
	}
	_, err = SchemaFor[reqBool]()
	require.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "*bool")
}

func TestSchemaUnsupportedTypes(t *testing.T) {
	type rec struct {
		Kids []rec `json:"kids"`
	}
	_, err := SchemaFor[rec]()
	assert.ErrorIs(t, err, ErrRecursiveType)
	type withStringer struct {
		X fmt.Stringer `json:"x"`
	}
	_, err = SchemaFor[withStringer]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
	assert.Contains(t, err.Error(), "use any (interface{})")
	type withBytes struct {
		B []byte `json:"b"`
	}
	_, err = SchemaFor[withBytes]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
	type withIntKeys struct {
		M map[int]string `json:"m"`
	}
	_, err = SchemaFor[withIntKeys]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
	type withChan struct {
		C chan int `json:"c"`
	}
	_, err = SchemaFor[withChan]()
	assert.ErrorIs(t, err, ErrUnsupportedType)
	_, err = SchemaOf(reflect.TypeFor[int]())
	assert.ErrorIs(t, err, ErrNotStruct)
}

func TestSchemaCachedNoSecondReflection(t *testing.T) {
	type cachedArgs struct {
		Q string `json:"q" validate:"required"`
	}
	first, err := SchemaFor[cachedArgs]()
	require.NoError(t, err)
	plansBefore, schemasBefore := planBuilds.get(), schemaBuilds.get()
	for i := 0; i < 10; i++ {
		again, err := SchemaFor[cachedArgs]()
		require.NoError(t, err)
		assert.Equal(t, string(first), string(again))
		_, err = Decode[cachedArgs]([]byte(`{"q":"x"}`), DecodeOptions{})
		require.NoError(t, err)
	}
	assert.Equal(t, plansBefore, planBuilds.get(), "no new plan was built")
	assert.Equal(t, schemasBefore, schemaBuilds.get(), "no new schema was reflected")
	allocs := testing.AllocsPerRun(100, func() { _, _ = SchemaFor[cachedArgs]() })
	assert.Zero(t, allocs, "a cached schema costs no allocation")
}

func TestSchemaStringLengthCountsRunes(t *testing.T) {
	type runes struct {
		S string `json:"s" validate:"max=2"`
	}
	_, err := Decode[runes]([]byte(`{"s":"日本"}`), DecodeOptions{})
	require.NoError(t, err, "two runes (six bytes) fit max=2")
	s := jsonSchemaValidator(t, mustSchema[runes](t))
	ok, _ := schemaAccepts(s, []byte(`{"s":"日本"}`))
	assert.True(t, ok)
	_, err = Decode[runes]([]byte(`{"s":"日本語"}`), DecodeOptions{})
	require.Error(t, err)
	ok, _ = schemaAccepts(s, []byte(`{"s":"日本語"}`))
	assert.False(t, ok)
}

func mustSchema[A any](t *testing.T) []byte {
	raw, err := SchemaFor[A]()
	require.NoError(t, err)
	return raw
}

var _ = strings.Contains

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }
