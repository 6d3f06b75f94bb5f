package catalogueapi_test

import (
	"context"
	"strings"
	"testing"

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
