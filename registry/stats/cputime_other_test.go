//go:build !linux

package stats

import "time"

func lockThread() func() { return func() {} }

// threadCPU is not measured outside Linux: x-invoke-cpu is not reported.
func threadCPU() time.Duration { return 0 }
