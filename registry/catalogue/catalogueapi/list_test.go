package catalogueapi_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

func TestListToolsFilters(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	a, b := e.bundle("a"), e.bundle("b")
	e.tool(a, "x", "1", toolBody("X", "echo", true, "red"))
	e.tool(a, "y", "1", toolBody("Y", "echo", false, "blue"))
	e.tool(b, "z", "1", toolBody("Z", "echo", true, "blue", "red"))
	e.tool(b, "w", "1", toolBody("W", "echo", true))

	assert.ElementsMatch(t, []string{"x@1", "z@1", "w@1"}, e.listAll("/tools", "tools", 2, nil))
	assert.ElementsMatch(t, []string{"x@1", "y@1", "z@1", "w@1"}, e.listAll("/tools?includeDisabled=true", "tools", 3, nil))
	assert.ElementsMatch(t, []string{"z@1"}, e.listAll("/tools?tags=blue", "tools", 3, nil))
	assert.ElementsMatch(t, []string{"y@1", "z@1"}, e.listAll("/tools?tags=blue&includeDisabled=true", "tools", 3, nil))
	assert.ElementsMatch(t, []string{"x@1", "z@1"}, e.listAll("/tools?tags=red&tags=blue", "tools", 1, nil))
	assert.ElementsMatch(t, []string{"z@1", "w@1"}, e.listAll("/tools?bundleIDs="+b.String(), "tools", 5, nil))

	require.Equal(t, http.StatusOK, e.do("PATCH", "/bundles/"+b.String(), `{"isEnabled":false}`).status)
	assert.ElementsMatch(t, []string{"x@1"}, e.listAll("/tools", "tools", 5, nil), "tools of a disabled bundle are left out")
}

func TestListToolsRecommendedPageSizeIsLoweredToMax(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{MaxPageSize: 2})
	a := e.bundle("a")
	for _, s := range []string{"a", "b", "c"} {
		e.tool(a, s, "1", toolBody(s, "echo", true))
	}
	r := e.do("GET", "/tools?recommendedPageSize=1000000000000000000000000", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.Len(t, r.body["tools"], 2)
	assert.NotEmpty(t, r.body["nextPageToken"])
	r = e.do("GET", "/bundles?pageSize=3", "")
	assert.Equal(t, http.StatusBadRequest, r.status, "pageSize above the maximum is refused")
	assert.Equal(t, []string{"pageSize"}, r.fields())
}

func TestPagingNeverSkipsOrRepeatsWhileDataChanges(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	a, b := e.bundle("a"), e.bundle("b")
	for i := range 6 {
		s := "t" + strconv.Itoa(i)
		e.tool(a, s, "1", toolBody("Tool "+s, "echo", true, "k"))
		e.tool(b, s, "1", toolBody("Tool "+s, "echo", true, "k"))
	}
	n := 0
	change := func() { // add one tool and delete another between pages
		n++
		e.tool(a, "new"+strconv.Itoa(n), "1", toolBody("Tool new", "echo", true, "k"))
		require.Equal(t, http.StatusNoContent, e.do("DELETE", toolPath(b, "t"+strconv.Itoa(n), "1"), "").status)
	}
	for _, path := range []string{"/tools", "/tools/search?q=tool"} {
		n = 0
		// reset: the tools deleted by the previous round come back.
		for i := 1; i <= 5; i++ {
			_ = e.do("PUT", toolPath(b, "t"+strconv.Itoa(i), "1"), toolBody("Tool t"+strconv.Itoa(i), "echo", true, "k"))
			_ = e.do("DELETE", toolPath(a, "new"+strconv.Itoa(i), "1"), "")
		}
		got := e.listAll(path, "tools", 3, change)
		seen := map[string]int{}
		for _, g := range got {
			seen[g]++
		}
		// every tool that existed throughout is listed exactly once per bundle
		assert.Equal(t, 2, seen["t0@1"], path)
		for i := 0; i < 6; i++ {
			s := "t" + strconv.Itoa(i) + "@1"
			assert.LessOrEqual(t, seen[s], 2, "%s: %s repeated", path, s)
			assert.GreaterOrEqual(t, seen[s], 1, "%s: %s (in bundle a throughout) skipped", path, s)
		}
		for k, c := range seen {
			assert.LessOrEqual(t, c, 2, "%s: %s repeated", path, k)
		}
	}
}

func TestPageTokenTamperedIsRefused(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	a := e.bundle("a")
	for _, s := range []string{"a", "b", "c"} {
		e.tool(a, s, "1", toolBody(s, "echo", true))
	}
	r := e.do("GET", "/tools?recommendedPageSize=1", "")
	tok := r.body["nextPageToken"].(string)
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	require.NoError(t, err)
	for i := range raw { // flip each byte in turn: every change is caught
		bad := append([]byte(nil), raw...)
		bad[i] ^= 0x01
		r := e.do("GET", "/tools?recommendedPageSize=1&pageToken="+base64.RawURLEncoding.EncodeToString(bad), "")
		require.Equal(t, http.StatusBadRequest, r.status, "byte %d", i)
		require.Equal(t, []string{"pageToken"}, r.fields())
	}
	for _, bad := range []string{"x", "!!!", tok[:len(tok)-2], tok + "AA", string(make([]byte, 5000))} {
		r := e.do("GET", "/tools?pageToken="+url.QueryEscape(bad), "")
		assert.Equal(t, http.StatusBadRequest, r.status)
	}
}

func TestPageTokenReplayedWithOtherFiltersIsRefused(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	a := e.bundle("a")
	for _, s := range []string{"a", "b", "c"} {
		e.tool(a, s, "1", toolBody(s, "echo", true, "t"))
	}
	tok := e.do("GET", "/tools?recommendedPageSize=1&tags=t", "").body["nextPageToken"].(string)
	assert.Equal(t, http.StatusOK, e.do("GET", "/tools?recommendedPageSize=2&tags=t&pageToken="+tok, "").status,
		"the page size may change")
	for _, q := range []string{"tags=u", "", "tags=t&includeDisabled=true", "tags=t&bundleIDs=" + a.String()} {
		r := e.do("GET", "/tools?"+q+"&pageToken="+tok, "")
		assert.Equal(t, http.StatusBadRequest, r.status, q)
		assert.Equal(t, []string{"pageToken"}, r.fields(), q)
	}
	// nor on another route
	r := e.do("GET", "/tools/search?q=a&pageToken="+tok, "")
	assert.Equal(t, http.StatusBadRequest, r.status)
	r = e.do("GET", "/bundles?pageToken="+tok, "")
	assert.Equal(t, http.StatusBadRequest, r.status)
	// search tokens name the query
	stok := e.do("GET", "/tools/search?q=a+b+c&pageSize=1", "").body["nextPageToken"]
	if s, ok := stok.(string); ok {
		assert.Equal(t, http.StatusBadRequest, e.do("GET", "/tools/search?q=b&pageToken="+s, "").status)
	}
}

func TestPageTokenKeyFromOptions(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	e := newEnv(t, catalogueapi.Options{PageTokenKey: key})
	a := e.bundle("a")
	e.tool(a, "x", "1", toolBody("x", "echo", true))
	e.tool(a, "y", "1", toolBody("y", "echo", true))
	tok := e.do("GET", "/tools?recommendedPageSize=1", "").body["nextPageToken"].(string)

	same, err := catalogueapi.New(catalogueapi.Options{Store: e.store, PageTokenKey: key})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, serve(same, "GET", "/tools?recommendedPageSize=1&pageToken="+tok, "").Code,
		"a replica with the same key accepts the token")
	other, err := catalogueapi.New(catalogueapi.Options{Store: e.store})
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, serve(other, "GET", "/tools?recommendedPageSize=1&pageToken="+tok, "").Code,
		"a handler with its own random key refuses it")
}

func TestNewChecksOptions(t *testing.T) {
	_, err := catalogueapi.New(catalogueapi.Options{})
	require.ErrorContains(t, err, "Store")
	st, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{ReapInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	_, err = catalogueapi.New(catalogueapi.Options{Store: st, PageTokenKey: []byte("short")})
	require.ErrorContains(t, err, "PageTokenKey")
	_, err = catalogueapi.New(catalogueapi.Options{Store: st, MaxPageSize: -1})
	require.ErrorContains(t, err, "MaxPageSize")
}
