package catalogueapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

// send makes a request with a raw body and content type and returns the
// answer unparsed.
func (e *env) send(method, path string, body []byte, ct string) (*http.Response, []byte) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.url+path, rd)
	require.NoError(e.t, err)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	return res, raw
}

func errorBody(t *testing.T, raw []byte) catalogueapi.ErrorBody {
	t.Helper()
	var eb catalogueapi.ErrorBody
	require.NoError(t, json.Unmarshal(raw, &eb), "%s", raw)
	return eb
}

// GET /bundles/{id}/export answers the archive as a download; POST
// /bundles/import into another catalogue answers 201 with the bundle, and
// every tool reads back exactly as in the first catalogue.
func TestExportThenImportThroughTheAPI(t *testing.T) {
	a, b := newEnv(t, catalogueapi.Options{}), newEnv(t, catalogueapi.Options{})
	id := a.bundle("wéb")
	a.tool(id, "echo", "1.0", toolBody("Echo", "echo", true, "demo"))
	a.tool(id, "echo", "2.0", toolBody("Echo 2", "echo", false))
	require.Equal(t, http.StatusOK, a.do("POST", toolPath(id, "echo", "1.0")+"/invoke", `{"args":{"q":"x"}}`).status)
	// The call is counted in the background after the answer, and
	// buffered: wait until the store holds it, so that the archive
	// carries it.
	require.Eventually(t, func() bool {
		require.NoError(t, a.store.Flush(context.Background()))
		var tl struct {
			CallCount int `json:"callCount"`
		}
		r := a.do("GET", toolPath(id, "echo", "1.0"), "")
		return r.status == http.StatusOK && json.Unmarshal(r.raw, &tl) == nil && tl.CallCount == 1
	}, 10*time.Second, 5*time.Millisecond, "the call is counted")

	res, archive := a.send("GET", "/bundles/"+id.String()+"/export", nil, "")
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", archive)
	assert.Equal(t, "application/zip", res.Header.Get("Content-Type"))
	disp, dp, err := mime.ParseMediaType(res.Header.Get("Content-Disposition"))
	require.NoError(t, err)
	assert.Equal(t, "attachment", disp)
	assert.Equal(t, "wéb-"+id.String()+".zip", dp["filename"], "named after the bundle, non-ASCII slugs encoded")
	_, err = zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err, "a ZIP archive")

	res, raw := b.send("POST", "/bundles/import", archive, "application/zip")
	require.Equal(t, http.StatusCreated, res.StatusCode, "%s", raw)
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, id.String(), got["id"])
	assert.Equal(t, "wéb", got["slug"])
	for _, v := range []string{"1.0", "2.0"} {
		want, have := a.do("GET", toolPath(id, "echo", v), ""), b.do("GET", toolPath(id, "echo", v), "")
		require.Equal(t, http.StatusOK, have.status)
		assert.JSONEq(t, string(want.raw), string(have.raw), "echo@%s exactly as exported (usage included)", v)
	}
	assert.Equal(t, a.listAll("/tools?includeDisabled=true", "tools", 10, nil), b.listAll("/tools?includeDisabled=true", "tools", 10, nil))
}

// Importing a bundle the catalogue holds already answers 409 and leaves it.
func TestImportExistingBundleAnswers409(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("web")
	_, archive := e.send("GET", "/bundles/"+id.String()+"/export", nil, "")
	res, raw := e.send("POST", "/bundles/import", archive, "application/zip")
	require.Equal(t, http.StatusConflict, res.StatusCode, "%s", raw)
	assert.Equal(t, "conflict", errorBody(t, raw).ErrorType)
	assert.Contains(t, errorBody(t, raw).Error, "bundle with this id already exists")
}

// A bad archive answers 400 with every problem, the entry named.
func TestImportBadArchiveAnswers400(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	res, raw := e.send("POST", "/bundles/import", []byte("not a zip"), "application/zip")
	require.Equal(t, http.StatusBadRequest, res.StatusCode, "%s", raw)
	eb := errorBody(t, raw)
	assert.Equal(t, "invalid_input", eb.ErrorType)
	require.Len(t, eb.Fields, 1)
	assert.Contains(t, eb.Fields[0].Problem, "expected a ZIP archive")

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("../../evil.json")
	require.NoError(t, err)
	_, _ = w.Write([]byte("{}"))
	require.NoError(t, zw.Close())
	res, raw = e.send("POST", "/bundles/import", buf.Bytes(), "application/zip")
	require.Equal(t, http.StatusBadRequest, res.StatusCode, "%s", raw)
	eb = errorBody(t, raw)
	require.Len(t, eb.Fields, 1)
	assert.Equal(t, `"../../evil.json"`, eb.Fields[0].Field)
	assert.Contains(t, eb.Fields[0].Problem, "unsafe name")
	assert.NotContains(t, e.logs.String(), "store failure", "bad input is not a server failure")
}

// Bodies above MaxImportBodyBytes answer 413, whether the client declares
// the length or streams the body.
func TestImportTooLargeAnswers413(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	for _, declared := range []bool{true, false} {
		body := io.LimitReader(zeros{}, catalogueapi.MaxImportBodyBytes+1)
		req := httptest.NewRequest("POST", "/bundles/import", body)
		req.Header.Set("Content-Type", "application/zip")
		req.ContentLength = -1
		if declared {
			req.ContentLength = catalogueapi.MaxImportBodyBytes + 1
		}
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, "declared length: %v", declared)
		assert.Equal(t, "payload_too_large", errorBody(t, rec.Body.Bytes()).ErrorType)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Import wants a ZIP Content-Type.
func TestImportWrongContentTypeAnswers415(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	for _, ct := range []string{"", "application/json", "text/plain"} {
		res, raw := e.send("POST", "/bundles/import", []byte("PK"), ct)
		assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode, "%q: %s", ct, raw)
	}
}

// Export of a missing bundle 404, of a bad id 400, of a built-in one 403;
// other methods 405.
func TestExportErrors(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	r := e.do("GET", "/bundles/"+newID(t).String()+"/export", "")
	assert.Equal(t, http.StatusNotFound, r.status)
	r = e.do("GET", "/bundles/not-a-uuid/export", "")
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, []string{"bundleID"}, r.fields())
	id := e.bundle("core")
	markBuiltIn(t, e.bundleFile(id))
	r = e.do("GET", "/bundles/"+id.String()+"/export", "")
	assert.Equal(t, http.StatusForbidden, r.status)
	r = e.do("POST", "/bundles/"+id.String()+"/export", "{}")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	assert.Equal(t, "GET", r.header.Get("Allow"))
	r = e.do("PUT", "/bundles/import", "{}")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	assert.Equal(t, "POST", r.header.Get("Allow"))
}

// The answers of both routes match the OpenAPI document.
func TestBundleZipAnswersMatchTheOpenAPIDocument(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	doc, err := e.h.OpenAPI()
	require.NoError(t, err)
	d, err := libopenapi.NewDocument(doc)
	require.NoError(t, err)
	v, errs := validator.NewValidator(d)
	require.Empty(t, errs)

	id := e.bundle("web")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	_, archive := e.send("GET", "/bundles/"+id.String()+"/export", nil, "")
	other := newEnv(t, catalogueapi.Options{})
	for _, c := range []struct {
		env    *env
		method string
		path   string
		body   []byte
		status int
	}{
		{e, "GET", "/bundles/" + id.String() + "/export", nil, 200},
		{e, "GET", "/bundles/" + newID(t).String() + "/export", nil, 404},
		{other, "POST", "/bundles/import", archive, 201},
		{other, "POST", "/bundles/import", archive, 409},
		{other, "POST", "/bundles/import", []byte("junk"), 400},
	} {
		var body io.Reader
		if c.body != nil {
			body = bytes.NewReader(c.body)
		}
		req, err := http.NewRequestWithContext(t.Context(), c.method, c.env.url+c.path, body)
		require.NoError(t, err)
		if c.body != nil {
			req.Header.Set("Content-Type", "application/zip")
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		raw, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, c.status, res.StatusCode, "%s %s: %s", c.method, c.path, raw)
		res.Body = io.NopCloser(bytes.NewReader(raw))
		if c.body != nil {
			req.Body = io.NopCloser(bytes.NewReader(c.body))
		}
		_, rerrs := v.ValidateHttpResponse(req, res)
		for _, ve := range rerrs {
			t.Errorf("%s %s → %d: %s: %s %v", c.method, c.path, res.StatusCode, ve.Message, ve.Reason, ve.SchemaValidationErrors)
		}
	}
}

// withBundleID rewrites the bundle id in an exported archive's manifest,
// as someone copying a bundle does by hand.
func withBundleID(t *testing.T, archive []byte, id uuid.UUID) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		if f.Name == "bundle.json" {
			var m map[string]any
			require.NoError(t, json.Unmarshal(data, &m))
			m["bundle"].(map[string]any)["id"] = id.String()
			data, err = json.Marshal(m)
			require.NoError(t, err)
		}
		w, err := zw.Create(f.Name)
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return out.Bytes()
}

// A copy of a bundle — its export with a new bundle id in bundle.json —
// imports beside the original (201): the tools keep their ids, which are
// unique within a bundle. Importing it again names what conflicts: the
// bundle id.
func TestImportCopyUnderANewBundleIDAnswers201(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("web")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	_, archive := e.send("GET", "/bundles/"+id.String()+"/export", nil, "")
	cp := uuid.Must(catalogue.NewID())
	copyArchive := withBundleID(t, archive, cp)
	res, raw := e.send("POST", "/bundles/import", copyArchive, "application/zip")
	require.Equal(t, http.StatusCreated, res.StatusCode, "%s", raw)
	orig, dup := e.do("GET", toolPath(id, "echo", "1"), ""), e.do("GET", toolPath(cp, "echo", "1"), "")
	require.Equal(t, http.StatusOK, dup.status)
	assert.Equal(t, orig.body["id"], dup.body["id"], "the copy keeps the tool's id")

	res, raw = e.send("POST", "/bundles/import", copyArchive, "application/zip")
	require.Equal(t, http.StatusConflict, res.StatusCode, "%s", raw)
	assert.Contains(t, errorBody(t, raw).Error, "a bundle with this id already exists")
}

// conflictingStore answers every import with a conflict that is not the
// bundle id's: two records of the import with one <slug, version>.
type conflictingStore struct{ *catalogue.FileStore }

func (conflictingStore) ImportBundle(context.Context, catalogue.Bundle, []catalogue.Tool) error {
	return fmt.Errorf("tools[0] and tools[1] are both echo@1: %w", catalogue.ErrConflict)
}

// An import refused for a conflict other than the bundle id's is not
// answered as "a bundle with this id already exists".
func TestImportConflictSaysWhatConflicts(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("web")
	_, archive := e.send("GET", "/bundles/"+id.String()+"/export", nil, "")
	h, err := catalogueapi.New(catalogueapi.Options{Store: conflictingStore{e.store}, Invoker: e.inv, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/bundles/import", bytes.NewReader(withBundleID(t, archive, uuid.Must(catalogue.NewID()))))
	req.Header.Set("Content-Type", "application/zip")
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusConflict, rec.Code, "%s", rec.Body)
	msg := errorBody(t, rec.Body.Bytes()).Error
	assert.NotContains(t, msg, "bundle with this id")
	assert.Contains(t, msg, "two tools with the same slug and version")
}

// Two tools with one id in two bundles (a copy of a bundle keeps its
// tools' ids) are each checked against their own argSchema: the compiled
// schemas are not shared by tool id.
func TestInvokeChecksEachToolsOwnSchemaWhenToolIDsRepeat(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	ctx := context.Background()
	toolID := uuid.Must(catalogue.NewID())
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var bundles []uuid.UUID
	for _, schema := range []string{
		`{"type":"object","properties":{"q":{"type":"string"}}}`,
		`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q","n"]}`,
	} {
		b := catalogue.Bundle{ID: uuid.Must(catalogue.NewID()), BundleSpec: catalogue.BundleSpec{Slug: "web", DisplayName: "Web", IsEnabled: true},
			CreatedAt: at, ModifiedAt: at}
		tool := catalogue.Tool{ID: toolID, BundleID: b.ID, Slug: "echo", Version: "1", CreatedAt: at, ModifiedAt: at,
			ToolSpec: catalogue.ToolSpec{DisplayName: "Echo", IsEnabled: true, Type: catalogue.TypeGo,
				ArgSchema: json.RawMessage(schema), GoImpl: &catalogue.GoImpl{Func: "echo"}}}
		require.NoError(t, e.store.ImportBundle(ctx, b, []catalogue.Tool{tool}))
		bundles = append(bundles, b.ID)
	}
	r := e.do("POST", toolPath(bundles[0], "echo", "1")+"/invoke", `{"args":{"q":"x"}}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	r = e.do("POST", toolPath(bundles[1], "echo", "1")+"/invoke", `{"args":{"q":"x"}}`)
	require.Equal(t, http.StatusBadRequest, r.status, "the second tool requires n: %s", r.raw)
	assert.Contains(t, r.fields(), "args.n")
}
