package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/result"
)

// A text tool's large output comes back as a results store's handle
// object; with AltValueSchema the OpenAPI document declares it beside the
// tool's own value schema, so that a client checking responses against
// the document accepts it. Before, the 200 value was declared a string
// and every stored output broke the contract.
func TestOpenAPI_StoredOutputsMatchTheDocument(t *testing.T) {
	reg := registry.New(registry.Options{Logger: discardLogger()})
	require.NoError(t, registry.AddFunc(reg, "lines", func(_ context.Context, a struct {
		N int `json:"n" validate:"min=0,max=10000"`
	}) (result.Result[string], error) {
		return result.Ok(strings.Repeat("a line of text\n", a.N)), nil
	}, registry.ToolOptions{Doc: "Lines."}))
	store, err := results.Open(context.Background(), results.Options{Dir: t.TempDir(), MaxInlineBytes: 200, Logger: discardLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	reg.Use(store.Middleware())

	for _, tc := range []struct {
		name  string
		alt   func(*registry.Tool) json.RawMessage
		valid bool
	}{
		{"declared", func(*registry.Tool) json.RawMessage { return results.StoredSchema() }, true},
		{"not declared", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(httpapi.New(reg, httpapi.Options{Logger: discardLogger(), AltValueSchema: tc.alt}))
			defer srv.Close()
			v := requireValidDocument(t, fetchDoc(t, srv.URL))
			for _, body := range []string{`{"n":2}`, `{"n":100}`} { // inline, then stored
				resp, err := client.Post(srv.URL+"/tools/lines/invoke", "application/json", strings.NewReader(body))
				require.NoError(t, err)
				got, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				resp.Body.Close()
				require.Equal(t, http.StatusOK, resp.StatusCode, "%s", got)
				resp.Body = io.NopCloser(bytes.NewReader(got))
				req := httptest.NewRequest(http.MethodPost, "/tools/lines/invoke", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				ok, errs := v.ValidateHttpResponse(req, resp)
				if body == `{"n":2}` || tc.valid {
					for _, e := range errs {
						t.Errorf("%s: %s (%v)", e.Message, e.Reason, e.SchemaValidationErrors)
					}
					assert.True(t, ok, "%s", got)
				} else {
					assert.False(t, ok, "the negative control: a stored output breaks a document that does not declare it")
					assert.Contains(t, string(got), `"handle"`)
				}
			}
		})
	}
}

// AltValueSchema's schema is placed once as a component however many
// tools use it; a tool without an output schema (any value) is left as it
// is, and a schema that is not JSON is an error naming the tool.
func TestBuildOpenAPI_AltValueSchema(t *testing.T) {
	tools := []*registry.Tool{
		{Name: "a", OutputSchema: json.RawMessage(`{"type":"string"}`)},
		{Name: "b", OutputSchema: json.RawMessage(`{"type":"string"}`)},
		{Name: "c"},
	}
	alt := func(*registry.Tool) json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
	doc, err := httpapi.BuildOpenAPI(tools, httpapi.DocOptions{AltValueSchema: alt})
	require.NoError(t, err)
	s := string(doc)
	assert.Equal(t, 2, strings.Count(s, `"anyOf":[{"type":"string"},{"$ref":"#/components/schemas/AltValue1"}]`), s)
	assert.Equal(t, 1, strings.Count(s, `"AltValue1":{"type":"object"}`))
	assert.NotContains(t, s, "AltValue2")

	_, err = httpapi.BuildOpenAPI(tools, httpapi.DocOptions{AltValueSchema: func(*registry.Tool) json.RawMessage { return json.RawMessage(`{`) }})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `tool "a"`)
}

// A body of white space or null means no arguments, as an empty body does
// and as an MCP call's absent or null arguments do (both were a 400 here
// while MCP ran the tool).
func TestInvoke_BlankOrNullBodyIsNoArguments(t *testing.T) {
	reg := registry.New(registry.Options{Logger: discardLogger()})
	require.NoError(t, registry.AddFunc(reg, "hello", func(context.Context, struct {
		Name string `json:"name" default:"world"`
	}) (result.Result[string], error) {
		return result.Ok("hello"), nil
	}, registry.ToolOptions{Doc: "Says hello."}))
	srv := httptest.NewServer(httpapi.New(reg, httpapi.Options{Logger: discardLogger()}))
	defer srv.Close()
	for _, body := range []string{"", "  \n\t", "null", " null \n"} {
		resp, err := client.Post(srv.URL+"/tools/hello/invoke", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "body %q: %s", body, got)
	}
	for _, body := range []string{"nul", "[]", `"x"`, "null null", "\u00a0", "\v", "\f", "\u0085"} { // not JSON's white space
		resp, err := client.Post(srv.URL+"/tools/hello/invoke", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "body %q", body)
	}
}
