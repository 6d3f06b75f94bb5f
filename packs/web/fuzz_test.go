package web

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPageURL: any JSON for url is either refused with an error or an
// absolute http(s) URL with a host and no user information.
func FuzzPageURL(f *testing.F) {
	for _, s := range []string{`"https://example.com/a?b=c#d"`, `"http://[::1]:80/"`, `"ftp://x/"`, `"/rel"`, `"http://"`, `"http://u:p@h/"`, `null`, `42`, `"http://%zz/"`, `"HTTP://EXAMPLE.COM"`, `"http://example.com:99999/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var u PageURL
		if err := json.Unmarshal(b, &u); err != nil {
			return
		}
		p, err := url.Parse(string(u))
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Hostname() == "" || p.User != nil || len(u) > maxURLBytes {
			t.Fatalf("accepted %q", u)
		}
	})
}

// FuzzExtract: any page bytes with any content type: extraction never
// panics, and what it returns is valid UTF-8 with non-empty clean text.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("<html><body><article><p>Hello there, this is a page.</p></article></body></html>"), "text/html")
	f.Add([]byte("<html lang=fr><meta charset=windows-1252><p>caf\xe9</p>"), "text/html")
	f.Add([]byte("plain words"), "text/plain; charset=utf-8")
	f.Add([]byte("\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00"), "")
	f.Add([]byte("<p>x</p>"), "text/html; charset=nonsense")
	f.Add([]byte("%PDF-1.7"), "application/pdf")
	f.Add([]byte(`{"a":[1,"\u00e9"]}`), "application/ld+json; charset=utf-8")
	f.Add([]byte("<rss><title>Caf\xe9</title></rss>"), "application/rss+xml; charset=iso-8859-1")
	f.Add([]byte("<title>T</title><p>Hello world</p>"), "text/html")
	f.Add([]byte("<ul><li>a<ul><li>b</li></ul></li></ul><table><tr><td>1</td><td>2</td></tr></table><pre>x\n  y</pre><div><code>z</code></div>"), "text/html")
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		if len(body) > 1<<16 {
			return
		}
		page, _ := url.Parse("https://example.com/a")
		out, err := extract(body, ct, page, true)
		if err != nil {
			return
		}
		if strings.TrimSpace(out.CleanText) == "" {
			t.Fatal("success without clean text")
		}
		for _, s := range []string{out.CleanText, out.RawHTML, deref(out.Title), deref(out.Byline), deref(out.Lang), deref(out.PublishedAt)} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// FuzzParseSearchAnswer: any gateway answer is refused or mapped to at
// most limit results, each with a URL and valid UTF-8.
func FuzzParseSearchAnswer(f *testing.F) {
	f.Add([]byte(`{"results":[{"title":"a","url":"https://a","snippet":"s","date":"2026-01-01","x":1}]}`), 5)
	f.Add([]byte(`{"results":null}`), 1)
	f.Add([]byte(`{"results":[1,"x",null,{"url":7}]}`), 3)
	f.Add([]byte("{\"results\":[{\"url\":\"\xff\"}]}"), 2)
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if limit < 1 || limit > 25 {
			return
		}
		out, err := parseSearchAnswer(b, limit)
		if err != nil {
			return
		}
		if out.Results == nil || len(out.Results) > limit {
			t.Fatalf("results %v for limit %d", out.Results, limit)
		}
		for _, r := range out.Results {
			if r.URL == "" || !utf8.ValidString(r.URL+r.Title+r.Snippet+deref(r.Date)) {
				t.Fatalf("bad result %+v", r)
			}
			if r.Date != nil && *r.Date == "" {
				t.Fatal("empty date instead of null")
			}
		}
	})
}
