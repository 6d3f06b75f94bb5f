package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/packs/ot/othost"
	"github.com/toolpack-go/toolpack/registry"
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

// ot.config, ot.health and ot.packs list the servers in the order of the
// configuration, as they list aliases and snippets: the -proxy file's
// first, then the -config file's as it writes them (the proxy keeps them
// sorted by name).
func TestServerStatus_InTheConfigurationsOrder(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "config.yaml")
	// Nothing listens on these ports: the servers stay disconnected.
	require.NoError(t, os.WriteFile(path, []byte(`servers:
  zeta: {url: "http://127.0.0.1:43545/mcp"}
  alpha: {url: "http://127.0.0.1:43546/mcp"}
  mid: {url: "http://127.0.0.1:43547/mcp"}
`), 0o600))
	fixed := []mcpproxy.Config{{Name: "fromflag", URL: "http://127.0.0.1:43548/mcp"}}
	reg := registry.New(registry.Options{Prefix: new("")})
	proxy, err := mcpproxy.New(ctx, reg, fixed, mcpproxy.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = proxy.Close() })
	host, err := newConfigHost(reg, path, proxy, fixed, nil)
	require.NoError(t, err)
	w, err := othost.Setup(ctx, othost.Options{Registry: reg, Host: host, Servers: serverStatus(proxy, fixed, host)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	require.NoError(t, host.Reload(ctx))

	var names []string
	for _, s := range serverStatus(proxy, fixed, host)() {
		names = append(names, s.Name)
	}
	want := []string{"fromflag", "zeta", "alpha", "mid"}
	require.Equal(t, want, names)

	res, err := reg.Invoke(ctx, "ot.config", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "aliases: {}\nsnippets: {}\nservers: [fromflag, zeta, alpha, mid]\n", res.Value)
	res, err = reg.Invoke(ctx, "ot.health", nil)
	require.NoError(t, err)
	assert.Contains(t, res.Value, "servers: {fromflag: disconnected, zeta: disconnected, alpha: disconnected, mid: disconnected}")

	// A server the configuration in force does not name (between the
	// proxy's change and the configuration's) is listed after the others.
	assert.Equal(t, []ot.ServerStatus{{Name: "fromflag"}, {Name: "alpha"}, {Name: "mid"}, {Name: "zeta"}},
		serverStatus(proxy, fixed, nil)(), "without a configuration, the proxy's order")
}
