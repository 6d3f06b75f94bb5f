package main

import (
	"log/slog"
	"net/http"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/registry"
)

// mountREST mounts the HTTP/JSON API at the root of mux: GET /tools,
// GET /tools/{name}, POST /tools/{name}/invoke and GET /openapi.json. Every
// other path not routed elsewhere (/mcp, /healthz) is the API's JSON 404.
func mountREST(mux *http.ServeMux, reg *registry.Registry, log *slog.Logger) {
	mux.Handle("/", httpapi.New(reg, httpapi.Options{
		Logger:  log,
		Title:   "toolpack example server",
		Version: version(),
	}))
}
