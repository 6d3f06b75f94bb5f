package catalogueapi

import (
	"bytes"
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/internal/search"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// ranked is a tool with its search score.
type ranked struct {
	tool  catalogue.Tool
	score int
	time  int64
}

// compareRanked is the total order of search results: score (higher
// first), modifiedAt (recent first), then bundle id, slug and version. A
// tool's place depends only on itself, so a cursor taken from the last
// result of a page stays valid while other tools come and go.
func compareRanked(a, b ranked) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.time, a.time); c != 0 {
		return c
	}
	return compareKey(a.tool.BundleID[:], a.tool.Slug, a.tool.Version, b.tool.BundleID[:], b.tool.Slug, b.tool.Version)
}

func compareKey(ab []byte, as, av string, bb []byte, bs, bv string) int {
	if c := bytes.Compare(ab, bb); c != 0 {
		return c
	}
	if c := strings.Compare(as, bs); c != 0 {
		return c
	}
	return strings.Compare(av, bv)
}

// scoreTool ranks a tool against the query: the slug and the display name
// each stand as the name (prefix and whole-word matches count there), the
// rest (the other name, the description and the tags) as the description.
func scoreTool(q *search.Query, t *catalogue.Tool) int {
	rest := t.Description + "\n" + strings.Join(t.Tags, " ")
	s1, _ := q.Score(search.Item{Name: t.Slug, Description: t.DisplayName + "\n" + rest})
	s2, _ := q.Score(search.Item{Name: t.DisplayName, Description: t.Slug + "\n" + rest})
	return max(s1, s2)
}

func (h *Handler) searchTools(w http.ResponseWriter, r *http.Request, _ params) {
	q, fe := parseQuery(searchQuery, r.URL.RawQuery, h.maxPage)
	filter := q.digest(searchQuery.kind)
	var c cursor
	if len(fe) == 0 && q.PageToken != "" {
		var err error
		if c, err = h.decodeToken(q.PageToken, searchQuery.kind, filter); err != nil {
			fe = append(fe, FieldError{Field: "pageToken", Problem: err.Error()})
		}
	}
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	all, err := h.store.ListTools(r.Context(), catalogue.ToolQuery{IncludeDisabled: q.IncludeDisabled})
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	sq := search.NewQuery(q.Q)
	var hits []ranked
	for i := range all {
		if s := scoreTool(sq, &all[i]); s > 0 {
			hits = append(hits, ranked{tool: all[i], score: s, time: all[i].ModifiedAt.UnixNano()})
		}
	}
	slices.SortFunc(hits, compareRanked)
	start := 0
	if q.PageToken != "" {
		after := ranked{tool: catalogue.Tool{BundleID: c.BundleID, Slug: c.Slug, Version: c.Version}, score: c.Score, time: c.Time}
		start, _ = slices.BinarySearchFunc(hits, after, compareRanked)
		if start < len(hits) && compareRanked(hits[start], after) == 0 {
			start++
		}
	}
	hits = hits[start:]
	out := ToolList{Tools: []catalogue.Tool{}}
	for i := 0; i < len(hits) && i < q.PageSize; i++ {
		out.Tools = append(out.Tools, hits[i].tool)
	}
	if len(hits) > q.PageSize {
		last := hits[q.PageSize-1]
		out.NextPageToken = h.encodeToken(cursor{Kind: searchQuery.kind, Filter: filter, BundleID: last.tool.BundleID,
			Slug: last.tool.Slug, Version: last.tool.Version, Score: last.score, Time: last.time})
	}
	writeJSON(w, http.StatusOK, out)
}
