package registry

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call arriving between two steps of an Update — a pack replaced so
// that an alias's target is gone, the aliases not yet set — waits for the
// update and runs the tool the alias names afterwards, instead of failing
// with ErrUnknownTool.
func TestUpdate_CallBetweenStepsWaitsForTheEnd(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "snippet", Tools: []*Tool{rawTool("snippet.one", okHandler("one"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"x": "snippet.one"}))

	midway := make(chan struct{})
	proceed := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- r.Update(func() error {
			if err := r.ReplacePack(&Pack{Name: "snippet", Tools: []*Tool{rawTool("snippet.two", okHandler("two"))}}); err != nil {
				return err
			}
			close(midway)
			<-proceed
			return r.SetAliases(map[string]string{"x": "snippet.two"})
		})
	}()
	<-midway

	type answer struct {
		v   any
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := r.Invoke(t.Context(), "x", nil)
		got <- answer{res.Value, err}
	}()
	resolved := make(chan bool, 1)
	go func() {
		_, _, ok := r.ResolveContext(t.Context(), "x")
		resolved <- ok
	}()
	select {
	case a := <-got:
		t.Fatalf("the call answered in the middle of the update: %v, %v", a.v, a.err)
	case <-time.After(50 * time.Millisecond):
	}
	_, _, ok := r.Resolve("x")
	assert.False(t, ok, "Resolve answers at once, with the registry as it is midway")

	close(proceed)
	require.NoError(t, <-done)
	a := <-got
	require.NoError(t, a.err)
	assert.Equal(t, "two", a.v)
	assert.True(t, <-resolved)
}

// A call whose name finds its tool is never held by an Update; a name
// still unknown after it fails as usual; a call's context ends its wait.
func TestUpdate_OnlyUnknownNamesWait(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.Add(rawTool("a", okHandler(1))))
	release := make(chan struct{})
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		done <- r.Update(func() error {
			close(started)
			<-release
			return errors.New("step failed")
		})
	}()
	<-started

	res, err := r.Invoke(t.Context(), "a", nil)
	require.NoError(t, err, "a known tool runs at once")
	assert.Equal(t, 1, res.Value)

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, err = r.Invoke(ctx, "nope", nil)
	require.ErrorIs(t, err, ErrUnknownTool, "the context ended the wait; the name is still unknown")
	_, _, ok := r.ResolveContext(ctx, "nope")
	assert.False(t, ok)

	var wg sync.WaitGroup
	var late error
	wg.Go(func() { _, late = r.Invoke(t.Context(), "nope", nil) })
	close(release)
	assert.EqualError(t, <-done, "step failed", "fn's error comes back as it is")
	wg.Wait()
	require.ErrorIs(t, late, ErrUnknownTool)
}

// Updates nest and overlap: calls wait for the last one to end.
func TestUpdate_NestedAndOverlapping(t *testing.T) {
	r := New(noPrefix())
	require.ErrorIs(t, r.Update(nil), ErrInvalidTool)
	outerRelease := make(chan struct{})
	innerDone := make(chan struct{})
	go func() {
		_ = r.Update(func() error {
			_ = r.Update(func() error { return nil })
			close(innerDone)
			<-outerRelease
			return r.Add(rawTool("late", okHandler("late")))
		})
	}()
	<-innerDone
	got := make(chan error, 1)
	go func() {
		_, err := r.Invoke(t.Context(), "late", nil)
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("answered before the outer update ended: %v", err)
	case <-time.After(30 * time.Millisecond):
	}
	close(outerRelease)
	require.NoError(t, <-got)
}
