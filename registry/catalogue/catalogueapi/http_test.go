package catalogueapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

func TestOversizedBodyIs413(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "t", "1", toolBody("T", "echo", true))
	big := func(n int) string { return `{"displayName":"` + strings.Repeat("x", n) + `"}` }
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/bundles/" + id.String(), big(catalogue.MaxBundleBodyBytes)},
		{"PATCH", "/bundles/" + id.String(), big(catalogue.MaxPatchBodyBytes)},
		{"PUT", toolPath(id, "t", "2"), big(catalogue.MaxToolBodyBytes)},
		{"PATCH", toolPath(id, "t", "1"), big(catalogue.MaxPatchBodyBytes)},
		{"POST", toolPath(id, "t", "1") + "/invoke", big(catalogueapi.MaxInvokeBodyBytes)},
	} {
		r := e.do(c.method, c.path, c.body)
		assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "%s %s", c.method, c.path)
		assert.Equal(t, "payload_too_large", r.errType())
	}
}

func TestOversizedChunkedBodyIs413(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := newID(t)
	// No Content-Length: the cap holds while reading.
	req := httptest.NewRequest("PUT", "/bundles/"+id.String(), struct{ *strings.Reader }{strings.NewReader(strings.Repeat(" ", catalogue.MaxBundleBodyBytes+10))})
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
}

func TestNonJSONContentTypeIs415(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := newID(t)
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/jsonx", "multipart/form-data; boundary=x"} {
		r := e.doCT("PUT", "/bundles/"+id.String(), bundleBody("b", true), ct)
		assert.Equal(t, http.StatusUnsupportedMediaType, r.status, "%q", ct)
		assert.Equal(t, "unsupported_media_type", r.errType())
	}
	r := e.doCT("PUT", "/bundles/"+id.String(), bundleBody("b", true), "application/json; charset=utf-8")
	assert.Equal(t, http.StatusCreated, r.status, "parameters of application/json are fine")
}

func TestWrongMethodIs405WithAllow(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := newID(t).String()
	for _, c := range []struct{ method, path, allow string }{
		{"POST", "/bundles", "GET"},
		{"GET", "/bundles/" + id, "PUT, PATCH, DELETE"},
		{"POST", "/bundles/" + id + "/tools/t/version/1", "GET, PUT, PATCH, DELETE"},
		{"GET", "/bundles/" + id + "/tools/t/version/1/invoke", "POST"},
		{"DELETE", "/tools", "GET"},
		{"PUT", "/tools/search", "GET"},
	} {
		r := e.do(c.method, c.path, "")
		assert.Equal(t, http.StatusMethodNotAllowed, r.status, "%s %s", c.method, c.path)
		assert.Equal(t, c.allow, r.header.Get("Allow"), "%s %s", c.method, c.path)
		assert.Equal(t, "method_not_allowed", r.errType())
	}
}

func TestUnknownRouteIs404(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := newID(t).String()
	for _, p := range []string{"/", "/bundle", "/bundles/", "/bundles/" + id + "/tools", "/bundles/" + id + "/tools/t/version",
		"/bundles/" + id + "/tools/t/version/1/call", "/tools/search/x", "/bundles//tools/t/version/1"} {
		r := e.do("GET", p, "")
		assert.Equal(t, http.StatusNotFound, r.status, p)
		assert.Equal(t, "not_found", r.errType(), p)
	}
}

func TestHostileDisplayNameRoundTripsEscaped(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := newID(t)
	name := `<script>alert("x")</script> & 'quotes'`
	r := e.do("PUT", "/bundles/"+id.String(), fmt.Sprintf(`{"slug":"b","displayName":%q,"isEnabled":true}`, name))
	require.Equal(t, http.StatusCreated, r.status, "%s", r.raw)
	assert.NotContains(t, string(r.raw), "<script>", "HTML-significant characters are escaped in JSON")
	assert.Contains(t, string(r.raw), `\u003cscript\u003e`)
	assert.Equal(t, name, r.body["displayName"], "and decode back to the same text")
	assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"))
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))

	e.tool(id, "t", "1", toolBody(name, "echo", true))
	r = e.do("GET", toolPath(id, "t", "1"), "")
	assert.Equal(t, name, r.body["displayName"])
	assert.NotContains(t, string(r.raw), "<script>")
}

func TestPathTraversalInSlugsIsRefused(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	for _, c := range []struct{ slug, version, field string }{
		{"..%2F..%2Fetc", "1", "toolSlug"},
		{"..", "1", ""}, // a literal ".." segment is cleaned by the host's mux (a redirect), never reaches the store
		{"t", "..", ""},
		{"%2E%2E", "1", "toolSlug"},
		{"t", "..%2Fbundle.json", "version"},
		{"a%5Cb", "1", "toolSlug"},
		{"%00", "1", "toolSlug"},
		{"t", "1%2F..%2F..", "version"},
	} {
		r := e.do("PUT", "/bundles/"+id.String()+"/tools/"+c.slug+"/version/"+c.version, toolBody("T", "echo", true))
		if c.field == "" {
			assert.Less(t, r.status, 500, "%s/%s", c.slug, c.version)
			continue
		}
		assert.Equal(t, http.StatusBadRequest, r.status, "%s/%s: %s", c.slug, c.version, r.raw)
		assert.Contains(t, r.fields(), c.field, "%s/%s", c.slug, c.version)
	}
	// A ".." segment that reaches the handler unchanged (no cleaning mux
	// in front) is refused as a slug.
	rec := serve(e.h, "PUT", "/bundles/"+id.String()+"/tools/../version/1", toolBody("T", "echo", true))
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Contains(t, rec.Body.String(), `"toolSlug"`)
	for _, f := range e.toolFiles(id) {
		assert.Contains(t, f, e.dir, "nothing written outside the store")
	}
}

// TestBadInputNeverAnswers500 sends malformed ids, slugs, versions,
// query parameters and bodies to every route: each answers 4xx.
func TestBadInputNeverAnswers500(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "t", "1", toolBody("T", "echo", true))
	ids := id.String()
	v4 := "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	tp := toolPath(id, "t", "1")
	cases := []struct{ method, path, body string }{
		{"PUT", "/bundles/" + v4, bundleBody("b", true)},
		{"PUT", "/bundles/zzzz", bundleBody("b", true)},
		{"PUT", "/bundles/" + strings.Repeat("a", 5000), bundleBody("b", true)},
		{"PUT", "/bundles/" + ids, `{`},
		{"PUT", "/bundles/" + ids, `null`},
		{"PUT", "/bundles/" + ids, `[]`},
		{"PUT", "/bundles/" + ids, `{"slug":1,"displayName":[],"isEnabled":null}`},
		{"PUT", "/bundles/" + ids, `{"slug":"b","slug":"c","displayName":"x","isEnabled":true}`},
		{"PUT", "/bundles/" + ids, strings.Repeat("[", 10000)},
		{"PUT", "/bundles/" + ids, "\xff\xfe"},
		{"PATCH", "/bundles/" + ids, `{"isEnabled":"true"}`},
		{"PATCH", "/bundles/" + v4, `{"isEnabled":true}`},
		{"DELETE", "/bundles/00000000-0000-0000-0000-000000000000", ""},
		{"PUT", "/bundles/" + ids + "/tools/" + strings.Repeat("a", 65) + "/version/1", toolBody("T", "echo", true)},
		{"PUT", "/bundles/" + ids + "/tools/t/version/" + strings.Repeat("1", 65), toolBody("T", "echo", true)},
		{"PUT", "/bundles/" + ids + "/tools/t%20t/version/1", toolBody("T", "echo", true)},
		{"PUT", "/bundles/" + ids + "/tools/t_t/version/1", toolBody("T", "echo", true)},
		{"PUT", "/bundles/" + ids + "/tools/t/version/2", `{"displayName":"T","isEnabled":true,"type":"http","argSchema":{"type":"object","$ref":"http://evil.test/x"},"httpImpl":{"request":{"method":"GET","urlTemplate":"file:///etc/passwd"}}}`},
		{"PUT", "/bundles/" + ids + "/tools/t/version/2", `{"displayName":"T","isEnabled":true,"type":"go","argSchema":{"type":"object","properties":{"a":{"pattern":"("}}},"goImpl":{"func":"f"}}`},
		{"PATCH", tp, `{"isEnabled":1}`},
		{"GET", "/bundles/" + ids + "/tools/%ff/version/1", ""},
		{"DELETE", "/bundles/" + v4 + "/tools/t/version/1", ""},
		{"POST", tp + "/invoke", `{"args":"x"}`},
		{"POST", tp + "/invoke", `{"args":{"q":` + strings.Repeat("[", 100000) + `}}`},
		{"POST", tp + "/invoke", `{"args":{"q":1e999999}}`},
		{"GET", "/bundles?pageSize=abc", ""},
		{"GET", "/bundles?pageSize=99999999999999999999999999", ""},
		{"GET", "/bundles?pageSize=-1", ""},
		{"GET", "/bundles?pageSize=0", ""},
		{"GET", "/bundles?pageSize=1&pageSize=2", ""},
		{"GET", "/bundles?bundleIDs=x,,y", ""},
		{"GET", "/bundles?bundleIDs=" + strings.Repeat(ids+",", 200), ""},
		{"GET", "/bundles?includeDisabled=yes", ""},
		{"GET", "/bundles?pageToken=", ""},
		{"GET", "/bundles?%zz=1", ""},
		{"GET", "/bundles?x=" + strings.Repeat("a", catalogueapi.MaxQueryBytes), ""},
		{"GET", "/tools?recommendedPageSize=abc", ""},
		{"GET", "/tools?recommendedPageSize=0", ""},
		{"GET", "/tools?tags=" + strings.Repeat("a", 65), ""},
		{"GET", "/tools?" + strings.Repeat("tags=a&", 40), ""},
		{"GET", "/tools?pageSize=5", ""},
		{"GET", "/tools/search?q=a&pageSize=1e3", ""},
		{"GET", "/tools/search?q=a&pageToken=%00", ""},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, c.body)
		p := c.path
		if len(p) > 80 {
			p = p[:80]
		}
		assert.GreaterOrEqual(t, r.status, 400, "%s %s", c.method, p)
		assert.Less(t, r.status, 500, "%s %s: %s", c.method, p, r.raw)
		assert.Equal(t, false, r.body["ok"], "%s %s: a JSON error body", c.method, p)
	}
}

func TestMountedUnderToolsWithStripPrefix(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{}) // newEnv mounts with http.StripPrefix("/tools", h)
	id := e.bundle("b")
	e.tool(id, "t", "1", toolBody("T", "echo", true))
	r := e.do("GET", "/tools", "") // i.e. GET /tools/tools on the host
	require.Equal(t, http.StatusOK, r.status)
	assert.Len(t, r.body["tools"], 1)
	r = e.do("GET", "/tools/search?q=t", "") // GET /tools/tools/search
	require.Equal(t, http.StatusOK, r.status)
	assert.Len(t, r.body["tools"], 1)
}

func TestToolLimitIs422(t *testing.T) {
	st, err := catalogue.OpenFileStore(t.Context(), t.TempDir(), catalogue.FileOptions{ReapInterval: -1, MaxToolsPerBundle: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	h, err := catalogueapi.New(catalogueapi.Options{Store: st})
	require.NoError(t, err)
	id := newID(t)
	require.Equal(t, http.StatusCreated, serve(h, "PUT", "/bundles/"+id.String(), bundleBody("b", true)).Code)
	require.Equal(t, http.StatusCreated, serve(h, "PUT", toolPath(id, "a", "1"), toolBody("A", "echo", true)).Code)
	rec := serve(h, "PUT", toolPath(id, "b", "1"), toolBody("B", "echo", true))
	assert.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	assert.Contains(t, rec.Body.String(), `"limit_reached"`)
}

func TestClosedStoreIs503(t *testing.T) {
	st, err := catalogue.OpenFileStore(t.Context(), t.TempDir(), catalogue.FileOptions{ReapInterval: -1})
	require.NoError(t, err)
	h, err := catalogueapi.New(catalogueapi.Options{Store: st})
	require.NoError(t, err)
	require.NoError(t, st.Close())
	for _, p := range []string{"/bundles", "/tools", "/tools/search?q=x", toolPath(newID(t), "a", "1")} {
		rec := serve(h, "GET", p, "")
		assert.Equal(t, http.StatusServiceUnavailable, rec.Code, p)
		assert.Contains(t, rec.Body.String(), `"unavailable"`, p)
	}
}
