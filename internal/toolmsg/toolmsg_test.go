package toolmsg_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/result"
)

// A validation failure that a wrapper passed up (a snippet's step) keeps
// the wrapper's context: the field names are the step's, not the caller's,
// so the text must say where they come from.
func TestFailureText_KeepsTheContextOfAPassedUpValidationFailure(t *testing.T) {
	fes := []args.FieldError{{Field: "count", Message: `expected integer, got string "3"`, Rule: "type"}}
	wrapped := result.Failure[any](`snippet "pick": line 1: lines failed: invalid arguments: count: expected integer, got string "3"`, result.ValidationError).
		WithErrorData(fes)
	assert.Equal(t, `snippet "pick": line 1: lines failed: invalid arguments (1 problem):`+"\n"+
		`- count: expected integer, got string "3" [type]`, toolmsg.FailureText(wrapped))

	own := result.Failure[any](`invalid arguments: count: expected integer, got string "3"`, result.ValidationError).
		WithErrorData(fes)
	assert.Equal(t, `invalid arguments (1 problem); correct every one and call again:`+"\n"+
		`- count: expected integer, got string "3" [type]`, toolmsg.FailureText(own),
		"the caller's own invalid arguments are asked to be corrected")
}
