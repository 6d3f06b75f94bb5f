package mcpserver

import (
	"context"
	"errors"
	"sync/atomic"

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
	mark := new(atomic.Bool)
	cctx, cancel := context.WithCancelCause(context.WithValue(ctx, stopMarkKey{}, mark))
	end := func() {
		// Marked only when the stop is what ends the call: one its
		// client ended first is not the host's to answer.
		if cctx.Err() == nil {
			mark.Store(true)
		}
		cancel(stopCause(stop))
	}
	if stop.Err() != nil {
		end() // at once, not on AfterFunc's goroutine, which a fast call would beat
		return cctx, func() {}
	}
	detach := context.AfterFunc(stop, end)
	return cctx, func() {
		detach()
		cancel(nil)
	}
}

// stopMarkKey keys the mark stoppable sets on a call's context when
// Options.Stop ends the call.
type stopMarkKey struct{}

// stoppedByHost reports whether the call whose context is ctx (from
// stoppable) ended because Options.Stop did, and not earlier for a reason
// of its own (its client cancelled it, its session ended). It is told by
// a mark, not by comparing causes: a host's cause may be of a type that
// is not comparable.
func (b *binding) stoppedByHost(ctx context.Context) bool {
	mark, _ := ctx.Value(stopMarkKey{}).(*atomic.Bool)
	return mark != nil && ctx.Err() != nil && mark.Load()
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
