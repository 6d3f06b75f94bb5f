package toolmsg_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// A tool's own validation failure whose one field problem says what its
// error says (the ot pack's seed texts, which name their argument in the
// data for REST's details) is shown word for word, not reworded as the
// registry's list; its instruction still follows.
func TestFailureText_AToolsOwnMessageWordForWord(t *testing.T) {
	msg := "offset must be >= 1 (1-indexed), got 0"
	own := result.Failure[any](msg, result.ValidationError).
		WithErrorData([]args.FieldError{{Field: "offset", Rule: "min", Message: msg}}).WithInstruction("Fix it.")
	assert.Equal(t, msg+"\n\nFix it.", toolmsg.FailureText(own))

	other := result.Failure[any](msg, result.ValidationError).
		WithErrorData([]args.FieldError{{Field: "offset", Rule: "min", Message: "must be at least 1"}})
	assert.Equal(t, "invalid arguments (1 problem); correct every one and call again:\n- offset: must be at least 1 [min]", toolmsg.FailureText(other),
		"a field problem saying something else is listed as before")
}

// A list cut at args.MaxFieldErrors is counted without its last entry
// (which says more were found): "more than 100 problems", never "101".
func TestFailureText_CutListCountedAsMoreThan(t *testing.T) {
	body := []byte(`{"text":"a"`)
	for i := range 150 {
		body = fmt.Appendf(body, `,"k%d":1`, i)
	}
	body = append(body, '}')
	type in struct {
		Text string `json:"text"`
	}
	_, err := args.Decode[in](body, args.DecodeOptions{})
	var ve *args.ValidationError
	require.ErrorAs(t, err, &ve)
	text := toolmsg.FailureText(args.Failure[any](ve))
	assert.Contains(t, text, "invalid arguments (more than 100 problems); correct every one")
	assert.NotContains(t, text, "101 problems")

	// A remote's list of 300, not cut by args, is cut as args cuts.
	fes := make([]args.FieldError, 300)
	for i := range fes {
		fes[i] = args.FieldError{Field: fmt.Sprintf("k%d", i), Rule: "unknown_field", Message: "unknown field"}
	}
	text = toolmsg.FailureText(result.Failure[any]("invalid arguments: …", result.ValidationError).WithErrorData(fes))
	assert.Contains(t, text, "(more than 100 problems)")
	assert.NotContains(t, text, "k100:")
}
