package catalogue

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolpack-go/toolpack/internal/jsonnum"
	"github.com/toolpack-go/toolpack/internal/jsonptr"
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
		if vs[i].Keyword != KeywordTooManyViolations { // its message counts the rest, quoting nothing
			vs[i].Message = ""
		}
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
		if v.Keyword == KeywordTooManyViolations {
			b.WriteString(v.Message)
			continue
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
	// Message says what was expected there, for people and for models
	// correcting a call.
	Message string `json:"-"`
}

// Violations lists the innermost violations of a schema validation error
// (from a schema compiled with [CompileSchema]), one per failing leaf, in
// the validator's order: at most MaxViolations, then one saying how many
// more were found. A missing required property and a property the
// schema does not allow are each a violation of that property ("/n"
// required: "is required"); the common keywords' messages say what was
// expected in the words the registry's own argument checks use
// ("expected integer, got string", "must be at most 10, got 11"). Any
// other error gives one violation of the whole value with keyword
// "schema".
func Violations(err error) []Violation {
	var ne *NumberError
	if errors.As(err, &ne) {
		return []Violation{{Pointer: ne.Pointer, Keyword: "type", Message: "expected " + jsonnum.Expected}}
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		if err == nil {
			return nil
		}
		return []Violation{{Keyword: "schema", Message: err.Error()}}
	}
	// The properties an object may have, when the schema is known
	// (ValidateValue's errors), for unknown-property violations.
	var se *schemaError
	var schemas map[string]*jsonschema.Schema
	allowed := func(loc string) []string {
		if !errors.As(err, &se) {
			return nil
		}
		if schemas == nil {
			schemas = schemasByLocation(se.root)
		}
		if s := schemas[loc]; s != nil {
			return slices.Sorted(maps.Keys(s.Properties))
		}
		return nil
	}
	var out []Violation
	more := 0 // leaves past MaxViolations
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		if len(out) >= MaxViolations {
			more += leafCount(e)
			return
		}
		// One leaf may be many violations (a property each of an
		// additionalProperties or required failure).
		out = append(out, leafViolations(e, allowed)...)
		if len(out) > MaxViolations {
			more += len(out) - MaxViolations
			out = out[:MaxViolations]
		}
	}
	walk(ve)
	if len(out) == 0 {
		out = append(out, Violation{Keyword: "schema", Message: ve.Error()})
	}
	if more > 0 {
		out = append(out, Violation{Keyword: KeywordTooManyViolations,
			Message: fmt.Sprintf("%d more violations were found and are not listed; fix these and call again", more)})
	}
	return out
}

// MaxViolations bounds the violations Violations lists: a value of a
// megabyte can break its schema a hundred thousand times (an array of
// items of the wrong type, an object of unknown properties), and listing
// each would make the answer many times the size of the call. Past it,
// one last violation with the keyword KeywordTooManyViolations says how
// many more were found.
const MaxViolations = 100

// KeywordTooManyViolations is the keyword of the last violation Violations
// lists when it found more than MaxViolations (the same word as
// args.RuleTooManyErrors).
const KeywordTooManyViolations = "too_many_errors"

// NumberError is ValidateValue's refusal of a number the validator is not
// given: one written with more than 400 digits or an exponent beyond ±400
// (see [ValidateValue]).
type NumberError struct {
	// Pointer is the JSON Pointer of the number.
	Pointer string
}

// Error says where the number is and what was expected.
func (e *NumberError) Error() string {
	at := e.Pointer
	if at == "" {
		at = "(value)"
	}
	return fmt.Sprintf("%s: expected %s", at, jsonnum.Expected)
}

// ValidateValue checks v (as jsonschema.UnmarshalJSON decodes it) against
// s. A number written with more than 400 digits or an exponent beyond
// ±400 is refused first, with a *NumberError: the validator reads every
// number it compares exactly, so such a number could cost it seconds,
// and one past ±1,000,000 it cannot read at all. [Violations] reads both
// kinds of error.
func ValidateValue(s *jsonschema.Schema, v any) error {
	if ptr, bad := jsonnum.Unreadable(v); bad {
		return &NumberError{Pointer: ptr}
	}
	if err := s.Validate(v); err != nil {
		return &schemaError{err: err, root: s}
	}
	return nil
}

// schemaError is a validation error with the schema checked against, so
// that Violations can name the properties an object may have. It unwraps
// to the *jsonschema.ValidationError.
type schemaError struct {
	err  error
	root *jsonschema.Schema
}

func (e *schemaError) Error() string { return e.err.Error() }
func (e *schemaError) Unwrap() error { return e.err }

// schemasByLocation indexes every schema reachable from root by its
// location (what a ValidationError's SchemaURL names).
func schemasByLocation(root *jsonschema.Schema) map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	var visit func(s *jsonschema.Schema)
	visitAny := func(v any) {
		switch x := v.(type) {
		case *jsonschema.Schema:
			visit(x)
		case []*jsonschema.Schema:
			for _, c := range x {
				visit(c)
			}
		}
	}
	visit = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if _, seen := out[s.Location]; seen {
			return
		}
		out[s.Location] = s
		for _, c := range []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
			s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema} {
			visit(c)
		}
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
			visitAny(l)
		}
		for _, c := range s.Properties {
			visit(c)
		}
		for _, c := range s.PatternProperties {
			visit(c)
		}
		for _, c := range s.DependentSchemas {
			visit(c)
		}
		for _, c := range s.Dependencies {
			visitAny(c)
		}
		visitAny(s.AdditionalProperties)
		visitAny(s.Items)
		visitAny(s.AdditionalItems)
	}
	visit(root)
	return out
}

// leafCount is how many violations leafViolations makes of e, without
// making them.
func leafCount(e *jsonschema.ValidationError) int {
	switch k := e.ErrorKind.(type) {
	case *jskind.Required:
		return len(k.Missing)
	case *jskind.AdditionalProperties:
		return len(k.Properties)
	}
	return 1
}

// leafViolations describes one failing keyword.
func leafViolations(e *jsonschema.ValidationError, allowed func(schemaURL string) []string) []Violation {
	ptr := jsonptr.FromTokens(e.InstanceLocation)
	kw := "schema"
	if path := e.ErrorKind.KeywordPath(); len(path) > 0 {
		kw = path[0]
	}
	each := func(names []string, msg string) []Violation {
		vs := make([]Violation, len(names))
		for i, n := range names {
			vs[i] = Violation{Pointer: ptr + "/" + jsonptr.Escape(n), Keyword: kw, Message: msg}
		}
		return vs
	}
	var msg string
	switch k := e.ErrorKind.(type) {
	case *jskind.Required:
		return each(k.Missing, "is required")
	case *jskind.AdditionalProperties:
		if names := allowed(e.SchemaURL); len(names) > 0 {
			return each(k.Properties, "unknown field; expected one of: "+strings.Join(names, ", "))
		}
		return each(k.Properties, "unknown field; the schema does not allow it")
	case *jskind.Type:
		msg = fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *jskind.Minimum:
		msg = fmt.Sprintf("must be at least %s, got %s", number(k.Want), number(k.Got))
	case *jskind.Maximum:
		msg = fmt.Sprintf("must be at most %s, got %s", number(k.Want), number(k.Got))
	case *jskind.ExclusiveMinimum:
		msg = fmt.Sprintf("must be greater than %s, got %s", number(k.Want), number(k.Got))
	case *jskind.ExclusiveMaximum:
		msg = fmt.Sprintf("must be less than %s, got %s", number(k.Want), number(k.Got))
	case *jskind.MinLength:
		msg = fmt.Sprintf("must be at least %s long, got %d", plural(k.Want, "character"), k.Got)
	case *jskind.MaxLength:
		msg = fmt.Sprintf("must be at most %s long, got %d", plural(k.Want, "character"), k.Got)
	case *jskind.MinItems:
		msg = fmt.Sprintf("must have at least %s, got %d", plural(k.Want, "item"), k.Got)
	case *jskind.MaxItems:
		msg = fmt.Sprintf("must have at most %s, got %d", plural(k.Want, "item"), k.Got)
	case *jskind.MinProperties:
		msg = fmt.Sprintf("must have at least %s, got %d", plural(k.Want, "field"), k.Got)
	case *jskind.MaxProperties:
		msg = fmt.Sprintf("must have at most %s, got %d", plural(k.Want, "field"), k.Got)
	default:
		msg = e.ErrorKind.LocalizedString(english)
	}
	return []Violation{{Pointer: ptr, Keyword: kw, Message: msg}}
}

// plural writes n of word: "1 item", "2 items".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// english prints the validator's own messages.
var english = message.NewPrinter(language.English)

// number writes a schema bound or a value compared with it: whole numbers
// of up to 64 bits exactly, others to ten significant digits ("0.25",
// "1e+400").
func number(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() && r.Num().BitLen() <= 64 {
		return r.Num().String()
	}
	return new(big.Float).SetRat(r).Text('g', 10)
}

// FieldPath turns a JSON Pointer into the field path used in field
// errors: "/items/2/name" → "items[2].name", "" → "".
func FieldPath(ptr string) string {
	if ptr == "" {
		return ""
	}
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = jsonptr.Unescape(tok)
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
