package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pinned name keeps running the tool it found after a change removed
// it (the tool itself, or the alias that led to it); a name still served
// runs the tool served now; a name that found nothing stays unknown.
func TestPin_RemovedToolsStillRunServedOnesAreCurrent(t *testing.T) {
	r := New(noPrefix())
	require.NoError(t, r.AddPack(&Pack{Name: "p", Tools: []*Tool{rawTool("gone", okHandler("old gone")), rawTool("kept", okHandler("kept v1"))}}))
	require.NoError(t, r.SetAliases(map[string]string{"g": "gone"}))
	p := r.Pin("gone", "g", "kept", "missing")

	require.NoError(t, r.ReplacePack(&Pack{Name: "p", Tools: []*Tool{rawTool("kept", okHandler("kept v2"))}}))
	require.NoError(t, r.SetAliases(nil))
	_, err := r.Invoke(t.Context(), "gone", nil)
	require.ErrorIs(t, err, ErrUnknownTool, "the registry no longer has it")

	for name, want := range map[string]string{"gone": "old gone", "g": "old gone", "kept": "kept v2"} {
		res, err := p.Invoke(t.Context(), name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, want, res.Value, name)
		_, _, ok := p.Resolve(name)
		assert.True(t, ok, name)
	}
	_, err = p.Invoke(t.Context(), "missing", nil)
	require.ErrorIs(t, err, ErrUnknownTool)
	_, _, ok := p.Resolve("missing")
	assert.False(t, ok)

	// A switch made after the pin counts for a tool still served.
	require.NoError(t, r.SetEnabled("kept", false))
	res, err := p.Invoke(t.Context(), "kept", nil)
	require.NoError(t, err)
	assert.False(t, res.Success, "switched off now: %v", res.Value)
}
