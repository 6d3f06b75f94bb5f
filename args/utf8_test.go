package args

import (
	"encoding/json"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawArgs has a json.RawMessage field: its bytes are kept verbatim, so
// they too must be UTF-8.
type rawArgs struct {
	R json.RawMessage `json:"r"`
	S string          `json:"s"`
}

// Decode refuses JSON text that is not UTF-8 (RFC 8259) instead of
// replacing each bad byte with U+FFFD as encoding/json does: one
// invalid_utf8 error naming the field that holds the bytes and the byte
// offset, never quoting the bytes.
func TestDecodeRefusesInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		body, field string
		offset      int
	}{
		{"{\"s\":\"a\xffb\"}", "s", 7},
		{"{\"s\":\"ok\",\"l\":[\"x\",\"\xe6\x97\"]}", "l[1]", 20},
		{"{\"m\":{\"k\":\"\xc3\"}}", "m[k]", 11},
		{"{\"a\":{\"x\":[1,{\"y\":\"\xfe\"}]}}", "a.x[1].y", 19},
		{"{\"p\":{\"s\":\"\xed\xa0\x80\"}}", "p.s", 11}, // an encoded surrogate is not UTF-8
		{"{\"m\":{\"k\xff\":\"v\"}}", "m", 8},           // in a key: the object holding it
		{"{\"\xff\":1}", "", 2},                         // a key of the top-level object
		{"{\"nope\":\"\xff\"}", "nope", 9},              // an unknown field's value
	} {
		_, err := Decode[plainArgs]([]byte(tc.body), DecodeOptions{})
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%q", tc.body)
		require.Len(t, ve.Errors, 1, "%q: %v", tc.body, ve)
		fe := ve.Errors[0]
		assert.Equal(t, RuleInvalidUTF8, fe.Rule, "%q", tc.body)
		assert.Equal(t, tc.field, fe.Field, "%q", tc.body)
		assert.Contains(t, fe.Message, "not valid UTF-8", "%q", tc.body)
		assert.Contains(t, fe.Message, "byte "+strconv.Itoa(tc.offset), "%q", tc.body)
		assert.True(t, utf8.ValidString(err.Error()), "the bytes are echoed: %q", err.Error())
		assert.NotContains(t, err.Error(), "\uFFFD", "%q", tc.body)

		// CheckUTF8 (for arguments no Decode reads) says the same (it
		// knows no types: a map's entry is a field, m.k).
		cve := CheckUTF8([]byte(tc.body))
		require.NotNil(t, cve, "%q", tc.body)
		require.Len(t, cve.Errors, 1)
		assert.Equal(t, fe.Rule, cve.Errors[0].Rule, "%q", tc.body)
		assert.Equal(t, fe.Message, cve.Errors[0].Message, "%q", tc.body)
	}
	// Kept verbatim, a json.RawMessage could carry the bytes on: refused too.
	_, err := Decode[rawArgs]([]byte("{\"r\":{\"x\":\"\xff\"}}"), DecodeOptions{})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []FieldError{utf8Error("r.x", 11, false)}, ve.Errors)

	// Broken syntax or nesting after the bad bytes is reported first, as
	// for any body that is not JSON (found by FuzzDecode: "\"\x86").
	for body, rule := range map[string]string{"\"\x86": "syntax", "{\"s\":\"\xff\"": "syntax",
		"{\"s\":\"\xff\",\"l\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}": "too_deep"} {
		_, err := Decode[plainArgs]([]byte(body), DecodeOptions{MaxDepth: 16})
		require.ErrorAs(t, err, &ve, "%q", body)
		assert.Equal(t, rule, ve.Errors[0].Rule, "%q: %v", body, err)
	}

	// Valid UTF-8 and escapes (lone surrogates included) still decode.
	got, err := Decode[plainArgs]([]byte("{\"s\":\"d\u00e9j\u00e0 \\ud800 \xf0\x9f\x98\x80\"}"), DecodeOptions{})
	require.NoError(t, err)
	assert.Equal(t, "d\u00e9j\u00e0 \uFFFD \U0001F600", got.S)
	assert.Nil(t, CheckUTF8([]byte(`{"s":"\u00e9"}`)))
}

// FindInvalidUTF8 names the field when the text is JSON up to the bad
// byte, and gives the offset alone otherwise.
func TestFindInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		raw, field string
		offset     int
		key, ok    bool
	}{
		{`{"a":"b"}`, "", 0, false, false},
		{"\"\xff\"", "", 1, false, true},                   // a top-level string
		{"{\"a\":[1,\"\xff\"]}", "a[1]", 9, false, true},   // an array element
		{"{\"a\":{\"b\xff\":1}}", "a", 8, true, true},      // a key
		{"{\"a\" 1, \"b\":\"\xff\"}", "", 13, false, true}, // invalid JSON before the byte
		{"{\"a\":1}\xff", "", 7, false, true},              // outside any string
		{"[[[[\"\xff\"]]]]", "[0][0][0][0]", 5, false, true},
	} {
		field, offset, key, ok := FindInvalidUTF8([]byte(tc.raw))
		assert.Equal(t, tc.ok, ok, "%q", tc.raw)
		assert.Equal(t, tc.field, field, "%q", tc.raw)
		assert.Equal(t, tc.offset, offset, "%q", tc.raw)
		assert.Equal(t, tc.key, key, "%q", tc.raw)
	}
}
