package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

var emptyObject = json.RawMessage(`{}`)

// Invoke runs one call through the pipeline: look up → size/depth caps and
// Tool.Decode → middleware → handler (under the timeout) → output validation
// → default instructions.
//
// Domain failures, including invalid arguments (error type
// validation_error), a recovered panic (internal_error) and a call that ran
// out of time (timeout), come back as a failed Result with a nil error. A
// non-nil error is a protocol failure: an unknown tool (ErrUnknownTool), a
// context already done before the call or cancelled during it (wrapping
// context.Canceled or context.DeadlineExceeded), an output that does not
// match the output schema (ErrInvalidOutput), or an error returned by the
// handler. Empty raw arguments (nil or zero length) mean "no arguments" and
// are read as {}.
//
// A name that is an alias (SetAliases) runs the tool it resolves to (an
// alias whose target is not served is a failed Result of type
// unavailable); a name that finds no tool, or a tool that calls others
// (Tool.Calls), while an Update runs waits for it and is looked up
// again; a disabled tool (SetEnabled) is answered with a failed Result
// of type unavailable without running.
//
// The handler's context carries the call (CallFrom, Logger) and whatever
// the adapter attached with WithProgress and WithRequest.
func (r *Registry) Invoke(ctx context.Context, name string, raw json.RawMessage) (result.Result[any], error) {
	if err := ctx.Err(); err != nil {
		return result.Result[any]{}, fmt.Errorf("registry: tool %q not called: %w", name, err)
	}
	e, via, pinned := r.find(ctx, name)
	if e == nil {
		return unknownTool(name, via)
	}
	return r.invokeEntry(ctx, e, raw, pinned)
}

// find is lookup for a call about to be made: a name that finds nothing,
// or a tool whose Calls name others, while an Update runs is looked up
// again once it has ended. The tools the found tool's Calls name are held
// in the same instant (nil Pinned when it names none).
func (r *Registry) find(ctx context.Context, name string) (*entry, string, *Pinned) {
	seq := r.upSeq.Load()
	e, via, pinned := r.lookupCall(name)
	if e == nil || pinned != nil {
		// It may have arrived in the middle of an Update: look again once
		// no Update runs. A tool calling others (a snippet) must find them
		// as one configuration has them, not half-way through an update
		// (the new snippets with the old aliases): it waits too.
		r.lookAgain(ctx, seq, func() { e, via, pinned = r.lookupCall(name) })
	}
	return e, via, pinned
}

// lookupCall is lookup, holding the tools the found tool's Calls name
// under the same read lock, so that both see one state of the registry.
func (r *Registry) lookupCall(name string) (*entry, string, *Pinned) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, via := r.lookupLocked(name)
	if e == nil || len(e.tool.Calls) == 0 {
		return e, via, nil
	}
	return e, via, r.pinLocked(e.tool.Calls)
}

// unknownTool answers a call of name that found no tool; via is where its
// alias chain ended (name itself when name is no alias). An unknown name
// is the protocol error ErrUnknownTool; an alias, which the host
// configured, whose target is not served (a remote server's tool while
// the server is away) is a failure of type unavailable naming both.
func unknownTool(name, via string) (result.Result[any], error) {
	if via != name {
		return aliasUnserved(name, via), nil
	}
	return result.Result[any]{}, fmt.Errorf("%w: %q", ErrUnknownTool, name)
}

// aliasUnserved is the failure for a call of the alias name whose chain
// ends at via, which no tool serves.
func aliasUnserved(name, via string) result.Result[any] {
	return result.Failuref[any](result.Unavailable, "%q is an alias of %q, which is not served now (a remote server's tool while the server is not connected, or a tool not registered)", name, via).
		WithInstruction("Do not retry this call now; tell the user the tool behind it is not available.")
}

// disabled is the failure for a call of a disabled tool: it names the
// tool and, for one its source switched off (Tool.Disabled), says how to
// switch it on.
func disabled(t *Tool) result.Result[any] {
	if t.Disabled != "" {
		return result.Failuref[any](result.Unavailable, "tool %q is disabled: %s", t.Name, t.Disabled).
			WithInstruction("Do not call this tool; tell the user it is switched off and how to switch it on.")
	}
	return result.Failuref[any](result.Unavailable, "tool %q is disabled", t.Name).
		WithInstruction("Do not call this tool; tell the user it is switched off.")
}

// Unavailable returns, without running anything, the failed Result of
// type unavailable that Invoke answers for a name that is known but runs
// no tool now: a disabled tool (SetEnabled, SetPackEnabled), an alias of
// one, or an alias whose target is not served. ok is false when name runs
// an enabled tool, and for a name that is neither a tool nor an alias
// (Invoke's ErrUnknownTool). Tools that take another tool's name as an
// argument — a meta-tool describing or calling it, as package disclosure's
// do — answer with it, so that they refuse the name as a call of it would
// be refused.
func (r *Registry) Unavailable(name string) (res result.Result[any], ok bool) {
	r.mu.RLock()
	e, via := r.lookupLocked(name)
	_, alias := r.aliases[name]
	r.mu.RUnlock()
	switch {
	case e != nil && e.off:
		return disabled(e.tool), true
	case e == nil && alias:
		return aliasUnserved(name, via), true
	}
	return result.Result[any]{}, false
}

// invokeEntry runs one call of the tool of e: Invoke once the name is
// looked up.
func (r *Registry) invokeEntry(ctx context.Context, e *entry, raw json.RawMessage, pinned *Pinned) (result.Result[any], error) {
	if e.off {
		return disabled(e.tool), nil
	}
	if len(raw) == 0 {
		raw = emptyObject
	}
	c := &Call{Tool: e.tool, Raw: raw, reg: r, pinned: pinned}
	c.ctx = callContext{Context: ctx, call: c}
	res, err := e.h(&c.ctx, c)
	if err != nil {
		return result.Result[any]{}, err
	}
	return result.Apply(r.opts.Instructions, res), nil
}

// lookupLocked returns the entry a call of name runs and the name its
// alias chain ended at (name itself when no alias is involved); r.mu must
// be held.
func (r *Registry) lookupLocked(name string) (*entry, string) {
	e, via := r.tools[name], name
	if e == nil && len(r.aliases) > 0 {
		e, via = r.resolveLocked(name)
	}
	return e, via
}

// decodeStage enforces the registry's size and depth caps and the
// arguments' encoding (UTF-8), and runs Tool.Decode; a
// *args.ValidationError becomes a validation_error failure.
func (r *Registry) decodeStage(next Handler) Handler {
	maxBytes, maxDepth := r.maxBytes, r.maxDepth
	return func(ctx context.Context, c *Call) (result.Result[any], error) {
		if ve := checkLimits(c.Raw, maxBytes, maxDepth); ve != nil {
			return args.Failure[any](ve), nil
		}
		if c.Tool.Decode != nil {
			a, err := c.Tool.Decode(c.Raw)
			if err != nil {
				var ve *args.ValidationError
				if errors.As(err, &ve) {
					return withFieldErrorType(c.Tool, args.Failure[any](ve), ve), nil
				}
				return result.Result[any]{}, fmt.Errorf("registry: tool %q: decode arguments: %w", c.Tool.Name, err)
			}
			c.Args = a
		}
		c.checked = true
		return next(ctx, c)
	}
}

// withFieldErrorType gives a validation failure the tool's error type for
// the first failing argument that has one (Tool.FieldErrorTypes).
func withFieldErrorType(t *Tool, res result.Result[any], ve *args.ValidationError) result.Result[any] {
	if len(t.FieldErrorTypes) == 0 {
		return res
	}
	for _, fe := range ve.Errors {
		top := fe.Field
		if i := strings.IndexAny(top, ".["); i >= 0 {
			top = top[:i]
		}
		if typ, ok := t.FieldErrorTypes[top]; ok {
			res.ErrorType = typ
			return res
		}
	}
	return res
}
