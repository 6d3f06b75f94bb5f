// Package convert turns OJ problem statements (HTML) into Markdown with
// html-to-markdown v2, remembering recent conversions in a bounded memo.
// It is internal to packs/oj: the pack's Config.ConvertCacheBytes sizes the
// memo.
package convert

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// NoDescription replaces empty or whitespace-only problem content.
const NoDescription = "No description available."

// markupRE finds HTML markup: a start, end or self-closing tag, a comment or
// a doctype. Text such as "a < b" or "x<3" is not markup.
var markupRE = regexp.MustCompile(`<(?:/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|!--|![A-Za-z])`)

// DefaultCacheBytes is the size of a Converter's memo of recent
// conversions unless WithCacheBytes says otherwise.
const DefaultCacheBytes = 8 << 20

// Converter turns problem statements (HTML) into Markdown. It is safe for
// concurrent use; build one with New and reuse it.
//
// A Converter remembers its most recent conversions (see WithCacheBytes):
// conversion is a pure function of the statement, the same statements are
// fetched again and again (the daily challenge, a problem resolved and then
// fetched, an agent re-reading a problem), and html-to-markdown is by far
// the most expensive step of a problem tool call. The memo never changes a
// result, only how often it is computed.
type Converter struct {
	conv *converter.Converter
	memo *memo // nil: no memo
}

// Option configures New.
type Option func(*converterOptions)

type converterOptions struct {
	cacheBytes int
}

// WithCacheBytes bounds the memo of recent conversions: the statements and
// their Markdown together stay within n bytes (least recently used
// entries are dropped first; a statement larger than n/8 is never kept).
// n == 0 means DefaultCacheBytes; a negative n turns the memo off.
func WithCacheBytes(n int) Option {
	return func(o *converterOptions) { o.cacheBytes = n }
}

// New returns a Converter using html-to-markdown with the base,
// CommonMark and table plugins, and a memo of DefaultCacheBytes
// unless an option says otherwise.
func New(opts ...Option) *Converter {
	var o converterOptions
	for _, opt := range opts {
		opt(&o)
	}
	c := &Converter{conv: converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
	))}
	switch {
	case o.cacheBytes == 0:
		c.memo = newMemo(DefaultCacheBytes)
	case o.cacheBytes > 0:
		c.memo = newMemo(o.cacheBytes)
	}
	return c
}

// HasMarkup reports whether s contains HTML markup (a tag, comment or
// doctype).
func HasMarkup(s string) bool { return markupRE.MatchString(s) }

// Convert returns the Markdown form of a problem statement:
//   - empty or whitespace-only content gives NoDescription;
//   - content without HTML markup (see HasMarkup) is returned unchanged;
//   - otherwise html-to-markdown converts it; when that fails, panics or
//     yields only whitespace, the content is reduced to plain text with
//     every tag stripped and no '<' or '>' left (StripTags), and to
//     NoDescription when nothing remains.
//
// Convert never panics.
func (c *Converter) Convert(content string) string {
	if strings.TrimSpace(content) == "" {
		return NoDescription
	}
	if !HasMarkup(content) {
		return content
	}
	if md, ok := c.memo.get(content); ok {
		return md
	}
	md := c.convertMarkup(content)
	c.memo.put(content, md)
	return md
}

// convertMarkup converts content that has markup, with the fallbacks.
func (c *Converter) convertMarkup(content string) string {
	md, err := c.convert(content)
	if err == nil && strings.TrimSpace(md) != "" {
		return md
	}
	plain := StripTags(content)
	if strings.TrimSpace(plain) == "" {
		return NoDescription
	}
	return plain
}

func (c *Converter) convert(content string) (md string, err error) {
	defer func() {
		if r := recover(); r != nil {
			md, err = "", fmt.Errorf("html-to-markdown panicked: %v", r)
		}
	}()
	return c.conv.ConvertString(content)
}

// StripTags returns the text of an HTML fragment with every tag, comment,
// doctype and script or style body removed and character references decoded; any '<' or '>' left in
// the text is written as "&lt;" or "&gt;", so the result contains neither.
// It never panics.
func StripTags(s string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
		}
	}()
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := false // inside <script> or <style>
	for {
		switch z.Next() {
		case html.StartTagToken:
			name, _ := z.TagName()
			skip = string(name) == "script" || string(name) == "style"
		case html.EndTagToken:
			skip = false
		case html.ErrorToken:
			// io.EOF: a strings.Reader produces no other error.
			return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(b.String())
		case html.TextToken:
			if !skip {
				b.Write(z.Text())
			}
		}
	}
}
