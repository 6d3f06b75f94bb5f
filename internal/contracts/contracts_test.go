package contracts_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/contracts"
)

// The committed documents under docs/ are what the packs generate now:
// a schema, error or description change fails here until
// `go generate ./internal/contracts` is run and its output committed.
func TestCommittedDocumentsAreCurrent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the mlx pack, one of the contract packs, runs on Linux only")
	}
	docs, err := contracts.Render(context.Background())
	require.NoError(t, err)
	require.Len(t, docs, 3)
	for name, want := range docs {
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
		require.NoError(t, err, "docs/%s is missing: run go generate ./internal/contracts", name)
		assert.Equal(t, string(want), string(got), "docs/%s is stale: run go generate ./internal/contracts and commit the result", name)
	}
}

// The OpenAPI document has an invoke operation for every contract tool,
// whose request body is the tool's input schema and whose responses list
// every status the tool declares; the MCP entries carry the same schemas.
func TestDocumentsDescribeEveryTool(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the mlx pack runs on Linux only")
	}
	docs, err := contracts.Render(context.Background())
	require.NoError(t, err)
	reg, err := contracts.Registry()
	require.NoError(t, err)
	var oa struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]struct {
			Post struct {
				RequestBody struct {
					Content map[string]struct {
						Schema json.RawMessage `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
				Responses map[string]json.RawMessage `json:"responses"`
			} `json:"post"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(docs[contracts.OpenAPIFile], &oa))
	assert.Equal(t, "3.1.0", oa.OpenAPI)
	var mcp struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(docs[contracts.MCPFile], &mcp))
	byName := map[string]int{}
	for i, m := range mcp.Tools {
		byName[m.Name] = i
	}
	tools := reg.List()
	require.Len(t, tools, 5)
	for _, tool := range tools {
		op, ok := oa.Paths["/tools/"+tool.Name+"/invoke"]
		require.True(t, ok, tool.Name)
		assert.JSONEq(t, string(tool.InputSchema), string(op.Post.RequestBody.Content["application/json"].Schema), tool.Name)
		for _, e := range tool.Errors {
			assert.Contains(t, op.Post.Responses, strconv.Itoa(e.Status), "%s: %s", tool.Name, e.Type)
		}
		i, ok := byName[tool.Name]
		require.True(t, ok, tool.Name)
		assert.JSONEq(t, string(tool.InputSchema), string(mcp.Tools[i].InputSchema), tool.Name)
		assert.JSONEq(t, string(tool.OutputSchema), string(mcp.Tools[i].OutputSchema), tool.Name)
		assert.Contains(t, string(docs[contracts.MarkdownFile]), "## "+tool.Name+"\n", tool.Name)
	}
}

// Rendering twice gives the same bytes (no map order, no clock).
func TestRenderIsDeterministic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the mlx pack runs on Linux only")
	}
	a, err := contracts.Render(context.Background())
	require.NoError(t, err)
	b, err := contracts.Render(context.Background())
	require.NoError(t, err)
	assert.Equal(t, a, b)
}
