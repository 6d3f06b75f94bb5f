package searchindex

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/internal/search"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// Limits of a Query.
const (
	// MaxTextRunes caps Query.Text.
	MaxTextRunes = 1024
	// MaxLimit caps Query.Limit.
	MaxLimit = 10000
)

// ErrInvalidQuery is wrapped by the error of a Query that breaks a rule
// (blank text, a limit out of range); the message names the field.
var ErrInvalidQuery = errors.New("searchindex: invalid query")

// Cursor is a place in the ranked order: the last tool of a page. A
// search with Query.After set to it returns only tools ranked after it.
// A tool's place depends only on the tool itself (its score for the
// query, its modifiedAt and its key), so a cursor stays valid while other
// tools are added, changed or removed: paging never skips or repeats a
// tool that stays put.
type Cursor struct {
	// Score is the tool's score for the query.
	Score int
	// Time is the tool's ModifiedAt in Unix nanoseconds.
	Time int64
	// Key is the tool's identity, the last tie-breaker.
	Key catalogue.ToolKey
}

// Query is one search request.
type Query struct {
	// Text is what the user typed; required, not blank, at most
	// MaxTextRunes runes of valid UTF-8.
	Text string
	// IncludeDisabled also returns disabled tools and tools of disabled
	// bundles. Tools of soft-deleted bundles are never returned.
	IncludeDisabled bool
	// After, when set, returns only tools ranked after it (a page
	// cursor); nil starts at the best match.
	After *Cursor
	// Limit is the page size, 1 to MaxLimit; required.
	Limit int
}

// Page is one page of results, best first.
type Page struct {
	// Tools are the matching tools, as the store holds them now (usage
	// counts included).
	Tools []catalogue.Tool
	// Next is the cursor of the following page; nil on the last page.
	Next *Cursor
}

// Searcher ranks catalogue tools: prefix > whole word > fuzzy > recency
// (modifiedAt), then bundle id, slug and version. [*Store] and
// [*Scan] implement it with the same order.
type Searcher interface {
	// Search returns one page of the tools matching q.
	Search(ctx context.Context, q Query) (Page, error)
}

// Validate reports whether q breaks a rule (blank or over-long text,
// invalid UTF-8, a limit out of range), with an error wrapping
// ErrInvalidQuery that names the field. Every Searcher checks it first.
func (q *Query) Validate() error { return q.validate() }

// Compare orders places in the ranking: negative when c ranks before o
// (higher score, then more recent, then bundle id, slug and version),
// zero when they are the same place. Searchers outside this package use
// it to rank as [Store] and [Scan] do.
func (c Cursor) Compare(o Cursor) int {
	return compareHits(&hit{score: c.Score, time: c.Time, key: c.Key}, &hit{score: o.Score, time: o.Time, key: o.Key})
}

func (q *Query) validate() error {
	var probs []string
	switch {
	case !utf8.ValidString(q.Text):
		probs = append(probs, "Text: expected valid UTF-8")
	case strings.TrimSpace(q.Text) == "":
		probs = append(probs, "Text: expected the search text, got nothing or only white space")
	case utf8.RuneCountInString(q.Text) > MaxTextRunes:
		probs = append(probs, fmt.Sprintf("Text: expected at most %d runes, got %d", MaxTextRunes, utf8.RuneCountInString(q.Text)))
	}
	if q.Limit < 1 || q.Limit > MaxLimit {
		probs = append(probs, fmt.Sprintf("Limit: expected 1 to %d, got %d", MaxLimit, q.Limit))
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidQuery, strings.Join(probs, "; "))
	}
	return nil
}

// views are the two ways a tool is scored: the slug as the name, or the
// display name as the name; the rest (the other name, the description and
// the tags) stands as the description. A tool's score is the better one.
func views(t *catalogue.Tool) (bySlug, byName search.Item) {
	rest := t.Description + "\n" + strings.Join(t.Tags, " ")
	return search.Item{Name: t.Slug, Description: t.DisplayName + "\n" + rest},
		search.Item{Name: t.DisplayName, Description: t.Slug + "\n" + rest}
}

// ScoreTool returns the tool's score for the query text, 0 when it does
// not match. It is the score every Searcher ranks by.
func ScoreTool(query string, t *catalogue.Tool) int {
	return scoreTool(search.NewQuery(query), t)
}

func scoreTool(q *search.Query, t *catalogue.Tool) int {
	a, b := views(t)
	s1, _ := q.Score(a)
	s2, _ := q.Score(b)
	return max(s1, s2)
}

// hit is a matching tool with its place in the order.
type hit struct {
	score int
	time  int64
	key   catalogue.ToolKey
	ref   int // the searcher's handle on the tool (a slot or a list index)
}

// compareHits is the total order of results: score (higher first), time
// (recent first), then bundle id, slug and version.
func compareHits(a, b *hit) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.time, a.time); c != 0 {
		return c
	}
	return compareKeys(&a.key, &b.key)
}

func compareKeys(a, b *catalogue.ToolKey) int {
	if c := bytes.Compare(a.BundleID[:], b.BundleID[:]); c != 0 {
		return c
	}
	if c := strings.Compare(a.Slug, b.Slug); c != 0 {
		return c
	}
	return strings.Compare(a.Version, b.Version)
}

// top keeps the best k hits ranked after a cursor: a heap whose root is
// the worst hit kept.
type top struct {
	k     int
	after *hit
	h     []hit
}

func newTop(q *Query) *top {
	t := &top{k: q.Limit + 1} // one more than a page: is there a next page?
	if q.After != nil {
		t.after = &hit{score: q.After.Score, time: q.After.Time, key: q.After.Key}
	}
	return t
}

// full reports whether k hits are kept: then h[0] is the worst of them,
// and a hit must rank before it to enter.
func (t *top) full() bool { return len(t.h) == t.k }

// add offers a hit.
func (t *top) add(x hit) {
	if t.after != nil && compareHits(&x, t.after) <= 0 {
		return
	}
	if len(t.h) < t.k {
		t.h = append(t.h, x)
		t.up(len(t.h) - 1)
		return
	}
	if compareHits(&x, &t.h[0]) >= 0 {
		return
	}
	t.h[0] = x
	t.down(0)
}

// worse reports whether h[i] ranks after h[j] (heap order: worst on top).
func (t *top) worse(i, j int) bool { return compareHits(&t.h[i], &t.h[j]) > 0 }

func (t *top) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.worse(i, p) {
			return
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

func (t *top) down(i int) {
	for {
		l, w := 2*i+1, i
		if l < len(t.h) && t.worse(l, w) {
			w = l
		}
		if r := l + 1; r < len(t.h) && t.worse(r, w) {
			w = r
		}
		if w == i {
			return
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

// result returns the kept hits best first, at most limit of them, and the
// cursor of the next page (nil when nothing follows).
func (t *top) result(limit int) ([]hit, *Cursor) {
	slices.SortFunc(t.h, func(a, b hit) int { return compareHits(&a, &b) })
	if len(t.h) <= limit {
		return t.h, nil
	}
	last := t.h[limit-1]
	return t.h[:limit], &Cursor{Score: last.score, Time: last.time, Key: last.key}
}

// Scan is the Searcher without an index: every search lists every tool
// from the store and scores each. It is the reference the indexes are
// tested against, and fine for small catalogues.
type Scan struct {
	store catalogue.Store
}

// NewScan returns a Searcher that scans store on every search.
func NewScan(store catalogue.Store) *Scan { return &Scan{store: store} }

// Search implements [Searcher].
func (s *Scan) Search(ctx context.Context, q Query) (Page, error) {
	if err := q.validate(); err != nil {
		return Page{}, err
	}
	all, err := s.store.ListTools(ctx, catalogue.ToolQuery{IncludeDisabled: q.IncludeDisabled})
	if err != nil {
		return Page{}, fmt.Errorf("searchindex: listing tools: %w", err)
	}
	sq := search.NewQuery(q.Text)
	tp := newTop(&q)
	for i := range all {
		if sc := scoreTool(sq, &all[i]); sc > 0 {
			tp.add(hit{score: sc, time: all[i].ModifiedAt.UnixNano(), key: all[i].Key(), ref: i})
		}
	}
	hits, next := tp.result(q.Limit)
	page := Page{Tools: make([]catalogue.Tool, len(hits)), Next: next}
	for i, h := range hits {
		page.Tools[i] = all[h.ref]
	}
	return page, nil
}
