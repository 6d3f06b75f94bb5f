package convert_test

import (
	"fmt"

	"github.com/toolpack-go/toolpack/packs/oj/internal/convert"
)

func ExampleConverter_Convert() {
	c := convert.New()
	fmt.Println(c.Convert("<p>Return <b>indices</b> of <code>nums</code>.</p>"))
	fmt.Println(c.Convert("already plain: 1 < 2"))
	fmt.Println(c.Convert("  "))
	// Output:
	// Return **indices** of `nums`.
	// already plain: 1 < 2
	// No description available.
}

// A Converter remembers its recent conversions; WithCacheBytes sizes the
// memo (or turns it off with a negative value). Results are the same either
// way.
func ExampleNew() {
	small := convert.New(convert.WithCacheBytes(64 << 10))
	none := convert.New(convert.WithCacheBytes(-1))
	html := "<ul><li>one</li><li><em>two</em></li></ul>"
	fmt.Println(small.Convert(html) == none.Convert(html))
	fmt.Println(small.Convert(html)) // served from the memo
	// Output:
	// true
	// - one
	// - *two*
}

func ExampleStripTags() {
	fmt.Println(convert.StripTags("<p>a &lt; b<script>x()</script></p><br/>c"))
	// Output: a &lt; bc
}
