package mcpproxy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
)

func schema(t *testing.T, js string) json.RawMessage {
	t.Helper()
	require.True(t, json.Valid([]byte(js)), js)
	return json.RawMessage(js)
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
	assert.Equal(t, "s.t(b: dict, a: float, limit: int = 10, ratio: float = 0.5, deep: bool = True, mode: str = 'it\\'s', "+
		"tags: list = ['a'], opt: str | None = None, any: Any = '...', either: str | int = '...', "+
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
		"repo: Repository, owner/name",
		"page: (no description)",
	}, strings.Split(args, "\n"))
}

// For any object schema: every property appears once in the signature and
// once in the argument lines; required ones first and without a default,
// optional ones after, each with a default; both groups in the order the
// schema lists its properties, whatever the order of "required".
func TestSignatureProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z_][a-z0-9_]{0,7}`), 0, 8, rapid.ID[string]).Draw(t, "names")
		types := []string{"string", "integer", "number", "boolean", "array", "object", "null"}
		var props []string
		var required []string
		isReq := map[string]bool{}
		for _, n := range names {
			p := map[string]any{"type": rapid.SampledFrom(types).Draw(t, "type")}
			if rapid.Bool().Draw(t, "hasDefault") {
				p["default"] = float64(rapid.IntRange(-5, 5).Draw(t, "default"))
			}
			if rapid.Bool().Draw(t, "hasDesc") {
				p["description"] = rapid.StringMatching(`[A-Za-z ]{1,20}`).Draw(t, "desc")
			}
			js, err := json.Marshal(p)
			require.NoError(t, err)
			props = append(props, fmt.Sprintf("%q:%s", n, js))
			if rapid.Bool().Draw(t, "required") {
				required = append(required, n)
				isReq[n] = true
			}
		}
		req, err := json.Marshal(rapid.Permutation(required).Draw(t, "order"))
		require.NoError(t, err)
		sig, args := mcpproxy.Signature("srv.tool", json.RawMessage(`{"type":"object","properties":{`+strings.Join(props, ",")+`},"required":`+string(req)+`}`))

		var order []string
		for _, want := range []bool{true, false} {
			for _, n := range names {
				if isReq[n] == want {
					order = append(order, n)
				}
			}
		}

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

// A name that "required" lists without a property is still a required
// parameter (of type Any), after the others; a boolean property schema
// is a parameter of type Any; a schema that is not an object gives none.
func TestSignature_OddSchemas(t *testing.T) {
	sig, args := mcpproxy.Signature("s.t", schema(t, `{"type":"object","properties":{"x":true,"y":{"type":"string"}},"required":["ghost","y"]}`))
	assert.Equal(t, "s.t(y: str, ghost: Any, x: Any = '...')", sig)
	assert.Equal(t, "y: (no description)\nghost: (no description)\nx: (no description)", args)
	for in, want := range map[string]string{`[]`: "s.t()", `"object"`: "s.t()", `{"properties":[1]}`: "s.t()", `not json`: "s.t()",
		`{"properties":{"a":1}}`: "s.t(a: Any = '...')"} {
		sig, _ := mcpproxy.Signature("s.t", json.RawMessage(in))
		assert.Equal(t, want, sig, in)
	}
}
