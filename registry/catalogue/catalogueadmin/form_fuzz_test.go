package catalogueadmin

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// FuzzFormArgs: whatever argument schema a tool has and whatever a form
// posts, reading the tester's form never panics, gives arguments that
// encode as JSON, and names every problem by an argument of the schema.
func FuzzFormArgs(f *testing.F) {
	for _, seed := range []struct{ schema, form string }{
		{`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","enum":["x","y"]}},"required":["a"]}`, "arg.a=5&arg.b=x"},
		{`{"type":"object","properties":{"n":{"type":["number","null"]},"ok":{"type":"boolean"},"l":{"type":"array"}}}`, "arg.n=1e3&arg.ok=maybe&arg.l=%5B1%2C"},
		{`{"properties":{"e":{"enum":[1,"1",null,true]}}}`, "arg.e=1&arg.e=true"},
		{`[]`, "a=%zz"},
		{`{"properties":{"h":{"$ref":"#/$defs/A","description":"d"},"r":{"$ref":"#"},"x":{"$ref":"#/$defs/B/0"}},"$defs":{"A":{"type":"object","properties":{"c":{"type":"integer"}}},"B":[{"enum":[1]}]}}`, "arg.h.c=7&arg.r.r.h.c=x&arg.x=1"},
	} {
		f.Add([]byte(seed.schema), seed.form)
	}
	f.Fuzz(func(t *testing.T, schema []byte, form string) {
		vals, err := url.ParseQuery(form)
		if err != nil {
			vals = url.Values{}
		}
		args, problems := formArgs(json.RawMessage(schema), vals)
		if _, err := json.Marshal(args); err != nil {
			t.Fatalf("arguments do not encode: %v", err)
		}
		var s argSchema
		if json.Unmarshal(schema, &s) != nil {
			return
		}
		for _, p := range problems {
			if _, ok := s.Properties[strings.SplitN(p.Field, ".", 2)[0]]; !ok {
				t.Fatalf("problem names %q, not an argument", p.Field)
			}
		}
		fields, _ := formFields(json.RawMessage(schema), vals)
		if len(fields) != len(s.Properties) {
			t.Fatalf("%d fields for %d properties", len(fields), len(s.Properties))
		}
	})
}
