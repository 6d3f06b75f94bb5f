package toolmsg_test

import (
	"fmt"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/result"
)

// A validation failure is phrased as one message listing every field
// problem, so that the reader can correct all of them in one call.
func ExampleFailureText() {
	r := result.Failure[any]("invalid arguments", result.ValidationError).
		WithErrorData([]args.FieldError{
			{Field: "city", Message: "is required", Rule: "required"},
			{Field: "days", Message: "must be at most 7", Rule: "max"},
		})
	fmt.Println(toolmsg.FailureText(r))
	// Output:
	// invalid arguments (2 problems); correct every one and call again:
	// - city: is required [required]
	// - days: must be at most 7 [max]
}

// Classify tells a string value (shown as it is) from structured ones
// (shown as JSON).
func ExampleClassify() {
	for _, v := range []any{"plain text", map[string]int{"n": 1}, nil} {
		c, _ := toolmsg.Classify(v)
		fmt.Printf("%v %s\n", c.IsString, c.Text())
	}
	// Output:
	// true plain text
	// false {"n":1}
	// false null
}
