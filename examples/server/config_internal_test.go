package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/pgpool"
)

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
// start is not the file's fault: not a usage error (exit status 2). Nor
// is a database that does not answer in its own time (no stop: the
// deadline is the database's), said as such, or tables a newer release
// made.
func TestConfigError_StoppedIsNotAUsageError(t *testing.T) {
	stopped, cancel := context.WithCancel(t.Context())
	cancel()
	err := configError(stopped, fmt.Errorf("stats.dsn: pgstats: connecting: %w", context.Canceled))
	assert.NotErrorIs(t, err, errUsage)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "stopped before the configuration was in force")

	err = configError(t.Context(), fmt.Errorf("stats.dsn: pgstats: connecting: %w", context.DeadlineExceeded))
	assert.NotErrorIs(t, err, errUsage)
	assert.Contains(t, err.Error(), "a database it names cannot be reached, or does not answer")
	assert.NotContains(t, err.Error(), "stopped")

	err = configError(t.Context(), fmt.Errorf("stats.dsn: pgstats: %w", pgpool.ErrSchemaTooNew))
	assert.NotErrorIs(t, err, errUsage)
	assert.ErrorIs(t, configError(t.Context(), errors.New("c.yaml:1: aliases: bad")), errUsage)
}
