package args

import (
	"errors"
	"testing"
)

// FuzzDecode: random bytes never make Decode panic; an accepted value
// re-validates, and every rejection is a *ValidationError with messages.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"query":"golang","domain":"com"}`, `null`, ``, `[`, `{"query":1}`,
		`{"tags":[[[[1]]]]}`, `{"QUERY":"x"}`, `{"limit":1e400}`, `{"score":null,"deep":{"min":1.0}}`, `{"labels":{"a":"\u00e9"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, err := Decode[searchArgs](raw, DecodeOptions{MaxBytes: 4096, MaxDepth: 16})
		if err == nil {
			if verr := Validate(&a); verr != nil {
				t.Fatalf("Decode accepted %q but Validate rejects it: %v", raw, verr)
			}
			return
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Errors) == 0 {
			t.Fatalf("Decode(%q): want a non-empty *ValidationError, got %T %v", raw, err, err)
		}
		for _, fe := range ve.Errors {
			if fe.Message == "" || fe.Rule == "" {
				t.Fatalf("Decode(%q): empty rule or message in %+v", raw, fe)
			}
		}
	})
}

// FuzzAgreement: on random JSON, Decode accepts exactly when the generated
// JSON Schema accepts (see TestAgreementDecodeVsJSONSchema).
func FuzzAgreement(f *testing.F) {
	for _, s := range []string{`{}`, `{"need":[1],"pinner":{}}`, `{"count":1.0,"preq":0.5,"nonz":1,"pflag":true}`,
		`{"name":"abc","domain":"a b","fixed":"abc","confirm":"DO_IT","opt":""}`, `{"email":"a@b.co","when":"2006-01-02T15:04:05Z"}`,
		`{"f32":3.4028235e38}`, `{"grid":[[1,2],[3]]}`, `{"labels":{"x":"a"},"counts":{"y":0}}`} {
		for i := range 4 {
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
