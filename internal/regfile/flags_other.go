//go:build !unix

package regfile

import "os"

// openFlags: none where there is no O_NONBLOCK; the type of the file
// opened is checked all the same.
const openFlags = 0

// lockFlags open a lock file as gofrs/flock does: created when missing,
// read-only.
const lockFlags = os.O_CREATE | os.O_RDONLY

// nonBlock: none here (see flags_unix.go).
const nonBlock = 0

// wouldBlock: an open without O_NONBLOCK never fails for it.
func wouldBlock(error) bool { return false }
