package httpguard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolpack-go/toolpack/adapters/httpguard"
	"github.com/toolpack-go/toolpack/internal/benchtool"
)

// BenchmarkGuard measures a GET over a keep-alive loopback connection
// through the guard (Host and Origin checks, per-write deadline) against
// the same handler without it, interleaved in one run ("ratio" = median
// guarded / median bare).
func BenchmarkGuard(b *testing.B) {
	body := []byte(`{"status":"ok"}`)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) })
	g, err := httpguard.New(httpguard.Options{Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	guarded := httptest.NewServer(g.Handler(h))
	defer guarded.Close()
	bare := httptest.NewServer(h)
	defer bare.Close()
	get := func(url string) func() {
		return func() {
			resp, err := http.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatal(resp.Status)
			}
		}
	}
	benchtool.Interleave(b, get(guarded.URL), get(bare.URL))
}

// BenchmarkRequireBearer measures a request with a valid static token
// against the bare handler, in process (no network), interleaved.
func BenchmarkRequireBearer(b *testing.B) {
	toks, err := httpguard.ParseTokens("0123456789abcdef0123456789abcdef\nfedcba9876543210fedcba9876543210", "bench")
	if err != nil {
		b.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	guarded := httpguard.RequireBearer(toks.Verify, httpguard.BearerOptions{AllowMissingExpiration: true, Logger: quiet()})(h)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Authorization", "Bearer fedcba9876543210fedcba9876543210")
	w := httptest.NewRecorder()
	b.ReportAllocs()
	benchtool.Interleave(b, func() { guarded.ServeHTTP(w, req) }, func() { h.ServeHTTP(w, req) })
}
