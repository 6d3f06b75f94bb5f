// Package disclosure serves a large registry to an agent a little at a
// time. Instead of every tool's schema up front — thousands of tools cost
// an agent thousands of schemas in its context before it does anything —
// it offers three meta-tools:
//
//   - search_tools(query, limit): the tools matching the query, ranked
//     (prefix > whole word > fuzzy) over names, descriptions, argument
//     names and the aliases that call them (registry.SetAliases), with
//     one line of description each;
//   - describe_tool(name): one tool's full description and schemas, on
//     demand;
//   - call_tool(name, arguments): runs the tool through the registry's own
//     pipeline (validation, middleware, output checks), so a call is
//     exactly the call it would be if the tool were listed: the agent's
//     own, not one nested in call_tool's (registry.Detach), so that, for
//     one, a host's large-output store stores what it returns.
//
// describe_tool and call_tool take a name as a call does: an alias
// resolves as the registry resolves it, and a name the registry refuses
// is refused the same way — a disabled tool (registry.SetEnabled) as
// disabled, an alias whose target is not served as such, both failures
// of type unavailable with the registry's own text and instruction
// (registry.Registry.Unavailable). Only a name that is neither a tool nor
// an alias is not_found, with the closest names as suggestions.
//
// Optionally a few tools stay listed as themselves beside the meta-tools
// (Options.Visible). New returns a Disclosure whose Registry is served
// like any other — over MCP, REST or as provider tool definitions — and
// which follows the full registry: tools added, removed or switched off
// there are found, described and called (or refused) at once — a tool
// switched off is never found by search_tools — and the listed tools
// change with them (MCP clients get list-changed). The search index
// is rebuilt in the background once changes settle (20 ms without one), so
// searches after a change do not pay for the rebuild; one made sooner
// builds it or waits for the build under way, and so never misses a
// change made before it.
//
// call_tool's annotations are the least permissive of the tools it can
// reach: read-only only when every tool is, destructive when any tool is
// or does not say, idempotent only when every tool is, open-world when
// any tool is or does not say. A client that asks before destructive
// calls therefore asks before call_tool when any reachable tool needs it.
package disclosure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolpack-go/toolpack/internal/search"
	"github.com/toolpack-go/toolpack/internal/textcut"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// The meta-tools' names.
const (
	SearchTools  = "search_tools"
	DescribeTool = "describe_tool"
	CallTool     = "call_tool"
)

// PackName is the pack holding the meta-tools (and the visible tools) in
// the Disclosure's registry.
const PackName = "disclosure"

// Limits of search_tools.
const (
	// DefaultLimit is how many tools search_tools returns when the
	// limit is not given.
	DefaultLimit = 10
	// MaxLimit is the largest limit search_tools takes.
	MaxLimit = 50
	// summaryRunes caps the description search_tools returns per tool.
	summaryRunes = 200
)

// Options configure a Disclosure. The zero value lists only the three
// meta-tools and logs with slog.Default.
type Options struct {
	// Visible names tools of the full registry that stay listed as
	// themselves beside the meta-tools (while they exist and are
	// enabled). A name the full registry does not have is an error.
	Visible []string
	// Logger logs the Disclosure registry's own calls (the meta-tools);
	// the calls they make are logged by the full registry.
	Logger *slog.Logger
}

// Disclosure is a registry serving a full one through the meta-tools.
type Disclosure struct {
	full    *registry.Registry
	front   *registry.Registry
	visible []string
	unsub   func()

	// refreshMu serializes refresh, so that a refresh reading an older
	// listing never registers its pack after a newer one's.
	refreshMu sync.Mutex

	mu    sync.Mutex
	gen   uint64        // changes of the full registry seen
	ix    *search.Index // the search index, built from the listing at ixGen
	ixGen uint64
	ixAls map[string]string // the full registry's aliases when ix was built
	tools []*registry.Tool  // by index position in ix
	shown string            // fingerprint of what the front lists

	buildMu sync.Mutex                // one index build at a time
	texts   map[*registry.Tool]string // searchText of the tools of the last build; buildMu
	settle  *time.Timer               // starts the background build once changes settle; mu
}

// New returns a Disclosure serving full. Close it to stop following full.
func New(full *registry.Registry, opts Options) (*Disclosure, error) {
	if full == nil {
		return nil, errors.New("disclosure: the full registry is nil")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	d := &Disclosure{full: full, visible: slices.Clone(opts.Visible)}
	for i, name := range d.visible {
		if _, ok := full.Lookup(name); !ok {
			return nil, fmt.Errorf("disclosure: Options.Visible[%d]: the registry has no tool %q", i, name)
		}
		if name == SearchTools || name == DescribeTool || name == CallTool {
			return nil, fmt.Errorf("disclosure: Options.Visible[%d]: %q is the name of a meta-tool", i, name)
		}
	}
	// The front serves the full registry's tools as that registry: the
	// same ID, so that a proxy of this host never serves them back to it.
	d.front = registry.New(registry.Options{Logger: log, Prefix: new(""), ID: full.ID()})
	// Follow full before the first listing, so no change falls between.
	d.unsub = full.Subscribe(func(registry.Change) {
		d.mu.Lock()
		d.gen++
		d.mu.Unlock()
		d.buildSoon()
		if err := d.refresh(); err != nil {
			log.Warn("disclosure: refreshing the listed tools failed", "err", err)
		}
	})
	if err := d.refresh(); err != nil {
		d.unsub()
		return nil, err
	}
	d.buildSoon() // the first search finds the index ready
	return d, nil
}

// Registry is what to serve: the meta-tools and the visible tools.
func (d *Disclosure) Registry() *registry.Registry { return d.front }

// Close stops following the full registry.
func (d *Disclosure) Close() {
	d.unsub()
	d.mu.Lock()
	if d.settle != nil {
		d.settle.Stop()
	}
	d.mu.Unlock()
}

// index returns the search index of the full registry's enabled tools,
// as they are once every change seen so far is in: a search made after a
// change finds what it changed. An index that is behind is rebuilt — by
// the background build buildSoon starts once changes settle, when it is
// already under way (the search waits for it), else here.
func (d *Disclosure) index() (*search.Index, []*registry.Tool) {
	// Aliases change without a change of the tools (a reload): the index
	// is built again when they differ from the ones it holds.
	aliases := d.full.Aliases()
	d.mu.Lock()
	want := d.gen
	if d.ix != nil && d.ixGen >= want && maps.Equal(d.ixAls, aliases) {
		defer d.mu.Unlock()
		return d.ix, d.tools
	}
	d.mu.Unlock()
	d.buildMu.Lock()
	defer d.buildMu.Unlock()
	d.mu.Lock()
	if d.ix != nil && d.ixGen >= want && maps.Equal(d.ixAls, aliases) { // built while this one waited
		defer d.mu.Unlock()
		return d.ix, d.tools
	}
	gen := d.gen // the listing read next holds every change up to gen
	d.mu.Unlock()
	// Built outside d.mu: a change of the full registry never waits for a
	// build (its callback only counts it).
	tools := d.full.List()
	called := aliasesOf(d.full, aliases)
	items := make([]search.Item, len(tools))
	texts := make(map[*registry.Tool]string, len(tools))
	for i, t := range tools {
		text, ok := d.texts[t] // a registered tool never changes
		if !ok {
			text = searchText(t)
		}
		texts[t] = text
		if names := called[t.Name]; len(names) > 0 {
			text += "\nalso called " + strings.Join(names, " ")
		}
		items[i] = search.Item{Name: t.Name, Description: text, Kind: "tool"}
	}
	d.texts = texts
	ix := search.NewIndex(items)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ix == nil || gen > d.ixGen || (gen == d.ixGen && !maps.Equal(d.ixAls, aliases)) {
		d.ix, d.tools, d.ixGen, d.ixAls = ix, tools, gen, aliases
	}
	return d.ix, d.tools
}

// aliasesOf maps each tool's name to the aliases that call it (through
// chains and the name prefix, as a call resolves them), sorted.
func aliasesOf(full *registry.Registry, aliases map[string]string) map[string][]string {
	out := make(map[string][]string)
	for a := range aliases {
		if t, _, ok := full.Resolve(a); ok {
			out[t.Name] = append(out[t.Name], a)
		}
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}

// settleTime is how long the full registry must stay unchanged before the
// index is rebuilt in the background: a burst of changes (a catalogue
// loading thousands of tools) costs one rebuild after it, not one per
// rebuild's length during it.
const settleTime = 20 * time.Millisecond

// buildSoon rebuilds the index in the background once the full registry
// has not changed for settleTime, so that the next search finds it ready
// instead of building it (~0.1 s for 10,000 tools). A search that comes
// sooner builds it, or waits for the build under way.
func (d *Disclosure) buildSoon() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.settle == nil {
		d.settle = time.AfterFunc(settleTime, func() { _, _ = d.index() })
		return
	}
	d.settle.Reset(settleTime)
}

// searchText is what a tool is searched by beside its name: its title,
// its description's first paragraph and its argument names.
func searchText(t *registry.Tool) string {
	var sb strings.Builder
	if t.Title != "" {
		sb.WriteString(t.Title)
		sb.WriteString("\n")
	}
	sb.WriteString(firstParagraph(t.Description))
	for _, a := range argNames(t.InputSchema) {
		sb.WriteString(" ")
		sb.WriteString(a)
	}
	return sb.String()
}

// argNames are the top-level property names of an input schema.
func argNames(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// summary is a tool's description as search_tools shows it: the first
// paragraph, at most summaryRunes runes.
func summary(t *registry.Tool) string {
	return textcut.Runes(firstParagraph(t.Description), summaryRunes)
}

// refresh re-registers the front's pack when what it lists changed: the
// visible tools present, and call_tool's annotations.
func (d *Disclosure) refresh() error {
	d.refreshMu.Lock()
	defer d.refreshMu.Unlock()
	tools := d.full.List()
	ann := leastPermissive(tools)
	var shown []*registry.Tool
	for _, name := range d.visible {
		if i := slices.IndexFunc(tools, func(t *registry.Tool) bool { return t.Name == name }); i >= 0 {
			shown = append(shown, tools[i])
		}
	}
	fp := fingerprint(ann, shown)
	d.mu.Lock()
	same := fp == d.shown
	d.shown = fp
	d.mu.Unlock()
	if same {
		return nil
	}
	p, err := d.pack(ann, shown)
	if err != nil {
		return err
	}
	return d.front.ReplacePack(p)
}

func fingerprint(a registry.Annotations, shown []*registry.Tool) string {
	var sb strings.Builder
	for _, b := range []*bool{a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld} {
		fmt.Fprint(&sb, *b, ",")
	}
	for _, t := range shown {
		fmt.Fprintf(&sb, "%p,", t)
	}
	return sb.String()
}

// leastPermissive combines the tools' hints the way that asks most of a
// careful client (absent hints read as MCP's defaults: not read-only,
// destructive, not idempotent, open-world).
func leastPermissive(tools []*registry.Tool) registry.Annotations {
	readOnly, destructive, idempotent, openWorld := len(tools) > 0, false, len(tools) > 0, false
	for _, t := range tools {
		a := t.Annotations
		readOnly = readOnly && a.ReadOnly != nil && *a.ReadOnly
		idempotent = idempotent && a.Idempotent != nil && *a.Idempotent
		ro := a.ReadOnly != nil && *a.ReadOnly
		destructive = destructive || !ro && (a.Destructive == nil || *a.Destructive)
		openWorld = openWorld || a.OpenWorld == nil || *a.OpenWorld
	}
	return registry.Annotations{ReadOnly: &readOnly, Destructive: &destructive, Idempotent: &idempotent, OpenWorld: &openWorld}
}

// pack builds the front's pack: the meta-tools and the visible tools.
func (d *Disclosure) pack(ann registry.Annotations, shown []*registry.Tool) (*registry.Pack, error) {
	p := &registry.Pack{Name: PackName, Description: "Finds, describes and calls the tools of a large registry on demand."}
	ro, notDestructive, closed := true, false, false
	none := new("")
	if err := registry.AddFunc(p, SearchTools, d.searchTools, registry.ToolOptions{
		Title:       "Search tools",
		Description: "Finds tools by what they do: returns the tools whose names, descriptions or argument names match the query, best first, with one line about each. Then call describe_tool for a tool's arguments, and call_tool to run it.",
		Annotations: registry.Annotations{ReadOnly: &ro, Destructive: &notDestructive, Idempotent: &ro, OpenWorld: &closed},
		Prefix:      none,
		// In memory and fast (a rebuilt index at worst): no goroutine
		// hand-off per call.
		Inline: true,
	}); err != nil {
		return nil, err
	}
	if err := registry.AddFunc(p, DescribeTool, d.describeTool, registry.ToolOptions{
		Title:       "Describe a tool",
		Description: "Returns one tool's full description, its input schema (the arguments call_tool takes for it) and, when it has one, its output schema.",
		Annotations: registry.Annotations{ReadOnly: &ro, Destructive: &notDestructive, Idempotent: &ro, OpenWorld: &closed},
		Prefix:      none,
		Inline:      true,
	}); err != nil {
		return nil, err
	}
	if err := registry.AddFunc(p, CallTool, d.callTool, registry.ToolOptions{
		Title:       "Call a tool",
		Description: "Runs a tool found with search_tools, with arguments matching the input schema describe_tool gave. The answer is the tool's own.",
		Annotations: ann,
		Prefix:      none,
	}); err != nil {
		return nil, err
	}
	for _, t := range shown {
		name := t.Name
		p.Tools = append(p.Tools, &registry.Tool{
			Name: name, Title: t.Title, Description: t.Description,
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations,
			Errors: t.Errors, Prefix: none, Via: t.Via,
			CheckOutput: func(any) error { return nil }, // the full registry checks it
			Handler: func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
				return d.full.Invoke(ctx, name, c.Raw)
			},
		})
	}
	return p, nil
}
