package catalogueapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

func searchSlugs(t *testing.T, e *env, q string) []string {
	t.Helper()
	r := e.do("GET", "/tools/search?"+q, "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	var out []string
	for _, it := range r.body["tools"].([]any) {
		out = append(out, it.(map[string]any)["slug"].(string))
	}
	return out
}

func TestSearchRanksPrefixThenWholeWordThenFuzzy(t *testing.T) {
	forEachSearcher(t, func(t *testing.T, newEnv func(*testing.T, catalogueapi.Options) *env) {
		e := newEnv(t, catalogueapi.Options{})
		a := e.bundle("a")
		e.tool(a, "fuzzy", "1", toolBody("Wether station", "echo", true))       // fuzzy: "wether"
		e.tool(a, "word", "1", toolBody("Local weather now", "echo", true))     // whole word of the name
		e.tool(a, "weather-now", "1", toolBody("Now", "echo", true))            // prefix of the slug
		e.tool(a, "tagged", "1", toolBody("Forecast", "echo", true, "weather")) // whole word of a tag
		e.tool(a, "other", "1", toolBody("Unrelated", "echo", true))
		got := searchSlugs(t, e, "q=weather")
		require.Len(t, got, 4, "%v", got)
		assert.Equal(t, []string{"weather-now", "word", "tagged", "fuzzy"}, got)
	})
}

func TestSearchBreaksTiesByRecency(t *testing.T) {
	forEachSearcher(t, func(t *testing.T, newEnv func(*testing.T, catalogueapi.Options) *env) {
		e := newEnv(t, catalogueapi.Options{})
		a := e.bundle("a")
		e.tool(a, "old", "1", toolBody("Report maker", "echo", true))
		time.Sleep(2 * time.Millisecond) // modifiedAt has microsecond resolution
		e.tool(a, "new", "1", toolBody("Report maker", "echo", true))
		assert.Equal(t, []string{"new", "old"}, searchSlugs(t, e, "q=report"))
	})
}

func TestSearchExcludesDisabledUnlessAsked(t *testing.T) {
	forEachSearcher(t, func(t *testing.T, newEnv func(*testing.T, catalogueapi.Options) *env) {
		e := newEnv(t, catalogueapi.Options{})
		a, b := e.bundle("a"), e.bundle("b")
		e.tool(a, "map-on", "1", toolBody("Map", "echo", true))
		e.tool(a, "map-off", "1", toolBody("Map", "echo", false))
		e.tool(b, "map-bundle-off", "1", toolBody("Map", "echo", true))
		require.Equal(t, http.StatusOK, e.do("PATCH", "/bundles/"+b.String(), `{"isEnabled":false}`).status)
		assert.Equal(t, []string{"map-on"}, searchSlugs(t, e, "q=map"))
		assert.ElementsMatch(t, []string{"map-on", "map-off", "map-bundle-off"}, searchSlugs(t, e, "q=map&includeDisabled=true"))
	})
}

func TestSearchPagesThroughEveryMatchOnce(t *testing.T) {
	forEachSearcher(t, func(t *testing.T, newEnv func(*testing.T, catalogueapi.Options) *env) {
		e := newEnv(t, catalogueapi.Options{})
		a := e.bundle("a")
		for _, s := range []string{"alpha", "alphabet", "alpine", "alps", "beta"} {
			e.tool(a, s, "1", toolBody("Tool "+s, "echo", true))
		}
		all := searchSlugs(t, e, "q=tool&pageSize=100")
		paged := e.listAll("/tools/search?q=tool", "tools", 2, nil)
		require.Len(t, paged, 5)
		for i := range all {
			assert.Equal(t, all[i]+"@1", paged[i], "paging keeps the ranked order")
		}
	})
}

func TestSearchRequiresQuery(t *testing.T) {
	forEachSearcher(t, func(t *testing.T, newEnv func(*testing.T, catalogueapi.Options) *env) {
		e := newEnv(t, catalogueapi.Options{})
		for _, q := range []string{"", "q=", "q=+++", "q=a&q=b", "q=%ff"} {
			r := e.do("GET", "/tools/search?"+q, "")
			assert.Equal(t, http.StatusBadRequest, r.status, q)
			assert.Equal(t, []string{"q"}, r.fields(), q)
		}
		r := e.do("GET", "/tools/search?q="+strings.Repeat("a", catalogueapi.MaxSearchRunes+1), "")
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, []string{"q"}, r.fields())
	})
}
