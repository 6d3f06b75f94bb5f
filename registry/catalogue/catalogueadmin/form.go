package catalogueadmin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/internal/jsonptr"
	"github.com/toolpack-go/toolpack/internal/textcut"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

// formField is one argument of the live tester's form.
type formField struct {
	// Name is the argument's name; Path is its dotted path from the root
	// ("filter.lang" for a property of a nested object), and the form
	// field is "arg."+Path.
	Name, Path string
	// Kind is how it is entered: text, integer, number, bool (a select of
	// unset/true/false), enum (a select), object (a fieldset of its own
	// fields), json (a text area for arrays and anything else).
	Kind string
	// Required marks an argument the schema requires.
	Required bool
	// Description is the schema's description, shown as help.
	Description string
	// Options are an enum's values, as entered (strings as they are,
	// other values as JSON).
	Options []string
	// enum are the enum's values themselves.
	enum []any
	// Value is what the field holds: what was posted, else the default.
	Value string
	// Fields are an object's own fields.
	Fields []formField
}

// FormName is the field's name in the form.
func (f formField) FormName() string { return "arg." + f.Path }

// ID is the field's element id.
func (f formField) ID() string { return "f-" + f.Path }

// maxFormDepth bounds the nesting of object fieldsets; deeper objects are
// entered as JSON.
const maxFormDepth = 3

// objSchema is the part of an object schema the form reads.
type objSchema struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// argSchema is a tool's argument schema as the form reads it.
type argSchema = objSchema

type propSchema struct {
	Type        json.RawMessage `json:"type"`
	Enum        []any           `json:"enum"`
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
	objSchema
}

// types reads "type" as a list, without "null".
func (p propSchema) types() []string {
	var one string
	if json.Unmarshal(p.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(p.Type, &many)
	return slices.DeleteFunc(many, func(t string) bool { return t == "null" })
}

func (p propSchema) kind(depth int) string {
	ts := p.types()
	switch {
	case len(p.Enum) > 0:
		return "enum"
	case len(ts) != 1:
		return "json"
	}
	switch ts[0] {
	case "string":
		return "text"
	case "integer", "number":
		return ts[0]
	case "boolean":
		return "bool"
	case "object":
		if len(p.Properties) > 0 && depth < maxFormDepth {
			return "object"
		}
	}
	return "json"
}

// enumText is how an enum value is entered: a string as it is, anything
// else as JSON.
func enumText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// formFields are the tester's fields for a tool's argument schema, sorted
// by name, holding the posted values (or the defaults when nothing was
// posted). An error says why the schema gives no form.
func formFields(schema json.RawMessage, posted url.Values) ([]formField, string) {
	var s objSchema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, "the argument schema could not be read"
	}
	var root any // what local references resolve in, when there are any
	if bytes.Contains(schema, []byte(`"$ref"`)) {
		_ = json.Unmarshal(schema, &root)
	}
	return formFieldsOf(root, s, "", posted, 0), ""
}

// maxRefHops bounds the references followed for one property.
const maxRefHops = 8

// resolved returns a property's schema with its local "$ref" (to
// "#/$defs/Address", say) replaced by what it points at in root, the
// property's own keywords (a description, a default) kept over the
// target's; a property without one, or whose reference points at
// nothing, is returned as it is.
func resolved(root any, raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`"$ref"`)) {
		return raw
	}
	for range maxRefHops {
		var own map[string]any
		if json.Unmarshal(raw, &own) != nil {
			return raw
		}
		ref, ok := own["$ref"].(string)
		if !ok {
			return raw
		}
		target, ok := jsonptr.Resolve(root, ref)
		m, isObj := target.(map[string]any)
		if !ok || !isObj {
			return raw
		}
		merged := maps.Clone(m)
		delete(own, "$ref")
		maps.Copy(merged, own)
		b, err := json.Marshal(merged)
		if err != nil {
			return raw
		}
		raw = b
	}
	return raw
}

func formFieldsOf(root any, s objSchema, prefix string, posted url.Values, depth int) []formField {
	names := slices.Sorted(maps.Keys(s.Properties))
	out := make([]formField, 0, len(names))
	for _, n := range names {
		var p propSchema
		_ = json.Unmarshal(resolved(root, s.Properties[n]), &p)
		f := formField{Name: n, Path: prefix + n, Kind: p.kind(depth), Required: slices.Contains(s.Required, n), Description: p.Description}
		for _, e := range p.Enum {
			if e != nil {
				f.Options = append(f.Options, enumText(e))
				f.enum = append(f.enum, e)
			}
		}
		switch {
		case f.Kind == "object":
			f.Fields = formFieldsOf(root, p.objSchema, f.Path+".", posted, depth+1)
		case posted != nil:
			f.Value = posted.Get(f.FormName())
		case len(bytes.TrimSpace(p.Default)) > 0:
			var d any
			if json.Unmarshal(p.Default, &d) == nil {
				f.Value = enumText(d)
			}
		}
		out = append(out, f)
	}
	return out
}

// formArgs reads the tester's posted fields into the arguments object:
// empty fields are left out (the tool's validation says what is
// missing), and so is a nested object none of whose fields was filled;
// values that are not of the field's kind (or not UTF-8, or JSON with
// more after the value) are problems named by the argument's path.
func formArgs(schema json.RawMessage, form url.Values) (map[string]any, []catalogueapi.FieldError) {
	fields, msg := formFields(schema, form)
	if msg != "" {
		return nil, []catalogueapi.FieldError{{Problem: msg}}
	}
	var problems []catalogueapi.FieldError
	return readFields(fields, &problems), problems
}

func readFields(fields []formField, problems *[]catalogueapi.FieldError) map[string]any {
	args := map[string]any{}
	bad := func(f formField, format string, a ...any) {
		*problems = append(*problems, catalogueapi.FieldError{Field: f.Path, Problem: fmt.Sprintf(format, a...)})
	}
	for _, f := range fields {
		if f.Kind == "object" {
			if sub := readFields(f.Fields, problems); len(sub) > 0 {
				args[f.Name] = sub
			}
			continue
		}
		v := f.Value
		if strings.TrimSpace(v) == "" && f.Kind != "text" || v == "" {
			continue
		}
		if !utf8.ValidString(v) { // json.Marshal would send U+FFFD in its place
			bad(f, "expected text of valid UTF-8, got bytes that are not")
			continue
		}
		switch f.Kind {
		case "text":
			args[f.Name] = v
		case "integer":
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				bad(f, "expected a whole number, got %q", textcut.Runes(v, 60))
				continue
			}
			args[f.Name] = n
		case "number":
			n := json.Number(strings.TrimSpace(v))
			if _, err := n.Float64(); err != nil || !json.Valid([]byte(n)) {
				bad(f, "expected a number, got %q", textcut.Runes(v, 60))
				continue
			}
			args[f.Name] = n
		case "bool":
			switch v {
			case "true":
				args[f.Name] = true
			case "false":
				args[f.Name] = false
			default:
				bad(f, "expected true or false, got %q", textcut.Runes(v, 60))
			}
		case "enum":
			i := slices.IndexFunc(f.enum, func(e any) bool { return enumText(e) == v })
			if i < 0 {
				bad(f, "expected one of %s, got %q", strings.Join(f.Options, ", "), textcut.Runes(v, 60))
				continue
			}
			args[f.Name] = f.enum[i]
		default:
			var x any
			dec := json.NewDecoder(strings.NewReader(v))
			dec.UseNumber()
			if err := dec.Decode(&x); err != nil {
				bad(f, "expected JSON, got %q", textcut.Runes(v, 60))
				continue
			}
			if _, err := dec.Token(); err != io.EOF {
				bad(f, "expected one JSON value, got more after it in %q", textcut.Runes(v, 60))
				continue
			}
			args[f.Name] = x
		}
	}
	return args
}

// implRow is one line of a tool's implementation as the page shows it.
type implRow struct{ Key, Value string }

// masked stands for a secret that is set.
const masked = "(set)"

// implView is the tool's implementation with every secret masked: auth
// tokens, passwords, key values, HMAC and client secrets, and all header
// and query values (which commonly carry credentials).
func implView(t catalogue.Tool) []implRow {
	var rows []implRow
	add := func(k, v string) {
		if v != "" {
			rows = append(rows, implRow{k, v})
		}
	}
	secret := func(k, v string) {
		if v != "" {
			rows = append(rows, implRow{k, masked})
		}
	}
	switch {
	case t.GoImpl != nil:
		add("func", t.GoImpl.Func)
	case t.StepsImpl != nil:
		add("body", t.StepsImpl.Body)
	case t.HTTPImpl != nil:
		rq := t.HTTPImpl.Request
		add("method", rq.Method)
		add("urlTemplate", rq.URLTemplate)
		for _, k := range slices.Sorted(maps.Keys(rq.Query)) {
			secret("query."+k, rq.Query[k])
		}
		for _, k := range slices.Sorted(maps.Keys(rq.Headers)) {
			secret("headers."+k, rq.Headers[k])
		}
		add("body", rq.Body)
		if a := rq.Auth; a != nil {
			add("auth.type", a.Type)
			add("auth.in", a.In)
			add("auth.name", a.Name)
			add("auth.username", a.Username)
			add("auth.algorithm", a.Algorithm)
			add("auth.tokenURL", a.TokenURL)
			add("auth.clientID", a.ClientID)
			add("auth.scopes", strings.Join(a.Scopes, " "))
			secret("auth.token", a.Token)
			secret("auth.password", a.Password)
			secret("auth.value", a.Value)
			secret("auth.secret", a.Secret)
			secret("auth.clientSecret", a.ClientSecret)
		}
		add("response.encoding", t.HTTPImpl.Response.Encoding)
		add("response.extract", t.HTTPImpl.Response.Extract)
		add("limits.timeout", t.HTTPImpl.Limits.Timeout)
	}
	return rows
}
