package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// AddArgs are the arguments of the example's add tool.
type AddArgs struct {
	A int `json:"a" validate:"min=0,max=100" description:"First addend."`
	B int `json:"b" validate:"min=0,max=100" description:"Second addend."`
}

// exampleRegistry holds one tool, math.add.
func exampleRegistry() *registry.Registry {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	add, err := registry.Func("math.add", func(_ context.Context, a AddArgs) (result.Result[int], error) {
		return result.Ok(a.A + a.B), nil
	}, registry.ToolOptions{Title: "Add", Doc: "Adds two small numbers."})
	if err != nil {
		panic(err)
	}
	if err := reg.Add(add); err != nil {
		panic(err)
	}
	return reg
}

func post(url, body string) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(b))
}

// Mount the handler on a host's mux and invoke a tool: a success, a
// validation failure listing the bad field, and an unknown tool.
func ExampleNew() {
	srv := httptest.NewServer(httpapi.New(exampleRegistry(), httpapi.Options{}))
	defer srv.Close()

	post(srv.URL+"/tools/math.add/invoke", `{"a":2,"b":3}`)
	post(srv.URL+"/tools/math.add/invoke", `{"a":2,"b":300}`)
	post(srv.URL+"/tools/math.sub/invoke", `{}`)
	// Output:
	// 200 {"ok":true,"value":5}
	// 400 {"ok":false,"error":"invalid arguments: b: must be at most 100","error_type":"validation_error","details":[{"field":"b","rule":"max","message":"must be at most 100"}]}
	// 404 {"ok":false,"error":"no tool named \"math.sub\"; GET /tools lists the tools","error_type":"unknown_tool"}
}

// Mount the API under a prefix with http.StripPrefix, beside other routes.
func ExampleNew_prefix() {
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", httpapi.New(exampleRegistry(), httpapi.Options{})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/tools?q=ADD")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var list httpapi.ToolList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range list.Tools {
		fmt.Println(t.Name, t.Title, t.Source)
	}
	// Output:
	// math.add Add local
}

// The OpenAPI document has one operation per tool, named after it.
func ExampleBuildOpenAPI() {
	b, err := httpapi.BuildOpenAPI(exampleRegistry().List(), httpapi.DocOptions{Title: "math", Version: "1.0.0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var doc struct {
		OpenAPI string
		Paths   map[string]map[string]struct {
			OperationID string `json:"operationId"`
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.OpenAPI, doc.Paths["/tools/math.add/invoke"]["post"].OperationID)
	// Output:
	// 3.1.0 math.add
}

// StatusFor maps a failed Result's error type to the HTTP status.
func ExampleStatusFor() {
	for _, t := range []result.ErrorType{result.ValidationError, result.NotFound, result.UpstreamFailure, "parse_failed", "quota_exceeded"} {
		fmt.Println(t, httpapi.StatusFor(t))
	}
	// Output:
	// validation_error 400
	// not_found 404
	// upstream_failure 502
	// parse_failed 422
	// quota_exceeded 422
}

// Mount the API at the root of a ServeMux beside other routes, and wrap
// the mux with CanonicalPaths: a dot-segment path gets the API's 400
// instead of the mux's redirect to another endpoint.
func ExampleCanonicalPaths() {
	api := httpapi.New(exampleRegistry(), httpapi.Options{})
	defer api.Close()
	mux := http.NewServeMux()
	mux.Handle("/", api)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })

	for _, path := range []string{"/tools/../etc/passwd/invoke", "/tools/math.add/invoke"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"a":1,"b":2}`))
		req.Header.Set("Content-Type", "application/json")
		httpapi.CanonicalPaths(mux).ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Body.String())
	}
	// Output:
	// 400 {"ok":false,"error":"path \"/tools/../etc/passwd/invoke\" is not canonical; expected no empty, \".\" or \"..\" segments","error_type":"invalid_path"}
	// 200 {"ok":true,"value":3}
}
