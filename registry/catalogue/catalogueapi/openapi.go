package catalogueapi

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI 3.1 document of the API as JSON: every route
// with its parameters, request and response schemas. Paths are relative
// to the mount point; the document's server URL is /tools. The same
// document is served at GET /openapi.json under the mount point.
func (h *Handler) OpenAPI() ([]byte, error) {
	return append([]byte(nil), openAPIDoc...), nil
}

func (h *Handler) serveOpenAPI(w http.ResponseWriter, _ *http.Request, _ params) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(openAPIDoc)
}
