// Package result defines Result, the value every toolpack tool returns.
//
// A Result is either a success carrying a value, or a domain failure carrying
// an error text and an ErrorType that a model (or a program) can react to. Both
// may carry a user-facing Message and an Instruction that guides the agent
// (what to do next, what not to retry). A failure may also carry the Exception
// that caused it and structured ErrorData such as the list of field errors of a
// validation failure.
//
// Go splits failures in two. A domain failure is a Result with Success false:
// bad arguments, not found, an upstream service that answered 4xx. A protocol
// failure (network down, malformed upstream data, a bug) is a non-nil error
// returned beside the Result by a handler; it never becomes a Result.
//
// # JSON form
//
// MarshalJSON produces the stable wire form (the equivalent of a to_json_str):
//
//	{"success":true,"value":…,"message":…,"instruction":…}
//	{"success":false,"error":…,"error_type":…,"exception_type":…,
//	 "exception_message":…,"message":…,"instruction":…,"error_data":…}
//
// success is always present; value is present on success (null when the value
// is nil) and absent on failure; every other field is omitted when empty. The
// exception is flattened to exception_type and exception_message. Unmarshalling
// the JSON form gives back an equal Result: the exception comes back as an
// *Exception, error_data as a json.RawMessage, and numbers inside an
// interface-typed value (Result[any]) as json.Number, so none is rounded.
package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// ErrorType classifies a domain failure so that a caller can react to it
// without parsing the error text. The constants below cover the common kinds;
// a tool may use its own values (lowercase snake_case by convention).
type ErrorType string

// Common error types.
const (
	// ValidationError: the arguments were rejected; ErrorData lists the fields.
	ValidationError ErrorType = "validation_error"
	// NotFound: the thing asked for does not exist.
	NotFound ErrorType = "not_found"
	// SecurityError: the call was refused for a security reason (path escape,
	// missing consent, forbidden host).
	SecurityError ErrorType = "security_error"
	// PermissionDenied: the caller lacks the rights for this call.
	PermissionDenied ErrorType = "permission_denied"
	// UpstreamFailure: a service the tool depends on failed or answered with
	// an error status.
	UpstreamFailure ErrorType = "upstream_failure"
	// Timeout: the call or an upstream request ran out of time.
	Timeout ErrorType = "timeout"
	// Cancelled: the caller cancelled the call.
	Cancelled ErrorType = "cancelled"
	// RateLimited: too many calls; retry later.
	RateLimited ErrorType = "rate_limited"
	// Conflict: the call clashes with the current state (already exists, …).
	Conflict ErrorType = "conflict"
	// Unavailable: the tool or its backend is disabled or disconnected.
	Unavailable ErrorType = "unavailable"
	// InternalError: a bug in the tool, such as a recovered panic.
	InternalError ErrorType = "internal_error"
)

// Result is the outcome of a tool call. Build one with Ok or Failure and add
// optional fields with the With… methods; the zero Result is a failure with
// no error text and should not be used.
type Result[T any] struct {
	// Success reports whether the call succeeded.
	Success bool
	// Value is the value of a successful call; the zero value on failure.
	Value T
	// Error is the failure text; empty on success.
	Error string
	// ErrorType classifies the failure; empty on success.
	ErrorType ErrorType
	// Message is optional text meant for the user.
	Message string
	// Instruction is optional guidance meant for the agent: prevent a
	// remediation, suggest a fix, change mode. It is kept apart from Message.
	Instruction string
	// Exception is the underlying error of a failure, if any. In JSON it
	// becomes exception_type and exception_message; after unmarshalling it
	// is an *Exception.
	Exception error
	// ErrorData holds structured failure details, such as the field errors of
	// a validation failure. It must be JSON-marshalable. After unmarshalling
	// it is a json.RawMessage.
	ErrorData any
}

// Ok returns a successful Result holding v.
func Ok[T any](v T) Result[T] {
	return Result[T]{Success: true, Value: v}
}

// Failure returns a failed Result with the error text msg and the type typ.
func Failure[T any](msg string, typ ErrorType) Result[T] {
	return Result[T]{Error: msg, ErrorType: typ}
}

// Failuref is Failure with a fmt.Sprintf-formatted error text.
func Failuref[T any](typ ErrorType, format string, a ...any) Result[T] {
	return Result[T]{Error: fmt.Sprintf(format, a...), ErrorType: typ}
}

// WithMessage returns a copy of r with the user-facing message set.
func (r Result[T]) WithMessage(msg string) Result[T] { r.Message = msg; return r }

// WithInstruction returns a copy of r with the agent instruction set.
func (r Result[T]) WithInstruction(ins string) Result[T] { r.Instruction = ins; return r }

// WithException returns a copy of r with the underlying error set.
func (r Result[T]) WithException(err error) Result[T] { r.Exception = err; return r }

// WithErrorData returns a copy of r with structured failure details set.
func (r Result[T]) WithErrorData(data any) Result[T] { r.ErrorData = data; return r }

// Any converts r to a Result[any] holding the same fields; nothing is lost.
// It is how typed tool results enter the registry.
func (r Result[T]) Any() Result[any] {
	out := Result[any]{
		Success:     r.Success,
		Error:       r.Error,
		ErrorType:   r.ErrorType,
		Message:     r.Message,
		Instruction: r.Instruction,
		Exception:   r.Exception,
		ErrorData:   r.ErrorData,
	}
	if r.Success {
		out.Value = r.Value
	}
	return out
}

// As converts a Result[any] back to a Result[T]. The value must hold a T (or
// be nil, giving T's zero value); otherwise As returns an error naming both
// types.
func As[T any](r Result[any]) (Result[T], error) {
	out := Result[T]{
		Success:     r.Success,
		Error:       r.Error,
		ErrorType:   r.ErrorType,
		Message:     r.Message,
		Instruction: r.Instruction,
		Exception:   r.Exception,
		ErrorData:   r.ErrorData,
	}
	if r.Value == nil {
		return out, nil
	}
	v, ok := r.Value.(T)
	if !ok {
		var zero T
		return out, fmt.Errorf("result: value is %T, not %s", r.Value, typeName(reflect.TypeOf(&zero).Elem()))
	}
	out.Value = v
	return out, nil
}

// Err returns nil for a success and a *FailureError describing the failure
// otherwise, so that Go callers can use errors.As on a Result.
func (r Result[T]) Err() error {
	if r.Success {
		return nil
	}
	return &FailureError{Type: r.ErrorType, Message: r.Error, Cause: r.Exception}
}

// FailureError is the error form of a failed Result, returned by Result.Err.
type FailureError struct {
	// Type is the Result's ErrorType.
	Type ErrorType
	// Message is the Result's error text.
	Message string
	// Cause is the Result's Exception, if any.
	Cause error
}

// Error returns "{type}: {message}".
func (e *FailureError) Error() string {
	if e.Type == "" {
		return e.Message
	}
	return string(e.Type) + ": " + e.Message
}

// Unwrap returns the Result's Exception.
func (e *FailureError) Unwrap() error { return e.Cause }

// Exception is an error rebuilt from the exception_type and exception_message
// of a Result's JSON form. A tool may also use it to report an exception of a
// chosen type name.
type Exception struct {
	// Type is the exception's type name, such as "*net.OpError".
	Type string
	// Message is the exception's text.
	Message string
}

// Error returns the exception's message.
func (e *Exception) Error() string { return e.Message }

// ExceptionType returns the type name written to exception_type for err: the
// Type of an *Exception, otherwise the Go type of err as printed by %T.
func ExceptionType(err error) string {
	var ex *Exception
	if errors.As(err, &ex) && ex == err {
		return ex.Type
	}
	return fmt.Sprintf("%T", err)
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	return t.String()
}

// wire is the JSON form of a Result.
type wire struct {
	Success          bool            `json:"success"`
	Value            json.RawMessage `json:"value,omitempty"`
	Error            string          `json:"error,omitempty"`
	ErrorType        ErrorType       `json:"error_type,omitempty"`
	ExceptionType    string          `json:"exception_type,omitempty"`
	ExceptionMessage string          `json:"exception_message,omitempty"`
	Message          string          `json:"message,omitempty"`
	Instruction      string          `json:"instruction,omitempty"`
	ErrorData        json.RawMessage `json:"error_data,omitempty"`
}

var jsonNull = []byte("null")

// MarshalJSON writes the stable JSON form described in the package doc.
func (r Result[T]) MarshalJSON() ([]byte, error) {
	w := wire{
		Success:     r.Success,
		Error:       r.Error,
		ErrorType:   r.ErrorType,
		Message:     r.Message,
		Instruction: r.Instruction,
	}
	if r.Success {
		v, err := json.Marshal(r.Value)
		if err != nil {
			return nil, fmt.Errorf("result: marshal value: %w", err)
		}
		w.Value = v
	}
	if r.Exception != nil {
		w.ExceptionType = ExceptionType(r.Exception)
		w.ExceptionMessage = r.Exception.Error()
	}
	if r.ErrorData != nil {
		d, err := json.Marshal(r.ErrorData)
		if err != nil {
			return nil, fmt.Errorf("result: marshal error_data: %w", err)
		}
		if !bytes.Equal(d, jsonNull) {
			w.ErrorData = d
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the JSON form. Unknown fields are ignored; a value that
// does not fit T is an error naming the field.
func (r *Result[T]) UnmarshalJSON(data []byte) error {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("result: %w", err)
	}
	out := Result[T]{
		Success:     w.Success,
		Error:       w.Error,
		ErrorType:   w.ErrorType,
		Message:     w.Message,
		Instruction: w.Instruction,
	}
	if len(w.Value) > 0 {
		// UseNumber keeps numbers held in interface values (Result[any])
		// exact: they come back as json.Number, not a rounded float64.
		dec := json.NewDecoder(bytes.NewReader(w.Value))
		dec.UseNumber()
		if err := dec.Decode(&out.Value); err != nil {
			return fmt.Errorf("result: field value: %w", err)
		}
	}
	if w.ExceptionType != "" || w.ExceptionMessage != "" {
		out.Exception = &Exception{Type: w.ExceptionType, Message: w.ExceptionMessage}
	}
	if len(w.ErrorData) > 0 {
		out.ErrorData = json.RawMessage(w.ErrorData)
	}
	*r = out
	return nil
}

// JSON returns the JSON form as a string, the equivalent of to_json_str. A
// value that cannot be marshalled is reported as an error.
func (r Result[T]) JSON() (string, error) {
	b, err := r.MarshalJSON()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Instructions are the default agent instructions a host applies to results
// that carry none. The zero value applies nothing.
type Instructions struct {
	// Success is used for successful results without an Instruction.
	Success string
	// Failure is used for failed results without an Instruction.
	Failure string
}

// DefaultInstructions returns the library's suggested defaults: on success,
// use the value as it is; on failure, do not work around the failure, report
// it and correct the call only when the error says how.
func DefaultInstructions() Instructions {
	return Instructions{
		Success: "Use the value as returned; do not invent fields it does not contain.",
		Failure: "Do not try to work around this failure. Report it to the user; correct and retry the call only if the error says how.",
	}
}

// Apply returns r with the matching default instruction filled in when r
// has no Instruction of its own.
func Apply[T any](ins Instructions, r Result[T]) Result[T] {
	if r.Instruction != "" {
		return r
	}
	if r.Success {
		r.Instruction = ins.Success
	} else {
		r.Instruction = ins.Failure
	}
	return r
}
