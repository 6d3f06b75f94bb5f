package schematype

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// reference is the definition IsObject must agree with: decode into a map,
// then decode its "type" member into a string.
func reference(b []byte) bool {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return false
	}
	var typ string
	return json.Unmarshal(m["type"], &typ) == nil && typ == "object"
}

var cases = []struct {
	in   string
	want bool
}{
	{`{"type":"object"}`, true},
	{`{"type":"object","properties":{}}`, true},
	{` { "properties" : {"type":"string"} , "type" : "object" } `, true},
	{`{"properties":{"type":"object"}}`, false},
	{`{"type":"string"}`, false},
	{`{"type":["object","null"]}`, false},
	{`{"type":null}`, false},
	{`{"type":"object","type":"array"}`, false},
	{`{"type":"array","type":"object"}`, true},
	{`{"typ\u0065":"obj\u0065ct"}`, true},
	{`{"Type":"object"}`, false},
	{`{"type":"object"`, false},
	{`{"type":"object"} x`, false},
	{`null`, false},
	{`[{"type":"object"}]`, false},
	{`"object"`, false},
	{``, false},
	{`{}`, false},
	{`{"a":[1,{"b":"}"}],"c":"\"","type":"object"}`, true},
	{`{"a":-1.5e3,"b":true,"c":null,"type":"object"}`, true},
}

// TestIsObjectAgreesWithDecoding: the fast check answers exactly as
// decoding the schema into a map would, on the cases that matter
// (whitespace, nesting, escapes, duplicates, non-objects, bad JSON).
func TestIsObjectAgreesWithDecoding(t *testing.T) {
	for _, c := range cases {
		assert.Equal(t, c.want, IsObject([]byte(c.in)), "IsObject(%s)", c.in)
		assert.Equal(t, c.want, reference([]byte(c.in)), "reference(%s)", c.in)
	}
}

// TestIsObjectDoesNotAllocate: the point of the package is that checking
// 10,000 schemas costs no garbage.
func TestIsObjectDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under the race detector")
	}
	s := []byte(`{"type":"object","properties":{"q":{"type":"string","maxLength":200}},"required":["q"],"additionalProperties":false}`)
	assert.Zero(t, testing.AllocsPerRun(100, func() { IsObject(s) }))
}

// FuzzIsObject: for every input, IsObject agrees with the decoding
// definition and never panics.
func FuzzIsObject(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := IsObject(b), reference(b); got != want {
			t.Fatalf("IsObject(%q) = %v; decoding says %v", b, got, want)
		}
	})
}

func BenchmarkIsObject(b *testing.B) {
	s := []byte(`{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":200,"description":"What to search for."},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query","limit"],"additionalProperties":false}`)
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			IsObject(s)
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			reference(s)
		}
	})
}
