package snippet_test

import (
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/registry/snippet"
)

// fuzzRefs are the references FuzzRunReferenceIntoText follows into the
// text.
var fuzzRefs = []string{"r", "r.a", "r[0]", "r.a[1].b", `r["odd-key"].c`, "r[0][0]", "r.a.b.c.d"}

// FuzzRunReferenceIntoText answers arbitrary text from a tool and follows
// references into it: never a panic; a success sends valid JSON
// arguments; a failure is of ErrorType, valid UTF-8, and short whatever
// the text's length (the text is never quoted).
func FuzzRunReferenceIntoText(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, {"b": 12345678901234567890}]}`, ` [[true]] `, `{"odd-key": {"c": "x"}}`,
		`{"a": "{\"b\": {\"c\": {\"d\": 1.50}}}"}`, `not json`, `{"a": 1} {}`, `[`, "\xff\xfe{", ``,
		`{"a": "[0, {\"b\": null}]"}`,
	} {
		f.Add(s, uint8(0))
	}
	body := make([]*snippet.Snippet, len(fuzzRefs))
	for i, ref := range fuzzRefs {
		s, err := snippet.Parse("fz", snippet.Definition{Body: "r = src()\ndst(x=" + ref + ")"})
		if err != nil {
			f.Fatal(err)
		}
		body[i] = s
	}
	f.Fuzz(func(t *testing.T, text string, which uint8) {
		i := int(which) % len(fuzzRefs)
		rec := newRecorder(t, textReply(text), "src", "dst")
		res, err := body[i].Run(context.Background(), rec.reg, nil)
		if err != nil {
			t.Fatalf("%s: protocol error %v", fuzzRefs[i], err)
		}
		if res.Success {
			calls := rec.recorded()
			if len(calls) != 2 || !json.Valid([]byte(calls[1].Args)) {
				t.Fatalf("%s: success without a valid call to dst: %v", fuzzRefs[i], calls)
			}
			return
		}
		if res.ErrorType != snippet.ErrorType || !utf8.ValidString(res.Error) {
			t.Fatalf("%s: failure %q of type %s", fuzzRefs[i], res.Error, res.ErrorType)
		}
		if len(res.Error) > 400 {
			t.Fatalf("%s: a failure of %d bytes: %.400q…", fuzzRefs[i], len(res.Error), res.Error)
		}
	})
}
