package ot

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/internal/pysig"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// contains reports whether s contains pattern, case-insensitively; an
// empty pattern matches everything.
func contains(s, pattern string) bool {
	return pattern == "" || strings.Contains(strings.ToLower(s), strings.ToLower(pattern))
}

// matchingTools returns the enabled tools whose final name contains
// pattern.
func (p *pack) matchingTools(pattern string) []*registry.Tool {
	var out []*registry.Tool
	for _, t := range p.reg.List() {
		if contains(t.Name, pattern) {
			out = append(out, t)
		}
	}
	return out
}

// toolEntry is a tool at info level min or full.
func toolEntry(t *registry.Tool, level string) object {
	if level != InfoFull {
		return object{{"name", t.Name}, {"description", text(toolSummary(t))}}
	}
	o := object{
		{"name", t.Name},
		{"signature", signature(t)},
		{"description", text(description(t))},
		{"source", t.Source},
	}
	if a := argLines(t); len(a) > 0 {
		o = append(o, field{"args", a})
	}
	if r := returns(t); r != "" {
		o = append(o, field{"returns", r})
	}
	if ex := example(t); ex != "" {
		o = append(o, field{"example", ex})
	}
	return o
}

// example is the tool's Usage.Example calling the tool by the name a
// client calls, as its signature does (asCalled): a pack writes the
// example with the undecorated name, which under a prefix is not the
// tool's name.
func example(t *registry.Tool) string { return asCalled(t, t.Usage.Example) }

func (p *pack) tools(ctx context.Context, a ToolsArgs) (result.Result[string], error) {
	lvl := info(a.Info)
	sp := startSpan(ctx, ToolTools, slog.String("pattern", a.Pattern), slog.String("info", lvl))
	ts := p.matchingTools(a.Pattern)
	var v any
	if lvl == InfoList {
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.Name
		}
		v = names
	} else {
		items := make([]any, len(ts))
		for i, t := range ts {
			items[i] = toolEntry(t, lvl)
		}
		v = items
	}
	res, err := okYAML(v)
	return sp.end(res, err, slog.Int("count", len(ts)))
}

// packSource is "proxy" for a pack whose tools come from a remote MCP
// server (or that is named after a configured server), else "local".
func (p *pack) packSource(pk *registry.Pack, servers []ServerStatus) string {
	for _, t := range pk.Tools {
		if strings.HasPrefix(t.Source, registry.SourceProxyPrefix) {
			return "proxy"
		}
	}
	for _, s := range servers {
		if s.Name == pk.Name {
			return "proxy"
		}
	}
	return "local"
}

// allPacks is the registry's packs and, as packs without tools, the
// configured servers that have none registered (not connected yet, or
// down), sorted by name: a server the configuration names is found by
// ot.packs and ot.help whatever its state.
func (p *pack) allPacks(servers []ServerStatus) []*registry.Pack {
	pks := p.reg.Packs()
	have := make(map[string]bool, len(pks))
	for _, pk := range pks {
		have[pk.Name] = true
	}
	added := false
	for _, s := range servers {
		if !have[s.Name] {
			have[s.Name] = true
			pks = append(pks, &registry.Pack{Name: s.Name, Description: serverPackDescription(s)})
			added = true
		}
	}
	if added {
		slices.SortFunc(pks, func(a, b *registry.Pack) int { return cmp.Compare(a.Name, b.Name) })
	}
	return pks
}

// serverPackDescription describes a configured server with no tools
// registered.
func serverPackDescription(s ServerStatus) string {
	if s.Connected {
		return "MCP server " + s.Name + ", connected, serving no tools."
	}
	return "MCP server " + s.Name + ", not connected: its tools appear when it connects."
}

func (p *pack) servers() []ServerStatus {
	if p.cfg.Servers == nil {
		return nil
	}
	return p.cfg.Servers()
}

func (p *pack) instructions() map[string]string {
	if p.cfg.Instructions == nil {
		return nil
	}
	return p.cfg.Instructions()
}

func (p *pack) packs(ctx context.Context, a PacksArgs) (result.Result[string], error) {
	lvl := info(a.Info)
	sp := startSpan(ctx, ToolPacks, slog.String("pattern", a.Pattern), slog.String("info", lvl))
	servers := p.servers()
	var pks []*registry.Pack
	for _, pk := range p.allPacks(servers) {
		if contains(pk.Name, a.Pattern) {
			pks = append(pks, pk)
		}
	}
	n := slog.Int("count", len(pks))
	switch lvl {
	case InfoList:
		names := make([]string, len(pks))
		for i, pk := range pks {
			names[i] = pk.Name
		}
		res, err := okYAML(names)
		return sp.end(res, err, n)
	case InfoFull:
		if len(pks) == 0 {
			return sp.end(result.Ok(fmt.Sprintf(p.calls("No pack name contains %q. Call ot.packs() to list every pack."), a.Pattern)), nil, n)
		}
		ins := p.instructions()
		parts := make([]string, len(pks))
		for i, pk := range pks {
			parts[i] = p.packMarkdown(pk, p.packSource(pk, servers), ins[pk.Name], false)
		}
		return sp.end(result.Ok(strings.Join(parts, "\n\n")), nil, n)
	}
	items := make([]any, len(pks))
	for i, pk := range pks {
		items[i] = object{{"name", pk.Name}, {"source", p.packSource(pk, servers)}, {"tool_count", len(pk.Tools)}}
	}
	res, err := okYAML(items)
	return sp.end(res, err, n)
}

// aliasList is the configured aliases in configuration order, or the
// registry's sorted by name. A target that names a tool is shown as the
// tool is called: under a prefix, alias plus: add runs tp_add, and "add"
// is no tool there. A target that is another alias, or that no tool
// serves now, is shown as written.
func (p *pack) aliasList() []Alias {
	var out []Alias
	if p.cfg.Aliases != nil {
		out = slices.Clone(p.cfg.Aliases())
	} else {
		m := p.reg.Aliases()
		out = make([]Alias, 0, len(m))
		for a, t := range m {
			out = append(out, Alias{Name: a, Target: t})
		}
		slices.SortFunc(out, func(a, b Alias) int { return cmp.Compare(a.Name, b.Name) })
	}
	if p.reg.Prefix() == "" {
		return out
	}
	for i, al := range out {
		if p.reg.IsAlias(al.Target) {
			continue
		}
		if t, _, ok := p.reg.Resolve(al.Name); ok {
			out[i].Target = t.Name
		}
	}
	return out
}

func (p *pack) aliases(ctx context.Context, a AliasesArgs) (result.Result[string], error) {
	lvl := info(a.Info)
	sp := startSpan(ctx, ToolAliases, slog.String("pattern", a.Pattern), slog.String("info", lvl))
	var as []Alias
	for _, al := range p.aliasList() {
		if contains(al.Name, a.Pattern) || contains(al.Target, a.Pattern) {
			as = append(as, al)
		}
	}
	var v any
	switch lvl {
	case InfoList:
		names := make([]string, len(as))
		for i, al := range as {
			names[i] = al.Name
		}
		v = names
	case InfoFull:
		items := make([]any, len(as))
		for i, al := range as {
			items[i] = object{{"name", al.Name}, {"target", al.Target}}
		}
		v = items
	default:
		lines := make([]string, len(as))
		for i, al := range as {
			lines[i] = al.Name + " -> " + al.Target
		}
		v = lines
	}
	res, err := okYAML(v)
	return sp.end(res, err, slog.Int("count", len(as)))
}

func (p *pack) snippetList() []Snippet {
	if p.cfg.Snippets == nil {
		return nil
	}
	return p.cfg.Snippets.Snippets()
}

func (p *pack) snippets(ctx context.Context, a SnippetsArgs) (result.Result[string], error) {
	lvl := info(a.Info)
	sp := startSpan(ctx, ToolSnippets, slog.String("pattern", a.Pattern), slog.String("info", lvl))
	var ss []Snippet
	for _, s := range p.snippetList() {
		if contains(s.Name, a.Pattern) || contains(s.Description, a.Pattern) {
			ss = append(ss, s)
		}
	}
	n := slog.Int("count", len(ss))
	switch lvl {
	case InfoList:
		names := make([]string, len(ss))
		for i, s := range ss {
			names[i] = s.Name
		}
		res, err := okYAML(names)
		return sp.end(res, err, n)
	case InfoFull:
		switch {
		case len(ss) == 0 && len(p.snippetList()) == 0:
			return sp.end(result.Ok("No snippets are configured (the snippets: key of the configuration)."), nil, n)
		case len(ss) == 0:
			return sp.end(result.Ok(fmt.Sprintf(p.calls("No snippet name or description contains %q. Call ot.snippets() to list every snippet."), a.Pattern)), nil, n)
		}
		parts := make([]string, len(ss))
		for i, s := range ss {
			def, err := p.snippetDefinition(s)
			if err != nil {
				return sp.end(result.Result[string]{}, err, n)
			}
			parts[i] = def
		}
		return sp.end(result.Ok(strings.Join(parts, "\n---\n\n")), nil, n)
	}
	o := make(object, len(ss))
	for i, s := range ss {
		o[i] = field{s.Name, text(s.Description)}
	}
	res, err := okYAML(o)
	return sp.end(res, err, n)
}

// snippetDefinition is a snippet's full definition in the seed's layout:
// the definition as YAML, then an example call using the defaults and
// what it expands to.
func (p *pack) snippetDefinition(s Snippet) (string, error) {
	params := make(blockObject, len(s.Params))
	for i, pr := range s.Params {
		o := object{}
		if pr.HasDefault {
			o = append(o, field{"default", pr.Default})
		}
		o = append(o, field{"description", text(pr.Description)})
		params[i] = field{pr.Name, o}
	}
	// Block style whatever its size: the seed fixes this layout (a short
	// snippet came out as one flow line).
	def := blockObject{{"name", s.Name}, {"description", text(s.Description)}}
	if len(params) > 0 {
		def = append(def, field{"params", params})
	}
	def = append(def, field{"body", s.Body})
	y, err := renderYAML(def)
	if err != nil {
		return "", err
	}
	// The example: every required parameter gets its example (or a
	// placeholder); the others keep their defaults.
	call := "$" + s.Name
	vals := map[string]any{}
	for _, pr := range s.Params {
		if pr.HasDefault {
			continue
		}
		v := pr.Example
		if v == nil {
			v = "<" + pr.Name + ">"
		}
		vals[pr.Name] = v
		call += " " + pr.Name + "=" + snippetArg(v)
	}
	var b strings.Builder
	b.WriteString(y)
	b.WriteString("\n# Example with defaults:\n# ")
	b.WriteString(oneLine(call))
	b.WriteString("\n")
	expanded, err := p.cfg.Snippets.Expand(s.Name, vals)
	if err != nil {
		b.WriteString("# Could not expand: ")
		b.WriteString(oneLine(err.Error()))
		b.WriteString("\n")
		return b.String(), nil
	}
	b.WriteString("# Expands to:\n")
	b.WriteString(strings.TrimRight(expanded, "\n"))
	b.WriteString("\n")
	return b.String(), nil
}

// snippetArg writes a value as a $snippet call takes it: a string plain
// when it is one word that reads as no other value (topic=Python), else
// double-quoted (q="3", q="true": plain, they would read as a number and
// a boolean); any other value as the signature writes values (n=3).
func snippetArg(v any) string {
	s, ok := v.(string)
	if !ok {
		return pysig.PyRepr(v)
	}
	if s != "" && !strings.ContainsAny(s, " \t\n\r\"'=") && !json.Valid([]byte(s)) {
		return s
	}
	return fmt.Sprintf("%q", s)
}

// oneLine keeps a comment on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func (p *pack) config(ctx context.Context, _ NoArgs) (result.Result[string], error) {
	sp := startSpan(ctx, ToolConfig)
	aliases := object{}
	for _, a := range p.aliasList() {
		aliases = append(aliases, field{a.Name, a.Target})
	}
	snippets := object{}
	for _, s := range p.snippetList() {
		snippets = append(snippets, field{s.Name, object{{"description", text(s.Description)}}})
	}
	servers := []string{}
	for _, s := range p.servers() {
		servers = append(servers, s.Name)
	}
	res, err := okYAML(object{{"aliases", aliases}, {"snippets", snippets}, {"servers", servers}})
	return sp.end(res, err)
}

// Proxy health states of ot.health.
const (
	healthOK       = "ok"
	healthDegraded = "degraded"
)

func (p *pack) health(ctx context.Context, _ NoArgs) (result.Result[string], error) {
	sp := startSpan(ctx, ToolHealth)
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "unknown (" + err.Error() + ")"
	}
	servers := p.servers()
	status := healthOK
	states := object{}
	for _, s := range servers {
		st := "connected"
		if !s.Connected {
			st, status = "disconnected", healthDegraded
		}
		states = append(states, field{s.Name, st})
	}
	out := object{
		{"version", quoted(p.version)},
		{"go", quoted(goVersion())},
		{"cwd", cwd},
		{"registry", object{{"status", healthOK}, {"tool_count", len(p.reg.List())}}},
		{"proxy", object{{"status", status}, {"server_count", len(servers)}, {"servers", states}}},
	}
	attrs := []slog.Attr{slog.String("proxy_status", status)}
	if p.cfg.Databases != nil {
		if dbs := p.cfg.Databases(ctx); len(dbs) > 0 {
			dbStatus, dbStates := DatabasesStatus(dbs), object{}
			for _, d := range dbs {
				dbStates = append(dbStates, field{d.Name, d.State()})
			}
			out = append(out, field{"postgresql", object{{"status", dbStatus}, {"databases", dbStates}}})
			attrs = append(attrs, slog.String("postgresql_status", dbStatus))
		}
	}
	res, err := okYAML(out)
	return sp.end(res, err, attrs...)
}

func (p *pack) versionTool(ctx context.Context, _ NoArgs) (result.Result[string], error) {
	sp := startSpan(ctx, ToolVersion)
	return sp.end(result.Ok(p.version), nil)
}

// Texts of ot.reload.
const (
	reloadOK = "OK: Configuration reloaded"
)

func (p *pack) reload(ctx context.Context, _ NoArgs) (result.Result[string], error) {
	sp := startSpan(ctx, ToolReload)
	if p.cfg.Reload == nil {
		return sp.end(result.Failure[string]("Error: this server has no configuration file to reload", result.Unavailable), nil)
	}
	if err := p.cfg.Reload(ctx); err != nil {
		msg := "Error: configuration not reloaded (the previous configuration stays): " + err.Error()
		if errors.Is(err, ErrUnavailable) {
			// A database the file names is away: not the file's fault,
			// and the same reload works once it is back.
			return sp.end(result.Failure[string](msg, result.Unavailable).
				WithInstruction("A database the configuration names cannot be reached right now; the file itself is fine. Retry ot.reload in a moment; if it keeps failing, tell the user the database is unreachable."), nil)
		}
		return sp.end(result.Failure[string](msg, ErrTypeConfig).
			WithInstruction("Tell the user the configuration file has an error; do not retry until it is fixed."), nil)
	}
	return sp.end(result.Ok(reloadOK), nil)
}

// goVersion is the Go release the binary was built with, as the seed's
// python: shows Python's ("1.26.8" from "go1.26.8"); a development
// toolchain's full text is kept.
func goVersion() string {
	return strings.TrimPrefix(runtime.Version(), "go")
}
