package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	sj "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"

	"github.com/toolpack-go/toolpack/internal/jsonnum"
)

// SchemaKeywords is implemented by a result struct type that adds JSON
// Schema keywords to the object schema generated from its fields — the
// conditional rules tags cannot say (allOf with if/then,
// dependentRequired, not, …). Declare it with a value receiver; it is
// called once, on the zero value, when the type is planned.
//
//	// raw_html, when present, is listed as required (seed 003's web.fetch).
//	func (FetchOutput) JSONSchemaKeywords() json.RawMessage {
//		return json.RawMessage(`{"allOf":[{"if":{"properties":{"raw_html":{"type":"string"}}},"then":{"required":["raw_html"]}}]}`)
//	}
//
// The keywords are a JSON object merged into the struct's schema after
// the generated ones; they may not restate or replace type, properties,
// required or additionalProperties, and may not reference ($ref, $id,
// $schema, $anchor, $dynamicRef). ValidateOutput enforces them: it writes
// the struct's JSON and checks it against the keywords with a JSON Schema
// validator (santhosh-tekuri/jsonschema, draft 2020-12), so the agreement
// between the schema and the check holds for them too; only types that
// have the method pay for it. Argument types may not have the method (an
// argument's Go value does not write back to the JSON it was decoded
// from, so the keywords could not be checked faithfully).
type SchemaKeywords interface {
	JSONSchemaKeywords() json.RawMessage
}

var typeSchemaKeywords = reflect.TypeFor[SchemaKeywords]()

// keywords are a struct type's extra schema keywords, in the order
// written, and their compiled form.
type keywords struct {
	kvs      obj // values are json.RawMessage
	compiled *sj.Schema
}

// generatedKeys are the keys a struct's schema owns; refKeys (at the top:
// parseTypeSchema refuses references anywhere) would make the schema
// depend on something outside it.
var (
	generatedKeys = []string{"type", "properties", "required", "additionalProperties"}
	refKeys       = []string{"$schema", "$anchor", "$dynamicAnchor"}
)

// callKeywords calls JSONSchemaKeywords on the zero value of t, turning a
// panic into an error.
func callKeywords(t reflect.Type) (raw json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked on the zero value: %v", r)
		}
	}()
	return reflect.Zero(t).Interface().(SchemaKeywords).JSONSchemaKeywords(), nil
}

// keywordsOf reads and compiles t's keywords; nil when t has none.
func (b *planBuilder) keywordsOf(t reflect.Type, where string) (*keywords, error) {
	has := t.Implements(typeSchemaKeywords)
	if !has && reflect.PointerTo(t).Implements(typeSchemaKeywords) {
		return nil, fmt.Errorf("args: %s: %s has JSONSchemaKeywords on its pointer receiver; declare it on the value receiver: %w", where, t, ErrUnsupportedType)
	}
	if !has {
		return nil, nil
	}
	if !b.out() {
		return nil, fmt.Errorf("args: %s: %s has JSONSchemaKeywords, which applies to result types only (an argument's Go value does not write back to the JSON it came from, so the keywords could not be checked); express the rule with validate tags or check it in the tool: %w", where, t, ErrUnsupportedType)
	}
	raw, err := callKeywords(t)
	if err != nil {
		return nil, fmt.Errorf("args: %s: %s.JSONSchemaKeywords: %v: %w", where, t, err, ErrUnsupportedType)
	}
	kvs, err := parseTypeSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("args: %s: %s.JSONSchemaKeywords: %v: %w", where, t, err, ErrUnsupportedType)
	}
	for _, kv := range kvs {
		if containsKey(generatedKeys, kv.k) || containsKey(refKeys, kv.k) {
			return nil, fmt.Errorf("args: %s: %s.JSONSchemaKeywords: %q may not be given (the fields generate type, properties, required and additionalProperties; schemas are self-contained): %w", where, t, kv.k, ErrUnsupportedType)
		}
	}
	doc, err := sj.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("args: %s: %s.JSONSchemaKeywords: %w: %w", where, t, err, ErrUnsupportedType)
	}
	if ptr, bad := jsonnum.Unreadable(doc); bad {
		return nil, fmt.Errorf("args: %s: %s.JSONSchemaKeywords: at %q: expected %s: %w", where, t, ptr, jsonnum.Expected, ErrUnsupportedType)
	}
	c := sj.NewCompiler()
	c.DefaultDraft(sj.Draft2020)
	const url = "mem://args/keywords.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("args: %s: %s.JSONSchemaKeywords: %w: %w", where, t, err, ErrUnsupportedType)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("args: %s: %s.JSONSchemaKeywords do not compile: %w: %w", where, t, err, ErrUnsupportedType)
	}
	return &keywords{kvs: kvs, compiled: s}, nil
}

func containsKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// checkKeywords checks struct value v's JSON against its type's keywords.
func (c *checker) checkKeywords(v reflect.Value, k *keywords) {
	if !v.CanInterface() {
		return
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		c.fail("type", "cannot be written as JSON: "+err.Error())
		return
	}
	doc, err := sj.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		c.fail("type", "cannot be read back as JSON: "+err.Error())
		return
	}
	if ptr, bad := jsonnum.Unreadable(doc); bad {
		c.fail("type", fmt.Sprintf("at %q: expected %s", ptr, jsonnum.Expected))
		return
	}
	if err := k.compiled.Validate(doc); err != nil {
		c.fail("schema", "breaks the type's schema keywords: "+leafMessage(err))
	}
}

// leafMessage is the innermost cause of a validation error, on one line.
func leafMessage(err error) string {
	var ve *sj.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	msg := ve.ErrorKind.LocalizedString(xmessage.NewPrinter(language.English))
	if loc := strings.Join(ve.InstanceLocation, "/"); loc != "" {
		msg = "/" + loc + ": " + msg
	}
	return msg
}
