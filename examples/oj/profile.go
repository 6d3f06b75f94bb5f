//go:build ojprofile

package main

import (
	"os"
	"runtime/pprof"
)

// Built only with -tags ojprofile: when OJ_CPUPROFILE names a file, the
// server writes a CPU profile of its whole run there (stopped when run
// returns). For profiling the server under the stdio benchmark's workload;
// the normal build has no such hook.
func init() {
	path := os.Getenv("OJ_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return
	}
	atExit = func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
