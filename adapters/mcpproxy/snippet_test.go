package mcpproxy_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
	"github.com/toolpack-go/toolpack/result"
)

// A remote MCP tool that answers a JSON object as text — no structured
// content, as many servers do — is indexed by a snippet's references
// like a value: r = remote.get_user(id=1) then show(name=r.name) passes
// the field, a large id as written.
func TestSnippet_ReferenceIntoProxiedJSONText(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "users", Version: "1.0.0"}, nil)
	srv.AddTool(&mcp.Tool{
		Name:        "get_user",
		Description: "A user, as JSON text.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{\"name\": \"Ada\", \"id\": 12345678901234567890, \"langs\": [\"en\", \"fr\"]}\n"}}}, nil
	})
	reg := newRegistry()
	var mu sync.Mutex
	var shown []string
	require.NoError(t, reg.Add(&registry.Tool{
		Name:        "show",
		Description: "records its arguments",
		Handler: func(_ context.Context, c *registry.Call) (result.Result[any], error) {
			mu.Lock()
			shown = append(shown, string(c.Raw))
			mu.Unlock()
			return result.Ok[any]("shown"), nil
		},
	}))
	newProxy(t, reg, []mcpproxy.Config{{Name: "remote", Transport: inMemory(srv)}}, mcpproxy.Options{})
	addSnippets(t, reg, map[string]snippet.Definition{"user": {Body: "r = remote.get_user(id=1)\nshow(name=r.name, id=r.id, lang=r.langs[1])"}})

	res, err := reg.Invoke(callCtx(t), "snippet.user", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, shown, 1)
	assert.Equal(t, `{"name":"Ada","id":12345678901234567890,"lang":"fr"}`, shown[0])
}
