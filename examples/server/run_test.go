package main

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun_FlagErrorsNameTheFlag(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	cases := map[string]struct {
		argv []string
		want string
	}{
		"unknown pack":      {[]string{"-packs", "nope"}, `flag -packs: unknown pack "nope"; expected one of`},
		"empty pack name":   {[]string{"-packs", "oj,,oj"}, "flag -packs: empty pack name"},
		"repeated pack":     {[]string{"-packs", "oj,oj"}, `flag -packs: pack "oj" given twice`},
		"bad display":       {[]string{"-display", "fancy"}, `flag -display: got "fancy"; expected envelope or value`},
		"bad log level":     {[]string{"-log-level", "loud"}, `flag -log-level: got "loud"`},
		"bad address":       {[]string{"-addr", "8080"}, `flag -addr: got "8080"; expected host:port`},
		"stray argument":    {[]string{"serve"}, `unexpected argument "serve"`},
		"unknown flag":      {[]string{"-port", "1"}, "flag provided but not defined: -port"},
		"unconfigured pack": {[]string{"-packs", "oj", "-stdio"}, "OJ_BASE_URL"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var stderr strings.Builder
			err := run(context.Background(), c.argv, strings.NewReader(""), io.Discard, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			if name != "unconfigured pack" {
				assert.True(t, errors.Is(err, errUsage), "usage errors exit with status 2")
			}
		})
	}
}

func TestRun_HelpIsNotAnError(t *testing.T) {
	var stderr strings.Builder
	var stdout strings.Builder
	require.NoError(t, run(context.Background(), []string{"-h"}, strings.NewReader(""), &stdout, &stderr))
	assert.Contains(t, stderr.String(), "-addr")
	assert.Contains(t, stderr.String(), "-packs")
	assert.Empty(t, stdout.String(), "usage goes to stderr")
}

// runStdio runs the program in-process in stdio mode and connects a client.
func runStdio(t *testing.T, argv ...string) (*sdk.ClientSession, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	t.Cleanup(cancel)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-stdio"}, argv...), sr, sw, stderr); _ = sw.Close() }()
	cs, err := newClient().Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	require.NoError(t, err, "stderr:\n%s", stderr)
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case err := <-done:
			assert.NoError(t, err, "run returns nil when the client disconnects")
		case <-ctx.Done():
			t.Error("run did not return after the client disconnected")
		}
	})
	return cs, stderr
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	return names
}

func TestRun_PrefixFlagAndEnvironment(t *testing.T) {
	t.Setenv("OJ_BASE_URL", startBackend(t))

	t.Run("-prefix decorates every tool", func(t *testing.T) {
		cs, _ := runStdio(t, "-prefix", "tp")
		names := toolNames(t, cs)
		require.NotEmpty(t, names)
		for _, n := range names {
			assert.True(t, strings.HasPrefix(n, "tp_"), n)
		}
	})
	t.Run("MCP_TOOL_PREFIX applies when -prefix is not given", func(t *testing.T) {
		t.Setenv("MCP_TOOL_PREFIX", "envp")
		cs, _ := runStdio(t)
		assert.Contains(t, toolNames(t, cs), "envp_get_problem")
	})
	t.Run("an explicit empty -prefix wins over MCP_TOOL_PREFIX", func(t *testing.T) {
		t.Setenv("MCP_TOOL_PREFIX", "envp")
		cs, _ := runStdio(t, "-prefix", "")
		assert.Contains(t, toolNames(t, cs), "get_problem")
	})
}

func TestRun_UnconfiguredPackIsSkippedByDefault(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	cs, stderr := runStdio(t)
	assert.NotContains(t, toolNames(t, cs), "get_problem")
	assert.Contains(t, stderr.String(), `msg="pack skipped" pack=oj`)
}

// TestRun_PlainPackUnderEnvelopeDefault: with the default -display
// envelope, the oj pack (marked plain) still shows its Markdown only.
func TestRun_PlainPackUnderEnvelopeDefault(t *testing.T) {
	t.Setenv("OJ_BASE_URL", startBackend(t))
	cs, _ := runStdio(t, "-display", "envelope")
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_problem", Arguments: map[string]any{"source": "cf", "id": "1A"}})
	require.NoError(t, err)
	txt := textOf(t, res)
	assert.True(t, strings.HasPrefix(txt, "# "), "plain Markdown: %q", txt)
}
