package cputime_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/cputime"
)

func TestThread_GrowsWithWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, ok := cputime.Thread()
	if !ok {
		t.Skip("thread CPU time is measured on Linux only")
	}
	x := 0
	for i := range 20_000_000 {
		x ^= i
	}
	after, _ := cputime.Thread()
	assert.Greater(t, after, before, "spinning uses CPU (%d)", x)
}

// Measure the CPU a piece of work costs the calling thread.
func ExampleThread() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := cputime.Thread()
	sum := 0
	for i := range 1000 {
		sum += i
	}
	end, _ := cputime.Thread()
	fmt.Println(sum, !ok || end >= start)
	// Output: 499500 true
}
