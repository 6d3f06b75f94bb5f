package wire_test

import (
	"testing"

	"github.com/toolpack-go/toolpack/packs/oj/internal/wire"
)

// FuzzDecode: no body makes a decoder panic, and a decoder returns either
// an error or a value, never neither.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":"1","title":"Two Sum","difficulty":"Easy","ac_rate":57,"tags":["a"],"link":"l","content":"<p>x</p>"}`,
		`{"id":1,"title":"t"}`, `{"problem":{"id":"1","title":"t"}}`,
		`{"rewritten_query":"q","results":[{"source":"a","id":"1","title":"t","similarity":0.5}]}`,
		`{"version":"1.2.3","platforms":[{"source":"a","total":1,"missing_content":0,"not_embedded":0}]}`,
		`{"title":"Not Found","status":404,"detail":"d"}`, `{"retry_after":30,"status":"fetching"}`,
		``, `null`, `[]`, `{"id":`, "{\"id\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if p, err := wire.Problem(body); (p == nil) == (err == nil) {
			t.Fatalf("Problem: value %v, error %v", p, err)
		}
		if p, err := wire.Resolve(body); (p == nil) == (err == nil) {
			t.Fatalf("Resolve: value %v, error %v", p, err)
		}
		if s, err := wire.Similar(body); (s == nil) == (err == nil) {
			t.Fatalf("Similar: value %v, error %v", s, err)
		}
		if s, err := wire.Status(body); (s == nil) == (err == nil) {
			t.Fatalf("Status: value %v, error %v", s, err)
		}
		wire.ParseProblemDetails(body)
		wire.RetryAfter(body)
	})
}
