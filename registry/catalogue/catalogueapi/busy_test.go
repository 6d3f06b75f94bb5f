package catalogueapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

// statementTimeout is what pgstore returns for a statement the database
// ended at its statement timeout: catalogue.ErrUnavailable and
// catalogue.ErrTimeout.
type statementTimeout struct{}

func (statementTimeout) Error() string {
	return "the database ended the statement at its statement timeout (127.0.0.1:5432)"
}

func (statementTimeout) Is(target error) bool {
	return target == catalogue.ErrUnavailable || target == catalogue.ErrTimeout
}

// TestStoreBusyIs503SayingBusy: a store error that is ErrTimeout (the
// database is there but did not answer in time) is still 503
// "unavailable" with Retry-After — try again — but the message says the
// database is busy, not that it cannot be reached; the cause is logged
// as a warning, not sent.
func TestStoreBusyIs503SayingBusy(t *testing.T) {
	for name, cause := range map[string]error{
		"the server's statement timeout": fmt.Errorf("pgstore: searching: %w", statementTimeout{}),
		// No answer past the pool's own deadline: pgpool's error wraps
		// context.DeadlineExceeded as well (the caller's context still runs).
		"the pool's deadline": fmt.Errorf("pgstore: searching: %w: %w", statementTimeout{}, context.DeadlineExceeded),
	} {
		t.Run(name, func(t *testing.T) {
			rs := &recordingSearcher{err: cause}
			e := newEnv(t, catalogueapi.Options{Searcher: rs})
			r := e.do("GET", "/tools/search?q=x", "")
			assert.Equal(t, http.StatusServiceUnavailable, r.status)
			assert.Equal(t, "unavailable", r.errType())
			assert.Equal(t, "5", r.header.Get("Retry-After"))
			assert.Equal(t, "the catalogue's database is busy: it did not answer in time; retry in a few seconds", r.body["error"])
			assert.NotContains(t, string(r.raw), "5432", "the cause is logged, not sent")
			assert.Contains(t, e.logs.String(), "level=WARN msg=\"catalogueapi: the store did not answer in time\"")
			assert.NotContains(t, e.logs.String(), "level=ERROR")
		})
	}
}
