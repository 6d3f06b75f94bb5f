package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A re-read of the catalogue that fails (the database away or slow just
// then) is tried again in the background until it succeeds, so the server
// does not serve a stale catalogue until some later change comes; failed
// bundles gather, and a failed full re-read makes the retry a full one.
func TestRereader_FailedRereadTriedAgainUntilItSucceeds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var calls [][]uuid.UUID
	failures := 3
	attempt := func(_ context.Context, bundles []uuid.UUID) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, bundles)
		if failures > 0 {
			failures--
			return errors.New("database away")
		}
		return nil
	}
	reread, stop := rereader(ctx, attempt, [2]time.Duration{time.Millisecond, 4 * time.Millisecond}, slog.New(slog.DiscardHandler))
	a, b := uuid.New(), uuid.New()
	reread([]uuid.UUID{a}) // fails
	reread([]uuid.UUID{b}) // fails
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failures == 0 && len(calls) >= 4
	}, 5*time.Second, time.Millisecond, "retried until it succeeds")
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	last := calls[len(calls)-1]
	n := len(calls)
	mu.Unlock()
	assert.ElementsMatch(t, []uuid.UUID{a, b}, last, "the retry re-reads every failed bundle")
	assert.Equal(t, 4, n, "no retry after the success")

	// A failed full re-read is retried as a full one.
	mu.Lock()
	failures, calls = 1, nil
	mu.Unlock()
	reread(nil)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(calls) == 2
	}, 5*time.Second, time.Millisecond)
	mu.Lock()
	assert.Nil(t, calls[1], "a full re-read")
	assert.True(t, slices.Equal(calls[0], calls[1]))
	mu.Unlock()

	cancel()
	stop()
}

// The OpenTelemetry SDK's errors quote the values they could not read; the
// server's log keeps what went wrong without them (a URL's credentials).
func TestQuotesHidden_SDKErrorsWithoutTheirValues(t *testing.T) {
	_, err := url.Parse("https://user:TOPSECRET@collector.example:4318/v1/traces%zz")
	require.Error(t, err)
	got := quotesHidden(err)
	assert.NotContains(t, got, "TOPSECRET")
	assert.Equal(t, `parse "…": invalid URL escape "…"`, got)
	assert.Equal(t, `a "…" b "…"`, quotesHidden(errors.New(`a "x\"y" b "z"`)))
	assert.Empty(t, quotesHidden(nil))
}

// A stop (a signal) while the configuration is being put in force at
// start is not the file's fault: not a usage error (exit status 2).
func TestConfigError_StoppedIsNotAUsageError(t *testing.T) {
	err := configError(fmt.Errorf("stats.dsn: pgstats: connecting: %w", context.Canceled))
	assert.NotErrorIs(t, err, errUsage)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, configError(errors.New("c.yaml:1: aliases: bad")), errUsage)
}
