package catalogueapi_test

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

func TestOpenAPIDocumentListsEveryRoute(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	doc, err := e.h.OpenAPI()
	require.NoError(t, err)
	served := e.do("GET", "/openapi.json", "")
	require.Equal(t, http.StatusOK, served.status)
	assert.JSONEq(t, string(doc), string(served.raw), "GET /openapi.json serves the same document")

	d, err := libopenapi.NewDocument(doc)
	require.NoError(t, err)
	v, errs := validator.NewValidator(d)
	require.Empty(t, errs)
	ok, verrs := v.ValidateDocument()
	for _, ve := range verrs {
		t.Errorf("%s: %s", ve.Message, ve.Reason)
	}
	require.True(t, ok)
	model, err := d.BuildV3Model()
	require.NoError(t, err)
	assert.Equal(t, "3.1.0", model.Model.Version)

	inDoc := map[string][]string{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for m := range item.GetOperations().KeysFromOldest() {
			inDoc[path] = append(inDoc[path], strings.ToUpper(m))
		}
		slices.Sort(inDoc[path])
	}
	want := catalogueapi.RouteMethods()
	for p := range want {
		slices.Sort(want[p])
	}
	assert.Equal(t, want, inDoc, "the document and the handler serve the same routes and methods")
	for _, seed := range []string{"/bundles", "/bundles/{bundleID}", "/bundles/{bundleID}/tools/{toolSlug}/version/{version}",
		"/bundles/{bundleID}/tools/{toolSlug}/version/{version}/invoke", "/tools", "/tools/search"} {
		assert.Contains(t, inDoc, seed)
	}
}

// TestAnswersMatchTheOpenAPIDocument validates real requests and answers
// against the document's schemas.
func TestAnswersMatchTheOpenAPIDocument(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	doc, err := e.h.OpenAPI()
	require.NoError(t, err)
	d, err := libopenapi.NewDocument(doc)
	require.NoError(t, err)
	v, errs := validator.NewValidator(d)
	require.Empty(t, errs)

	id := newID(t)
	tp := toolPath(id, "echo", "1")
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/bundles/" + id.String(), bundleBody("b", true)},
		{"PUT", tp, toolBody("Echo", "echo", true, "demo")},
		{"GET", tp, ""},
		{"PATCH", tp, `{"isEnabled":true}`},
		{"POST", tp + "/invoke", `{"args":{"q":"x"}}`},
		{"GET", "/bundles?pageSize=1", ""},
		{"GET", "/tools?recommendedPageSize=1", ""},
		{"GET", "/tools/search?q=echo", ""},
		{"PUT", tp, toolBody("Echo", "echo", true)},
		{"GET", "/bundles?pageSize=abc", ""},
		{"PATCH", "/bundles/" + id.String(), `{"isEnabled":false}`},
		{"DELETE", tp, ""},
		{"DELETE", "/bundles/" + id.String(), ""},
	} {
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		req, err := http.NewRequestWithContext(t.Context(), c.method, e.url+c.path, body)
		require.NoError(t, err)
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		raw, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(raw))
		if c.body != "" {
			req.Body = io.NopCloser(strings.NewReader(c.body))
		}
		_, rerrs := v.ValidateHttpResponse(req, res)
		for _, ve := range rerrs {
			t.Errorf("%s %s → %d: %s: %s %v", c.method, c.path, res.StatusCode, ve.Message, ve.Reason, ve.SchemaValidationErrors)
		}
	}
}
