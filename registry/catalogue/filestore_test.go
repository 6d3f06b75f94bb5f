package catalogue

import (
	"testing"
	"time"
)

// The file store passes the conformance suite.
func TestFileStore_Conformance(t *testing.T) {
	testStore(t, func(t *testing.T, now func() time.Time) Store {
		return openFile(t, t.TempDir(), now)
	})
}
