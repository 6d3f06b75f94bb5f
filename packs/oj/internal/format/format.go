// Package format renders OJ backend answers as the Markdown of the OJ tools
// specification: the problem header template, the similar-problems and
// platform-status tables, percentages, grouped counts and the output cap.
// It is internal to packs/oj.
//
// Every value from the backend that lands in a header line or a table cell
// is cleaned first (see Inline and Cell), so that no value can add a line,
// a table row or a column: the header always has its nine lines and the
// tables their 7 or 4 columns and one row per result.
package format

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxOutputBytes is the size cap of every tool output, marker included.
const MaxOutputBytes = 102_400

// TruncatedSuffix ends an output cut by Truncate.
const TruncatedSuffix = "\n\n... (truncated)"

// NA is shown for a missing difficulty, link, AC rate or tag list.
const NA = "N/A"

// Problem is a problem as the backend sends it.
type Problem struct {
	// ID is the problem's identifier on its platform.
	ID string
	// Source is the platform ("leetcode", "codeforces", …).
	Source string
	// Title is the problem's title.
	Title string
	// Difficulty is nil when the backend sends none.
	Difficulty *string
	// ACRate is the acceptance rate in percent; nil when unknown.
	ACRate *float64
	// Tags may be nil or empty; both display as N/A.
	Tags []string
	// Link is the problem's URL; nil when unknown.
	Link *string
	// Content is the statement as HTML (or plain text).
	Content string
}

// SimilarResult is one row of a similarity search.
type SimilarResult struct {
	// Source is the platform of the similar problem.
	Source string
	// ID is its identifier.
	ID string
	// Title is its title.
	Title string
	// Difficulty is nil when unknown.
	Difficulty *string
	// Link is nil when unknown.
	Link *string
	// Similarity is a score in 0..1.
	Similarity float64
}

// SimilarResponse is the backend's answer to a similarity search.
type SimilarResponse struct {
	// RewrittenQuery is the query as the backend understood it.
	RewrittenQuery string
	// Results are the similar problems, best first.
	Results []SimilarResult
}

// PlatformStatus is one platform's row in the status response.
type PlatformStatus struct {
	// Source is the platform name.
	Source string
	// Total is the number of problems known.
	Total uint64
	// MissingContent counts problems without a statement.
	MissingContent uint64
	// NotEmbedded counts problems without an embedding.
	NotEmbedded uint64
}

// StatusResponse is the backend's /status answer.
type StatusResponse struct {
	// Version is the backend's version string.
	Version string
	// Platforms are listed in the backend's order.
	Platforms []PlatformStatus
}

// RenderProblem renders the problem header template followed by content,
// the statement already converted to Markdown. Header fields are cleaned by
// Inline. The result is not truncated; see Truncate.
func RenderProblem(p *Problem, content string) string {
	difficulty, link, acRate, tags := NA, NA, NA, NA
	if p.Difficulty != nil {
		difficulty = Inline(*p.Difficulty)
	}
	if p.Link != nil {
		link = Inline(*p.Link)
	}
	if p.ACRate != nil {
		acRate = Percent(*p.ACRate)
	}
	if len(p.Tags) > 0 {
		clean := make([]string, len(p.Tags))
		for i, t := range p.Tags {
			clean[i] = Inline(t)
		}
		tags = strings.Join(clean, ", ")
	}
	title := Inline(p.Title)
	var b strings.Builder
	b.Grow(len(title) + len(content) + 128)
	b.WriteString("# ")
	b.WriteString(title)
	b.WriteString("\n\n- Source: ")
	b.WriteString(Inline(p.Source))
	b.WriteString(" | ID: ")
	b.WriteString(Inline(p.ID))
	b.WriteString(" | Difficulty: ")
	b.WriteString(difficulty)
	b.WriteString("\n- Tags: ")
	b.WriteString(tags)
	b.WriteString("\n- Link: ")
	b.WriteString(link)
	b.WriteString("\n- AC Rate: ")
	b.WriteString(acRate)
	b.WriteString("\n\n---\n\n")
	b.WriteString(content)
	return b.String()
}

// RenderSimilar renders the similar-problems table: a 7-column GFM table
// numbered from 1, similarity as a percentage with one decimal. The
// rewritten query is cleaned by Inline, every cell by Cell.
func RenderSimilar(r *SimilarResponse) string {
	var b strings.Builder
	b.WriteString("# Similar Problems\n\nQuery: ")
	b.WriteString(Inline(r.RewrittenQuery))
	b.WriteString("\n\n| # | Source | ID | Title | Difficulty | Similarity | Link |\n")
	b.WriteString("|---|--------|----|-------|------------|------------|------|\n")
	for i, row := range r.Results {
		difficulty, link := NA, NA
		if row.Difficulty != nil {
			difficulty = *row.Difficulty
		}
		if row.Link != nil {
			link = *row.Link
		}
		writeRow(&b, strconv.Itoa(i+1), row.Source, row.ID, row.Title, difficulty,
			Percent(row.Similarity*100), link)
	}
	return b.String()
}

// RenderStatus renders the platform status table: a 4-column GFM table with
// counts grouped by GroupThousands, platforms in the backend's order. The
// version is cleaned by Inline, every cell by Cell.
func RenderStatus(r *StatusResponse) string {
	var b strings.Builder
	b.WriteString("# OJ Platform Status (v")
	b.WriteString(Inline(r.Version))
	b.WriteString(")\n\n| Platform | Problems | Missing Content | Not Embedded |\n")
	b.WriteString("|----------|----------|-----------------|--------------|\n")
	for _, p := range r.Platforms {
		writeRow(&b, p.Source, GroupThousands(p.Total), GroupThousands(p.MissingContent),
			GroupThousands(p.NotEmbedded))
	}
	return b.String()
}

// writeRow writes one table row of cells cleaned by Cell.
func writeRow(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(Cell(c))
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

// breaks reports whether r must not appear in a single line of Markdown:
// a control character (C0, DEL, C1: line feed, carriage return, tab, form
// feed, NEL, …) or a Unicode line or paragraph separator.
func breaks(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == '\u2028' || r == '\u2029'
}

// Inline returns s fit for one line of Markdown: every character that
// breaks reports (line breaks, other control characters, Unicode line
// separators) becomes a space. Anything else, invalid UTF-8 included, is
// kept as it is. A string without such characters is returned unchanged.
func Inline(s string) string { return clean(s, false) }

// Cell returns s fit for one GFM table cell: Inline's cleaning, and '|'
// escaped as `\|` so that the row keeps its column count.
func Cell(s string) string { return clean(s, true) }

func clean(s string, pipes bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || (pipes && c == '|') {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if breaks(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '|' && pipes:
			b.WriteString(`\|`)
		case breaks(r):
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Percent formats v with one decimal and a '%' sign (57 → "57.0%").
// The caller scales fractions first (similarity 0.791 → 79.1 → "79.1%").
func Percent(v float64) string {
	return strconv.FormatFloat(v, 'f', 1, 64) + "%"
}

// GroupThousands writes n in decimal with an ASCII comma between groups of
// three digits, independent of locale: 0 → "0", 1000 → "1,000",
// 12984 → "12,984".
func GroupThousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + (len(s)-1)/3)
	first := len(s) % 3
	if first == 0 {
		first = 3
	}
	b.WriteString(s[:first])
	for i := first; i < len(s); i += 3 {
		b.WriteByte(',')
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Truncate caps s at MaxOutputBytes bytes, marker included. A string of at
// most MaxOutputBytes bytes is returned unchanged; a longer one is cut at the
// last UTF-8 character boundary at or before MaxOutputBytes -
// len(TruncatedSuffix) bytes and TruncatedSuffix is appended.
//
// Every output therefore fits the cap, and truncating twice changes
// nothing: an output of Truncate is never longer than the cap.
func Truncate(s string) string {
	if len(s) <= MaxOutputBytes {
		return s
	}
	cut := MaxOutputBytes - len(TruncatedSuffix)
	// Back up over at most UTFMax-1 continuation bytes: further back there
	// is no character start, so the bytes are not valid UTF-8 anyway.
	for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(s[cut]); back++ {
		cut--
	}
	return s[:cut] + TruncatedSuffix
}
