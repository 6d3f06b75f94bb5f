package catalogueapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

func TestPutBundleCreatesThenReplaces(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := newID(t)
	r := e.do("PUT", "/bundles/"+id.String(), bundleBody("weather", true))
	require.Equal(t, http.StatusCreated, r.status, "%s", r.raw)
	assert.Equal(t, id.String(), r.body["id"])
	assert.Equal(t, "weather", r.body["slug"])
	assert.Equal(t, "Bundle weather", r.body["displayName"])
	assert.Equal(t, true, r.body["isEnabled"])
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	created := r.body["createdAt"]

	r = e.do("PUT", "/bundles/"+id.String(), bundleBody("weather2", false))
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.Equal(t, "weather2", r.body["slug"])
	assert.Equal(t, false, r.body["isEnabled"])
	assert.Equal(t, created, r.body["createdAt"], "createdAt is immutable")
}

func TestPutBundleReportsEveryFieldError(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	r := e.do("PUT", "/bundles/not-a-uuid", `{"slug":"bad slug","isEnabled":"yes","extra":1}`)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Equal(t, "invalid_input", r.errType())
	assert.Equal(t, false, r.body["ok"])
	f := r.fields()
	for _, want := range []string{"bundleID", "slug", "displayName", "isEnabled", "extra"} {
		assert.Contains(t, f, want)
	}
}

func TestPatchBundleTogglesEnabled(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	r := e.do("PATCH", "/bundles/"+id.String(), `{"isEnabled":false}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.Equal(t, false, r.body["isEnabled"])
	r = e.do("PATCH", "/bundles/"+id.String(), `{"isEnabled":true,"slug":"x"}`)
	require.Equal(t, http.StatusBadRequest, r.status, "only isEnabled may be patched")
	assert.Contains(t, r.fields(), "slug")
	r = e.do("PATCH", "/bundles/"+newID(t).String(), `{"isEnabled":true}`)
	assert.Equal(t, http.StatusNotFound, r.status)
}

func TestDeleteBundleSoftDeletes(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	r := e.do("DELETE", "/bundles/"+id.String(), "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.NotEmpty(t, r.body["softDeletedAt"])
	list := e.listAll("/bundles?includeDisabled=true", "bundles", 10, nil)
	assert.NotContains(t, list, id.String(), "a soft-deleted bundle is not listed")
	r = e.do("PUT", toolPath(id, "t", "1"), toolBody("T", "echo", true))
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Equal(t, "bundle_deleted", r.errType())
	r = e.do("DELETE", "/bundles/"+newID(t).String(), "")
	assert.Equal(t, http.StatusNotFound, r.status)
}

func TestListBundlesFiltersAndPages(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	a, b, c := e.bundle("a"), e.bundle("b"), e.bundle("c")
	r := e.do("PATCH", "/bundles/"+c.String(), `{"isEnabled":false}`)
	require.Equal(t, http.StatusOK, r.status)

	got := e.listAll("/bundles", "bundles", 1, nil)
	assert.ElementsMatch(t, []string{a.String(), b.String()}, got, "disabled bundles are left out by default")
	got = e.listAll("/bundles?includeDisabled=true", "bundles", 2, nil)
	assert.ElementsMatch(t, []string{a.String(), b.String(), c.String()}, got)
	got = e.listAll("/bundles?includeDisabled=true&bundleIDs="+a.String()+","+c.String(), "bundles", 5, nil)
	assert.ElementsMatch(t, []string{a.String(), c.String()}, got)
	got = e.listAll("/bundles?bundleIDs="+a.String()+"&bundleIDs="+b.String(), "bundles", 5, nil)
	assert.ElementsMatch(t, []string{a.String(), b.String()}, got, "repeated bundleIDs")

	r = e.do("GET", "/bundles?pageSize=50", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Nil(t, r.body["nextPageToken"], "no token on the last page")
}

func TestWritesIntoDisabledBundleAre409(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "t", "1", toolBody("T", "echo", true))
	require.Equal(t, http.StatusOK, e.do("PATCH", "/bundles/"+id.String(), `{"isEnabled":false}`).status)

	r := e.do("PUT", toolPath(id, "t", "2"), toolBody("T", "echo", true))
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Equal(t, "bundle_disabled", r.errType())
	r = e.do("PATCH", toolPath(id, "t", "1"), `{"isEnabled":false}`)
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Equal(t, "bundle_disabled", r.errType())
}

func TestBuiltInMutationIs403(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("core")
	e.tool(id, "read", "1", toolBody("Read", "echo", true))
	markBuiltIn(t, e.bundleFile(id))
	files := e.toolFiles(id)
	require.Len(t, files, 1)
	markBuiltIn(t, files[0])

	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/bundles/" + id.String(), bundleBody("core", true)},
		{"DELETE", "/bundles/" + id.String(), ""},
		{"PUT", toolPath(id, "write", "1"), toolBody("Write", "echo", true)},
		{"DELETE", toolPath(id, "read", "1"), ""},
	} {
		r := e.do(c.method, c.path, c.body)
		assert.Equal(t, http.StatusForbidden, r.status, "%s %s: %s", c.method, c.path, r.raw)
		assert.Equal(t, "built_in", r.errType())
	}
	r := e.do("PATCH", toolPath(id, "read", "1"), `{"isEnabled":false}`)
	assert.Equal(t, http.StatusOK, r.status, "isEnabled of a built-in tool may change: %s", r.raw)
	r = e.do("PATCH", "/bundles/"+id.String(), `{"isEnabled":false}`)
	assert.Equal(t, http.StatusOK, r.status, "isEnabled of a built-in bundle may change: %s", r.raw)
	r = e.do("GET", toolPath(id, "read", "1"), "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "Read", r.body["displayName"], "the built-in tool is unchanged")
}
