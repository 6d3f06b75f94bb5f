package catalogueadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
)

// bundleRow is a bundle as the list shows it.
type bundleRow struct {
	catalogue.Bundle
	Link    string
	ReapsAt *time.Time // soft-deleted: when the reaper may remove it
	Tools   int
}

// toolRow is a tool as lists show it.
type toolRow struct {
	catalogue.Tool
	Link   string
	Bundle string
}

func (h *Handler) bundleRows(r *http.Request) ([]bundleRow, error) {
	bs, err := h.store.ListBundles(r.Context(), catalogue.BundleQuery{IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		return nil, err
	}
	counts := map[uuid.UUID]int{}
	ts, err := h.store.ListTools(r.Context(), catalogue.ToolQuery{IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		counts[t.BundleID]++
	}
	rows := make([]bundleRow, len(bs))
	for i, b := range bs {
		rows[i] = bundleRow{Bundle: b, Link: h.bundleLink(b.ID), Tools: counts[b.ID]}
		if b.SoftDeletedAt != nil {
			at := b.SoftDeletedAt.Add(catalogue.SoftDeleteRetention)
			rows[i].ReapsAt = &at
		}
	}
	slices.SortStableFunc(rows, func(a, b bundleRow) int { return strings.Compare(a.DisplayName, b.DisplayName) })
	return rows, nil
}

// listPage: the bundles, a search box and its results, the create-bundle
// form.
func (h *Handler) listPage(w http.ResponseWriter, r *http.Request) {
	h.renderList(w, r, http.StatusOK, nil, nil)
}

func (h *Handler) renderList(w http.ResponseWriter, r *http.Request, status int, form url.Values, fe fieldErrors) {
	rows, err := h.bundleRows(r)
	if err != nil {
		h.storeFail(w, err)
		return
	}
	data := map[string]any{"Title": "Bundles", "Base": h.base, "Bundles": rows, "Form": form, "Errors": fe}
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" {
		data["Query"] = q
		a, err := h.call(r.Context(), http.MethodGet, "/tools/search", url.Values{"q": {q}, "includeDisabled": {"true"}, "pageSize": {"50"}}, nil)
		switch {
		case err != nil:
			data["SearchError"] = "the search failed"
		case a.status != http.StatusOK:
			data["SearchError"] = a.err.Error
			if len(a.err.Fields) > 0 {
				data["SearchError"] = a.err.Fields[0].Problem
			}
		default:
			var tl catalogueapi.ToolList
			if err := json.Unmarshal(a.body, &tl); err != nil {
				data["SearchError"] = "the search answer could not be read"
				break
			}
			names := map[uuid.UUID]string{}
			for _, b := range rows {
				names[b.ID] = b.DisplayName
			}
			hits := make([]toolRow, len(tl.Tools))
			for i, t := range tl.Tools {
				hits[i] = toolRow{Tool: t, Link: h.toolLink(t), Bundle: names[t.BundleID]}
			}
			data["Hits"] = hits
		}
	}
	h.render(w, status, "list.html", data)
}

// createBundle posts the create-bundle form as PUT /bundles/{new id}.
func (h *Handler) createBundle(w http.ResponseWriter, r *http.Request) {
	if !h.parseForm(w, r) {
		return
	}
	enabled, err := formBool(r, "isEnabled", true)
	if err != nil {
		h.renderList(w, r, http.StatusBadRequest, r.PostForm, fieldErrors{"isEnabled": {err.Error()}})
		return
	}
	id, err := uuid.NewV7()
	if err != nil {
		h.fail(w, http.StatusInternalServerError, "no bundle id could be made")
		return
	}
	spec := map[string]any{
		"slug": r.PostForm.Get("slug"), "displayName": r.PostForm.Get("displayName"),
		"description": r.PostForm.Get("description"), "isEnabled": enabled,
	}
	a, err := h.call(r.Context(), http.MethodPut, "/bundles/"+id.String(), nil, spec)
	if err != nil {
		h.fail(w, http.StatusInternalServerError, "the bundle could not be created")
		return
	}
	if a.status >= 400 {
		fe := fieldsOf(a.err)
		if len(fe) == 0 {
			fe[""] = []string{a.err.Error}
		}
		h.renderList(w, r, a.status, r.PostForm, fe)
		return
	}
	redirect(w, r, h.bundleLink(id))
}

// bundlePage: a bundle, its tools and the put-tool form.
func (h *Handler) bundlePage(w http.ResponseWriter, r *http.Request) {
	id, ok := parseID(w, r, h)
	if !ok {
		return
	}
	h.renderBundle(w, r, id, http.StatusOK, nil, nil)
}

func (h *Handler) renderBundle(w http.ResponseWriter, r *http.Request, id uuid.UUID, status int, form url.Values, fe fieldErrors) {
	b, err := h.store.GetBundle(r.Context(), id)
	if err != nil {
		h.storeFail(w, err)
		return
	}
	ts, err := h.store.ListTools(r.Context(), catalogue.ToolQuery{BundleIDs: []uuid.UUID{id}, IncludeDisabled: true, IncludeDeleted: true})
	if err != nil {
		h.storeFail(w, err)
		return
	}
	rows := make([]toolRow, len(ts))
	for i, t := range ts {
		rows[i] = toolRow{Tool: t, Link: h.toolLink(t), Bundle: b.DisplayName}
	}
	row := bundleRow{Bundle: b, Link: h.bundleLink(b.ID), Tools: len(ts)}
	if b.SoftDeletedAt != nil {
		at := b.SoftDeletedAt.Add(catalogue.SoftDeleteRetention)
		row.ReapsAt = &at
	}
	if form == nil {
		form = url.Values{"type": {"go"}, "method": {"GET"}, "argSchema": {`{"type":"object","properties":{},"additionalProperties":false}`}, "isEnabled": {"true"}}
	}
	h.render(w, status, "bundle.html", map[string]any{"Title": b.DisplayName, "Base": h.base, "Bundle": row, "Tools": rows, "Form": form, "Errors": fe})
}

// storeFail answers a failed read of the store: 400 naming each field at
// fault for input the store refuses (a slug or version in the address
// that breaks the catalogue's rules), 404, 503 while the database cannot
// be reached or does not answer in time, or while the store is closed or
// the request ended (a server shutting down), and 500 (logged) for the
// store's own failures.
func (h *Handler) storeFail(w http.ResponseWriter, err error) {
	var ve *catalogue.ValidationError
	switch {
	case errors.As(err, &ve):
		parts := make([]string, len(ve.Fields))
		for i, f := range ve.Fields {
			parts[i] = f.Error()
		}
		h.fail(w, http.StatusBadRequest, "the address names no valid tool: "+strings.Join(parts, "; "))
	case errors.Is(err, catalogue.ErrInvalid):
		h.fail(w, http.StatusBadRequest, "the address names no valid tool")
	case errors.Is(err, catalogue.ErrNotFound):
		h.fail(w, http.StatusNotFound, "not found")
	case errors.Is(err, catalogue.ErrTimeout):
		h.log.Warn("catalogueadmin: the store did not answer in time", "err", err)
		h.fail(w, http.StatusServiceUnavailable, "the catalogue's database is busy: it did not answer in time; reload the page in a few seconds")
	case errors.Is(err, catalogue.ErrUnavailable):
		h.log.Warn("catalogueadmin: the store cannot be reached", "err", err)
		h.fail(w, http.StatusServiceUnavailable, "the catalogue's database cannot be reached right now; reload the page in a few seconds")
	case errors.Is(err, catalogue.ErrClosed), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		h.fail(w, http.StatusServiceUnavailable, "the catalogue is not available; reload the page later")
	default:
		h.log.Error("catalogueadmin: store", "err", err)
		h.fail(w, http.StatusInternalServerError, "the catalogue could not be read")
	}
}

// switchBundle posts the bundle's on/off switch as PATCH.
func (h *Handler) switchBundle(w http.ResponseWriter, r *http.Request) {
	id, ok := parseID(w, r, h)
	if !ok || !h.parseForm(w, r) {
		return
	}
	enabled, err := formBool(r, "isEnabled", false)
	if err != nil {
		h.fail(w, http.StatusBadRequest, "the bundle could not be switched: "+err.Error())
		return
	}
	a, err := h.call(r.Context(), http.MethodPatch, "/bundles/"+id.String(), nil, map[string]any{"isEnabled": enabled})
	if err != nil || a.status >= 400 {
		h.fail(w, statusOf(a, err), "the bundle could not be switched: "+a.err.Error)
		return
	}
	redirect(w, r, h.bundleLink(id))
}

func statusOf(a apiAnswer, err error) int {
	if err != nil || a.status < 400 {
		return http.StatusInternalServerError
	}
	return a.status
}

// putTool posts the put-tool-version form as PUT on the tool's path.
func (h *Handler) putTool(w http.ResponseWriter, r *http.Request) {
	id, ok := parseID(w, r, h)
	if !ok || !h.parseForm(w, r) {
		return
	}
	f := r.PostForm
	fe := fieldErrors{}
	enabled, err := formBool(r, "isEnabled", true)
	if err != nil {
		fe["isEnabled"] = append(fe["isEnabled"], err.Error())
	}
	spec := map[string]any{
		"displayName": f.Get("displayName"), "description": f.Get("description"),
		"isEnabled": enabled, "type": f.Get("type"),
	}
	if tags := splitTags(f.Get("tags")); len(tags) > 0 {
		spec["tags"] = tags
	}
	rawJSON := func(field string) {
		v := strings.TrimSpace(f.Get(field))
		if v == "" {
			return
		}
		if !json.Valid([]byte(v)) {
			fe[field] = append(fe[field], "expected JSON (a JSON Schema object)")
			return
		}
		spec[field] = json.RawMessage(v)
	}
	rawJSON("argSchema")
	rawJSON("outputSchema")
	switch f.Get("type") {
	case string(catalogue.TypeGo):
		spec["goImpl"] = map[string]any{"func": f.Get("goFunc")}
	case string(catalogue.TypeHTTP):
		spec["httpImpl"] = map[string]any{
			"request":  map[string]any{"method": f.Get("method"), "urlTemplate": f.Get("urlTemplate"), "body": f.Get("body")},
			"response": map[string]any{"encoding": cmpOr(f.Get("encoding"), "json"), "extract": f.Get("extract")},
			"limits":   map[string]any{},
		}
	case string(catalogue.TypeSteps):
		spec["stepsImpl"] = map[string]any{"body": f.Get("stepsBody")}
	}
	slug, version := f.Get("slug"), f.Get("version")
	if strings.TrimSpace(slug) == "" {
		fe["slug"] = append(fe["slug"], "expected the tool's slug")
	}
	if strings.TrimSpace(version) == "" {
		fe["version"] = append(fe["version"], "expected a version")
	}
	if len(fe) > 0 {
		h.renderBundle(w, r, id, http.StatusBadRequest, f, fe)
		return
	}
	a, err := h.call(r.Context(), http.MethodPut, toolPath(id, slug, version), nil, spec)
	if err != nil {
		h.fail(w, http.StatusInternalServerError, "the tool could not be stored")
		return
	}
	if a.status >= 400 {
		fe = fieldsOf(a.err)
		if len(fe) == 0 {
			fe[""] = []string{a.err.Error}
		}
		h.renderBundle(w, r, id, a.status, f, fe)
		return
	}
	var t catalogue.Tool
	if err := json.Unmarshal(a.body, &t); err != nil {
		redirect(w, r, h.bundleLink(id))
		return
	}
	redirect(w, r, h.toolLink(t))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func splitTags(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// toolFromPath reads the tool of the path from the store.
func (h *Handler) toolFromPath(w http.ResponseWriter, r *http.Request) (catalogue.Tool, bool) {
	id, ok := parseID(w, r, h)
	if !ok {
		return catalogue.Tool{}, false
	}
	t, err := h.store.GetTool(r.Context(), catalogue.ToolKey{BundleID: id, Slug: r.PathValue("slug"), Version: r.PathValue("version")})
	if err != nil {
		h.storeFail(w, err)
		return catalogue.Tool{}, false
	}
	return t, true
}

// toolPage: the tool's schemas, usage, switch and live tester.
func (h *Handler) toolPage(w http.ResponseWriter, r *http.Request) {
	t, ok := h.toolFromPath(w, r)
	if !ok {
		return
	}
	h.renderTool(w, r, t, http.StatusOK, nil, nil)
}

// runView is a live-tester run as the page shows it.
type runView struct {
	OK       bool
	Value    string
	Error    string
	Type     string
	Fields   []catalogueapi.FieldError
	Duration time.Duration
	Sent     string
	// Request is the HTTP request an http tool sent, secrets redacted.
	Request *sentView
}

// sentView is an http tool's request as the tester shows it.
type sentView struct {
	Method, URL, Body string
	Header            []implRow
}

func requestView(s httptool.SentRequest) *sentView {
	v := &sentView{Method: s.Method, URL: s.URL, Body: s.Body}
	for _, k := range slices.Sorted(maps.Keys(s.Header)) {
		v.Header = append(v.Header, implRow{k, strings.Join(s.Header[k], ", ")})
	}
	return v
}

func (h *Handler) renderTool(w http.ResponseWriter, r *http.Request, t catalogue.Tool, status int, values url.Values, run *runView) {
	b, err := h.store.GetBundle(r.Context(), t.BundleID)
	if err != nil {
		h.storeFail(w, err)
		return
	}
	fields, formErr := formFields(t.ArgSchema, values)
	h.render(w, status, "tool.html", map[string]any{
		"Title": t.DisplayName, "Base": h.base, "Tool": t, "Link": h.toolLink(t), "Bundle": bundleRow{Bundle: b, Link: h.bundleLink(b.ID)},
		"ArgSchema": pretty(t.ArgSchema), "OutputSchema": pretty(t.OutputSchema), "Impl": implView(t),
		"Fields": fields, "FormError": formErr, "Run": run,
	})
}

func pretty(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// switchTool posts the tool's on/off switch as PATCH.
func (h *Handler) switchTool(w http.ResponseWriter, r *http.Request) {
	t, ok := h.toolFromPath(w, r)
	if !ok || !h.parseForm(w, r) {
		return
	}
	enabled, err := formBool(r, "isEnabled", false)
	if err != nil {
		h.fail(w, http.StatusBadRequest, "the tool could not be switched: "+err.Error())
		return
	}
	a, err := h.call(r.Context(), http.MethodPatch, toolPath(t.BundleID, t.Slug, t.Version), nil, map[string]any{"isEnabled": enabled})
	if err != nil || a.status >= 400 {
		h.fail(w, statusOf(a, err), "the tool could not be switched: "+a.err.Error)
		return
	}
	redirect(w, r, h.toolLink(t))
}

// runTool runs the tool with the tester form's arguments through the
// API's invoke route and shows the result on the tool's page.
func (h *Handler) runTool(w http.ResponseWriter, r *http.Request) {
	t, ok := h.toolFromPath(w, r)
	if !ok || !h.parseForm(w, r) {
		return
	}
	args, problems := formArgs(t.ArgSchema, r.PostForm)
	if len(problems) > 0 {
		run := &runView{Error: "the form's values could not be read", Type: "validation_error", Fields: problems}
		h.renderTool(w, r, t, http.StatusBadRequest, r.PostForm, run)
		return
	}
	var mu sync.Mutex
	var sent *httptool.SentRequest
	ctx := httptool.WithSentRequest(r.Context(), func(s httptool.SentRequest) {
		mu.Lock()
		sent = &s
		mu.Unlock()
	})
	start := time.Now()
	a, err := h.call(ctx, http.MethodPost, toolPath(t.BundleID, t.Slug, t.Version)+"/invoke", nil, map[string]any{"args": args})
	run := &runView{Duration: time.Since(start).Round(time.Microsecond)}
	if b, err := json.MarshalIndent(args, "", "  "); err == nil {
		run.Sent = string(b)
	}
	mu.Lock()
	if sent != nil {
		run.Request = requestView(*sent)
	}
	mu.Unlock()
	switch {
	case err != nil:
		run.Error, run.Type = "the tool could not be run", "internal_error"
	case a.status >= 400:
		run.Error, run.Type, run.Fields = a.err.Error, a.err.ErrorType, a.err.Fields
	default:
		var res catalogueapi.InvokeResult
		if err := json.Unmarshal(a.body, &res); err != nil {
			run.Error, run.Type = "the tool's answer could not be read", "internal_error"
			break
		}
		run.OK, run.Error, run.Type = res.OK, res.Error, res.ErrorType
		if res.OK {
			run.Value = prettyValue(res.Value)
		}
	}
	if fresh, err := h.store.GetTool(r.Context(), t.Key()); err == nil {
		t = fresh // the run's usage count
	}
	h.renderTool(w, r, t, http.StatusOK, r.PostForm, run)
}

func prettyValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}
