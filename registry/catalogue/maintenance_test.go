package catalogue_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// A store that stays away is not logged on every flush: of 20 failed
// flushes in a row the 1st, 2nd, 4th, 8th and 16th are logged, with the
// count, and the first flush that works again once.
func TestMaintenance_FailuresLoggedSparingly(t *testing.T) {
	logs := new(testlog.Buffer)
	var tries atomic.Int32
	worked := make(chan struct{})
	m := catalogue.StartMaintenance(time.Millisecond, -1, func(context.Context) error {
		switch n := tries.Add(1); {
		case n <= 20:
			return catalogue.ErrUnavailable
		case n == 21:
			close(worked)
		}
		return nil
	}, nil, slog.New(slog.NewJSONHandler(logs, nil)))
	select {
	case <-worked:
	case <-time.After(10 * time.Second):
		t.Fatal("the flushes never ran")
	}
	time.Sleep(20 * time.Millisecond)
	m.Stop()
	var warned []any
	backs := 0
	for _, r := range logs.Records(t) {
		switch r["level"] {
		case "WARN":
			warned = append(warned, r["failed_tries"])
		case "INFO":
			backs++
			assert.EqualValues(t, 20, r["failed_tries"])
		}
	}
	assert.Equal(t, []any{1.0, 2.0, 4.0, 8.0, 16.0}, warned)
	assert.Equal(t, 1, backs)
}
