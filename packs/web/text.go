package web

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageText renders an HTML tree as clean text that keeps the page's
// blocks apart: go-trafilatura's own text runs every paragraph, heading,
// list item and table cell of an article into one line, and for a short
// page (its baseline) glues the title and the body together without a
// space ("THello world").
//
// Each block (paragraph, heading, list item, table row, quotation, …) is
// a line of its own, its text with runs of white space made one space; a
// list item starts with "- " (nested items indented two spaces a level);
// a table row's cells are joined with " | "; preformatted text keeps its
// lines; <br> breaks a line. Inline elements (links, emphasis, inline
// code) leave just their text. Scripts, styles, templates, forms,
// navigation, asides, footers and embedded objects are left out.
func pageText(n *html.Node) string {
	r := &textRenderer{}
	r.node(n)
	r.flush()
	return strings.Join(r.lines, "\n")
}

type textRenderer struct {
	lines  []string
	cur    strings.Builder // the inline text of the line being built
	prefix string          // what the next line starts with ("- ")
	depth  int             // list nesting
}

// skipped are elements whose content is no part of the page's text.
var skipped = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Canvas: true, atom.Audio: true, atom.Video: true, atom.Nav: true, atom.Aside: true,
	atom.Footer: true, atom.Form: true, atom.Button: true, atom.Select: true, atom.Textarea: true,
	atom.Input: true, atom.Dialog: true,
}

// blocks are elements that stand on lines of their own.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Dt: true,
	atom.Dd: true, atom.Table: true, atom.Thead: true, atom.Tbody: true, atom.Tfoot: true,
	atom.Caption: true, atom.Blockquote: true, atom.Section: true, atom.Article: true,
	atom.Main: true, atom.Header: true, atom.Figure: true, atom.Figcaption: true,
	atom.Address: true, atom.Details: true, atom.Summary: true, atom.Fieldset: true,
	atom.Legend: true, atom.Hr: true, atom.Body: true, atom.Html: true,
}

// flush ends the line being built (nothing when it holds no text).
func (r *textRenderer) flush() {
	line := strings.Join(strings.Fields(r.cur.String()), " ")
	r.cur.Reset()
	if line == "" {
		return
	}
	r.lines = append(r.lines, r.prefix+line)
	r.prefix = ""
}

func (r *textRenderer) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		r.cur.WriteString(n.Data)
		return
	case html.ElementNode:
	case html.DocumentNode:
		r.children(n)
		return
	default: // comments, doctypes
		return
	}
	a := tag(n)
	switch {
	case skipped[a]:
	case a == atom.Br:
		r.flush()
	case a == atom.Pre || (a == atom.Code && blockCode(n)):
		r.flush()
		r.preformatted(n)
	case a == atom.Li:
		r.flush()
		r.prefix = strings.Repeat("  ", max(r.depth-1, 0)) + "- "
		r.children(n)
		r.flush()
		r.prefix = ""
	case a == atom.Ul || a == atom.Ol:
		r.flush()
		r.depth++
		r.children(n)
		r.flush()
		r.depth--
	case a == atom.Tr:
		r.flush()
		r.row(n)
	case blocks[a]:
		r.flush()
		r.children(n)
		r.flush()
	default: // inline: its text joins the line
		r.children(n)
	}
}

// containers hold blocks rather than text of their own.
var containers = map[atom.Atom]bool{
	atom.Body: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Blockquote: true, atom.Figure: true, atom.Header: true, atom.Details: true,
}

// blockCode reports whether a <code> stands as a block: the extractor
// writes a page's <pre> as <code> in a container, with no text beside it.
func blockCode(n *html.Node) bool {
	if n.Parent == nil || !containers[tag(n.Parent)] {
		return false
	}
	for c := n.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return false
		}
	}
	return true
}

// tag is n's element name as an atom: the extractor builds elements by
// name alone (DataAtom 0); 0 for a name HTML does not define.
func tag(n *html.Node) atom.Atom {
	if n.DataAtom != 0 {
		return n.DataAtom
	}
	return atom.Lookup([]byte(strings.ToLower(n.Data)))
}

func (r *textRenderer) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		r.node(c)
	}
}

// row renders a table row as one line, its cells joined with " | ".
func (r *textRenderer) row(n *html.Node) {
	var cells []string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || (tag(c) != atom.Td && tag(c) != atom.Th) {
			continue
		}
		cell := &textRenderer{}
		cell.children(c)
		cell.flush()
		cells = append(cells, strings.Join(cell.lines, " "))
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	if len(cells) > 0 {
		r.lines = append(r.lines, strings.Join(cells, " | "))
	}
}

// preformatted adds the text of a <pre> (or a block of code) with its line
// breaks and indentation kept; blank lines around it are dropped.
func (r *textRenderer) preformatted(n *html.Node) {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			sb.WriteString(n.Data)
		case n.Type == html.ElementNode && skipped[tag(n)]:
		case n.Type == html.ElementNode && tag(n) == atom.Br:
			sb.WriteByte('\n')
		default:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
	}
	walk(n)
	text := strings.Trim(strings.ReplaceAll(sb.String(), "\r\n", "\n"), "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		r.lines = append(r.lines, strings.TrimRight(l, " \t\r"))
	}
}
