package main

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/packs/ot"
)

// /healthz, open to anyone, checks the databases at most once a second
// however many probes come, one check at a time; a probe that hangs up
// does not turn the answer it shares into "unreachable".
func TestHealthz_DatabaseChecksCached(t *testing.T) {
	var checks atomic.Int32
	c := &dbHealthCache{ttl: time.Hour, check: func(ctx context.Context) []ot.DatabaseStatus {
		checks.Add(1)
		return []ot.DatabaseStatus{{Name: "catalogue", Reachable: ctx.Err() == nil}}
	}}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Equal(t, []ot.DatabaseStatus{{Name: "catalogue", Reachable: true}}, c.get(gone))
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { assert.Len(t, c.get(context.Background()), 1) })
	}
	wg.Wait()
	assert.Equal(t, int32(1), checks.Load(), "one check serves every probe within its time")
	c.at = c.at.Add(-2 * time.Hour)
	c.get(context.Background())
	assert.Equal(t, int32(2), checks.Load(), "an answer past its time is checked again")
	assert.Nil(t, (&dbHealthCache{}).get(context.Background()), "no databases, nothing to check")
}
