package catalogue_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/storetest"
)

// The file store passes the conformance suite every Store passes.
func TestFileStore_Conformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) catalogue.Store {
		s, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{
			Now: now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), FlushInterval: -1, ReapInterval: -1,
		})
		require.NoError(t, err)
		return s
	})
}
