package format_test

import (
	"fmt"
	"strings"

	"github.com/toolpack-go/toolpack/packs/oj/internal/format"
)

func ExampleGroupThousands() {
	fmt.Println(format.GroupThousands(999), format.GroupThousands(12984), format.GroupThousands(1234567))
	// Output: 999 12,984 1,234,567
}

func ExampleTruncate() {
	long := strings.Repeat("x", format.MaxOutputBytes+10)
	out := format.Truncate(long)
	fmt.Println(len(out) == format.MaxOutputBytes, strings.HasSuffix(out, "... (truncated)"))
	fmt.Println(format.Truncate("short"))
	// Output:
	// true true
	// short
}

func ExampleCell() {
	fmt.Printf("%q\n", format.Cell("a|b\nc"))
	fmt.Printf("%q\n", format.Inline("Two\r\nSum"))
	// Output:
	// "a\\|b c"
	// "Two  Sum"
}

func ExampleRenderStatus() {
	fmt.Print(format.RenderStatus(&format.StatusResponse{Version: "1.2.3", Platforms: []format.PlatformStatus{
		{Source: "codeforces", Total: 12984, MissingContent: 0, NotEmbedded: 1000},
	}}))
	// Output:
	// # OJ Platform Status (v1.2.3)
	//
	// | Platform | Problems | Missing Content | Not Embedded |
	// |----------|----------|-----------------|--------------|
	// | codeforces | 12,984 | 0 | 1,000 |
}
