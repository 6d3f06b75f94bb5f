package mcpmap_test

import (
	"fmt"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/result"
)

// A structured value shows as its JSON text and, for a tool advertising an
// object output schema, as the structured content; a failure is its text
// with IsError.
func ExampleMap() {
	ok, _ := mcpmap.Map(result.Ok[any](map[string]int{"n": 3}), false, mcpmap.ShapeObject)
	fmt.Println(ok.Content[0].Text, string(ok.Structured), ok.IsError)
	bad, _ := mcpmap.Map(result.Failure[any]("no such city", result.NotFound), false, mcpmap.ShapeObject)
	fmt.Println(bad.Content[0].Text, bad.Structured == nil, bad.IsError)
	// Output:
	// {"n":3} {"n":3} false
	// no such city true true
}

// A number is advertised and sent wrapped as {"value": …}, since MCP's
// structured content is an object.
func ExampleShapeOf() {
	shape, _ := mcpmap.ShapeOf([]byte(`{"type":"integer"}`))
	wrapped, _ := mcpmap.WrapOutputSchema([]byte(`{"type":"integer"}`))
	rep, _ := mcpmap.Map(result.Ok[any](42), false, shape)
	fmt.Println(string(wrapped))
	fmt.Println(string(rep.Structured))
	// Output:
	// {"additionalProperties":false,"properties":{"value":{"type":"integer"}},"required":["value"],"type":"object"}
	// {"value":42}
}
