package registry_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/registry"
)

// The depth a forwarded call carries in its _meta is read as a whole
// number from 0 to MaxCallDepth; anything a client could send instead
// (text, fractions, negatives, huge numbers) never makes it negative or
// unbounded.
func TestCallDepthFromMeta_ReadsOnlyABoundedWholeNumber(t *testing.T) {
	for v, want := range map[any]int{
		float64(3): 3, 0.0: 0, -1.0: 0, 2.5: 0, math.Inf(1): 0, math.NaN(): 0, 1e300: registry.MaxCallDepth,
		"3": 0, true: 0, 5: 5,
	} {
		assert.Equal(t, want, registry.CallDepthFromMeta(map[string]any{registry.MetaCallDepth: v}), "%v", v)
	}
	assert.Zero(t, registry.CallDepthFromMeta(nil))
	assert.Zero(t, registry.CallDepth(t.Context()))
	assert.Equal(t, 4, registry.CallDepth(registry.WithCallDepth(t.Context(), 4)))
	assert.Zero(t, registry.CallDepth(registry.WithCallDepth(t.Context(), -4)))
}
