package result_test

import (
	"errors"
	"fmt"

	"github.com/toolpack-go/toolpack/result"
)

func ExampleOk() {
	r := result.Ok("3 documents indexed").WithMessage("Indexing finished.")
	s, _ := r.JSON()
	fmt.Println(s)
	// Output: {"success":true,"value":"3 documents indexed","message":"Indexing finished."}
}

func ExampleFailure() {
	r := result.Failure[string]("document 42 does not exist", result.NotFound).
		WithException(errors.New("row not found")).
		WithInstruction("Ask the user for another document id.")
	s, _ := r.JSON()
	fmt.Println(s)
	// Output: {"success":false,"error":"document 42 does not exist","error_type":"not_found","exception_type":"*errors.errorString","exception_message":"row not found","instruction":"Ask the user for another document id."}
}

func ExampleResult_Any() {
	typed := result.Ok(42)
	var untyped result.Result[any] = typed.Any()
	back, err := result.As[int](untyped)
	fmt.Println(back.Value, err)
	// Output: 42 <nil>
}

func ExampleApply() {
	ins := result.Instructions{Failure: "Report the failure; do not retry."}
	r := result.Apply(ins, result.Failure[int]("quota exceeded", result.RateLimited))
	fmt.Println(r.Instruction)
	// Output: Report the failure; do not retry.
}

// A tool returns rich content with Rich: adapters show each item in the
// protocol's own form (MCP content items, base64 with MIME type in REST).
func ExampleRich() {
	png := []byte{0x89, 'P', 'N', 'G'}
	r := result.Rich(result.Text("the chart:"), result.Image(png, "image/png"))
	s, _ := r.JSON()
	fmt.Println(s)
	// Output: {"success":true,"value":[{"type":"text","text":"the chart:"},{"type":"image","data":"iVBORw==","mimeType":"image/png"}]}
}
