package steptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
)

// decodeArgs refuses arguments that are not UTF-8 with the field holding
// the bytes (an *args.ValidationError, as the registry refuses them) and
// never makes U+FFFD of them; decodeData refuses data after the value.
func TestDecodeArgsRefusesInvalidUTF8(t *testing.T) {
	_, err := decodeArgs([]byte("{\"city\":\"Z\xfcrich\"}"))
	ve, ok := errors.AsType[*args.ValidationError](err)
	require.True(t, ok, "%v", err)
	require.Len(t, ve.Errors, 1)
	assert.Equal(t, "city", ve.Errors[0].Field)
	assert.Equal(t, args.RuleInvalidUTF8, ve.Errors[0].Rule)
	assert.True(t, utf8.ValidString(err.Error()))

	m, err := decodeArgs([]byte("{\"city\":\"Z\u00fcrich\"}"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"city": "Z\u00fcrich"}, m)

	_, err = decodeData(json.RawMessage(`1 2`))
	assert.ErrorContains(t, err, "more data after it")
}

// FuzzDecodeArgs: decodeArgs never panics; it accepts an empty body as {}
// and otherwise exactly one JSON object of UTF-8 text, whose value
// survives a round trip through JSON.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{``, ` `, `{}`, `{"city":"Paris","days":3}`, `{"a":{"b":[1,2.5,"x",null,true]}}`,
		`{"n":12345678901234567890123}`, `{"a":1} {}`, `{"a":1}x`, `[1]`, `null`, `"x"`, `{"a":1,"a":2}`,
		"{\"q\":\"a\xffb\"}", "{\"\xfe\":1}", `{"s":"\ud800"}`, `{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := decodeArgs(raw)
		if err != nil {
			if m != nil {
				t.Fatalf("refused %q (%v) with a value", raw, err)
			}
			return
		}
		if m == nil {
			t.Fatalf("accepted %q as nil", raw)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if len(m) != 0 {
				t.Fatalf("empty arguments read as %v", m)
			}
			return
		}
		if !utf8.Valid(raw) || !json.Valid(raw) || bytes.TrimSpace(raw)[0] != '{' {
			t.Fatalf("accepted %q, not one JSON object of UTF-8 text", raw)
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("accepted %q, whose value %v does not marshal: %v", raw, m, err)
		}
		again, err := decodeArgs(data)
		if err != nil || !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip of %q: %v, %v; want %v", raw, again, err, m)
		}
	})
}

// FuzzDecodeData: decodeData never panics; it accepts exactly one JSON
// value (what json.Valid accepts), and its value survives a round trip.
func FuzzDecodeData(f *testing.F) {
	for _, s := range []string{`1`, `"x"`, `null`, `true`, `[1,"a",{"b":null}]`, `{"a":{"b":1}}`, ` 2 `,
		`1 2`, `1}`, ``, `{`, `12345678901234567890123.5e-7`, `"\ud800"`, "\"\xff\"", `-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := decodeData(raw)
		if valid := json.Valid(raw); valid != (err == nil) {
			t.Fatalf("decodeData(%q): %v; json.Valid says %v", raw, err, valid)
		}
		if err != nil {
			return
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("value %#v of %q does not marshal: %v", v, raw, err)
		}
		again, err := decodeData(data)
		if err != nil || !reflect.DeepEqual(v, again) {
			t.Fatalf("round trip of %q: %#v, %v; want %#v", raw, again, err, v)
		}
	})
}
