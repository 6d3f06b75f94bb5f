package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
)

type outLine struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    struct {
		Success   bool            `json:"success"`
		Value     json.RawMessage `json:"value"`
		Error     string          `json:"error"`
		ErrorType string          `json:"error_type"`
		ErrorData []struct {
			Field string `json:"field"`
			Rule  string `json:"rule"`
		} `json:"error_data"`
		Instruction string `json:"instruction"`
	} `json:"result"`
}

func parse(t *testing.T, out string) []outLine {
	t.Helper()
	var lines []outLine
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l outLine
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		lines = append(lines, l)
	}
	return lines
}

func unset(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "")
	require.NoError(t, os.Unsetenv(key))
}

// With the example tools enabled, run prints one line per demo call with the
// expected outcomes: successes, a validation failure listing every bad field,
// a not_found domain failure and the consent rule of create_document.
func TestRun_IncludedPrintsEveryResult(t *testing.T) {
	t.Setenv(example.EnvIncludeExampleTools, "true")
	unset(t, registry.EnvToolPrefix)
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), &stdout, &stderr))
	lines := parse(t, stdout.String())
	require.Len(t, lines, len(demo))
	for i, l := range lines {
		assert.Equal(t, "demo_"+demo[i].tool, l.Tool, "host default prefix applies")
		assert.JSONEq(t, demo[i].args, string(l.Arguments))
		assert.NotEmpty(t, l.Result.Instruction, "default instructions are applied")
	}
	assert.True(t, lines[0].Result.Success)
	assert.JSONEq(t, `"hello, toolpack"`, string(lines[0].Result.Value))
	assert.JSONEq(t, `42`, string(lines[1].Result.Value))

	bad := lines[2].Result
	assert.Equal(t, "validation_error", bad.ErrorType)
	var fields []string
	for _, fe := range bad.ErrorData {
		fields = append(fields, fe.Field)
	}
	assert.ElementsMatch(t, []string{"a", "b", "c"}, fields, "every bad field is listed")

	assert.JSONEq(t, `{"characters":18,"words":4,"lines":2}`, string(lines[3].Result.Value))
	assert.Equal(t, "not_found", lines[4].Result.ErrorType)
	assert.Equal(t, "validation_error", lines[5].Result.ErrorType, "create_document without consent")
	require.Len(t, lines[5].Result.ErrorData, 1)
	assert.Equal(t, "confirm", lines[5].Result.ErrorData[0].Field)
	assert.True(t, lines[6].Result.Success, "create_document with CREATE_DOCUMENT")
	assert.JSONEq(t, string(lines[6].Result.Value), string(lines[7].Result.Value), "the document reads back")

	assert.Contains(t, stderr.String(), "example tools included")
	assert.NotContains(t, stderr.String(), "{\"tool\"", "results go to stdout only")
}

// A user-provided MCP_TOOL_PREFIX is preserved over the host default.
func TestRun_UserPrefixPreserved(t *testing.T) {
	t.Setenv(example.EnvIncludeExampleTools, "true")
	t.Setenv(registry.EnvToolPrefix, "mine")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), &stdout, &stderr))
	for _, l := range parse(t, stdout.String()) {
		assert.True(t, strings.HasPrefix(l.Tool, "mine_"), l.Tool)
	}
}

// Seed 004 "Conditional example tool" in a host: any value but "true"
// excludes the pack; run says so on stderr and prints no results.
func TestRun_ExcludedWhenNotTrue(t *testing.T) {
	t.Setenv(example.EnvIncludeExampleTools, "false")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), &stdout, &stderr))
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "example tools excluded")
}

// A cancelled context is a protocol failure: run stops with an error.
func TestRun_CancelledContext(t *testing.T) {
	t.Setenv(example.EnvIncludeExampleTools, "true")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, &stdout, &stderr)
	require.ErrorIs(t, err, context.Canceled)
}

// Unset, the variable excludes the pack as "false" does (the host does not
// default it to "true"), and the warning says how to include the tools.
func TestRun_ExcludedWhenUnset(t *testing.T) {
	unset(t, example.EnvIncludeExampleTools)
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), &stdout, &stderr))
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "level=WARN")
	assert.Contains(t, stderr.String(), "set MCP_INCLUDE_EXAMPLE_TOOLS=true to include them")
}

// The built command runs as `MCP_INCLUDE_EXAMPLE_TOOLS=true go run
// ./examples/host` would: exit 0, results on stdout, logs on stderr; without
// the variable it exits 0 with nothing on stdout.
func TestMain_BuildsAndRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "host")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	cmd := exec.CommandContext(ctx, bin)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, example.EnvIncludeExampleTools+"=") && !strings.HasPrefix(kv, registry.EnvToolPrefix+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, example.EnvIncludeExampleTools+"=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	lines := parse(t, stdout.String())
	require.Len(t, lines, len(demo))
	assert.Equal(t, "demo_echo", lines[0].Tool)

	cmd = exec.CommandContext(ctx, bin)
	cmd.Env = env
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "MCP_INCLUDE_EXAMPLE_TOOLS=true")
}
