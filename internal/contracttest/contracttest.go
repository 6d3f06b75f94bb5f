// Package contracttest holds a pack's tools to a tool contract file (seed
// 003's format) and reaches their error codes through both adapters. It
// is for the contract packs' tests.
package contracttest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
)

// Contract is one tool's contract: its schemas and its errors with their
// HTTP statuses.
type Contract struct {
	In     json.RawMessage `json:"input_schema"`
	Out    json.RawMessage `json:"output_schema"`
	Errors []struct {
		Code   string `json:"code"`
		Status int    `json:"http_status"`
	} `json:"errors"`
}

// Check reads path (a JSON object of tool name → Contract) and holds p to
// it: the same tools, each generated schema equal to the contract's (key
// order aside), the declared errors the contract's, in order, with its
// statuses.
func Check(t testing.TB, p *registry.Pack, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var c map[string]Contract
	require.NoError(t, json.Unmarshal(b, &c))
	require.Len(t, p.Tools, len(c), "the pack's tools are the contract's")
	for _, tool := range p.Tools {
		want, ok := c[tool.Name]
		require.True(t, ok, "tool %s is in the contract", tool.Name)
		assert.JSONEq(t, string(want.In), string(tool.InputSchema), tool.Name)
		assert.JSONEq(t, string(want.Out), string(tool.OutputSchema), tool.Name)
		require.Len(t, tool.Errors, len(want.Errors), tool.Name)
		for i, e := range want.Errors {
			assert.Equal(t, e.Code, string(tool.Errors[i].Type), tool.Name)
			assert.Equal(t, e.Status, tool.Errors[i].Status, tool.Name)
		}
	}
}

// Case is one call expected to fail with an error type and HTTP status.
type Case struct {
	Args   map[string]any
	Type   string
	Status int
}

// Codes calls tool with each case's arguments over HTTP (the REST
// adapter, on 127.0.0.1) and over MCP (a go-sdk client, in memory) and
// checks the failure's error type in both and the HTTP status. next
// returns the i-th case, or false when there are no more; it may set up
// the case (a fake upstream's answer, say) before returning it.
func Codes(t *testing.T, reg *registry.Registry, tool string, next func(i int) (Case, bool)) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	api := httptest.NewServer(httpapi.New(reg, httpapi.Options{Logger: quiet}))
	defer api.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcpserver.NewServer(reg, mcpserver.Options{Logger: quiet}).Connect(ctx, st, nil)
	require.NoError(t, err)
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "contracttest", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	defer cs.Close()
	for i := 0; ; i++ {
		c, ok := next(i)
		if !ok {
			return
		}
		body, err := json.Marshal(c.Args)
		require.NoError(t, err)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, api.URL+"/tools/"+tool+"/invoke", strings.NewReader(string(body)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, c.Status, resp.StatusCode, "%s %s: %s", tool, body, got)
		assert.Contains(t, string(got), `"error_type":"`+c.Type+`"`, "%s %s", tool, body)

		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: c.Args})
		require.NoError(t, err)
		assert.True(t, res.IsError, "%s %s", tool, body)
		assert.Equal(t, c.Type, res.Meta[mcpserver.MetaErrorType], "%s %s", tool, body)
	}
}
