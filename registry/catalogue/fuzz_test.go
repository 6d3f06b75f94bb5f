package catalogue

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// checkDecodeErr holds every decoder error to the contract: a
// *ValidationError matching ErrInvalid with at least one field error, each
// saying what was expected.
func checkDecodeErr(t *testing.T, err error) {
	var ve *ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) || len(ve.Fields) == 0 {
		t.Fatalf("error %v (%T) is not a *ValidationError with fields", err, err)
	}
	for _, f := range ve.Fields {
		if f.Problem == "" {
			t.Fatalf("field %q has no problem text", f.Field)
		}
	}
}

// FuzzDecodeToolSpec: the tool decoder never panics; what it accepts is
// valid and survives a JSON round trip unchanged.
func FuzzDecodeToolSpec(f *testing.F) {
	f.Add([]byte(withoutGoImpl(issueToolBody)))
	f.Add([]byte(issueToolBody))
	f.Add([]byte(`{"displayName":"Add","isEnabled":true,"type":"go","argSchema":{"type":"object"},"goImpl":{"func":"add"}}`))
	f.Add([]byte(stepsBody))
	f.Fuzz(func(t *testing.T, body []byte) {
		spec, err := DecodeToolSpec(bytes.NewReader(body))
		if err != nil {
			checkDecodeErr(t, err)
			return
		}
		if err := spec.Validate(); err != nil {
			t.Fatalf("accepted an invalid spec: %v", err)
		}
		if err := spec.CheckCredentials(); err != nil {
			t.Fatalf("accepted a spec with a literal credential: %v", err)
		}
		first, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeToolSpec(bytes.NewReader(first))
		if err != nil {
			t.Fatalf("re-decoding %s: %v", first, err)
		}
		second, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("round trip changed the spec:\n%s\n%s", first, second)
		}
	})
}

// FuzzDecodeBundleSpec: the bundle decoder never panics; what it accepts
// is valid and survives a JSON round trip unchanged.
func FuzzDecodeBundleSpec(f *testing.F) {
	f.Add([]byte(`{"slug":"web-tools","displayName":"Web","isEnabled":true,"description":"d"}`))
	f.Add([]byte(`{"slug":"日本","displayName":"x","isEnabled":false}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		spec, err := DecodeBundleSpec(bytes.NewReader(body))
		if err != nil {
			checkDecodeErr(t, err)
			return
		}
		if err := spec.Validate(); err != nil {
			t.Fatalf("accepted an invalid spec: %v", err)
		}
		data, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeBundleSpec(bytes.NewReader(data))
		if err != nil || again != spec {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, spec)
		}
	})
}

// FuzzDecodeEnabledPatch: the PATCH decoder never panics and accepts only
// {"isEnabled": bool}.
func FuzzDecodeEnabledPatch(f *testing.F) {
	f.Add([]byte(`{"isEnabled":true}`))
	f.Add([]byte(`{"isEnabled":false,"x":1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		on, err := DecodeEnabledPatch(bytes.NewReader(body))
		if err != nil {
			checkDecodeErr(t, err)
			return
		}
		var m map[string]bool
		if json.Unmarshal(body, &m) != nil || len(m) != 1 || m["isEnabled"] != on {
			t.Fatalf("accepted %q as %v", body, on)
		}
	})
}
