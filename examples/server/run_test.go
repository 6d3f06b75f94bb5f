package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/example"
)

func TestRun_FlagErrorsNameTheFlag(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	cases := map[string]struct {
		argv []string
		want string
	}{
		"unknown pack":             {[]string{"-packs", "nope"}, `flag -packs: unknown pack "nope"; expected one of`},
		"empty pack name":          {[]string{"-packs", "oj,,oj"}, "flag -packs: empty pack name"},
		"repeated pack":            {[]string{"-packs", "oj,oj"}, `flag -packs: pack "oj" given twice`},
		"bad display":              {[]string{"-display", "fancy"}, `flag -display: got "fancy"; expected envelope or value`},
		"bad log level":            {[]string{"-log-level", "loud"}, `flag -log-level: got "loud"; expected trace, debug, info, warn or error`},
		"no sessions":              {[]string{"-max-sessions", "0"}, "flag -max-sessions: got 0; expected at least 1"},
		"zero timeout":             {[]string{"-read-timeout", "0s"}, "flag -read-timeout: got 0s; expected a positive duration"},
		"negative timeout":         {[]string{"-session-timeout", "-1m"}, "flag -session-timeout: got -1m0s"},
		"bad allowed host":         {[]string{"-allowed-hosts", "https://x.example"}, `flag -allowed-hosts or -allowed-origins: httpguard: Options.AllowedHosts[0] = "https://x.example"`},
		"bad origin":               {[]string{"-allowed-origins", "x.example"}, `Options.TrustedOrigins[0] = "x.example"`},
		"missing tokens":           {[]string{"-auth-token-file", "/nonexistent/tokens"}, "flag -auth-token-file: invalid bearer token configuration: token file"},
		"exposed":                  {[]string{"-addr", "0.0.0.0:0"}, "flag -addr: 0.0.0.0:0 can be reached from other machines and no authentication is configured; give -auth-token-file FILE or set TOOLPACK_AUTH_TOKEN, or add -insecure"},
		"bad address":              {[]string{"-addr", "8080"}, `flag -addr: got "8080"; expected host:port`},
		"stray argument":           {[]string{"serve"}, `unexpected argument "serve"`},
		"unknown flag":             {[]string{"-port", "1"}, "flag provided but not defined: -port"},
		"unconfigured pack":        {[]string{"-packs", "oj", "-stdio"}, "OJ_BASE_URL"},
		"bad disclosure":           {[]string{"-disclosure", "lazy"}, `flag -disclosure: got "lazy"; expected full or progressive`},
		"visible, not progressive": {[]string{"-visible-tools", "add"}, "flag -visible-tools: only with -disclosure progressive"},
		"unknown visible tool":     {[]string{"-disclosure", "progressive", "-visible-tools", "nope", "-stdio"}, `flag -visible-tools: disclosure: Options.Visible[0]: the registry has no tool "nope"`},
		"bad prefix":               {[]string{"-prefix", "a b", "-stdio"}, `flag -prefix: "a b" is not a tool-name prefix; expected 1 to 128 characters from [A-Za-z0-9_.-]`},
	}
	t.Setenv(envAuthToken, "")
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
	var names, ot []string
	for _, tool := range res.Tools {
		if strings.HasPrefix(tool.Name, "ot.") || strings.Contains(tool.Name, "_ot.") {
			ot = append(ot, tool.Name)
			continue
		}
		names = append(names, tool.Name)
	}
	require.Len(t, ot, otToolCount, "the ot pack is always served: %v", ot)
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
	t.Run("a bad MCP_TOOL_PREFIX is a usage error naming the variable", func(t *testing.T) {
		t.Setenv("MCP_TOOL_PREFIX", "x/y")
		err := run(context.Background(), []string{"-stdio"}, strings.NewReader(""), io.Discard, io.Discard)
		require.ErrorIs(t, err, errUsage)
		assert.Contains(t, err.Error(), `$MCP_TOOL_PREFIX: "x/y" is not a tool-name prefix`)
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

// Under -display envelope the ot pack still answers plain text (its YAML
// and Markdown are written to be read), while other tools show the
// envelope.
func TestRun_OtPlainUnderEnvelope(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	cs, _ := runStdio(t, "-display", "envelope")
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ot.packs", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(textOf(t, res), "- {name: "), "plain YAML: %q", textOf(t, res))
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":true,"value":"hi"}`, textOf(t, res))
}

func TestRun_LogLevelTraceShowsCalls(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	cs, stderr := runStdio(t, "-log-level", "trace")
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	require.NoError(t, err)
	assert.Contains(t, stderr.String(), `level=TRACE msg="Tool called: echo"`)
	assert.Contains(t, stderr.String(), `level=TRACE msg="Tool echo completed successfully"`)
}

func TestRun_ExampleToolsOnlyWhenTrue(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	for _, v := range []string{"", "false", "1", "TRUE", "yes"} {
		t.Run("MCP_INCLUDE_EXAMPLE_TOOLS="+v, func(t *testing.T) {
			t.Setenv(example.EnvIncludeExampleTools, v)
			cs, stderr := runStdio(t)
			assert.Empty(t, toolNames(t, cs), "the example tools (and their destructive create_document) are left out")
			assert.Contains(t, stderr.String(), `set it to \"true\" to include the example tools`)
			assert.Contains(t, stderr.String(), `level=WARN msg="no tools to serve beside the ot pack: set MCP_INCLUDE_EXAMPLE_TOOLS=true`)
		})
	}
	t.Run("unset", func(t *testing.T) {
		t.Setenv(example.EnvIncludeExampleTools, "")
		require.NoError(t, os.Unsetenv(example.EnvIncludeExampleTools))
		cs, stderr := runStdio(t)
		assert.Empty(t, toolNames(t, cs))
		assert.Contains(t, stderr.String(), "MCP_INCLUDE_EXAMPLE_TOOLS is not set")
	})
	t.Run("true", func(t *testing.T) {
		t.Setenv(example.EnvIncludeExampleTools, "true")
		cs, _ := runStdio(t)
		want := append(slices.Clone(exampleTools), "examples.add.1", "examples.echo.1", "examples.text-stats.1")
		slices.Sort(want)
		assert.Equal(t, want, toolNames(t, cs), "the example pack, and its read-only functions as the built-in catalogue bundle")
	})
	t.Run("-packs example without the variable is an error naming it", func(t *testing.T) {
		t.Setenv(example.EnvIncludeExampleTools, "")
		err := run(context.Background(), []string{"-stdio", "-packs", "example"}, strings.NewReader(""), io.Discard, io.Discard)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "MCP_INCLUDE_EXAMPLE_TOOLS")
	})
}

func TestCheckExposure(t *testing.T) {
	for _, c := range []struct {
		addr           string
		auth, insecure bool
		wantErr, warn  bool
	}{
		{"127.0.0.1:8080", false, false, false, false},
		{"localhost:8080", false, false, false, false},
		{"[::1]:8080", false, false, false, false},
		{"0.0.0.0:8080", false, false, true, false},
		{":8080", false, false, true, false},
		{"192.0.2.1:8080", false, false, true, false},
		{"0.0.0.0:8080", true, false, false, false},
		{"0.0.0.0:8080", false, true, false, true},
	} {
		warn, err := checkExposure(config{addr: c.addr, insecure: c.insecure}, c.auth)
		assert.Equal(t, c.wantErr, err != nil, "%+v: %v", c, err)
		assert.Equal(t, c.warn, warn, "%+v", c)
		if err != nil {
			assert.ErrorIs(t, err, errUsage)
			for _, flagName := range []string{"-auth-token-file", envAuthToken, "-insecure"} {
				assert.Contains(t, err.Error(), flagName)
			}
		}
	}
}

func TestLoadTokens(t *testing.T) {
	const fileToken, envToken = "file-token-0123456789abcdef", "env-token-0123456789abcdef0"
	path := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(path, []byte("ci:"+fileToken+"\n"), 0o600))

	t.Setenv(envAuthToken, envToken)
	toks, source, err := loadTokens(config{tokenFile: path})
	require.NoError(t, err)
	assert.Equal(t, "file "+path, source, "the flag wins over the variable")
	_, err = toks.Verify(context.Background(), fileToken, nil)
	assert.NoError(t, err)

	toks, source, err = loadTokens(config{})
	require.NoError(t, err)
	assert.Equal(t, "environment variable "+envAuthToken, source)
	_, err = toks.Verify(context.Background(), envToken, nil)
	assert.NoError(t, err)

	t.Setenv(envAuthToken, "short")
	_, _, err = loadTokens(config{})
	require.Error(t, err)
	assert.ErrorIs(t, err, errUsage)
	assert.Contains(t, err.Error(), envAuthToken)
	assert.NotContains(t, err.Error(), "short")

	t.Setenv(envAuthToken, "")
	toks, _, err = loadTokens(config{})
	require.NoError(t, err)
	assert.Nil(t, toks, "no token source: no authentication")
}

// TOOLPACK_AUTH_TOKEN set to whitespace only is a token meant and lost:
// the server refuses to start (a usage error, exit status 2) saying the
// variable is blank — not "not set" — and never shows its value.
func TestLoadTokens_BlankVariableIsRefusedNotUnset(t *testing.T) {
	for _, blank := range []string{" ", "\t", " \n \r\n"} {
		t.Setenv(envAuthToken, blank)
		toks, _, err := loadTokens(config{})
		require.Error(t, err, "%q", blank)
		assert.Nil(t, toks)
		assert.ErrorIs(t, err, errUsage)
		assert.Contains(t, err.Error(), envAuthToken+" is set but blank (whitespace only)")
		assert.NotContains(t, err.Error(), "not set")

		var stderr strings.Builder
		err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-packs", "example"}, strings.NewReader(""), io.Discard, &stderr)
		require.ErrorIs(t, err, errUsage, "the server does not start")
		assert.Contains(t, err.Error(), "blank")
	}
}

// OJ_TOKEN set to whitespace only is refused the same way, rather than
// sent as an empty bearer token.
func TestNewOJ_BlankTokenIsRefused(t *testing.T) {
	t.Setenv(envOJBaseURL, "http://127.0.0.1:9")
	t.Setenv(envOJToken, "  ")
	_, err := newOJ(slog.New(slog.DiscardHandler))
	require.ErrorIs(t, err, errUsage)
	assert.Contains(t, err.Error(), envOJToken+" is set but blank")
}
