package ot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"

	"github.com/toolpack-go/toolpack/internal/pysig"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// maxHelpHits caps the matches ot.help shows per group.
const maxHelpHits = 25

// docURL is the documentation URL of a pack: base URL, slug, slash.
func (p *pack) docURL(packName string) string {
	var d Docs
	if p.cfg.Docs != nil {
		d = p.cfg.Docs()
	}
	base := d.BaseURL
	if base == "" {
		base = DefaultDocsBaseURL
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	slug, ok := d.Slugs[packName]
	if !ok || slug == "" {
		slug = defaultSlug(packName)
	}
	return base + escapeSegment(slug) + "/"
}

// escapeSegment writes a slug as a URL path segment: characters a path
// segment cannot hold (a space, a non-ASCII letter) are percent-encoded,
// and a slug already written with escapes keeps them (not encoded twice).
func escapeSegment(slug string) string {
	if u, err := url.PathUnescape(slug); err == nil {
		slug = u
	}
	return url.PathEscape(slug)
}

// toolDocURL is the documentation URL of a tool: its pack's, or, for a
// tool outside any pack, that of the pack its dotted name starts with.
func (p *pack) toolDocURL(t *registry.Tool) string {
	pk := t.Pack
	if pk == "" {
		pk, _, _ = strings.Cut(t.BaseName, ".")
	}
	if pk == "" {
		return ""
	}
	return p.docURL(pk)
}

func (p *pack) help(ctx context.Context, a HelpArgs) (result.Result[string], error) {
	lvl := info(a.Info)
	q := strings.TrimSpace(a.Query)
	sp := startSpan(ctx, ToolHelp, slog.String("query", q), slog.String("info", lvl))
	if q == "" {
		return sp.end(result.Ok(p.generalHelp()), nil, slog.String("kind", "general"))
	}
	if lvl != InfoList {
		md, kind, ok, err := p.exact(q, lvl)
		if err != nil {
			return sp.end(result.Result[string]{}, err, slog.String("kind", kind))
		}
		if ok {
			return sp.end(result.Ok(md), nil, slog.String("kind", kind))
		}
	}
	res, n, err := p.search(q, lvl)
	return sp.end(res, err, slog.String("kind", "search"), slog.Int("count", n))
}

// exact answers a query naming a tool, pack, alias or $snippet.
func (p *pack) exact(q, lvl string) (md, kind string, ok bool, err error) {
	if name, isSnippet := strings.CutPrefix(q, "$"); isSnippet {
		for _, s := range p.snippetList() {
			if s.Name == name {
				def, err := p.snippetDefinition(s)
				return def, "snippet", true, err
			}
		}
		return "", "", false, nil
	}
	if t := p.lookupTool(q); t != nil {
		return p.toolMarkdown(t, lvl), "tool", true, nil
	}
	servers := p.servers()
	for _, pk := range p.allPacks(servers) {
		if pk.Name == q {
			return p.packMarkdown(pk, p.packSource(pk, servers), p.instructions()[pk.Name], true), "pack", true, nil
		}
	}
	for _, al := range p.aliasList() {
		if al.Name == q {
			return p.aliasMarkdown(al), "alias", true, nil
		}
	}
	return "", "", false, nil
}

// lookupTool finds an enabled tool by final or undecorated name.
func (p *pack) lookupTool(name string) *registry.Tool {
	if t, ok := p.reg.Lookup(name); ok {
		return t
	}
	for _, t := range p.reg.List() {
		if t.BaseName == name {
			return t
		}
	}
	return nil
}

// code writes s as inline Markdown code, fenced with more backticks than
// s contains in a row.
func code(s string) string {
	s = oneLine(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// codeBlock writes s as a fenced Markdown code block.
func codeBlock(lang, s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + fence
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// toolMarkdown is a tool's help: heading, description, signature,
// arguments, return type, example and documentation URL; at info full
// also title, pack, source, hints, declared errors and input schema.
func (p *pack) toolMarkdown(t *registry.Tool, lvl string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", t.Name)
	if d := description(t); d != "" {
		fmt.Fprintf(&b, "\n%s\n", d)
	}
	fmt.Fprintf(&b, "\n**Signature:** %s\n", code(signature(t)))
	b.WriteString("\n**Arguments:**")
	ps := pysig.CallOrder(pysig.Params(t.InputSchema)) // in the signature's order
	if len(ps) == 0 {
		b.WriteString(" none\n")
	} else {
		b.WriteString("\n")
		for _, pr := range ps {
			fmt.Fprintf(&b, "- %s (%s", code(pr.Name), pr.Type)
			switch {
			case pr.Required:
				b.WriteString(", required")
			case pr.HasDefault:
				b.WriteString(", default " + pysig.PyRepr(pr.Default))
			default:
				b.WriteString(", optional")
			}
			b.WriteString(")")
			if pr.Description != "" {
				b.WriteString(": " + pr.Description)
			}
			b.WriteString("\n")
		}
	}
	if r := returns(t); r != "" {
		fmt.Fprintf(&b, "\n**Returns:** %s\n", code(r))
	}
	if ex := example(t); ex != "" {
		fmt.Fprintf(&b, "\n**Example:** %s\n", code(ex))
	}
	if u := p.toolDocURL(t); u != "" {
		fmt.Fprintf(&b, "\n**Documentation:** %s\n", u)
	}
	if lvl == InfoFull {
		b.WriteString("\n## Details\n\n")
		if t.Title != "" {
			fmt.Fprintf(&b, "- Title: %s\n", oneLine(t.Title))
		}
		if t.Pack != "" {
			fmt.Fprintf(&b, "- Pack: %s\n", t.Pack)
		}
		fmt.Fprintf(&b, "- Source: %s\n", t.Source)
		if g := asCalled(t, t.Usage.Signature); g != "" && g != signature(t) {
			fmt.Fprintf(&b, "- Go signature: %s\n", code(g))
		}
		if h := hints(t.Annotations); h != "" {
			fmt.Fprintf(&b, "- Hints: %s\n", h)
		}
		for _, e := range t.Errors {
			fmt.Fprintf(&b, "- Error type %s", code(string(e.Type)))
			if e.Status != 0 {
				fmt.Fprintf(&b, " (HTTP %d)", e.Status)
			}
			if e.Description != "" {
				b.WriteString(": " + oneLine(e.Description))
			}
			b.WriteString("\n")
		}
		var ind bytes.Buffer
		if json.Indent(&ind, t.InputSchema, "", "  ") == nil {
			fmt.Fprintf(&b, "\n**Input schema:**\n\n%s\n", codeBlock("json", ind.String()))
		}
		if len(t.OutputSchema) > 0 {
			ind.Reset()
			if json.Indent(&ind, t.OutputSchema, "", "  ") == nil {
				fmt.Fprintf(&b, "\n**Output schema:**\n\n%s\n", codeBlock("json", ind.String()))
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// hints lists the annotations a tool states.
func hints(a registry.Annotations) string {
	var hs []string
	add := func(name string, v *bool) {
		if v != nil {
			hs = append(hs, fmt.Sprintf("%s=%t", name, *v))
		}
	}
	add("read_only", a.ReadOnly)
	add("destructive", a.Destructive)
	add("idempotent", a.Idempotent)
	add("open_world", a.OpenWorld)
	return strings.Join(hs, ", ")
}

// packMarkdown is a pack's detail: heading, description, source,
// configured instructions, its tools with their descriptions and (for
// ot.help) the documentation URL.
func (p *pack) packMarkdown(pk *registry.Pack, source, instructions string, withURL bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", pk.Name)
	if d := strings.TrimSpace(pk.Description); d != "" {
		fmt.Fprintf(&b, "\n%s\n", d)
	}
	if source == "proxy" {
		fmt.Fprintf(&b, "\nSource: proxy (MCP server %s)\n", pk.Name)
	} else {
		fmt.Fprintf(&b, "\nSource: %s\n", source)
	}
	if ins := strings.TrimSpace(instructions); ins != "" {
		fmt.Fprintf(&b, "\n## Instructions\n\n%s\n", ins)
	}
	b.WriteString("\n## Tools\n\n")
	if len(pk.Tools) == 0 {
		b.WriteString("None available (the pack is switched off, or its server is not connected).\n")
	}
	for _, t := range pk.Tools {
		fmt.Fprintf(&b, "- %s", code(t.Name))
		if s := toolSummary(t); s != "" {
			b.WriteString(": " + s)
		}
		b.WriteString("\n")
	}
	if withURL {
		fmt.Fprintf(&b, "\n**Documentation:** %s\n", p.docURL(pk.Name))
	}
	return strings.TrimRight(b.String(), "\n")
}

// aliasMarkdown is an alias's help: name, target and how to use it.
func (p *pack) aliasMarkdown(al Alias) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nAlias of %s.\n", al.Name, code(al.Target))
	if t, _, ok := p.reg.Resolve(al.Name); ok {
		if s := toolSummary(t); s != "" {
			fmt.Fprintf(&b, "\n%s: %s\n", code(t.Name), s)
		}
		fmt.Fprintf(&b, p.calls("\nUsage: call %s with the arguments of %s; ot.help(query=%q) describes them."),
			code(al.Name), code(t.Name), t.Name)
	} else {
		fmt.Fprintf(&b, "\nUsage: call %s with the arguments of %s. No tool of that name is registered now, so the call fails until one is.",
			code(al.Name), code(al.Target))
	}
	return b.String()
}

// noMatch is ot.help's answer when nothing matches q; a query for a
// snippet ($name) is also pointed to the list of snippets.
func (p *pack) noMatch(q string) string {
	if strings.HasPrefix(q, "$") {
		return fmt.Sprintf(p.calls("No matches found for %q. Use ot.snippets() to list the snippets, or ot.tools() or ot.packs() to browse what is available."), q)
	}
	return fmt.Sprintf(p.calls("No matches found for %q. Use ot.tools() or ot.packs() to browse what is available."), q)
}

// search ranks tools, packs, snippets and aliases against q and lists the
// matches grouped by type, best first; a q starting with "$" (a snippet
// lookup that named no snippet exactly) ranks the snippets alone, the "$"
// left out. The no-match answer quotes q as it was asked.
func (p *pack) search(q, lvl string) (result.Result[string], int, error) {
	tools := p.reg.List()
	pks := p.allPacks(p.servers())
	snips := p.snippetList()
	als := p.aliasList()
	if strings.HasPrefix(q, "$") { // a snippet lookup: only snippets answer it
		tools, pks, als = nil, nil, nil
	}
	items := make([]SearchItem, 0, len(tools)+len(pks)+len(snips)+len(als))
	for _, t := range tools {
		items = append(items, SearchItem{Kind: KindTool, Name: t.Name, Description: toolSummary(t)})
	}
	for _, pk := range pks {
		items = append(items, SearchItem{Kind: KindPack, Name: pk.Name, Description: summary(pk.Description)})
	}
	for _, s := range snips {
		items = append(items, SearchItem{Kind: KindSnippet, Name: s.Name, Description: summary(s.Description)})
	}
	for _, al := range als {
		items = append(items, SearchItem{Kind: KindAlias, Name: al.Name, Description: "alias of " + al.Target})
	}
	hits := p.rank(strings.TrimPrefix(q, "$"), items)
	groups := map[ItemKind][]int{}
	seen := map[int]bool{}
	for _, h := range hits {
		if h.Index < 0 || h.Index >= len(items) || seen[h.Index] {
			continue
		}
		seen[h.Index] = true
		k := items[h.Index].Kind
		groups[k] = append(groups[k], h.Index)
	}
	if len(seen) == 0 {
		return result.Ok(p.noMatch(q)), 0, nil
	}
	servers := p.servers()
	ins := p.instructions()
	out := object{}
	more := object{}
	for _, g := range []struct {
		kind ItemKind
		key  string
	}{{KindTool, "tools"}, {KindPack, "packs"}, {KindSnippet, "snippets"}, {KindAlias, "aliases"}} {
		idx := groups[g.kind]
		if len(idx) == 0 {
			continue
		}
		if len(idx) > maxHelpHits {
			more = append(more, field{g.key, len(idx) - maxHelpHits})
			idx = idx[:maxHelpHits]
		}
		if lvl == InfoList {
			names := make([]string, len(idx))
			for i, ix := range idx {
				names[i] = items[ix].Name
			}
			out = append(out, field{g.key, names})
			continue
		}
		entries := make([]any, len(idx))
		for i, ix := range idx {
			it := items[ix]
			if lvl != InfoFull {
				entries[i] = object{{"name", it.Name}, {"description", text(it.Description)}}
				continue
			}
			switch g.kind {
			case KindTool:
				entries[i] = toolEntry(tools[ix], InfoFull)
			case KindPack:
				pk := pks[ix-len(tools)]
				e := object{{"name", pk.Name}, {"source", p.packSource(pk, servers)}, {"tool_count", len(pk.Tools)},
					{"description", text(summary(pk.Description))}}
				if s := strings.TrimSpace(ins[pk.Name]); s != "" {
					e = append(e, field{"instructions", text(s)})
				}
				e = append(e, field{"docs", p.docURL(pk.Name)})
				entries[i] = e
			case KindSnippet:
				s := snips[ix-len(tools)-len(pks)]
				params := object{}
				for _, pr := range s.Params {
					po := object{}
					if pr.HasDefault {
						po = append(po, field{"default", pr.Default})
					}
					params = append(params, field{pr.Name, append(po, field{"description", text(pr.Description)})})
				}
				entries[i] = object{{"name", "$" + s.Name}, {"description", text(s.Description)}, {"params", params}, {"body", text(s.Body)}}
			case KindAlias:
				al := als[ix-len(tools)-len(pks)-len(snips)]
				entries[i] = object{{"name", al.Name}, {"target", al.Target}}
			}
		}
		out = append(out, field{g.key, entries})
	}
	if len(more) > 0 {
		out = append(out, field{"more", more})
	}
	res, err := okYAML(out)
	return res, len(seen), err
}

// generalHelp is ot.help without a query. Its counts are those of the
// listings: ot.tools, ot.packs, ot.snippets and ot.aliases.
func (p *pack) generalHelp() string {
	var b strings.Builder
	b.WriteString(`# Help

## Discover
- ot.tools(pattern, info): tools; pattern keeps names containing it (case-insensitive)
- ot.packs(pattern, info): packs of tools, local and from remote MCP servers
- ot.snippets(pattern, info): snippets, named sequences of tool calls run as $name
- ot.aliases(pattern, info): aliases, short names that run another tool
- ot.help(query, info): the documentation of a tool, pack, alias or $snippet by exact name; any other query searches them all
- ot.config(), ot.health(), ot.version(): configuration, health and version
- ot.stats(period, tool, output): call statistics; ot.result(handle, offset, limit, search, fuzzy): pages of a stored large output
- ot.notify(topic, message): append a message to a topic's file; ot.reload(): re-read the configuration

## Info levels
- list: names only
- min (default): names with a short description
- full: everything known: signatures, arguments, return types, examples, sources, instructions

## Examples
- ot.tools(pattern="search")
- ot.packs(pattern="brave", info="full")
- ot.help(query="brave.search")
- ot.help(query="$brv_research")
- ot.help(query="web fetch", info="list")

## Tips
- Start with ot.packs(), then ot.packs(pattern="{pack}", info="full") to see one pack's tools.
- Search tolerates typos: ot.help(query="scaffoldl") finds scaffold.
- A large output comes back as a handle with a preview; read the rest with ot.result(handle=…, offset=…, limit=…).
`)
	// The packs ot.packs lists: a configured server with no tools
	// registered (down, connecting) is one.
	fmt.Fprintf(&b, "\nAvailable now: %d tools in %d packs, %d snippets, %d aliases.", len(p.reg.List()), len(p.allPacks(p.servers())), len(p.snippetList()), len(p.aliasList()))
	return p.calls(b.String())
}

// calls returns text with each call of an ot tool it writes (ot.tools(…))
// naming the tool as it is called: under a registry prefix, by its final
// name (guide_ot.tools(…)). Without a prefix text comes back as it is.
// Apply it to a format before a caller's text goes in, never after: the
// caller's text stays as written.
func (p *pack) calls(text string) string {
	if p.reg.Prefix() == "" {
		return text
	}
	return otCallRE.ReplaceAllStringFunc(text, func(call string) string {
		return p.reg.TargetName(call[:len(call)-1]) + "("
	})
}

// otCallRE finds the calls of ot tools the general help writes.
var otCallRE = regexp.MustCompile(`\bot\.[a-z]+\(`)
