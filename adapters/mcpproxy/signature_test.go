package mcpproxy_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
)

func schema(t *testing.T, js string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	return m
}

// Seed 001, "Proxy tool signature from schema".
func TestSignatureFromSchema(t *testing.T) {
	sig, _ := mcpproxy.Signature("github.search", schema(t, `{"type":"object",
		"properties":{"repo":{"type":"string"},"query":{"type":"string"}},"required":["query"]}`))
	assert.Equal(t, "github.search(query: str, repo: str = '...')", sig)

	sig, _ = mcpproxy.Signature("s.t", schema(t, `{"type":"object","properties":{
		"limit":{"type":"integer","default":10},
		"ratio":{"type":"number","default":0.5},
		"deep":{"type":"boolean","default":true},
		"mode":{"type":"string","default":"it's"},
		"tags":{"type":"array","items":{"type":"string"},"default":["a"]},
		"opt":{"type":["string","null"],"default":null},
		"any":{},
		"either":{"anyOf":[{"type":"string"},{"type":"integer"}]},
		"b":{"type":"object"},
		"where":{"type":"object","default":{"k":[1,false]}},
		"a":{"type":"number"}},
		"required":["b","a"]}`))
	assert.Equal(t, "s.t(b: dict, a: float, any: Any = '...', deep: bool = True, either: str | int = '...', "+
		"limit: int = 10, mode: str = 'it\\'s', opt: str | None = None, ratio: float = 0.5, tags: list = ['a'], "+
		"where: dict = {'k': [1, False]})", sig)

	sig, args := mcpproxy.Signature("s.none", schema(t, `{"type":"object"}`))
	assert.Equal(t, "s.none()", sig)
	assert.Empty(t, args)
}

// Seed 001, "Proxy tool arguments from schema".
func TestArgsFromSchema(t *testing.T) {
	_, args := mcpproxy.Signature("github.search", schema(t, `{"type":"object","properties":{
		"repo":{"type":"string","description":"Repository, owner/name"},
		"query":{"type":"string","description":"Search   terms\n(GitHub syntax)"},
		"page":{"type":"integer"}},"required":["query"]}`))
	assert.Equal(t, []string{
		"query: Search terms (GitHub syntax)",
		"page: (no description)",
		"repo: Repository, owner/name",
	}, strings.Split(args, "\n"))
}

// For any object schema: every property appears once in the signature and
// once in the argument lines; required ones first in "required" order and
// without a default, optional ones after, sorted, each with a default.
func TestSignatureProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z_][a-z0-9_]{0,7}`), 0, 8, rapid.ID[string]).Draw(t, "names")
		types := []string{"string", "integer", "number", "boolean", "array", "object", "null"}
		props := map[string]any{}
		var required []string
		for _, n := range names {
			p := map[string]any{"type": rapid.SampledFrom(types).Draw(t, "type")}
			if rapid.Bool().Draw(t, "hasDefault") {
				p["default"] = float64(rapid.IntRange(-5, 5).Draw(t, "default"))
			}
			if rapid.Bool().Draw(t, "hasDesc") {
				p["description"] = rapid.StringMatching(`[A-Za-z ]{1,20}`).Draw(t, "desc")
			}
			props[n] = p
			if rapid.Bool().Draw(t, "required") {
				required = append(required, n)
			}
		}
		required = rapid.Permutation(required).Draw(t, "order")
		req := make([]any, len(required))
		for i, r := range required {
			req[i] = r
		}
		sig, args := mcpproxy.Signature("srv.tool", map[string]any{"type": "object", "properties": props, "required": req})

		isReq := map[string]bool{}
		for _, r := range required {
			isReq[r] = true
		}
		var optional []string
		for _, n := range names {
			if !isReq[n] {
				optional = append(optional, n)
			}
		}
		sort.Strings(optional)
		order := append(append([]string{}, required...), optional...)

		require.True(t, strings.HasPrefix(sig, "srv.tool(") && strings.HasSuffix(sig, ")"), sig)
		inner := strings.TrimSuffix(strings.TrimPrefix(sig, "srv.tool("), ")")
		var params []string
		if inner != "" {
			params = strings.Split(inner, ", ")
		}
		require.Len(t, params, len(order), sig)
		lines := []string{}
		if args != "" {
			lines = strings.Split(args, "\n")
		}
		require.Len(t, lines, len(order), args)
		for i, n := range order {
			require.True(t, strings.HasPrefix(params[i], n+": "), "param %d of %s is not %s", i, sig, n)
			require.Equal(t, !isReq[n], strings.Contains(params[i], " = "), "default shown iff optional: %s", params[i])
			require.True(t, strings.HasPrefix(lines[i], n+": "), fmt.Sprintf("line %d of %q", i, args))
		}
	})
}
