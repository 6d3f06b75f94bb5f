package pgpool

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// An operation traced inside another (a batch's prepares) ends without
// ending the enclosing one's deadline; the outer end does.
func TestBound_NestedEndKeepsTheOuterDeadline(t *testing.T) {
	b := bound{d: time.Minute}
	outer := b.start(context.Background())
	_, ok := outer.Deadline()
	assert.True(t, ok, "a context without a deadline gets the bound's")
	inner := b.start(outer)
	b.end(inner)
	assert.NoError(t, outer.Err(), "the inner end left the outer deadline alone")
	b.end(outer)
	assert.ErrorIs(t, outer.Err(), context.Canceled)

	soon, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	kept := b.start(soon)
	dl, _ := kept.Deadline()
	want, _ := soon.Deadline()
	assert.Equal(t, want, dl, "a caller's sooner deadline stays in force")
	b.end(kept)
	assert.NoError(t, soon.Err())
}
