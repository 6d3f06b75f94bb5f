package registry_test

import (
	"math"
	"sync"
	"sync/atomic"
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

// A Budget gives out as many calls as it holds, never more (also to
// callers taking at once), counts calls spent elsewhere, and a count read
// from a _meta is a bounded whole number or nothing.
func TestBudget_TakeSpendAndCountFromMeta(t *testing.T) {
	b := registry.NewBudget(10)
	var wg sync.WaitGroup
	var taken atomic.Int64
	for range 20 {
		wg.Go(func() {
			if b.Take() {
				taken.Add(1)
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 10, taken.Load())
	assert.EqualValues(t, 0, b.Left())
	assert.EqualValues(t, 10, b.Used())

	b = registry.NewBudget(10)
	b.Spend(4)
	assert.EqualValues(t, 6, b.Left())
	b.Spend(100)
	assert.EqualValues(t, 0, b.Left(), "never below zero")
	assert.False(t, b.Take())
	assert.EqualValues(t, 10, b.Used())
	assert.Nil(t, registry.BudgetOf(t.Context()))
	assert.Same(t, b, registry.BudgetOf(registry.WithBudget(t.Context(), b)))

	for v, want := range map[any]int64{float64(7): 7, 5: 5, 1e12: 1000} {
		n, ok := registry.CountFromMeta(map[string]any{"k": v}, "k", 1000)
		assert.True(t, ok, "%v", v)
		assert.Equal(t, want, n, "%v", v)
	}
	for _, v := range []any{-1.0, 2.5, "7", math.NaN(), math.Inf(1), nil} {
		_, ok := registry.CountFromMeta(map[string]any{"k": v}, "k", 1000)
		assert.False(t, ok, "%v", v)
	}
}

// A forwarded call's _meta gives the call its depth and its run's calls
// left, both within this host's bounds; a _meta with neither leaves the
// context as it is.
func TestWithForwardedBounds_DepthAndBudgetFromMeta(t *testing.T) {
	ctx := registry.WithForwardedBounds(t.Context(), map[string]any{registry.MetaCallDepth: float64(3), registry.MetaCallBudget: float64(40)})
	assert.Equal(t, 3, registry.CallDepth(ctx))
	if assert.NotNil(t, registry.BudgetOf(ctx)) {
		assert.Equal(t, int64(40), registry.BudgetOf(ctx).Left())
	}
	ctx = registry.WithForwardedBounds(t.Context(), map[string]any{registry.MetaCallDepth: float64(1e9), registry.MetaCallBudget: float64(1e9)})
	assert.Equal(t, registry.MaxCallDepth, registry.CallDepth(ctx))
	assert.Equal(t, int64(registry.MaxRunCalls), registry.BudgetOf(ctx).Left())
	ctx = registry.WithForwardedBounds(t.Context(), map[string]any{"traceparent": "x"})
	assert.Zero(t, registry.CallDepth(ctx))
	assert.Nil(t, registry.BudgetOf(ctx))
}

// NewBudget of a negative count panics naming the parameter and what is
// expected, as New does on a negative option, instead of making a budget
// that silently refuses every call; zero is an empty budget.
func TestNewBudget_NegativePanicsNamingTheParameter(t *testing.T) {
	assert.PanicsWithValue(t, "registry: NewBudget: n is -1; expected zero (no calls) or a positive number of calls",
		func() { registry.NewBudget(-1) })
	assert.Panics(t, func() { registry.NewBudget(math.MinInt64) })
	var b *registry.Budget
	assert.NotPanics(t, func() { b = registry.NewBudget(0) })
	assert.False(t, b.Take())
	assert.EqualValues(t, 0, b.Size())
}
