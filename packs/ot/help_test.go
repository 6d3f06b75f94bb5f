package ot_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
)

func TestHelp_GeneralHelp(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.help", `{}`)
	for _, want := range []string{
		"## Discover", "ot.tools(", "ot.packs(", "ot.snippets(", "ot.aliases(", // discovery commands
		"## Info levels", "- list:", "- min (default):", "- full:", // info levels
		"## Examples", `ot.help(query="brave.search")`, // quick examples
		"## Tips", // usage tips
		"Available now: 20 tools in 7 packs, 3 snippets, 3 aliases.",
	} {
		assert.Contains(t, out, want)
	}
	// The tip's call lists a pack's tools whatever their names (a pack's
	// tools need not start with the pack's name).
	require.Contains(t, out, `ot.packs(pattern="{pack}", info="full")`)
	for _, pk := range f.reg.Packs() {
		if len(pk.Tools) == 0 {
			continue
		}
		full := f.ok(t, "ot.packs", `{"pattern":"`+pk.Name+`","info":"full"}`)
		for _, tool := range pk.Tools {
			assert.Contains(t, full, tool.Name, "pack %s", pk.Name)
		}
	}
}

// The general help counts the packs ot.packs lists: a configured server
// with no tools registered (down, or still connecting) is one of them,
// as ot.packs and the search find it.
func TestHelp_GeneralHelpCountsThePacksOtPacksLists(t *testing.T) {
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.servers = []ot.ServerStatus{{Name: "github", Connected: true}, {Name: "down", Connected: false}}
	})
	packs := parseStrings(t, f.ok(t, "ot.packs", `{"info":"list"}`))
	require.Contains(t, packs, "down")
	require.Len(t, packs, len(f.reg.Packs())+1, "the server that is down is listed beside the registered packs")
	tools := parseStrings(t, f.ok(t, "ot.tools", `{"info":"list"}`))
	out := f.ok(t, "ot.help", `{}`)
	assert.True(t, strings.HasSuffix(out, fmt.Sprintf("\n\nAvailable now: %d tools in %d packs, 3 snippets, 3 aliases.", len(tools), len(packs))), out)
}

func TestHelp_ExactToolLookup(t *testing.T) {
	f := newFixture(t)
	want := "# brave.search\n\n" +
		"Search the web with Brave.\n\n" +
		"**Signature:** `brave.search(query: str, count: int = 10)`\n\n" +
		"**Arguments:**\n" +
		"- `query` (str, required): The search query.\n" +
		"- `count` (int, default 10): Number of results.\n\n" +
		"**Returns:** `str`\n\n" +
		"**Example:** `brave.search(query=\"golang generics\")`\n\n" +
		"**Documentation:** https://onetool.beycom.online/reference/tools/brave-search/"
	assert.Equal(t, want, f.ok(t, "ot.help", `{"query":"brave.search"}`))

	// A proxied tool: its schema-derived signature and arguments.
	gh := f.ok(t, "ot.help", `{"query":"github.search"}`)
	assert.Contains(t, gh, "**Signature:** `github.search(query: str, repo: str = '...')`")
	assert.Contains(t, gh, "- `repo` (str, optional): Repository as owner/name")
	assert.Contains(t, gh, "**Documentation:** https://onetool.beycom.online/reference/tools/github/")
}

func TestHelp_ExactPackLookup(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.help", `{"query":"firecrawl"}`)
	assert.Equal(t, "# firecrawl\n\nCrawl and scrape sites with Firecrawl.\n\nSource: local\n\n## Tools\n\n"+
		"- `firecrawl.scrape`: Scrape one page with Firecrawl.\n\n"+
		"**Documentation:** https://onetool.beycom.online/reference/tools/firecrawl/", out)
	// Instructions when configured.
	assert.Contains(t, f.ok(t, "ot.help", `{"query":"brave"}`), "## Instructions\n\nPrefer brave.search for news; cite the URLs.")
}

func TestHelp_SnippetLookup(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.help", `{"query":"$b_q"}`)
	assert.Equal(t, `name: b_q
description: Quick web search with three results
params:
  q: {description: "The query"}
body: |
  brave.search(query="{{ q }}", count=3)

# Example with defaults:
# $b_q q=<q>
# Expands to:
brave.search(query="<q>", count=3)
`, out)
	// The same text as ot.snippets at info full.
	assert.Equal(t, out, f.ok(t, "ot.snippets", `{"pattern":"b_q","info":"full"}`))

	// A $ query naming no snippet is searched among the snippets alone:
	// a typo finds the snippet, and a tool whose text is close is not
	// offered instead.
	m := parseMap(t, f.ok(t, "ot.help", `{"query":"$brv_reserch","info":"list"}`))
	assert.Equal(t, map[string]any{"snippets": []any{"brv_research"}}, m)
	assert.Equal(t, `No matches found for "$fetch". Use ot.snippets() to list the snippets, or ot.tools() or ot.packs() to browse what is available.`,
		f.ok(t, "ot.help", `{"query":"$fetch"}`), "web.fetch is a tool, not a snippet")
}

func TestHelp_AliasLookup(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.help", `{"query":"ws"}`)
	assert.True(t, strings.HasPrefix(out, "# ws\n\nAlias of `brave.web_search`.\n"), out)
	assert.Contains(t, out, "`brave.web_search`: Search web pages only.")
	assert.Contains(t, out, "Usage: call `ws` with the arguments of `brave.web_search`")

	// An alias whose target is not registered says so.
	require.NoError(t, f.reg.SetAliases(map[string]string{"later": "remote.tool"}))
	assert.Contains(t, f.ok(t, "ot.help", `{"query":"later"}`), "No tool of that name is registered now")
}

func TestHelp_FuzzySearch(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.help", `{"query":"web fetch"}`)
	m := parseMap(t, out)
	assert.Equal(t, []any{map[string]any{"name": "web.fetch", "description": "Fetch a page and return its main content as Markdown."}}, m["tools"])
	assert.Equal(t, []any{map[string]any{"name": "web", "description": "Fetch web pages and convert them to Markdown."}}, m["packs"])
	// Groups come in the order tools, packs, snippets, aliases.
	out = f.ok(t, "ot.help", `{"query":"search","info":"list"}`)
	assert.Equal(t, map[string]any{
		"tools":    []any{"brave.search", "github.search", "brave.web_search", "ot.help"}, // ot.help: in its description
		"packs":    []any{"brave"},
		"snippets": []any{"brv_research", "b_q"},
		"aliases":  []any{"find", "ws"},
	}, parseMap(t, out))
	assert.Less(t, strings.Index(out, "tools:"), strings.Index(out, "packs:"))
	assert.Less(t, strings.Index(out, "packs:"), strings.Index(out, "snippets:"))
	assert.Less(t, strings.Index(out, "snippets:"), strings.Index(out, "aliases:"))
}

func TestHelp_FuzzyMatchingWithTypos(t *testing.T) {
	f := newFixture(t)
	m := parseMap(t, f.ok(t, "ot.help", `{"query":"scaffoldl"}`))
	assert.Equal(t, "scaffold.create", m["tools"].([]any)[0].(map[string]any)["name"])
	assert.Equal(t, "scaffold", m["packs"].([]any)[0].(map[string]any)["name"])
	m = parseMap(t, f.ok(t, "ot.help", `{"query":"frirecrawl","info":"list"}`))
	assert.Equal(t, []any{"firecrawl"}, m["packs"])
	assert.Equal(t, []any{"firecrawl.scrape"}, m["tools"])

	// Sorted by score: the groups keep the ranking's order, whatever it is.
	f2 := newFixture(t, func(_ *fixture, c *ot.Config) {
		c.Rank = func(_ string, items []ot.SearchItem) []ot.Hit {
			var hits []ot.Hit
			for i, it := range items {
				if it.Kind == ot.KindTool && strings.HasPrefix(it.Name, "brave.") {
					hits = append(hits, ot.Hit{Index: i, Score: float64(len(it.Name))})
				}
			}
			slices.SortFunc(hits, func(a, b ot.Hit) int { return int(b.Score - a.Score) })
			return hits
		}
	})
	assert.Equal(t, map[string]any{"tools": []any{"brave.web_search", "brave.search"}}, parseMap(t, f2.ok(t, "ot.help", `{"query":"x","info":"list"}`)))
}

func TestHelp_InfoList(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.help", `{"query":"web","info":"list"}`)
	m := parseMap(t, out)
	for k, v := range m {
		for _, n := range v.([]any) {
			assert.IsType(t, "", n, "%s: only names", k)
		}
	}
	assert.Equal(t, "web.fetch", m["tools"].([]any)[0])
	// An exact name at info list is a search too: only names.
	// (brv_research: "bravesearch" is two edits from "brvresearch".)
	assert.Equal(t, map[string]any{"tools": []any{"brave.search", "brave.web_search"}, "packs": []any{"brave"}, "snippets": []any{"brv_research"}, "aliases": []any{"find", "ws"}},
		parseMap(t, f.ok(t, "ot.help", `{"query":"brave.search","info":"list"}`)))
}

func TestHelp_InfoMin(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.help", `{"query":"github.se"}`)
	m := parseMap(t, out)
	assert.Equal(t, []any{map[string]any{"name": "github.search", "description": "Search code on GitHub."}}, m["tools"])
	// min is the default.
	assert.Equal(t, out, f.ok(t, "ot.help", `{"query":"github.se","info":"min"}`))
	// An exact pack name at min: the pack's help (names with brief descriptions).
	assert.Contains(t, f.ok(t, "ot.help", `{"query":"brave"}`), "- `brave.search`: Search the web with Brave.")
}

func TestHelp_InfoFull(t *testing.T) {
	f := newFixture(t)
	out := f.ok(t, "ot.help", `{"query":"brave.search","info":"full"}`)
	assert.True(t, strings.HasPrefix(out, f.ok(t, "ot.help", `{"query":"brave.search"}`)), "full extends min")
	for _, want := range []string{
		"## Details", "- Pack: brave", "- Source: local",
		"- Go signature: `brave.search(ctx context.Context, a ot_test.SearchArgs) (result.Result[string], error)`",
		"**Input schema:**\n\n```json\n{", `"required": [`, "**Output schema:**",
	} {
		assert.Contains(t, out, want)
	}
	// A search at full gives every field of every match.
	m := parseMap(t, f.ok(t, "ot.help", `{"query":"web fetch","info":"full"}`))
	tool := m["tools"].([]any)[0].(map[string]any)
	assert.Equal(t, "web.fetch(url: str)", tool["signature"])
	assert.Equal(t, []any{"url: The page to fetch."}, tool["args"])
	pack := m["packs"].([]any)[0].(map[string]any)
	assert.Equal(t, "https://onetool.beycom.online/reference/tools/web-fetch/", pack["docs"])
	snip := parseMap(t, f.ok(t, "ot.help", `{"query":"reserch","info":"full"}`))["snippets"].([]any)[0].(map[string]any)
	assert.Equal(t, "$brv_research", snip["name"])
	assert.Equal(t, map[string]any{"topic": map[string]any{"description": "Topic to research"}, "count": map[string]any{"default": 5, "description": "Number of sources"}}, snip["params"])
}

func TestHelp_DocumentationURLGeneration(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"code", "db", "ground", "llm"} {
		require.NoError(t, f.reg.AddPack(&registry.Pack{Name: name}))
	}
	for pack, slug := range map[string]string{
		"brave": "brave-search", "code": "code-search", "db": "database", "ground": "grounding-search",
		"llm": "transform", "web": "web-fetch", "firecrawl": "firecrawl", "demo": "demo",
	} {
		assert.True(t, strings.HasSuffix(f.ok(t, "ot.help", `{"query":"`+pack+`"}`), "**Documentation:** https://onetool.beycom.online/reference/tools/"+slug+"/"), pack)
	}
	assert.Contains(t, f.ok(t, "ot.help", `{"query":"web.fetch"}`), "**Documentation:** https://onetool.beycom.online/reference/tools/web-fetch/")
	assert.Contains(t, f.ok(t, "ot.help", `{"query":"demo"}`), "**Documentation:** https://onetool.beycom.online/reference/tools/demo/")

	// Base URL and slugs are configurable; the defaults stay for the others.
	g := newFixture(t, func(_ *fixture, c *ot.Config) {
		c.Docs = func() ot.Docs {
			return ot.Docs{BaseURL: "https://docs.example.test/tools", Slugs: map[string]string{"demo": "demonstration", "web": "web fetch", "llm": "tr%C3%A4nsform", "db": "dätabase"}}
		}
	})
	assert.Contains(t, g.ok(t, "ot.help", `{"query":"demo.foo"}`), "**Documentation:** https://docs.example.test/tools/demonstration/")
	assert.Contains(t, g.ok(t, "ot.help", `{"query":"brave"}`), "**Documentation:** https://docs.example.test/tools/brave-search/")
	for _, name := range []string{"db", "llm"} {
		require.NoError(t, g.reg.AddPack(&registry.Pack{Name: name}))
	}
	// A slug is written as a URL path segment: a space or a non-ASCII
	// letter percent-encoded, escapes already written kept as they are.
	assert.Contains(t, g.ok(t, "ot.help", `{"query":"web.fetch"}`), "**Documentation:** https://docs.example.test/tools/web%20fetch/")
	assert.Contains(t, g.ok(t, "ot.help", `{"query":"llm"}`), "**Documentation:** https://docs.example.test/tools/tr%C3%A4nsform/")
	assert.Contains(t, g.ok(t, "ot.help", `{"query":"db"}`), "**Documentation:** https://docs.example.test/tools/d%C3%A4tabase/")
}

func TestHelp_NoMatches(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "ot.help", `{"query":"xyznonexistent"}`)
	require.True(t, res.Success)
	assert.Equal(t, `No matches found for "xyznonexistent". Use ot.tools() or ot.packs() to browse what is available.`, res.Value)
}

// A $query that names no snippet and matches nothing is answered with the
// query as it was asked ("$" alone included, not an empty one) and points
// to the list of snippets as well.
func TestHelp_NoMatchesForSnippetQuery(t *testing.T) {
	f := newFixture(t)
	for _, q := range []string{"$xyznonexistent", "$"} {
		res := f.call(t, "ot.help", `{"query":"`+q+`"}`)
		require.True(t, res.Success, q)
		assert.Equal(t, `No matches found for "`+q+`". Use ot.snippets() to list the snippets, or ot.tools() or ot.packs() to browse what is available.`, res.Value)
	}
}

// --- DefaultRank ---

func TestDefaultRank_Order(t *testing.T) {
	items := []ot.SearchItem{
		{Kind: ot.KindTool, Name: "web.fetch_all", Description: "Fetch many pages"},
		{Kind: ot.KindTool, Name: "fetcher", Description: "Other"},
		{Kind: ot.KindTool, Name: "web.fetch", Description: "Fetch a page"},
		{Kind: ot.KindTool, Name: "crawl", Description: "Follow links and fetch pages"},
		{Kind: ot.KindTool, Name: "ftch", Description: "nothing"},
		{Kind: ot.KindTool, Name: "unrelated", Description: "nothing at all"},
	}
	hits := ot.DefaultRank("fetch", items)
	var got []string
	for i, h := range hits {
		got = append(got, items[h.Index].Name)
		if i > 0 {
			assert.GreaterOrEqual(t, hits[i-1].Score, h.Score, "best first")
		}
	}
	// prefix > whole word > substring > description > typo.
	assert.Equal(t, []string{"fetcher", "web.fetch", "web.fetch_all", "crawl", "ftch"}, got)
	assert.Empty(t, ot.DefaultRank("", items))
	assert.Empty(t, ot.DefaultRank("zzzzzz", items))
}

func TestDefaultRank_ExactNameFirstProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(t, "n")
		items := make([]ot.SearchItem, n)
		for i := range items {
			items[i] = ot.SearchItem{Kind: ot.KindTool, Name: rapid.StringMatching(`[a-z]{1,8}(\.[a-z]{1,8})?`).Draw(t, "name"), Description: rapid.String().Draw(t, "desc")}
		}
		target := rapid.IntRange(0, n-1).Draw(t, "target")
		hits := ot.DefaultRank(items[target].Name, items)
		if len(hits) == 0 || items[hits[0].Index].Name != items[target].Name {
			t.Fatalf("exact name %q not first: %v", items[target].Name, hits)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i-1].Score < hits[i].Score {
				t.Fatalf("not sorted by score: %v", hits)
			}
		}
	})
}

func TestHelp_PrefixedRegistry(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("guide")})
	p, err := ot.New(ot.Config{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	res, err := reg.Invoke(t.Context(), "guide_ot.help", []byte(`{"query":"ot.tools"}`))
	require.NoError(t, err)
	out := res.Value.(string)
	assert.True(t, strings.HasPrefix(out, "# guide_ot.tools\n"), "the undecorated name finds the tool; the heading is the name to call:\n%s", out)
	assert.Contains(t, out, "**Signature:** `guide_ot.tools(pattern: str = '...', info: str = 'min')`")
	assert.Contains(t, out, "**Example:** `guide_ot.tools(pattern=\"search\", info=\"full\")`", "the example calls the name to call, as the signature does")
	res, err = reg.Invoke(t.Context(), "guide_ot.tools", []byte(`{"pattern":"ot.help","info":"list"}`))
	require.NoError(t, err)
	assert.Equal(t, "[guide_ot.help]\n", res.Value)
	res, err = reg.Invoke(t.Context(), "guide_ot.tools", []byte(`{"pattern":"ot.help","info":"full"}`))
	require.NoError(t, err)
	assert.Contains(t, res.Value, `example: guide_ot.help(query="web fetch")}`)

	// The general help names the ot tools as they are called.
	res, err = reg.Invoke(t.Context(), "guide_ot.help", []byte(`{}`))
	require.NoError(t, err)
	out = res.Value.(string)
	assert.Contains(t, out, "- guide_ot.tools(pattern, info): tools")
	assert.Contains(t, out, "read the rest with guide_ot.result(handle=…")
	assert.NotRegexp(t, `(^|[^_])ot\.[a-z]+\(`, out, "no call of an unprefixed ot tool")
	res, err = reg.Invoke(t.Context(), "guide_ot.help", []byte(`{"query":"zzzqqqxxx"}`))
	require.NoError(t, err)
	assert.Equal(t, `No matches found for "zzzqqqxxx". Use guide_ot.tools() or guide_ot.packs() to browse what is available.`, res.Value)
	// An alias's help says which ot.help describes its tool.
	require.NoError(t, reg.SetAliases(map[string]string{"lookup": "guide_ot.tools"}))
	res, err = reg.Invoke(t.Context(), "guide_ot.help", []byte(`{"query":"lookup"}`))
	require.NoError(t, err)
	assert.Contains(t, res.Value, "; guide_ot.help(query=\"guide_ot.tools\") describes them.")
	res, err = reg.Invoke(t.Context(), "guide_ot.help", []byte(`{"query":"ot.zzqq("}`))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(res.Value.(string), `No matches found for "ot.zzqq(".`), "the query is echoed as asked: %s", res.Value)
}

// Under a prefix an alias's target is shown as the tool is called
// (alias lookup: ot.tools runs guide_ot.tools; "ot.tools" is no tool
// there, and a call of it was refused), in ot.aliases, ot.config and
// ot.help; a target that is another alias is shown as written.
func TestAliases_TargetsShownAsCalledUnderAPrefix(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("guide")})
	p, err := ot.New(ot.Config{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	require.NoError(t, reg.SetAliases(map[string]string{"lookup": "ot.tools", "again": "lookup"}))
	call := func(name, args string) string {
		res, err := reg.Invoke(t.Context(), name, []byte(args))
		require.NoError(t, err)
		require.True(t, res.Success, res.Error)
		return res.Value.(string)
	}
	assert.Equal(t, "- {name: again, target: lookup}\n- {name: lookup, target: guide_ot.tools}\n", call("guide_ot.aliases", `{"info":"full"}`))
	assert.Equal(t, "[again -> lookup, lookup -> guide_ot.tools]\n", call("guide_ot.aliases", `{}`))
	assert.Contains(t, call("guide_ot.config", `{}`), "aliases: {again: lookup, lookup: guide_ot.tools}")
	assert.True(t, strings.HasPrefix(call("guide_ot.help", `{"query":"lookup"}`), "# lookup\n\nAlias of `guide_ot.tools`.\n"))
	_, _, ok := reg.Resolve("guide_ot.tools")
	assert.True(t, ok, "the target shown is a tool one can call")
}

// Under a prefix, ot.stats(tool=…) takes the undecorated name too (as
// documentation writes it): the records carry the final name.
func TestStats_ToolFilterUndecoratedUnderPrefix(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new("guide")})
	st := &fakeStats{}
	p, err := ot.New(ot.Config{Registry: reg, Stats: st})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	for _, tool := range []string{"ot.help", "guide_ot.help"} {
		_, err = reg.Invoke(t.Context(), "guide_ot.stats", []byte(`{"tool":"`+tool+`"}`))
		require.NoError(t, err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	require.Len(t, st.queries, 2)
	assert.Equal(t, "guide_ot.help", st.queries[0].Tool)
	assert.Equal(t, "guide_ot.help", st.queries[1].Tool)
}
