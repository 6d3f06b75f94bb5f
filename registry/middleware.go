package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/result"
)

// LevelTrace is the TRACE log level of seed 004, below slog.LevelDebug. The
// Logging middleware writes "Tool called" and "completed successfully" at it.
const LevelTrace = slog.LevelDebug - 4

func toolName(c *Call) string {
	if c == nil || c.Tool == nil {
		return ""
	}
	return c.Tool.Name
}

// Logging returns the automatic tool-logging middleware of seed 004. The
// Registry installs it as the outermost stage of every pipeline.
//
//   - "Tool called: {name}" at LevelTrace, before the call;
//   - "Tool {name} completed successfully" at LevelTrace, after a success;
//   - "Tool {name} failed: {error}" at slog.LevelError for a protocol
//     failure, and the error is then returned, not swallowed; a call its
//     caller cancelled (the call's context cancelled, the error wrapping
//     context.Canceled) is "Tool {name} cancelled by the caller: {error}"
//     at slog.LevelInfo instead: nothing for an operator to act on;
//   - "Tool {name} returned a failure: {error_type}" at slog.LevelDebug for
//     a domain failure (bad arguments, not found, …): such failures are the
//     model's to read and react to, not an operator's alarm.
//
// Every record carries the attribute tool={name}; a domain failure also
// error_type. Arguments and values are never logged: a domain failure's
// text is not logged (it is written for the model and often quotes the
// arguments), and for a validation failure (args.FieldError list in
// ErrorData) the record names the fields and rules. A protocol failure's
// error is logged as the handler wrote it: handlers must not put secrets
// in their errors. A nil log means slog.Default() at the time Logging is
// called. Messages are built only when their level is enabled.
func Logging(log *slog.Logger) Middleware {
	if log == nil {
		log = slog.Default()
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (result.Result[any], error) {
			name := toolName(c)
			if log.Enabled(ctx, LevelTrace) {
				log.LogAttrs(ctx, LevelTrace, "Tool called: "+name, slog.String("tool", name))
			}
			res, err := next(ctx, c)
			switch {
			case err != nil && errors.Is(err, context.Canceled) && errors.Is(ctx.Err(), context.Canceled):
				// The caller went away (a client cancelled, a connection
				// closed), or the host stopped the call with a cause of its
				// own (a server shutting down): nothing for an operator to
				// act on.
				if log.Enabled(ctx, slog.LevelInfo) {
					msg := "Tool " + name + " cancelled by the caller: " + err.Error()
					if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
						msg = "Tool " + name + " stopped: " + cause.Error()
					}
					log.LogAttrs(ctx, slog.LevelInfo, msg, slog.String("tool", name))
				}
			case err != nil:
				if log.Enabled(ctx, slog.LevelError) {
					log.LogAttrs(ctx, slog.LevelError, "Tool "+name+" failed: "+err.Error(), slog.String("tool", name))
				}
			case res.Success:
				if log.Enabled(ctx, LevelTrace) {
					log.LogAttrs(ctx, LevelTrace, "Tool "+name+" completed successfully", slog.String("tool", name))
				}
			default:
				if log.Enabled(ctx, slog.LevelDebug) {
					log.LogAttrs(ctx, slog.LevelDebug, "Tool "+name+" returned a failure: "+failureText(res),
						slog.String("tool", name), slog.String("error_type", string(res.ErrorType)))
				}
			}
			return res, err
		}
	}
}

// failureText is the text Logging writes for a domain failure: its error
// type, and for an argument validation failure the fields and rules. The
// failure's own text is not logged: it is written for the model and may
// quote the arguments (`got string "…"`, `no document "…"`).
func failureText(res result.Result[any]) string {
	fes, ok := res.ErrorData.([]args.FieldError)
	if res.ErrorType != result.ValidationError || !ok {
		if res.ErrorType == "" {
			return "(no error type)"
		}
		return string(res.ErrorType)
	}
	var b strings.Builder
	b.WriteString("invalid arguments:")
	for i, fe := range fes {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteByte(' ')
		if fe.Field != "" {
			b.WriteString(fe.Field)
			b.WriteString(": ")
		}
		b.WriteString(fe.Rule)
	}
	return b.String()
}

// Recover returns the panic-recovery middleware. A panic in next becomes a
// failed Result with error type internal_error and a nil error, so the
// process keeps serving; the panic and its stack are logged at
// slog.LevelError ("Tool {name} failed: panic: {what}") and never put in the
// Result. {what} is the text of a Go runtime error (nil dereference, index
// out of range: they name no data) and only the type of any other panic
// value, which may carry data (a secret a handler formatted into it). A nil log means slog.Default() at the time Recover is called.
//
// Recover only sees panics on the goroutine that runs next; the Registry
// therefore installs it both outside the middleware chain and inside
// Timeout, which runs the handler on its own goroutine.
func Recover(log *slog.Logger) Middleware {
	if log == nil {
		log = slog.Default()
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (res result.Result[any], err error) {
			defer recoverInto(ctx, log, c, &res, &err)
			return next(ctx, c)
		}
	}
}

// recoverInto is Recover's deferred function: a named function rather than a
// closure, so that a call that does not panic allocates nothing.
func recoverInto(ctx context.Context, log *slog.Logger, c *Call, res *result.Result[any], err *error) {
	p := recover()
	if p == nil {
		return
	}
	name := toolName(c)
	log.LogAttrs(ctx, slog.LevelError, "Tool "+name+" failed: panic: "+panicText(p),
		slog.String("tool", name), slog.String("stack", string(debug.Stack())))
	*res = result.Failuref[any](result.InternalError,
		"tool %q failed with an internal error; the details were logged", name)
	*err = nil
}

// panicText describes a panic value for the log without its content: a
// value a handler panics with may carry secrets (panic(fmt.Sprintf(
// "login failed for %s", password))). The Go runtime's own errors (nil
// dereference, index out of range, …) name no data and are logged as they
// are; anything else is logged by type.
func panicText(p any) string {
	if re, ok := p.(runtime.Error); ok {
		return re.Error()
	}
	return fmt.Sprintf("a value of type %T (not logged; it may hold data)", p)
}

type outcome struct {
	res result.Result[any]
	err error
}

// Timeout returns the per-call timeout middleware. The limit of a call is its
// Tool.Timeout when positive, else d (zero: none). With a positive limit,
// next runs under context.WithTimeout. A negative d panics, naming it, as
// time.NewTicker does: it is a programming error, not "no limit".
//
// When the call has a limit, or ctx can be cancelled, next runs on its own
// goroutine and Timeout returns as soon as the context is done, even when the
// handler ignores ctx:
//
//   - deadline passed (the limit or the caller's deadline): a failed Result
//     with error type timeout and a nil error;
//   - ctx cancelled by the caller: a protocol error wrapping
//     context.Canceled.
//
// The abandoned handler goroutine keeps running in the background until it
// returns; its outcome is discarded. A handler that returns an error wrapping
// context.DeadlineExceeded after its deadline passed also yields the timeout
// Result. Without a limit and with a context that cannot be cancelled, next
// is called directly (no goroutine). Put Recover inside Timeout: a panic on
// the handler goroutine is not seen by middleware outside it.
func Timeout(d time.Duration) Middleware {
	if d < 0 {
		panic(fmt.Sprintf("registry: Timeout: d is %s; expected zero (no limit) or a positive duration", d))
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, c *Call) (result.Result[any], error) {
			limit := d
			if c != nil && c.Tool != nil && c.Tool.Timeout > 0 {
				limit = c.Tool.Timeout
			}
			if limit > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, limit)
				defer cancel()
			}
			if c != nil && c.Tool != nil && c.Tool.Inline {
				// On the caller's goroutine: nothing to wait on, so ctx.Done
				// is not called (on a cancellable context that allocates).
				res, err := next(ctx, c)
				if err != nil && errors.Is(err, context.Canceled) && errors.Is(ctx.Err(), context.Canceled) {
					return result.Result[any]{}, fmt.Errorf("registry: tool %q: call cancelled: %w", toolName(c), err)
				}
				return finished(ctx, c, limit, outcome{res, err})
			}
			if limit <= 0 && ctx.Done() == nil {
				return next(ctx, c)
			}
			done := make(chan outcome, 1)
			go func() {
				res, err := next(ctx, c)
				done <- outcome{res, err}
			}()
			select {
			case o := <-done:
				return finished(ctx, c, limit, o)
			case <-ctx.Done():
				select {
				case o := <-done:
					return finished(ctx, c, limit, o)
				default:
				}
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					return timedOut(c, limit), nil
				}
				return result.Result[any]{}, fmt.Errorf("registry: tool %q: call cancelled: %w", toolName(c), ctx.Err())
			}
		}
	}
}

func finished(ctx context.Context, c *Call, limit time.Duration, o outcome) (result.Result[any], error) {
	if o.err != nil && errors.Is(o.err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return timedOut(c, limit), nil
	}
	return o.res, o.err
}

// timedOut is the failure of a call that ran out of time. It is the same
// whether the handler returned context.DeadlineExceeded or was abandoned, so
// callers see one stable form.
func timedOut(c *Call, limit time.Duration) result.Result[any] {
	if limit > 0 {
		return result.Failuref[any](result.Timeout, "tool %q did not finish within %s", toolName(c), limit)
	}
	return result.Failuref[any](result.Timeout, "tool %q did not finish before the caller's deadline", toolName(c))
}

// ErrorTypeProtocol is the error type that recording middleware (call
// statistics, telemetry) give a protocol failure — a non-nil error from
// the pipeline — other than a cancellation or an expired deadline.
const ErrorTypeProtocol = "protocol_error"

// ProtocolErrorType is the error type a recording middleware gives the
// protocol failure err: result.Cancelled for a cancellation,
// result.Timeout for an expired deadline, ErrorTypeProtocol otherwise.
func ProtocolErrorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return string(result.Cancelled)
	case errors.Is(err, context.DeadlineExceeded):
		return string(result.Timeout)
	default:
		return ErrorTypeProtocol
	}
}
