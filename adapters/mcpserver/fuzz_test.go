package mcpserver

import (
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/result"
)

// FuzzToCallToolResult feeds arbitrary Result JSON (as a proxied tool or a
// stored result could carry) through the mapping in both displays: it must
// never panic, must keep isError equal to !success, must produce exactly
// one text content, and structured content must be the JSON of the value.
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
		for _, d := range []Display{DisplayEnvelope, DisplayValue} {
			out, err := toCallToolResult(r, d)
			if err != nil {
				continue // unrepresentable values are protocol errors, not panics
			}
			if out.IsError == r.Success {
				t.Fatalf("isError %v for success %v", out.IsError, r.Success)
			}
			if len(out.Content) != 1 {
				t.Fatalf("%d contents", len(out.Content))
			}
			if out.StructuredContent != nil {
				raw, ok := out.StructuredContent.(json.RawMessage)
				if !ok || !json.Valid(raw) {
					t.Fatalf("structured content %T is not valid JSON", out.StructuredContent)
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
