package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// benchOutputSchema is the output schema registry.Func generates for the
// benchmark's 5-field result type, the common case for structured tools.
func benchOutputSchema(b *testing.B) json.RawMessage {
	tool, err := registry.Func("search", func(_ context.Context, a benchtool.SearchArgs) (result.Result[benchtool.SearchOut], error) {
		return result.Ok(benchtool.Search(a)), nil
	}, registry.ToolOptions{Doc: "Searches."})
	if err != nil {
		b.Fatal(err)
	}
	return tool.OutputSchema
}

// BenchmarkServeToolOutputShape measures what serving one tool costs for
// its output schema — sdkTool's shapeOf (the handler's runs at its first
// call) — against the baseline of what sdkTool did before (json.Valid of
// the schema), in the same loop ("ratio"); and, for scale, wrapping a
// non-object schema.
func BenchmarkServeToolOutputShape(b *testing.B) {
	obj := benchOutputSchema(b)
	b.Run("ratio_object_vs_json_valid", func(b *testing.B) {
		benchtool.Interleave(b, func() {
			if s, err := shapeOf(obj); err != nil || s != shapeObject {
				b.Fatal(s, err)
			}
		}, func() {
			if !json.Valid(obj) {
				b.Fatal("invalid")
			}
		})
	})
	arr := json.RawMessage(`{"type":"array","items":` + string(obj) + `}`)
	b.Run("wrap_array_of_objects", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := wrapOutputSchema(arr); err != nil {
				b.Fatal(err)
			}
		}
	})
}
