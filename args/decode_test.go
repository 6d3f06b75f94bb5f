package args

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

type filterArgs struct {
	Min int `json:"min" validate:"gte=0,lte=10"`
}

type searchArgs struct {
	Query    string            `json:"query" validate:"required,min=3,max=50" description:"Search terms"`
	Limit    int               `json:"limit" validate:"gte=0,lte=100"`
	Domain   string            `json:"domain" validate:"required,oneof=com cn"`
	Score    *float64          `json:"score" validate:"omitempty,gt=0,lte=1"`
	Tags     []string          `json:"tags" validate:"max=3,dive,min=1"`
	Filter   filterArgs        `json:"filter"`
	Labels   map[string]string `json:"labels" validate:"max=2,dive,max=5"`
	Deep     *filterArgs       `json:"deep"`
	NoTag    string
	internal string
}

func decodeErr(t *testing.T, body string) *ValidationError {
	t.Helper()
	_, err := Decode[searchArgs]([]byte(body), DecodeOptions{})
	require.Error(t, err)
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "want *ValidationError, got %T: %v", err, err)
	return ve
}

func fieldsOf(ve *ValidationError) map[string]FieldError {
	m := map[string]FieldError{}
	for _, fe := range ve.Errors {
		m[fe.Field] = fe
	}
	return m
}

func TestDecodeValid(t *testing.T) {
	a, err := Decode[searchArgs]([]byte(`{"query":"golang","limit":5,"domain":"com","score":0.5,"tags":["a"],"filter":{"min":2},"labels":{"k":"v"},"deep":{"min":3},"NoTag":"x"}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, "golang", a.Query)
	assert.Equal(t, 5, a.Limit)
	require.NotNil(t, a.Score)
	assert.Equal(t, 0.5, *a.Score)
	assert.Equal(t, []string{"a"}, a.Tags)
	assert.Equal(t, 2, a.Filter.Min)
	assert.Equal(t, map[string]string{"k": "v"}, a.Labels)
	require.NotNil(t, a.Deep)
	assert.Equal(t, 3, a.Deep.Min)
	assert.Equal(t, "x", a.NoTag)
}

func TestDecodeUnknownFieldRejected(t *testing.T) {
	ve := decodeErr(t, `{"query":"golang","domain":"com","extra":1}`)
	require.Len(t, ve.Errors, 1)
	assert.Equal(t, "extra", ve.Errors[0].Field)
	assert.Equal(t, "unknown_field", ve.Errors[0].Rule)
	assert.Contains(t, ve.Errors[0].Message, "expected one of: query, limit")
}

func TestDecodeUnknownFieldNested(t *testing.T) {
	ve := decodeErr(t, `{"query":"golang","domain":"com","filter":{"min":1,"max":2},"deep":{"x":true}}`)
	f := fieldsOf(ve)
	assert.Equal(t, "unknown_field", f["filter.max"].Rule)
	assert.Equal(t, "unknown_field", f["deep.x"].Rule)
	assert.Len(t, ve.Errors, 2)
}

func TestDecodeCaseMismatchIsUnknown(t *testing.T) {
	// encoding/json would match "QUERY" to Query; the schema would not.
	ve := decodeErr(t, `{"QUERY":"golang","query":"golang","domain":"com"}`)
	f := fieldsOf(ve)
	assert.Equal(t, "unknown_field", f["QUERY"].Rule)
	assert.Len(t, ve.Errors, 1)
}

func TestDecodeTypeMismatchNamesField(t *testing.T) {
	ve := decodeErr(t, `{"query":"golang","domain":"com","limit":"ten","filter":{"min":true},"tags":[1]}`)
	f := fieldsOf(ve)
	assert.Equal(t, "type", f["limit"].Rule)
	assert.Equal(t, `expected integer, got string "ten"`, f["limit"].Message)
	assert.Equal(t, "expected integer, got boolean true", f["filter.min"].Message)
	assert.Equal(t, "expected string, got number 1", f["tags[0]"].Message)
	assert.Len(t, ve.Errors, 3, "a type error must not also yield a validation error for the same field")
}

type requiredPtrArgs struct {
	Count *int     `json:"count" validate:"required,gte=1"`
	Ratio *float64 `json:"ratio" validate:"omitempty,gt=0"`
}

func TestDecodeTypeMismatchRequiredPointerNotNullable(t *testing.T) {
	// A required pointer field is not nullable (its schema has no "null"),
	// so the message must not offer null; an optional one may.
	_, err := Decode[requiredPtrArgs]([]byte(`{"count":"three","ratio":"half"}`), DecodeOptions{})
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "want *ValidationError, got %T: %v", err, err)
	f := fieldsOf(ve)
	assert.Equal(t, `expected integer, got string "three"`, f["count"].Message)
	assert.Equal(t, `expected number or null, got string "half"`, f["ratio"].Message)
	assert.Len(t, ve.Errors, 2)

	_, err = Decode[requiredPtrArgs]([]byte(`{"count":null}`), DecodeOptions{})
	require.True(t, errors.As(err, &ve), "want *ValidationError, got %T: %v", err, err)
	assert.Equal(t, "required", fieldsOf(ve)["count"].Rule)
}

func TestDecodeNullRejectedForValueFields(t *testing.T) {
	ve := decodeErr(t, `{"query":null,"domain":"com","tags":null}`)
	f := fieldsOf(ve)
	assert.Equal(t, "expected string, got null", f["query"].Message)
	assert.Equal(t, "expected array of string, got null", f["tags"].Message)
}

func TestDecodeNullAllowedForPointers(t *testing.T) {
	a, err := Decode[searchArgs]([]byte(`{"query":"golang","domain":"com","score":null,"deep":null}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Nil(t, a.Score)
	assert.Nil(t, a.Deep)
}

func TestDecodeIntegralNumbersForIntegers(t *testing.T) {
	a, err := Decode[searchArgs]([]byte(`{"query":"golang","domain":"com","limit":1.0e1}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, 10, a.Limit)
	ve := decodeErr(t, `{"query":"golang","domain":"com","limit":1.5}`)
	assert.Equal(t, "expected an integer, got 1.5", fieldsOf(ve)["limit"].Message)
}

func TestDecodeRootMustBeObject(t *testing.T) {
	cases := map[string]string{
		"":       "arguments are empty",
		"  \n":   "arguments are empty",
		"null":   "got null",
		"[]":     "got an array",
		`"x"`:    "got a string",
		"42":     "got a number",
		"true":   "got a boolean",
		"\x00{}": "not valid JSON at byte 0",
	}
	for body, want := range cases {
		ve := decodeErr(t, body)
		require.Len(t, ve.Errors, 1, body)
		assert.Equal(t, "", ve.Errors[0].Field)
		assert.Contains(t, ve.Errors[0].Message, want, body)
	}
}

func TestDecodeSyntaxError(t *testing.T) {
	for _, body := range []string{`{"query":`, `{"query" "x"}`, `{} {}`, `{"a":1,}`} {
		ve := decodeErr(t, body)
		require.Len(t, ve.Errors, 1, body)
		assert.Equal(t, "syntax", ve.Errors[0].Rule, body)
		assert.Contains(t, ve.Errors[0].Message, "not valid JSON", body)
	}
}

func TestDecodeSizeCapBeforeDecoding(t *testing.T) {
	body := `{"query":"` + strings.Repeat("a", 100) + `"}`
	_, err := Decode[searchArgs]([]byte(body), DecodeOptions{MaxBytes: 50})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "too_large", ve.Errors[0].Rule)
	assert.Contains(t, ve.Errors[0].Message, "limit is 50 bytes")
	// Even invalid JSON is refused for size first: nothing is parsed.
	_, err = Decode[searchArgs]([]byte(strings.Repeat("{", DefaultMaxBytes+1)), DecodeOptions{})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "too_large", ve.Errors[0].Rule)
}

func TestDecodeDepthCapBeforeDecoding(t *testing.T) {
	body := `{"tags":` + strings.Repeat("[", 10) + strings.Repeat("]", 10) + `}`
	_, err := Decode[searchArgs]([]byte(body), DecodeOptions{MaxDepth: 5})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Errors, 1)
	assert.Equal(t, "too_deep", ve.Errors[0].Rule)
	// Unbalanced, deeply nested garbage is refused for depth, not parsed.
	_, err = Decode[searchArgs]([]byte(strings.Repeat("{\"a\":", 100000)), DecodeOptions{})
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "too_deep", ve.Errors[0].Rule)
}

func TestDecodeAllViolationsAtOnce(t *testing.T) {
	ve := decodeErr(t, `{"query":"ab","limit":101,"domain":"org","score":0,"tags":["a","b","c","d"],"filter":{"min":-1},"labels":{"a":"123456"},"bogus":1,"deep":{"min":"x"}}`)
	f := fieldsOf(ve)
	want := map[string]string{
		"bogus":      "unknown field; expected one of: query, limit, domain, score, tags, filter, labels, deep, NoTag",
		"deep.min":   `expected integer, got string "x"`,
		"query":      "must have at least 3 characters",
		"limit":      "must be at most 100",
		"domain":     "must be one of: com, cn",
		"score":      "must be greater than 0",
		"tags":       "must have at most 3 items",
		"filter.min": "must be at least 0",
		"labels[a]":  "must have at most 5 characters",
	}
	for path, msg := range want {
		if assert.Contains(t, f, path) {
			assert.Equal(t, msg, f[path].Message, path)
		}
	}
	assert.Len(t, ve.Errors, len(want))
}

func TestDecodeRequiredMessages(t *testing.T) {
	ve := decodeErr(t, `{}`)
	f := fieldsOf(ve)
	assert.Equal(t, "is required and must not be empty", f["query"].Message)
	assert.Equal(t, "required", f["query"].Rule)
	assert.Equal(t, "is required and must not be empty", f["domain"].Message)
}

func TestFailureResultCarriesFieldList(t *testing.T) {
	ve := decodeErr(t, `{"query":"ab","domain":"com"}`)
	r := Failure[int](ve)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, false, m["success"])
	assert.Equal(t, string(result.ValidationError), m["error_type"])
	data, ok := m["error_data"].([]any)
	require.True(t, ok, "error_data must be the field list: %s", b)
	require.Len(t, data, 1)
	assert.Equal(t, map[string]any{"field": "query", "rule": "min", "message": "must have at least 3 characters"}, data[0])
}

func TestValidateReportsJSONNames(t *testing.T) {
	err := Validate(&searchArgs{Query: "ab", Domain: "com"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Errors, 1)
	assert.Equal(t, "query", ve.Errors[0].Field)
	require.NoError(t, Validate(searchArgs{Query: "abc", Domain: "cn"}))
	assert.ErrorIs(t, Validate(42), ErrNotStruct)
}

func TestDecodeBadTypeIsNotValidationError(t *testing.T) {
	type bad struct {
		IP string `json:"ip" validate:"ipv4"`
	}
	_, err := Decode[bad]([]byte(`{}`), DecodeOptions{})
	require.Error(t, err)
	var ve *ValidationError
	assert.False(t, errors.As(err, &ve))
	assert.ErrorIs(t, err, ErrUnsupportedTag)
	assert.Contains(t, err.Error(), "bad.IP")
	assert.Contains(t, err.Error(), `"ipv4"`)
}

// DecodeOptions.Validate names each negative cap; Decode refuses such
// options with that error (not a *ValidationError: the caller's mistake,
// not the arguments') instead of silently applying the default.
func TestDecode_NegativeCapsRefusedNotDefaulted(t *testing.T) {
	type A struct {
		X int `json:"x"`
	}
	err := DecodeOptions{MaxBytes: -1, MaxDepth: -2}.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "args: DecodeOptions.MaxBytes is -1; expected zero (DefaultMaxBytes) or a positive number of bytes")
	assert.Contains(t, err.Error(), "args: DecodeOptions.MaxDepth is -2; expected zero (DefaultMaxDepth) or a positive number of levels")
	require.NoError(t, DecodeOptions{}.Validate())

	_, err = Decode[A]([]byte(`{"x":1}`), DecodeOptions{MaxBytes: -1})
	require.EqualError(t, err, "args: DecodeOptions.MaxBytes is -1; expected zero (DefaultMaxBytes) or a positive number of bytes")
	var ve *ValidationError
	assert.NotErrorAs(t, err, &ve)
	_, err = Decode[A]([]byte(`{"x":1}`), DecodeOptions{MaxDepth: -1})
	require.EqualError(t, err, "args: DecodeOptions.MaxDepth is -1; expected zero (DefaultMaxDepth) or a positive number of levels")
	a, err := Decode[A]([]byte(`{"x":1}`), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, a.X)
}
