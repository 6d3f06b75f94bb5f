// Package toolmsg phrases a tool's Result for whoever reads it next — an
// MCP client or a model in an agent loop — so that every adapter says the
// same thing: success values as their text or JSON, rich content as its
// items, and failures as one message listing every field problem so that a
// model can correct its call.
package toolmsg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

// MaxErrorDataBytes caps the error_data re-read to list field errors;
// larger data is not listed.
const MaxErrorDataBytes = 1 << 20

// Value is a success value as a reader sees it: a string (shown as it is)
// or the JSON of anything else.
type Value struct {
	// IsString reports a string value.
	IsString bool
	// Str is the string, when IsString.
	Str string
	// Raw is the JSON (of the string too, when a json.RawMessage held it);
	// nil for a Go string until needed.
	Raw json.RawMessage
}

var jsonNull = json.RawMessage("null")

// IsNull reports the JSON null.
func (v Value) IsNull() bool { return !v.IsString && bytes.Equal(v.Raw, jsonNull) }

// IsObject reports whether the value is a JSON object.
func (v Value) IsObject() bool { return !v.IsString && len(v.Raw) > 0 && v.Raw[0] == '{' }

// JSON returns the value's JSON, marshalling a Go string when needed.
func (v Value) JSON() (json.RawMessage, error) {
	if v.Raw != nil || !v.IsString {
		return v.Raw, nil
	}
	return MarshalValue(v.Str)
}

// Text is what a reader is shown of the value: the string itself, or the
// JSON of anything else.
func (v Value) Text() string {
	if v.IsString {
		return v.Str
	}
	return string(v.Raw)
}

// Kind names the JSON type of the value, for errors.
func (v Value) Kind() string {
	if v.IsString {
		return "a string"
	}
	switch v.Raw[0] {
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	default:
		return "a number"
	}
}

// Classify splits a success value into a string or the JSON of a
// structured value. A json.RawMessage holding a JSON string (as a proxied
// tool may return) counts as a string. An error means the value cannot be
// represented (it does not marshal, or a json.RawMessage is not JSON).
func Classify(v any) (Value, error) {
	switch v := v.(type) {
	case nil:
		return Value{Raw: jsonNull}, nil
	case string:
		return Value{IsString: true, Str: v}, nil
	case json.RawMessage:
		t := bytes.TrimSpace(v)
		if !json.Valid(t) {
			return Value{}, fmt.Errorf("value: expected valid JSON in json.RawMessage, got %d invalid bytes", len(v))
		}
		if t[0] == '"' {
			var s string
			if err := json.Unmarshal(t, &s); err != nil {
				return Value{}, fmt.Errorf("value: %w", err)
			}
			return Value{IsString: true, Str: s, Raw: t}, nil
		}
		return Value{Raw: t}, nil
	default:
		raw, err := MarshalValue(v)
		if err != nil {
			return Value{}, err
		}
		return Value{Raw: raw}, nil
	}
}

// MarshalValue is the JSON of v without HTML escaping (the text is read by
// models and programs, not embedded in HTML).
func MarshalValue(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("value of type %T: %w", v, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// RichContents returns the items of a rich success value (result.Contents
// or a single result.Content), and whether the value is one.
func RichContents(v any) (result.Contents, bool) {
	switch v := v.(type) {
	case result.Contents:
		return v, true
	case result.Content:
		return result.Contents{v}, true
	case *result.Content:
		if v == nil {
			return nil, false
		}
		return result.Contents{*v}, true
	}
	return nil, false
}

// invalidArguments opens the error of a validation failure with field
// errors, as the registry writes it.
const invalidArguments = "invalid arguments"

// FailureText is the text of a domain failure: its error (or, for a
// validation failure with field errors, a line asking to correct them,
// keeping any context a wrapper put in front of the error), then one line
// per field problem, then the instruction for the agent. A failure whose
// one field problem says what its error says (a tool's own message, such
// as the ot pack's seed texts, naming its argument in the data) is its
// error alone, word for word.
func FailureText(r result.Result[any]) string {
	var sb strings.Builder
	fes := FieldErrors(r.ErrorData)
	if len(fes) == 1 && fes[0].Message == r.Error {
		fes = nil
	}
	// The problems counted: a list cut at args.MaxFieldErrors ends with an
	// entry saying more were found, which is no problem of its own.
	count := len(fes)
	more := ""
	if count > args.MaxFieldErrors {
		// A list past the cap not cut by args (a remote's, built by
		// hand) is cut as args cuts it; one args cut stays as it is.
		fes = args.NewValidationError(fes).Errors
		count = len(fes)
	}
	if count > 0 && fes[count-1].Rule == args.RuleTooManyErrors {
		count--
		more = "more than "
	}
	switch {
	case r.ErrorType == result.ValidationError && len(fes) > 0:
		if at := strings.Index(r.Error, invalidArguments); at > 0 {
			// A failure passed up with its context in front (a snippet's
			// step: `snippet "s": line 2: add failed: invalid arguments:
			// …`): the context says where the problems are, and the
			// caller's own arguments may well be right.
			fmt.Fprintf(&sb, "%s%s (%s%d %s):", r.Error[:at], invalidArguments, more, count, plural(count, "problem", "problems"))
			break
		}
		fmt.Fprintf(&sb, "%s (%s%d %s); correct every one and call again:", invalidArguments, more, count, plural(count, "problem", "problems"))
	case r.Error != "":
		sb.WriteString(r.Error)
	case r.ErrorType != "":
		fmt.Fprintf(&sb, "the tool call failed (%s)", r.ErrorType)
	default:
		sb.WriteString("the tool call failed")
	}
	for _, fe := range fes {
		sb.WriteString("\n- ")
		if fe.Field != "" {
			sb.WriteString(fe.Field)
		} else {
			sb.WriteString("(arguments)")
		}
		sb.WriteString(": ")
		sb.WriteString(fe.Message)
		if fe.Rule != "" {
			sb.WriteString(" [")
			sb.WriteString(fe.Rule)
			sb.WriteString("]")
		}
	}
	if r.Instruction != "" {
		sb.WriteString("\n\n")
		sb.WriteString(r.Instruction)
	}
	return sb.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FieldErrors reads a validation failure's error_data as field errors: a
// []args.FieldError as the registry produces it, or any JSON form of one
// (a json.RawMessage after a round trip, a proxied tool's data). Data of
// another shape, or over MaxErrorDataBytes, gives nil.
func FieldErrors(data any) []args.FieldError {
	switch v := data.(type) {
	case nil:
		return nil
	case []args.FieldError:
		return v
	case *args.ValidationError:
		if v == nil {
			return nil
		}
		return v.Errors
	case json.RawMessage:
		return parseFieldErrors(v)
	case []byte:
		return parseFieldErrors(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		return parseFieldErrors(b)
	}
}

func parseFieldErrors(b []byte) []args.FieldError {
	if len(b) == 0 || len(b) > MaxErrorDataBytes {
		return nil
	}
	var fes []args.FieldError
	if err := json.Unmarshal(b, &fes); err != nil {
		return nil
	}
	for _, fe := range fes {
		if fe.Message == "" {
			return nil // not field errors, just something array-shaped
		}
	}
	return fes
}
