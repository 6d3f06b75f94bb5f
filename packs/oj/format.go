package oj

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxOutputBytes is the size cap of every tool output. Longer Markdown is cut
// at the last UTF-8 boundary at or before this many bytes and TruncatedSuffix
// is appended.
const MaxOutputBytes = 102_400

// TruncatedSuffix is appended to an output cut at MaxOutputBytes.
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

// FormatProblem renders the problem header template followed by the
// statement converted to Markdown (see (*Converter).Convert). The result is
// not truncated; see Truncate.
func FormatProblem(conv *Converter, p *Problem) string {
	difficulty, link, acRate, tags := NA, NA, NA, NA
	if p.Difficulty != nil {
		difficulty = *p.Difficulty
	}
	if p.Link != nil {
		link = *p.Link
	}
	if p.ACRate != nil {
		acRate = FormatPercent(*p.ACRate)
	}
	if len(p.Tags) > 0 {
		tags = strings.Join(p.Tags, ", ")
	}
	content := conv.Convert(p.Content)
	var b strings.Builder
	b.Grow(len(p.Title) + len(content) + 128)
	b.WriteString("# ")
	b.WriteString(p.Title)
	b.WriteString("\n\n- Source: ")
	b.WriteString(p.Source)
	b.WriteString(" | ID: ")
	b.WriteString(p.ID)
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

// FormatSimilar renders the similar-problems table: a 7-column GFM table
// numbered from 1, similarity as a percentage with one decimal.
func FormatSimilar(r *SimilarResponse) string {
	var b strings.Builder
	b.WriteString("# Similar Problems\n\nQuery: ")
	b.WriteString(r.RewrittenQuery)
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
			FormatPercent(row.Similarity*100), link)
	}
	return b.String()
}

// FormatStatus renders the platform status table: a 4-column GFM table with
// counts grouped by GroupThousands, platforms in the backend's order.
func FormatStatus(r *StatusResponse) string {
	var b strings.Builder
	b.WriteString("# OJ Platform Status (v")
	b.WriteString(r.Version)
	b.WriteString(")\n\n| Platform | Problems | Missing Content | Not Embedded |\n")
	b.WriteString("|----------|----------|-----------------|--------------|\n")
	for _, p := range r.Platforms {
		writeRow(&b, p.Source, GroupThousands(p.Total), GroupThousands(p.MissingContent),
			GroupThousands(p.NotEmbedded))
	}
	return b.String()
}

// writeRow writes one table row. Cells are written as they are, except that
// '|' is escaped and line breaks become spaces so that a row always has the
// header's column count.
func writeRow(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(tableCell(c))
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

func tableCell(s string) string {
	if !strings.ContainsAny(s, "|\r\n") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '|':
			b.WriteString(`\|`)
		case '\r', '\n':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FormatPercent formats v with one decimal and a '%' sign (57 → "57.0%").
// The caller scales fractions first (similarity 0.791 → 79.1 → "79.1%").
func FormatPercent(v float64) string {
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

// Truncate caps s at MaxOutputBytes. A string of at most MaxOutputBytes
// bytes is returned unchanged; a longer one is cut at the last UTF-8 boundary
// at or before byte MaxOutputBytes and TruncatedSuffix is appended.
//
// Truncate is idempotent: a string that already is a truncation (at most
// MaxOutputBytes bytes followed by TruncatedSuffix) is returned unchanged.
func Truncate(s string) string {
	if len(s) <= MaxOutputBytes {
		return s
	}
	if strings.HasSuffix(s, TruncatedSuffix) && len(s)-len(TruncatedSuffix) <= MaxOutputBytes {
		return s
	}
	cut := MaxOutputBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + TruncatedSuffix
}
