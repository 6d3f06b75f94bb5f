//go:build !linux

package mcpstdio

import "os"

// pollableStdin reports ok == false: outside Linux stdin is read by a
// goroutine (kqueue, for one, does not report the end of a FIFO's input
// reliably).
func pollableStdin() (f *os.File, restore func(), ok bool) { return nil, nil, false }
