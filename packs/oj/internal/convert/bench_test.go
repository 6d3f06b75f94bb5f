package convert_test

import (
	"testing"

	"github.com/toolpack-go/toolpack/packs/oj/internal/convert"
	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
)

// BenchmarkConvert measures the HTML→Markdown conversion of the fixture
// statement without the memo ("convert"), served from the memo
// ("convert_memo_hit"), and StripTags (the fallback) as the baseline.
func BenchmarkConvert(b *testing.B) {
	html := mockbackend.Fixture("leetcode", "1")["content"].(string)
	b.Run("convert", func(b *testing.B) {
		c := convert.New(convert.WithCacheBytes(-1))
		b.ReportAllocs()
		for b.Loop() {
			_ = c.Convert(html)
		}
	})
	b.Run("convert_memo_hit", func(b *testing.B) {
		c := convert.New()
		_ = c.Convert(html)
		b.ReportAllocs()
		for b.Loop() {
			_ = c.Convert(html)
		}
	})
	b.Run("baseline_strip_tags", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = convert.StripTags(html)
		}
	})
}
