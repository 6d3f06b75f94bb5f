package pgstats_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool/pgtest"
	"github.com/toolpack-go/toolpack/registry/stats"
	"github.com/toolpack-go/toolpack/registry/stats/pgstats"
)

// Close while records are written, read, aggregated and pruned from other
// goroutines (run with -race): every call and every Close returns, a
// call that Close cut short answers ErrClosed (not a pool error), and a
// Close returns only once the pool is closed, however many run at once.
func TestSink_CloseConcurrentWithCalls(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.FreshSchema(t, dsn)
	s, err := pgstats.Open(context.Background(), dsn, pgstats.Options{Schema: schema, MaxConns: 4})
	require.NoError(t, err)
	ctx := context.Background()
	rec := stats.Record{Time: time.Now(), Tool: "demo.t", Duration: time.Millisecond, Success: true}
	require.NoError(t, s.Append(ctx, []stats.Record{rec}))

	calls := []func() error{
		func() error { return s.Append(ctx, []stats.Record{rec, rec}) },
		func() error {
			_, err := s.Records(ctx, stats.RecordQuery{Limit: 100}, func(stats.Record) {})
			return err
		},
		func() error { _, err := s.Aggregate(ctx, stats.AggregateQuery{Unit: time.Hour}); return err },
		func() error { _, err := s.Prune(ctx, time.Now().Add(-time.Hour)); return err },
		func() error { return s.Ping(ctx) },
	}
	var wg sync.WaitGroup
	for _, c := range calls {
		for range 2 {
			wg.Go(func() {
				for {
					if err := c(); err != nil {
						assert.ErrorIs(t, err, pgstats.ErrClosed)
						return
					}
				}
			})
		}
	}
	require.NoError(t, s.Ping(ctx)) // the callers have started
	var closers sync.WaitGroup
	for range 3 {
		closers.Go(func() { assert.NoError(t, s.Close()) })
	}
	closers.Wait()
	wg.Wait()
	assert.ErrorIs(t, s.Append(ctx, []stats.Record{rec}), pgstats.ErrClosed)
}
