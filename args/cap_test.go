package args_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
)

type capArgs struct {
	Text string   `json:"text" validate:"required"`
	Tags []string `json:"tags" validate:"dive,min=2"`
}

// A body near the 1 MiB cap made only of problems — unknown keys, values of
// the wrong type, values breaking a rule — is answered with the first
// MaxFieldErrors of them and one entry saying more were found: the error
// stays a few kilobytes (it was the size of the body, built in time growing
// with its square: 75,000 unknown keys took minutes of CPU).
func TestDecode_ProblemsListedUpToTheCap(t *testing.T) {
	var keys strings.Builder
	keys.WriteString(`{"text":"a"`)
	for i := 0; keys.Len() < args.DefaultMaxBytes-32; i++ {
		fmt.Fprintf(&keys, `,"k%d":1`, i)
	}
	keys.WriteString("}")
	bodies := map[string]string{
		"unknown keys": keys.String(),
		"wrong types":  `{"text":"a","tags":[` + strings.Repeat(`1,`, args.DefaultMaxBytes/2-32) + `1]}`,
		"rules broken": `{"text":"a","tags":[` + strings.Repeat(`"x",`, args.DefaultMaxBytes/4-32) + `"x"]}`,
		"all three":    `{"tags":[1,"x",` + strings.Repeat(`"x",1,`, 50_000) + `"x"],` + strings.Repeat(`"k":1,`, 50_000) + `"z":1}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			require.LessOrEqual(t, len(body), args.DefaultMaxBytes)
			_, err := args.Decode[capArgs]([]byte(body), args.DecodeOptions{})
			var ve *args.ValidationError
			require.ErrorAs(t, err, &ve)
			// The first 100, the top-level parameters' problems past
			// them (here at most text's), then the entry saying more.
			require.GreaterOrEqual(t, len(ve.Errors), args.MaxFieldErrors+1)
			require.LessOrEqual(t, len(ve.Errors), args.MaxFieldErrors+3)
			last := ve.Errors[len(ve.Errors)-1]
			assert.Equal(t, args.RuleTooManyErrors, last.Rule)
			assert.Contains(t, last.Message, "past the first 100")
			for _, fe := range ve.Errors[:len(ve.Errors)-1] {
				assert.NotEqual(t, args.RuleTooManyErrors, fe.Rule)
			}
			if name == "all three" {
				assert.Contains(t, ve.Errors, args.FieldError{Field: "text", Rule: "required", Message: "is required and must not be empty"},
					"a top-level parameter's problem past the cap is still listed")
			}
			assert.Less(t, len(err.Error()), 16<<10, "the message lists the first problems only")
		})
	}
}

// Up to the cap every problem is listed, and no "more" entry is added.
func TestDecode_ProblemsUpToTheCapAllListed(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"text":"a"`)
	for i := range args.MaxFieldErrors {
		fmt.Fprintf(&b, `,"k%d":1`, i)
	}
	b.WriteString("}")
	_, err := args.Decode[capArgs]([]byte(b.String()), args.DecodeOptions{})
	var ve *args.ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Errors, args.MaxFieldErrors)
	assert.Equal(t, "k99", ve.Errors[args.MaxFieldErrors-1].Field)
	assert.Equal(t, "unknown_field", ve.Errors[args.MaxFieldErrors-1].Rule)
}

// A list a tool builds by hand is cut as Decode cuts its own: by
// NewValidationError, and by Error and Failure when built past the cap.
func TestNewValidationError_CutsAListBuiltByHand(t *testing.T) {
	fes := make([]args.FieldError, 500)
	for i := range fes {
		fes[i] = args.FieldError{Field: fmt.Sprintf("k%d", i), Rule: "unknown_field", Message: "unknown"}
	}
	ve := args.NewValidationError(fes)
	require.Len(t, ve.Errors, args.MaxFieldErrors+1)
	assert.Equal(t, args.RuleTooManyErrors, ve.Errors[args.MaxFieldErrors].Rule)
	assert.Len(t, args.NewValidationError(fes[:args.MaxFieldErrors]).Errors, args.MaxFieldErrors, "up to the cap, every one")

	byHand := &args.ValidationError{Errors: fes}
	assert.NotContains(t, byHand.Error(), "k100:")
	r := args.Failure[any](byHand)
	listed, ok := r.ErrorData.([]args.FieldError)
	require.True(t, ok)
	assert.Len(t, listed, args.MaxFieldErrors+1)
}
