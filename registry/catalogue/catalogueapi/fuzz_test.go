package catalogueapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

func fuzzHandler(f *testing.F) *catalogueapi.Handler {
	st, err := catalogue.OpenFileStore(context.Background(), f.TempDir(), catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = st.Close() })
	h, err := catalogueapi.New(catalogueapi.Options{Store: st, PageTokenKey: []byte("fuzz-key-fuzz-key-fuzz-key-fuzz-key")})
	if err != nil {
		f.Fatal(err)
	}
	return h
}

// FuzzDecodePageToken: the decoder never panics; it accepts a token only
// when it is exactly one the handler signed, for the same listing and
// filters.
func FuzzDecodePageToken(f *testing.F) {
	h := fuzzHandler(f)
	valid := h.EncodePageToken("tools", "f1", "slug")
	f.Add(valid, "tools", "f1")
	f.Add(valid, "search", "f1")
	f.Add(valid[:len(valid)-1], "tools", "f1")
	f.Add("", "tools", "")
	f.Add("eyJrIjoidG9vbHMifQ", "tools", "")
	f.Add(strings.Repeat("A", 2000), "bundles", "x")
	f.Fuzz(func(t *testing.T, tok, kind, filter string) {
		err := h.DecodePageToken(tok, kind, filter)
		if err == nil && tok != h.EncodePageToken(kind, filter, "slug") {
			// Another accepted token must at least name the same listing:
			// re-encode what it claims and compare the listing part.
			if h.DecodePageToken(tok, kind+"x", filter) == nil {
				t.Fatalf("token %q accepted for two listings", tok)
			}
		}
		if err == nil && (tok == "" || len(tok) > catalogueapi.MaxPageTokenBytes) {
			t.Fatalf("token %q accepted", tok)
		}
		if tok == valid && (kind != "tools" || filter != "f1") && err == nil {
			t.Fatalf("a valid token replayed on %q/%q was accepted", kind, filter)
		}
	})
}

// FuzzParseQuery: any query string parses without panicking, into a page
// size within bounds, or into field problems that name what was expected.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "pageSize=10", "pageSize=abc", "pageSize=99999999999999999999999", "pageSize=-1",
		"bundleIDs=01a209e2-7665-7651-a7fd-a83e8ceb8e41,x", "tags=a&tags=b", "includeDisabled=true&includeDisabled=false",
		"q=hello+world", "q=%ff", "%zz", "recommendedPageSize=0", "pageToken=", "a=b;c=d"} {
		f.Add("bundles", s)
		f.Add("tools", s)
		f.Add("search", s)
	}
	f.Fuzz(func(t *testing.T, kind, raw string) {
		switch kind {
		case "bundles", "tools", "search":
		default:
			return
		}
		size, problems := catalogueapi.ParseQuery(kind, raw, 50)
		if size < 1 || size > 50 {
			t.Fatalf("page size %d out of [1, 50] for %q", size, raw)
		}
		for _, p := range problems {
			if !strings.Contains(p, "expected") {
				t.Fatalf("problem %q does not say what was expected", p)
			}
		}
	})
}

// FuzzDecodeInvokeBody: the invoke body's decoder never panics; it
// accepts exactly a JSON object of UTF-8 text whose one member is args, an
// object, and returns that object; every refusal says what was expected,
// in valid UTF-8 (the client's bytes are never echoed broken).
func FuzzDecodeInvokeBody(f *testing.F) {
	for _, s := range []string{`{"args":{"q":"x"}}`, `{"args":{}}`, ` {"args" : {"q":[1,{"a":null}]}} `,
		`{"args":{"q":"a"},"args":{"q":"b"}}`, `{"args":{"q":"x"},"more":1}`, `{"args":[1]}`, `{"args":null}`,
		`[1,2]`, `{"args":{"q":"x"}} {}`, "\uFEFF{\"args\":{}}", "{\"args\":{\"q\":\"a\xffb\"}}",
		"{\"\xff\":1}", `{"args":{"q":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`,
		`{"args":{"q":"\ud800"}}`, `{"` + strings.Repeat("a", 63) + `é":1}`, ``, `null`, `{"args":{"q":1e999999}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		a, problems := catalogueapi.DecodeInvokeBody(body)
		for _, p := range problems {
			if !strings.Contains(p, "expected") {
				t.Fatalf("problem %q does not say what was expected", p)
			}
			if !utf8.ValidString(p) {
				t.Fatalf("problem %q is not valid UTF-8", p)
			}
		}
		if len(problems) > 0 {
			return
		}
		if !json.Valid(body) || !utf8.Valid(body) {
			t.Fatalf("accepted %q, which is not UTF-8 JSON", body)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil || len(m) != 1 {
			t.Fatalf("accepted %q: %v, %d members", body, err, len(m))
		}
		if !bytes.Equal(m["args"], a) || len(a) == 0 || a[0] != '{' {
			t.Fatalf("accepted %q as args %q", body, a)
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		tokens := 0
		for depth := 0; ; {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			default:
				if depth == 1 {
					tokens++ // a member's name, or a scalar value of one
				}
			}
		}
		if tokens != 1 { // "args", its value an object
			t.Fatalf("accepted %q with %d top-level tokens", body, tokens)
		}
	})
}
