package catalogueapi

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/bundlezip"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
	"github.com/toolpack-go/toolpack/result"
)

// Page sizes.
const (
	// DefaultPageSize is the page size when a request gives none.
	DefaultPageSize = 50
	// DefaultMaxPageSize is the largest page size when Options.MaxPageSize
	// is zero.
	DefaultMaxPageSize = 500
	// MaxInvokeBodyBytes caps the body of POST …/invoke.
	MaxInvokeBodyBytes = 1 << 20
	// MaxQueryBytes caps the raw query string of a request.
	MaxQueryBytes = 16 << 10
	// MaxImportBodyBytes caps the body of POST /bundles/import (a ZIP
	// archive; see package bundlezip for the caps on what it expands to).
	MaxImportBodyBytes = bundlezip.DefaultMaxArchiveBytes
)

// Invoker runs a catalogue tool. The handler calls it only for an enabled
// tool of an enabled bundle, with args already validated against the
// tool's argSchema. A domain failure (an upstream that answered 4xx, a
// value the tool refuses) is a Result with Success false; a non-nil error
// is a protocol failure (a bug, a broken backend) and answers 502.
type Invoker interface {
	// Invoke runs tool with args (a JSON object valid against the tool's
	// argSchema). ctx is the request's context: it ends when the client
	// goes away.
	Invoke(ctx context.Context, tool catalogue.Tool, args json.RawMessage) (result.Result[any], error)
}

// Options configures [New]. Only Store is required.
type Options struct {
	// Store holds bundles and tools; required.
	Store catalogue.Store
	// Invoker runs tools for POST …/invoke. Nil means the invoke route
	// answers 501 Not Implemented (a catalogue served for editing only).
	Invoker Invoker
	// InvokerRecordsUsage tells that the Invoker counts each call itself
	// (Store.RecordUsage), as cataloguehost.Catalogue.Invoker does through
	// the registry's tool: the handler then does not count it again.
	InvokerRecordsUsage bool
	// Logger receives server-side failures (never request bodies or
	// secrets). Nil means slog.Default().
	Logger *slog.Logger
	// PageTokenKey signs page tokens (HMAC-SHA256); at least 32 bytes.
	// Give the same key to every host serving one catalogue, so that a
	// token one host returned is accepted by every other and after a
	// restart: the key the store keeps (catalogue.PageTokenKeeper, which
	// the file store and the PostgreSQL store are), as examples/server
	// does:
	//
	//	key, err := store.PageTokenKey(ctx)
	//	api, err := catalogueapi.New(catalogueapi.Options{Store: …, PageTokenKey: key})
	//
	// Nil means a random key per Handler: its tokens are refused by every
	// other Handler and once the process restarts.
	PageTokenKey []byte
	// MaxPageSize caps pageSize and recommendedPageSize. Zero means
	// DefaultMaxPageSize.
	MaxPageSize int
	// Now is the clock used for usage metrics (lastCalledAt). Nil means
	// time.Now.
	Now func() time.Time
	// Searcher answers GET /tools/search. Nil means a full scan of the
	// store per request (searchindex.NewScan), fine for small catalogues;
	// give a *searchindex.Store (wrap the store, and pass the wrapped one
	// as Store too, so that writes reach the index) for large ones.
	Searcher Searcher
}

// Handler serves the catalogue's REST API. Create it with [New]; it is
// safe for concurrent use.
type Handler struct {
	store    catalogue.Store
	searcher Searcher
	invoker  Invoker
	// invokerCounts: the Invoker records usage itself.
	invokerCounts bool
	log           *slog.Logger
	key           []byte
	maxPage       int
	now           func() time.Time

	schemas catalogue.SchemaCache // compiled argSchemas
}

// New returns the API handler. Routes are relative to the handler's root;
// mount it under /tools with http.StripPrefix (see the package doc).
func New(opts Options) (*Handler, error) {
	if opts.Store == nil {
		return nil, errors.New("catalogueapi: Options.Store is required")
	}
	h := &Handler{store: opts.Store, invoker: opts.Invoker, invokerCounts: opts.InvokerRecordsUsage, log: opts.Logger, maxPage: opts.MaxPageSize,
		now: opts.Now, searcher: opts.Searcher}
	if h.searcher == nil {
		h.searcher = searchindex.NewScan(opts.Store)
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.maxPage < 0 {
		return nil, fmt.Errorf("catalogueapi: Options.MaxPageSize: expected zero or a positive number, got %d", opts.MaxPageSize)
	}
	if h.maxPage == 0 {
		h.maxPage = DefaultMaxPageSize
	}
	switch {
	case opts.PageTokenKey == nil:
		h.key = make([]byte, 32)
		if _, err := rand.Read(h.key); err != nil {
			return nil, fmt.Errorf("catalogueapi: page token key: %w", err)
		}
	case len(opts.PageTokenKey) < 32:
		return nil, fmt.Errorf("catalogueapi: Options.PageTokenKey: expected at least 32 bytes, got %d", len(opts.PageTokenKey))
	default:
		h.key = append([]byte(nil), opts.PageTokenKey...)
	}
	return h, nil
}

// route is one entry of the route table: a path pattern of literal
// segments and {params}, and the handler of each method.
type route struct {
	pattern string
	methods map[string]func(h *Handler, w http.ResponseWriter, r *http.Request, p params)
}

// params are the path parameters of a matched route, unescaped.
type params map[string]string

const toolPath = "/bundles/{bundleID}/tools/{toolSlug}/version/{version}"

// routes is the route table; the OpenAPI document lists the same routes
// (a test holds them together).
var routes = []route{
	{"/bundles", map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodGet: (*Handler).listBundles}},
	{"/bundles/import", map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodPost: (*Handler).importBundle}},
	{"/bundles/{bundleID}", map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodPut: (*Handler).putBundle, http.MethodPatch: (*Handler).patchBundle, http.MethodDelete: (*Handler).deleteBundle}},
	{"/bundles/{bundleID}/export", map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodGet: (*Handler).exportBundle}},
	{toolPath, map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodPut: (*Handler).putTool, http.MethodPatch: (*Handler).patchTool,
		http.MethodDelete: (*Handler).deleteTool, http.MethodGet: (*Handler).getTool}},
	{toolPath + "/invoke", map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodPost: (*Handler).invoke}},
	{"/tools", map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodGet: (*Handler).listTools}},
	{"/tools/search", map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodGet: (*Handler).searchTools}},
	{"/openapi.json", map[string]func(*Handler, http.ResponseWriter, *http.Request, params){
		http.MethodGet: (*Handler).serveOpenAPI}},
}

// match splits the escaped path into segments, unescapes each one and
// matches it against pattern. A segment that does not unescape, or an
// empty segment, never matches.
func match(pattern string, segs []string) (params, bool) {
	pat := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	if len(pat) != len(segs) {
		return nil, false
	}
	var p params
	for i, ps := range pat {
		if strings.HasPrefix(ps, "{") {
			if p == nil {
				p = params{}
			}
			p[ps[1:len(ps)-1]] = segs[i]
			continue
		}
		if ps != segs[i] {
			return nil, false
		}
	}
	return p, true
}

// ServeHTTP implements http.Handler. Unknown paths answer 404, a known
// path with another method 405 with an Allow header, both as JSON errors.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	raw := strings.Split(strings.TrimPrefix(path, "/"), "/")
	segs := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil || u == "" {
			writeError(w, http.StatusNotFound, "not_found", "no such route", nil)
			return
		}
		segs[i] = u
	}
	for _, rt := range routes {
		p, ok := match(rt.pattern, segs)
		if !ok {
			continue
		}
		fn, ok := rt.methods[r.Method]
		if !ok {
			w.Header().Set("Allow", allow(rt))
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed",
				fmt.Sprintf("method %s is not allowed here; allowed: %s", clip(r.Method, 16), allow(rt)), nil)
			return
		}
		if len(r.URL.RawQuery) > MaxQueryBytes {
			writeError(w, http.StatusRequestURITooLong, "query_too_long",
				fmt.Sprintf("expected a query string of at most %d bytes", MaxQueryBytes), nil)
			return
		}
		fn(h, w, r, p)
		return
	}
	writeError(w, http.StatusNotFound, "not_found", "no such route", nil)
}

func allow(rt route) string {
	var ms []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if _, ok := rt.methods[m]; ok {
			ms = append(ms, m)
		}
	}
	return strings.Join(ms, ", ")
}

// clip shortens client text echoed in an error to at most n bytes (and
// "…"), cutting between characters.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) { // never cut a character in two
		n--
	}
	return s[:n] + "…"
}
