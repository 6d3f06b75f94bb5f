package ot

import (
	"encoding/json"
	"strings"

	"github.com/toolpack-go/toolpack/internal/pysig"
	"github.com/toolpack-go/toolpack/registry"
)

// signature is the tool's call signature, as a model calls it: a
// proxied tool's Usage.Signature (the proxy derives it from the input
// schema), else one derived from the input schema the same way: required
// parameters first, then optional ones with their default or '...'. A
// local tool's Usage.Signature is its Go signature, which says nothing
// about the arguments a caller sends; ot.help(info="full") shows it.
// Either names the tool as a client calls it (asCalled).
func signature(t *registry.Tool) string {
	if strings.HasPrefix(t.Source, registry.SourceProxyPrefix) && t.Usage.Signature != "" {
		return asCalled(t, t.Usage.Signature)
	}
	return pysig.Signature(t.Name, pysig.Params(t.InputSchema))
}

// asCalled is s — a signature or an example call that a pack or the
// proxy wrote with the tool's undecorated name, "name(…)" — calling the
// tool by its final name, the one a client calls: under a registry prefix
// the undecorated name is no tool (remote.add is served as tp_remote.add).
// Any other text comes back as it is.
func asCalled(t *registry.Tool, s string) string {
	if t.Name != t.BaseName && t.BaseName != "" {
		if rest, ok := strings.CutPrefix(s, t.BaseName+"("); ok {
			return t.Name + "(" + rest
		}
	}
	return s
}

// returns is the type of the tool's value, named as signature names
// types (str, int, list, dict, Any): a proxied tool's Usage.Returns (the
// proxy derives it from the remote output schema), else the type the
// output schema says, else "Any" for a tool that states a result type
// without a schema (a Go tool returning any); "" when the tool says
// nothing about its value.
func returns(t *registry.Tool) string {
	if strings.HasPrefix(t.Source, registry.SourceProxyPrefix) && t.Usage.Returns != "" {
		return t.Usage.Returns
	}
	if len(t.OutputSchema) > 0 {
		var m map[string]any
		if json.Unmarshal(t.OutputSchema, &m) == nil && m != nil {
			return pysig.PyType(m)
		}
	}
	if t.Usage.Returns != "" {
		return "Any"
	}
	return ""
}

// argLines are the tool's arguments as "name: description" strings, in
// the order of its signature (pysig.CallOrder: the required ones first,
// each group in the schema's order): a proxied tool's Usage.Args lines
// (the proxy derives them from the schema in that order), else the input
// schema's properties. A parameter without a description reads
// "name: (no description)".
func argLines(t *registry.Tool) []string {
	if strings.HasPrefix(t.Source, registry.SourceProxyPrefix) && t.Usage.Args != "" {
		var out []string
		for l := range strings.SplitSeq(t.Usage.Args, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	ps := pysig.CallOrder(pysig.Params(t.InputSchema))
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, pysig.ArgLine(p))
	}
	return out
}

// description is the tool's description without the arguments Markdown
// that registry.Func appends (ot shows the arguments on their own). Any
// other description ending in such a section — "## Arguments" and only
// "- `name` …" lines — loses it too: a proxied tool's, as a toolpack
// server writes it, or a catalogue tool's, whose description was taken
// from a function's. ot derives the arguments from the schema and shows
// those. A section with other text is the author's, and stays.
func description(t *registry.Tool) string {
	d := t.Description
	if a := t.Usage.Args; a != "" && strings.HasSuffix(d, a) {
		d = d[:len(d)-len(a)]
	} else {
		const heading = "## Arguments\n"
		if i := strings.LastIndex(d, "\n"+heading); i >= 0 && argumentLines(d[i+1+len(heading):]) {
			d = d[:i]
		}
	}
	return strings.TrimSpace(d)
}

// argumentLines reports whether s holds only an arguments list as
// args.Markdown writes it: "- `name` …" lines (and blank ones), or
// "None." for a tool without arguments.
func argumentLines(s string) bool {
	items := 0
	for l := range strings.SplitSeq(s, "\n") {
		switch l = strings.TrimRight(l, " \r\t"); {
		case l == "":
		case strings.HasPrefix(l, "- `"), l == "None." && items == 0:
			items++
		default:
			return false
		}
	}
	return items > 0
}

// summary is the first paragraph of s on one line.
func summary(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// toolSummary is the one-line description of a tool: the first paragraph
// of its description, or its title when the description has none.
func toolSummary(t *registry.Tool) string {
	s := summary(description(t))
	if strings.HasPrefix(s, "#") || s == "" {
		return summary(t.Title)
	}
	return s
}
