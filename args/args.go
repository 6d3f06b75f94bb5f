package args

import (
	"errors"
	"fmt"

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

// ValidationError lists every violation found in one call's arguments (or,
// from ValidateOutput, in one result).
type ValidationError struct {
	// Errors holds one entry per violation, in the order found.
	Errors []FieldError

	result bool // from ValidateOutput: says "invalid result"
}

// Error joins every field error on one line.
func (e *ValidationError) Error() string {
	s := "invalid arguments:"
	if e.result {
		s = "invalid result:"
	}
	for i, fe := range e.Errors {
		if i > 0 {
			s += ";"
		}
		if fe.Field != "" {
			s += " " + fe.Field + ":"
		}
		s += " " + fe.Message
	}
	return s
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
