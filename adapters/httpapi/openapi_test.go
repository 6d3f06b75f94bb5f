package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// fetchDoc returns GET /openapi.json of srv.
func fetchDoc(t *testing.T, base string) []byte {
	t.Helper()
	r := do(t, http.MethodGet, base+"/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return r.Body
}

// requireValidDocument fails t unless doc is a valid OpenAPI document
// (every problem reported), and returns its validator.
func requireValidDocument(t *testing.T, doc []byte) validator.Validator {
	t.Helper()
	v := newValidator(t, doc)
	ok, errs := v.ValidateDocument()
	for _, e := range errs {
		t.Errorf("%s: %s", e.Message, e.Reason)
	}
	require.True(t, ok)
	return v
}

// newValidator parses doc with libopenapi and builds a validator for it.
func newValidator(t *testing.T, doc []byte) validator.Validator {
	t.Helper()
	d, err := libopenapi.NewDocument(doc)
	require.NoError(t, err)
	v, errs := validator.NewValidator(d)
	require.Empty(t, errs)
	return v
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{Title: "test tools", Version: "1.2.3", ServerURL: "http://127.0.0.1/"})
	doc := fetchDoc(t, srv.URL)
	requireValidDocument(t, doc)

	var top struct {
		OpenAPI string
		Info    struct{ Title, Version string }
		Servers []struct{ URL string }
	}
	require.NoError(t, json.Unmarshal(doc, &top))
	require.Equal(t, "3.1.0", top.OpenAPI)
	require.Equal(t, "test tools", top.Info.Title)
	require.Equal(t, "1.2.3", top.Info.Version)
	require.Equal(t, "http://127.0.0.1/", top.Servers[0].URL)
}

// TestOpenAPIValidatorCatchesInvalidDocument is the negative control: the
// validator used above does reject a broken document.
func TestOpenAPIValidatorCatchesInvalidDocument(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	var doc map[string]any
	require.NoError(t, json.Unmarshal(fetchDoc(t, srv.URL), &doc))
	doc["openapi"] = "3.1.0"
	delete(doc["info"].(map[string]any), "title")
	doc["paths"].(map[string]any)["/tools"].(map[string]any)["get"].(map[string]any)["operationId"] = 5
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	ok, errs := newValidator(t, b).ValidateDocument()
	require.False(t, ok)
	require.NotEmpty(t, errs)
}

type oaOp struct {
	OperationID string `json:"operationId"`
	Summary     string
	Description string
	Tags        []string
	RequestBody struct {
		Content map[string]struct{ Schema json.RawMessage }
	} `json:"requestBody"`
	Responses map[string]struct {
		Content map[string]struct{ Schema json.RawMessage }
	}
}

func TestOpenAPIOneOperationPerTool(t *testing.T) {
	srv, reg := newServer(t, httpapi.Options{})
	var doc struct {
		Paths map[string]map[string]oaOp
	}
	require.NoError(t, json.Unmarshal(fetchDoc(t, srv.URL), &doc))

	tools := reg.List()
	require.Len(t, doc.Paths, len(tools)+4, "one path per tool plus /tools, /tools/{name}, /tools/{name}/invoke, /openapi.json")
	assert.Equal(t, httpapi.OpInvokeTool, doc.Paths["/tools/{name}/invoke"]["post"].OperationID)
	assert.Equal(t, httpapi.OpListTools, doc.Paths["/tools"]["get"].OperationID)
	assert.Equal(t, httpapi.OpDescribeTool, doc.Paths["/tools/{name}"]["get"].OperationID)
	assert.Equal(t, httpapi.OpOpenAPI, doc.Paths["/openapi.json"]["get"].OperationID)

	for _, tool := range tools {
		item := doc.Paths["/tools/"+tool.Name+"/invoke"]
		require.Len(t, item, 1, tool.Name)
		op := item["post"]
		assert.Equal(t, tool.Name, op.OperationID)
		assert.Equal(t, tool.Title, op.Summary)
		assert.Equal(t, tool.Description, op.Description)
		assert.JSONEq(t, string(tool.InputSchema), string(op.RequestBody.Content["application/json"].Schema), tool.Name)
		if tool.Pack != "" {
			assert.Equal(t, []string{tool.Pack}, op.Tags)
		}

		var ok struct {
			Properties map[string]json.RawMessage
			Required   []string
		}
		require.NoError(t, json.Unmarshal(op.Responses["200"].Content["application/json"].Schema, &ok))
		assert.ElementsMatch(t, []string{"ok", "value"}, ok.Required)
		want := `{}`
		if len(tool.OutputSchema) > 0 {
			want = string(tool.OutputSchema)
		}
		assert.JSONEq(t, want, string(ok.Properties["value"]), tool.Name)

		// Every status of the table, plus the HTTP-level ones, has the
		// error envelope.
		statuses := []int{400, 404, 413, 415, 422, 500, 504}
		for _, row := range httpapi.ErrorStatuses() {
			statuses = append(statuses, row.Status)
		}
		for _, s := range statuses {
			resp, has := op.Responses[strconv.Itoa(s)]
			require.True(t, has, "%s lacks status %d", tool.Name, s)
			assert.JSONEq(t, `{"$ref":"#/components/schemas/ErrorEnvelope"}`, string(resp.Content["application/json"].Schema))
		}
	}
}

// TestOpenAPIResponsesValidate sends real requests and validates each real
// response (status, content type, body) against the served document.
func TestOpenAPIResponsesValidate(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{MaxBodyBytes: 2048})
	v := newValidator(t, fetchDoc(t, srv.URL))

	type call struct {
		name, method, path, ct, body string
		status                       int
	}
	calls := []call{
		{"list", "GET", "/tools", "", "", 200},
		{"list filtered", "GET", "/tools?pack=text&q=a", "", "", 200},
		{"list bad query", "GET", "/tools?x=1", "", "", 400},
		{"describe", "GET", "/tools/search", "", "", 200},
		{"describe no output schema", "GET", "/tools/echo", "", "", 200},
		{"describe unknown", "GET", "/tools/nope", "", "", 404},
		{"invoke structured", "POST", "/tools/search/invoke", "application/json", goodSearch, 200},
		{"invoke string", "POST", "/tools/echo/invoke", "application/json", `{"text":"hi"}`, 200},
		{"invoke validation", "POST", "/tools/search/invoke", "application/json", `{"limit":0}`, 400},
		{"invoke unknown", "POST", "/tools/nope/invoke", "application/json", `{}`, 404},
		{"invoke 415", "POST", "/tools/search/invoke", "text/plain", goodSearch, 415},
		{"invoke 413", "POST", "/tools/echo/invoke", "application/json", `{"text":"` + strings.Repeat("a", 4096) + `"}`, 413},
		{"invoke 500", "POST", "/tools/boom/invoke", "application/json", `{}`, 500},
		{"invoke 504", "POST", "/tools/slow/invoke", "application/json", `{}`, 504},
		{"openapi", "GET", "/openapi.json", "", "", 200},
	}
	for _, row := range append(httpapi.ErrorStatuses(), httpapi.ErrorStatus{Type: "custom_kind", Status: 422}) {
		calls = append(calls, call{"fail " + string(row.Type), "POST", "/tools/fail/invoke", "application/json", `{"type":"` + string(row.Type) + `"}`, row.Status})
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			require.NoError(t, err)
			if c.ct != "" {
				req.Header.Set("Content-Type", c.ct)
			}
			resp, err := client.Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, c.status, resp.StatusCode, "%s", body)
			resp.Body = io.NopCloser(bytes.NewReader(body))

			vreq, err := http.NewRequest(c.method, c.path, strings.NewReader(c.body))
			require.NoError(t, err)
			if c.ct != "" {
				vreq.Header.Set("Content-Type", c.ct)
			}
			ok, errs := v.ValidateHttpResponse(vreq, resp)
			for _, e := range errs {
				t.Errorf("%s: %s (%v)", e.Message, e.Reason, e.SchemaValidationErrors)
			}
			require.True(t, ok, "%s", body)
		})
	}
}

// TestOpenAPIResponseValidationCatchesMismatch is the negative control: a
// success body that breaks the tool's output schema, or an error body that
// breaks the envelope, is rejected by the same validator.
func TestOpenAPIResponseValidationCatchesMismatch(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	v := newValidator(t, fetchDoc(t, srv.URL))
	for _, tc := range []struct {
		status int
		body   string
	}{
		{200, `{"ok":true,"value":{"query":1,"hits":"many","tags":0}}`},
		{200, `{"ok":false,"value":{"query":"Q","hits":1,"tags":0}}`},
		{400, `{"ok":false,"error_type":"validation_error"}`},
		{422, `{"ok":true,"error":"x","error_type":"y"}`},
	} {
		req := httptest.NewRequest(http.MethodPost, "/tools/search/invoke", strings.NewReader(goodSearch))
		req.Header.Set("Content-Type", "application/json")
		resp := &http.Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(tc.body)), Request: req}
		ok, errs := v.ValidateHttpResponse(req, resp)
		require.False(t, ok, "%d %s should not validate", tc.status, tc.body)
		require.NotEmpty(t, errs)
	}
}

// TestOpenAPIFollowsRegistryChanges proves the cached document is rebuilt
// when tools are added or removed.
func TestOpenAPIFollowsRegistryChanges(t *testing.T) {
	srv, reg := newServer(t, httpapi.Options{})
	hasPath := func(p string) bool {
		var doc struct{ Paths map[string]any }
		require.NoError(t, json.Unmarshal(fetchDoc(t, srv.URL), &doc))
		_, ok := doc.Paths[p]
		return ok
	}
	require.False(t, hasPath("/tools/late/invoke"))
	require.False(t, hasPath("/tools/late/invoke"), "served from the cache")
	late, err := registry.Func("late", func(_ context.Context, _ NoArgs) (result.Result[string], error) {
		return result.Ok("here"), nil
	}, registry.ToolOptions{Doc: "Added at run time."})
	require.NoError(t, err)
	require.NoError(t, reg.Add(late))
	require.True(t, hasPath("/tools/late/invoke"))
	r := invoke(t, srv.URL, "late", `{}`)
	require.Equal(t, "here", r.JSON["value"])

	require.NoError(t, reg.Remove("ping"))
	require.False(t, hasPath("/tools/ping/invoke"))
	requireError(t, invoke(t, srv.URL, "ping", `{}`), http.StatusNotFound, "unknown_tool")
}

func TestOpenAPIRejectsQuery(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	requireError(t, do(t, http.MethodGet, srv.URL+"/openapi.json?format=yaml", "", nil), http.StatusBadRequest, "invalid_parameter")
}

// TestConcurrentUse runs invokes, listings and document fetches while tools
// are added and removed (run with -race): every answer is a documented one
// and the final document lists exactly the final tools.
func TestConcurrentUse(t *testing.T) {
	srv, reg := newServer(t, httpapi.Options{})
	done := make(chan struct{})
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			var ferr error
			defer func() { errs <- ferr }()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				var (
					resp *http.Response
					err  error
				)
				switch (w + i) % 3 {
				case 0:
					resp, err = client.Post(srv.URL+"/tools/search/invoke", "application/json", strings.NewReader(goodSearch))
				case 1:
					resp, err = client.Get(srv.URL + "/openapi.json")
				default:
					resp, err = client.Get(srv.URL + "/tools")
				}
				if err != nil {
					ferr = err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					ferr = fmt.Errorf("%s: status %d", resp.Request.URL.Path, resp.StatusCode)
					return
				}
			}
		}()
	}
	for i := range 20 {
		name := "dyn" + strconv.Itoa(i)
		tool, err := registry.Func(name, func(_ context.Context, _ NoArgs) (result.Result[string], error) {
			return result.Ok(name), nil
		}, registry.ToolOptions{Doc: "Dynamic."})
		require.NoError(t, err)
		require.NoError(t, reg.Add(tool))
		if i%2 == 0 {
			require.NoError(t, reg.Remove(name))
		}
	}
	close(done)
	for range 4 {
		require.NoError(t, <-errs)
	}
	var doc struct{ Paths map[string]any }
	require.NoError(t, json.Unmarshal(fetchDoc(t, srv.URL), &doc))
	for i := range 20 {
		_, has := doc.Paths["/tools/dyn"+strconv.Itoa(i)+"/invoke"]
		require.Equal(t, i%2 == 1, has, "dyn%d", i)
	}
}

// A tool schema with local references — "$defs" and "$ref", as remote MCP
// servers' and catalogue tools' schemas often have, a recursive one
// included — gives a document whose references resolve: it is moved to
// components/schemas with its references rebased. Requests and responses
// are then checked against the referenced definitions.
func TestOpenAPILocalRefsResolve(t *testing.T) {
	tool := &registry.Tool{Name: "tree.walk", Pack: "tree", Description: "Walks a tree.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"root":{"$ref":"#/$defs/Node"},
			"opts":{"$ref":"#/definitions/Opts"}},
			"required":["root"],
			"$defs":{"Node":{"type":"object","properties":{"n":{"type":"integer"},"next":{"$ref":"#/$defs/Node"}},"required":["n"]}},
			"definitions":{"Opts":{"type":"object","properties":{"deep":{"type":"boolean"}}}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"count":{"$ref":"#/$defs/Count"}},"required":["count"],
			"$defs":{"Count":{"type":"integer","minimum":0}}}`),
		Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return result.Ok[any](map[string]any{"count": 1}), nil
		}}
	plain := &registry.Tool{Name: "plain", Description: "No references.", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`),
		Handler: func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any]("ok"), nil }}
	doc, err := httpapi.BuildOpenAPI([]*registry.Tool{tool, plain}, httpapi.DocOptions{})
	require.NoError(t, err)
	v := requireValidDocument(t, doc)

	var parsed struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct{ Schemas map[string]map[string]any }
	}
	require.NoError(t, json.Unmarshal(doc, &parsed))
	in := parsed.Components.Schemas["tree.walk.input"]
	require.NotNil(t, in, "the schema with references is a component")
	props := in["properties"].(map[string]any)
	assert.Equal(t, "#/components/schemas/tree.walk.input/$defs/Node", props["root"].(map[string]any)["$ref"])
	assert.Equal(t, "#/components/schemas/tree.walk.input/definitions/Opts", props["opts"].(map[string]any)["$ref"])
	assert.Contains(t, string(parsed.Paths["/tools/tree.walk/invoke"]["post"]), `{"$ref":"#/components/schemas/tree.walk.input"}`)
	assert.Contains(t, parsed.Components.Schemas, "tree.walk.output")
	assert.NotContains(t, parsed.Components.Schemas, "plain.input", "a schema without references stays inline")
	assert.Contains(t, string(parsed.Paths["/tools/plain/invoke"]["post"]), `"x":{"type":"string"}`)

	check := func(body string, want bool) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, "/tools/tree.walk/invoke", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		ok, errs := v.ValidateHttpRequest(req)
		assert.Equal(t, want, ok, "request %s: %v", body, errs)
	}
	check(`{"root":{"n":1,"next":{"n":2}},"opts":{"deep":true}}`, true)
	check(`{"root":{"n":1,"next":{"n":"two"}}}`, false) // through the recursive reference
	check(`{"root":{"n":1},"opts":{"deep":"yes"}}`, false)
	check(`{"root":{}}`, false)

	respond := func(body string, want bool) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, "/tools/tree.walk/invoke", strings.NewReader(`{"root":{"n":1}}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req}
		ok, errs := v.ValidateHttpResponse(req, resp)
		assert.Equal(t, want, ok, "response %s: %v", body, errs)
	}
	respond(`{"ok":true,"value":{"count":3}}`, true)
	respond(`{"ok":true,"value":{"count":-1}}`, false)
}

// A tool schema whose references cannot be followed — one that loops
// through references alone, or names a definition that is not there (a
// remote server's tool through the proxy can have either) — cannot break
// the document for every other tool: that tool's schema is described as
// not shown, and why, and the document stays valid.
func TestOpenAPIUnfollowableRefsKeepTheDocumentValid(t *testing.T) {
	handler := func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any]("ok"), nil }
	tools := []*registry.Tool{
		{Name: "loop", Description: "Loops.", Handler: handler,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`)},
		{Name: "self", Description: "Refers to itself.", Handler: handler,
			InputSchema: json.RawMessage(`{"$ref":"#"}`)},
		{Name: "dangling", Description: "Refers to nothing.", Handler: handler,
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"#/$defs/Missing"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"$ref":"#/properties/none"}}}`)},
		{Name: "fine", Description: "Recursive through a property.", Handler: handler,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"next":{"$ref":"#"}}}`)},
	}
	doc, err := httpapi.BuildOpenAPI(tools, httpapi.DocOptions{})
	require.NoError(t, err)
	requireValidDocument(t, doc)
	var parsed struct {
		Paths map[string]struct {
			Post struct {
				RequestBody struct {
					Content map[string]struct{ Schema map[string]any }
				}
				Responses map[string]struct {
					Content map[string]struct{ Schema map[string]any }
				}
			}
		}
		Components struct{ Schemas map[string]map[string]any }
	}
	require.NoError(t, json.Unmarshal(doc, &parsed))
	input := func(tool string) map[string]any {
		return parsed.Paths["/tools/"+tool+"/invoke"].Post.RequestBody.Content["application/json"].Schema
	}
	const notShown = "The tool's schema is not shown: the reference "
	assert.Regexp(t, `^`+notShown+`"#/\$defs/(A|B)" leads back to itself through references alone \(#/\$defs/(A → #/\$defs/B → #/\$defs/A|B → #/\$defs/A → #/\$defs/B)\)\.$`,
		input("loop")["description"])
	assert.Equal(t, map[string]any{"description": notShown + `"#" leads back to itself through references alone (# → #).`}, input("self"))
	assert.Equal(t, map[string]any{"description": notShown + `"#/$defs/Missing" points at no schema.`}, input("dangling"))
	out := parsed.Paths["/tools/dangling/invoke"].Post.Responses["200"].Content["application/json"].Schema["properties"].(map[string]any)["value"]
	assert.Equal(t, map[string]any{"description": notShown + `"#/properties/none" points at no schema.`}, out)
	assert.Equal(t, map[string]any{"$ref": "#/components/schemas/fine.input"}, input("fine"), "recursion through a property is shown")
	assert.Equal(t, map[string]any{"$ref": "#/components/schemas/fine.input"}, parsed.Components.Schemas["fine.input"]["properties"].(map[string]any)["next"])
	for _, name := range []string{"loop.input", "self.input", "dangling.input", "dangling.output"} {
		assert.NotContains(t, parsed.Components.Schemas, name)
	}
}
