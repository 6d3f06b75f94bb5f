package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/toolpack-go/toolpack/result"
)

// BenchmarkRichImage maps and encodes (as the client receives it) a 64 KiB
// image result; the baseline is the same bytes returned the way a tool
// without rich content would have to: as a base64 string in text content.
// Compare the two ns/op figures (ratio rich/baseline).
func BenchmarkRichImage(b *testing.B) {
	img := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 16<<10)
	b.Run("baseline=base64-text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := result.Ok[any](base64.StdEncoding.EncodeToString(img))
			out, err := toCallToolResult(r, DisplayValue, shapeFree)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rich=image-item", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := result.Rich(result.Image(img, "image/png")).Any()
			out, err := toCallToolResult(r, DisplayValue, shapeFree)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
