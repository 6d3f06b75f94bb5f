package catalogueapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
)

// Searcher ranks catalogue tools for GET /tools/search. The search index
// of package searchindex implements it: *searchindex.Store (in memory,
// updated on every write) and *searchindex.Scan (no index). Every
// implementation ranks in the same total order (score, modifiedAt, then
// bundle id, slug and version), which is what page tokens record.
type Searcher interface {
	// Search returns one page of the tools matching q, best first.
	Search(ctx context.Context, q searchindex.Query) (searchindex.Page, error)
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
	sq := searchindex.Query{Text: q.Q, IncludeDisabled: q.IncludeDisabled, Limit: min(q.PageSize, searchindex.MaxLimit)}
	if q.PageToken != "" {
		sq.After = &searchindex.Cursor{Score: c.Score, Time: c.Time, Key: catalogueKey(c)}
	}
	page, err := h.searcher.Search(r.Context(), sq)
	if errors.Is(err, searchindex.ErrInvalidQuery) { // q and pageSize were checked above; a custom Searcher may be stricter
		writeInvalid(w, []FieldError{{Field: "q", Problem: err.Error()}})
		return
	}
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	out := ToolList{Tools: page.Tools}
	if out.Tools == nil {
		out.Tools = []catalogue.Tool{}
	}
	if n := page.Next; n != nil {
		out.NextPageToken = h.encodeToken(cursor{Kind: searchQuery.kind, Filter: filter, BundleID: n.Key.BundleID,
			Slug: n.Key.Slug, Version: n.Key.Version, Score: n.Score, Time: n.Time})
	}
	writeJSON(w, http.StatusOK, out)
}

func catalogueKey(c cursor) catalogue.ToolKey {
	return catalogue.ToolKey{BundleID: c.BundleID, Slug: c.Slug, Version: c.Version}
}
