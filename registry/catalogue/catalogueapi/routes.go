package catalogueapi

import (
	"bytes"
	"net/http"

	"github.com/google/uuid"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// pathID parses the {bundleID} path parameter.
func pathID(p params, fe *[]FieldError) uuid.UUID {
	id, err := catalogue.ParseID(p["bundleID"])
	if err != nil {
		*fe = append(*fe, FieldError{Field: "bundleID", Problem: err.Error()})
	}
	return id
}

// pathKey parses the path parameters of a tool route.
func pathKey(p params) (catalogue.ToolKey, []FieldError) {
	var fe []FieldError
	k := catalogue.ToolKey{BundleID: pathID(p, &fe), Slug: p["toolSlug"], Version: p["version"]}
	if err := catalogue.ValidateSlug(k.Slug); err != nil {
		fe = append(fe, FieldError{Field: "toolSlug", Problem: err.Error()})
	}
	if err := catalogue.ValidateVersion(k.Version); err != nil {
		fe = append(fe, FieldError{Field: "version", Problem: err.Error()})
	}
	return k, fe
}

// BundleList is the answer of GET /bundles.
type BundleList struct {
	// Bundles is one page, ordered by id.
	Bundles []catalogue.Bundle `json:"bundles"`
	// NextPageToken fetches the next page; empty on the last page.
	NextPageToken string `json:"nextPageToken,omitempty"`
}

// ToolList is the answer of GET /tools and GET /tools/search.
type ToolList struct {
	// Tools is one page: in the store's order for /tools, best match
	// first for /tools/search.
	Tools []catalogue.Tool `json:"tools"`
	// NextPageToken fetches the next page; empty on the last page.
	NextPageToken string `json:"nextPageToken,omitempty"`
}

func (h *Handler) putBundle(w http.ResponseWriter, r *http.Request, p params) {
	var fe []FieldError
	id := pathID(p, &fe)
	body, ok := readJSONBody(w, r, catalogue.MaxBundleBodyBytes)
	if !ok {
		return
	}
	spec, err := catalogue.DecodeBundleSpec(bytes.NewReader(body))
	if err != nil {
		fe = append(fe, fieldsOf(err, "")...)
	}
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	b, created, err := h.store.PutBundle(r.Context(), id, spec)
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, b)
}

func (h *Handler) patchBundle(w http.ResponseWriter, r *http.Request, p params) {
	var fe []FieldError
	id := pathID(p, &fe)
	body, ok := readJSONBody(w, r, catalogue.MaxPatchBodyBytes)
	if !ok {
		return
	}
	on, err := catalogue.DecodeEnabledPatch(bytes.NewReader(body))
	if err != nil {
		fe = append(fe, fieldsOf(err, "")...)
	}
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	b, err := h.store.SetBundleEnabled(r.Context(), id, on)
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, b)
}

func (h *Handler) deleteBundle(w http.ResponseWriter, r *http.Request, p params) {
	var fe []FieldError
	id := pathID(p, &fe)
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	b, err := h.store.SoftDeleteBundle(r.Context(), id)
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, b)
}

func (h *Handler) listBundles(w http.ResponseWriter, r *http.Request, _ params) {
	q, fe := parseQuery(bundlesQuery, r.URL.RawQuery, h.maxPage)
	filter := q.digest(bundlesQuery.kind)
	var c cursor
	if len(fe) == 0 && q.PageToken != "" {
		var err error
		if c, err = h.decodeToken(q.PageToken, bundlesQuery.kind, filter); err != nil {
			fe = append(fe, FieldError{Field: "pageToken", Problem: err.Error()})
		}
	}
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	list, err := h.store.ListBundles(r.Context(), catalogue.BundleQuery{IDs: q.BundleIDs,
		IncludeDisabled: q.IncludeDisabled, After: c.BundleID, Limit: q.PageSize + 1})
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	out := BundleList{Bundles: list}
	if len(list) > q.PageSize {
		out.Bundles = list[:q.PageSize]
		out.NextPageToken = h.encodeToken(cursor{Kind: bundlesQuery.kind, Filter: filter, BundleID: list[q.PageSize-1].ID})
	}
	if out.Bundles == nil {
		out.Bundles = []catalogue.Bundle{}
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) putTool(w http.ResponseWriter, r *http.Request, p params) {
	key, fe := pathKey(p)
	body, ok := readJSONBody(w, r, catalogue.MaxToolBodyBytes)
	if !ok {
		return
	}
	spec, err := catalogue.DecodeToolSpec(bytes.NewReader(body))
	if err != nil {
		fe = append(fe, fieldsOf(err, "")...)
	}
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	t, err := h.store.PutTool(r.Context(), key, spec)
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, t)
}

func (h *Handler) patchTool(w http.ResponseWriter, r *http.Request, p params) {
	key, fe := pathKey(p)
	body, ok := readJSONBody(w, r, catalogue.MaxPatchBodyBytes)
	if !ok {
		return
	}
	on, err := catalogue.DecodeEnabledPatch(bytes.NewReader(body))
	if err != nil {
		fe = append(fe, fieldsOf(err, "")...)
	}
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	t, err := h.store.SetToolEnabled(r.Context(), key, on)
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

func (h *Handler) deleteTool(w http.ResponseWriter, r *http.Request, p params) {
	key, fe := pathKey(p)
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	if err := h.store.DeleteTool(r.Context(), key); err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) getTool(w http.ResponseWriter, r *http.Request, p params) {
	key, fe := pathKey(p)
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	t, err := h.store.GetTool(r.Context(), key)
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

func (h *Handler) listTools(w http.ResponseWriter, r *http.Request, _ params) {
	q, fe := parseQuery(toolsQuery, r.URL.RawQuery, h.maxPage)
	filter := q.digest(toolsQuery.kind)
	var c cursor
	if len(fe) == 0 && q.PageToken != "" {
		var err error
		if c, err = h.decodeToken(q.PageToken, toolsQuery.kind, filter); err != nil {
			fe = append(fe, FieldError{Field: "pageToken", Problem: err.Error()})
		}
	}
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	list, err := h.store.ListTools(r.Context(), catalogue.ToolQuery{BundleIDs: q.BundleIDs, Tags: q.Tags,
		IncludeDisabled: q.IncludeDisabled,
		After:           catalogue.ToolKey{BundleID: c.BundleID, Slug: c.Slug, Version: c.Version},
		Limit:           q.PageSize + 1})
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	out := ToolList{Tools: list}
	if len(list) > q.PageSize {
		out.Tools = list[:q.PageSize]
		last := list[q.PageSize-1]
		out.NextPageToken = h.encodeToken(cursor{Kind: toolsQuery.kind, Filter: filter,
			BundleID: last.BundleID, Slug: last.Slug, Version: last.Version})
	}
	if out.Tools == nil {
		out.Tools = []catalogue.Tool{}
	}
	writeJSON(w, http.StatusOK, out)
}
