package args

import (
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
	// MaxBytes caps the body size; default DefaultMaxBytes (1 MiB).
	MaxBytes int
	// MaxDepth caps object/array nesting; default DefaultMaxDepth.
	MaxDepth int
}

// Defaults for DecodeOptions.
const (
	DefaultMaxBytes = 1 << 20
	DefaultMaxDepth = 64
)
