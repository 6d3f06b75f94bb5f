// Package testclock is the settable clock the module's tests inject where a
// package takes a `Now func() time.Time` (statistics periods, output TTLs,
// the catalogue's reaper), so that no test sleeps to let time pass.
package testclock

import (
	"sync"
	"time"
)

// Clock is a clock that moves only when told to. It is safe for
// concurrent use; pass its Now method as the clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock reading t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
