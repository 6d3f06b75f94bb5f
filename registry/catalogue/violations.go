package catalogue

import (
	"errors"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/result"
)

// ErrTypeOutputMismatch is the error type of a tool whose value does not
// match its outputSchema (see [OutputMismatch]).
const ErrTypeOutputMismatch result.ErrorType = "output_mismatch"

// OutputMismatch is the failed Result of a tool whose value does not
// match its outputSchema (err from Validate): of type
// ErrTypeOutputMismatch, with the text "{what} does not match the output
// schema: /pointer: keyword; …" and the violations as ErrorData. Neither
// quotes the value (it may be an upstream's answer the model must not see
// in an error), so the validator's messages are left out.
func OutputMismatch(what string, err error) result.Result[any] {
	vs := Violations(err)
	for i := range vs {
		vs[i].Message = ""
	}
	if len(vs) == 0 {
		vs = []Violation{{Keyword: "schema"}}
	}
	var b strings.Builder
	b.WriteString(what + " does not match the output schema: ")
	for i, v := range vs {
		if i > 0 {
			b.WriteString("; ")
		}
		p := v.Pointer
		if p == "" {
			p = "(value)"
		}
		b.WriteString(p + ": " + v.Keyword)
	}
	return result.Failure[any](b.String(), ErrTypeOutputMismatch).WithErrorData(vs)
}

// Violation is one place where a JSON value breaks a schema: where and
// which keyword. It never quotes the value (it may hold secrets or a
// large upstream answer).
type Violation struct {
	// Pointer is the JSON Pointer of the offending value ("" for the
	// whole value).
	Pointer string `json:"pointer"`
	// Keyword is the schema keyword that failed ("type", "required", …).
	Keyword string `json:"keyword"`
	// Message is the validator's description of the problem, for people
	// and for models correcting a call.
	Message string `json:"-"`
}

// Violations lists the innermost violations of a schema validation error
// (from a schema compiled with [CompileSchema]), one per failing leaf, in
// the validator's order. Any other error gives one violation of the whole
// value with keyword "schema".
func Violations(err error) []Violation {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		if err == nil {
			return nil
		}
		return []Violation{{Keyword: "schema", Message: err.Error()}}
	}
	var out []Violation
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			kw := u.KeywordLocation[strings.LastIndexByte(u.KeywordLocation, '/')+1:]
			if kw == "" || kw[0] >= '0' && kw[0] <= '9' {
				kw = "schema"
			}
			out = append(out, Violation{Pointer: u.InstanceLocation, Keyword: kw, Message: u.Error.String()})
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.BasicOutput())
	if len(out) == 0 {
		out = append(out, Violation{Keyword: "schema", Message: ve.Error()})
	}
	return out
}

// FieldPath turns a JSON Pointer into the field path used in field
// errors: "/items/2/name" → "items[2].name", "" → "".
func FieldPath(ptr string) string {
	if ptr == "" {
		return ""
	}
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}
