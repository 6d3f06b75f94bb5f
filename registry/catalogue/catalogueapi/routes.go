package catalogueapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/bundlezip"
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

// exportBundle answers GET /bundles/{bundleID}/export: the bundle and
// every tool version in it as a ZIP archive (package bundlezip), offered
// as a download named after the bundle.
func (h *Handler) exportBundle(w http.ResponseWriter, r *http.Request, p params) {
	var fe []FieldError
	id := pathID(p, &fe)
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	// Built whole before answering, so that a store failure midway still
	// answers with an error status instead of half an archive.
	var buf bytes.Buffer
	if err := bundlezip.Export(r.Context(), h.store, id, &buf); err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	b, err := h.store.GetBundle(r.Context(), id)
	name := id.String() + ".zip"
	if err == nil {
		name = b.Slug + "-" + name
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/zip")
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// zipTypes are the Content-Types POST /bundles/import accepts.
var zipTypes = map[string]bool{"application/zip": true, "application/x-zip-compressed": true, "application/octet-stream": true}

// importBundle answers POST /bundles/import: a ZIP archive made by the
// export route (or by hand in its layout) is stored as it was exported,
// all or nothing. 201 with the bundle; 400 listing every problem (entry
// and field); 409 if the bundle id exists; 413 above MaxImportBodyBytes.
func (h *Handler) importBundle(w http.ResponseWriter, r *http.Request, _ params) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !zipTypes[mt] {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"expected Content-Type: application/zip", nil)
		return
	}
	tooLarge := func() {
		writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large",
			fmt.Sprintf("expected an archive of at most %d bytes", MaxImportBodyBytes), nil)
	}
	if r.ContentLength > MaxImportBodyBytes {
		tooLarge()
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxImportBodyBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		tooLarge()
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_input", "the body could not be read", nil)
		return
	}
	b, err := bundlezip.Import(r.Context(), h.store, bytes.NewReader(data), int64(len(data)),
		bundlezip.Options{MaxArchiveBytes: MaxImportBodyBytes})
	switch {
	case err == nil:
		writeJSON(w, http.StatusCreated, b)
	case errors.Is(err, bundlezip.ErrTooLarge):
		tooLarge()
	case errors.Is(err, catalogue.ErrBundleExists):
		writeError(w, http.StatusConflict, "conflict",
			"a bundle with this id already exists; it was left unchanged (delete it first, import into another store, or give the copy a new bundle id in bundle.json)", nil)
	case errors.Is(err, catalogue.ErrConflict):
		writeError(w, http.StatusConflict, "conflict",
			"the archive holds two tools with the same slug and version; nothing was stored (give each tool version its own slug or version)", nil)
	default:
		h.writeStoreError(w, r, err)
	}
}
