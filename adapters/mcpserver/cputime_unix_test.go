//go:build unix

package mcpserver_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system, every goroutine, the
// garbage collector's included) the process has used so far. On a shared
// machine it varies far less with other load than wall time does.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
