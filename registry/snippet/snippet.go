package snippet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/search"
)

// Definition is a snippet as the host configuration declares it (the
// snippets section: description, params, body).
type Definition struct {
	// Description says what the snippet does; it heads the tool's
	// description.
	Description string
	// Params are the parameters the body refers to as {{ name }}.
	Params map[string]Param
	// Body is the call sequence (see the package documentation).
	Body string
}

// Param is one parameter of a snippet.
type Param struct {
	// Description says what the parameter is.
	Description string
	// Default is the value used when a call gives none; nil makes the
	// parameter required. Its JSON type (string, integer, number, boolean,
	// array, object) is the type a call must give; a Go integer (or a JSON
	// number without fraction or exponent) gives integer, any other number
	// gives number. NullDefault (JSON null, as a configuration's
	// `default: null` gives it) makes the parameter optional with null as
	// its default, and then a call may give any type.
	Default any
}

// NullDefault is the Default of a parameter whose default is JSON null: a
// call may leave it out, and its placeholders then expand to null.
const NullDefault = nullDefault("null")

// nullDefault is NullDefault's type: a constant that no other value
// equals, so that a nil Default still means "required".
type nullDefault string

// isNullDefault reports whether d is NullDefault or, as a host holding
// JSON passes it, the raw JSON null.
func isNullDefault(d any) bool {
	switch d := d.(type) {
	case nullDefault:
		return true
	case json.RawMessage:
		return string(bytes.TrimSpace(d)) == "null"
	}
	return false
}

// ParamInfo describes a parsed parameter.
type ParamInfo struct {
	// Name is the parameter's name.
	Name string
	// Description is its description.
	Description string
	// Required is true when the parameter has no default.
	Required bool
	// Default is the default as JSON data (strings, bools, json.Number,
	// []any, map[string]any); nil when required, and when the default is
	// null (NullDefault).
	Default any
	// Type is the JSON Schema type inferred from the default; "" (any
	// value) for a required parameter.
	Type string
}

// Snippet is a parsed definition, ready to expand, run or serve as a tool.
// It is immutable and safe for concurrent use.
type Snippet struct {
	kind   string // KindSnippet or KindSteps, for the errors
	name   string
	lbl    string // kind "name", as errors begin (label)
	def    Definition
	params []ParamInfo // required first, then optional, each by name
	byName map[string]*ParamInfo
	prog   program
	substs []subst
	used   map[string]bool // assigned names referenced later
}

// Parse checks a definition and parses its body. Every problem found is
// reported (joined; each a *ParseError wrapping ErrInvalid and naming the
// snippet, and for the body the line and column): an invalid name, a
// parameter whose name is not an identifier or whose default cannot be
// JSON, and in the body a syntax error (the first one; parsing stops
// there), an unknown {{ parameter }}, a reference to a name not assigned
// on an earlier line, a name assigned twice, an argument given twice, or
// a cap exceeded (MaxBodyBytes, MaxLines, MaxCalls, MaxDepth, MaxParams).
func Parse(name string, d Definition) (*Snippet, error) {
	s := &Snippet{kind: KindSnippet, name: name, lbl: label(KindSnippet, name), def: d, byName: map[string]*ParamInfo{}}
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, &ParseError{Kind: KindSnippet, Snippet: name, Msg: fmt.Sprintf(format, a...)})
	}
	if err := CheckName(name); err != nil {
		errs = append(errs, err)
	}
	if len(d.Params) > MaxParams {
		bad("%d parameters; at most %d are accepted", len(d.Params), MaxParams)
	}
	known := map[string]bool{}
	for _, pn := range slices.Sorted(mapKeys(d.Params)) {
		p := d.Params[pn]
		if !isIdent(pn) {
			bad("param %q: a parameter name is a letter or _ followed by letters, digits or _", pn)
			continue
		}
		known[pn] = true
		info := ParamInfo{Name: pn, Description: p.Description, Required: p.Default == nil}
		if p.Default != nil && !isNullDefault(p.Default) {
			def, typ, err := inferDefault(p.Default)
			if err != nil {
				bad("param %q: %v", pn, err)
				continue
			}
			info.Default, info.Type = def, typ
		}
		s.params = append(s.params, info)
	}
	slices.SortStableFunc(s.params, func(a, b ParamInfo) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	for i := range s.params {
		s.byName[s.params[i].Name] = &s.params[i]
	}
	p, perrs := parseBody(KindSnippet, name, d.Body, known)
	errs = append(errs, perrs...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.prog, s.substs, s.used = p.prog, p.substs, p.used
	return s, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// inferDefault turns a default into JSON data and names its type.
func inferDefault(v any) (any, string, error) {
	typ := ""
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		typ = "integer"
	case reflect.Float32, reflect.Float64:
		typ = "number"
	}
	if n, ok := v.(json.Number); ok {
		typ = "number"
		if !strings.ContainsAny(string(n), ".eE") {
			typ = "integer"
		}
	}
	d, err := normalize(v)
	if err != nil {
		return nil, "", fmt.Errorf("default cannot be written as JSON: %w", err)
	}
	switch d.(type) {
	case nil:
		return nil, "", errors.New("default is a nil value; leave the default out to make the parameter required, or give snippet.NullDefault for a null default")
	case string:
		typ = "string"
	case bool:
		typ = "boolean"
	case []any:
		typ = "array"
	case map[string]any:
		typ = "object"
	case json.Number:
		if typ == "" {
			typ = "number"
		}
	}
	return d, typ, nil
}

// normalize turns a Go value into JSON data: nil, string, bool,
// json.Number, []any, map[string]any.
func normalize(v any) (any, error) {
	d, _, err := normalizeSized(v)
	return d, err
}

// normalizeSized is normalize, with the size of the value as JSON (about:
// a string's bytes without quotes or escapes).
func normalizeSized(v any) (any, int, error) {
	switch x := v.(type) {
	case nil, bool, json.Number:
		return v, 8, nil
	case string:
		return v, len(x), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, 0, err
	}
	d, err := decodeJSON(b)
	return d, len(b), err
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// Name returns the snippet's name.
func (s *Snippet) Name() string { return s.name }

// Named returns the snippet under another name: the same definition and
// body, its errors and call chains naming it name (a steps tool's body
// parsed once and run under the name each call knows it by).
func (s *Snippet) Named(name string) *Snippet {
	if name == s.name {
		return s
	}
	c := *s
	c.name, c.lbl = name, label(s.kind, name)
	return &c
}

// label is `snippet "name"` (`steps "name"` for a steps tool's body), the
// subject of the errors.
func (s *Snippet) label() string { return s.lbl }

// Description returns the definition's description.
func (s *Snippet) Description() string { return s.def.Description }

// Body returns the body as written.
func (s *Snippet) Body() string { return s.def.Body }

// Params describes the parameters: required ones first, then optional
// ones, each group by name.
func (s *Snippet) Params() []ParamInfo { return slices.Clone(s.params) }

// Tools returns the names of the tools the body calls, each once, in the
// order of their first call.
func (s *Snippet) Tools() []string {
	var out []string
	for _, st := range s.prog.steps {
		if !slices.Contains(out, st.tool) {
			out = append(out, st.tool)
		}
	}
	return out
}

// ToolLines returns, for each tool the body calls, the body line (1-based)
// of its first call: where a host points a warning about that tool.
func (s *Snippet) ToolLines() map[string]int {
	out := make(map[string]int, len(s.prog.steps))
	for _, st := range s.prog.steps {
		if _, ok := out[st.tool]; !ok {
			out[st.tool] = st.line
		}
	}
	return out
}

// values checks the values of a call and fills in defaults: an unknown
// name, a missing required parameter or a value of the wrong type is
// reported (as field errors, by the rule of args.MaxFieldErrors: the
// parameters' own problems, and at most that many unknown names). The
// values are JSON data afterwards.
func (s *Snippet) values(in map[string]any) (map[string]any, *args.ValidationError) {
	var fes []args.FieldError
	unknown := 0
	out := make(map[string]any, len(s.params))
	for _, k := range slices.Sorted(mapKeys(in)) {
		p := s.byName[k]
		if p == nil {
			// Described below, the first ones only: a body may hold a
			// key per few bytes.
			unknown++
			fes = append(fes, args.FieldError{Field: k, Rule: "unknown_field"})
			continue
		}
		v, err := normalize(in[k])
		if err != nil {
			fes = append(fes, args.FieldError{Field: k, Rule: "type", Message: "cannot be written as JSON: " + err.Error()})
			continue
		}
		if p.Type != "" && !hasType(v, p.Type) {
			fes = append(fes, args.FieldError{Field: k, Rule: "type", Message: fmt.Sprintf("expected %s, got %s", article(p.Type), jsonType(v))})
			continue
		}
		out[k] = v
	}
	for _, p := range s.params {
		if _, ok := in[p.Name]; ok {
			continue
		}
		if p.Required {
			fes = append(fes, args.FieldError{Field: p.Name, Rule: "required", Message: "is required"})
			continue
		}
		out[p.Name] = p.Default
	}
	if len(fes) > 0 {
		return nil, &args.ValidationError{Errors: s.describeUnknown(fes, unknown)}
	}
	return out, nil
}

// describeUnknown keeps every problem of a parameter in fes and as many
// of its unknown names (messages still to write) as bring the list to
// args.MaxFieldErrors; the names past them are counted in one last entry
// with the rule args.RuleTooManyErrors.
func (s *Snippet) describeUnknown(fes []args.FieldError, unknown int) []args.FieldError {
	room := max(0, args.MaxFieldErrors-(len(fes)-unknown)) // for unknown names
	names := s.paramNames()
	out := fes[:0]
	listed := 0
	for _, fe := range fes {
		if fe.Rule == "unknown_field" && fe.Message == "" {
			if listed == room {
				continue
			}
			listed++
			fe.Message = "unknown parameter; " + knownList(names, fe.Field)
		}
		out = append(out, fe)
	}
	if more := unknown - listed; more > 0 {
		what := "unknown parameters are"
		if more == 1 {
			what = "unknown parameter is"
		}
		out = append(out, args.FieldError{Rule: args.RuleTooManyErrors,
			Message: fmt.Sprintf("%d more %s not listed; %s", more, what, knownList(names, ""))})
	}
	return out
}

func (s *Snippet) paramNames() []string {
	out := make([]string, len(s.params))
	for i, p := range s.params {
		out[i] = p.Name
	}
	return out
}

func knownList(names []string, got string) string {
	if len(names) == 0 {
		return "there are no parameters"
	}
	return "parameters: " + strings.Join(closestFirst(got, names), ", ")
}

// closestFirst orders names by how well they match got (internal/search),
// then the rest by name.
func closestFirst(got string, names []string) []string {
	items := make([]search.Item, len(names))
	for i, n := range names {
		items[i] = search.Item{Name: n}
	}
	var out []string
	seen := map[int]bool{}
	for _, m := range search.Rank(got, items) {
		out = append(out, m.Item.Name)
		seen[m.Index] = true
	}
	rest := make([]string, 0, len(names))
	for i, n := range names {
		if !seen[i] {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// hasType reports whether JSON data v has the JSON Schema type typ.
func hasType(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		return ok && isInteger(n)
	}
	return true
}

// isInteger: a JSON number with a zero fraction, as JSON Schema counts it.
func isInteger(n json.Number) bool {
	if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && !math.IsInf(f, 0) && f == math.Trunc(f)
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case json.Number:
		if isInteger(v) {
			return "an integer"
		}
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

func article(typ string) string {
	switch typ {
	case "integer", "array", "object":
		return "an " + typ
	}
	return "a " + typ
}

// Expand returns the body with every placeholder replaced by its value
// (values, then the defaults), as text: a placeholder standing alone as a
// value becomes the value's JSON ({{ count }} → 5, {{ topic }} →
// "Python"); inside a string literal it becomes the value's text, escaped
// for the string (a string's characters, any other value's JSON). A {
// of a substituted string that would start a placeholder ("{{") is
// written \u007b, so that the expansion parses back to the same values.
// Comments
// and layout are kept. Values are checked as a call's are.
func (s *Snippet) Expand(values map[string]any) (string, error) {
	vals, ve := s.values(values)
	if ve != nil {
		return "", fmt.Errorf("%s: %w", s.label(), ve)
	}
	var b strings.Builder
	last := 0
	for _, sb := range s.substs {
		b.WriteString(s.def.Body[last:sb.start])
		v := vals[sb.param]
		if sb.inString {
			b.WriteString(escapeInString(textOf(v)))
		} else {
			b.WriteString(escapeStrings(compactJSON(v)))
		}
		last = sb.end
	}
	b.WriteString(s.def.Body[last:])
	return b.String(), nil
}

// textOf is a value's text inside a string: a string as it is, any other
// value as JSON.
func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compactJSON(v)
}

// compactJSON encodes JSON data without HTML escaping. Data from
// normalize always encodes.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%q", fmt.Sprint(v)) // unreachable for JSON data
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// escapeInString escapes text for the inside of a string literal of the
// body: JSON escapes, and a { that would start a placeholder (followed by
// another {, or last, since the body may go on with one) is written
// \u007b.
func escapeInString(text string) string {
	q := compactJSON(text)
	return escapeBraces(q[1:len(q)-1], true)
}

// escapeStrings applies escapeBraces to every string of JSON text.
func escapeStrings(js string) string {
	if !strings.Contains(js, "{{") {
		return js
	}
	var b strings.Builder
	start, esc := -1, false
	for i := 0; i < len(js); i++ {
		c := js[i]
		switch {
		case start < 0:
			if c == '"' {
				start = i + 1
			}
			b.WriteByte(c)
		case esc:
			esc = false
		case c == '\\':
			esc = true
		case c == '"':
			b.WriteString(escapeBraces(js[start:i], false))
			b.WriteByte(c)
			start = -1
		}
	}
	return b.String()
}

// escapeBraces writes \u007b for each { of a string literal's contents
// that is followed by another { (or, with last, ends the contents), so
// that a value holding "{{" does not become a placeholder when the
// expansion is parsed again; the string's value is unchanged.
func escapeBraces(content string, last bool) string {
	if !strings.Contains(content, "{") {
		return content
	}
	var b strings.Builder
	for i := 0; i < len(content); i++ {
		c := content[i]
		if c == '{' && ((i+1 < len(content) && content[i+1] == '{') || (last && i+1 == len(content))) {
			b.WriteString(`\u007b`)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
