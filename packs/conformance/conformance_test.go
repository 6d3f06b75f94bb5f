package conformance_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/conformance"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	p, err := conformance.New(conformance.Options{StepDelay: -1})
	require.NoError(t, err)
	r := registry.New(registry.Options{Prefix: new("")})
	require.NoError(t, r.AddPack(p))
	return r
}

func call(t *testing.T, r *registry.Registry, name, args string) result.Result[any] {
	t.Helper()
	res, err := r.Invoke(context.Background(), name, json.RawMessage(args))
	require.NoError(t, err)
	return res
}

// TestSuiteToolNames: the pack carries every tool the suite calls, under
// the suite's names.
func TestSuiteToolNames(t *testing.T) {
	r := newRegistry(t)
	for _, name := range []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_tool_with_logging", "test_error_handling", "test_tool_with_progress",
		"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
		conformance.JSONSchemaToolName} {
		_, ok := r.Lookup(name)
		assert.True(t, ok, name)
	}
}

// TestRichTools: the content tools return valid rich content of the kinds
// the suite checks (a real PNG and WAV, an embedded resource with URI and
// MIME type, text+image+resource mixed).
func TestRichTools(t *testing.T) {
	r := newRegistry(t)
	items := func(name string) result.Contents {
		res := call(t, r, name, `{}`)
		require.True(t, res.Success, name)
		cs, ok := res.Value.(result.Contents)
		require.True(t, ok, "%s: %T", name, res.Value)
		require.NoError(t, cs.Validate())
		return cs
	}
	img := items("test_image_content")
	assert.Equal(t, "image/png", img[0].MIMEType)
	assert.Equal(t, "\x89PNG", string(img[0].Data[:4]))
	aud := items("test_audio_content")
	assert.Equal(t, "audio/wav", aud[0].MIMEType)
	assert.Equal(t, "RIFF", string(aud[0].Data[:4]))
	res := items("test_embedded_resource")
	assert.Equal(t, result.ResourceContent, res[0].Type)
	assert.NotEmpty(t, res[0].URI)
	assert.NotEmpty(t, res[0].MIMEType)
	mixed := items("test_multiple_content_types")
	require.Len(t, mixed, 3)
	assert.Equal(t, []result.ContentType{result.TextContent, result.ImageContent, result.ResourceContent},
		[]result.ContentType{mixed[0].Type, mixed[1].Type, mixed[2].Type})
}

// TestErrorToolIsDomainFailure: test_error_handling fails as a domain
// failure (isError in MCP), with the suite's text.
func TestErrorToolIsDomainFailure(t *testing.T) {
	res := call(t, newRegistry(t), "test_error_handling", `{}`)
	assert.False(t, res.Success)
	assert.Equal(t, "This tool intentionally returns an error for testing", res.Error)
}

// TestTalkBackToolsWithoutClient: called in process, the logging and
// progress tools still answer; sampling and elicitation fail readably
// (unavailable) instead of hanging.
func TestTalkBackToolsWithoutClient(t *testing.T) {
	r := newRegistry(t)
	assert.True(t, call(t, r, "test_tool_with_logging", `{}`).Success)
	assert.True(t, call(t, r, "test_tool_with_progress", `{}`).Success)
	for name, args := range map[string]string{
		"test_sampling": `{"prompt":"p"}`, "test_elicitation": `{"message":"m"}`,
		"test_elicitation_sep1034_defaults": `{}`, "test_elicitation_sep1330_enums": `{}`,
	} {
		res := call(t, r, name, args)
		assert.False(t, res.Success, name)
		assert.Equal(t, result.Unavailable, res.ErrorType, name)
	}
}

// TestJSONSchema2020Tool: the tool shows $schema, $defs and
// additionalProperties:false, and its arguments are still validated.
func TestJSONSchema2020Tool(t *testing.T) {
	r := newRegistry(t)
	tool, ok := r.Lookup(conformance.JSONSchemaToolName)
	require.True(t, ok)
	var s map[string]any
	require.NoError(t, json.Unmarshal(tool.InputSchema, &s))
	assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", s["$schema"])
	assert.Contains(t, s["$defs"], "address")
	assert.Equal(t, false, s["additionalProperties"])
	assert.True(t, call(t, r, conformance.JSONSchemaToolName, `{"name":"n","address":{"city":"c"}}`).Success)
	bad := call(t, r, conformance.JSONSchemaToolName, `{"nope":1}`)
	assert.Equal(t, result.ValidationError, bad.ErrorType)
}
