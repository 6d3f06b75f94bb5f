package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/internal/jsonptr"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// documentedStatuses are every status the handler may send (package doc).
var documentedStatuses = map[int]bool{
	200: true, 400: true, 403: true, 404: true, 405: true, 409: true, 413: true, 415: true,
	422: true, 429: true, httpapi.StatusClientClosedRequest: true, 500: true, 502: true, 503: true, 504: true,
}

// checkEnvelope fails unless rec holds a documented status and a JSON
// object body; an invoke answer or any error has a boolean ok that agrees
// with the status.
func checkEnvelope(t *testing.T, rec *httptest.ResponseRecorder, invoke bool) {
	t.Helper()
	if !documentedStatuses[rec.Code] {
		t.Fatalf("undocumented status %d: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	var env struct {
		OK        *bool  `json:"ok"`
		ErrorType string `json:"error_type"`
		Error     string `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatalf("body is not JSON: %v: %q", err, rec.Body)
	}
	if !invoke && rec.Code == 200 {
		return // a list, not an envelope
	}
	if env.OK == nil {
		t.Fatalf("body has no ok: %s", rec.Body)
	}
	if *env.OK != (rec.Code == 200) {
		t.Fatalf("ok=%v with status %d: %s", *env.OK, rec.Code, rec.Body)
	}
	if !*env.OK && (env.Error == "" || env.ErrorType == "") {
		// The fail tool echoes its error type; all others name theirs.
		if !bytes.Contains(rec.Body.Bytes(), []byte(`"failed as asked: "`)) {
			t.Fatalf("failure without error text or type: %s", rec.Body)
		}
	}
}

// FuzzInvoke sends arbitrary tool names, content types and bodies to the
// invoke endpoint: the handler never panics, always answers with a
// documented status and a JSON envelope, and never leaks the protocol
// error's secret.
func FuzzInvoke(f *testing.F) {
	f.Add("search", "application/json", []byte(goodSearch))
	f.Add("search", "application/json", []byte(`{"query":"","limit":99,"mode":"slow","tags":[""]}`))
	f.Add("echo", "application/json; charset=utf-8", []byte(`{"text":"hi"}`))
	f.Add("fail", "application/json", []byte(`{"type":"upstream_failure"}`))
	f.Add("boom", "application/json", []byte(`{}`))
	f.Add("ping", "application/json", []byte(``))
	f.Add("nope", "application/json", []byte(`{}`))
	f.Add("..", "application/json", []byte(`{}`))
	f.Add("a/b", "text/plain", []byte(`{}`))
	f.Add("search", "", []byte(`{"query":`))
	f.Add("search", "application/json", bytes.Repeat([]byte("["), 3000))
	reg := newRegistry(f)
	h := httpapi.New(reg, httpapi.Options{MaxBodyBytes: 2048, Logger: discardLogger()})
	f.Fuzz(func(t *testing.T, name, contentType string, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.URL = &url.URL{Path: "/tools/" + name + "/invoke"}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkEnvelope(t, rec, true)
		if bytes.Contains(rec.Body.Bytes(), []byte(secret)) {
			t.Fatalf("secret leaked: %s", rec.Body)
		}
	})
}

// FuzzListQuery sends arbitrary query strings to GET /tools: the answer is
// a 200 list or a 400 naming the parameter, never anything else.
func FuzzListQuery(f *testing.F) {
	for _, q := range []string{"", "pack=text", "q=SEARCH", "pack=text&q=a", "q=a&q=b", "x=1", "q=%ff", "q=%zz", ";;&&==", "pack="} {
		f.Add(q)
	}
	h := httpapi.New(newRegistry(f), httpapi.Options{Logger: discardLogger()})
	f.Fuzz(func(t *testing.T, rawQuery string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL = &url.URL{Path: "/tools", RawQuery: rawQuery}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 && rec.Code != 400 {
			t.Fatalf("status %d for %q: %s", rec.Code, rawQuery, rec.Body)
		}
		checkEnvelope(t, rec, false)
	})
}

// FuzzOpenAPIToolSchema: any JSON a tool's input schema may hold (a remote
// server's, through the proxy) gives a document that is JSON, in which
// every local reference of the tool's schema — inline or moved to
// components — points at a schema (an object or a boolean) that is
// reached without a loop of references alone.
func FuzzOpenAPIToolSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object"}`,
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`,
		`{"properties":{"next":{"$ref":"#"}}}`,
		`{"$ref":"#"}`,
		`{"properties":{"p":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`,
		`{"properties":{"p":{"$ref":"#/$defs/Missing"}}}`,
		`{"$id":"https://x.test/s","properties":{"p":{"$ref":"#/$defs/A"}}}`,
		`{"items":[{"$ref":"#/items/0/x"}],"default":{"$ref":"#/nowhere"}}`,
		`{"type":"object","properties":{"p":{"$ref":"#/type"}}}`,
		`{"properties":{"p":{"$ref":"#/$defs/no"}},"$defs":{"no":false}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		var m map[string]any
		if json.Unmarshal(schema, &m) != nil || m == nil {
			return // the registry holds JSON objects only
		}
		if id, ok := m["$id"].(string); ok && !strings.HasPrefix(id, "#") {
			return // references relative to the schema's own $id: shown as they are
		}
		tool := &registry.Tool{Name: "t", Description: "d", InputSchema: schema,
			Handler: func(context.Context, *registry.Call) (result.Result[any], error) { return result.Ok[any](1), nil }}
		doc, err := httpapi.BuildOpenAPI([]*registry.Tool{tool}, httpapi.DocOptions{})
		if err != nil {
			t.Fatalf("BuildOpenAPI: %v", err)
		}
		var d map[string]any
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatalf("the document is not JSON: %v", err)
		}
		paths, _ := d["paths"].(map[string]any)
		op, _ := paths["/tools/t/invoke"].(map[string]any)
		post, _ := op["post"].(map[string]any)
		body, _ := post["requestBody"].(map[string]any)
		content, _ := body["content"].(map[string]any)
		mt, _ := content["application/json"].(map[string]any)
		in, ok := mt["schema"].(map[string]any)
		if !ok {
			t.Fatalf("no request schema (the tool's schema: %s)", schema)
		}
		check := func(s map[string]any) {
			jsonptr.EachSchema(s, func(sub map[string]any) {
				ref, ok := sub["$ref"].(string)
				if !ok || (ref != "#" && !strings.HasPrefix(ref, "#/")) {
					return
				}
				for range 1000 {
					target, found := jsonptr.Resolve(d, ref)
					if !found {
						t.Fatalf("%q points at nothing (the tool's schema: %s)", ref, schema)
					}
					next, isMap := target.(map[string]any)
					if _, isBool := target.(bool); !isMap && !isBool {
						t.Fatalf("%q points at no schema (the tool's schema: %s)", ref, schema)
					}
					if !isMap {
						return
					}
					if ref, ok = next["$ref"].(string); !ok || (ref != "#" && !strings.HasPrefix(ref, "#/")) {
						return
					}
				}
				t.Fatalf("references loop through references alone (the tool's schema: %s)", schema)
			})
		}
		check(in)
		if comps, ok := d["components"].(map[string]any)["schemas"].(map[string]any)["t.input"].(map[string]any); ok {
			check(comps)
		}
	})
}
