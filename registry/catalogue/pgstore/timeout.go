package pgstore

import (
	"context"
	"errors"

	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// classify is pgpool.Classify with catalogue.ErrUnavailable; an error the
// pool found to be the database not answering in time (a statement or
// lock timeout, no answer past the pool's deadline: pgpool.ErrTimeout)
// also matches catalogue.ErrTimeout, so that the catalogue's API can say
// "busy, try again" rather than "cannot be reached".
func classify(ctx context.Context, err error) error {
	err = pgpool.Classify(ctx, err, catalogue.ErrUnavailable)
	if errors.Is(err, pgpool.ErrTimeout) && !errors.Is(err, catalogue.ErrTimeout) {
		return &timedOut{err}
	}
	return err
}

// timedOut marks an error with catalogue.ErrTimeout, keeping its text and
// its chain.
type timedOut struct{ err error }

func (e *timedOut) Error() string        { return e.err.Error() }
func (e *timedOut) Unwrap() error        { return e.err }
func (e *timedOut) Is(target error) bool { return target == catalogue.ErrTimeout }
