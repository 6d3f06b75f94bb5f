package catalogueapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/result"
)

// echoInvoker returns a tool's arguments as its value.
type echoInvoker struct{}

func (echoInvoker) Invoke(_ context.Context, _ catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return result.Result[any]{}, err
	}
	return result.Ok(v), nil
}

// Mount the API under /tools, create a bundle and a tool, and call it.
func ExampleNew() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "catalogue")
	defer os.RemoveAll(dir)
	store, err := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	api, err := catalogueapi.New(catalogueapi.Options{Store: store, Invoker: echoInvoker{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/tools/", http.StripPrefix("/tools", api))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	send := func(method, path, body string) {
		req, _ := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		var m map[string]any
		_ = json.Unmarshal(out, &m)
		fmt.Println(res.StatusCode, m["ok"], m["value"], m["errorType"])
	}
	bundle := "/tools/bundles/01a209e2-7665-7651-a7fd-a83e8ceb8e41"
	send("PUT", bundle, `{"slug":"demo","displayName":"Demo","isEnabled":true}`)
	send("PUT", bundle+"/tools/echo/version/1", `{"displayName":"Echo","isEnabled":true,"type":"go",
		"argSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"goImpl":{"func":"echo"}}`)
	send("PUT", bundle+"/tools/echo/version/1", `{"displayName":"Echo 2","isEnabled":true,"type":"go",
		"argSchema":{"type":"object"},"goImpl":{"func":"echo"}}`)
	send("POST", bundle+"/tools/echo/version/1/invoke", `{"args":{"q":"hi"}}`)
	send("POST", bundle+"/tools/echo/version/1/invoke", `{"args":{}}`)
	// Output:
	// 201 <nil> <nil> <nil>
	// 201 <nil> <nil> <nil>
	// 409 false <nil> conflict
	// 200 true map[q:hi] <nil>
	// 400 false <nil> invalid_input
}

// The OpenAPI document lists every route; a host may merge it into its
// own or serve it as it is (it is also at GET /openapi.json under the
// mount point).
func ExampleHandler_OpenAPI() {
	dir, _ := os.MkdirTemp("", "catalogue")
	defer os.RemoveAll(dir)
	store, _ := catalogue.OpenFileStore(context.Background(), dir, catalogue.FileOptions{})
	defer store.Close()
	api, _ := catalogueapi.New(catalogueapi.Options{Store: store})
	doc, _ := api.OpenAPI()
	var d struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	_ = json.Unmarshal(doc, &d)
	var methods []string
	for m := range d.Paths["/bundles/{bundleID}/tools/{toolSlug}/version/{version}"] {
		if m != "parameters" {
			methods = append(methods, m)
		}
	}
	slices.Sort(methods)
	fmt.Println(d.OpenAPI, methods)
	// Output:
	// 3.1.0 [delete get patch put]
}
