package catalogueadmin_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueadmin"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

// Mount the admin page beside the catalogue's API, behind the same auth
// and guard as the rest of the host.
func Example() {
	dir, _ := os.MkdirTemp("", "catalogue")
	defer os.RemoveAll(dir)
	store, _ := catalogue.OpenFileStore(context.Background(), dir, catalogue.FileOptions{})
	defer store.Close()
	api, _ := catalogueapi.New(catalogueapi.Options{Store: store})
	admin, err := catalogueadmin.New(catalogueadmin.Options{Store: store, API: api, Base: "/admin"})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/admin/", http.StripPrefix("/admin", admin))

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/admin/", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	// Output:
	// 200 text/html; charset=utf-8
}
