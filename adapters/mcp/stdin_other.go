//go:build !unix

package mcp

import "os"

// pollableStdin reports ok == false: on this platform stdin is read by a
// goroutine.
func pollableStdin() (f *os.File, restore func(), ok bool) { return nil, nil, false }
