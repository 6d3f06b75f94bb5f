package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// fuzzDecoders decode one body into each argument shape of the tests.
var fuzzDecoders = []func([]byte, DecodeOptions) error{
	fuzzDecode[searchArgs],
	fuzzDecode[agreeTimes],
	fuzzDecode[agreeCustom],
	fuzzDecode[agreeEmbedded],
	fuzzDecode[agreeNested],
	fuzzDecode[agreeAnyRaw],
	fuzzDecode[agreeOmit],
}

func fuzzDecode[A any](raw []byte, opts DecodeOptions) error {
	a, err := Decode[A](raw, opts)
	if err == nil {
		return Validate(&a)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return ve
}

// FuzzDecode: random bytes never make Decode panic, into any of the test
// shapes; an accepted value re-validates; every rejection is a
// *ValidationError with messages; a syntax error is reported exactly for
// bodies that are not valid JSON, and a body that is not valid JSON is
// never described as a JSON value ("got null").
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"query":"golang","domain":"com"}`, `null`, ``, `[`, `{"query":1}`,
		`{"tags":[[[[1]]]]}`, `{"QUERY":"x"}`, `{"limit":1e400}`, `{"score":null,"deep":{"min":1.0}}`, `{"labels":{"a":"\u00e9"}}`,
		`nul`, `tru`, `{"a":1`, `[1,`, `{} x`, `{"query":"a","query":"b"}`, `{"labels":{"x":"1","\u0078":"2"}}`,
		`{"at":"2006-01-02T15:04:05Z","due":"2006-01-02T15:04:05+07:00","wait":"1m30s","every":"5 minutes"}`,
		`{"level":"low","rcolor":"#00ff00","span":{"from":1,"to":2},"by_name":{"a":null}}`,
		`{"id":"x","named":{"x":1},"rank":2,"note":"n"}`, `{"must":{"q":"ab"},"by_key":{"k":{"q":"cd"}}}`,
		`{"need":{"a":[1,{"b":null}]},"raw_req":[1,2],"meta":{"x":1,"x":2}}`, `{"limit":0,"name":"","tags":[""]}`,
		`{"limit":1e99999999}`, `{"limit":0e99999999}`, `{"ratio":-0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		opts := DecodeOptions{MaxBytes: 4096, MaxDepth: 16}
		deep := tooDeep(raw, opts.MaxDepth)
		for i, dec := range fuzzDecoders {
			err := dec(raw, opts)
			if err == nil {
				if !json.Valid(raw) {
					t.Fatalf("decoder %d accepted %q, which is not valid JSON", i, raw)
				}
				continue
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Errors) == 0 {
				t.Fatalf("decoder %d on %q: want a non-empty *ValidationError, got %T %v", i, raw, err, err)
			}
			for _, fe := range ve.Errors {
				if fe.Message == "" || fe.Rule == "" {
					t.Fatalf("decoder %d on %q: empty rule or message in %+v", i, raw, fe)
				}
			}
			if len(raw) > opts.MaxBytes || deep {
				continue
			}
			syntax := ve.Errors[0].Rule == "syntax"
			if syntax != !json.Valid(raw) && len(bytes.TrimSpace(raw)) > 0 {
				t.Fatalf("decoder %d on %q: syntax error %v, but json.Valid says %v", i, raw, syntax, json.Valid(raw))
			}
			if !json.Valid(raw) && strings.Contains(ve.Error(), "must be a JSON object, got") {
				t.Fatalf("decoder %d describes invalid JSON %q as a JSON value: %v", i, raw, err)
			}
		}
	})
}

// tooDeep reports whether raw nests brackets deeper than max (counting
// outside strings, as the decoder does).
func tooDeep(raw []byte, max int) bool {
	depth, in := 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == '{' || c == '['):
			depth++
			if depth > max {
				return true
			}
		case !in && (c == '}' || c == ']'):
			depth--
		}
	}
	return false
}

// FuzzAgreement: on random JSON, Decode accepts exactly when the generated
// JSON Schema accepts (see TestAgreementDecodeVsJSONSchema); input with a
// duplicate key is always rejected.
func FuzzAgreement(f *testing.F) {
	for _, s := range []string{`{}`, `{"need":[1],"pinner":{}}`, `{"count":1.0,"preq":0.5,"nonz":1,"pflag":true}`,
		`{"name":"abc","domain":"a b","fixed":"abc","confirm":"DO_IT","opt":""}`, `{"email":"a@b.co","when":"2006-01-02T15:04:05Z"}`,
		`{"f32":3.4028235e38}`, `{"grid":[[1,2],[3]]}`, `{"labels":{"x":"a"},"counts":{"y":0}}`,
		`{"due":"2006-01-02T15:04:05Z","wait":"1h2m3s4ms5us6ns","spans":["0","-1.5h"],"stamps":{"a":"2024-02-29T00:00:00Z"}}`,
		`{"rcolor":"#abcdef","level":null,"plevel":null,"span":{"to":1},"spans":[{}],"pshout":"x"}`,
		`{"id":"ab","named":{"x":2},"rank":3,"deep":5,"Same":"x"}`, `{"must":{"q":"ab","page":null},"opt":{"lo":-2},"grid":{"a":[0,1]}}`,
		`{"need":0,"raw_req":null,"meta":{"a":1,"b":2,"c":3,"d":4},"praw":null}`,
		`{"limit":0,"page":1,"neg":-3,"small":10,"ratio":0.75,"name":"","mail":"","kind":"","fix":0,"tags":["","ab"],"opt":[1,2],"nums":[0,5]}`,
		`{"q":"a","q":"a"}`, `{"labels":{"k":"a","k":"b"}}`, `{"need":{"x":{"y":1,"y":1}},"raw_req":1}`} {
		for i := range 12 {
			f.Add(uint8(i), []byte(s))
		}
	}
	cases := agreeCases()
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		c := cases[int(which)%len(cases)]
		if len(raw) > 4096 {
			return
		}
		if hasHugeFloat(raw) {
			return // float64 range is a documented gap of the schema
		}
		checkAgreement(t, c, raw)
	})
}

// hasHugeFloat reports an exponent of three or more digits, which may
// exceed float64's range (documented gap).
func hasHugeFloat(raw []byte) bool {
	for i := 0; i+3 < len(raw); i++ {
		if raw[i] == 'e' || raw[i] == 'E' {
			j := i + 1
			if raw[j] == '+' || raw[j] == '-' {
				j++
			}
			k := j
			for k < len(raw) && raw[k] >= '0' && raw[k] <= '9' {
				k++
			}
			if k-j >= 3 {
				return true
			}
		}
	}
	return false
}

// FuzzDecodeMatchesEncodingJSON: the decoder reads JSON as encoding/json
// does. On a type both decode alike (plainArgs), whatever Decode accepts
// json.Unmarshal (with UseNumber) accepts too (except integers written as
// 1.0 or 1e2, which Decode accepts as JSON Schema does), with an equal value; strings
// unescape identically, lone surrogates included (invalid UTF-8, which
// encoding/json replaces, Decode refuses).
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"s":"a\u00e9\ud83d\ude00\n\"","n":-12,"f":1.5e-3,"l":["x",""],"m":{"k":"v"},"a":{"x":[1,{"y":null}]},"p":null}`,
		`{"s":"\ud800x\udc00","f":-0,"l":[],"m":{},"a":[],"p":{"s":"q"}}`, "{\"s\":\"\xff\xfe ok \xe6\x97\"}",
		`{"s":"\ud83d\u0041"}`, `{"a":12345678901234567890123}`, `{"m":{"\u00e9":"x"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := Decode[plainArgs](raw, DecodeOptions{MaxBytes: 1 << 16, MaxDepth: 1 << 16})
		if err != nil {
			return
		}
		var want plainArgs
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if derr := dec.Decode(&want); derr != nil {
			var ute *json.UnmarshalTypeError
			if errors.As(derr, &ute) && strings.HasPrefix(ute.Value, "number") {
				return // an integer written 1.0 or 1e2: JSON Schema's integer, refused by encoding/json
			}
			t.Fatalf("Decode accepted %q; encoding/json refuses it: %v", raw, derr)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("on %q\nencoding/json: %#v\nDecode:        %#v", raw, want, got)
		}
	})
}
