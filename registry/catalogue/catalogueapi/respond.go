package catalogueapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// FieldError is one problem of a request: the field (a path parameter, a
// query parameter or a JSON path into the body) and what was expected.
type FieldError struct {
	// Field names the parameter or JSON path ("bundleID", "pageSize",
	// "httpImpl.request.method", "args.q"); empty for the request as a
	// whole.
	Field string `json:"field"`
	// Problem says what was expected.
	Problem string `json:"problem"`
}

// ErrorBody is the JSON body of every error answer (and of a failed
// invocation): {"ok": false, "error": …, "errorType": …, "fields": […]}.
type ErrorBody struct {
	// OK is always false.
	OK bool `json:"ok"`
	// Error is a sentence for people.
	Error string `json:"error"`
	// ErrorType classifies the error for programs: invalid_input,
	// not_found, conflict, built_in, bundle_disabled, bundle_deleted,
	// tool_disabled, limit_reached, payload_too_large, query_too_long,
	// unsupported_media_type, method_not_allowed, not_implemented,
	// upstream_failure, unavailable, internal_error (see the package doc
	// for the status of each).
	ErrorType string `json:"errorType"`
	// Fields lists every field at fault (400 answers).
	Fields []FieldError `json:"fields,omitempty"`
	// ErrorData is the structured detail of a failed tool result.
	ErrorData any `json:"errorData,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"ok":false,"error":"the answer could not be encoded","errorType":"internal_error"}`)
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

func writeError(w http.ResponseWriter, status int, typ, msg string, fields []FieldError) {
	writeJSON(w, status, ErrorBody{Error: msg, ErrorType: typ, Fields: fields})
}

func writeInvalid(w http.ResponseWriter, fields []FieldError) {
	writeError(w, http.StatusBadRequest, "invalid_input", fmt.Sprintf("the request has %d invalid field(s)", len(fields)), fields)
}

// fieldsOf converts the catalogue's field errors, prefixing each path.
func fieldsOf(err error, prefix string) []FieldError {
	var ve *catalogue.ValidationError
	if !errors.As(err, &ve) {
		return []FieldError{{Field: prefix, Problem: err.Error()}}
	}
	out := make([]FieldError, len(ve.Fields))
	for i, f := range ve.Fields {
		name := f.Field
		if prefix != "" {
			if name == "" {
				name = prefix
			} else {
				name = prefix + "." + name
			}
		}
		out[i] = FieldError{Field: name, Problem: f.Problem}
	}
	return out
}

// retryAfterSeconds is the Retry-After of an answer given while the
// store cannot be reached or does not answer in time.
const retryAfterSeconds = "5"

// writeStoreError maps a store error to its status (see the package doc).
func (h *Handler) writeStoreError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, catalogue.ErrInvalid):
		writeInvalid(w, fieldsOf(err, ""))
	case errors.Is(err, catalogue.ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", "no such bundle or tool", nil)
	case errors.Is(err, catalogue.ErrConflict):
		writeError(w, http.StatusConflict, "conflict",
			"a tool with this slug and version already exists in the bundle; it was left unchanged (publish a new version)", nil)
	case errors.Is(err, catalogue.ErrBuiltIn):
		writeError(w, http.StatusForbidden, "built_in", "built-in bundles and tools are read-only except isEnabled", nil)
	case errors.Is(err, catalogue.ErrBundleDeleted):
		writeError(w, http.StatusConflict, "bundle_deleted", "the bundle is soft-deleted; nothing can be put or patched in it", nil)
	case errors.Is(err, catalogue.ErrBundleDisabled):
		writeError(w, http.StatusConflict, "bundle_disabled", "the bundle is disabled; enable it before putting or patching its tools", nil)
	case errors.Is(err, catalogue.ErrLimit):
		writeError(w, http.StatusUnprocessableEntity, "limit_reached", "a catalogue limit would be exceeded (such as the number of tools in a bundle)", nil)
	case errors.Is(err, catalogue.ErrTimeout):
		h.log.WarnContext(r.Context(), "catalogueapi: the store did not answer in time", "method", r.Method, "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", retryAfterSeconds)
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the catalogue's database is busy: it did not answer in time; retry in a few seconds", nil)
	case errors.Is(err, catalogue.ErrUnavailable):
		h.log.WarnContext(r.Context(), "catalogueapi: the store cannot be reached", "method", r.Method, "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", retryAfterSeconds)
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the catalogue's database cannot be reached right now; retry in a few seconds", nil)
	// After the store's own: a statement the pool's deadline ended is
	// ErrTimeout and wraps context.DeadlineExceeded too.
	case errors.Is(err, catalogue.ErrClosed), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the catalogue is not available; retry later", nil)
	default:
		h.log.ErrorContext(r.Context(), "catalogueapi: store failure", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal_error", "the catalogue failed to answer; see the server log", nil)
	}
}

// readJSONBody checks the Content-Type and reads at most max bytes of the
// body. It answers 415 or 413 itself and returns ok false then.
func readJSONBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, bool) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"expected Content-Type: application/json", nil)
		return nil, false
	}
	if r.ContentLength > max {
		writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large",
			fmt.Sprintf("expected a body of at most %d bytes, got %d", max, r.ContentLength), nil)
		return nil, false
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large",
			fmt.Sprintf("expected a body of at most %d bytes", max), nil)
		return nil, false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_input", "the body could not be read", nil)
		return nil, false
	}
	return bytes.TrimSpace(data), true
}
