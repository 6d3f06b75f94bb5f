package snippet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

// ParseBody parses a body whose parameters are declared elsewhere: a
// catalogue tool of type "steps" takes them from the top-level properties
// of its argument schema. params are the names a {{ placeholder }} may
// use (names that are not identifiers, which no placeholder can spell, are
// ignored; so are repeats). name labels the errors (`steps "name": …`)
// and is not checked: a snippet parsed here is run with RunChecked, not
// served as a tool by Pack.
//
// The body is checked exactly as Parse checks it (syntax, unknown
// placeholders, references, duplicates, the caps MaxBodyBytes, MaxLines,
// MaxCalls and MaxDepth); every problem is a *ParseError wrapping
// ErrInvalid, joined. The snippet's Params are the identifier names of
// params, each required and without description.
func ParseBody(name, body string, params []string) (*Snippet, error) {
	s := &Snippet{kind: KindSteps, name: name, lbl: label(KindSteps, name), def: Definition{Body: body}, byName: map[string]*ParamInfo{}}
	known := map[string]bool{}
	for _, pn := range params {
		if !isIdent(pn) || known[pn] {
			continue
		}
		known[pn] = true
		s.params = append(s.params, ParamInfo{Name: pn, Required: true})
	}
	slices.SortFunc(s.params, func(a, b ParamInfo) int { return strings.Compare(a.Name, b.Name) })
	for i := range s.params {
		s.byName[s.params[i].Name] = &s.params[i]
	}
	p, errs := parseBody(KindSteps, name, body, known)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.prog, s.substs, s.used = p.prog, p.substs, p.used
	return s, nil
}

// Placeholder is one {{ param }} of a body, where it is written.
type Placeholder struct {
	// Param is the parameter it names.
	Param string
	// Line and Column are the 1-based position of its opening "{{" in the
	// body (Column counts characters, as in ParseError).
	Line, Column int
}

// Placeholders lists every {{ param }} of the body in the order written,
// with its position: a host that declares the parameters itself can hold
// each one to its own rules (a catalogue steps tool refuses a placeholder
// whose argument may be absent).
func (s *Snippet) Placeholders() []Placeholder {
	out := make([]Placeholder, len(s.substs))
	p := &parser{src: s.def.Body}
	for i, sb := range s.substs {
		line, col := p.position(sb.start)
		out[i] = Placeholder{Param: sb.param, Line: line, Column: col}
	}
	return out
}

// Calls returns the number of tool calls of the body (at most MaxCalls).
func (s *Snippet) Calls() int { return len(s.prog.steps) }

// RunChecked runs the body as Run does, with values the caller has
// already checked (a catalogue steps tool's arguments, validated against
// its argument schema): there is no check of names or types and no
// default is filled in. Values may hold names no placeholder uses; they
// are ignored. Each value used is read as JSON data. A placeholder whose
// parameter has no value fails the run before any call (validation_error
// naming every such parameter): a missing value is never sent as null.
// Steps, failures, nesting (MaxNesting) and cancellation are Run's.
func (s *Snippet) RunChecked(ctx context.Context, inv Invoker, values map[string]any) (result.Result[any], error) {
	vals := make(map[string]any, len(s.params))
	var fes []args.FieldError
	for _, sb := range s.substs {
		if _, done := vals[sb.param]; done {
			continue
		}
		v, ok := values[sb.param]
		if !ok {
			if !slices.ContainsFunc(fes, func(fe args.FieldError) bool { return fe.Field == sb.param }) {
				fes = append(fes, args.FieldError{Field: sb.param, Rule: "required", Message: "is required: the body uses {{ " + sb.param + " }}"})
			}
			continue
		}
		d, err := normalize(v)
		if err != nil {
			fes = append(fes, args.FieldError{Field: sb.param, Rule: "type", Message: "cannot be written as JSON: " + err.Error()})
			continue
		}
		vals[sb.param] = d
	}
	if len(fes) > 0 {
		return args.Failure[any](&args.ValidationError{Errors: fes}), nil
	}
	if inv == nil {
		return result.Result[any]{}, fmt.Errorf("%s: RunChecked needs an Invoker, got nil", s.label())
	}
	return s.run(ctx, inv, vals)
}
