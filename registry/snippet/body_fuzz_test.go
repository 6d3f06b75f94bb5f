package snippet_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolpack-go/toolpack/registry/snippet"
)

// FuzzParseBody feeds arbitrary bodies and parameter lists to ParseBody.
// It must never panic; every error is a *ParseError wrapping ErrInvalid
// whose position lies in the body; a body that parses has 1 to MaxCalls
// calls, and each of its placeholders names a given parameter at a
// position where the body holds "{{".
func FuzzParseBody(f *testing.F) {
	for _, s := range []struct{ body, params string }{
		{"r = geo.lookup(city={{ city }})\nweather.now(lat=r.lat, unit=\"{{ unit }}\")\n", "city,unit"},
		{"a(x={{ x }})", "x,not-ident,ünï"},
		{"a(x={{ y }})", "x"},
		{"r = a()\nb(y=r.items[0][\"k-1\"])", ""},
		{"é = a()", "é"},
		{"a(x=\"{{x}}{{x}}\")\n\n# c\n", "x"},
		{"", ""},
	} {
		f.Add(s.body, s.params)
	}
	f.Fuzz(func(t *testing.T, body, params string) {
		names := strings.Split(params, ",")
		s, err := snippet.ParseBody("fz", body, names)
		lines := strings.Count(body, "\n") + 1
		if err != nil {
			for _, e := range unwrapAll(err) {
				var pe *snippet.ParseError
				if !errors.As(e, &pe) || !errors.Is(e, snippet.ErrInvalid) {
					t.Fatalf("error %v is not a *ParseError wrapping ErrInvalid", e)
				}
				if pe.Snippet != "fz" || pe.Msg == "" || pe.Line < 0 || pe.Line > lines || (pe.Line > 0 && pe.Column < 1) {
					t.Fatalf("bad error %#v for a body of %d lines", pe, lines)
				}
			}
			return
		}
		if n := s.Calls(); n < 1 || n > snippet.MaxCalls {
			t.Fatalf("%d calls", n)
		}
		bodyLines := strings.Split(body, "\n")
		for _, ph := range s.Placeholders() {
			found := false
			for _, n := range names {
				found = found || n == ph.Param
			}
			if !found {
				t.Fatalf("placeholder %q is not a given parameter %q", ph.Param, names)
			}
			if ph.Line < 1 || ph.Line > lines {
				t.Fatalf("placeholder line %d outside the body", ph.Line)
			}
			runes := []rune(bodyLines[ph.Line-1])
			if ph.Column < 1 || ph.Column+1 > len(runes) || string(runes[ph.Column-1:ph.Column+1]) != "{{" {
				t.Fatalf("placeholder %+v does not point at {{ in %q", ph, bodyLines[ph.Line-1])
			}
		}
	})
}
