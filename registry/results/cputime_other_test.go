//go:build !linux

package results_test

import "time"

// threadCPU is measured on Linux only.
func threadCPU() (time.Duration, bool) { return 0, false }
