package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tsClientDir holds the TypeScript-SDK client script and its pinned
// package.json / package-lock.json; .ci/run installs its node_modules.
const tsClientDir = "testdata/tsclient"

// tsClientTimeout bounds a whole TypeScript client run (start, every call,
// shutdown).
const tsClientTimeout = 60 * time.Second

// tsCall is one call the TypeScript client makes.
type tsCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Progress  bool           `json:"progress,omitempty"`
}

// tsOutcome is what the TypeScript client reports for one call.
type tsOutcome struct {
	Name     string              `json:"name"`
	OK       bool                `json:"ok"`
	Result   *sdk.CallToolResult `json:"result"`
	Error    string              `json:"error"`
	Progress []struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	} `json:"progress"`
}

// tsReport is the client's whole output.
type tsReport struct {
	Tools []struct {
		Name         string          `json:"name"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	} `json:"tools"`
	Calls []tsOutcome `json:"calls"`
	// Errors are what the SDK reported to client.onerror.
	Errors []string `json:"errors"`
}

// lateProgress is the TypeScript SDK's onerror message for a progress
// notification it handles after the response of its call: it dispatches
// notifications in a microtask but responses at once, so a notification
// that arrives in the same read as the response is dropped
// (modelcontextprotocol/typescript-sdk#2580). No server can prevent it.
const lateProgress = "Received a progress notification for an unknown token"

// runTSClient runs client.mjs in dir with spec (the transport; calls are
// added) and returns its report, or skips the test when Node, npm or the
// client's modules are missing. (adapters/mcpserver's TypeScript test runs
// the same script over streamable HTTP.)
func runTSClient(t *testing.T, dir string, spec map[string]any, calls []tsCall) tsReport {
	t.Helper()
	const install = "npm ci --prefix examples/server/testdata/tsclient"
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("the TypeScript-SDK client test needs Node.js (20 or later) and npm; install them, then run: " + install)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("the TypeScript-SDK client test needs npm; install it, then run: " + install)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the TypeScript-SDK client's modules are not installed; run: " + install)
	}
	spec["calls"] = calls
	specJSON, err := json.Marshal(spec)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), tsClientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", string(specJSON))
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	require.NoError(t, err, "TypeScript client failed (ctx: %v)\nstderr:\n%s", ctx.Err(), stderr.String())
	var rep tsReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "client output: %s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Len(t, rep.Calls, len(calls), "one outcome per call")
	return rep
}

// tsText is the text of a call's only text content.
func tsText(t *testing.T, o tsOutcome) string {
	t.Helper()
	require.NotNil(t, o.Result, o.Name)
	require.Len(t, o.Result.Content, 1, o.Name)
	tc, ok := o.Result.Content[0].(*sdk.TextContent)
	require.True(t, ok, "%s: content is %T", o.Name, o.Result.Content[0])
	return tc.Text
}

func tsStructured(t *testing.T, o tsOutcome) string {
	t.Helper()
	if o.Result.StructuredContent == nil {
		return ""
	}
	b, err := json.Marshal(o.Result.StructuredContent)
	require.NoError(t, err)
	return string(b)
}

// TestTSClient_EveryResultKind runs a real TypeScript-SDK client
// (@modelcontextprotocol/sdk, pinned in testdata/tsclient/package.json)
// against this server over stdio with the example tools, and calls one
// tool of every result kind — string, number, boolean, array, object, no
// value, domain failure, validation failure — plus the long-running count
// tool with an onprogress callback. The client must accept every response
// (structuredContent is a record; it matches the tool's outputSchema when
// there is one) and the test checks what it received. Skipped, saying how
// to install it, when Node, npm or the client's modules are missing;
// .ci/run installs them.
func TestTSClient_EveryResultKind(t *testing.T) {
	calls := []tsCall{
		{Name: "echo", Arguments: map[string]any{"text": "hello <world>"}},
		{Name: "add", Arguments: map[string]any{"a": 2, "b": 40}},
		{Name: "is_prime", Arguments: map[string]any{"n": 97}},
		{Name: "text_stats", Arguments: map[string]any{"text": "one two\nthree"}},
		{Name: "create_document", Arguments: map[string]any{"title": "Notes", "body": "b", "confirm": "CREATE_DOCUMENT"}},
		{Name: "list_documents"},
		{Name: "delete_document", Arguments: map[string]any{"id": "doc-1", "confirm": "DELETE_DOCUMENT"}},
		{Name: "list_documents"},
		{Name: "get_document", Arguments: map[string]any{"id": "doc-1"}},
		{Name: "add", Arguments: map[string]any{"a": "two"}},
		{Name: "count", Arguments: map[string]any{"n": 5, "delay_ms": 50}, Progress: true},
	}
	rep := runTSClient(t, tsClientDir, map[string]any{
		"command": binPath,
		"args":    []string{"-stdio"},
		"env":     map[string]string{"MCP_INCLUDE_EXAMPLE_TOOLS": "true", "MCP_TOOL_PREFIX": ""},
	}, calls)

	listed := map[string]json.RawMessage{}
	for _, tool := range rep.Tools {
		listed[tool.Name] = tool.OutputSchema
	}
	for _, name := range exampleTools {
		require.Contains(t, listed, name, "the TypeScript client lists %s", name)
	}
	for _, o := range rep.Calls {
		require.True(t, o.OK, "the TypeScript client accepted the response of %s; it said: %s", o.Name, o.Error)
	}
	c := rep.Calls
	type want struct {
		text, structured string
		isError          bool
	}
	for i, w := range []want{
		{text: "hello <world>"}, // a string: text only
		{text: "42", structured: `{"value":42}`},
		{text: "true", structured: `{"value":true}`},
		{text: `{"characters":13,"words":3,"lines":2}`, structured: `{"characters":13,"words":3,"lines":2}`},
		{text: `{"id":"doc-1","title":"Notes","body":"b"}`, structured: `{"id":"doc-1","title":"Notes","body":"b"}`},
		{text: `[{"id":"doc-1","title":"Notes"}]`, structured: `{"value":[{"id":"doc-1","title":"Notes"}]}`},
		{text: "Deleted doc-1."}, // no value: its message, no structured content
		{text: `[]`, structured: `{"value":[]}`},
		{text: `no document with id "doc-1"`, isError: true},
	} {
		o := c[i]
		assert.Equal(t, w.isError, o.Result.IsError, o.Name)
		assert.Equal(t, w.text, tsText(t, o), "%s text", o.Name)
		if w.structured == "" {
			assert.Empty(t, tsStructured(t, o), "%s has no structuredContent", o.Name)
		} else {
			assert.JSONEq(t, w.structured, tsStructured(t, o), "%s structuredContent", o.Name)
		}
	}
	invalid := c[9]
	assert.True(t, invalid.Result.IsError, "a validation failure is a tool result")
	assert.Contains(t, tsText(t, invalid), "- a: ")
	assert.Contains(t, tsText(t, invalid), "- b: ")
	assert.Empty(t, tsStructured(t, invalid))

	// count sends 1/5 … 5/5, 50 ms apart. The client receives them in
	// order; the last may be dropped by the SDK itself when it arrives with
	// the response (lateProgress), and on a very loaded machine others may
	// share a read with it, so the test asks for an increasing series of
	// the values sent rather than all five.
	count := c[10]
	assert.Equal(t, "5", tsText(t, count))
	require.NotEmpty(t, count.Progress, "progress notifications reach the onprogress callback")
	prev := 0.0
	for _, p := range count.Progress {
		assert.Greater(t, p.Progress, prev, "in order")
		assert.LessOrEqual(t, p.Progress, 5.0)
		assert.Equal(t, p.Progress, float64(int(p.Progress)), "whole numbers as sent")
		assert.Equal(t, 5.0, p.Total)
		assert.Equal(t, fmt.Sprintf("counted to %d", int(p.Progress)), p.Message)
		prev = p.Progress
	}
	for _, e := range rep.Errors {
		assert.Contains(t, e, lateProgress, "the only client error allowed is the SDK's own late-progress race")
	}
	assert.Len(t, rep.Errors, 5-len(count.Progress), "every notification not delivered is one the SDK dropped as late")
	assert.JSONEq(t, "null", string(listed["echo"]), "a text tool advertises no output schema")
}
