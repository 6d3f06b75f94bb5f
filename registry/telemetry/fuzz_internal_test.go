package telemetry

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

// FuzzArgAttrs: whatever the raw arguments, the traced arguments are read
// without a panic, only names asked for appear, each once, and strings
// are cut at MaxArgAttrBytes without splitting a rune.
func FuzzArgAttrs(f *testing.F) {
	for _, s := range []string{`{"handle":"abc","offset":3,"limit":2.5,"search":null}`, `{"search":{"a":[1,2]}}`, `[1,2]`, `{"handle":"` + strings.Repeat("é", 700) + `"}`, `{"offset":99999999999999999999}`, `{"handle":true}`, `nul`} {
		f.Add([]byte(s))
	}
	names := []string{"handle", "offset", "limit", "search"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := argAttrs(json.RawMessage(raw), names, nil)
		seen := map[attribute.Key]bool{}
		for _, kv := range got {
			if seen[kv.Key] || !strings.Contains(" handle offset limit search ", " "+string(kv.Key)+" ") {
				t.Fatalf("unexpected attribute %q in %v", kv.Key, got)
			}
			seen[kv.Key] = true
			if kv.Value.Type() == attribute.STRING {
				s := kv.Value.AsString()
				if len(s) > MaxArgAttrBytes {
					t.Fatalf("%s: %d bytes", kv.Key, len(s))
				}
				if utf8.ValidString(string(raw)) && !utf8.ValidString(s) {
					t.Fatalf("%s: cut inside a rune", kv.Key)
				}
			}
		}
	})
}
