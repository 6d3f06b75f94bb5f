package ot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The pack's YAML is built as yaml.Node trees whose styles follow the
// seed's flow-style rules, and written by the YAML library: never by
// joining strings, so any name or text is quoted or escaped as YAML needs.
//
// The rules (the package documentation states them for users):
//
//   - A list of objects is a block sequence; each item is a flow object
//     when it nests at most two levels, else a block one.
//   - The top-level object is flow only when it is simple (every value a
//     scalar or an empty collection) and fits on one line of maxFlowWidth
//     characters; a top-level list of scalars likewise.
//   - Any other object or list (a value in a block object) is flow when it
//     nests at most two levels and its line fits in maxFlowWidth; else it
//     is block and its children follow the same rules.
//   - Free text (descriptions) is double-quoted inside flow collections;
//     multi-line text in block context is a literal block (|).

// maxFlowWidth is the longest line a flow collection may make, unless it
// is an item of a list of objects (always flow when shallow enough).
const maxFlowWidth = 120

// field is one key of an object.
type field struct {
	key string
	val any
}

// object is an ordered YAML mapping.
type object []field

// blockObject is an object always written in block style (its values
// follow the rules), for layouts the seed fixes, such as a snippet's
// params.
type blockObject object

// text is free text: plain in block context, double-quoted inside flow.
type text string

// quoted is a string always double-quoted (versions, as the seed shows).
type quoted string

// decimal is a float written with a fixed number of decimals, so that a
// whole value stays a float when read back (100.0, not 100).
type decimal struct {
	v    float64
	prec int
}

type position int

const (
	posTop position = iota
	posValue
	posItem
)

// yamlDoc builds and lays out one document.
type yamlDoc struct {
	text  map[*yaml.Node]bool // free-text scalars
	block map[*yaml.Node]bool // collections forced to block style
}

// renderYAML writes v (object, blockObject, []any, []string or a scalar)
// as YAML following the flow-style rules. The text ends with a newline,
// which belongs to the document: a literal block at its end keeps its
// last line break only with it.
//
// A long list (ot.tools over a large catalogue, ot.stats over many tools)
// is written a chunk of items at a time: the library keeps every event of
// a document until it ends (about 17 KB a five-field item, 3 GB for 200,000
// of them), and a block sequence's items are laid out and written alike
// whatever their neighbours, so the chunks together are the text the
// whole document makes (a property test holds them equal).
func renderYAML(v any) (string, error) {
	return renderChunked(v, chunkItems)
}

// chunkItems is how many items of a long list are written at once.
const chunkItems = 256

// renderChunked is renderYAML writing lists longer than per a chunk of
// per items at a time: a top-level list, or the list that is the last
// value of a top-level object. A chunk that does not come out as block
// sequence items (a list of short scalars fits on one flow line) is
// written whole instead.
func renderChunked(v any, per int) (string, error) {
	out, _, err := renderChunks(v, per)
	return out, err
}

// renderChunks is renderChunked, also reporting whether the list was
// written in chunks (false: the document was written whole).
//
// Each chunk is checked to be what the whole document holds at its
// place: written alone under its key ("key:" and block sequence items),
// and for the first one, the object's head followed by exactly that. A
// list the whole document would write otherwise (flow, a key the library
// quotes) is written whole.
func renderChunks(v any, per int) (string, bool, error) {
	var head object // the object the list ends, when inObject
	var key string
	inObject := false
	list, ok := asList(v)
	if o, isObj := v.(object); isObj && len(o) > 0 {
		head, key, inObject = o[:len(o)-1], o[len(o)-1].key, true
		list, ok = asList(o[len(o)-1].val)
	}
	if !ok || len(list) <= per {
		return whole(v)
	}
	var b strings.Builder
	for i, end := 0, 0; i < len(list); i = end {
		// A short last chunk joins the one before: a few short items
		// alone would fit on one flow line, which the whole list does not.
		if end = i + per; len(list)-end < per/2 {
			end = len(list)
		}
		chunk := list[i:end]
		if !inObject {
			part, err := renderWhole(chunk)
			if err != nil {
				return "", false, err
			}
			if !strings.HasPrefix(part, "- ") {
				return whole(v) // a flow list
			}
			b.WriteString(part)
			continue
		}
		alone, err := renderWhole(object{{key, chunk}})
		if err != nil {
			return "", false, err
		}
		items, cut := strings.CutPrefix(alone, key+":\n")
		if !cut || !(strings.HasPrefix(items, "- ") || strings.HasPrefix(items, "  - ")) {
			return whole(v) // a flow list, or a key the library quotes
		}
		if i == 0 {
			first, err := renderWhole(append(slices.Clip(head), field{key, chunk}))
			if err != nil {
				return "", false, err
			}
			if !strings.HasSuffix(first, "\n"+alone) && first != alone {
				return whole(v)
			}
			b.WriteString(first)
			continue
		}
		b.WriteString(items)
	}
	return b.String(), true, nil
}

// asList is v as a list of items: a []any, or a []string (its items
// written as the strings they are either way).
func asList(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// whole is renderWhole as renderChunks answers.
func whole(v any) (string, bool, error) {
	out, err := renderWhole(v)
	return out, false, err
}

// renderWhole writes v as one document.
func renderWhole(v any) (string, error) {
	d := &yamlDoc{text: map[*yaml.Node]bool{}, block: map[*yaml.Node]bool{}}
	n, err := d.node(v)
	if err != nil {
		return "", err
	}
	if err := d.layout(n, posTop, 0, 0); err != nil {
		return "", err
	}
	d.quoteText(n, false)
	return encodeNode(n)
}

func encodeNode(n *yaml.Node) (string, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", fmt.Errorf("ot: encode YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("ot: encode YAML: %w", err)
	}
	return b.String(), nil
}

// str is a string scalar. Invalid UTF-8 becomes U+FFFD (YAML text is
// Unicode). The style is left to the library except where it errs: a
// multi-line string is a literal block only when literalSafe says it
// reads back unchanged, else double-quoted (inside flow collections the
// library double-quotes literals itself); "<<" is quoted, or a reader
// takes it for a merge key.
func str(s string) *yaml.Node {
	s = strings.ToValidUTF8(s, "\uFFFD")
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch {
	case strings.ContainsAny(s, "\n\r"):
		n.Style = yaml.DoubleQuotedStyle
		if literalSafe(s) {
			n.Style = yaml.LiteralStyle
		}
	case s == "<<", yaml11Implicit(s):
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// The plain scalars a YAML 1.1 reader (PyYAML's yaml.safe_load, the
// reader of many agents' tool code) takes for something other than a
// string, where YAML 1.2, which the library follows, sees a string: the
// old booleans (yes, no, on, off), octal, binary and sexagesimal numbers,
// numbers with underscores, and "=". Such strings are quoted, so that
// "no" stays the alias no and "10:30" stays a time, not 630. The single
// letters y and n, booleans in the 1.1 specification but strings to
// PyYAML, stay plain: a parameter named n reads as the seed shows it.
var (
	yaml11Bool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yaml11Int   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yaml11Float = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yaml11Null  = regexp.MustCompile(`^(?:~|null|Null|NULL|=)$`)
)

// yaml11Implicit reports whether a YAML 1.1 reader resolves the plain
// scalar s to something other than a string.
func yaml11Implicit(s string) bool {
	if s == "" || !strings.ContainsRune("+-.0123456789=~yYnNoOtTfF", rune(s[0])) {
		return false // the library quotes "" itself; nothing else starts so
	}
	return yaml11Bool.MatchString(s) || yaml11Int.MatchString(s) || yaml11Float.MatchString(s) || yaml11Null.MatchString(s)
}

// literalSafe reports whether a multi-line string reads back unchanged
// from a literal block (|): lines of printable text without trailing
// blanks, not starting with a blank or a line break, ending with at most
// one line break.
func literalSafe(s string) bool {
	if s == "" || s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || strings.HasSuffix(s, "\n\n") {
		return false
	}
	for _, r := range s {
		switch {
		case r == '\n':
		case r == '\t', r == '\r', r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f,
			r == '\u2028', r == '\u2029', r == '\ufeff':
			return false
		}
	}
	for l := range strings.SplitSeq(s, "\n") {
		if strings.HasSuffix(l, " ") {
			return false
		}
	}
	return true
}

// node converts a value of the pack's output model into a yaml.Node.
func (d *yamlDoc) node(v any) (*yaml.Node, error) {
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	case string:
		return str(x), nil
	case text:
		n := str(string(x))
		d.text[n] = true
		return n, nil
	case quoted:
		n := str(string(x))
		n.Style = yaml.DoubleQuotedStyle
		return n, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}, nil
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}, nil
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(x, 10)}, nil
	case decimal:
		return floatNode(x), nil
	case float64:
		// A snippet default or other configured number: the shortest form
		// that reads back as the same float64.
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatFloat(x, 'f', -1, 64)}, nil
		}
		return floatNode(decimal{v: x, prec: -1}), nil
	case []string:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, s := range x {
			n.Content = append(n.Content, str(s))
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			c, err := d.node(e)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case json.Number:
		// A configured number decoded exactly (snippet defaults): written
		// as the number it is, never as a string.
		return numberNode(x), nil
	case map[string]any:
		// A configured object: its keys sorted, its values converted by
		// these rules (so that numbers inside stay numbers).
		keys := slices.Sorted(maps.Keys(x))
		o := make(object, len(keys))
		for i, k := range keys {
			o[i] = field{k, x[k]}
		}
		return d.mapping(o)
	case object:
		return d.mapping(x)
	case blockObject:
		n, err := d.mapping(object(x))
		if err != nil {
			return nil, err
		}
		d.block[n] = true
		return n, nil
	}
	// Configured values (snippet defaults, examples) may be any JSON or
	// YAML value: the library encodes them.
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		return nil, fmt.Errorf("ot: encode %T as YAML: %w", v, err)
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	return n, nil
}

// numberNode is a JSON number as a YAML one: its text is valid YAML 1.2,
// an integer when it has no fraction or exponent, else a float. A text
// that is not a number (json.Number does not check) stays a string.
func numberNode(x json.Number) *yaml.Node {
	s := string(x)
	if !json.Valid([]byte(s)) || s == "" || strings.TrimSpace(s) != s || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return str(s)
	}
	tag := "!!int"
	if _, err := strconv.ParseInt(s, 10, 64); err != nil {
		if _, err := strconv.ParseUint(s, 10, 64); err != nil {
			// A fraction, an exponent or past uint64: YAML readers take it
			// as a float. From 2^63 to 2^64-1 it is an integer to them
			// (tagged a float, yaml.v3 refused to read it back).
			tag = "!!float"
		}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s}
}

func (d *yamlDoc) mapping(o object) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, f := range o {
		v, err := d.node(f.val)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, str(f.key), v)
	}
	return n, nil
}

func floatNode(x decimal) *yaml.Node {
	switch {
	case math.IsNaN(x.v):
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: ".nan"}
	case math.IsInf(x.v, 1):
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: ".inf"}
	case math.IsInf(x.v, -1):
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: "-.inf"}
	}
	s := strconv.FormatFloat(x.v, 'f', x.prec, 64)
	if x.prec < 0 {
		s = strconv.FormatFloat(x.v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
}

func isCollection(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode
}

// height is how many levels of collections n nests: 0 for a scalar or an
// empty collection, 1 for a collection of scalars, and so on.
func height(n *yaml.Node) int {
	if !isCollection(n) || len(n.Content) == 0 {
		return 0
	}
	h := 0
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue
		}
		h = max(h, height(c))
	}
	return h + 1
}

// multiline reports whether a scalar under n spans lines.
func multiline(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode {
		return strings.ContainsAny(n.Value, "\n\r")
	}
	for _, c := range n.Content {
		if multiline(c) {
			return true
		}
	}
	return false
}

func (d *yamlDoc) hasForcedBlock(n *yaml.Node) bool {
	if d.block[n] {
		return true
	}
	for _, c := range n.Content {
		if d.hasForcedBlock(c) {
			return true
		}
	}
	return false
}

// listOfObjects reports whether n is a sequence with a collection item.
func listOfObjects(n *yaml.Node) bool {
	if n.Kind != yaml.SequenceNode {
		return false
	}
	for _, c := range n.Content {
		if isCollection(c) && len(c.Content) > 0 {
			return true
		}
	}
	return false
}

func setFlow(n *yaml.Node) {
	if isCollection(n) {
		n.Style = yaml.FlowStyle
		for _, c := range n.Content {
			setFlow(c)
		}
	}
}

// flowWidth is the length of n written as one flow line.
func (d *yamlDoc) flowWidth(n *yaml.Node) (int, error) {
	c := clone(n, d.text, map[*yaml.Node]bool{})
	setFlow(c.n)
	d2 := &yamlDoc{text: c.text}
	d2.quoteText(c.n, true)
	s, err := encodeNode(c.n)
	if err != nil {
		return 0, err
	}
	s = strings.TrimSuffix(s, "\n")
	if strings.Contains(s, "\n") {
		return math.MaxInt, nil
	}
	return len([]rune(s)), nil
}

type cloned struct {
	n    *yaml.Node
	text map[*yaml.Node]bool
}

func clone(n *yaml.Node, isText, out map[*yaml.Node]bool) cloned {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = clone(ch, isText, out).n
	}
	if isText[n] {
		out[&c] = true
	}
	return cloned{n: &c, text: out}
}

// layout sets the styles of n at pos; indent is its block indentation and
// prefix the width of what precedes it on its line (key and ": ").
func (d *yamlDoc) layout(n *yaml.Node, pos position, indent, prefix int) error {
	if !isCollection(n) {
		return nil
	}
	if len(n.Content) == 0 {
		n.Style = yaml.FlowStyle
		return nil
	}
	if !d.block[n] {
		h := height(n)
		switch {
		case pos == posItem:
			if h <= 2 && !d.hasForcedBlock(n) {
				setFlow(n)
				return nil
			}
		case listOfObjects(n):
			// block sequence; items below
		default:
			limit := 2
			if pos == posTop {
				limit = 1
			}
			if h <= limit && !multiline(n) && !d.hasForcedBlock(n) {
				w, err := d.flowWidth(n)
				if err != nil {
					return err
				}
				if prefix+w <= maxFlowWidth {
					setFlow(n)
					return nil
				}
			}
		}
	}
	n.Style = 0
	if n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			if err := d.layout(c, posItem, indent+2, indent+2); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := d.layout(v, posValue, indent+2, indent+len([]rune(k.Value))+2); err != nil {
			return err
		}
	}
	return nil
}

// quoteText double-quotes free text inside flow collections.
func (d *yamlDoc) quoteText(n *yaml.Node, inFlow bool) {
	if n.Kind == yaml.ScalarNode {
		if inFlow && d.text[n] {
			n.Style = yaml.DoubleQuotedStyle
		}
		return
	}
	flow := inFlow || n.Style&yaml.FlowStyle != 0
	for _, c := range n.Content {
		d.quoteText(c, flow)
	}
}
