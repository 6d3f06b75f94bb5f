package catalogueadmin

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// FuzzFormArgs: whatever argument schema a tool has and whatever a form
// posts, reading the tester's form never panics, gives arguments that
// encode as JSON (of UTF-8 text the form really held), and names every
// problem by an argument of the schema.
func FuzzFormArgs(f *testing.F) {
	for _, seed := range []struct{ schema, form string }{
		{`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","enum":["x","y"]}},"required":["a"]}`, "arg.a=5&arg.b=x"},
		{`{"type":"object","properties":{"n":{"type":["number","null"]},"ok":{"type":"boolean"},"l":{"type":"array"}}}`, "arg.n=1e3&arg.ok=maybe&arg.l=%5B1%2C"},
		{`{"properties":{"e":{"enum":[1,"1",null,true]}}}`, "arg.e=1&arg.e=true"},
		{`[]`, "a=%zz"},
		{`{"properties":{"h":{"$ref":"#/$defs/A","description":"d"},"r":{"$ref":"#"},"x":{"$ref":"#/$defs/B/0"}},"$defs":{"A":{"type":"object","properties":{"c":{"type":"integer"}}},"B":[{"enum":[1]}]}}`, "arg.h.c=7&arg.r.r.h.c=x&arg.x=1"},
		// Realistic tools of a catalogue: a weather lookup with defaults
		// and bounds, a search with a tags array and a date, an HTTP tool
		// with a nested filter object, a steps tool's units enum.
		{`{"type":"object","properties":{"city":{"type":"string","minLength":1,"description":"City name, e.g. Paris"},` +
			`"days":{"type":"integer","minimum":1,"maximum":14,"default":3},"units":{"type":"string","enum":["metric","imperial"],"default":"metric"}},` +
			`"required":["city"],"additionalProperties":false}`, "arg.city=Z%C3%BCrich&arg.days=7&arg.units=metric"},
		{`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`, "arg.city=&arg.days=+7+"},
		{`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}`, "arg.city=a%FFb&arg.days=99999999999999999999"},
		{`{"type":"object","properties":{"q":{"type":"string","maxLength":200},"tags":{"type":"array","items":{"type":"string"}},` +
			`"since":{"type":"string","format":"date-time"},"limit":{"type":["integer","null"]}},"required":["q"]}`,
			"arg.q=golang+fuzzing&arg.tags=%5B%22go%22%2C%22test%22%5D&arg.since=2026-11-23T15%3A30%3A00Z&arg.limit=10"},
		{`{"type":"object","properties":{"tags":{"type":"array"}}}`, "arg.tags=%5B1%5D+%5B2%5D"},
		{`{"type":"object","properties":{"filter":{"type":"object","properties":{"lang":{"type":"string"},` +
			`"stars":{"type":"object","properties":{"min":{"type":"number"},"max":{"type":"number"}}}},"required":["lang"]},"dryRun":{"type":"boolean"}}}`,
			"arg.filter.lang=en&arg.filter.stars.min=4.5&arg.filter.stars.max=1e309&arg.dryRun=true"},
		{`{"type":"object","properties":{"body":{}}}`, "arg.body=%7B%22a%22%3A%5B1%2C2%5D%7D"},
		{`{"type":"object","properties":{"level":{"enum":["low","mid","high",null]},"n":{"type":"number"}}}`, "arg.level=null&arg.n=-0.0e-0"},
		{`{"type":"object"}`, "arg.x=1&csrf=t"},
		{`{"type":"object","properties":{"%":{"type":"string"},"a.b":{"type":"string"}}}`, "arg.%25=x&arg.a.b=y"},
	} {
		f.Add([]byte(seed.schema), seed.form)
	}
	f.Fuzz(func(t *testing.T, schema []byte, form string) {
		vals, err := url.ParseQuery(form)
		if err != nil {
			vals = url.Values{}
		}
		args, problems := formArgs(json.RawMessage(schema), vals)
		data, err := json.Marshal(args)
		if err != nil {
			t.Fatalf("arguments do not encode: %v", err)
		}
		// json.Marshal escapes only the U+FFFD it puts for invalid UTF-8.
		if bytes.Contains(data, []byte(`\ufffd`)) {
			t.Fatalf("arguments %s were sent with bytes that are not UTF-8 replaced", data)
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
