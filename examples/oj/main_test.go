package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServer_ListsExactlyTheFiveTools(t *testing.T) {
	_, url := backend(t, "")
	s := connect(t, ourBin, []string{"--base-url", url})
	res, err := s.ListTools(t.Context(), nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		assert.NotEmpty(t, tl.Description, tl.Name)
	}
	assert.Equal(t, []string{"find_similar_problems", "get_daily_challenge", "get_platform_status", "get_problem", "resolve_problem"}, names)
}

func TestServer_AdvertisesToolsCapabilityOnly(t *testing.T) {
	_, url := backend(t, "")
	s := connect(t, ourBin, []string{"--base-url", url})
	init := s.InitializeResult()
	require.NotNil(t, init)
	c := init.Capabilities
	assert.NotNil(t, c.Tools)
	assert.Nil(t, c.Resources)
	assert.Nil(t, c.Prompts)
	assert.Nil(t, c.Logging)
	assert.Nil(t, c.Completions)
	assert.Equal(t, Name, init.ServerInfo.Name)
}

func TestServer_ResultsArePlainMarkdown(t *testing.T) {
	_, url := backend(t, "tok")
	s := connect(t, ourBin, []string{"--base-url", url, "--token", "tok"})
	out := call(t, s, "get_problem", map[string]any{"source": "leetcode", "id": "1"})
	assert.False(t, out.IsError)
	assert.True(t, strings.HasPrefix(out.Text, "# Two Sum\n\n- Source: leetcode | ID: 1 | Difficulty: Easy\n"), out.Text)
	assert.NotContains(t, out.Text, `"success"`)
	out = call(t, s, "get_platform_status", map[string]any{})
	assert.True(t, strings.HasPrefix(out.Text, "# OJ Platform Status (v1.2.3)\n"), out.Text)
}

func TestServer_DomainFailuresAreToolErrors(t *testing.T) {
	b, url := backend(t, "")
	s := connect(t, ourBin, []string{"--base-url", url})
	out := call(t, s, "find_similar_problems", map[string]any{"query": "ab", "source": "leetcode", "id": "1"})
	assert.Equal(t, outcome{Text: "query must be between 3 and 2000 characters", IsError: true}, out)
	out = call(t, s, "get_platform_status", map[string]any{})
	assert.True(t, out.IsError)
	assert.Contains(t, out.Text, "authentication required")
	out = call(t, s, "get_problem", map[string]any{"source": "leetcode", "id": "missing"})
	assert.Equal(t, outcome{Text: "[404] Not Found: problem leetcode/missing not found", IsError: true}, out)
	assert.Len(t, b.Requests(), 1, "only the last call reached the backend")
}

// TestServer_ProblemBeingFetchedSaysWhenToRetry: a 202 answer to
// get_problem reaches the client as a tool error saying what it means, with
// the instruction to retry after the backend's retry_after.
func TestServer_ProblemBeingFetchedSaysWhenToRetry(t *testing.T) {
	_, url := backend(t, "")
	s := connect(t, ourBin, []string{"--base-url", url})
	out := call(t, s, "get_problem", map[string]any{"source": "leetcode", "id": "fetching"})
	assert.Equal(t, outcome{IsError: true, Text: "[202] the problem is being fetched by the backend and is not available yet\n\n" +
		"Retry this call with the same arguments in 30 seconds."}, out)
}

func TestServer_NetworkFailureIsProtocolError(t *testing.T) {
	s := connect(t, ourBin, []string{"--base-url", "http://127.0.0.1:1"})
	out := call(t, s, "get_problem", map[string]any{"source": "leetcode", "id": "1"})
	assert.NotEmpty(t, out.Protocol)
	assert.Empty(t, out.Text)
}

func TestFlags_VersionAndRequiredBaseURL(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"--version"}, "", &stdout, &stderr))
	assert.Equal(t, Name+" "+Version+"\n", stdout.String())
	stdout.Reset()
	assert.Equal(t, 2, run(nil, "", &stdout, &stderr))
	assert.Contains(t, stderr.String(), "--base-url")
	assert.Empty(t, stdout.String(), "stdout belongs to the MCP transport")
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"--base-url", "https://example.com/api/v1"}, "", &stdout, &stderr))
	assert.Contains(t, stderr.String(), "base URL")
	stderr.Reset()
	assert.Equal(t, 2, run([]string{"--base-url", "https://example.com"}, "loud", &stdout, &stderr))
	assert.Contains(t, stderr.String(), "RUST_LOG")
	assert.Empty(t, stdout.String())
}

func TestParseLevel(t *testing.T) {
	for v, want := range map[string]slog.Level{
		"": slog.LevelInfo, "info": slog.LevelInfo, "debug": slog.LevelDebug, "trace": slog.LevelDebug,
		"warn": slog.LevelWarn, "ERROR": slog.LevelError, "off": levelOff, "oj=debug,warn": slog.LevelDebug,
	} {
		got, err := ParseLevel(v)
		require.NoError(t, err, v)
		assert.Equal(t, want, got, v)
	}
	_, err := ParseLevel("verbose")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RUST_LOG")
}

// stderrOf runs the server with RUST_LOG=level for one call and returns
// what it wrote to stderr.
func stderrOf(t *testing.T, level, token string) string {
	_, url := backend(t, "")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(ourBin, "--base-url", url, "--token", token)
	cmd.Env = append(os.Environ(), "RUST_LOG="+level)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	s, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	require.NoError(t, err)
	call(t, s, "get_problem", map[string]any{"source": "leetcode", "id": "1"})
	call(t, s, "get_problem", map[string]any{"source": "leetcode", "id": "missing"})
	require.NoError(t, s.Close())
	return stderr.String()
}

func TestLogs_OffSilencesStderr(t *testing.T) {
	assert.Empty(t, stderrOf(t, "off", "tok"))
}

func TestLogs_GoToStderrWithoutTheToken(t *testing.T) {
	const token = "VERY-SECRET-TOKEN"
	logs := stderrOf(t, "debug", token)
	assert.Contains(t, logs, "oj request")
	assert.Contains(t, logs, "token=configured")
	assert.NotContains(t, logs, token)
	info := stderrOf(t, "", token)
	assert.Contains(t, info, "level=INFO")
	assert.NotContains(t, info, "level=DEBUG")
}
