package httptool_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
)

// FuzzParseTemplate: parsing never panics; a parsed template prints back
// to its text, and every placeholder it names is valid.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"", "a${x}b", "${", "${x", "${}", "$$ {x}", "${a}${b_2}", "${1}", "x}${y}{", "\xff${x}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tp, err := httptool.Parse(s)
		if err != nil {
			if !errors.Is(err, httptool.ErrTemplate) {
				t.Fatalf("error does not wrap ErrTemplate: %v", err)
			}
			return
		}
		if tp.String() != s {
			t.Fatalf("round trip: %q → %q", s, tp.String())
		}
		if strings.Count(s, "${") != len(tp.Names()) {
			t.Fatalf("every ${ is a placeholder: %q has %d names", s, len(tp.Names()))
		}
	})
}

// FuzzRenderURL: for any template and value, rendering never panics, never
// changes the scheme or host, and a path value arrives whole in one segment.
func FuzzRenderURL(f *testing.F) {
	f.Add("https://api.example.com/a/${x}/b?q=${x}#${x}", "a/b")
	f.Add("http://h:8080/${x}", "..")
	f.Add("http://h/${x}${x}", "?#@")
	f.Add("http://h?${x}=${x}", "&=")
	f.Add("http://h/p/${x}", "\r\n日本")
	f.Fuzz(func(t *testing.T, tmpl, val string) {
		ut, err := httptool.ParseURL(tmpl)
		if err != nil {
			return
		}
		host := strings.SplitN(strings.SplitN(tmpl, "://", 2)[1], "/", 2)[0]
		host = strings.SplitN(strings.SplitN(host, "?", 2)[0], "#", 2)[0]
		u, err := ut.Render("url", func(string) (httptool.Value, bool) { return httptool.StringValue(val), true })
		if err != nil {
			var ve *httptool.ValueError
			if !errors.As(err, &ve) && !errors.Is(err, httptool.ErrTemplate) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			if strings.Contains(err.Error(), val) && len(val) > 3 {
				t.Fatalf("error quotes the value: %v", err)
			}
			return
		}
		if u.Host != host || u.User != nil {
			t.Fatalf("host changed: %q → %q", host, u.Host)
		}
	})
}

// FuzzRenderBody: for any JSON body template and string value, the
// rendered body is valid JSON, and replacing the values by other values
// does not change its shape.
func FuzzRenderBody(f *testing.F) {
	f.Add(`{"a": ${x}, "b": "<${x}>"}`, `", "c": 1, "`)
	f.Add(`[${x}, "${x}", {"k${x}": ${x}}]`, `\"}]`)
	f.Add(`{"s": "\"${x}\\"}`, "\x00")
	f.Add(`text ${x}`, "}")
	f.Fuzz(func(t *testing.T, tmpl, val string) {
		bt, err := httptool.ParseBody(tmpl)
		if err != nil || !bt.IsJSON() {
			return
		}
		render := func(v string) string {
			b, err := bt.Render("body", func(string) (httptool.Value, bool) { return httptool.StringValue(v), true })
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			if !json.Valid(b) {
				t.Fatalf("rendered body is not JSON: %q", b)
			}
			return shape(t, b)
		}
		if !utf8.ValidString(val) {
			val = strings.ToValidUTF8(val, "?")
		}
		if a, b := render(val), render("v"); a != b {
			t.Fatalf("the value changed the shape: %s vs %s", a, b)
		}
	})
}

// shape lists a JSON document's tokens with every string and number
// replaced by a mark: the structure a value must not change.
func shape(t *testing.T, b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	var out strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out.String()
		}
		if err != nil {
			t.Fatalf("tokens: %v", err)
		}
		switch tok := tok.(type) {
		case json.Delim:
			out.WriteString(tok.String())
		case string:
			out.WriteString("s")
		case nil:
			out.WriteString("n")
		default:
			out.WriteString("v")
		}
	}
}

// FuzzParsePath: parsing never panics; Apply on a decoded document never
// panics and errors are ExtractErrors.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"", "a", "$.a.b[0]", `["a.b"][-1]`, "a[", "a..b", `a["\u00e9"]`, "[99999999999999999999]"} {
		f.Add(s, `{"a":{"b":[1,{"c":2}]},"a.b":[true]}`)
	}
	f.Fuzz(func(t *testing.T, path, doc string) {
		p, err := httptool.ParsePath(path)
		if err != nil {
			if !errors.Is(err, httptool.ErrExtract) {
				t.Fatalf("error does not wrap ErrExtract: %v", err)
			}
			return
		}
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		if _, err := p.Apply(v); err != nil {
			var ee *httptool.ExtractError
			if !errors.As(err, &ee) {
				t.Fatalf("unexpected error kind: %v", err)
			}
		}
	})
}
