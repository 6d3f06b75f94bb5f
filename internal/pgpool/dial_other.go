//go:build !linux

package pgpool

import (
	"syscall"
	"time"
)

// setUserTimeout does nothing where TCP_USER_TIMEOUT is not offered: the
// keep-alive probes still find an idle connection dead.
func setUserTimeout(syscall.RawConn, time.Duration) error { return nil }
