package web

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// pageText puts each block on a line of its own and keeps inline text
// together; what is no part of the text is left out.
func TestPageText_Blocks(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"paragraphs and inline elements", `<p>Para with <a href="/x">a link</a>, <b>bo</b>ld and <code>x()</code>.</p><p>Next   one
spans lines.</p>`, "Para with a link, bold and x().\nNext one spans lines."},
		{"headings and loose text", `<h1>Title</h1>, by someone<h2>Part</h2>text`, "Title\n, by someone\nPart\ntext"},
		{"lists, nested", `<ul><li>one<ul><li>one.a</li></ul></li><li><p>two</p></li></ul><ol><li>first</li></ol>`,
			"- one\n  - one.a\n- two\n- first"},
		{"table rows", `<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td><b>2</b> x</td></tr><tr><td></td></tr></table>`, "a | b\n1 | 2 x"},
		{"preformatted keeps its lines", "<p>Run:</p><pre>\nfor i in x:\n    print(i)\n</pre>", "Run:\nfor i in x:\n    print(i)"},
		{"block code", "<div><code>a := 1\nb := 2</code></div>", "a := 1\nb := 2"},
		{"inline code in a container", "<div>Call <code>f()</code> first.</div>", "Call f() first."},
		{"line breaks", `<p>one<br>two<br/><br>three</p>`, "one\ntwo\nthree"},
		{"left out", `<script>var s = 1</script><style>p{}</style><nav>Home</nav><p>kept</p><form><input value="v"><button>Go</button></form><footer>c</footer><noscript>js</noscript><template><p>t</p></template>`, "kept"},
		{"nothing", `<div> </div>`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader("<html><head><title>ignored</title></head><body>" + c.in + "</body></html>"))
			require.NoError(t, err)
			assert.Equal(t, c.want, pageText(doc))
		})
	}
}

// The extractor builds its result's elements by name only (no DataAtom);
// they are blocks all the same.
func TestPageText_ElementsBuiltByName(t *testing.T) {
	body := &html.Node{Type: html.ElementNode, Data: "body"}
	for _, name := range []string{"p", "li", "P"} {
		el := &html.Node{Type: html.ElementNode, Data: name}
		el.AppendChild(&html.Node{Type: html.TextNode, Data: name + " text"})
		body.AppendChild(el)
	}
	assert.Equal(t, "p text\n- li text\nP text", pageText(body))
}

// A page is given to the article extractor only while its paragraphs
// times their text stay within MaxExtractWork, its text times its depth
// within MaxExtractNestedText and its elements within MaxExtractElements:
// past these the extractor's work grows faster than the page.
func TestTooLargeToExtract_BoundsParagraphWorkAndElements(t *testing.T) {
	parse := func(s string) *html.Node {
		doc, err := html.Parse(strings.NewReader(s))
		require.NoError(t, err)
		return doc
	}
	// html, head, body: three elements besides the repeated ones.
	page := func(unit string, n int) *html.Node {
		return parse("<html><head></head><body>" + strings.Repeat(unit, n) + "</body></html>")
	}
	assert.True(t, tooLargeToExtract(parse(strings.Repeat("<p>"+strings.Repeat("x", 128)+"</p>", 5000))), "5000 × 640000 = 3.2 × 10^9")
	assert.False(t, tooLargeToExtract(parse(strings.Repeat("<p>"+strings.Repeat("x", 128)+"</p>", 4000))), "4000 × 512000 = 2.05 × 10^9")
	assert.True(t, tooLargeToExtract(parse(strings.Repeat("<p><b>"+strings.Repeat("x", 128)+"</b></p>", 5000))), "text inside a paragraph's children counts")
	assert.False(t, tooLargeToExtract(parse(strings.Repeat("<div>"+strings.Repeat("x", 128)+"</div>", 5000))), "text outside paragraphs does not")
	// 500 nested elements, 100 bytes of text in each: the text of one
	// such nest times its depth is about 1.25 × 10^7, of four 5 × 10^7.
	nest := strings.Repeat("<div>"+strings.Repeat("x", 99)+" ", 500) + strings.Repeat("</div>", 500)
	assert.False(t, tooLargeToExtract(parse(nest)), "one deep nest")
	assert.True(t, tooLargeToExtract(parse(strings.Repeat(nest, 4))), "four: past MaxExtractNestedText")
	assert.False(t, tooLargeToExtract(parse("<div>"+strings.Repeat("x", 4<<20)+"</div>")), "4 MiB of text three elements deep")
	assert.False(t, tooLargeToExtract(page("<span>x</span>", MaxExtractElements-3)), "at the element limit")
	assert.True(t, tooLargeToExtract(page("<span>x</span>", MaxExtractElements-2)), "one element past it")
}

// The title of a page read whole comes from its <title>.
func TestHTMLTitle(t *testing.T) {
	for in, want := range map[string]string{
		`<html><head><title> A &amp; B </title></head><body><p>x</p></body></html>`: " A & B ",
		`<html><head></head><body><p>no title</p></body></html>`:                    "",
		`<title>first</title><title>second</title>`:                                 "first",
	} {
		doc, err := html.Parse(strings.NewReader(in))
		require.NoError(t, err)
		assert.Equal(t, want, htmlTitle(doc), in)
	}
}
