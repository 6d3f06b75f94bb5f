package catalogueapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// InvokeResult is the answer of a call that ran: {"ok": true, "value": …}
// or {"ok": false, "error": …, "errorType": …}.
type InvokeResult struct {
	// OK reports whether the tool succeeded.
	OK bool `json:"ok"`
	// Value is the tool's value (present, maybe null, when OK).
	Value any `json:"value"`
	// Error is the failure text when not OK.
	Error string `json:"error,omitempty"`
	// ErrorType classifies the failure (result.ErrorType) when not OK.
	ErrorType string `json:"errorType,omitempty"`
	// ErrorData is the failure's structured detail, if any.
	ErrorData any `json:"errorData,omitempty"`
	// Message is optional text for the user.
	Message string `json:"message,omitempty"`
	// Instruction is optional guidance for an agent.
	Instruction string `json:"instruction,omitempty"`
}

// decodeInvokeBody reads {"args": {…}}: exactly one member, an object.
func decodeInvokeBody(body []byte) (json.RawMessage, []FieldError) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, []FieldError{{Field: "", Problem: `expected a JSON object {"args": {…}}`}}
	}
	if dec.More() {
		return nil, []FieldError{{Field: "", Problem: "expected one JSON object, got more data after it"}}
	}
	var fe []FieldError
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k != "args" {
			fe = append(fe, FieldError{Field: clip(k, 64), Problem: "unknown field; expected only args"})
		}
	}
	args, ok := m["args"]
	t := bytes.TrimSpace(args)
	switch {
	case !ok:
		fe = append(fe, FieldError{Field: "args", Problem: "expected a JSON object of arguments, got nothing"})
	case len(t) == 0 || t[0] != '{':
		fe = append(fe, FieldError{Field: "args", Problem: "expected a JSON object of arguments"})
	}
	return t, fe
}

// argSchema returns the tool's compiled argSchema (cached by its text).
func (h *Handler) argSchema(t *catalogue.Tool) (*jsonschema.Schema, error) {
	return h.schemas.Compile(t.ArgSchema)
}

// violations lists every leaf error of a schema validation, each under
// the JSON path of the argument at fault ("args.q", "args.items[2]").
func violations(err error) []FieldError {
	vs := catalogue.Violations(err)
	out := make([]FieldError, len(vs))
	for i, v := range vs {
		f := "args"
		if p := catalogue.FieldPath(v.Pointer); p != "" {
			if p[0] != '[' {
				f += "."
			}
			f += p
		}
		out[i] = FieldError{Field: f, Problem: v.Message}
	}
	return out
}

func (h *Handler) invoke(w http.ResponseWriter, r *http.Request, p params) {
	key, fe := pathKey(p)
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	if h.invoker == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", "this catalogue serves no invocations (no Invoker configured)", nil)
		return
	}
	body, ok := readJSONBody(w, r, MaxInvokeBodyBytes)
	if !ok {
		return
	}
	args, fe := decodeInvokeBody(body)
	if len(fe) > 0 {
		writeInvalid(w, fe)
		return
	}
	ctx := r.Context()
	t, err := h.store.GetTool(ctx, key)
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	b, err := h.store.GetBundle(ctx, key.BundleID)
	if err != nil {
		h.writeStoreError(w, r, err)
		return
	}
	switch {
	case b.SoftDeletedAt != nil:
		writeError(w, http.StatusConflict, "bundle_deleted", "the tool's bundle is soft-deleted; its tools cannot be called", nil)
		return
	case !b.IsEnabled:
		writeError(w, http.StatusConflict, "bundle_disabled", "the tool's bundle is disabled; enable it to call its tools", nil)
		return
	case !t.IsEnabled:
		writeError(w, http.StatusConflict, "tool_disabled", "the tool is disabled; enable it to call it", nil)
		return
	}
	schema, err := h.argSchema(&t)
	if err != nil {
		h.log.ErrorContext(ctx, "catalogueapi: stored argSchema does not compile", "bundleID", key.BundleID, "slug", key.Slug, "version", key.Version, "err", err)
		writeError(w, http.StatusInternalServerError, "internal_error", "the tool's stored argSchema does not compile", nil)
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		writeInvalid(w, []FieldError{{Field: "args", Problem: "expected a JSON object of arguments"}})
		return
	}
	if err := catalogue.ValidateValue(schema, inst); err != nil {
		writeInvalid(w, violations(err))
		return
	}
	res, callErr := h.invoker.Invoke(ctx, t, args)
	if !h.invokerCounts {
		at := h.now()
		go func() { // usage metrics never hold up the answer
			if err := h.store.RecordUsage(context.WithoutCancel(ctx), key, at); err != nil {
				h.log.Warn("catalogueapi: record usage", "bundleID", key.BundleID, "slug", key.Slug, "version", key.Version, "err", err)
			}
		}()
	}
	if callErr != nil {
		h.log.WarnContext(ctx, "catalogueapi: invocation failed", "bundleID", key.BundleID, "slug", key.Slug, "version", key.Version, "err", callErr)
		writeError(w, http.StatusBadGateway, "upstream_failure", "the tool failed to run; see the server log", nil)
		return
	}
	out := InvokeResult{OK: res.Success, Message: res.Message, Instruction: res.Instruction}
	if res.Success {
		out.Value = res.Value
	} else {
		out.Error, out.ErrorType, out.ErrorData = res.Error, string(res.ErrorType), res.ErrorData
		if out.Error == "" {
			out.Error = fmt.Sprintf("the tool failed (%s)", cmpOr(string(res.ErrorType), "no error text"))
		}
	}
	if !out.OK {
		writeJSON(w, http.StatusOK, failed{OK: false, Error: out.Error, ErrorType: out.ErrorType, ErrorData: out.ErrorData,
			Message: out.Message, Instruction: out.Instruction})
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// failed is the wire form of a failed result: value is absent.
type failed struct {
	OK          bool   `json:"ok"`
	Error       string `json:"error"`
	ErrorType   string `json:"errorType,omitempty"`
	ErrorData   any    `json:"errorData,omitempty"`
	Message     string `json:"message,omitempty"`
	Instruction string `json:"instruction,omitempty"`
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
