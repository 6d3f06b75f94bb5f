package snippet

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of the language, checked by Parse.
const (
	// MaxBodyBytes caps a body's size.
	MaxBodyBytes = 64 << 10
	// MaxLines caps a body's lines.
	MaxLines = 1000
	// MaxCalls caps the tool calls of one snippet.
	MaxCalls = 100
	// MaxDepth caps the nesting of arrays and objects in a value, and the
	// length of a reference's path (r.a.b[0] has a path of 3).
	MaxDepth = 16
	// MaxParams caps a snippet's parameters.
	MaxParams = 64
	// MaxErrors is the most problems one Parse reports.
	MaxErrors = 10
)

// ErrInvalid is wrapped by every error Parse and Pack return for a bad
// definition; check with errors.Is, or errors.As with *ParseError for the
// line and column.
var ErrInvalid = errors.New("snippet: invalid definition")

// ParseError is one problem of a definition. Line and Column are 1-based
// positions in the body (Column counts characters, not bytes); both are 0
// for a problem outside the body (a parameter, the name).
type ParseError struct {
	// Kind is what the body belongs to, as the error text names it:
	// KindSnippet (also when empty) or KindSteps.
	Kind string
	// Snippet is the snippet's name.
	Snippet string
	// Line is the body line, or 0.
	Line int
	// Column is the character on the line, or 0.
	Column int
	// Msg says what is wrong and what was expected.
	Msg string
}

// Error returns `snippet "name": line L, column C: msg` (`steps "name": …`
// for a steps tool's body).
func (e *ParseError) Error() string {
	label := label(e.Kind, e.Snippet)
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", label, e.Msg)
	case e.Column == 0:
		return fmt.Sprintf("%s: line %d: %s", label, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: line %d, column %d: %s", label, e.Line, e.Column, e.Msg)
}

// What a body belongs to, as errors name it.
const (
	// KindSnippet is a snippet's body (Parse).
	KindSnippet = "snippet"
	// KindSteps is the body of a catalogue tool of type steps (ParseBody).
	KindSteps = "steps"
)

// label is `kind "name"`, the subject of an error text.
func label(kind, name string) string {
	if kind == "" {
		kind = KindSnippet
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// Unwrap returns ErrInvalid.
func (e *ParseError) Unwrap() error { return ErrInvalid }

// The program: what a body parses to.

type program struct {
	steps []*step
}

// step is one tool call.
type step struct {
	line, col int
	assign    string // the name the result is assigned to; "" for none
	tool      string
	args      []arg
}

type arg struct {
	name string
	val  value
}

// value is one of literal, template, placeholder, ref, array, object.
type value interface{ isValue() }

// literal is a JSON number, true, false or null, as written.
type literal struct{ raw json.RawMessage }

// template is a string literal; its parts are text and placeholders.
type template struct{ parts []part }

type part struct {
	text  string // decoded text, when param is ""
	param string
}

// placeholder is {{ name }} standing alone as a value.
type placeholder struct{ param string }

// ref is a reference to an earlier result: root, then fields and indexes.
type ref struct {
	root string
	path []pathElem
	text string // as written, for errors
}

type pathElem struct {
	field string
	index int
	isIdx bool
}

type array struct{ elems []value }

type object struct {
	keys []string
	vals []value
}

func (literal) isValue()     {}
func (template) isValue()    {}
func (placeholder) isValue() {}
func (ref) isValue()         {}
func (array) isValue()       {}
func (object) isValue()      {}

// subst is one placeholder in the body, for Expand: the byte span of
// "{{ name }}" and whether it stands inside a string literal.
type subst struct {
	start, end int
	param      string
	inString   bool
}

// parser reads a body. Syntax errors stop it (the first is reported);
// meaning errors (unknown names, duplicates) are collected.
type parser struct {
	kind     string // KindSnippet or KindSteps, for the errors
	name     string
	src      string
	pos      int
	params   map[string]bool
	assigned map[string]int // name → line it was assigned on
	used     map[string]bool
	substs   []subst
	errs     []error
	more     bool // problems beyond MaxErrors were not recorded
	prog     program
}

// syntaxError stops the parser; it carries the ParseError.
type syntaxError struct{ err *ParseError }

func parseBody(kind, name, src string, params map[string]bool) (*parser, []error) {
	p := &parser{kind: kind, name: name, src: src, params: params, assigned: map[string]int{}, used: map[string]bool{}}
	if len(src) > MaxBodyBytes {
		return nil, []error{&ParseError{Kind: kind, Snippet: name, Msg: fmt.Sprintf("body is %d bytes; at most %d are accepted", len(src), MaxBodyBytes)}}
	}
	if !utf8.ValidString(src) {
		line, col := p.position(invalidUTF8At(src))
		return nil, []error{&ParseError{Kind: kind, Snippet: name, Line: line, Column: col, Msg: "body is not valid UTF-8"}}
	}
	if n := strings.Count(strings.TrimSuffix(src, "\n"), "\n") + 1; n > MaxLines { // a final line break ends the last line
		return nil, []error{&ParseError{Kind: kind, Snippet: name, Msg: fmt.Sprintf("body has %d lines; at most %d are accepted", n, MaxLines)}}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				se, ok := r.(syntaxError)
				if !ok {
					panic(r)
				}
				p.errs = append(p.errs, se.err)
			}
		}()
		p.parseProgram()
	}()
	if len(p.errs) == 0 && len(p.prog.steps) == 0 {
		p.errs = append(p.errs, &ParseError{Kind: kind, Snippet: name, Msg: "body has no tool call; expected lines like `r = tool(arg=1)`"})
	}
	if p.more {
		p.errs = append(p.errs, &ParseError{Kind: kind, Snippet: name, Msg: fmt.Sprintf("more problems were found; only the first %d are reported", MaxErrors)})
	}
	return p, p.errs
}

func invalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(s)
}

// position converts a byte offset to a 1-based line and character column.
func (p *parser) position(off int) (line, col int) {
	off = min(off, len(p.src))
	line = 1 + strings.Count(p.src[:off], "\n")
	start := strings.LastIndexByte(p.src[:off], '\n') + 1
	return line, utf8.RuneCountInString(p.src[start:off]) + 1
}

// fail stops parsing with a syntax error at off. A body that ends too
// early is faulted where its text ends, not after the blank lines that
// follow it (a YAML block scalar always ends in a newline, so its end is
// on a line of its own).
func (p *parser) fail(off int, format string, a ...any) {
	if off >= len(p.src) {
		off = len(strings.TrimRight(p.src, " \t\r\n"))
	}
	line, col := p.position(off)
	panic(syntaxError{&ParseError{Kind: p.kind, Snippet: p.name, Line: line, Column: col, Msg: fmt.Sprintf(format, a...)}})
}

// problem records a meaning error at off and goes on. Past MaxErrors it
// only notes that there are more (positions cost a scan of the body).
func (p *parser) problem(off int, format string, a ...any) {
	if len(p.errs) >= MaxErrors {
		p.more = true
		return
	}
	line, col := p.position(off)
	p.errs = append(p.errs, &ParseError{Kind: p.kind, Snippet: p.name, Line: line, Column: col, Msg: fmt.Sprintf(format, a...)})
}

func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// describe names what is at off, for "expected …, got …".
func (p *parser) describe(off int) string {
	if off >= len(p.src) {
		return "end of body"
	}
	if p.src[off] == '\n' {
		return "end of line"
	}
	r, _ := utf8.DecodeRuneInString(p.src[off:])
	return fmt.Sprintf("%q", r)
}

// skipLineSpace skips spaces, tabs and carriage returns.
func (p *parser) skipLineSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\r':
			p.pos++
		default:
			return
		}
	}
}

// skipComment skips a # comment up to (not including) the newline.
func (p *parser) skipComment() {
	if p.peek() == '#' {
		for p.pos < len(p.src) && p.src[p.pos] != '\n' {
			p.pos++
		}
	}
}

// skipSpace skips white space, newlines and comments: between
// statements and inside brackets.
func (p *parser) skipSpace() {
	for {
		p.skipLineSpace()
		switch p.peek() {
		case '\n':
			p.pos++
		case '#':
			p.skipComment()
		default:
			return
		}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isIdentByte(c byte) bool {
	return isIdentStart(c) || ('0' <= c && c <= '9')
}

// isToolByte: tool names follow the registry's [A-Za-z0-9_.-].
func isToolByte(c byte) bool {
	return isIdentByte(c) || c == '.' || c == '-'
}

// isArgByte: argument names may carry dashes (remote tools use them).
func isArgByte(c byte) bool {
	return isIdentByte(c) || c == '-'
}

func (p *parser) scan(ok func(byte) bool) string {
	start := p.pos
	for p.pos < len(p.src) && ok(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *parser) parseProgram() {
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return
		}
		p.parseStatement()
	}
}

// parseStatement reads `[name =] tool(args)` and the end of its line.
func (p *parser) parseStatement() {
	start := p.pos
	word := p.scan(isToolByte)
	if word == "" {
		p.fail(p.pos, "expected a tool call like `r = tool(arg=1)`, got %s", p.describe(p.pos))
	}
	st := &step{}
	st.line, st.col = p.position(start)
	p.skipLineSpace()
	toolAt := start
	if p.peek() == '=' {
		if !isIdent(word) {
			p.fail(start, "%q cannot be assigned to; a name is a letter or _ followed by letters, digits or _", word)
		}
		if word == "true" || word == "false" || word == "null" {
			p.fail(start, "%q is a JSON literal and cannot be a name", word)
		}
		p.pos++
		p.skipLineSpace()
		toolAt = p.pos
		st.assign = word
		word = p.scan(isToolByte)
		if word == "" {
			p.fail(p.pos, "expected a tool name after `%s =`, got %s", st.assign, p.describe(p.pos))
		}
		p.skipLineSpace()
	}
	st.tool = word
	if len(word) > 128 {
		p.fail(toolAt, "tool name is %d characters long; at most 128 are accepted", len(word))
	}
	if p.peek() != '(' {
		p.fail(p.pos, "expected ( after the tool name %q, got %s", word, p.describe(p.pos))
	}
	if len(p.prog.steps) == MaxCalls {
		p.fail(start, "more than %d tool calls; at most %d are accepted", MaxCalls, MaxCalls)
	}
	p.pos++
	p.parseArgs(st)
	// The end of the statement: spaces, a comment, then a newline.
	p.skipLineSpace()
	p.skipComment()
	if p.pos < len(p.src) && p.src[p.pos] != '\n' {
		p.fail(p.pos, "expected the end of the line after the call of %s, got %s; write one call per line", word, p.describe(p.pos))
	}
	if st.assign != "" {
		if l, dup := p.assigned[st.assign]; dup {
			p.problem(start, "%q is already assigned on line %d; use a new name", st.assign, l)
		} else {
			p.assigned[st.assign] = st.line
		}
	}
	p.prog.steps = append(p.prog.steps, st)
}

func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

// parseArgs reads `name=value, …)` after the opening parenthesis.
func (p *parser) parseArgs(st *step) {
	seen := map[string]bool{}
	for {
		p.skipSpace()
		if p.peek() == ')' {
			p.pos++
			return
		}
		at := p.pos
		name := p.scan(isArgByte)
		if name == "" || !isIdentStart(name[0]) {
			p.fail(at, "expected an argument name or ), got %s", p.describe(at))
		}
		p.skipSpace()
		if p.peek() != '=' {
			p.fail(p.pos, "expected = after the argument name %q, got %s", name, p.describe(p.pos))
		}
		p.pos++
		p.skipSpace()
		v := p.parseValue(0)
		if seen[name] {
			p.problem(at, "argument %q is given twice", name)
		}
		seen[name] = true
		st.args = append(st.args, arg{name: name, val: v})
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
		default:
			p.fail(p.pos, "expected , or ) after the value of %q, got %s", name, p.describe(p.pos))
		}
	}
}

// pythonLiteral returns the JSON literal a Python spelling (True, False,
// None) stands for, which a body written by someone used to Python calls
// may hold.
func pythonLiteral(word string) (string, bool) {
	switch word {
	case "True":
		return "true", true
	case "False":
		return "false", true
	case "None":
		return "null", true
	}
	return "", false
}

// parseValue reads one value; depth counts enclosing arrays and objects.
func (p *parser) parseValue(depth int) value {
	if depth > MaxDepth {
		p.fail(p.pos, "values nest more than %d levels deep", MaxDepth)
	}
	at := p.pos
	c := p.peek()
	switch {
	case c == '"':
		return p.parseString(false)
	case c == '{' && strings.HasPrefix(p.src[p.pos:], "{{"):
		name := p.parsePlaceholder(false)
		return placeholder{param: name}
	case c == '{' || c == '[':
		if depth >= MaxDepth { // this one would be nested MaxDepth+1 deep, empty or not
			p.fail(p.pos, "values nest more than %d levels deep", MaxDepth)
		}
		if c == '{' {
			return p.parseObject(depth)
		}
		return p.parseArray(depth)
	case c == '-' || ('0' <= c && c <= '9'):
		return p.parseNumber()
	case isIdentStart(c):
		word := p.scan(isIdentByte)
		switch word {
		case "true", "false", "null":
			return literal{raw: json.RawMessage(word)}
		}
		if lit, python := pythonLiteral(word); python {
			if _, assigned := p.assigned[word]; !assigned {
				p.fail(at, "%s is not a value here; values are JSON, so write %s", word, lit)
			}
		}
		return p.parseRef(at, word)
	}
	if c == '\'' {
		p.fail(at, "expected a value, got a single quote; strings are JSON strings, in double quotes (\"text\")")
	}
	p.fail(at, "expected a value (a JSON literal, {{ param }} or a name assigned earlier), got %s", p.describe(at))
	return nil
}

func (p *parser) parseNumber() value {
	at := p.pos
	p.scan(func(c byte) bool {
		return ('0' <= c && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
	})
	tok := p.src[at:p.pos]
	var n json.Number
	if err := json.Unmarshal([]byte(tok), &n); err != nil {
		p.fail(at, "%q is not a JSON number", tok)
	}
	return literal{raw: json.RawMessage(tok)}
}

// splitEscape returns the offset of a \u escape left unfinished at the end
// of seg (fewer than four hexadecimal digits follow it), or -1.
func splitEscape(seg string) int {
	for i := len(seg) - 1; i >= 0 && i >= len(seg)-5; i-- {
		if seg[i] != 'u' || i == 0 || seg[i-1] != '\\' {
			continue
		}
		slashes := 0
		for j := i - 1; j >= 0 && seg[j] == '\\'; j-- {
			slashes++
		}
		if slashes%2 == 1 && len(seg)-i-1 < 4 {
			return i - 1
		}
		return -1
	}
	return -1
}

// parseString reads a JSON string literal whose text may hold
// placeholders. In an object key (key) placeholders are refused.
func (p *parser) parseString(key bool) value {
	open := p.pos
	p.pos++ // the opening quote
	var t template
	segStart := p.pos
	flush := func(end int) {
		if end == segStart {
			return
		}
		var s string
		if err := json.Unmarshal([]byte(`"`+p.src[segStart:end]+`"`), &s); err != nil {
			if at := splitEscape(p.src[segStart:end]); at >= 0 && end < len(p.src) && p.src[end] == '{' {
				p.fail(segStart+at, "invalid string literal: a \\u escape needs four hexadecimal digits; a placeholder cannot be part of one")
			}
			p.fail(segStart, "invalid string literal: %s", jsonProblem(err))
		}
		if n := len(t.parts); n > 0 && t.parts[n-1].param == "" {
			t.parts[n-1].text += s
		} else {
			t.parts = append(t.parts, part{text: s})
		}
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] == '\n' {
			p.fail(open, "string literal is not closed on its line; expected a closing \"")
		}
		switch c := p.src[p.pos]; {
		case c == '\\':
			if p.pos+1 >= len(p.src) || p.src[p.pos+1] == '\n' {
				p.fail(open, "string literal is not closed on its line; expected a closing \"")
			}
			p.pos += 2
		case c == '"':
			flush(p.pos)
			p.pos++
			if len(t.parts) == 0 {
				t.parts = []part{{text: ""}}
			}
			return t
		case c == '{' && strings.HasPrefix(p.src[p.pos:], "{{"):
			if key {
				p.fail(p.pos, "placeholders are not allowed in object keys")
			}
			flush(p.pos)
			name := p.parsePlaceholder(true)
			t.parts = append(t.parts, part{param: name})
			segStart = p.pos
		case c < 0x20:
			p.fail(p.pos, "invalid string literal: control character %q; escape it", rune(c))
		default:
			p.pos++
		}
	}
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return strings.TrimPrefix(se.Error(), "invalid character ")
	}
	return err.Error()
}

// parsePlaceholder reads {{ name }} and checks the name.
func (p *parser) parsePlaceholder(inString bool) string {
	start := p.pos
	p.pos += 2
	p.skipLineSpace()
	at := p.pos
	name := p.scan(isIdentByte)
	if name == "" || !isIdentStart(name[0]) {
		p.fail(at, "expected a parameter name after {{, got %s", p.describe(at))
	}
	p.skipLineSpace()
	if !strings.HasPrefix(p.src[p.pos:], "}}") {
		p.fail(p.pos, "expected }} to close {{ %s, got %s", name, p.describe(p.pos))
	}
	p.pos += 2
	if !p.params[name] {
		p.problem(at, "unknown parameter %q in {{ %s }}; %s", name, name, p.known("parameters", p.paramNames(), name))
	}
	p.substs = append(p.substs, subst{start: start, end: p.pos, param: name, inString: inString})
	return name
}

func (p *parser) paramNames() []string {
	out := make([]string, 0, len(p.params))
	for n := range p.params {
		out = append(out, n)
	}
	return out
}

// known lists the names that exist, best guess first, for an error.
func (p *parser) known(what string, names []string, got string) string {
	if len(names) == 0 {
		return "there are no " + what
	}
	return what + ": " + strings.Join(closestFirst(got, names), ", ")
}

func (p *parser) parseObject(depth int) value {
	p.pos++ // {
	var o object
	seen := map[string]bool{}
	for {
		p.skipSpace()
		if p.peek() == '}' {
			p.pos++
			return o
		}
		at := p.pos
		if p.peek() != '"' {
			p.fail(at, "expected a string key or } in the object, got %s", p.describe(at))
		}
		k := p.parseString(true).(template)
		key := ""
		if len(k.parts) > 0 {
			key = k.parts[0].text
		}
		if seen[key] {
			p.problem(at, "object key %q is given twice", key)
		}
		seen[key] = true
		p.skipSpace()
		if p.peek() != ':' {
			p.fail(p.pos, "expected : after the object key %q, got %s", key, p.describe(p.pos))
		}
		p.pos++
		p.skipSpace()
		o.keys = append(o.keys, key)
		o.vals = append(o.vals, p.parseValue(depth+1))
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
		default:
			p.fail(p.pos, "expected , or } in the object, got %s", p.describe(p.pos))
		}
	}
}

func (p *parser) parseArray(depth int) value {
	p.pos++ // [
	var a array
	for {
		p.skipSpace()
		if p.peek() == ']' {
			p.pos++
			return a
		}
		a.elems = append(a.elems, p.parseValue(depth+1))
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
		default:
			p.fail(p.pos, "expected , or ] in the array, got %s", p.describe(p.pos))
		}
	}
}

// parseRef reads the path after a name: .field, [index] or ["key"].
func (p *parser) parseRef(at int, root string) value {
	r := ref{root: root}
	for {
		switch p.peek() {
		case '.':
			p.pos++
			fat := p.pos
			f := p.scan(isIdentByte)
			if f == "" || !isIdentStart(f[0]) {
				p.fail(fat, "expected a field name after %s., got %s", p.src[at:fat-1], p.describe(fat))
			}
			r.path = append(r.path, pathElem{field: f})
		case '[':
			p.pos++
			iat := p.pos
			if p.peek() == '"' {
				k := p.parseString(true).(template)
				key := ""
				if len(k.parts) > 0 {
					key = k.parts[0].text
				}
				r.path = append(r.path, pathElem{field: key})
			} else {
				digits := p.scan(func(c byte) bool { return '0' <= c && c <= '9' })
				if digits == "" || len(digits) > 9 {
					p.fail(iat, "expected an index (0 to 999999999) or a quoted key after [, got %s", p.describe(iat))
				}
				n := 0
				for _, d := range digits {
					n = n*10 + int(d-'0')
				}
				r.path = append(r.path, pathElem{index: n, isIdx: true})
			}
			if p.peek() != ']' {
				p.fail(p.pos, "expected ] to close the index, got %s", p.describe(p.pos))
			}
			p.pos++
		default:
			r.text = p.src[at:p.pos]
			if len(r.path) > MaxDepth {
				p.fail(at, "reference %s has a path of %d steps; at most %d are accepted", r.text, len(r.path), MaxDepth)
			}
			if _, ok := p.assigned[root]; !ok {
				names := make([]string, 0, len(p.assigned))
				for n := range p.assigned {
					names = append(names, n)
				}
				p.problem(at, "%q is not assigned before this line; %s", root, p.known("names assigned so far", names, root))
			} else {
				p.used[root] = true
			}
			return r
		}
	}
}
