package main

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/packs/ot"
)

// /healthz, open to anyone, checks the databases at most once a second
// however many probes come, one check at a time; a probe that hangs up
// does not turn the answer it shares into "unreachable".
func TestHealthz_DatabaseChecksCached(t *testing.T) {
	var checks atomic.Int32
	c := &dbHealthCache{check: func(ctx context.Context) []ot.DatabaseStatus {
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
	assert.Equal(t, int32(1), checks.Load(), "one check serves every probe within a second")
	assert.Nil(t, (&dbHealthCache{}).get(context.Background()), "no databases, nothing to check")
}
