package args

import (
	"errors"
	"fmt"
	"slices"
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

// MaxFieldErrors bounds the violations a ValidationError lists. Past it,
// only the problems of the declared top-level parameters are still listed
// (at most one each, so that an error type given to a parameter — see
// registry.FieldErrorTypes — still decides the failure's), and one last
// entry with the rule RuleTooManyErrors says that more were found and not
// listed: a body of a megabyte can hold a hundred thousand unknown keys or
// wrong values, and listing each would make the answer many times the size
// of the call (and the caller can act on the first ones).
const MaxFieldErrors = 100

// RuleTooManyErrors is the rule of the last entry of a ValidationError that
// found more than MaxFieldErrors violations.
const RuleTooManyErrors = "too_many_errors"

// tooManyErrors ends a list cut at MaxFieldErrors.
var tooManyErrors = FieldError{Rule: RuleTooManyErrors,
	Message: fmt.Sprintf("more problems were found and are not listed (past the first %d, only those of the top-level parameters are); fix these and call again", MaxFieldErrors)}

// addError adds fe to errs, a list kept by the rule of MaxFieldErrors: fe
// is listed while fewer than MaxFieldErrors are, or when top (a declared
// top-level parameter's problem), before the tooManyErrors entry that
// ends the list once a problem went unlisted.
func addError(errs []FieldError, fe FieldError, top bool) []FieldError {
	marked := len(errs) > 0 && errs[len(errs)-1].Rule == RuleTooManyErrors
	listed := len(errs)
	if marked {
		listed--
	}
	switch {
	case listed < MaxFieldErrors || top:
		if marked {
			return slices.Insert(errs, listed, fe)
		}
		return append(errs, fe)
	case !marked:
		return append(errs, tooManyErrors)
	}
	return errs
}

// listing reports whether addError(errs, …, top) would list the problem:
// its path and message need to be made only then.
func listing(errs []FieldError, top bool) bool {
	return top || len(errs) < MaxFieldErrors
}

// NewValidationError returns a ValidationError listing errs by the rule of
// MaxFieldErrors (the first ones, then an entry with the rule
// RuleTooManyErrors when there were more): for tools that check their
// arguments themselves and may find a problem per key of a large body.
func NewValidationError(errs []FieldError) *ValidationError {
	return &ValidationError{Errors: capErrors(errs)}
}

// capErrors is errs as listed by the rule of MaxFieldErrors: a list whose
// last entry has the rule RuleTooManyErrors is cut already (Decode's keeps
// the top-level parameters' problems past the first MaxFieldErrors); a
// longer one is cut to its first MaxFieldErrors and cutByHand.
func capErrors(errs []FieldError) []FieldError {
	if n := len(errs); n <= MaxFieldErrors || errs[n-1].Rule == RuleTooManyErrors {
		return errs
	}
	return append(slices.Clip(errs[:MaxFieldErrors]), cutByHand)
}

// cutByHand ends a list capErrors cut: unlike Decode, it cannot tell the
// top-level parameters' problems apart, so it lists none past the cap.
var cutByHand = FieldError{Rule: RuleTooManyErrors,
	Message: fmt.Sprintf("more problems were found and are not listed (only the first %d are); fix these and call again", MaxFieldErrors)}

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
	for i, fe := range capErrors(e.Errors) {
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
// validation_error and the field list as error_data (cut by the rule of
// MaxFieldErrors when it was built by hand past it).
func Failure[T any](e *ValidationError) result.Result[T] {
	return result.Failure[T](e.Error(), result.ValidationError).WithErrorData(capErrors(e.Errors))
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
