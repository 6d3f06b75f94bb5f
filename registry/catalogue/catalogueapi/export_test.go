package catalogueapi

import "encoding/json"

// RouteMethods lists the route table: path pattern → methods.
func RouteMethods() map[string][]string {
	out := map[string][]string{}
	for _, rt := range routes {
		for m := range rt.methods {
			out[rt.pattern] = append(out[rt.pattern], m)
		}
	}
	return out
}

// DecodePageToken exposes the token decoder to the fuzz target.
func (h *Handler) DecodePageToken(tok, kind, filter string) error {
	_, err := h.decodeToken(tok, kind, filter)
	return err
}

// EncodePageToken exposes the token encoder to the fuzz target.
func (h *Handler) EncodePageToken(kind, filter, slug string) string {
	return h.encodeToken(cursor{Kind: kind, Filter: filter, Slug: slug})
}

// ParseQuery exposes the query parser to the fuzz target; kind is
// "bundles", "tools" or "search".
func ParseQuery(kind, raw string, maxPage int) (pageSize int, problems []string) {
	k := map[string]queryKind{"bundles": bundlesQuery, "tools": toolsQuery, "search": searchQuery}[kind]
	q, fe := parseQuery(k, raw, maxPage)
	for _, f := range fe {
		problems = append(problems, f.Field+": "+f.Problem)
	}
	return q.PageSize, problems
}

// DecodeInvokeBody exposes the invoke body's decoder to the fuzz target:
// the arguments, and each problem as "field: problem".
func DecodeInvokeBody(body []byte) (json.RawMessage, []string) {
	a, fe := decodeInvokeBody(body)
	out := make([]string, len(fe))
	for i, f := range fe {
		out[i] = f.Field + ": " + f.Problem
	}
	return a, out
}
