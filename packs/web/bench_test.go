package web

import (
	"bytes"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// page500K is the test article padded to about 500 KB with more article
// paragraphs and page furniture, like a long real-world page.
func page500K(b *testing.B) []byte {
	b.Helper()
	article, err := os.ReadFile("testdata/pages/article.html")
	if err != nil {
		b.Fatal(err)
	}
	var extra strings.Builder
	for i := 0; extra.Len() < 500<<10; i++ {
		extra.WriteString(`<p>Paragraph of the long report on coastal towns, their harbours, lighthouses and the people who keep them working through the winter storms and the long summers.</p>`)
		if i%20 == 0 {
			extra.WriteString(`<div class="ad"><a href="/x">Advertisement</a></div>`)
		}
	}
	return []byte(strings.Replace(string(article), "</article>", extra.String()+"</article>", 1))
}

// page500KMarkup is the test article in about 500 KB of what most of a
// real page's bytes are: scripts, styles, navigation and related links.
func page500KMarkup(b *testing.B) []byte {
	b.Helper()
	article, err := os.ReadFile("testdata/pages/article.html")
	if err != nil {
		b.Fatal(err)
	}
	var extra strings.Builder
	for i := 0; extra.Len() < 500<<10; i++ {
		extra.WriteString(`<script>window.__state=window.__state||{};window.__state["k` + strings.Repeat("x", i%7) + `"]={"a":[1,2,3],"b":"lorem ipsum dolor sit amet consectetur"};</script>`)
		extra.WriteString(`<nav class="mega"><ul><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li><li><a href="/weather">Weather</a></li></ul></nav>`)
		extra.WriteString(`<div class="related"><a href="/r"><img src="/i.jpg" alt="">Related story headline</a></div>`)
	}
	return []byte(strings.Replace(string(article), "</main>", "</main>"+extra.String(), 1))
}

// BenchmarkExtract500KB is web.fetch's work on a fetched 500 KB page
// (charset decoding, parsing, article extraction), beside its baseline:
// parsing the same page with x/net/html alone. The ratio is the cost of
// extraction over parsing. Two page shapes: 500 KB of article text (the
// extractor's worst case: it concatenates every paragraph it keeps) and
// 500 KB of scripts, navigation and related links around a short
// article (what most pages' bytes are).
func BenchmarkExtract500KB(b *testing.B) {
	page := page500K(b)
	markup := page500KMarkup(b)
	u, _ := url.Parse("https://courier.example/news")
	b.Run("baseline=html.Parse", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := html.Parse(bytes.NewReader(page)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("extract", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			out, err := extract(page, "text/html; charset=utf-8", u, false)
			if err != nil || out.CleanText == "" {
				b.Fatal(err)
			}
		}
	})
	// 1 MiB of short paragraphs: past MaxExtractWork, read whole rather
	// than extracted (the extractor took seconds of CPU on it).
	short := []byte("<html><head><title>T</title></head><body><article><p>The volunteers in Portwick rebuilt the pier.</p></article>" +
		strings.Repeat("<p>filler filler filler filler filler filler filler filler</p>\n", 16384) + "</body></html>")
	b.Run("baseline=html.Parse/1MiB-short-paragraphs", func(b *testing.B) {
		b.SetBytes(int64(len(short)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := html.Parse(bytes.NewReader(short)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("extract/1MiB-short-paragraphs", func(b *testing.B) {
		b.SetBytes(int64(len(short)))
		b.ReportAllocs()
		for b.Loop() {
			out, err := extract(short, "text/html; charset=utf-8", u, false)
			if err != nil || out.CleanText == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline=html.Parse/markup-heavy", func(b *testing.B) {
		b.SetBytes(int64(len(markup)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := html.Parse(bytes.NewReader(markup)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("extract/markup-heavy", func(b *testing.B) {
		b.SetBytes(int64(len(markup)))
		b.ReportAllocs()
		for b.Loop() {
			out, err := extract(markup, "text/html; charset=utf-8", u, false)
			if err != nil || out.CleanText == "" {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkExtractSlot is the extraction slot's cost on the normal path
// (a slot free): the test article (3 KB, where the slot's share is
// the largest) extracted as web.fetch does, through the fetcher's slot,
// beside its baseline, the same extraction without the slot.
func BenchmarkExtractSlot(b *testing.B) {
	page, err := os.ReadFile("testdata/pages/article.html")
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse("https://courier.example/news")
	f, err := newFetcher(&pack{log: slog.New(slog.DiscardHandler)}, FetchConfig{MaxConcurrentExtractions: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("baseline=extract", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			if out, err := extract(page, "text/html; charset=utf-8", u, false); err != nil || out.CleanText == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("extract-in-slot", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			if r, _ := f.extract(b.Context(), "https://courier.example/news", page, "text/html; charset=utf-8", u, false); !r.Success {
				b.Fatal(r.Error)
			}
		}
	})
	// The slot alone: taken free and given back.
	b.Run("slot-alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := f.takeSlot(b.Context()); !ok {
				b.Fatal("no slot")
			}
			f.slots.release()
		}
	})
}
