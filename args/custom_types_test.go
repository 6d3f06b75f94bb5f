package args

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// Custom types for the tests: each decodes itself exactly as its schema
// says, so the agreement property covers them too.

// level decodes "low", "mid", "high" or null; its schema admits null, which
// tags cannot say for a value field.
type level struct {
	v   string
	set bool
}

func (l *level) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = level{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("want a string or null")
	}
	switch s {
	case "low", "mid", "high":
		*l = level{v: s, set: true}
		return nil
	}
	return fmt.Errorf("unknown level %q (want low, mid or high)", s)
}

func (l level) MarshalJSON() ([]byte, error) {
	if !l.set {
		return []byte("null"), nil
	}
	return json.Marshal(l.v)
}

func (level) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":["string","null"],"enum":["low","mid","high",null],"description":"type's own"}`)
}

func (level) goodSamples() []string { return []string{`"low"`, `"mid"`, `"high"`, `null`} }
func (level) badSamples() []string {
	return []string{`"LOW"`, `""`, `1`, `["low"]`, `{}`, `"lo\u0077"`}
}

var hexRe = regexp.MustCompile(`^#[0-9a-f]{6}$`)

// hexColor decodes from a string (#rrggbb, or empty for none) through
// UnmarshalText and states a pattern.
type hexColor string

func (h *hexColor) UnmarshalText(b []byte) error {
	if len(b) > 0 && !hexRe.Match(b) {
		return errors.New("want #rrggbb in lower-case hex")
	}
	*h = hexColor(b)
	return nil
}

func (h hexColor) MarshalText() ([]byte, error) {
	if h != "" && !hexRe.MatchString(string(h)) {
		return nil, errors.New("bad colour")
	}
	return []byte(h), nil
}

func (hexColor) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"string","pattern":"^(#[0-9a-f]{6})?$"}`)
}

func (hexColor) goodSamples() []string { return []string{`"#00ff00"`, `"#abcdef"`} }
func (hexColor) badSamples() []string {
	return []string{`"#ABCDEF"`, `"00ff00"`, `""`, `"#"`, `null`, `1`, `"#00ff00\n"`, `"\u0023abcdef"`}
}

// upper decodes any string (upper-casing it) through UnmarshalText and has
// no schema method: it is {"type":"string"}.
type upper string

func (u *upper) UnmarshalText(b []byte) error {
	*u = upper(strings.ToUpper(string(b)))
	return nil
}

func (upper) goodSamples() []string { return []string{`"a"`, `""`, `"é"`} }
func (upper) badSamples() []string  { return []string{`null`, `1`, `[]`, `true`} }

// span is an object decoded by hand whose schema uses if/then: "to"
// requires "from".
type span struct {
	From, To *big.Int
}

func (s *span) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return errors.New("want an object with from and to")
	}
	*s = span{}
	for k, v := range m {
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("%s must be an integer", k)
		}
		r, ok := new(big.Rat).SetString(string(n))
		if !ok || !r.IsInt() {
			return fmt.Errorf("%s must be an integer", k)
		}
		switch k {
		case "from":
			s.From = r.Num()
		case "to":
			s.To = r.Num()
		default:
			return fmt.Errorf("unknown key %q", k)
		}
	}
	if s.To != nil && s.From == nil {
		return errors.New("to needs from")
	}
	return nil
}

func (s span) MarshalJSON() ([]byte, error) {
	m := map[string]*big.Int{}
	if s.From != nil {
		m["from"] = s.From
	}
	if s.To != nil {
		m["to"] = s.To
	}
	return json.Marshal(m)
}

func (span) JSONSchema() json.RawMessage {
	return json.RawMessage(`{
		"type": "object",
		"properties": {"from": {"type": "integer"}, "to": {"type": "integer"}},
		"additionalProperties": false,
		"allOf": [{"if": {"required": ["to"]}, "then": {"required": ["from"]}}]
	}`)
}

func (span) goodSamples() []string {
	return []string{`{}`, `{"from":1}`, `{"from":1,"to":2}`, `{"from":-3.0,"to":1e2}`}
}
func (span) badSamples() []string {
	return []string{`{"to":2}`, `{"from":1.5}`, `{"from":"1"}`, `{"x":1}`, `[]`, `null`, `"s"`, `{"from":1,"from":2}`}
}
