package storetest_test

import (
	"context"
	"testing"
	"time"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/storetest"
)

// A back-end proves itself against the suite in one test function; here,
// the file store (registry/catalogue runs exactly this test).
func ExampleRun() {
	_ = func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, now func() time.Time) catalogue.Store {
			s, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	}
}
