package mcpserver

import (
	"context"
	"errors"

	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/result"
)

// stoppable returns ctx cancelled, with stopCause(b.opts.Stop), as soon as
// Options.Stop is done (at once when it is already), and the func that
// releases it once the call has returned. Without Options.Stop it returns
// ctx itself.
func (b *binding) stoppable(ctx context.Context) (context.Context, func()) {
	stop := b.opts.Stop
	if stop == nil {
		return ctx, func() {}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	detach := context.AfterFunc(stop, func() { cancel(stopCause(stop)) })
	return cctx, func() {
		detach()
		cancel(nil)
	}
}

// stoppedByHost reports whether the call whose context is ctx ended because
// Options.Stop did, and not earlier for a reason of its own (its client
// cancelled it, its session ended).
func (b *binding) stoppedByHost(ctx context.Context) bool {
	stop := b.opts.Stop
	if stop == nil || stop.Err() == nil || ctx.Err() == nil {
		return false
	}
	return errors.Is(context.Cause(ctx), stopCause(stop)) // not ==: a cause of a type that is not comparable would panic
}

// stopCause is the cause the calls stopped by stop are given: stop's own,
// or ErrServerStopping when it has none beyond context.Canceled (the
// registry's Logging would otherwise blame the caller).
func stopCause(stop context.Context) error {
	c := context.Cause(stop)
	if c == nil || errors.Is(c, context.Canceled) {
		return ErrServerStopping
	}
	return c
}

// stoppedResult is the domain failure a call stopped by Options.Stop
// answers: the words of REST's 503 for the same stop, error type
// unavailable.
func stoppedResult(name string) result.Result[any] {
	return result.Failure[any](toolmsg.ServerStopping(name), result.Unavailable)
}
