package catalogueapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/jsontext"
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

// invokeShape is how a call's body must look, said in every refusal of
// its shape.
const invokeShape = `a JSON object {"args": {…}}`

// decodeInvokeBody reads {"args": {…}}: exactly one member, an object, as
// strictly as the PUT bodies: a byte order mark, nesting deeper than
// catalogue.MaxJSONDepth inside args, a syntax error (with its byte offset),
// text that is not UTF-8 (naming the field and the byte offset, never
// quoting the bytes), a repeated or unknown member are each refused with
// their own reason.
func decodeInvokeBody(body []byte) (json.RawMessage, []FieldError) {
	body = bytes.TrimSpace(body)
	whole := func(format string, a ...any) (json.RawMessage, []FieldError) {
		return nil, []FieldError{{Field: "", Problem: fmt.Sprintf(format, a...)}}
	}
	switch {
	case len(body) == 0:
		return whole("expected %s, got nothing", invokeShape)
	case bytes.HasPrefix(body, []byte("\uFEFF")):
		return whole("expected %s, got a byte order mark (U+FEFF) before it; send the JSON without one", invokeShape)
	}
	// Depth first: encoding/json's own limit (10000) would otherwise
	// speak as a syntax error.
	if d := jsontext.Depth(body); d > catalogue.MaxJSONDepth+1 {
		return nil, []FieldError{{Field: "args", Problem: fmt.Sprintf("expected arguments nested at most %d levels deep, got %d", catalogue.MaxJSONDepth, d-1)}}
	}
	switch {
	case !json.Valid(body):
		return whole("expected %s: %s", invokeShape, jsontext.SyntaxProblem(body))
	case body[0] != '{':
		return whole("expected %s, got %s", invokeShape, jsontext.Kind(body))
	}
	if field, offset, key, bad := args.FindInvalidUTF8(body); bad {
		what := "text"
		if key {
			what = "keys"
		}
		return nil, []FieldError{{Field: field, Problem: fmt.Sprintf("expected %s of valid UTF-8 (JSON text must be UTF-8), got bytes that are not at byte %d", what, offset)}}
	}
	members, fe := objectMembers(body)
	if len(fe) > 0 {
		return nil, fe
	}
	var a json.RawMessage
	seen := false
	unknown := map[string]bool{}
	for _, m := range members {
		switch {
		case m.name != "args":
			if !unknown[m.name] {
				unknown[m.name] = true
				fe = append(fe, FieldError{Field: clip(m.name, 64), Problem: "unknown field; expected only args"})
			}
		case seen:
			fe = append(fe, FieldError{Field: "args", Problem: "expected each field once, got it repeated"})
		default:
			seen, a = true, m.value
		}
	}
	switch {
	case !seen:
		fe = append(fe, FieldError{Field: "args", Problem: "expected a JSON object of arguments, got nothing"})
	case a[0] != '{':
		fe = append(fe, FieldError{Field: "args", Problem: "expected a JSON object of arguments, got " + jsontext.Kind(a)})
	}
	slices.SortStableFunc(fe, func(x, y FieldError) int { return cmp.Compare(x.Field, y.Field) })
	return a, fe
}

// member is one member of a JSON object, in the order written.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers lists the members of body, valid JSON text of an object,
// repeated names included.
func objectMembers(body []byte) ([]member, []FieldError) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return nil, []FieldError{{Field: "", Problem: fmt.Sprintf("expected %s: %v", invokeShape, err)}}
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, []FieldError{{Field: "", Problem: fmt.Sprintf("expected %s: %v", invokeShape, err)}}
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, []FieldError{{Field: clip(name, 64), Problem: fmt.Sprintf("expected a JSON value: %v", err)}}
		}
		out = append(out, member{name: name, value: v})
	}
	return out, nil
}

// argSchema returns the tool's compiled argSchema (cached by its text).
func (h *Handler) argSchema(t *catalogue.Tool) (*jsonschema.Schema, error) {
	return h.schemas.Compile(t.ArgSchema)
}

// violations lists the leaf errors of a schema validation (at most
// catalogue.MaxViolations, then one saying how many more), each under
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
		// The same reason a call through the registry gives (MCP, REST):
		// the tool and bundle named, and how to switch them on.
		writeError(w, http.StatusConflict, "bundle_disabled", "the tool cannot be called: "+catalogue.DisabledReason(b, t), nil)
		return
	case !t.IsEnabled:
		writeError(w, http.StatusConflict, "tool_disabled", "the tool cannot be called: "+catalogue.DisabledReason(b, t), nil)
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
