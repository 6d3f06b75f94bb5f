package mcpserver

import (
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/result"
)

// FuzzToCallToolResult feeds arbitrary Result JSON (as a proxied tool or a
// stored result could carry) through the mapping in both displays and every
// output shape: it must never panic, must keep isError equal to !success,
// must produce exactly one text content, structured content must be a JSON
// object (MCP requires one), and a success of a tool that advertises an
// output schema must carry it.
func FuzzToCallToolResult(f *testing.F) {
	for _, s := range []string{
		`{"success":true,"value":"# Title\n\ntext"}`,
		`{"success":true,"value":{"a":1,"b":[true,null]}}`,
		`{"success":true,"value":null}`,
		`{"success":true,"value":12345678901234567890}`,
		`{"success":false,"error":"nope","error_type":"not_found","instruction":"ask"}`,
		`{"success":false,"error":"bad","error_type":"validation_error","error_data":[{"field":"q","rule":"required","message":"is required"}]}`,
		`{"success":false,"error_data":[{"field":"q"}]}`,
		`{"success":false,"error_data":{"status":502},"exception_type":"*net.OpError","exception_message":"dial"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r result.Result[any]
		if err := json.Unmarshal(data, &r); err != nil {
			return
		}
		for _, c := range []struct {
			d     Display
			shape outputShape
		}{{DisplayEnvelope, shapeFree}, {DisplayValue, shapeFree}, {DisplayValue, shapeObject}, {DisplayValue, shapeWrapped}, {DisplayEnvelope, shapeWrapped}} {
			d := c.d
			out, err := toCallToolResult(r, d, c.shape)
			if err != nil {
				continue // unrepresentable values are protocol errors, not panics
			}
			if r.Success && c.shape != shapeFree && out.StructuredContent == nil {
				t.Fatalf("shape %d: success without structured content", c.shape)
			}
			if out.IsError == r.Success {
				t.Fatalf("isError %v for success %v", out.IsError, r.Success)
			}
			if len(out.Content) != 1 {
				t.Fatalf("%d contents", len(out.Content))
			}
			if out.StructuredContent != nil {
				raw, ok := out.StructuredContent.(json.RawMessage)
				var obj map[string]json.RawMessage
				if !ok || json.Unmarshal(raw, &obj) != nil || obj == nil {
					t.Fatalf("structured content %T %s is not a JSON object", out.StructuredContent, raw)
				}
				if !r.Success {
					t.Fatal("a failure carries structured content")
				}
			}
			if d == DisplayEnvelope && !json.Valid([]byte(textOf(out))) {
				t.Fatalf("envelope text is not JSON: %q", textOf(out))
			}
		}
	})
}

func textOf(r *sdk.CallToolResult) string {
	if tc, ok := r.Content[0].(*sdk.TextContent); ok {
		return tc.Text
	}
	return ""
}
