package jsonptr_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
)

// Tokens are escaped as RFC 6901 says ("~" first, so "/" never becomes
// "~01"), and joined with a leading "/" each; no token is the whole
// document.
func TestEscapeAndFromTokens(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a/b": "a~1b", "~": "~0", "~1": "~01", "/~": "~1~0", "é x": "é x"} {
		assert.Equal(t, want, jsonptr.Escape(in), in)
	}
	assert.Equal(t, "", jsonptr.FromTokens(nil))
	assert.Equal(t, "/a~1b/2/", jsonptr.FromTokens([]string{"a/b", "2", ""}))
}

func ExampleFromTokens() {
	fmt.Println(jsonptr.FromTokens([]string{"items", "2", "a/b"}))
	// Output: /items/2/a~1b
}
