package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

func TestInvoke_UnknownToolIsProtocolError(t *testing.T) {
	r := New(noPrefix())
	_, err := r.Invoke(t.Context(), "missing", nil)
	require.ErrorIs(t, err, ErrUnknownTool)
	assert.Contains(t, err.Error(), `"missing"`)
}

func TestInvoke_SuccessGetsDefaultInstruction(t *testing.T) {
	opts := noPrefix()
	opts.Instructions = result.Instructions{Success: "use it", Failure: "report it"}
	r := New(opts)
	require.NoError(t, r.Add(
		rawTool("ok", okHandler(42)),
		rawTool("own", func(ctx context.Context, c *Call) (result.Result[any], error) {
			return result.Ok[any](1).WithInstruction("mine"), nil
		}),
		rawTool("fail", func(ctx context.Context, c *Call) (result.Result[any], error) {
			return result.Failure[any]("no such thing", result.NotFound), nil
		}),
	))
	res, err := r.Invoke(t.Context(), "ok", json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Equal(t, 42, res.Value)
	assert.Equal(t, "use it", res.Instruction)

	res, err = r.Invoke(t.Context(), "own", nil)
	require.NoError(t, err)
	assert.Equal(t, "mine", res.Instruction)

	res, err = r.Invoke(t.Context(), "fail", nil)
	require.NoError(t, err, "a domain failure is not a protocol error")
	assert.False(t, res.Success)
	assert.Equal(t, result.NotFound, res.ErrorType)
	assert.Equal(t, "report it", res.Instruction)
}

// A *args.ValidationError from Tool.Decode becomes a validation_error result
// listing every field, with a nil error; the handler is not called.
func TestInvoke_ValidationErrorBecomesFailureResult(t *testing.T) {
	r := New(noPrefix())
	var called atomic.Bool
	tool := rawTool("v", func(ctx context.Context, c *Call) (result.Result[any], error) {
		called.Store(true)
		return result.Ok[any](nil), nil
	})
	fields := []args.FieldError{
		{Field: "name", Rule: "required", Message: "name is required"},
		{Field: "count", Rule: "max", Message: "count must be at most 10"},
	}
	tool.Decode = func(raw json.RawMessage) (any, error) {
		return nil, &args.ValidationError{Errors: fields}
	}
	require.NoError(t, r.Add(tool))
	res, err := r.Invoke(t.Context(), "v", json.RawMessage(`{"count":11}`))
	require.NoError(t, err)
	assert.False(t, called.Load())
	assert.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Equal(t, fields, res.ErrorData)
	assert.Contains(t, res.Error, "name")
	assert.Contains(t, res.Error, "count")
}

// Any other Decode error is a protocol error naming the tool.
func TestInvoke_DecodeOtherErrorIsProtocolError(t *testing.T) {
	r := New(noPrefix())
	boom := errors.New("decoder broke")
	tool := rawTool("d", okHandler(1))
	tool.Decode = func(json.RawMessage) (any, error) { return nil, boom }
	require.NoError(t, r.Add(tool))
	_, err := r.Invoke(t.Context(), "d", nil)
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), `"d"`)
}

// Decoded arguments reach middleware and handler in Call.Args; raw arguments
// in Call.Raw; empty raw reads as {}.
func TestInvoke_DecodedArgsReachHandler(t *testing.T) {
	r := New(noPrefix())
	var gotRaw string
	tool := rawTool("a", func(ctx context.Context, c *Call) (result.Result[any], error) {
		gotRaw = string(c.Raw)
		return result.Ok(c.Args), nil
	})
	tool.Decode = func(raw json.RawMessage) (any, error) { return "decoded:" + string(raw), nil }
	require.NoError(t, r.Add(tool))
	res, err := r.Invoke(t.Context(), "a", json.RawMessage(`{"x":1}`))
	require.NoError(t, err)
	assert.Equal(t, `decoded:{"x":1}`, res.Value)
	assert.Equal(t, `{"x":1}`, gotRaw)
	res, err = r.Invoke(t.Context(), "a", nil)
	require.NoError(t, err)
	assert.Equal(t, `decoded:{}`, res.Value)
}

// The registry's size and depth caps apply before any decoder, to every tool.
func TestInvoke_SizeAndDepthCaps(t *testing.T) {
	opts := noPrefix()
	opts.Decode = args.DecodeOptions{MaxBytes: 64, MaxDepth: 3}
	r := New(opts)
	var called atomic.Int32
	require.NoError(t, r.Add(rawTool("raw", func(ctx context.Context, c *Call) (result.Result[any], error) {
		called.Add(1)
		return result.Ok[any](nil), nil
	})))
	cases := map[string]struct {
		raw  string
		rule string
	}{
		"too large":      {`{"s":"` + strings.Repeat("x", 64) + `"}`, "too_large"},
		"too deep":       {`{"a":[{"b":[1]}]}`, "too_deep"},
		"deep in string": {`{"a":"[[[[[[[[\"{{{{"}`, ""},
		"at the limit":   {`{"a":[{"b":1}]}`, ""},
		"stray closers":  {`]]]][[[[`, "too_deep"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := called.Load()
			res, err := r.Invoke(t.Context(), "raw", json.RawMessage(tc.raw))
			require.NoError(t, err)
			if tc.rule == "" {
				assert.True(t, res.Success, res.Error)
				assert.Equal(t, before+1, called.Load())
				return
			}
			assert.Equal(t, result.ValidationError, res.ErrorType)
			require.IsType(t, []args.FieldError{}, res.ErrorData)
			assert.Equal(t, tc.rule, res.ErrorData.([]args.FieldError)[0].Rule)
			assert.Equal(t, before, called.Load(), "handler must not run")
		})
	}
}

// A handler's error is a protocol error: returned (not swallowed), with an
// empty Result.
func TestInvoke_HandlerErrorIsProtocolError(t *testing.T) {
	r := New(noPrefix())
	boom := errors.New("upstream connection reset")
	require.NoError(t, r.Add(rawTool("e", func(ctx context.Context, c *Call) (result.Result[any], error) {
		return result.Ok[any](1), boom
	})))
	res, err := r.Invoke(t.Context(), "e", nil)
	require.ErrorIs(t, err, boom)
	assert.Equal(t, result.Result[any]{}, res)
}

// A context already cancelled (or past its deadline) before the call: no
// handler call, an error wrapping the context's error.
func TestInvoke_CancelledContextBeforeCall(t *testing.T) {
	r := New(noPrefix())
	var called atomic.Bool
	require.NoError(t, r.Add(rawTool("c", func(ctx context.Context, c *Call) (result.Result[any], error) {
		called.Store(true)
		return result.Ok[any](nil), nil
	})))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := r.Invoke(ctx, "c", nil)
	require.ErrorIs(t, err, context.Canceled)

	ctx, cancel2 := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel2()
	_, err = r.Invoke(ctx, "c", nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, called.Load())
}

// blockingTool ignores its context and waits for release.
func blockingTool(name string, release <-chan struct{}, finished chan<- struct{}) *Tool {
	return rawTool(name, func(ctx context.Context, c *Call) (result.Result[any], error) {
		<-release
		close(finished)
		return result.Ok[any]("late"), nil
	})
}

// Tool.Timeout bounds a call even when the handler ignores ctx: Invoke
// returns a timeout failure (nil error) and the handler finishes in the
// background, its outcome discarded.
func TestInvoke_ToolTimeoutWithHandlerIgnoringContext(t *testing.T) {
	r := New(noPrefix())
	release, finished := make(chan struct{}), make(chan struct{})
	tool := blockingTool("slow", release, finished)
	tool.Timeout = 20 * time.Millisecond
	require.NoError(t, r.Add(tool))
	res, err := r.Invoke(t.Context(), "slow", nil) // returns although the handler is blocked
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, result.Timeout, res.ErrorType)
	assert.Contains(t, res.Error, "20ms")
	close(release)
	<-finished // the handler goroutine completes in the background
}

// Options.Timeout applies to tools without their own; a Tool.Timeout wins.
func TestInvoke_OptionsTimeoutAndToolTimeoutWins(t *testing.T) {
	opts := noPrefix()
	opts.Timeout = 20 * time.Millisecond
	r := New(opts)
	release, finished := make(chan struct{}), make(chan struct{})
	require.NoError(t, r.Add(blockingTool("slow", release, finished)))
	var remaining time.Duration
	long := rawTool("long", func(ctx context.Context, c *Call) (result.Result[any], error) {
		d, ok := ctx.Deadline()
		if !ok {
			return result.Failure[any]("no deadline", "test"), nil
		}
		remaining = time.Until(d)
		return result.Ok[any](nil), nil
	})
	long.Timeout = time.Hour
	require.NoError(t, r.Add(long))

	res, err := r.Invoke(t.Context(), "slow", nil)
	require.NoError(t, err)
	assert.Equal(t, result.Timeout, res.ErrorType)
	close(release)
	<-finished

	res, err = r.Invoke(t.Context(), "long", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Greater(t, remaining, 30*time.Minute, "the tool's one-hour timeout must win over the registry's 20ms")
}

// A caller cancelling during the call gets a protocol error wrapping
// context.Canceled, even from a handler that ignores ctx.
func TestInvoke_CallerCancelsDuringCall(t *testing.T) {
	r := New(noPrefix())
	release, finished := make(chan struct{}), make(chan struct{})
	started := make(chan struct{})
	require.NoError(t, r.Add(rawTool("wait", func(ctx context.Context, c *Call) (result.Result[any], error) {
		close(started)
		<-release
		close(finished)
		return result.Ok[any](nil), nil
	})))
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err := r.Invoke(ctx, "wait", nil)
	require.ErrorIs(t, err, context.Canceled)
	close(release)
	<-finished
}

// A handler that honours ctx and returns context.DeadlineExceeded yields the
// timeout result, not a protocol error.
func TestInvoke_HandlerReturningDeadlineExceededIsTimeout(t *testing.T) {
	r := New(noPrefix())
	tool := rawTool("polite", func(ctx context.Context, c *Call) (result.Result[any], error) {
		<-ctx.Done()
		return result.Result[any]{}, ctx.Err()
	})
	tool.Timeout = 10 * time.Millisecond
	require.NoError(t, r.Add(tool))
	res, err := r.Invoke(t.Context(), "polite", nil)
	require.NoError(t, err)
	assert.Equal(t, result.Timeout, res.ErrorType)
}

// An Inline tool runs on the caller's goroutine: it still gets the
// deadline and the timeout failure when it honours its context, a
// cancelled call is still a protocol error wrapping context.Canceled, a
// panic is still recovered — and a handler that ignores its context is
// waited for, its own result returned.
func TestInvoke_InlineTool(t *testing.T) {
	r := New(noPrefix())
	polite := rawTool("polite", func(ctx context.Context, c *Call) (result.Result[any], error) {
		<-ctx.Done()
		return result.Result[any]{}, ctx.Err()
	})
	polite.Timeout, polite.Inline = 10*time.Millisecond, true
	stubborn := rawTool("stubborn", func(ctx context.Context, c *Call) (result.Result[any], error) {
		time.Sleep(40 * time.Millisecond)
		return result.Ok[any]("finished anyway"), nil
	})
	stubborn.Timeout, stubborn.Inline = 10*time.Millisecond, true
	panicky := rawTool("panicky", func(ctx context.Context, c *Call) (result.Result[any], error) { panic("boom") })
	panicky.Inline = true
	waiter := rawTool("waiter", polite.Handler)
	waiter.Inline = true
	require.NoError(t, r.Add(polite, stubborn, panicky, waiter))

	res, err := r.Invoke(t.Context(), "polite", nil)
	require.NoError(t, err)
	assert.Equal(t, result.Timeout, res.ErrorType)

	res, err = r.Invoke(t.Context(), "stubborn", nil)
	require.NoError(t, err)
	assert.True(t, res.Success, "an inline handler is waited for")
	assert.Equal(t, "finished anyway", res.Value)

	ctx, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	_, err = r.Invoke(ctx, "waiter", nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "call cancelled")

	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	res, err = r.Invoke(ctx, "panicky", nil)
	require.NoError(t, err)
	assert.Equal(t, result.InternalError, res.ErrorType)
}

// A panicking handler becomes an internal_error result; the stack is logged
// at ERROR, not put in the result; the registry keeps serving. This holds on
// the direct path and on the timeout goroutine.
func TestInvoke_PanicRecoveredAndProcessKeepsServing(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	panicky := rawTool("panicky", func(ctx context.Context, c *Call) (result.Result[any], error) {
		panic("secret-free boom")
	})
	timed := rawTool("panicky_timed", panicky.Handler)
	timed.Timeout = time.Minute
	require.NoError(t, r.Add(panicky, timed, rawTool("fine", okHandler("still here"))))
	for _, name := range []string{"panicky", "panicky_timed"} {
		res, err := r.Invoke(t.Context(), name, nil)
		require.NoError(t, err)
		assert.False(t, res.Success)
		assert.Equal(t, result.InternalError, res.ErrorType)
		assert.NotContains(t, res.Error, "goroutine")
		assert.NotContains(t, res.Error, "boom")
		res, err = r.Invoke(t.Context(), "fine", nil)
		require.NoError(t, err)
		assert.Equal(t, "still here", res.Value)
	}
	var stacks int
	for _, rec := range buf.records(t) {
		if rec.Stack != "" {
			stacks++
			assert.Equal(t, "ERROR", rec.Level)
			assert.Contains(t, rec.Msg, "failed: panic: a value of type string")
			assert.NotContains(t, rec.Msg, "boom", "the panic value is never logged")
			assert.Contains(t, rec.Stack, "goroutine")
		}
	}
	assert.Equal(t, 2, stacks)
}

// A panic in user middleware is recovered too.
func TestInvoke_PanicInMiddlewareRecovered(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("x", okHandler(1))))
	r.Use(func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (result.Result[any], error) { panic("mw") }
	})
	res, err := r.Invoke(t.Context(), "x", nil)
	require.NoError(t, err)
	assert.Equal(t, result.InternalError, res.ErrorType)
}

// Middleware runs first-added outermost, sees decoded arguments, and is
// applied to tools added before and after Use.
func TestMiddleware_OrderAndDecodedArgs(t *testing.T) {
	r := New(noPrefix())
	var trail []string
	mw := func(tag string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, c *Call) (result.Result[any], error) {
				trail = append(trail, tag+":"+c.Args.(string))
				res, err := next(ctx, c)
				trail = append(trail, tag+" done")
				return res, err
			}
		}
	}
	before := rawTool("before", func(ctx context.Context, c *Call) (result.Result[any], error) {
		trail = append(trail, "handler")
		return result.Ok[any](nil), nil
	})
	before.Decode = func(json.RawMessage) (any, error) { return "args", nil }
	require.NoError(t, r.Add(before))
	r.Use(mw("outer"), nil, mw("inner"))
	after := *before
	after.Name = "after"
	require.NoError(t, r.Add(&after))
	for _, name := range []string{"before", "after"} {
		trail = nil
		_, err := r.Invoke(t.Context(), name, nil)
		require.NoError(t, err)
		assert.Equal(t, []string{"outer:args", "inner:args", "handler", "inner done", "outer done"}, trail, name)
	}
}

// Middleware added with UseOuter sees every call of a tool — also those
// refused for their arguments (failing validation, over the size cap),
// with Call.Args nil and ArgsChecked false — and sits outside the
// middleware added with Use, whatever the order of the two calls.
func TestUseOuter_SeesCallsRefusedForTheirArguments(t *testing.T) {
	o := noPrefix()
	o.Decode.MaxBytes = 64
	r := New(o)
	var trail []string
	mw := func(tag string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, c *Call) (result.Result[any], error) {
				res, err := next(ctx, c)
				trail = append(trail, fmt.Sprintf("%s args=%v checked=%v success=%v type=%s", tag, c.Args, c.ArgsChecked(), res.Success, res.ErrorType))
				return res, err
			}
		}
	}
	r.Use(mw("use"))
	r.UseOuter(mw("outer1"), nil, mw("outer2"))
	tl := rawTool("x", okHandler(1))
	tl.Decode = func(raw json.RawMessage) (any, error) {
		if string(raw) != `{}` {
			return nil, &args.ValidationError{Errors: []args.FieldError{{Field: "n", Rule: "required", Message: "is required"}}}
		}
		return "decoded", nil
	}
	require.NoError(t, r.Add(tl))

	_, err := r.Invoke(t.Context(), "x", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"use args=decoded checked=true success=true type=", "outer2 args=decoded checked=true success=true type=", "outer1 args=decoded checked=true success=true type="}, trail)

	for _, raw := range []string{`{"m":1}`, `{"pad":"` + strings.Repeat("x", 100) + `"}`} {
		trail = nil
		res, err := r.Invoke(t.Context(), "x", json.RawMessage(raw))
		require.NoError(t, err)
		require.Equal(t, result.ValidationError, res.ErrorType)
		assert.Equal(t, []string{"outer2 args=<nil> checked=false success=false type=validation_error", "outer1 args=<nil> checked=false success=false type=validation_error"}, trail,
			"only the outer middleware sees a call refused for its arguments: %s", raw)
	}
}

// Middleware can short-circuit a call with its own result.
func TestMiddleware_CanShortCircuit(t *testing.T) {
	r := New(noPrefix())
	var called bool
	require.NoError(t, r.Add(rawTool("x", func(ctx context.Context, c *Call) (result.Result[any], error) {
		called = true
		return result.Ok[any](nil), nil
	})))
	r.Use(func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (result.Result[any], error) {
			return result.Failure[any]("disabled", result.Unavailable), nil
		}
	})
	res, err := r.Invoke(t.Context(), "x", nil)
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.False(t, called)
}
