package ot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// --- Pack Discovery ---

func TestPacks_ListAllPacks(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.packs", `{}`)
	assert.Equal(t, []string{"brave", "demo", "firecrawl", "github", "ot", "scaffold", "web"}, names(parseList(t, out)))
	assert.Equal(t, out, f.ok(t, "ot.packs", `{"info":"min"}`), "min is the default")
}

func TestPacks_FilterByPattern(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, []string{"brave"}, names(parseList(t, f.ok(t, "ot.packs", `{"pattern":"brav"}`))))
	assert.Equal(t, []string{"brave"}, names(parseList(t, f.ok(t, "ot.packs", `{"pattern":"BRAV"}`))))
	assert.Equal(t, []string{"firecrawl", "scaffold"}, names(parseList(t, f.ok(t, "ot.packs", `{"pattern":"f"}`))))
}

func TestPacks_InfoList(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, []string{"brave", "demo", "firecrawl", "github", "ot", "scaffold", "web"}, parseStrings(t, f.ok(t, "ot.packs", `{"info":"list"}`)))
}

func TestPacks_InfoMin(t *testing.T) {
	f := newFixture(t)
	entries := parseList(t, f.ok(t, "ot.packs", `{}`))
	byName := map[string]map[string]any{}
	for _, e := range entries {
		assert.ElementsMatch(t, []string{"name", "source", "tool_count"}, keys(e))
		byName[e["name"].(string)] = e
	}
	assert.Equal(t, map[string]any{"name": "brave", "source": "local", "tool_count": 2}, byName["brave"])
	assert.Equal(t, map[string]any{"name": "github", "source": "proxy", "tool_count": 2}, byName["github"])
	assert.Equal(t, 12, byName["ot"]["tool_count"])
}

func TestPacks_InfoFull(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.packs", `{"pattern":"brave","info":"full"}`)
	assert.Equal(t, `# brave

Web search with the Brave Search API.

Source: local

## Instructions

Prefer brave.search for news; cite the URLs.

## Tools

- `+"`brave.search`"+`: Search the web with Brave.
- `+"`brave.web_search`"+`: Search web pages only.`, out)
	// No pack matches: a sentence, not an empty document.
	assert.Contains(t, f.ok(t, "ot.packs", `{"pattern":"zzz","info":"full"}`), "ot.packs()")
}

func TestPacks_PackWithConfiguredInstructions(t *testing.T) {
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.instr = map[string]string{"demo": "Use demo.foo only in tests."}
	})
	out := f.ok(t, "ot.packs", `{"pattern":"demo","info":"full"}`)
	assert.Contains(t, out, "## Instructions\n\nUse demo.foo only in tests.")
	// A pack without instructions has no such section.
	assert.NotContains(t, f.ok(t, "ot.packs", `{"pattern":"web","info":"full"}`), "## Instructions")
	// Instructions are read on every call (a reload is seen at once).
	f.instr = map[string]string{"web": "Fetch only public pages."}
	assert.Contains(t, f.ok(t, "ot.packs", `{"pattern":"web","info":"full"}`), "Fetch only public pages.")
}

func TestPacks_ProxyPack(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.packs", `{"pattern":"github","info":"full"}`)
	assert.True(t, strings.HasPrefix(out, "# github\n"), out)
	assert.Contains(t, out, "Source: proxy")
	assert.Contains(t, out, "- `github.issues`: List issues.")
	assert.Contains(t, out, "- `github.search`: Search code on GitHub.")

	// A configured server whose pack has no tools yet is still a proxy pack.
	require.NoError(t, f.reg.AddPack(&registry.Pack{Name: "pkgver"}))
	f.servers = append(f.servers, ot.ServerStatus{Name: "pkgver"})
	e := parseList(t, f.ok(t, "ot.packs", `{"pattern":"pkgver"}`))
	assert.Equal(t, []map[string]any{{"name": "pkgver", "source": "proxy", "tool_count": 0}}, e)

	// A configured server that never connected (no pack registered at
	// all) is listed too, and found by ot.help, saying it is not connected.
	f.servers = append(f.servers, ot.ServerStatus{Name: "dead"})
	e = parseList(t, f.ok(t, "ot.packs", `{"pattern":"dead"}`))
	assert.Equal(t, []map[string]any{{"name": "dead", "source": "proxy", "tool_count": 0}}, e)
	assert.Contains(t, parseStrings(t, f.ok(t, "ot.packs", `{"info":"list"}`)), "dead")
	full := f.ok(t, "ot.packs", `{"pattern":"dead","info":"full"}`)
	assert.Contains(t, full, "not connected")
	assert.Contains(t, full, "Source: proxy (MCP server dead)")
	help := f.ok(t, "ot.help", `{"query":"dead"}`)
	assert.True(t, strings.HasPrefix(help, "# dead\n"), help)
}

// --- Alias Introspection ---

func TestAliases_ListAllAliases(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.aliases", `{}`)
	assert.Equal(t, []string{"alias_f -> demo.foo", "find -> brave.search", "ws -> brave.web_search"}, parseStrings(t, out))
	assert.Equal(t, out, f.ok(t, "ot.aliases", `{"info":"min"}`), "min is the default")
}

func TestAliases_FilterByPattern(t *testing.T) {
	f := newFixture(t)
	// The name or the target matches, case-insensitively.
	assert.Equal(t, []string{"find -> brave.search", "ws -> brave.web_search"}, parseStrings(t, f.ok(t, "ot.aliases", `{"pattern":"SEARCH"}`)))
	assert.Equal(t, []string{"alias_f -> demo.foo"}, parseStrings(t, f.ok(t, "ot.aliases", `{"pattern":"alias"}`)))
	assert.Equal(t, []string{"ws -> brave.web_search"}, parseStrings(t, f.ok(t, "ot.aliases", `{"pattern":"ws"}`)))
}

func TestAliases_InfoList(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, []string{"alias_f", "find", "ws"}, parseStrings(t, f.ok(t, "ot.aliases", `{"info":"list"}`)))
}

func TestAliases_InfoMin(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, "[alias_f -> demo.foo, find -> brave.search, ws -> brave.web_search]\n", f.ok(t, "ot.aliases", `{"info":"min"}`))
}

func TestAliases_InfoFull(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, []map[string]any{
		{"name": "alias_f", "target": "demo.foo"},
		{"name": "find", "target": "brave.search"},
		{"name": "ws", "target": "brave.web_search"},
	}, parseList(t, f.ok(t, "ot.aliases", `{"info":"full"}`)))
}

func TestAliases_ConfiguredOrder(t *testing.T) {
	f := newFixture(t, func(_ *fixture, c *ot.Config) {
		c.Aliases = func() []ot.Alias {
			return []ot.Alias{{Name: "ws", Target: "brave.web_search"}, {Name: "alias_f", Target: "demo.foo"}}
		}
	})
	assert.Equal(t, []string{"ws", "alias_f"}, parseStrings(t, f.ok(t, "ot.aliases", `{"info":"list"}`)))
}

// --- Snippet Introspection ---

func TestSnippets_ListAllSnippets(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.snippets", `{}`)
	assert.Equal(t, map[string]any{
		"brv_research": "Search web and extract structured findings",
		"pkg_npm":      "Check the latest versions of npm packages",
		"b_q":          "Quick web search with three results",
	}, parseMap(t, out))
	assert.Equal(t, out, f.ok(t, "ot.snippets", `{"info":"min"}`), "min is the default")
}

func TestSnippets_FilterByPattern(t *testing.T) {
	f := newFixture(t)
	// Name matches.
	assert.Equal(t, []string{"pkg_npm"}, parseStrings(t, f.ok(t, "ot.snippets", `{"pattern":"pkg","info":"list"}`)))
	// Description matches, case-insensitively.
	assert.Equal(t, []string{"pkg_npm"}, parseStrings(t, f.ok(t, "ot.snippets", `{"pattern":"NPM PACK","info":"list"}`)))
	assert.Equal(t, []string{"brv_research", "b_q"}, parseStrings(t, f.ok(t, "ot.snippets", `{"pattern":"web","info":"list"}`)))
}

func TestSnippets_InfoList(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, []string{"brv_research", "pkg_npm", "b_q"}, parseStrings(t, f.ok(t, "ot.snippets", `{"info":"list"}`)))
}

func TestSnippets_InfoMin(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, "brv_research: Search web and extract structured findings\npkg_npm: Check the latest versions of npm packages\nb_q: Quick web search with three results\n",
		f.ok(t, "ot.snippets", `{}`), "snippet_name: description, one per line")
}

func TestSnippets_InfoFull(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.snippets", `{"pattern":"pkg_npm","info":"full"}`)
	yamlPart, example, found := strings.Cut(out, "\n\n# Example with defaults:\n")
	require.True(t, found, out)
	assert.Equal(t, map[string]any{
		"name":        "pkg_npm",
		"description": "Check the latest versions of npm packages",
		"params":      map[string]any{"packages": map[string]any{"description": "Package names, space-separated"}},
		"body":        "pkgver.npm(packages=\"{{ packages }}\")\n",
	}, parseMap(t, yamlPart+"\n"), "description, params, body")
	// The example invocation gives a required parameter a placeholder.
	assert.Equal(t, "# $pkg_npm packages=<packages>\n# Expands to:\npkgver.npm(packages=\"<packages>\")\n", example)

	// Several definitions are separated by a document marker.
	all := f.ok(t, "ot.snippets", `{"info":"full"}`)
	assert.Equal(t, 2, strings.Count(all, "\n\n---\n\n"))

	// An expansion error is said, not hidden.
	f.snippets.list = append(f.snippets.list, ot.Snippet{Name: "broken", Description: "x", Body: "a(b={{ missing }})\n"})
	assert.Contains(t, f.ok(t, "ot.snippets", `{"pattern":"broken","info":"full"}`), "# Could not expand: snippet \"broken\": no value for \"missing\"")
}

// info=full with nothing to show says why: no snippet matches the
// pattern, or none is configured at all (then the pattern is not blamed).
func TestSnippets_InfoFullWithNothingToShow(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, `No snippet name or description contains "nope". Call ot.snippets() to list every snippet.`,
		f.ok(t, "ot.snippets", `{"pattern":"nope","info":"full"}`))
	f.snippets.list = nil
	assert.Equal(t, "No snippets are configured (the snippets: key of the configuration).", f.ok(t, "ot.snippets", `{"info":"full"}`))
	assert.Equal(t, "{}\n", f.ok(t, "ot.snippets", `{}`))
}

func TestSnippets_OutputFormat(t *testing.T) {
	f := newFixture(t)
	want := `name: brv_research
description: Search web and extract structured findings
params:
  topic: {description: "Topic to research"}
  count: {default: 5, description: "Number of sources"}
body: |
  results = brave.search(query="{{ topic }}", count={{ count }})
  llm.transform(input=results, prompt="Extract key findings")

# Example with defaults:
# $brv_research topic=Python
# Expands to:
results = brave.search(query="Python", count=5)
llm.transform(input=results, prompt="Extract key findings")
`
	assert.Equal(t, want, f.ok(t, "ot.snippets", `{"pattern":"brv_research","info":"full"}`))

	// A short snippet keeps the layout: one key per line, not one flow
	// line ({name: q2, description: …, body: …}).
	f.snippets.list = append(f.snippets.list, ot.Snippet{Name: "q2", Description: "Quick sum", Body: "r = add(a=1, b=2)"})
	out := f.ok(t, "ot.snippets", `{"pattern":"q2","info":"full"}`)
	assert.True(t, strings.HasPrefix(out, "name: q2\ndescription: Quick sum\nbody: r = add(a=1, b=2)\n\n# Example with defaults:\n"), out)
}

// A parameter's example is written in the $name call as the value it is:
// a string plain only when it reads as no other value, so the string "3"
// is quoted and the number 3 is not.
func TestSnippets_ExampleValuesKeepTheirType(t *testing.T) {
	f := newFixture(t)
	f.snippets.list = []ot.Snippet{{Name: "typed", Description: "Typed examples", Body: "r = t(a={{ n }}, b=\"{{ s }}\", c=\"{{ w }}\", d={{ b }})\n", Params: []ot.SnippetParam{
		{Name: "n", Example: json.Number("3")},
		{Name: "s", Example: "3"},
		{Name: "w", Example: "Python"},
		{Name: "b", Example: "true"},
	}}}
	out := f.ok(t, "ot.snippets", `{"pattern":"typed","info":"full"}`)
	assert.Contains(t, out, "\n# $typed n=3 s=\"3\" w=Python b=\"true\"\n", out)
}

// --- Configuration Summary ---

func TestConfig_ShowConfig(t *testing.T) {
	f := newFixture(t, func(f *fixture, c *ot.Config) {
		c.Aliases = func() []ot.Alias {
			return []ot.Alias{{Name: "ws", Target: "brave.web_search"}, {Name: "alias_f", Target: "demo.foo"}}
		}
		f.snippets.list = []ot.Snippet{
			{Name: "foon", Description: "Get foo() for n items", Body: "demo.foo(text=\"n\")\n"},
			{Name: "barn", Description: "Get bar() for n items", Body: "demo.foo(text=\"bar\")\n"},
		}
		f.servers = []ot.ServerStatus{{Name: "proxy_package_version", Connected: true}}
	})
	want := `aliases: {ws: brave.web_search, alias_f: demo.foo}
snippets: {foon: {description: "Get foo() for n items"}, barn: {description: "Get bar() for n items"}}
servers: [proxy_package_version]
`
	out := f.ok(t, "ot.config", `{}`)
	assert.Equal(t, want, out)
	assert.Equal(t, map[string]any{
		"aliases":  map[string]any{"ws": "brave.web_search", "alias_f": "demo.foo"},
		"snippets": map[string]any{"foon": map[string]any{"description": "Get foo() for n items"}, "barn": map[string]any{"description": "Get bar() for n items"}},
		"servers":  []any{"proxy_package_version"},
	}, parseMap(t, out))
}

func TestConfig_EmptyConfig(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("")})
	p, err := ot.New(ot.Config{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	res, err := reg.Invoke(context.Background(), "ot.config", nil)
	require.NoError(t, err)
	assert.Equal(t, "{aliases: {}, snippets: {}, servers: []}\n", res.Value)
	assert.Equal(t, map[string]any{"aliases": map[string]any{}, "snippets": map[string]any{}, "servers": []any{}}, parseMap(t, res.Value.(string)))
}

func TestConfig_AliasesFromRegistry(t *testing.T) {
	f := newFixture(t)
	m := parseMap(t, f.ok(t, "ot.config", `{}`))
	assert.Equal(t, map[string]any{"alias_f": "demo.foo", "find": "brave.search", "ws": "brave.web_search"}, m["aliases"])
	assert.True(t, strings.HasPrefix(f.ok(t, "ot.config", `{}`), "aliases: {alias_f: demo.foo, find: brave.search, ws: brave.web_search}\n"), "sorted by name")
}

// --- Health Check ---

func TestHealth_ShowHealth(t *testing.T) {
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.servers = []ot.ServerStatus{{Name: "proxy_package_version", Connected: true}}
	})
	cwd, err := os.Getwd()
	require.NoError(t, err)
	out := f.ok(t, "ot.health", `{}`)
	want := `version: "1.0.0"
go: "` + runtimeVersion() + `"
cwd: ` + cwd + `
registry: {status: ok, tool_count: ` + itoa(len(f.reg.List())) + `}
proxy: {status: ok, server_count: 1, servers: {proxy_package_version: connected}}
`
	assert.Equal(t, want, out)
	m := parseMap(t, out)
	assert.Equal(t, "1.0.0", m["version"])
	assert.Equal(t, map[string]any{"status": "ok", "tool_count": 20}, m["registry"])
}

func TestHealth_DisconnectedServer(t *testing.T) {
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.servers = []ot.ServerStatus{{Name: "github", Connected: true}, {Name: "pkgver", Connected: false}}
	})
	m := parseMap(t, f.ok(t, "ot.health", `{}`))
	assert.Equal(t, map[string]any{
		"status": "degraded", "server_count": 2,
		"servers": map[string]any{"github": "connected", "pkgver": "disconnected"},
	}, m["proxy"])
	// Back to connected: ok again (read on every call).
	f.servers[1].Connected = true
	assert.Equal(t, "ok", parseMap(t, f.ok(t, "ot.health", `{}`))["proxy"].(map[string]any)["status"])
}

func TestHealth_NoServers(t *testing.T) {
	f := newFixture(t, func(_ *fixture, c *ot.Config) { c.Servers = nil })
	m := parseMap(t, f.ok(t, "ot.health", `{}`))
	assert.Equal(t, map[string]any{"status": "ok", "server_count": 0, "servers": map[string]any{}}, m["proxy"])
}

// A host keeping its state in PostgreSQL shows its databases, checked on
// every call, in the proxy's shape: degraded while one cannot be reached.
// Without databases the seed's output is unchanged (TestHealth_ShowHealth).
func TestHealth_Databases(t *testing.T) {
	var calls int
	dbs := []ot.DatabaseStatus{{Name: "catalogue", Reachable: true}, {Name: "stats", Reachable: false}}
	f := newFixture(t, func(_ *fixture, c *ot.Config) {
		c.Databases = func(context.Context) []ot.DatabaseStatus { calls++; return dbs }
	})
	out := f.ok(t, "ot.health", `{}`)
	assert.Contains(t, out, "\npostgresql: {status: degraded, databases: {catalogue: reachable, stats: unreachable}}\n")
	assert.Equal(t, map[string]any{"status": "degraded", "databases": map[string]any{"catalogue": "reachable", "stats": "unreachable"}},
		parseMap(t, out)["postgresql"])
	dbs[1].Reachable = true
	assert.Equal(t, "ok", parseMap(t, f.ok(t, "ot.health", `{}`))["postgresql"].(map[string]any)["status"])
	assert.Equal(t, 2, calls, "checked on every call")
	dbs = nil
	assert.NotContains(t, parseMap(t, f.ok(t, "ot.health", `{}`)), "postgresql", "no database, no key")
}

// --- Version ---

func TestVersion_GetVersion(t *testing.T) {
	f := newFixture(t)
	assert.Equal(t, "1.0.0", f.ok(t, "ot.version", `{}`))

	// Without a configured version: the module's, "(devel)" in tests.
	reg := registry.New(registry.Options{Prefix: new("")})
	p, err := ot.New(ot.Config{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	res, err := reg.Invoke(context.Background(), "ot.version", nil)
	require.NoError(t, err)
	assert.Equal(t, "(devel)", res.Value)
	assert.Equal(t, "(devel)", parseMap(t, mustInvoke(t, reg, "ot.health"))["version"])
}

// --- Reload Configuration ---

func TestReload_ReloadConfig(t *testing.T) {
	f := newFixture(t)
	// The host's reload swaps the aliases; ot sees the new ones at once.
	f.reload = func(context.Context) error {
		f.reloads++
		return f.reg.SetAliases(map[string]string{"plus": "demo.foo"})
	}
	assert.Equal(t, "OK: Configuration reloaded", f.ok(t, "ot.reload", `{}`))
	assert.Equal(t, 1, f.reloads)
	assert.Equal(t, []string{"plus"}, parseStrings(t, f.ok(t, "ot.aliases", `{"info":"list"}`)))
}

func TestReload_BrokenConfigKeepsPrevious(t *testing.T) {
	f := newFixture(t)
	f.reload = func(context.Context) error { return errors.New("onetool.yaml:7: aliases: cycle through \"a\"") }
	res := f.call(t, "ot.reload", `{}`)
	assert.False(t, res.Success)
	assert.Equal(t, ot.ErrTypeConfig, res.ErrorType)
	assert.Equal(t, "Error: configuration not reloaded (the previous configuration stays): onetool.yaml:7: aliases: cycle through \"a\"", res.Error)
	// The previous aliases stay.
	assert.Equal(t, []string{"alias_f", "find", "ws"}, parseStrings(t, f.ok(t, "ot.aliases", `{"info":"list"}`)))
}

// A reload refused because a database the file names cannot be reached
// is unavailable, to retry later — the file is not at fault —, with the
// file-and-line text kept.
func TestReload_DatabaseAwayIsUnavailable(t *testing.T) {
	f := newFixture(t)
	f.reload = func(context.Context) error {
		return fmt.Errorf("%w: %w", ot.ErrUnavailable, errors.New("onetool.yaml:3: stats.dsn: connection refused"))
	}
	res := f.call(t, "ot.reload", `{}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, "(the previous configuration stays): ")
	assert.Contains(t, res.Error, "onetool.yaml:3: stats.dsn: connection refused")
	assert.Contains(t, res.Instruction, "Retry ot.reload in a moment")
	assert.NotContains(t, res.Instruction, "do not retry")
}

func TestReload_NotConfigured(t *testing.T) {
	f := newFixture(t, func(_ *fixture, c *ot.Config) { c.Reload = nil })
	res := f.call(t, "ot.reload", `{}`)
	assert.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
}

func TestNew_RequiresRegistry(t *testing.T) {
	_, err := ot.New(ot.Config{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Config.Registry")
}
