package httptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// MaxTemplateBytes caps a template given to Parse.
const MaxTemplateBytes = 1 << 20

// ErrTemplate is wrapped by every error about the text of a template (as
// opposed to the values put into it).
var ErrTemplate = errors.New("httptool: invalid template")

// Template is a parsed "${name}" template: literal text with placeholders.
// A placeholder is "${" followed by a name (an ASCII letter or '_', then
// ASCII letters, digits and '_', at most 128 bytes) and "}". Every "${"
// starts a placeholder; a "$" not followed by "{" is literal text. The zero
// Template renders as the empty string.
type Template struct {
	parts []part
}

// part is one literal run (name == "") or one placeholder.
type part struct {
	lit  string
	name string
}

// Parse parses a template. It fails, wrapping ErrTemplate, on an unclosed
// "${", an invalid placeholder name, invalid UTF-8 or more than
// MaxTemplateBytes.
func Parse(s string) (Template, error) {
	if len(s) > MaxTemplateBytes {
		return Template{}, fmt.Errorf("%w: %d bytes; expected at most %d", ErrTemplate, len(s), MaxTemplateBytes)
	}
	if !utf8.ValidString(s) {
		return Template{}, fmt.Errorf("%w: expected valid UTF-8", ErrTemplate)
	}
	var t Template
	for rest := s; rest != ""; {
		i := strings.Index(rest, "${")
		if i < 0 {
			t.parts = append(t.parts, part{lit: rest})
			break
		}
		if i > 0 {
			t.parts = append(t.parts, part{lit: rest[:i]})
		}
		rest = rest[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return Template{}, fmt.Errorf(`%w: expected "}" to close the "${" at byte %d`, ErrTemplate, len(s)-len(rest)-2)
		}
		if !validName(rest[:j]) {
			return Template{}, fmt.Errorf("%w: placeholder name %q: expected an ASCII letter or '_' then letters, digits and '_' (at most 128)", ErrTemplate, clip(rest[:j]))
		}
		t.parts = append(t.parts, part{name: rest[:j]})
		rest = rest[j+1:]
	}
	return t, nil
}

// Names returns the placeholder names of t in order of appearance, with
// repeats.
func (t Template) Names() []string {
	var out []string
	for _, p := range t.parts {
		if p.name != "" {
			out = append(out, p.name)
		}
	}
	return out
}

// String returns the template's text.
func (t Template) String() string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.name != "" {
			b.WriteString("${" + p.name + "}")
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// Value is what a placeholder is replaced by.
type Value struct {
	// JSON is the value as JSON text (compact). For a string it is the
	// quoted string.
	JSON []byte
	// Text is the value as text: the string itself for a JSON string, the
	// JSON text for anything else (numbers, booleans, null, arrays,
	// objects).
	Text string
}

// StringValue returns the Value of a string (a secret, for instance).
func StringValue(s string) Value {
	return Value{JSON: marshalString(s), Text: s}
}

// JSONValue returns the Value of a JSON value. raw must be valid JSON; it
// is compacted.
func JSONValue(raw json.RawMessage) (Value, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return Value{}, err
	}
	v := Value{JSON: buf.Bytes()}
	if len(v.JSON) > 0 && v.JSON[0] == '"' {
		var s string
		if err := json.Unmarshal(v.JSON, &s); err != nil {
			return Value{}, err
		}
		v.Text = s
	} else {
		v.Text = string(v.JSON)
	}
	return v, nil
}

// Lookup resolves a placeholder name to its value; ok is false when the
// name is unknown.
type Lookup func(name string) (v Value, ok bool)

// UnknownError reports placeholders that name neither an argument nor a
// secret. It never carries a value.
type UnknownError struct {
	// Field is the template the names were found in, e.g. "urlTemplate".
	Field string
	// Names are the unknown names, in order of appearance, without repeats.
	Names []string
}

// Error names the field and the unknown placeholders.
func (e *UnknownError) Error() string {
	return fmt.Sprintf("%s: unknown placeholder ${%s}: expected an argument or a configured secret of that name",
		e.Field, strings.Join(e.Names, "}, ${"))
}

// ValueError reports a value that cannot be placed where its placeholder
// stands (it would change the URL's path structure, a header's framing, …).
// It names the placeholder, never the value.
type ValueError struct {
	// Field is the template, e.g. "urlTemplate" or `headers["X-Id"]`.
	Field string
	// Name is the placeholder.
	Name string
	// Reason says what is wrong and what was expected.
	Reason string
}

// Error names the field, the placeholder and the reason.
func (e *ValueError) Error() string {
	return fmt.Sprintf("%s: value of ${%s}: %s", e.Field, e.Name, e.Reason)
}

// resolve looks every placeholder of t up, reporting all unknown names at
// once.
func (t Template) resolve(field string, look Lookup) ([]Value, error) {
	vals := make([]Value, len(t.parts))
	var unknown []string
	for i, p := range t.parts {
		if p.name == "" {
			continue
		}
		v, ok := look(p.name)
		if !ok {
			if !containsString(unknown, p.name) {
				unknown = append(unknown, p.name)
			}
			continue
		}
		vals[i] = v
	}
	if unknown != nil {
		return nil, &UnknownError{Field: field, Names: unknown}
	}
	return vals, nil
}

// RenderText renders t with each placeholder replaced by its value's Text,
// verbatim. It is the rule for a body template that is not JSON.
func (t Template) RenderText(field string, look Lookup) (string, error) {
	vals, err := t.resolve(field, look)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, p := range t.parts {
		if p.name == "" {
			b.WriteString(p.lit)
		} else {
			b.WriteString(vals[i].Text)
		}
	}
	return b.String(), nil
}

// RenderHeader renders a header value: each placeholder is replaced by its
// value's Text, which must not contain control characters other than
// horizontal tab (CR and LF would split the header).
func (t Template) RenderHeader(field string, look Lookup) (string, error) {
	vals, err := t.resolve(field, look)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, p := range t.parts {
		if p.name == "" {
			b.WriteString(p.lit)
			continue
		}
		s := vals[i].Text
		for j := 0; j < len(s); j++ {
			if c := s[j]; c < 0x20 && c != '\t' || c == 0x7f {
				return "", &ValueError{Field: field, Name: p.name, Reason: fmt.Sprintf("contains control character %U; expected a single line without control characters", rune(c))}
			}
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// URLTemplate is a parsed urlTemplate: a fixed scheme and host, then a
// templated path, query and fragment.
type URLTemplate struct {
	scheme, host string
	rest         Template // from the first '/', '?' or '#' after the host
}

// ParseURL parses a urlTemplate. The scheme (http or https) and the host
// (with optional port) must be literal text: no placeholder, no user
// information.
func ParseURL(s string) (URLTemplate, error) {
	var scheme string
	switch {
	case strings.HasPrefix(s, "https://"):
		scheme = "https"
	case strings.HasPrefix(s, "http://"):
		scheme = "http"
	default:
		return URLTemplate{}, fmt.Errorf("%w: expected a URL starting with http:// or https://", ErrTemplate)
	}
	rest := s[len(scheme)+3:]
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	switch {
	case host == "":
		return URLTemplate{}, fmt.Errorf("%w: expected a host after %s://", ErrTemplate, scheme)
	case strings.Contains(host, "$"):
		return URLTemplate{}, fmt.Errorf("%w: expected a literal host, got a placeholder in the host (URL not shown: it may hold a key)", ErrTemplate)
	case strings.Contains(host, "@"):
		return URLTemplate{}, fmt.Errorf("%w: expected no user information in the URL", ErrTemplate)
	}
	if u, err := url.Parse(scheme + "://" + host); err != nil || u.Host != host {
		return URLTemplate{}, fmt.Errorf("%w: expected a valid host after %s:// (URL not shown: it may hold a key)", ErrTemplate, scheme)
	}
	t, err := Parse(rest[len(host):])
	if err != nil {
		return URLTemplate{}, err
	}
	return URLTemplate{scheme: scheme, host: host, rest: t}, nil
}

// Render builds the URL. Placeholder values are percent-encoded for where
// they stand:
//
//   - in the path, every byte but ASCII letters, digits, '-', '.', '_' and
//     '~' is percent-encoded, so a value can add no '/', '?' or '#'; and a
//     path segment holding a placeholder must not render as "", "." or
//     "..", so a value can neither empty a segment nor climb out of it;
//   - in the query or fragment, values are encoded as query values
//     (url.QueryEscape), so they cannot add '&', '=' or '#'.
//
// The result is parsed again and its scheme and host compared with the
// template's, as a second line of defence.
func (ut URLTemplate) Render(field string, look Lookup) (*url.URL, error) {
	vals, err := ut.rest.resolve(field, look)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(ut.scheme)
	b.WriteString("://")
	b.WriteString(ut.host)
	const (
		inPath = iota
		inQuery
		inFragment
	)
	state := inPath
	segStart := b.Len() // where the current path segment starts
	segVar := ""        // a placeholder of the current segment
	closeSegment := func() error {
		if segVar == "" {
			return nil
		}
		seg := b.String()[segStart:]
		if seg == "" || seg == "." || seg == ".." {
			return &ValueError{Field: field, Name: segVar, Reason: fmt.Sprintf("makes the path segment %q; expected a value that is not empty, \".\" or \"..\"", seg)}
		}
		segVar = ""
		return nil
	}
	for i, p := range ut.rest.parts {
		if p.name != "" {
			switch state {
			case inPath:
				segVar = p.name
				b.WriteString(escapePathValue(vals[i].Text))
			default:
				b.WriteString(url.QueryEscape(vals[i].Text))
			}
			continue
		}
		for j := 0; j < len(p.lit); j++ {
			c := p.lit[j]
			if state == inPath && (c == '/' || c == '?' || c == '#') {
				if err := closeSegment(); err != nil {
					return nil, err
				}
				switch c {
				case '/':
					b.WriteByte(c)
					segStart = b.Len()
					continue
				case '?':
					state = inQuery
				case '#':
					state = inFragment
				}
			} else if state == inQuery && c == '#' {
				state = inFragment
			}
			b.WriteByte(c)
		}
	}
	if state == inPath {
		if err := closeSegment(); err != nil {
			return nil, err
		}
	}
	u, err := url.Parse(b.String())
	if err != nil {
		// Values are encoded, so only the literal text can be at fault.
		return nil, fmt.Errorf("%w: %s: the rendered URL does not parse: %v", ErrTemplate, field, redactURLError(err))
	}
	if u.Scheme != ut.scheme || u.Host != ut.host || u.User != nil || u.Opaque != "" {
		return nil, fmt.Errorf("%w: %s: the rendered URL changed scheme or host", ErrTemplate, field)
	}
	return u, nil
}

// redactURLError drops the URL from a url.Parse error: it may hold values.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func escapePathValue(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// BodyTemplate is a parsed body template. A template whose first
// non-space character is '{' or '[' is a JSON template: it must be valid
// JSON once every placeholder outside a string is read as a value and
// every placeholder inside a string as string content. Any other template
// is text.
type BodyTemplate struct {
	t        Template
	json     bool
	inString []bool // per part: a placeholder inside a JSON string
}

// ParseBody parses a body template (see BodyTemplate for the JSON rule).
func ParseBody(s string) (BodyTemplate, error) {
	t, err := Parse(s)
	if err != nil {
		return BodyTemplate{}, err
	}
	bt := BodyTemplate{t: t}
	trimmed := strings.TrimLeft(s, " \t\r\n")
	if trimmed == "" || trimmed[0] != '{' && trimmed[0] != '[' {
		return bt, nil
	}
	bt.json = true
	bt.inString = make([]bool, len(t.parts))
	inStr, esc := false, false
	var probe strings.Builder
	for i, p := range t.parts {
		if p.name != "" {
			bt.inString[i] = inStr
			if !inStr {
				probe.WriteString("null")
			}
			continue
		}
		probe.WriteString(p.lit)
		for j := 0; j < len(p.lit); j++ {
			c := p.lit[j]
			switch {
			case esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case c == '"':
				inStr = !inStr
			}
		}
	}
	if !json.Valid([]byte(probe.String())) {
		return BodyTemplate{}, fmt.Errorf("%w: the body starts like JSON but is not valid JSON with each placeholder as a value or inside a string", ErrTemplate)
	}
	return bt, nil
}

// IsJSON reports whether the body template is a JSON template.
func (bt BodyTemplate) IsJSON() bool { return bt.json }

// Render renders the body. In a JSON template a placeholder outside a
// string becomes its value as JSON (a string is quoted and escaped, a
// number, boolean, null, array or object is its JSON text), and a
// placeholder inside a string becomes the value's Text escaped as JSON
// string content; so no value can end a string, add a member or change
// the document's shape. A text template takes each value's Text verbatim.
func (bt BodyTemplate) Render(field string, look Lookup) ([]byte, error) {
	if !bt.json {
		s, err := bt.t.RenderText(field, look)
		return []byte(s), err
	}
	vals, err := bt.t.resolve(field, look)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for i, p := range bt.t.parts {
		switch {
		case p.name == "":
			b.WriteString(p.lit)
		case bt.inString[i]:
			q := marshalString(vals[i].Text)
			b.Write(q[1 : len(q)-1])
		default:
			b.Write(vals[i].JSON)
		}
	}
	if !json.Valid(b.Bytes()) {
		// Unreachable for values made by StringValue and JSONValue.
		return nil, fmt.Errorf("%w: %s: rendered body is not valid JSON", ErrTemplate, field)
	}
	return b.Bytes(), nil
}

// marshalString returns s as a JSON string without HTML escaping.
func marshalString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	i := 64
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
