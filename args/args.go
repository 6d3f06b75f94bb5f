package args

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolpack-go/toolpack/result"
)

// FieldError is one violation found in a call's arguments.
type FieldError struct {
	// Field is the JSON path of the offending field ("query", "tags[2]",
	// "filter.min"); empty for a problem with the whole body.
	Field string `json:"field"`
	// Rule is the violated rule: "required", "unknown_field", "type",
	// "min", "max", "oneof", "too_large", "too_deep", "syntax",
	// "invalid_utf8", …
	Rule string `json:"rule"`
	// Message says what was expected, in words a model can act on.
	Message string `json:"message"`
}

// MaxFieldErrors is the most violations a ValidationError lists. Past it,
// one last entry with the rule RuleTooManyErrors says that more were found
// and not listed: a body of a megabyte can hold a hundred thousand unknown
// keys or wrong values, and listing each would make the answer many times
// the size of the call (and the caller can act on the first ones).
const MaxFieldErrors = 100

// RuleTooManyErrors is the rule of the last entry of a ValidationError that
// found more than MaxFieldErrors violations.
const RuleTooManyErrors = "too_many_errors"

// tooManyErrors ends a list cut at MaxFieldErrors.
var tooManyErrors = FieldError{Rule: RuleTooManyErrors,
	Message: fmt.Sprintf("more problems were found and are not listed (only the first %d are); fix these and call again", MaxFieldErrors)}

// addError appends fe to errs while errs holds fewer than MaxFieldErrors
// entries; past them, see moreErrors.
func addError(errs []FieldError, fe FieldError) []FieldError {
	if len(errs) < MaxFieldErrors {
		return append(errs, fe)
	}
	return moreErrors(errs)
}

// moreErrors records a violation past the first MaxFieldErrors: the first
// appends tooManyErrors, later ones nothing.
func moreErrors(errs []FieldError) []FieldError {
	if len(errs) == MaxFieldErrors {
		return append(errs, tooManyErrors)
	}
	return errs
}

// ValidationError lists the violations found in one call's arguments (or,
// from ValidateOutput, in one result).
type ValidationError struct {
	// Errors holds one entry per violation, in the order found: at most
	// MaxFieldErrors of them, then, when more were found, one entry with
	// the rule RuleTooManyErrors.
	Errors []FieldError

	result bool // from ValidateOutput: says "invalid result"
}

// Error joins the field errors on one line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	if e.result {
		b.WriteString("invalid result:")
	} else {
		b.WriteString("invalid arguments:")
	}
	for i, fe := range e.Errors {
		if i > 0 {
			b.WriteByte(';')
		}
		if fe.Field != "" {
			b.WriteString(" " + fe.Field + ":")
		}
		b.WriteString(" " + fe.Message)
	}
	return b.String()
}

// Failure converts a ValidationError into a failed Result with error type
// validation_error and the field list as error_data.
func Failure[T any](e *ValidationError) result.Result[T] {
	return result.Failure[T](e.Error(), result.ValidationError).WithErrorData(e.Errors)
}

// DecodeOptions bounds what Decode reads. Zero fields take the defaults.
type DecodeOptions struct {
	// MaxBytes caps the body size; zero means DefaultMaxBytes (1 MiB).
	// Negative is refused (Validate).
	MaxBytes int
	// MaxDepth caps object/array nesting; zero means DefaultMaxDepth.
	// Negative is refused (Validate).
	MaxDepth int
}

// Validate reports, naming each field, the caps Decode cannot honour: a
// negative MaxBytes or MaxDepth. Zero means the default; a negative cap is
// a mistake, not "no cap", and Decode refuses it with this error rather
// than silently applying the default.
func (o DecodeOptions) Validate() error {
	var errs []error
	if o.MaxBytes < 0 {
		errs = append(errs, fmt.Errorf("args: DecodeOptions.MaxBytes is %d; expected zero (DefaultMaxBytes) or a positive number of bytes", o.MaxBytes))
	}
	if o.MaxDepth < 0 {
		errs = append(errs, fmt.Errorf("args: DecodeOptions.MaxDepth is %d; expected zero (DefaultMaxDepth) or a positive number of levels", o.MaxDepth))
	}
	return errors.Join(errs...)
}

// Defaults for DecodeOptions.
const (
	DefaultMaxBytes = 1 << 20
	DefaultMaxDepth = 64
)
