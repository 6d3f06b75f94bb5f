package registry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

type stepsArgs struct {
	Steps int `json:"steps" validate:"required,min=1,max=5"`
}

// A handler logs through registry.Logger(ctx): the registry's logger with
// the tool's final name attached, without importing an adapter.
func TestCallContext_LoggerCarriesToolName(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new("tp"), Logger: log})
	require.NoError(t, AddFunc(r, "work", func(ctx context.Context, a stepsArgs) (result.Result[int], error) {
		Logger(ctx).Info("working")
		c, ok := CallFrom(ctx)
		if !ok || c.Tool.Name != "tp_work" {
			return result.Failure[int]("no call on the context", result.InternalError), nil
		}
		return result.Ok(a.Steps), nil
	}, ToolOptions{}))
	res, err := r.Invoke(t.Context(), "tp_work", []byte(`{"steps":2}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	var found bool
	for _, rec := range buf.records(t) {
		if rec.Msg == "working" {
			found = true
			assert.Equal(t, "tp_work", rec.Tool)
		}
	}
	assert.True(t, found)
	assert.NotNil(t, Logger(context.Background()), "outside a call: slog.Default()")
	_, ok := CallFrom(context.Background())
	assert.False(t, ok)
}

// ReportProgress reaches the function an adapter installed, in order;
// without one it is a no-op returning nil, and a delivery error is the
// handler's to see.
func TestReportProgress_DeliveredOrNoop(t *testing.T) {
	r := New(noPrefix())
	var reportErr error
	require.NoError(t, AddFunc(r, "steps", func(ctx context.Context, a stepsArgs) (result.Result[int], error) {
		for i := 1; i <= a.Steps; i++ {
			if err := ReportProgress(ctx, Progress{Progress: float64(i), Total: float64(a.Steps), Message: "step"}); err != nil {
				reportErr = err
			}
		}
		return result.Ok(a.Steps), nil
	}, ToolOptions{}))

	_, err := r.Invoke(t.Context(), "steps", []byte(`{"steps":3}`))
	require.NoError(t, err)
	assert.NoError(t, reportErr, "no reporter: nil")

	var got []Progress
	ctx := WithProgress(t.Context(), func(_ context.Context, p Progress) error { got = append(got, p); return nil })
	_, err = r.Invoke(ctx, "steps", []byte(`{"steps":3}`))
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, Progress{Progress: 3, Total: 3, Message: "step"}, got[2])

	gone := errors.New("client gone")
	ctx = WithProgress(t.Context(), func(context.Context, Progress) error { return gone })
	_, err = r.Invoke(ctx, "steps", []byte(`{"steps":1}`))
	require.NoError(t, err)
	assert.ErrorIs(t, reportErr, gone)
	assert.Equal(t, t.Context(), WithProgress(t.Context(), nil), "a nil reporter adds nothing")
}

// Request info attached by an adapter reaches the handler; an in-process
// call sees a zero RequestInfo.
func TestRequest_InfoReachesHandler(t *testing.T) {
	r := New(noPrefix())
	var seen *RequestInfo
	require.NoError(t, AddFunc(r, "who", func(ctx context.Context, _ struct{}) (result.Result[string], error) {
		seen = Request(ctx)
		if seen.Auth == nil {
			return result.Ok("anonymous"), nil
		}
		return result.Ok(seen.Auth.Subject), nil
	}, ToolOptions{}))
	res, err := r.Invoke(t.Context(), "who", nil)
	require.NoError(t, err)
	assert.Equal(t, "anonymous", res.Value)
	assert.Equal(t, "", seen.Transport)

	info := &RequestInfo{Transport: "http", Auth: &AuthInfo{Subject: "ada", Scopes: []string{"tools"}}}
	res, err = r.Invoke(WithRequest(t.Context(), info), "who", nil)
	require.NoError(t, err)
	assert.Equal(t, "ada", res.Value)
	assert.Same(t, info, seen)
}

// A call made from a handler's context knows the call that made it; a
// call from outside has no parent. Middleware sees the same.
func TestCall_ParentOfANestedCall(t *testing.T) {
	r := New(Options{})
	parents := map[string]string{}
	r.Use(func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (result.Result[any], error) {
			if p, ok := c.Parent(); ok {
				parents[c.Tool.Name] = p.Tool.Name
			} else {
				parents[c.Tool.Name] = ""
			}
			return next(ctx, c)
		}
	})
	require.NoError(t, AddFunc(r, "inner", func(ctx context.Context, a stepsArgs) (result.Result[int], error) {
		return result.Ok(a.Steps), nil
	}, ToolOptions{}))
	require.NoError(t, AddFunc(r, "outer", func(ctx context.Context, a stepsArgs) (result.Result[int], error) {
		res, err := r.Invoke(ctx, "inner", []byte(`{"steps":1}`))
		if err != nil || !res.Success {
			return result.Failure[int]("inner failed", result.InternalError), nil
		}
		return result.Ok(a.Steps + 1), nil
	}, ToolOptions{}))
	res, err := r.Invoke(t.Context(), "outer", []byte(`{"steps":2}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, map[string]string{"outer": "", "inner": "outer"}, parents)
	var none *Call
	_, ok := none.Parent()
	assert.False(t, ok)
}

// A call made with Detach(ctx) from a handler has no parent, and keeps
// what the handler's context carried beside the call: the request, the
// deadline, cancellation.
func TestDetach_ForwardedCallHasNoParent(t *testing.T) {
	r := New(Options{})
	parents := map[string]bool{}
	var innerInfo *RequestInfo
	var innerDeadline bool
	r.Use(func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (result.Result[any], error) {
			_, parents[c.Tool.Name] = c.Parent()
			return next(ctx, c)
		}
	})
	require.NoError(t, AddFunc(r, "inner", func(ctx context.Context, a stepsArgs) (result.Result[int], error) {
		innerInfo = Request(ctx)
		_, innerDeadline = ctx.Deadline()
		return result.Ok(a.Steps), nil
	}, ToolOptions{}))
	require.NoError(t, AddFunc(r, "forward", func(ctx context.Context, a stepsArgs) (result.Result[int], error) {
		res, err := r.Invoke(Detach(ctx), "inner", []byte(`{"steps":1}`))
		if err != nil || !res.Success {
			return result.Failure[int]("inner failed", result.InternalError), nil
		}
		return result.Ok(a.Steps + 1), nil
	}, ToolOptions{}))
	info := &RequestInfo{Transport: "test"}
	ctx, cancel := context.WithTimeout(WithRequest(t.Context(), info), time.Minute)
	defer cancel()
	res, err := r.Invoke(ctx, "forward", []byte(`{"steps":2}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, map[string]bool{"forward": false, "inner": false}, parents)
	assert.Same(t, info, innerInfo)
	assert.True(t, innerDeadline)

	// Outside a call, Detach changes nothing.
	plain := t.Context()
	assert.Equal(t, plain, Detach(plain))

	// Cancelling the caller's context reaches the detached one.
	cctx, ccancel := context.WithCancel(t.Context())
	d := Detach(&callContext{Context: cctx, call: &Call{}})
	_, ok := CallFrom(d)
	assert.False(t, ok)
	ccancel()
	<-d.Done()
	assert.ErrorIs(t, d.Err(), context.Canceled)
}
