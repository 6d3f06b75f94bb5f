package snippet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Example is an example call of a snippet and what it expands to.
type Example struct {
	// Call is the call in the host's snippet notation:
	// "$brv_research topic=Python".
	Call string
	// Expanded is the body with the call's values (Expand).
	Expanded string
}

// Example returns an example call with the defaults: each required
// parameter takes its value from examples, or the text "<name>" when
// examples has none; optional parameters keep their defaults unless
// examples gives one. The call lists the values that are not defaults, in
// parameter order (Params).
func (s *Snippet) Example(examples map[string]any) (Example, error) {
	vals := make(map[string]any, len(s.params))
	var call strings.Builder
	call.WriteString("$" + s.name)
	for _, p := range s.params {
		v, given := examples[p.Name]
		if !given && !p.Required {
			continue
		}
		if !given {
			v = "<" + p.Name + ">"
		}
		vals[p.Name] = v
		d, err := normalize(v)
		if err != nil {
			return Example{}, fmt.Errorf("snippet %q: example value of %q: %w", s.name, p.Name, err)
		}
		call.WriteString(" " + p.Name + "=" + callValue(d))
	}
	for k := range examples {
		if s.byName[k] == nil {
			return Example{}, fmt.Errorf("snippet %q: example value for unknown parameter %q; %s", s.name, k, knownList(s.paramNames(), k))
		}
	}
	exp, err := s.Expand(vals)
	if err != nil {
		return Example{}, err
	}
	return Example{Call: call.String(), Expanded: exp}, nil
}

// callValue writes a value in the $name k=v notation: a string bare when
// it has no space, quote, equals sign or #, otherwise (and any other
// value) as JSON.
func callValue(d any) string {
	if s, ok := d.(string); ok && s != "" && !strings.ContainsAny(s, " \t\r\n\"'=#\\") {
		return s
	}
	return compactJSON(d)
}

// Format returns the snippet's full description in the layout of seed
// 001's "Snippet output format": the definition as YAML (name,
// description, params with each parameter's default and description in
// flow style, the body as a literal block), then the example call with the
// defaults (Example) and its expansion:
//
//	name: brv_research
//	description: Search web and extract structured findings
//	params:
//	  topic: {description: "Topic to research"}
//	  count: {default: 5, description: "Number of sources"}
//	body: |
//	  results = brave.search(query="{{ topic }}", count={{ count }})
//	  llm.transform(input=results, prompt="Extract key findings")
//
//	# Example with defaults:
//	# $brv_research topic=Python
//	# Expands to:
//	results = brave.search(query="Python", count=5)
//	llm.transform(input=results, prompt="Extract key findings")
//
// The YAML part is built from yaml.Node styles, so it parses back to the
// definition. The text has no trailing newline.
func (s *Snippet) Format(examples map[string]any) (string, error) {
	ex, err := s.Example(examples)
	if err != nil {
		return "", err
	}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	add := func(m *yaml.Node, k string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, v)
	}
	str := func(v string, style yaml.Style) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: style}
	}
	add(doc, "name", str(s.name, 0))
	add(doc, "description", str(s.def.Description, 0))
	params := &yaml.Node{Kind: yaml.MappingNode}
	if len(s.params) == 0 {
		params.Style = yaml.FlowStyle
	}
	for _, p := range s.params {
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		if !p.Required {
			add(m, "default", dataNode(p.Default))
		}
		if p.Description != "" {
			add(m, "description", str(p.Description, yaml.DoubleQuotedStyle))
		}
		add(params, p.Name, m)
	}
	add(doc, "params", params)
	add(doc, "body", str(s.def.Body, yaml.LiteralStyle))
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return "", fmt.Errorf("snippet %q: format: %w", s.name, err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("snippet %q: format: %w", s.name, err)
	}
	out := strings.TrimRight(b.String(), "\n")
	out += "\n\n# Example with defaults:\n# " + ex.Call + "\n# Expands to:\n" + strings.TrimRight(ex.Expanded, "\n")
	return out, nil
}

// dataNode is the YAML node of JSON data in flow style, strings double
// quoted (as the seed shows the entries of params), numbers as written.
func dataNode(d any) *yaml.Node {
	switch d := d.(type) {
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: d, Style: yaml.DoubleQuotedStyle}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(d)}
	case json.Number:
		tag := "!!float"
		if isInteger(d) && !strings.ContainsAny(string(d), ".eE") {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(d)}
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, e := range d {
			n.Content = append(n.Content, dataNode(e))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for _, k := range slices.Sorted(mapKeys(d)) {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, dataNode(d[k]))
		}
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}
