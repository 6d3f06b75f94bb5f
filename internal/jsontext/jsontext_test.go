package jsontext_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/jsontext"
)

// Depth counts brackets outside strings, escaped quotes included.
func TestDepth(t *testing.T) {
	for in, want := range map[string]int{
		`1`: 0, `{}`: 1, `[[{}]]`: 3, `{"a":"[[[{"}`: 1, `{"a":"\"[["}`: 1, `[[[`: 3, `{"a":[1,{"b":[]}]}`: 4,
	} {
		assert.Equal(t, want, jsontext.Depth([]byte(in)), in)
	}
}

// SyntaxProblem names the offset of a syntax error.
func TestSyntaxProblem(t *testing.T) {
	assert.Equal(t, "unexpected end of JSON input at byte 5", jsontext.SyntaxProblem([]byte(`{"a":`)))
	assert.Equal(t, "invalid character 'x' looking for beginning of value at byte 7", jsontext.SyntaxProblem([]byte(`{"a": x}`)))
}

// Kind names a value's kind as messages say it, spaces around it allowed.
func TestKind(t *testing.T) {
	for in, want := range map[string]string{
		` {"a":1}`: "an object", `[1]`: "an array", `"x"`: "a string", `true`: "a boolean", `false`: "a boolean",
		`null`: "null", `-1.5e3`: "a number", `  `: "nothing", ``: "nothing",
	} {
		assert.Equal(t, want, jsontext.Kind([]byte(in)), in)
	}
}

func ExampleDepth() {
	fmt.Println(jsontext.Depth([]byte(`{"a":[{"b":"]]"}]}`)))
	// Output: 3
}

func ExampleSyntaxProblem() {
	fmt.Println(jsontext.SyntaxProblem([]byte(`[1,]`)))
	// Output: invalid character ']' looking for beginning of value at byte 4
}
