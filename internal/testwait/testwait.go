// Package testwait holds the module's guard for tests of calls that must
// return without waiting for anything (a Close with work in flight, say):
// such a call that hangs fails its test after HangGuard instead of
// hanging the whole test binary until go test's own timeout.
package testwait

import (
	"testing"
	"time"
)

// HangGuard is how long Returns gives a call: generous, so that it only
// ever catches a call that waits for good — not a measure of speed.
const HangGuard = 30 * time.Second

// Returns runs f on a goroutine of its own and fails t (naming what) when
// it has not returned within HangGuard.
func Returns(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	timer := time.NewTimer(HangGuard)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("%s did not return within %s", what, HangGuard)
	}
}
