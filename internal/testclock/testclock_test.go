package testclock_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/testclock"
)

func TestClock_MovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := testclock.New(start)
	assert.Equal(t, start, c.Now())
	c.Advance(time.Hour)
	assert.Equal(t, start.Add(time.Hour), c.Now())
	c.Set(start)
	assert.Equal(t, start, c.Now())
}

// Inject the clock where a package takes Now, then move it.
func ExampleClock() {
	c := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := c.Now // what an Options.Now field takes
	c.Advance(48 * time.Hour)
	fmt.Println(now().Format(time.DateOnly))
	// Output: 2026-01-03
}
