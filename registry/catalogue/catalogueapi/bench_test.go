package catalogueapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

// BenchmarkGetTool compares GET of one tool through the handler (routing,
// path checks, JSON encoding; no network) with Store.GetTool directly, in
// the same run: the "ratio" metric is handler time over store time.
func BenchmarkGetTool(b *testing.B) {
	ctx := context.Background()
	st, err := catalogue.OpenFileStore(ctx, b.TempDir(), catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	h, err := catalogueapi.New(catalogueapi.Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	id, _ := catalogue.NewID()
	if _, _, err := st.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "b", DisplayName: "B", IsEnabled: true}); err != nil {
		b.Fatal(err)
	}
	key := catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "1"}
	if _, err := st.PutTool(ctx, key, goTool("Echo", true)); err != nil {
		b.Fatal(err)
	}
	path := fmt.Sprintf("/bundles/%s/tools/echo/version/1", id)
	req := httptest.NewRequest(http.MethodGet, path, nil)

	var storeTime, handlerTime time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := st.GetTool(ctx, key); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		t2 := time.Now()
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
		storeTime += t1.Sub(t0)
		handlerTime += t2.Sub(t1)
	}
	b.ReportMetric(float64(storeTime.Nanoseconds())/float64(b.N), "store-ns/op")
	b.ReportMetric(float64(handlerTime.Nanoseconds())/float64(b.N), "handler-ns/op")
	b.ReportMetric(float64(handlerTime)/float64(storeTime), "ratio")
}
