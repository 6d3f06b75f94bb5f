package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// bareHandler is the baseline: a plain net/http handler that checks the
// method and content type, caps the body, decodes it with encoding/json
// (unknown fields rejected), validates it with validator/v10 and calls the
// same search function, answering with the same envelope.
func bareHandler() http.Handler {
	v := validator.New(validator.WithRequiredStructEnabled())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, `{"ok":false}`, http.StatusMethodNotAllowed)
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			http.Error(w, `{"ok":false}`, http.StatusUnsupportedMediaType)
			return
		}
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
		dec.DisallowUnknownFields()
		var a SearchArgs
		if err := dec.Decode(&a); err != nil {
			http.Error(w, `{"ok":false}`, http.StatusBadRequest)
			return
		}
		if err := v.Struct(a); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": err.Error()})
			return
		}
		b, err := json.Marshal(struct {
			OK    bool      `json:"ok"`
			Value SearchOut `json:"value"`
		}{true, search(a)})
		if err != nil {
			http.Error(w, `{"ok":false}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})
}

var benchBody = []byte(goodSearch)

// newUntypedRegistry registers the search function with a Result[any], so
// the tool has no output schema and the registry skips output validation.
func newUntypedRegistry(tb testing.TB) *registry.Registry {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	tool, err := registry.Func("search", func(_ context.Context, a SearchArgs) (result.Result[any], error) {
		return result.Ok[any](search(a)), nil
	}, registry.ToolOptions{Doc: "Searches."})
	require.NoError(tb, err)
	require.NoError(tb, reg.Add(tool))
	return reg
}

// serveOnce runs one in-process invoke (httptest.NewRecorder, no network).
func serveOnce(tb testing.TB, h http.Handler) {
	req := httptest.NewRequest(http.MethodPost, "/tools/search/invoke", bytes.NewReader(benchBody))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
}

// TestBenchmarkHandlersAgree makes sure the benchmark compares like with
// like: both handlers accept the good call with the same body, and reject
// the same bad calls.
func TestBenchmarkHandlersAgree(t *testing.T) {
	reg := newRegistry(t)
	ours, bare := httpapi.New(reg, httpapi.Options{Logger: discardLogger()}), bareHandler()
	for _, body := range []string{goodSearch, `{"query":"","limit":99,"mode":"slow","tags":[]}`, `{"query":"a","limit":1,"mode":"fast","tags":["x"],"extra":1}`, `{`} {
		var codes, bodies []string
		for _, h := range []http.Handler{ours, bare} {
			req := httptest.NewRequest(http.MethodPost, "/tools/search/invoke", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			codes = append(codes, http.StatusText(rec.Code))
			bodies = append(bodies, rec.Body.String())
		}
		require.Equal(t, codes[1], codes[0], "same verdict for %s", body)
		if codes[0] == "OK" {
			require.JSONEq(t, bodies[1], bodies[0])
		}
	}
}

// BenchmarkInvoke measures in-process HTTP invoke (httptest.NewRecorder, no
// network) of the 5-field search tool: through this package's handler and
// the registry pipeline, and through the bare baseline handler. The ratio
// sub-benchmark interleaves one call of each per iteration and reports the
// ratio of median call times as "ratio" (ours/bare; goal ≤ 1.25, i.e. at
// least 0.8× the throughput) and of total times as "mean-ratio".
func BenchmarkInvoke(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		h := bareHandler()
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, h)
		}
	})
	b.Run("httpapi", func(b *testing.B) {
		h := httpapi.New(newRegistry(b), httpapi.Options{Logger: discardLogger()})
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, h)
		}
	})
	// Diagnostics: where the time goes. The registry pipeline alone (no
	// HTTP), and the handler for the same function registered with an
	// untyped result (no output schema, so no output validation).
	b.Run("registry_invoke_only", func(b *testing.B) {
		reg := newRegistry(b)
		b.ReportAllocs()
		for b.Loop() {
			res, err := reg.Invoke(context.Background(), "search", benchBody)
			if err != nil || !res.Success {
				b.Fatal(err, res.Error)
			}
		}
	})
	b.Run("httpapi_no_output_schema", func(b *testing.B) {
		h := httpapi.New(newUntypedRegistry(b), httpapi.Options{Logger: discardLogger()})
		b.ReportAllocs()
		for b.Loop() {
			serveOnce(b, h)
		}
	})
	b.Run("ratio_httpapi_vs_bare", func(b *testing.B) {
		ours := httpapi.New(newRegistry(b), httpapi.Options{Logger: discardLogger()})
		bare := bareHandler()
		ratio(b, func() { serveOnce(b, ours) }, func() { serveOnce(b, bare) })
	})
	b.Run("ratio_httpapi_no_output_schema_vs_bare", func(b *testing.B) {
		ours := httpapi.New(newUntypedRegistry(b), httpapi.Options{Logger: discardLogger()})
		bare := bareHandler()
		ratio(b, func() { serveOnce(b, ours) }, func() { serveOnce(b, bare) })
	})
}

// ratio interleaves one call of ours and one of base per iteration and
// reports the ratio of median call times as "ratio" and of total times as
// "mean-ratio" (benchtool.Interleave), with both medians.
func ratio(b *testing.B, ours, base func()) {
	mOurs, mBase := benchtool.Interleave(b, ours, base)
	b.ReportMetric(float64(mOurs.Nanoseconds()), "ours-median-ns/call")
	b.ReportMetric(float64(mBase.Nanoseconds()), "bare-median-ns/call")
}

// BenchmarkOpenAPI measures GET /openapi.json from the cache against
// building the document afresh (BuildOpenAPI) in the same run.
func BenchmarkOpenAPI(b *testing.B) {
	reg := newRegistry(b)
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := httpapi.BuildOpenAPI(reg.List(), httpapi.DocOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		h := httpapi.New(reg, httpapi.Options{Logger: discardLogger()})
		b.ReportAllocs()
		for b.Loop() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code)
			}
		}
	})
}
