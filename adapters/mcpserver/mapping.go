package mcpserver

import (
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/result"
)

// toCallToolResult maps a Result from the pipeline to an MCP tool result
// with the mapping every MCP adapter shares (mcpmap.Map), as described in
// the package documentation: the text content follows the Display, the
// structured content follows the tool's output shape, so that it always
// matches what tools/list advertised. An error means the Result cannot be
// represented (a value or error_data that does not marshal, a value that
// contradicts the tool's output schema, an invalid rich item) and is a
// protocol failure. The content kinds are those of the newest protocol
// version; see toCallToolResultFor.
func toCallToolResult(r result.Result[any], d Display, shape outputShape) (*sdk.CallToolResult, error) {
	return toCallToolResultFor(r, d, shape, "")
}

// toCallToolResultFor is toCallToolResult for a client on protocol version
// v ("" for the newest): a content item of a kind v does not have becomes
// the nearest kind it has (downgradedContent).
func toCallToolResultFor(r result.Result[any], d Display, shape outputShape, v string) (*sdk.CallToolResult, error) {
	rep, err := mcpmap.Map(r, d == DisplayEnvelope, shape)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	out := &sdk.CallToolResult{Content: make([]sdk.Content, len(rep.Content)), IsError: rep.IsError}
	for i, c := range rep.Content {
		out.Content[i] = downgradedContent(c, v, i+1)
	}
	if rep.Structured != nil {
		out.StructuredContent = rep.Structured
	}
	out.Meta = rep.Meta()
	return out, nil
}

// The output shapes of mcpmap, under this package's names.
type outputShape = mcpmap.Shape

const (
	shapeFree    = mcpmap.ShapeFree
	shapeObject  = mcpmap.ShapeObject
	shapeWrapped = mcpmap.ShapeWrapped
	// maxOutputSchemaBytes caps the output schema read to decide a tool's
	// output shape; a tool with a larger one is not served.
	maxOutputSchemaBytes = mcpmap.MaxOutputSchemaBytes
)

func shapeOf(s json.RawMessage) (outputShape, error) { return mcpmap.ShapeOf(s) }

func wrapOutputSchema(s json.RawMessage) (json.RawMessage, error) {
	return mcpmap.WrapOutputSchema(s)
}
