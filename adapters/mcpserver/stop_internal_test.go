package mcpserver

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

// A call that ended for a reason of its own (its client cancelled it, its
// session ended) before the host stopped the calls is not reported as
// stopped by the host: its client is not told the server is shutting down.
func TestStoppedByHost_OnlyWhenTheStopEndedTheCall(t *testing.T) {
	stopCtx, stop := context.WithCancelCause(context.Background())
	b := &binding{opts: Options{Stop: stopCtx}}

	clientGone, cancelClient := context.WithCancel(context.Background())
	early, releaseEarly := b.stoppable(clientGone)
	defer releaseEarly()
	running, releaseRunning := b.stoppable(context.Background())
	defer releaseRunning()
	assert.False(t, b.stoppedByHost(running), "not stopped while Stop is not done")

	cancelClient()
	assert.False(t, b.stoppedByHost(early), "cancelled by its client, Stop not done")
	cause := errors.New("host going away")
	stop(cause)
	<-running.Done()
	assert.False(t, b.stoppedByHost(early), "cancelled by its client before the stop")
	assert.True(t, b.stoppedByHost(running))
	assert.Same(t, cause, context.Cause(running))

	late, releaseLate := b.stoppable(context.Background())
	defer releaseLate()
	<-late.Done() // a call arriving after the stop is stopped at once
	assert.True(t, b.stoppedByHost(late))

	none := &binding{}
	ctx, release := none.stoppable(context.Background())
	defer release()
	assert.Equal(t, context.Background(), ctx, "without Stop the call's context is left as it is")
	assert.False(t, none.stoppedByHost(ctx))
}

// Whatever the order in which the client's cancellation and the host's
// stop reach a call, and whatever cause the stop has (none,
// context.Canceled, or one of the host's), the call is reported stopped by
// the host exactly when the stop came first, and then its cause is the
// host's, or ErrServerStopping for none.
func TestStoppedByHost_PropertyStopFirstDecides(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		stopFirst := rapid.Bool().Draw(t, "stopFirst")
		causeKind := rapid.IntRange(0, 2).Draw(t, "cause") // 0: none, 1: context.Canceled, 2: the host's
		clientCancels := rapid.Bool().Draw(t, "clientCancels")
		stopCtx, stop := context.WithCancelCause(context.Background())
		b := &binding{opts: Options{Stop: stopCtx}}
		parent, cancelClient := context.WithCancel(context.Background())
		defer cancelClient()
		call, release := b.stoppable(parent)
		defer release()
		hostCause := errors.New("host's own cause")
		doStop := func() {
			switch causeKind {
			case 0:
				stop(nil)
			case 1:
				stop(context.Canceled)
			default:
				stop(hostCause)
			}
		}
		if stopFirst || !clientCancels {
			doStop()
			<-call.Done() // the stop reached the call (context.AfterFunc runs on its own goroutine)
			if clientCancels {
				cancelClient()
			}
		} else {
			cancelClient()
			doStop()
		}
		<-call.Done()
		byHost := stopFirst || !clientCancels
		assert.Equal(t, byHost, b.stoppedByHost(call))
		if byHost {
			want := ErrServerStopping
			if causeKind == 2 {
				want = hostCause
			}
			assert.Same(t, want, context.Cause(call))
		}
	})
}
