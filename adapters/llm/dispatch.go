package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// ToolCall is one tool call as a model sent it.
type ToolCall struct {
	// ID is the provider's id of the call (OpenAI's tool_call id or
	// call_id, Anthropic's tool_use id, Gemini's function call id); the
	// result message carries it back.
	ID string `json:"id"`
	// Name is the tool's name as the provider knows it (Definition.Name).
	Name string `json:"name"`
	// Arguments is the JSON text of the arguments: OpenAI's arguments
	// string as it is, or the marshalled input object of Anthropic and
	// Gemini.
	Arguments string `json:"arguments"`
}

// Verdict is an approval callback's answer.
type Verdict int

const (
	// Approve runs the call.
	Approve Verdict = iota
	// Deny does not run it; the model reads the reason.
	Deny
	// Pause neither runs nor refuses it: the Outcome carries a Pending
	// call the host stores and later passes to Dispatcher.Resume.
	Pause
)

// Decision is what a host decided about a call waiting for approval.
type Decision struct {
	// Verdict says whether the call runs (Approve), is refused (Deny) or
	// waits (Pause).
	Verdict Verdict
	// Reason is shown to the model when the call is denied.
	Reason string
}

// ApprovalRequest is a call waiting for the host's approval.
type ApprovalRequest struct {
	// Call is the call as the model sent it.
	Call ToolCall
	// Tool is the tool it would run.
	Tool *registry.Tool
	// Arguments are the arguments it would run with, after the
	// dispatcher's reading (strict-mode nulls removed, lenient coercions).
	Arguments json.RawMessage
}

// ApproveFunc decides about a call that needs approval. It may be called
// from several goroutines at once (calls run in parallel) and should
// honour ctx. An error fails the call as a protocol failure.
type ApproveFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Pending is a paused call: everything needed to run it later, as JSON a
// host can store.
type Pending struct {
	// Call is the call as the model sent it.
	Call ToolCall `json:"call"`
	// Tool is the registry name it will run as.
	Tool string `json:"tool"`
	// Arguments are the arguments it will run with, after lenient
	// reading.
	Arguments json.RawMessage `json:"arguments"`
	// Coerced lists what lenient reading changed in the arguments.
	Coerced []string `json:"coerced,omitempty"`
}

// DispatchOptions tune a Dispatcher; the zero value runs up to four calls
// at once, reads arguments strictly and asks no approval.
type DispatchOptions struct {
	// MaxConcurrent caps the calls running at once; 0 means 4.
	MaxConcurrent int
	// Lenient accepts what sloppy models send — an arguments object
	// passed as a JSON string, "5" for an integer, "true" for a boolean,
	// an object or array passed as its JSON text, an empty arguments
	// string for no arguments — and says in the result what it read
	// differently. Off, arguments go to the registry as sent.
	Lenient bool
	// Approve, when set, is asked before every call NeedsApproval selects.
	Approve ApproveFunc
	// NeedsApproval selects the calls Approve is asked about; nil selects
	// tools whose Destructive hint is true (which includes every tool
	// taking a consent phrase).
	NeedsApproval func(t *registry.Tool) bool
	// MaxArgumentBytes caps the arguments text read; 0 means 1 MiB.
	MaxArgumentBytes int
}

// Dispatcher runs a model's tool calls through a registry and phrases the
// results for the provider the tools were exported to.
type Dispatcher struct {
	reg  *registry.Registry
	defs *Definitions
	opts DispatchOptions
}

// NewDispatcher returns a Dispatcher running calls against reg, by the
// names and schemas of defs (the export the model was given).
func NewDispatcher(reg *registry.Registry, defs *Definitions, opts DispatchOptions) *Dispatcher {
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 4
	}
	if opts.MaxArgumentBytes <= 0 {
		opts.MaxArgumentBytes = 1 << 20
	}
	if opts.NeedsApproval == nil {
		opts.NeedsApproval = func(t *registry.Tool) bool {
			return t.Annotations.Destructive != nil && *t.Annotations.Destructive
		}
	}
	return &Dispatcher{reg: reg, defs: defs, opts: opts}
}

// Outcome is what became of one call.
type Outcome struct {
	// Call is the call as the model sent it.
	Call ToolCall
	// Tool is the registry name it ran as; empty for an unknown tool.
	Tool string
	// Result is the pipeline's result, or the failure the dispatcher
	// answered with (unknown tool, denied, cancelled before it ran).
	Result result.Result[any]
	// Err is a protocol failure: the pipeline's error, or the approval
	// callback's. The model is told the call could not be completed and
	// of which kind (timeout, cancelled …), not the error's text.
	Err error
	// Coerced lists what lenient reading changed in the arguments.
	Coerced []string
	// Pending is set when the approval callback paused the call; the
	// call has not run and has no result yet.
	Pending *Pending
}

// Dispatch runs the calls, up to MaxConcurrent at once, and returns their
// outcomes in call order. When ctx ends, calls not yet started fail as
// cancelled and the error is ctx's; running calls see ctx too.
func (d *Dispatcher) Dispatch(ctx context.Context, calls []ToolCall) ([]Outcome, error) {
	out := make([]Outcome, len(calls))
	if len(calls) == 1 || d.opts.MaxConcurrent == 1 {
		// In order on this goroutine: no goroutine to start (and whose
		// stack the pipeline would grow) for the common single call.
		for i, c := range calls {
			if err := ctx.Err(); err != nil {
				for j := i; j < len(calls); j++ {
					out[j] = notRun(calls[j], err)
				}
				return out, err
			}
			out[i] = d.dispatch(ctx, c)
		}
		return out, ctx.Err()
	}
	sem := make(chan struct{}, d.opts.MaxConcurrent)
	var wg sync.WaitGroup
	for i, c := range calls {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			for j := i; j < len(calls); j++ {
				out[j] = notRun(calls[j], ctx.Err())
			}
			wg.Wait()
			return out, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = d.dispatch(ctx, c)
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

// notRun is the outcome of a call not started because ctx ended.
func notRun(c ToolCall, err error) Outcome {
	return Outcome{Call: c, Result: result.Failure[any]("the call was not run: the agent loop was cancelled", result.Cancelled), Err: err}
}

// dispatch runs one call.
func (d *Dispatcher) dispatch(ctx context.Context, c ToolCall) Outcome {
	o := Outcome{Call: c}
	name, ok := d.defs.Lookup(c.Name)
	if !ok {
		o.Result = result.Failuref[any](result.NotFound, "there is no tool named %q; call only the tools you were given", c.Name)
		return o
	}
	o.Tool = name
	tool, enabled, ok := d.reg.ResolveContext(ctx, name)
	if !ok || !enabled {
		o.Result = result.Failuref[any](result.Unavailable, "the tool %q is not available any more", c.Name)
		return o
	}
	raw, coerced := d.read(c.Arguments, d.defs.schemas[name], d.defs.textObjects[name])
	o.Coerced = coerced
	if d.opts.Approve != nil && d.opts.NeedsApproval(tool) {
		dec, err := d.approve(ctx, ApprovalRequest{Call: c, Tool: tool, Arguments: raw})
		if err != nil {
			o.Err = fmt.Errorf("llm: approval of %s: %w", name, err)
			return o
		}
		if done := decide(&o, dec, raw); done {
			return o
		}
	}
	o.Result, o.Err = d.reg.Invoke(ctx, name, raw)
	return o
}

// approve asks the host's callback; a panic in it is an error of the call,
// not of the process.
func (d *Dispatcher) approve(ctx context.Context, req ApprovalRequest) (dec Decision, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the approval callback panicked: %v", p)
		}
	}()
	return d.opts.Approve(ctx, req)
}

// decide applies a decision to an outcome; it reports whether the call
// must not run now.
func decide(o *Outcome, dec Decision, raw json.RawMessage) bool {
	switch dec.Verdict {
	case Approve:
		return false
	case Deny:
		msg := "the call was denied"
		if r := strings.TrimSpace(dec.Reason); r != "" {
			msg += ": " + r
		}
		o.Result = result.Failure[any](msg, result.PermissionDenied)
	case Pause:
		o.Pending = &Pending{Call: o.Call, Tool: o.Tool, Arguments: raw, Coerced: o.Coerced}
	default:
		o.Err = fmt.Errorf("llm: approval of %s: unknown verdict %d", o.Tool, dec.Verdict)
	}
	return true
}

// Resume decides a paused call: Approve runs it now, Deny answers with
// the reason, Pause keeps it pending. The call must name a tool of the
// Dispatcher's definitions (Pending.Tool the one its name maps to), still
// registered and enabled: a stored call cannot reach another tool.
func (d *Dispatcher) Resume(ctx context.Context, p Pending, dec Decision) Outcome {
	o := Outcome{Call: p.Call, Tool: p.Tool, Coerced: p.Coerced}
	if name, ok := d.defs.Lookup(p.Call.Name); !ok || name != p.Tool {
		// A stored call runs only a tool the model was given, by its name.
		o.Result = result.Failuref[any](result.NotFound, "there is no tool named %q; call only the tools you were given", p.Call.Name)
		return o
	}
	if _, enabled, ok := d.reg.Resolve(p.Tool); !ok || !enabled {
		o.Result = result.Failuref[any](result.Unavailable, "the tool %q is not available any more", p.Call.Name)
		return o
	}
	if decide(&o, dec, p.Arguments) {
		return o
	}
	o.Result, o.Err = d.reg.Invoke(ctx, p.Tool, p.Arguments)
	return o
}

// read prepares the arguments text for the registry: in a strict-mode
// export, nulls of optional fields are removed (strict mode makes the
// model send them) and free-form objects sent as JSON text are read back
// as objects; in lenient mode, what a sloppy model sent is read as
// meant. Arguments that do not parse go on unchanged, for the registry to
// report.
func (d *Dispatcher) read(text string, schema map[string]any, textObjects bool) (json.RawMessage, []string) {
	raw := json.RawMessage(text)
	if !d.defs.Strict && !d.opts.Lenient || len(text) > d.opts.MaxArgumentBytes || schema == nil {
		return raw, nil
	}
	if !d.opts.Lenient && !textObjects && !bytes.Contains(raw, []byte("null")) {
		return raw, nil // nothing for strict reading to do
	}
	var notes []string
	t := bytes.TrimSpace(raw)
	if d.opts.Lenient && len(t) == 0 {
		return json.RawMessage("{}"), []string{"empty arguments read as {}"}
	}
	v, err := decodeJSON(t)
	if err != nil {
		return raw, nil
	}
	if s, ok := v.(string); ok && d.opts.Lenient {
		if inner, err := decodeJSON([]byte(s)); err == nil {
			if _, isObj := inner.(map[string]any); isObj {
				v = inner
				notes = append(notes, "the arguments object arrived as a JSON string and was read as the object")
			}
		}
	}
	r := reader{lenient: d.opts.Lenient, strict: d.defs.Strict}
	v = r.value(v, schema, "")
	notes = append(notes, r.notes...)
	if !r.changed && len(notes) == 0 {
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw, nil
	}
	return b, notes
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}
