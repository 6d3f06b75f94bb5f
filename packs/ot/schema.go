package ot

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/internal/pysig"
	"github.com/toolpack-go/toolpack/registry"
)

// param is one property of a tool's input schema.
type param struct {
	name     string
	typ      string // Python-style, as the seed's signatures read: str, int, …
	desc     string
	required bool
	def      any // decoded default; meaningful when hasDef
	hasDef   bool
}

// schemaParams reads the properties of an input schema in the order the
// schema lists them. A schema that cannot be read gives none.
func schemaParams(raw json.RawMessage) []param {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	keys := objectKeys(s.Properties)
	var props map[string]map[string]any
	if json.Unmarshal(s.Properties, &props) != nil {
		return nil
	}
	out := make([]param, 0, len(keys))
	for _, k := range keys {
		p := props[k]
		desc, _ := p["description"].(string)
		def, hasDef := p["default"]
		out = append(out, param{
			name:     k,
			typ:      pysig.PyType(p),
			desc:     strings.Join(strings.Fields(desc), " "),
			required: slices.Contains(s.Required, k),
			def:      def,
			hasDef:   hasDef,
		})
	}
	return out
}

// objectKeys returns the keys of a JSON object in document order, each
// once.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// signature is the tool's call signature, as a model calls it: a
// proxied tool's Usage.Signature (the proxy derives it from the input
// schema), else one derived from the input schema the same way: required
// parameters first, then optional ones with their default or '...'. A
// local tool's Usage.Signature is its Go signature, which says nothing
// about the arguments a caller sends; ot.help(info="full") shows it.
func signature(t *registry.Tool) string {
	if strings.HasPrefix(t.Source, registry.SourceProxyPrefix) && t.Usage.Signature != "" {
		return t.Usage.Signature
	}
	ps := schemaParams(t.InputSchema)
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		if p.required {
			parts = append(parts, p.name+": "+p.typ)
		}
	}
	for _, p := range ps {
		if p.required {
			continue
		}
		d := "'...'"
		if p.hasDef {
			d = pysig.PyRepr(p.def)
		}
		parts = append(parts, p.name+": "+p.typ+" = "+d)
	}
	return t.Name + "(" + strings.Join(parts, ", ") + ")"
}

// argLines are the tool's arguments as "name: description" strings: a
// proxied tool's Usage.Args lines (the proxy derives them from the
// schema), else the input schema's properties in order. A parameter
// without a description reads "name: (no description)".
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
	ps := schemaParams(t.InputSchema)
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		d := p.desc
		if d == "" {
			d = "(no description)"
		}
		out = append(out, p.name+": "+d)
	}
	return out
}

// description is the tool's description without the arguments Markdown
// that registry.Func appends (ot shows the arguments on their own).
func description(t *registry.Tool) string {
	d := t.Description
	if a := t.Usage.Args; a != "" && strings.HasSuffix(d, a) {
		d = d[:len(d)-len(a)]
	}
	return strings.TrimSpace(d)
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
