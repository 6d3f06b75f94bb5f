package args

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Markdown returns the "## Arguments" Markdown for A (seed 004's
// to_schema_markdown): one list item per field with its JSON name, type,
// required/optional status, allowed values (enum, const or consent
// phrase), constraints, default and description. Fields of nested objects
// are nested list items. A type without fields renders "None.". The text is
// built once per type and cached.
func Markdown[A any]() (string, error) {
	return MarkdownOf(reflect.TypeFor[A]())
}

// MarkdownOf is Markdown for a reflect.Type.
func MarkdownOf(t reflect.Type) (string, error) {
	p, err := planFor(t)
	if err != nil {
		return "", err
	}
	p.mdOnce.Do(func() {
		var b strings.Builder
		b.WriteString("## Arguments\n\n")
		if len(p.root.fields) == 0 {
			b.WriteString("None.\n")
		} else {
			writeFields(&b, p.root, 0)
		}
		p.md = b.String()
	})
	return p.md, nil
}

func writeFields(b *strings.Builder, n *node, depth int) {
	for _, f := range n.fields {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString("- `")
		b.WriteString(f.name)
		b.WriteString("` (")
		b.WriteString(mdType(f))
		if f.required {
			b.WriteString(", required")
		} else {
			b.WriteString(", optional")
		}
		b.WriteString(")")
		var parts []string
		if f.desc != "" {
			parts = append(parts, strings.TrimSuffix(oneLine(f.desc), "."))
		}
		parts = append(parts, mdRules(f)...)
		if f.def != nil {
			parts = append(parts, "Default: `"+string(f.def)+"`")
		}
		if f.example != nil {
			parts = append(parts, "Example: `"+string(f.example)+"`")
		}
		if len(parts) > 0 {
			b.WriteString(": ")
			b.WriteString(strings.Join(parts, ". "))
			b.WriteString(".")
		}
		b.WriteString("\n")
		sub := f.node
		for sub.kind == kSlice || sub.kind == kMap {
			sub = sub.elem
		}
		if sub.kind == kStruct && len(sub.fields) > 0 {
			writeFields(b, sub, depth+1)
		}
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// mdType renders a field's type; enums render as the Literal union of
// their values ("com" | "cn").
func mdType(f *field) string {
	if f.consent != "" {
		return fmt.Sprintf("%q", f.consent)
	}
	return mdNodeType(f.node)
}

func mdNodeType(n *node) string {
	var s string
	switch {
	case n.rules.oneof != nil:
		vals := make([]string, len(n.rules.oneof.strs))
		for i, v := range n.rules.oneof.strs {
			vals[i] = literal(n, v)
		}
		s = strings.Join(vals, " | ")
	case n.rules.eq != nil && n.kind != kSlice && n.kind != kMap:
		s = literal(n, n.rules.eq.param)
	default:
		switch n.kind {
		case kSlice:
			s = "array of " + mdNodeType(n.elem)
		case kMap:
			s = "object of " + mdNodeType(n.elem)
		case kString:
			s = "string"
		case kBool:
			s = "boolean"
		case kInt, kUint:
			s = "integer"
		case kFloat:
			s = "number"
		case kStruct:
			s = "object"
		case kTime:
			s = "string (date-time)"
		case kDuration:
			s = "string (duration)"
		case kAny, kRaw:
			s = "any JSON value"
		case kCustom:
			s = customTypeText(n.custom)
		}
	}
	if n.ptr && !n.rules.required && !n.noNull && n.kind != kAny && n.kind != kRaw && !strings.HasSuffix(s, " or null") {
		s += " or null"
	}
	return s
}

// customTypeText renders the "type" of a type's own schema ("string",
// "string or null"), or "JSON value" when it has none.
func customTypeText(ct *customType) string {
	v, ok := ct.schema.get("type")
	if !ok {
		return "JSON value"
	}
	var one string
	var many []string
	switch x := v.(type) {
	case string:
		one = x
	case json.RawMessage:
		if json.Unmarshal(x, &one) != nil && json.Unmarshal(x, &many) != nil {
			return "JSON value"
		}
	}
	if one != "" {
		return one
	}
	if len(many) == 0 {
		return "JSON value"
	}
	return strings.Join(many, " or ")
}

func literal(n *node, v string) string {
	if n.kind == kString {
		return fmt.Sprintf("%q", v)
	}
	return v
}

// mdRules words the constraints of a field.
func mdRules(f *field) []string {
	if f.consent != "" {
		return []string{fmt.Sprintf("Must be exactly %q, and only when the user explicitly asked for this action", f.consent)}
	}
	var out []string
	var walk func(n *node, prefix string)
	walk = func(n *node, prefix string) {
		r := n.rules
		unit := ""
		switch n.kind {
		case kString:
			unit = " characters"
		case kSlice:
			unit = " items"
		case kMap:
			unit = " entries"
		}
		var c []string
		if r.min != nil && r.max != nil && !r.min.exclusive && !r.max.exclusive && r.min.param == r.max.param {
			c = append(c, "exactly "+qty(r.min.param, unit))
		} else {
			if r.min != nil {
				if r.min.exclusive {
					c = append(c, "more than "+qty(r.min.param, unit))
				} else {
					c = append(c, "at least "+qty(r.min.param, unit))
				}
			}
			if r.max != nil {
				if r.max.exclusive {
					c = append(c, "less than "+qty(r.max.param, unit))
				} else {
					c = append(c, "at most "+qty(r.max.param, unit))
				}
			}
		}
		if r.eq != nil && unit != "" && n.kind != kString {
			c = append(c, "exactly "+qty(r.eq.param, unit))
		}
		if r.format != nil {
			switch r.format.name {
			case "email":
				c = append(c, "an email address")
			case "uuid":
				c = append(c, "a UUID")
			case "url", "uri":
				c = append(c, "an absolute URL (scheme://host…)")
			case "datetime":
				if r.format.param == time3339 {
					c = append(c, "an RFC 3339 date-time")
				} else {
					c = append(c, "a date (YYYY-MM-DD)")
				}
			}
		}
		switch n.kind {
		case kTime:
			c = append(c, "an RFC 3339 date-time such as 2006-01-02T15:04:05Z")
		case kDuration:
			c = append(c, "a duration such as 1m30s (units h, m, s, ms, us, ns)")
		}
		if r.required && n.kind == kString && !n.ptr && r.min == nil && r.oneof == nil && r.eq == nil && r.format == nil {
			c = append(c, "not empty")
		}
		if r.required && (n.kind == kInt || n.kind == kUint || n.kind == kFloat) && !n.ptr && !rulesExcludeZero(n, false) {
			c = append(c, "not 0")
		}
		if r.required && (n.kind == kAny || n.kind == kRaw) {
			c = append(c, "not null")
		}
		if len(c) > 0 {
			out = append(out, prefix+strings.Join(c, ", "))
		}
		if n.elem != nil {
			walk(n.elem, "Each item: ")
		}
	}
	walk(f.node, "")
	for i, s := range out {
		out[i] = strings.ToUpper(s[:1]) + s[1:]
	}
	return out
}

// ConsentHeading is the heading Describe adds for tools with a Consent
// field.
const ConsentHeading = "REQUIRES EXPLICIT USER INSTRUCTION"

// Describe returns the tool description for a function taking A, seed
// 004's build_tool_description: doc, a blank line, then A's schema
// Markdown. Go has no runtime docstrings, so the doc text is passed in
// (typically the same words as the function's doc comment).
//
// When A has a Consent field, a "## REQUIRES EXPLICIT USER INSTRUCTION"
// section follows the doc: it explains that the tool may only be called
// when the user explicitly asked for the action, names the exact phrase
// to pass, and warns against frivolous use.
func Describe[A any](doc string) (string, error) {
	return DescribeOf(reflect.TypeFor[A](), doc)
}

// DescribeOf is Describe for a reflect.Type.
func DescribeOf(t reflect.Type, doc string) (string, error) {
	md, err := MarkdownOf(t)
	if err != nil {
		return "", err
	}
	p, err := planFor(t)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if d := strings.TrimSpace(doc); d != "" {
		b.WriteString(d)
		b.WriteString("\n\n")
	}
	for _, f := range p.consent {
		fmt.Fprintf(&b, "## %s\n\nThis tool performs an action with lasting effects. Call it ONLY when the user has explicitly instructed you to perform this action in this conversation, and then pass `%s` exactly as %q. Never call it on your own initiative, to test it, to explore, or as a guess at what the user might want: frivolous use can destroy or change data the user cares about. If you are unsure whether the user asked for it, ask them first.\n\n",
			ConsentHeading, f.name, f.consent)
	}
	b.WriteString(md)
	return b.String(), nil
}

// qty renders "3 characters", "1 character".
func qty(n, unit string) string {
	if n == "1" && unit != "" {
		switch unit {
		case " entries":
			return n + " entry"
		}
		return n + strings.TrimSuffix(unit, "s")
	}
	return n + unit
}
