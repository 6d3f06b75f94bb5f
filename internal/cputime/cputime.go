// Package cputime reads the CPU time of the calling OS thread, for
// benchmarks that report it beside wall time: unlike wall time, it does not
// count the time a goroutine waits for a CPU on a loaded machine.
//
// A caller pins its goroutine to its thread first (runtime.LockOSThread)
// and reads Thread before and after the work measured.
package cputime

import "time"

// Thread returns the CPU time the calling OS thread has used, and whether
// the platform measures it (Linux does; elsewhere ok is false).
func Thread() (d time.Duration, ok bool) { return thread() }
