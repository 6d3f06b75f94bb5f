package args

import (
	"fmt"
	"reflect"
)

// Phrase names the exact consent phrase of a destructive operation. Declare
// it on an empty struct with a value receiver:
//
//	type CreateDocument struct{}
//
//	func (CreateDocument) Phrase() string { return "CREATE_DOCUMENT" }
type Phrase interface {
	Phrase() string
}

// Consent is an argument field that must carry P's phrase exactly — the Go
// form of seed 004's "Explicit Use Pattern" (a Literal-typed field).
//
//	type DeleteArgs struct {
//		ID      string                         `json:"id" validate:"required"`
//		Confirm args.Consent[CreateDocument] `json:"confirm"`
//	}
//
// A Consent field is always required, takes no validate tag and must be a
// direct field of the argument struct. Its schema is
// {"type":"string","const":phrase}; Decode rejects any other value with a
// FieldError (rule "consent") naming the expected phrase; Describe adds
// the "REQUIRES EXPLICIT USER INSTRUCTION" section.
type Consent[P Phrase] string

// Phrase returns the phrase the field must equal.
func (Consent[P]) Phrase() string {
	var p P
	return p.Phrase()
}

// consentField is implemented by every Consent instantiation.
type consentField interface {
	isConsent()
	Phrase() string
}

func (Consent[P]) isConsent() {}

var typeConsentField = reflect.TypeFor[consentField]()

// ConsentPhrase reports whether t (or the struct type t, through its
// fields, promoted ones included) requires a consent phrase, and which. For
// a Consent type it returns that type's phrase; for a struct (or pointer to
// struct) it returns the phrase of its first Consent field. A registry uses
// it to mark such tools destructive.
func ConsentPhrase(t reflect.Type) (string, bool) {
	if t == nil {
		return "", false
	}
	if t.Implements(typeConsentField) && t.Kind() == reflect.String {
		p, err := phraseOf(t)
		return p, err == nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "", false
	}
	visible, _ := jsonFields(t)
	for _, f := range visible {
		ft := f.sf.Type
		if ft.Implements(typeConsentField) && ft.Kind() == reflect.String {
			p, err := phraseOf(ft)
			return p, err == nil
		}
	}
	return "", false
}

// phraseOf calls Phrase on the zero Consent value, turning a panicking or
// empty Phrase method into an error.
func phraseOf(t reflect.Type) (p string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("args: %s: Phrase method panicked on the zero value (declare it on a struct{} with a value receiver): %v: %w", t, r, ErrUnsupportedType)
		}
	}()
	p = reflect.Zero(t).Interface().(consentField).Phrase()
	if p == "" {
		return "", fmt.Errorf("args: %s: consent phrase is empty: %w", t, ErrUnsupportedType)
	}
	return p, nil
}
