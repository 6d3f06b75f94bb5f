package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/result"
)

func msgs(recs []logRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Level+" "+r.Msg)
	}
	return out
}

// Seed 004 "Tool invocation logging": "Tool called: {name}" at TRACE, written
// before the tool executes.
func TestLogging_CalledAtTraceBeforeExecution(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new("p"), Logger: log})
	var seenByHandler []string
	require.NoError(t, r.Add(rawTool("x", func(ctx context.Context, c *Call) (result.Result[any], error) {
		seenByHandler = msgs(buf.records(t))
		return result.Ok[any](1), nil
	})))
	_, err := r.Invoke(t.Context(), "p_x", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{levelName(LevelTrace) + " Tool called: p_x"}, seenByHandler)
	assert.Equal(t, "p_x", buf.records(t)[0].Tool)
}

// Seed 004 "Tool success logging" (async and sync alike: Go has one kind of
// function, and both log the same text; we use TRACE as the issue asks).
func TestLogging_SuccessAtTrace(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	require.NoError(t, r.Add(rawTool("x", okHandler(1))))
	_, err := r.Invoke(t.Context(), "x", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{
		levelName(LevelTrace) + " Tool called: x",
		levelName(LevelTrace) + " Tool x completed successfully",
	}, msgs(buf.records(t)))
	assert.Equal(t, slog.Level(-8), LevelTrace)
}

// Seed 004 "Tool failure logging": "Tool {name} failed: {error}" at ERROR,
// then the error is returned, not swallowed.
func TestLogging_FailureAtErrorAndReturned(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	boom := errors.New("disk on fire")
	require.NoError(t, r.Add(rawTool("x", func(ctx context.Context, c *Call) (result.Result[any], error) {
		return result.Result[any]{}, boom
	})))
	_, err := r.Invoke(t.Context(), "x", nil)
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []string{
		levelName(LevelTrace) + " Tool called: x",
		"ERROR Tool x failed: disk on fire",
	}, msgs(buf.records(t)))
}

// A call its caller cancelled is logged at INFO ("cancelled by the
// caller"), not as an ERROR an operator should act on; a handler's own
// context.Canceled while the caller is still there stays an ERROR.
func TestLogging_CallerCancellationAtInfo(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	started := make(chan struct{})
	require.NoError(t, r.Add(rawTool("slow", func(ctx context.Context, c *Call) (result.Result[any], error) {
		close(started)
		<-ctx.Done()
		return result.Result[any]{}, ctx.Err()
	}), rawTool("own", func(ctx context.Context, c *Call) (result.Result[any], error) {
		return result.Result[any]{}, fmt.Errorf("upstream: %w", context.Canceled)
	})))
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err := r.Invoke(ctx, "slow", nil)
	require.ErrorIs(t, err, context.Canceled)
	_, err = r.Invoke(t.Context(), "own", nil)
	require.ErrorIs(t, err, context.Canceled)
	got := msgs(buf.records(t))
	require.Len(t, got, 4)
	assert.True(t, strings.HasPrefix(got[1], "INFO Tool slow cancelled by the caller: "), got[1])
	assert.True(t, strings.HasPrefix(got[3], "ERROR Tool own failed: "), got[3])
}

// A call the host stopped with a cause of its own (a server shutting down
// cancels its requests with one) is logged at INFO with that cause, not
// blamed on the caller.
func TestLogging_HostStopWithACauseIsNotBlamedOnTheCaller(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	started := make(chan struct{})
	require.NoError(t, r.Add(rawTool("slow", func(ctx context.Context, c *Call) (result.Result[any], error) {
		close(started)
		<-ctx.Done()
		return result.Result[any]{}, ctx.Err()
	})))
	ctx, cancel := context.WithCancelCause(t.Context())
	go func() { <-started; cancel(errors.New("the server is shutting down")) }()
	_, err := r.Invoke(ctx, "slow", nil)
	require.ErrorIs(t, err, context.Canceled)
	got := msgs(buf.records(t))
	require.Len(t, got, 2)
	assert.Equal(t, "INFO Tool slow stopped: the server is shutting down", got[1])
}

// Output-schema violations are protocol failures and logged as such.
func TestLogging_InvalidOutputLoggedAtError(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	tool := rawTool("x", okHandler("not an object"))
	tool.OutputSchema = json.RawMessage(`{"type":"object"}`)
	require.NoError(t, r.Add(tool))
	_, err := r.Invoke(t.Context(), "x", nil)
	require.ErrorIs(t, err, ErrInvalidOutput)
	recs := buf.records(t)
	require.Len(t, recs, 2)
	assert.Equal(t, "ERROR", recs[1].Level)
	assert.Contains(t, recs[1].Msg, "Tool x failed: registry: output does not match")
}

// Domain failures (including validation failures) are logged at DEBUG with
// their error type: they are for the model, not an operator's alarm.
func TestLogging_DomainFailureAtDebug(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	require.NoError(t, r.Add(rawTool("x", func(ctx context.Context, c *Call) (result.Result[any], error) {
		return result.Failure[any]("no row 7", result.NotFound), nil
	})))
	res, err := r.Invoke(t.Context(), "x", nil)
	require.NoError(t, err)
	assert.False(t, res.Success)
	recs := buf.records(t)
	require.Len(t, recs, 2)
	assert.Equal(t, "DEBUG Tool x returned a failure: not_found", recs[1].Level+" "+recs[1].Msg, "the failure's text may quote arguments: not logged")
	assert.Equal(t, "not_found", recs[1].Type)
}

// Arguments and values never reach the logs (they may hold secrets).
func TestLogging_NeverLogsArgumentsOrValues(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	const secret = "sk-live-0123456789abcdef"
	require.NoError(t, r.Add(rawTool("x", func(ctx context.Context, c *Call) (result.Result[any], error) {
		return result.Ok[any](map[string]string{"token": secret}), nil
	})))
	_, err := r.Invoke(t.Context(), "x", json.RawMessage(`{"api_key":"`+secret+`"}`))
	require.NoError(t, err)
	require.NotEmpty(t, buf.String())
	assert.NotContains(t, buf.String(), secret)
}

// A rejected argument value is quoted in the validation message the model
// reads, but the log names only the field and rule.
func TestLogging_ValidationFailureDoesNotLogValues(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	type secretArgs struct {
		Count int `json:"count" validate:"gte=0"`
	}
	tool, err := Func("x", func(ctx context.Context, a secretArgs) (result.Result[int], error) {
		return result.Ok(a.Count), nil
	}, ToolOptions{})
	require.NoError(t, err)
	require.NoError(t, r.Add(tool))
	const secret = "sk-live-0123456789abcdef"
	res, err := r.Invoke(t.Context(), "x", json.RawMessage(`{"count":"`+secret+`","token":1}`))
	require.NoError(t, err)
	require.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, secret, "the model still reads what it sent")
	recs := buf.records(t)
	require.Len(t, recs, 2)
	assert.Equal(t, "DEBUG Tool x returned a failure: invalid arguments: count: type; token: unknown_field", recs[1].Level+" "+recs[1].Msg)
	assert.NotContains(t, buf.String(), secret)
}

// The Logging middleware writes nothing below the handler's level.
func TestLogging_RespectsLevel(t *testing.T) {
	b := &logBuffer{}
	r := New(Options{Prefix: new(""), Logger: slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	require.NoError(t, r.Add(rawTool("x", okHandler(1))))
	_, err := r.Invoke(t.Context(), "x", nil)
	require.NoError(t, err)
	assert.Empty(t, b.String())
}

// Logging and Recover work as stand-alone middleware too, with nil loggers
// meaning slog.Default().
func TestMiddleware_StandAlone(t *testing.T) {
	log, buf := newLogger()
	prev := slog.Default()
	slog.SetDefault(log)
	defer slog.SetDefault(prev)
	h := Logging(nil)(Recover(nil)(func(ctx context.Context, c *Call) (result.Result[any], error) { panic(1) }))
	res, err := h(t.Context(), &Call{})
	require.NoError(t, err)
	assert.Equal(t, result.InternalError, res.ErrorType)
	assert.Contains(t, buf.String(), "Tool called: ")
	assert.Contains(t, buf.String(), "failed: panic: a value of type int")
}

// A panic's value may carry a secret: it is never logged (its type is),
// while the Go runtime's own panics, which name no data, are logged as
// they are. The stack (locations) is always logged.
func TestLogging_PanicValueNeverLogged(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	require.NoError(t, r.Add(
		rawTool("leaky", func(ctx context.Context, c *Call) (result.Result[any], error) {
			panic(fmt.Sprintf("login failed: password=%s", "HUNTER2"))
		}),
		rawTool("nilmap", func(ctx context.Context, c *Call) (result.Result[any], error) {
			var m map[string]int
			m["x"] = 1
			return result.Ok[any](m), nil
		}),
	))
	for _, name := range []string{"leaky", "nilmap"} {
		res, err := r.Invoke(t.Context(), name, nil)
		require.NoError(t, err)
		assert.Equal(t, result.InternalError, res.ErrorType)
	}
	out := buf.String()
	assert.NotContains(t, out, "HUNTER2")
	assert.Contains(t, out, "Tool leaky failed: panic: a value of type string")
	assert.Contains(t, out, "Tool nilmap failed: panic: assignment to entry in nil map")
}

// An output that breaks its schema is logged once, by the registry, with
// the locations and rules that failed — never the value, which may hold a
// secret; the error returned says the same.
func TestLogging_InvalidOutputNamesRulesNotValues(t *testing.T) {
	log, buf := newLogger()
	r := New(Options{Prefix: new(""), Logger: log})
	tool := rawTool("creds", okHandler(map[string]any{"user": "ada", "token": "HUNTER2", "n": -1}))
	tool.OutputSchema = json.RawMessage(`{"type":"object","properties":{"token":{"type":"string","pattern":"^[a-z]+$"},"n":{"type":"integer","minimum":0}}}`)
	require.NoError(t, r.Add(tool))
	_, err := r.Invoke(t.Context(), "creds", nil)
	require.ErrorIs(t, err, ErrInvalidOutput)
	assert.NotContains(t, err.Error(), "HUNTER2")
	assert.Contains(t, err.Error(), "/token: pattern")
	assert.Contains(t, err.Error(), "/n: minimum")
	var oe *OutputError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "creds", oe.Tool)
	assert.ElementsMatch(t, []Violation{{"/token", "pattern"}, {"/n", "minimum"}}, oe.Violations)
	out := buf.String()
	assert.NotContains(t, out, "HUNTER2")
	assert.Equal(t, 1, strings.Count(out, "output does not match"), "logged once")

	type typed struct {
		Code string `json:"code" validate:"required,oneof=a b"`
	}
	tt, err := Func("typed", func(context.Context, struct{}) (result.Result[typed], error) {
		return result.Ok(typed{Code: "HUNTER2"}), nil
	}, ToolOptions{})
	require.NoError(t, err)
	require.NoError(t, r.Add(tt))
	_, err = r.Invoke(t.Context(), "typed", nil)
	require.ErrorIs(t, err, ErrInvalidOutput)
	assert.NotContains(t, err.Error(), "HUNTER2")
	assert.Contains(t, err.Error(), "/code: oneof")
	assert.NotContains(t, buf.String(), "HUNTER2")
}

// pointerOf turns args paths into JSON Pointers.
func TestPointerOf(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "/a", "a.b": "/a/b", "tags[2]": "/tags/2", "m[k/x].y": "/m/k~1x/y", "a[1][2]": "/a/1/2"} {
		assert.Equal(t, want, pointerOf(in), in)
	}
}

// A protocol failure's error type for recording middleware: a
// cancellation or an expired deadline, wrapped or not, keeps its own
// type; anything else is protocol_error.
func TestProtocolErrorType(t *testing.T) {
	assert.Equal(t, string(result.Cancelled), ProtocolErrorType(fmt.Errorf("call: %w", context.Canceled)))
	assert.Equal(t, string(result.Timeout), ProtocolErrorType(fmt.Errorf("call: %w", context.DeadlineExceeded)))
	assert.Equal(t, ErrorTypeProtocol, ProtocolErrorType(errors.New("disk on fire")))
}
