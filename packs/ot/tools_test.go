package ot_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func TestTools_ListAllTools(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.tools", `{}`)
	entries := parseList(t, out)
	var want []string
	for _, tl := range f.reg.List() {
		want = append(want, tl.Name)
	}
	assert.Equal(t, want, names(entries), "every enabled tool, sorted by name")
	assert.Contains(t, names(entries), "ot.tools")
	// Default level is min.
	assert.Equal(t, out, f.ok(t, "ot.tools", `{"info":"min"}`))

	// A switched-off tool is not available, so not listed.
	require.NoError(t, f.reg.SetEnabled("demo.foo", false))
	assert.NotContains(t, names(parseList(t, f.ok(t, "ot.tools", `{}`))), "demo.foo")
}

func TestTools_FilterByPattern(t *testing.T) {
	f := newFixture(t)
	got := names(parseList(t, f.ok(t, "ot.tools", `{"pattern":"search"}`)))
	assert.Equal(t, []string{"brave.search", "brave.web_search", "github.search"}, got)
	// Case-insensitive, and always partial.
	assert.Equal(t, got, names(parseList(t, f.ok(t, "ot.tools", `{"pattern":"SEARCH"}`))))
	assert.Equal(t, []string{"brave.search", "brave.web_search"}, names(parseList(t, f.ok(t, "ot.tools", `{"pattern":"Brav"}`))))
	assert.Equal(t, []string{"web.fetch"}, names(parseList(t, f.ok(t, "ot.tools", `{"pattern":"b.fe"}`))))
	// Nothing matches: an empty list.
	assert.Equal(t, "[]\n", f.ok(t, "ot.tools", `{"pattern":"nothing-like-this"}`))
}

func TestTools_InfoList(t *testing.T) {
	f := newFixture(t)
	got := parseStrings(t, f.ok(t, "ot.tools", `{"info":"list","pattern":"brave"}`))
	assert.Equal(t, []string{"brave.search", "brave.web_search"}, got)
}

func TestTools_InfoMin(t *testing.T) {
	f := newFixture(t)
	entries := parseList(t, f.ok(t, "ot.tools", `{"pattern":"web.fetch"}`))
	require.Len(t, entries, 1)
	assert.Equal(t, map[string]any{"name": "web.fetch", "description": "Fetch a page and return its main content as Markdown."}, entries[0])
}

func TestTools_InfoFull(t *testing.T) {
	f := newFixture(t)
	entries := parseList(t, f.ok(t, "ot.tools", `{"info":"full","pattern":"brave.search"}`))
	require.Len(t, entries, 1)
	e := entries[0]
	assert.Equal(t, "brave.search", e["name"])
	assert.Equal(t, "local", e["source"])
	assert.Equal(t, "Search the web with Brave.", e["description"], "the arguments' Markdown is shown as args, not repeated in the description")
	assert.Contains(t, e["signature"], "brave.search(")
	assert.Equal(t, []any{"query: The search query.", "count: Number of results."}, e["args"])
	assert.Equal(t, "str", e["returns"], "the value's type as the signature names types (the output schema's)")
	assert.Equal(t, `brave.search(query="golang generics")`, e["example"])

	// A tool without an example or return type leaves those keys out.
	gi := parseList(t, f.ok(t, "ot.tools", `{"info":"full","pattern":"github.issues"}`))[0]
	assert.ElementsMatch(t, []string{"name", "signature", "description", "source", "args"}, keys(gi))
	assert.Equal(t, "proxy:github", gi["source"])
}

func TestTools_ProxySignatureFromSchema(t *testing.T) {
	f := newFixture(t)
	e := parseList(t, f.ok(t, "ot.tools", `{"info":"full","pattern":"github.search"}`))[0]
	assert.Equal(t, "github.search(query: str, repo: str = '...')", e["signature"])
	assert.Equal(t, "proxy:github", e["source"])

	// Without the proxy's Usage, the signature is derived from the schema
	// the same way: required first without defaults, optional with their
	// default or '...'.
	gi := parseList(t, f.ok(t, "ot.tools", `{"info":"full","pattern":"github.issues"}`))[0]
	assert.Equal(t, "github.issues(repo: str, state: str = 'open', limit: int = '...')", gi["signature"])
}

func TestTools_ProxyArgsFromSchema(t *testing.T) {
	f := newFixture(t)
	e := parseList(t, f.ok(t, "ot.tools", `{"info":"full","pattern":"github.search"}`))[0]
	assert.Equal(t, []any{"query: Search query", "repo: Repository as owner/name"}, e["args"])
	gi := parseList(t, f.ok(t, "ot.tools", `{"info":"full","pattern":"github.issues"}`))[0]
	assert.Equal(t, []any{"repo: Repository", "state: (no description)", "limit: Most issues"}, gi["args"])
}

func TestTools_BadInfoLevelIsRefused(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.tools", `{"info":"everything"}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, "info")
}

// genToolNames draws distinct valid tool names.
func genToolNames(t *rapid.T) []string {
	return rapid.SliceOfNDistinct(rapid.StringMatching(`[A-Za-z][A-Za-z0-9_]{0,6}(\.[A-Za-z0-9_]{1,6})?`), 0, 12, rapid.ID[string]).Draw(t, "names")
}

// propRegistry registers the named tools (with drawn descriptions) and the
// ot pack.
func propRegistry(t *rapid.T, toolNames []string) *registry.Registry {
	reg := registry.New(registry.Options{Prefix: new("")})
	p := &registry.Pack{Name: "prop"}
	for _, n := range toolNames {
		if strings.HasPrefix(n, "ot.") {
			continue
		}
		desc := rapid.String().Draw(t, "description")
		p.Tools = append(p.Tools, &registry.Tool{Name: n, Description: desc, Handler: rawHandler})
	}
	if err := reg.AddPack(p); err != nil {
		t.Fatalf("add: %v", err)
	}
	pk, err := ot.New(ot.Config{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.AddPack(pk); err != nil {
		t.Fatal(err)
	}
	return reg
}

func invokeText(t *rapid.T, reg *registry.Registry, name string, args any) string {
	raw, _ := json.Marshal(args)
	res, err := reg.Invoke(context.Background(), name, raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.Success {
		t.Fatalf("%s(%s): %s", name, raw, res.Error)
	}
	return res.Value.(string)
}

func TestTools_PatternFilterProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		reg := propRegistry(t, genToolNames(t))
		var all []string
		for _, tl := range reg.List() {
			all = append(all, tl.Name)
		}
		// The pattern: a piece of a registered name in random case, or any text.
		pattern := rapid.String().Draw(t, "pattern")
		if len(all) > 0 && rapid.Bool().Draw(t, "fromName") {
			n := rapid.SampledFrom(all).Draw(t, "name")
			i := rapid.IntRange(0, len(n)).Draw(t, "i")
			j := rapid.IntRange(i, len(n)).Draw(t, "j")
			pattern = n[i:j]
			if rapid.Bool().Draw(t, "upper") {
				pattern = strings.ToUpper(pattern)
			}
		}
		if len(pattern) > ot.MaxPatternLen {
			pattern = pattern[:ot.MaxPatternLen]
		}
		var want []string
		for _, n := range all {
			if strings.Contains(strings.ToLower(n), strings.ToLower(pattern)) {
				want = append(want, n)
			}
		}
		var got []string
		out := invokeText(t, reg, "ot.tools", map[string]any{"pattern": pattern, "info": "list"})
		if err := yamlUnmarshal(out, &got); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, out)
		}
		if !slices.Equal(want, got) {
			t.Fatalf("pattern %q: got %v, want %v", pattern, got, want)
		}
	})
}

func TestTools_InfoLevelsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		reg := propRegistry(t, genToolNames(t))
		pattern := rapid.StringMatching(`[a-z]{0,2}`).Draw(t, "pattern")
		var list []string
		var minE, fullE []map[string]any
		for lvl, dst := range map[string]any{"list": &list, "min": &minE, "full": &fullE} {
			out := invokeText(t, reg, "ot.tools", map[string]any{"pattern": pattern, "info": lvl})
			if err := yamlUnmarshal(out, dst); err != nil {
				t.Fatalf("%s: not YAML: %v\n%s", lvl, err, out)
			}
		}
		// The three levels list the same tools in the same order.
		if !slices.Equal(list, names(minE)) || !slices.Equal(list, names(fullE)) {
			t.Fatalf("levels disagree: %v / %v / %v", list, names(minE), names(fullE))
		}
		for i, e := range minE {
			if k := keys(e); len(k) != 2 || !slices.Contains(k, "name") || !slices.Contains(k, "description") {
				t.Fatalf("min entry keys %v", k)
			}
			tl, _ := reg.Lookup(list[i])
			if fullE[i]["source"] != tl.Source || fullE[i]["signature"] == nil || fullE[i]["description"] == nil {
				t.Fatalf("full entry %v", fullE[i])
			}
			for k := range fullE[i] {
				if !slices.Contains([]string{"name", "signature", "description", "source", "args", "returns", "example"}, k) {
					t.Fatalf("unexpected key %q", k)
				}
			}
		}
	})
}

// A tool whose description ends in a generated "## Arguments" list (a
// toolpack server appends one to a proxied tool's; a catalogue tool made
// from a function carries the function's) is shown without it: ot lists
// the arguments on their own, from the schema. A section that is not the
// last one, and a section of other text, are left alone.
func TestTools_DescriptionWithoutAGeneratedArgumentsSection(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("")})
	usage := registry.Usage{Signature: "r.add(a: int)", Args: "a: First addend."}
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","description":"First addend."}},"required":["a"]}`)
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "r", Tools: []*registry.Tool{
		{Name: "r.add", Description: "Adds.\n\n## Arguments\n\n- `a` (integer, required): First addend.", Source: "proxy:r",
			InputSchema: schema, Usage: usage, Handler: rawHandler},
		{Name: "r.mid", Description: "Mid.\n\n## Arguments\n\n- `a`\n\n## Returns\n\nA number.", Source: "proxy:r",
			InputSchema: schema, Usage: usage, Handler: rawHandler},
		{Name: "r.local", Description: "Local.\n\n## Arguments\n\nkept", InputSchema: schema, Handler: rawHandler},
		{Name: "r.catalogued", Description: "Catalogued.\n\n## Arguments\n\n- `a` (integer, required): First addend.\n", InputSchema: schema, Handler: rawHandler},
		{Name: "r.none", Description: "No arguments.\n\n## Arguments\n\nNone.\n", Source: "proxy:r", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: rawHandler},
	}}))
	p, err := ot.New(ot.Config{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	res, err := reg.Invoke(t.Context(), "ot.tools", json.RawMessage(`{"pattern":"r.","info":"full"}`))
	require.NoError(t, err)
	byName := map[string]map[string]any{}
	for _, e := range parseList(t, res.Value.(string)) {
		byName[e["name"].(string)] = e
	}
	assert.Equal(t, "Adds.", byName["r.add"]["description"])
	assert.Equal(t, []any{"a: First addend."}, byName["r.add"]["args"])
	assert.Equal(t, "Mid.\n\n## Arguments\n\n- `a`\n\n## Returns\n\nA number.", byName["r.mid"]["description"])
	assert.Equal(t, "Local.\n\n## Arguments\n\nkept", byName["r.local"]["description"], "a section of other text is the author's")
	assert.Equal(t, "Catalogued.", byName["r.catalogued"]["description"],
		"a local tool's description carrying a generated arguments list (a catalogue tool made from a function) loses it too")
	assert.Equal(t, []any{"a: First addend."}, byName["r.catalogued"]["args"])
	assert.Equal(t, "No arguments.", byName["r.none"]["description"], "the generated section of a tool without arguments (None.) too")
}

// Under a registry prefix, a proxied tool's signature names the tool as a
// client calls it (tp_remote.add), as a local tool's does: the proxy
// writes Usage.Signature with the undecorated name (remote.add), which
// is no tool there. So do ot.help's signature and ot.tools's examples,
// and the Go signature ot.help(info="full") shows.
func TestTools_SignatureNamesTheToolAsCalledUnderAPrefix(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("tp")})
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","description":"Count to n."},"delay_ms":{"type":["integer","null"],"default":100}},"required":["n"]}`)
	sig, argLines := mcpproxy.Signature("remote.count", schema) // as the proxy builds a remote tool's Usage
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "remote", Tools: []*registry.Tool{
		{Name: "remote.count", Description: "Counts.", Source: "proxy:remote", InputSchema: schema,
			Usage: registry.Usage{Signature: sig, Args: argLines, Returns: "int"}, Handler: rawHandler},
	}}))
	local := &registry.Pack{Name: "demo"}
	require.NoError(t, registry.AddFunc(local, "add", echoText[SearchArgs], registry.ToolOptions{Doc: "Adds.", Example: `add(query="x")`}))
	require.NoError(t, reg.AddPack(local))
	p, err := ot.New(ot.Config{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	call := func(name, args string) string {
		t.Helper()
		res, err := reg.Invoke(t.Context(), name, json.RawMessage(args))
		require.NoError(t, err)
		require.True(t, res.Success, res.Error)
		return res.Value.(string)
	}

	e := parseList(t, call("tp_ot.tools", `{"pattern":"count","info":"full"}`))
	require.Len(t, e, 1)
	assert.Equal(t, map[string]any{
		"name": "tp_remote.count", "signature": "tp_remote.count(n: int, delay_ms: int | None = 100)",
		"description": "Counts.", "source": "proxy:remote", "args": []any{"n: Count to n.", "delay_ms: (no description)"}, "returns": "int",
	}, e[0])

	// Every tool, local or proxied: the signature and the example call the
	// tool by its name.
	all := parseList(t, call("tp_ot.tools", `{"info":"full"}`))
	require.NotEmpty(t, all)
	for _, e := range all {
		name := e["name"].(string)
		assert.True(t, strings.HasPrefix(e["signature"].(string), name+"("), "%s: signature %q", name, e["signature"])
		if ex, ok := e["example"].(string); ok {
			assert.True(t, strings.HasPrefix(ex, name+"("), "%s: example %q", name, ex)
		}
	}

	// ot.help: by the name called or the undecorated one, the same page.
	for _, q := range []string{"tp_remote.count", "remote.count"} {
		out := call("tp_ot.help", `{"query":"`+q+`","info":"full"}`)
		assert.True(t, strings.HasPrefix(out, "# tp_remote.count\n"), out)
		assert.Contains(t, out, "**Signature:** `tp_remote.count(n: int, delay_ms: int | None = 100)`")
		assert.NotContains(t, out, "Go signature", "a proxied tool has none; its Usage.Signature is the one shown")
		assert.NotRegexp(t, `(^|[^_])remote\.count\(`, out, "no call of the undecorated name")
	}
	out := call("tp_ot.help", `{"query":"add","info":"full"}`)
	assert.Contains(t, out, "**Example:** `tp_add(query=\"x\")`")
	assert.Contains(t, out, "- Go signature: `tp_add(ctx context.Context, a ot_test.SearchArgs) (result.Result[string], error)`")
}

// DocArgs list an optional argument between two required ones.
type DocArgs struct {
	Title   string `json:"title" validate:"required" description:"The title."`
	Body    string `json:"body" description:"The body."`
	Confirm string `json:"confirm" validate:"required" description:"Type yes."`
}

// A local tool's args follow its signature's order (required first, then
// optional, each group in the schema's order), as a proxied tool's do: a
// local tool and its proxied copy read alike. ot.help lists the
// arguments in that order too.
func TestTools_ArgsInTheSignaturesOrder(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("")})
	local := &registry.Pack{Name: "doc"}
	require.NoError(t, registry.AddFunc(local, "doc.create", echoText[DocArgs], registry.ToolOptions{Doc: "Creates."}))
	require.NoError(t, reg.AddPack(local))
	lt, ok := reg.Lookup("doc.create")
	require.True(t, ok)
	sig, argLines := mcpproxy.Signature("copy.create", lt.InputSchema)
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "copy", Tools: []*registry.Tool{
		{Name: "copy.create", Description: "Creates.", Source: "proxy:copy", InputSchema: lt.InputSchema,
			Usage: registry.Usage{Signature: sig, Args: argLines, Returns: "str"}, Handler: rawHandler},
	}}))
	p, err := ot.New(ot.Config{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))

	res, err := reg.Invoke(t.Context(), "ot.tools", json.RawMessage(`{"pattern":".create","info":"full"}`))
	require.NoError(t, err)
	entries := parseList(t, res.Value.(string))
	require.Equal(t, []string{"copy.create", "doc.create"}, names(entries))
	want := []any{"title: The title.", "confirm: Type yes.", "body: The body."}
	for _, e := range entries {
		assert.Equal(t, e["name"].(string)+"(title: str, confirm: str, body: str = '...')", e["signature"])
		assert.Equal(t, want, e["args"], "%s: args in the signature's order", e["name"])
	}

	res, err = reg.Invoke(t.Context(), "ot.help", json.RawMessage(`{"query":"doc.create"}`))
	require.NoError(t, err)
	assert.Contains(t, res.Value, "**Arguments:**\n- `title` (str, required): The title.\n- `confirm` (str, required): Type yes.\n- `body` (str, optional): The body.\n")
}
