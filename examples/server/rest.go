package main

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/registry"
)

// mountREST mounts the HTTP/JSON API at the root of mux: GET /tools,
// GET /tools/{name}, POST /tools/{name}/invoke and GET /openapi.json. Every
// other path not routed elsewhere (/mcp, /healthz) is the API's JSON 404.
// auth, when non-nil, guards every API path. The mux must be served behind
// httpapi.CanonicalPaths, so that /tools/../x gets the API's 400 rather than
// the mux's redirect. stored gives the handle object a tool's large output
// is stored as (othost.Wiring.StoredSchema), which the OpenAPI document
// declares beside the tool's own output schema.
func mountREST(mux *http.ServeMux, reg *registry.Registry, auth func(http.Handler) http.Handler, stored func(*registry.Tool) json.RawMessage, log *slog.Logger) *httpapi.Handler {
	api := httpapi.New(reg, httpapi.Options{
		Logger:         log,
		Title:          "toolpack example server",
		Version:        version(),
		Auth:           auth,
		AltValueSchema: stored,
	})
	mux.Handle("/", api)
	return api
}
