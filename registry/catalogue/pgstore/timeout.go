package pgstore

import (
	"context"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// classify is pgpool.Classify with catalogue.ErrUnavailable; an error the
// pool found to be the database not answering in time (a statement or
// lock timeout, no answer past the pool's deadline: pgpool.ErrTimeout)
// also matches catalogue.ErrTimeout, so that the catalogue's API can say
// "busy, try again" rather than "cannot be reached".
func classify(ctx context.Context, err error) error {
	return pgpool.ClassifyTimeout(ctx, err, catalogue.ErrUnavailable, catalogue.ErrTimeout)
}
