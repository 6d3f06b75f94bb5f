package mcpserver

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
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
