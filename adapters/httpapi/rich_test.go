package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// richServer serves rich tools over REST, and a tool that tries every
// talk-back call and reports the errors it got.
func richServer(t *testing.T) string {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	rich := func(name string, items ...result.Content) *registry.Tool {
		tool, err := registry.Func(name, func(context.Context, NoArgs) (result.Result[result.Contents], error) {
			return result.Rich(items...), nil
		}, registry.ToolOptions{Doc: "Returns rich content."})
		require.NoError(t, err)
		return tool
	}
	talk, err := registry.Func("talk", func(ctx context.Context, _ NoArgs) (result.Result[[]string], error) {
		var got []string
		for _, err := range []error{
			registry.ClientLog(ctx, registry.LogInfo, "hi"),
			func() error {
				_, err := registry.Sample(ctx, registry.SampleRequest{Messages: []registry.SampleMessage{{Role: "user", Content: result.Text("q")}}, MaxTokens: 5})
				return err
			}(),
			func() error {
				_, err := registry.Elicit(ctx, registry.ElicitRequest{Message: "m", Schema: json.RawMessage(`{"type":"object","properties":{}}`)})
				return err
			}(),
		} {
			if errors.Is(err, registry.ErrUnsupported) {
				got = append(got, "unsupported")
			} else {
				got = append(got, "other")
			}
		}
		return result.Ok(got), nil
	}, registry.ToolOptions{Doc: "Tries to talk back."})
	require.NoError(t, err)
	require.NoError(t, reg.Add(
		rich("mixed",
			result.Text("chart:"),
			result.Image([]byte{1, 2, 3}, "image/png"),
			result.Audio([]byte("RIFF"), "audio/wav"),
			result.TextResource("test://t", "text/plain", "hi"),
			result.BlobResource("test://b", "application/octet-stream", []byte{0xff}),
			result.ResourceLink("file:///a", "a", "", ""),
		),
		rich("invalid", result.Image([]byte{1}, "")),
		talk,
	))
	srv := httptest.NewServer(httpapi.New(reg, httpapi.Options{Logger: discardLogger()}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRichContentOverREST: every content kind is answered as JSON, binary
// data in base64 beside its MIME type.
func TestRichContentOverREST(t *testing.T) {
	base := richServer(t)
	r := invoke(t, base, "mixed", `{}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"ok":true,"value":[
		{"type":"text","text":"chart:"},
		{"type":"image","data":"AQID","mimeType":"image/png"},
		{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},
		{"type":"resource","uri":"test://t","mimeType":"text/plain","text":"hi"},
		{"type":"resource","uri":"test://b","mimeType":"application/octet-stream","data":"/w=="},
		{"type":"resource_link","uri":"file:///a","name":"a"}]}`, string(r.Body))
}

// TestInvalidRichContentOverRESTIs500: an invalid item is a protocol
// failure (500), never a half-described value.
func TestInvalidRichContentOverRESTIs500(t *testing.T) {
	base := richServer(t)
	r := invoke(t, base, "invalid", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.Status, "%s", r.Body)
}

// TestRichContentInOpenAPI: the OpenAPI document describes a rich tool's
// value as an array of items with base64 data and a MIME type.
func TestRichContentInOpenAPI(t *testing.T) {
	base := richServer(t)
	doc := do(t, http.MethodGet, base+"/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, doc.Status)
	b, err := json.Marshal(doc.JSON["paths"].(map[string]any)["/tools/mixed/invoke"])
	require.NoError(t, err)
	var op struct {
		Post struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"post"`
	}
	require.NoError(t, json.Unmarshal(b, &op))
	value := op.Post.Responses["200"].Content["application/json"].Schema.Properties["value"]
	var schema struct {
		Type  any `json:"type"`
		Items struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(value, &schema), "%s", value)
	assert.Contains(t, schema.Type, "array", "%s", value)
	assert.Equal(t, "base64", schema.Items.Properties["data"]["contentEncoding"], "%s", value)
	assert.Contains(t, schema.Items.Properties, "mimeType")
}

// TestTalkBackOverRESTIsUnsupported: over REST there is no client to talk
// back to: ClientLog, Sample and Elicit return ErrUnsupported at once.
func TestTalkBackOverRESTIsUnsupported(t *testing.T) {
	base := richServer(t)
	r := invoke(t, base, "talk", `{}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, []any{"unsupported", "unsupported", "unsupported"}, r.JSON["value"])
}
