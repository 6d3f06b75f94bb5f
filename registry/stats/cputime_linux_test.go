package stats

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// lockThread pins the benchmark goroutine to its thread, so that threadCPU
// measures it alone; the returned function unpins it.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// threadCPU is the CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
