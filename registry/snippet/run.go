package snippet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// Invoker runs one tool call; *registry.Registry is one. Each step of a
// snippet is one Invoke, so it passes the whole pipeline (aliases,
// enable switches, argument validation, middleware such as statistics).
//
// An Invoker that also has TargetName(string) string, as
// *registry.Registry does, has each step's tool name resolved by it
// before the call: a body names tools as configuration and documentation
// do, undecorated, and still reaches them when the registry adds a prefix.
type Invoker interface {
	Invoke(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error)
}

// targetNamer is the optional method of an Invoker that resolves a step's
// tool name (registry.Registry.TargetName).
type targetNamer interface{ TargetName(name string) string }

// MaxKeptBytes bounds what one run keeps of its steps' values for later
// steps (about their size as JSON): a body that keeps many large values
// (r1 = lines(count=1000000), r2 = …) fails naming the line instead of
// holding gigabytes. A text a reference reads as JSON counts again (its
// size) when it is read.
const MaxKeptBytes = 64 << 20

// argumentCap is the optional method of an Invoker that says the largest
// arguments it accepts (registry.Registry.MaxArgumentBytes); a step's
// arguments are built no further than that. Without it,
// args.DefaultMaxBytes.
type argumentCap interface{ MaxArgumentBytes() int }

// errArgumentsTooLarge ends the building of a step's arguments past the
// cap.
type errArgumentsTooLarge struct{ max int }

func (e errArgumentsTooLarge) Error() string {
	return fmt.Sprintf("the arguments are more than %d bytes, the most the tool accepts", e.max)
}

// pinner is the optional method of an Invoker that holds the tools of a
// run's steps (registry.Registry.Pin), so that a run finishes on the tools
// it started with when a reload removes one half-way.
type pinner interface {
	Pin(names ...string) *registry.Pinned
}

// known reports whether inv serves a tool called name, when inv can say
// (registry.Registry.Resolve); an unknown tool further down (a tool that
// itself calls one that is missing) stays that tool's protocol error.
func known(inv Invoker, name string) bool {
	r, ok := inv.(interface {
		Resolve(string) (*registry.Tool, bool, bool)
	})
	if !ok {
		return false
	}
	_, _, found := r.Resolve(name)
	return found
}

// snippetHint points a step that names a snippet without its "snippet."
// prefix (twice(n=2) for snippet.twice) to the tool's name; "" otherwise.
func snippetHint(inv Invoker, tool string) string {
	if strings.HasPrefix(tool, ToolPrefix) {
		return ""
	}
	name := ToolPrefix + tool
	if tn, ok := inv.(targetNamer); ok {
		name = tn.TargetName(name)
	}
	if !known(inv, name) {
		return ""
	}
	return fmt.Sprintf("; a snippet is called by its tool name: %s%s(…)", ToolPrefix, tool)
}

// ErrorType is the error type of a snippet's own failures at run time: a
// reference to a field or element the earlier result does not have, or
// snippets calling each other more than MaxNesting deep. A failing step's
// failure keeps the step's error type instead.
const ErrorType result.ErrorType = "snippet_error"

// MaxNesting bounds snippets running snippets (a snippet whose body calls
// snippet.x runs x inside itself); deeper calls fail with ErrorType, so a
// snippet calling itself ends instead of recursing forever. The depth is
// counted across servers: a call another toolpack host forwarded
// (adapters/mcpproxy) arrives with its depth (registry.CallDepth), so
// snippets on hosts proxying each other stop here too. The failure
// is named once, by the outermost snippet's line, and lists the chain up
// to the first snippet met again:
//
//	snippet "loop": line 1: snippet.loop failed: snippets run each other more
//	than 8 deep (snippet "loop" line 1 → snippet "loop" again); does a
//	snippet call itself?
const MaxNesting = 8

type nestingKey struct{}

// nesting is one running snippet in a chain of snippets running each
// other, kept in the context: the bound is counted on it, and when it is
// reached the chain tells the caller which snippets and lines led there.
type nesting struct {
	parent *nesting
	depth  int    // 1 for the outermost snippet
	label  string // snippet "name" or steps "slug@version"
	// line is the line of the step running now; atomic, as a step a
	// timeout gave up on may still run (and read it) on its own goroutine
	// while this snippet has moved on.
	line atomic.Int32
	// tripped holds the bound's failure text once a snippet of this chain
	// has reached it (shared by the whole chain): the levels between pass
	// that failure up as it is, and only the outermost names its own line.
	tripped *atomic.Pointer[string]
}

// MaxRunCalls bounds the tool calls one run starts, its own steps and
// those of the snippets it runs (and they run) counted together, on this
// host and on the hosts it forwards calls to (registry.Budget,
// registry.MetaCallBudget): each snippet has at most MaxCalls steps and
// snippets nest MaxNesting deep, so without it three snippets of 100
// calls each running the next made a million calls, and eight levels
// would never end.
const MaxRunCalls = registry.MaxRunCalls

// nestingFailure is the failure text for s refused at the bound under
// the chain ending in n: the labels and lines from the outermost, up to
// the first snippet met again (a cycle), or all of them.
func (s *Snippet) nestingFailure(n *nesting) string {
	var chain []*nesting
	for f := n; f != nil; f = f.parent {
		chain = append(chain, f)
	}
	slices.Reverse(chain)
	var b strings.Builder
	seen := map[string]bool{}
	for _, f := range chain {
		if seen[f.label] {
			fmt.Fprintf(&b, "%s again", f.label)
			return s.nestingText(b.String())
		}
		seen[f.label] = true
		fmt.Fprintf(&b, "%s line %d → ", f.label, f.line.Load())
	}
	if seen[s.label()] {
		fmt.Fprintf(&b, "%s again", s.label())
	} else {
		b.WriteString(s.label())
	}
	return s.nestingText(b.String())
}

func (s *Snippet) nestingText(chain string) string {
	if s.kind == KindSteps {
		return fmt.Sprintf("steps tools and snippets run each other more than %d deep (%s); does a tool call itself?", MaxNesting, chain)
	}
	return fmt.Sprintf("snippets run each other more than %d deep (%s); does a snippet call itself?", MaxNesting, chain)
}

// Run runs the body: each call in order through inv.Invoke with its
// arguments as a JSON object, with placeholders replaced by values (or
// the defaults) and references by the value of the earlier result
// (Result.Value as JSON data). The snippet's Result is the last call's.
//
//   - Values that break the parameters (unknown, missing, wrong type) are a
//     failed Result of type validation_error listing every field; no call
//     is made.
//   - A step that fails (a failed Result) stops the snippet: its Result is
//     the step's failure (same error type, error data, message and
//     instruction) with the error text `snippet "name": line N: tool
//     failed: …`.
//   - A reference the earlier result cannot satisfy is a failure of type
//     ErrorType naming the line and the reference.
//   - A step calling a tool the Invoker does not know (a typo in the body,
//     a remote server's tool while the server is away) is a failure of
//     type unavailable naming the line and the tool: the snippet exists,
//     so its caller must not be told that it does not (a protocol
//     ErrUnknownTool would say just that about the snippet).
//   - A reload that removes, replaces or retargets the tool (or alias) of
//     a later step while the snippet runs does not fail it: with a
//     registry as inv, the run holds the tools its steps found when it
//     started, and theirs (registry.Registry.Pin), and finishes on them,
//     each with the switch in force now.
//   - Another protocol error of a step (a cancelled context, an output
//     that breaks its schema, …) is returned wrapped, naming the line and
//     the tool; errors.Is sees the cause. Cancelling ctx stops the
//     snippet before the next step and during the running one (as Invoke
//     honours ctx).
//   - A Snippet not made by Parse (the zero value), or a nil inv, is an
//     error wrapping ErrInvalid, never a panic or an empty failure.
func (s *Snippet) Run(ctx context.Context, inv Invoker, values map[string]any) (result.Result[any], error) {
	switch {
	case s == nil || len(s.prog.steps) == 0:
		// Parse never makes a snippet without a step.
		return result.Result[any]{}, fmt.Errorf("%w: the Snippet was not made by Parse", ErrInvalid)
	case inv == nil:
		return result.Result[any]{}, fmt.Errorf("%w: %s: Run: the Invoker is nil", ErrInvalid, s.label())
	}
	vals, ve := s.values(values)
	if ve != nil {
		return args.Failure[any](ve), nil
	}
	return s.run(ctx, inv, vals)
}

// run runs with checked values.
func (s *Snippet) run(ctx context.Context, inv Invoker, vals map[string]any) (result.Result[any], error) {
	outer, _ := ctx.Value(nestingKey{}).(*nesting)
	if outer != nil && outer.depth >= MaxNesting {
		msg := s.nestingFailure(outer)
		outer.tripped.Store(&msg)
		return result.Failure[any](msg, ErrorType), nil
	}
	// A call forwarded by another host (registry.CallDepth) counts the
	// snippets it ran through there: snippets on hosts proxying each
	// other stop at the bound as they do on one host.
	remote := registry.CallDepth(ctx)
	if outer == nil && remote >= MaxNesting {
		return result.Failure[any](s.nestingText(fmt.Sprintf("%d calls deep through other servers → %s", remote, s.label())), ErrorType), nil
	}
	me := &nesting{parent: outer, depth: remote + 1, label: s.label()}
	if outer != nil {
		me.depth, me.tripped = outer.depth+1, outer.tripped
	} else {
		me.tripped = new(atomic.Pointer[string])
	}
	ctx = registry.WithCallDepth(context.WithValue(ctx, nestingKey{}, me), me.depth)
	// The run's budget: the one a forwarding host gave the call, or the
	// outermost snippet's, shared by the snippets it runs.
	budget := registry.BudgetOf(ctx)
	if budget == nil {
		budget = registry.NewBudget(MaxRunCalls)
		ctx = registry.WithBudget(ctx, budget)
	}
	if p, ok := inv.(pinner); ok {
		names := make([]string, len(s.prog.steps))
		for i, st := range s.prog.steps {
			names[i] = st.tool
		}
		inv = p.Pin(names...)
	}
	maxArgs := args.DefaultMaxBytes
	if c, ok := inv.(argumentCap); ok {
		maxArgs = c.MaxArgumentBytes()
	}
	rs := &refs{env: map[string]any{}}
	var last result.Result[any]
	for _, st := range s.prog.steps {
		if err := ctx.Err(); err != nil {
			return result.Result[any]{}, fmt.Errorf("%s: line %d: %s not called: %w", s.label(), st.line, st.tool, err)
		}
		if !budget.Take() {
			return result.Failuref[any](ErrorType, "%s: line %d: %s not called: this run of snippets has started %d tool calls, the most one run may, counting those of the servers it calls (snippets running snippets multiply their calls); run fewer steps per call",
				s.label(), st.line, st.tool, MaxRunCalls), nil
		}
		raw, rerr := st.arguments(vals, rs, maxArgs)
		if rerr != nil {
			return result.Failuref[any](ErrorType, "%s: line %d: %s: %s", s.label(), st.line, st.tool, rerr), nil
		}
		name := st.tool
		me.line.Store(int32(st.line))
		if tn, ok := inv.(targetNamer); ok {
			name = tn.TargetName(name)
		}
		res, err := inv.Invoke(ctx, name, raw)
		if errors.Is(err, registry.ErrUnknownTool) && ctx.Err() == nil && !known(inv, name) {
			return result.Failuref[any](result.Unavailable, "%s: line %d: %s: no such tool is served now (%v)%s", s.label(), st.line, st.tool, err, snippetHint(inv, st.tool)), nil
		}
		if err != nil {
			return result.Result[any]{}, fmt.Errorf("%s: line %d: %s: %w", s.label(), st.line, st.tool, err)
		}
		if !res.Success {
			if t := me.tripped.Load(); outer != nil && t != nil && res.Error == *t {
				return res, nil // the bound's failure, named once by the outermost snippet
			}
			res.Error = fmt.Sprintf("%s: line %d: %s failed: %s", s.label(), st.line, st.tool, res.Error)
			return res, nil
		}
		if st.assign != "" && s.used[st.assign] {
			v, size, err := normalizeSized(res.Value)
			if err != nil {
				return result.Result[any]{}, fmt.Errorf("%s: line %d: the value of %s cannot be read as JSON: %w", s.label(), st.line, st.tool, err)
			}
			if rs.kept += size; rs.kept > MaxKeptBytes {
				return result.Failuref[any](ErrorType, "%s: line %d: %s: the values kept for later lines are more than %d bytes; keep fewer or smaller ones (a large output can be paged with ot.result)",
					s.label(), st.line, st.tool, MaxKeptBytes), nil
			}
			rs.env[st.assign] = v
		}
		last = res
	}
	return last, nil
}

// refError is a reference that the data cannot satisfy.
type refError struct{ msg string }

func (e *refError) Error() string { return e.msg }

// arguments builds the step's JSON arguments.
func (st *step) arguments(vals map[string]any, rs *refs, max int) (json.RawMessage, error) {
	b := []byte{'{'}
	for i, a := range st.args {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, a.name)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, a.val, vals, rs, max); err != nil {
			return nil, err
		}
	}
	if b = append(b, '}'); len(b) > max {
		return nil, errArgumentsTooLarge{max}
	}
	return b, nil
}

// appendJSONString appends s as a JSON string, without HTML escaping (as
// Expand writes values, so that running an expansion sends the same bytes).
func appendJSONString(b []byte, s string) []byte {
	return append(b, compactJSON(s)...)
}

func appendValue(b []byte, v value, vals map[string]any, rs *refs, max int) ([]byte, error) {
	b, err := appendValueUncapped(b, v, vals, rs, max)
	if err == nil && len(b) > max {
		return nil, errArgumentsTooLarge{max}
	}
	return b, err
}

// appendValueUncapped is appendValue before the cap's check, which every
// element of a list or an object passes on its way.
func appendValueUncapped(b []byte, v value, vals map[string]any, rs *refs, max int) ([]byte, error) {
	switch v := v.(type) {
	case literal:
		return append(b, v.raw...), nil
	case placeholder:
		return appendData(b, vals[v.param]), nil
	case template:
		var sb strings.Builder
		for _, p := range v.parts {
			if p.param != "" {
				sb.WriteString(textOf(vals[p.param]))
			} else {
				sb.WriteString(p.text)
			}
		}
		return appendJSONString(b, sb.String()), nil
	case ref:
		d, err := v.resolve(rs)
		if err != nil {
			return nil, err
		}
		return appendData(b, d), nil
	case array:
		b = append(b, '[')
		for i, e := range v.elems {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e, vals, rs, max); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case object:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, v.vals[i], vals, rs, max); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return b, fmt.Errorf("snippet: unknown value %T", v)
}

// appendData appends JSON data (from normalize or decoding).
func appendData(b []byte, d any) []byte {
	return append(b, compactJSON(d)...)
}

// refs is what a run's references read: the values of the earlier lines
// by name, and the JSON texts among them already read, by the path they
// were met at (a value is never reassigned, so a path always leads to the
// same text).
type refs struct {
	env   map[string]any
	texts map[string]any
	// kept is the bytes kept for later lines: the values, and the JSON
	// texts read from them (MaxKeptBytes bounds both together).
	kept int
}

// resolve follows the reference through an earlier result's data. A
// string met where the path goes on is read as JSON text (see jsonText).
func (r ref) resolve(rs *refs) (any, error) {
	cur, ok := rs.env[r.root]
	if !ok { // Parse guarantees the name was assigned on an earlier line
		return nil, &refError{fmt.Sprintf("%s: %q has no value", r.text, r.root)}
	}
	at := r.root
	for _, p := range r.path {
		text := false
		if s, ok := cur.(string); ok {
			d, err := rs.jsonText(r, at, s, p.isIdx)
			if err != nil {
				return nil, err
			}
			cur, text = d, true
		}
		switch {
		case p.isIdx:
			arr, ok := cur.([]any)
			if !ok {
				if text {
					return nil, &refError{fmt.Sprintf("%s: %s is text that is not a JSON array (it holds a JSON object)", r.text, at)}
				}
				return nil, &refError{fmt.Sprintf("%s: %s is %s, not an array", r.text, at, jsonType(cur))}
			}
			if p.index >= len(arr) {
				return nil, &refError{fmt.Sprintf("%s: index %d is out of range (%s has %d elements)", r.text, p.index, at, len(arr))}
			}
			cur = arr[p.index]
			at += "[" + strconv.Itoa(p.index) + "]"
		default:
			obj, ok := cur.(map[string]any)
			if !ok {
				if text {
					return nil, &refError{fmt.Sprintf("%s: %s is text that is not a JSON object (it holds a JSON array)", r.text, at)}
				}
				return nil, &refError{fmt.Sprintf("%s: %s is %s, not an object", r.text, at, jsonType(cur))}
			}
			next, ok := obj[p.field]
			if !ok {
				return nil, &refError{fmt.Sprintf("%s: %s has no field %q", r.text, at, p.field)}
			}
			cur = next
			if isIdent(p.field) {
				at += "." + p.field
			} else {
				at += "[" + strconv.Quote(p.field) + "]"
			}
		}
	}
	return cur, nil
}

// jsonText reads s, a string the reference r goes into at the path at, as
// JSON text: after JSON white space, an object or an array, numbers kept
// as written (json.Number). Anything else is a refError saying what the
// path wanted (an array for an index, an object for a field) and what the
// text is, unquoted (see beginning).
func (rs *refs) jsonText(r ref, at, s string, index bool) (any, error) {
	if d, ok := rs.texts[at]; ok {
		return d, nil
	}
	want := "object"
	if index {
		want = "array"
	}
	t := strings.Trim(s, " \t\r\n")
	var d any
	if t != "" && (t[0] == '{' || t[0] == '[') {
		d, _ = decodeJSONText(t)
	}
	if d == nil {
		return nil, &refError{fmt.Sprintf("%s: %s is text that is not a JSON %s (%s)", r.text, at, want, beginning(s))}
	}
	if rs.kept += len(t); rs.kept > MaxKeptBytes {
		return nil, &refError{fmt.Sprintf("%s: reading %s as JSON keeps more than %d bytes for later lines; keep fewer or smaller values", r.text, at, MaxKeptBytes)}
	}
	if rs.texts == nil {
		rs.texts = map[string]any{}
	}
	rs.texts[at] = d
	return d, nil
}

// decodeJSONText decodes one JSON value that is all of t, with json.Number
// numbers.
func decodeJSONText(t string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON value")
	}
	return out, nil
}

// beginning describes a text that is not the JSON a reference wants
// without quoting it: a tool's answer may hold what must not reach an
// error or a log (a token an upstream echoed, a session id), so only its
// size and, for text that opens as JSON, its first character are told.
func beginning(s string) string {
	t := strings.Trim(s, " \t\r\n")
	switch {
	case t == "":
		return "it is empty"
	case t[0] == '{' || t[0] == '[':
		return fmt.Sprintf("it is %d bytes of text beginning with '%c' that is not valid JSON", len(t), t[0])
	}
	return fmt.Sprintf("it is %d bytes of text holding no JSON object or array", len(t))
}
