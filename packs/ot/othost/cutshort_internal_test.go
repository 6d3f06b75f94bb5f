package othost

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// An output store whose opening is cut short by its context (a shutdown
// during a reload) is not a problem of the file: no key is named, and the
// error is the context's.
func TestOpenStore_CutShortNamesNoKey(t *testing.T) {
	w := &Wiring{queryTool: "ot.result"}
	cfg := &hostconfig.Config{}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := w.openStore(ctx, cfg, outputSettings{maxInline: 100, dir: t.TempDir() + "/out"})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotContains(t, err.Error(), "output.dir")
}
