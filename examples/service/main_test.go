package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testToken = "ops:service-test-token-0123456789"

// build compiles the service once per test.
func build(t *testing.T, ctx context.Context) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "service")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// bearer adds a token to every request of an MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// The service of README's "Use it in your service" works as a user runs it:
// one HTTP listener serves MCP (go-sdk client over streamable HTTP) and
// REST (the same tools, the OpenAPI document) behind a bearer token, and
// -stdio serves MCP over stdin/stdout.
func TestService_MCPAndRESTOnOneMux(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	bin := build(t, ctx)

	cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "SERVICE_TOKEN="+testToken, "MCP_TOOL_PREFIX=")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := ""
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`rest=(http://\S+)/tools`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	require.NotEmpty(t, base, "the service logs where it listens")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	// REST without the token: refused; with it: the tool runs.
	post := func(token, body string) (int, map[string]any) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/tools/count_words/invoke", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var m map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		return resp.StatusCode, m
	}
	status, _ := post("", `{"text":"a b"}`)
	assert.Equal(t, http.StatusUnauthorized, status)
	token := strings.SplitN(testToken, ":", 2)[1]
	status, m := post(token, `{"text":"one two\nthree"}`)
	require.Equal(t, http.StatusOK, status, "%v", m)
	assert.Equal(t, map[string]any{"words": 3.0, "lines": 2.0}, m["value"])
	status, m = post(token, `{"txt":"x"}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "validation_error", m["error_type"])

	// MCP over streamable HTTP on the same listener.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "upper", Arguments: map[string]any{"text": "hi"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Equal(t, "HI", res.Content[0].(*mcp.TextContent).Text)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "count_words", Arguments: map[string]any{"text": "a b c"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"words": 3.0, "lines": 1.0}, res.StructuredContent)

	// MCP over stdio.
	stdioCmd := exec.CommandContext(ctx, bin, "-stdio")
	stdioCmd.Env = append(os.Environ(), "MCP_TOOL_PREFIX=")
	sc2, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: stdioCmd}, nil)
	require.NoError(t, err)
	defer sc2.Close()
	res, err = sc2.CallTool(ctx, &mcp.CallToolParams{Name: "upper", Arguments: map[string]any{"text": "ok"}})
	require.NoError(t, err)
	assert.Equal(t, "OK", res.Content[0].(*mcp.TextContent).Text)
}

// README's "Use it in your service" shows this program: the code there is
// main.go's, so it compiles and this package's test runs it.
func TestService_READMEShowsThisProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	code := string(src)
	code = code[strings.Index(code, "package main"):]
	assert.Contains(t, string(readme), "```go\n"+code+"```", "README.md's service example differs from examples/service/main.go")
}
