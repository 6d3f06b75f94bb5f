package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ojTools are the tools the oj pack serves.
var ojTools = []string{"find_similar_problems", "get_daily_challenge", "get_platform_status", "get_problem", "resolve_problem"}

// exampleTools are the tools the example pack serves.
var exampleTools = []string{"add", "count", "create_document", "delete_document", "echo", "get_document", "is_prime", "lines", "list_documents", "text_stats"}

// otToolCount is the number of tools of the ot pack, which the server
// always serves beside the packs -packs selects.
const otToolCount = 12

func newClient() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "e2e-client", Version: "v0"}, nil)
}

func textOf(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1, "one content")
	tc, ok := res.Content[0].(*sdk.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

func rpcError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "want a JSON-RPC error, got %v", err)
	return werr
}

// exerciseSession runs the end-to-end cases on a connected client:
// initialize, tools/list, and tools/call of success, validation failure,
// domain failure and protocol failures.
func exerciseSession(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
	t.Run("initialize", func(t *testing.T) {
		init := cs.InitializeResult()
		require.NotNil(t, init)
		assert.Equal(t, "toolpack-example", init.ServerInfo.Name)
		require.NotNil(t, init.Capabilities.Tools, "tools capability")
		assert.True(t, init.Capabilities.Tools.ListChanged)
	})
	t.Run("tools/list", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		byName := map[string]*sdk.Tool{}
		for _, tool := range res.Tools {
			byName[tool.Name] = tool
		}
		for _, name := range append(append([]string{}, ojTools...), exampleTools...) {
			require.Contains(t, byName, name)
		}
		gp := byName["get_problem"]
		schema, err := json.Marshal(gp.InputSchema)
		require.NoError(t, err)
		assert.Contains(t, string(schema), `"source"`)
		assert.Contains(t, string(schema), `"additionalProperties":false`)
		require.NotNil(t, gp.Annotations)
		assert.True(t, gp.Annotations.ReadOnlyHint)
	})
	t.Run("success", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_problem", Arguments: map[string]any{"source": "leetcode", "id": "1"}})
		require.NoError(t, err)
		assert.False(t, res.IsError)
		txt := textOf(t, res)
		assert.Contains(t, txt, "Two Sum")
		assert.False(t, strings.HasPrefix(txt, "{"), "the oj pack shows its plain Markdown, not an envelope")
	})
	t.Run("example pack shows the plain value by default", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		require.NoError(t, err)
		require.False(t, res.IsError)
		assert.Equal(t, "hi", textOf(t, res))

		res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "create_document", Arguments: map[string]any{"title": "t", "body": "b", "confirm": "yes"}})
		require.NoError(t, err, "a refused consent phrase is a tool result")
		assert.True(t, res.IsError)
		assert.Contains(t, textOf(t, res), "CREATE_DOCUMENT")
	})
	t.Run("validation failure", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_problem", Arguments: map[string]any{"source": "leetcode", "bogus": 1}})
		require.NoError(t, err, "a validation failure is a tool result")
		require.True(t, res.IsError)
		txt := textOf(t, res)
		assert.Contains(t, txt, "\n- id: ", "missing field listed")
		assert.Contains(t, txt, "\n- bogus: ", "unknown field listed")
	})
	t.Run("domain failure", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_problem", Arguments: map[string]any{"source": "leetcode", "id": "missing"}})
		require.NoError(t, err, "a domain failure is a tool result")
		require.True(t, res.IsError)
		assert.NotEmpty(t, textOf(t, res))
	})
	t.Run("protocol failure: unknown tool", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
		assert.Nil(t, res)
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcError(t, err).Code)
	})
	t.Run("protocol failure: malformed upstream data", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_problem", Arguments: map[string]any{"source": "leetcode", "id": "badjson"}})
		assert.Nil(t, res)
		assert.Equal(t, int64(jsonrpc.CodeInternalError), rpcError(t, err).Code)
	})
}

func TestE2E_StdioCommandTransport(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	cmd := exec.Command(binPath, "-stdio")
	cmd.Env = serverEnv(startBackend(t))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cs, err := newClient().Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	require.NoError(t, err)
	exerciseSession(t, ctx, cs)
	require.NoError(t, cs.Close(), "the server exits when stdin closes")
	assert.Contains(t, stderr.String(), "serving MCP over stdio", "logs go to stderr")
}

// TestE2E_StdioStdoutCarriesOnlyProtocol reads the child's raw stdout: every
// line must be a JSON-RPC 2.0 message, while the logs (including the
// ERROR of a protocol failure) land on stderr.
func TestE2E_StdioStdoutCarriesOnlyProtocol(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	cmd := exec.Command(binPath, "-stdio", "-log-level", "debug")
	cmd.Env = serverEnv(startBackend(t))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	raw := &syncBuffer{}
	cs, err := newClient().Connect(ctx, &sdk.IOTransport{Reader: io.NopCloser(io.TeeReader(stdout, raw)), Writer: stdin}, nil)
	require.NoError(t, err)
	exerciseSession(t, ctx, cs)
	require.NoError(t, cs.Close())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "clean exit after stdin closes; stderr:\n%s", stderr)
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		t.Fatal("server did not exit after stdin closed")
	}

	sc := bufio.NewScanner(bytes.NewReader([]byte(raw.String())))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	lines := 0
	for sc.Scan() {
		lines++
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &msg), "stdout line %d is not JSON: %q", lines, sc.Text())
		require.Equal(t, "2.0", msg.JSONRPC, "stdout line %d is not JSON-RPC 2.0: %q", lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	assert.GreaterOrEqual(t, lines, 7, "initialize, tools/list and five calls were answered:\n%s", raw.String())
	assert.Contains(t, stderr.String(), "level=ERROR", "the protocol failure is logged, on stderr")
	assert.Contains(t, stderr.String(), "level=DEBUG")
}

func TestE2E_StreamableHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	s := startHTTP(t, ctx, serverEnv(startBackend(t)))

	cs, err := newClient().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, nil)
	require.NoError(t, err)
	exerciseSession(t, ctx, cs)
	require.NoError(t, cs.Close())

	t.Run("healthz", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/healthz", nil)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var h struct {
			Status     string   `json:"status"`
			Tools      int      `json:"tools"`
			Packs      []string `json:"packs"`
			PostgreSQL any      `json:"postgresql"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
		assert.Equal(t, "ok", h.Status)
		assert.Equal(t, len(ojTools)+len(exampleTools)+otToolCount+len(builtInFuncs), h.Tools, "the built-in catalogue bundle serves three example functions")
		assert.Contains(t, h.Packs, "oj")
		assert.Contains(t, h.Packs, "example")
		assert.Nil(t, h.PostgreSQL, "no database configured, no postgresql part")
	})

	t.Run("REST", func(t *testing.T) {
		get := func(path string) (int, map[string]any) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			var body map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			return resp.StatusCode, body
		}
		invoke := func(name, body string) (int, map[string]any) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/tools/"+name+"/invoke", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			var out map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
			return resp.StatusCode, out
		}
		code, list := get("/tools")
		assert.Equal(t, http.StatusOK, code)
		assert.Contains(t, fmt.Sprint(list), "get_problem")
		code, doc := get("/openapi.json")
		assert.Equal(t, http.StatusOK, code)
		assert.Equal(t, "3.1.0", doc["openapi"])

		code, out := invoke("get_problem", `{"source":"leetcode","id":"1"}`)
		assert.Equal(t, http.StatusOK, code)
		assert.Equal(t, true, out["ok"])
		assert.Contains(t, out["value"], "Two Sum")
		code, out = invoke("get_problem", `{"source":"leetcode","bogus":1}`)
		assert.Equal(t, http.StatusBadRequest, code, "validation failure")
		assert.Equal(t, false, out["ok"])
		code, out = invoke("get_problem", `{"source":"leetcode","id":"missing"}`)
		assert.Equal(t, false, out["ok"], "domain failure")
		assert.Equal(t, "upstream_failure", out["error_type"], "the backend's 404 is an upstream failure")
		assert.Equal(t, http.StatusBadGateway, code)
		code, _ = invoke("no_such_tool", `{}`)
		assert.Equal(t, http.StatusNotFound, code)
	})

	t.Run("graceful shutdown on SIGTERM", func(t *testing.T) {
		require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
		select {
		case err := <-s.done:
			require.NoError(t, err, "exit status 0; stderr:\n%s", s.stderr)
		case <-ctx.Done():
			t.Fatal("server did not stop after SIGTERM")
		}
		assert.Contains(t, s.stderr.String(), "shutting down")
		assert.Contains(t, s.stderr.String(), "msg=stopped")
		assert.Empty(t, s.stdout.String(), "nothing on stdout in HTTP mode")
	})
}

func TestE2E_SIGINTStopsStdioServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	cmd := exec.Command(binPath, "-stdio")
	cmd.Env = serverEnv(startBackend(t))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe() // kept open: only the signal may stop it
	require.NoError(t, err)
	defer stdin.Close()
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(e2eTimeout / 2)
	for !strings.Contains(stderr.String(), "serving MCP over stdio") {
		require.True(t, time.Now().Before(deadline), "server did not start; stderr:\n%s", stderr)
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "exit status 0; stderr:\n%s", stderr)
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		t.Fatal("server did not stop after SIGINT")
	}
}

// With -disclosure progressive an MCP client sees the three meta-tools
// (and the visible ones), finds a tool, reads its schema and calls it; a
// large output reached through call_tool is stored and paged like a
// direct call's.
func TestE2E_ProgressiveDisclosure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	s := startHTTP(t, ctx, serverEnv(startBackend(t)), "-disclosure", "progressive", "-visible-tools", "add", "-name", "big-registry")
	cs, err := newClient().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Equal(t, "big-registry", cs.InitializeResult().ServerInfo.Name, "-name sets the implementation name")
	lt, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var listed []string
	for _, tl := range lt.Tools {
		listed = append(listed, tl.Name)
	}
	assert.ElementsMatch(t, []string{"search_tools", "describe_tool", "call_tool", "add", "ot.result"}, listed,
		"ot.result stays listed: a stored output's query field calls it")

	text := func(name string, args map[string]any) string {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		require.NoError(t, err)
		require.False(t, res.IsError, "%s: %v", name, res.Content)
		return res.Content[0].(*sdk.TextContent).Text
	}
	assert.Contains(t, text("search_tools", map[string]any{"query": "prime number"}), `"name":"is_prime"`)
	assert.Contains(t, text("describe_tool", map[string]any{"name": "is_prime"}), `"inputSchema":{`)
	assert.Equal(t, "true", text("call_tool", map[string]any{"name": "is_prime", "arguments": map[string]any{"n": 97}}))
	assert.Equal(t, "5", text("add", map[string]any{"a": 2, "b": 3}))

	// A large output through call_tool is stored, as a direct call's is:
	// the agent gets a handle, and pages it with ot.result.
	stored := text("call_tool", map[string]any{"name": "lines", "arguments": map[string]any{"count": 6000}})
	var h struct {
		Handle     string `json:"handle"`
		TotalLines int    `json:"total_lines"`
		Query      string `json:"query"`
	}
	require.NoError(t, json.Unmarshal([]byte(stored), &h), "a handle object, not 6,000 lines: %.200s", stored)
	assert.Equal(t, 6000, h.TotalLines)
	page := text("call_tool", map[string]any{"name": "ot.result", "arguments": map[string]any{"handle": h.Handle, "offset": 5999, "limit": 5}})
	assert.Contains(t, page, "line 6000")
	assert.NotContains(t, page, "line 5998")
	// The query field's call works as written: ot.result is listed.
	assert.Equal(t, fmt.Sprintf("ot.result(handle=%q, offset=11, limit=100)", h.Handle), h.Query)
	page = text("ot.result", map[string]any{"handle": h.Handle, "offset": 11, "limit": 100})
	assert.Contains(t, page, "line 11")
	assert.Contains(t, page, "line 110")
	assert.NotContains(t, page, "line 111")
}

// The seed's transcript-clean server is one command: -stdio -packs
// transcript -name transcript-clean, the endpoint from -config. A client
// cleans a transcript; the model failing is a model_error result; the key
// never reaches the logs.
func TestE2E_TranscriptCleanServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	var fail atomic.Bool
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() || r.Header.Get("Authorization") != "Bearer sk-e2e-key" {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": strings.ReplaceAll(req.Messages[1].Content, "um ", "")}}}})
	}))
	defer model.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "tr.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("transcript:\n  base_url: "+model.URL+"\n  model: cleaner\n  api_key: ${TR_KEY}\n"), 0o600))
	cmd := exec.Command(binPath, "-stdio", "-packs", "transcript", "-name", "transcript-clean", "-config", cfgPath)
	cmd.Env = append(serverEnv(startBackend(t)), "TR_KEY=sk-e2e-key")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cs, err := newClient().Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Equal(t, "transcript-clean", cs.InitializeResult().ServerInfo.Name)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "transcript.clean", Arguments: map[string]any{"text": "um hello um world."}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	sc, _ := json.Marshal(res.StructuredContent)
	assert.JSONEq(t, `{"clean_text":"hello world."}`, string(sc))

	fail.Store(true)
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "transcript.clean", Arguments: map[string]any{"text": "hello."}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, "HTTP 500")
	require.NoError(t, cs.Close())
	assert.NotContains(t, stderr.String(), "sk-e2e-key")
}
