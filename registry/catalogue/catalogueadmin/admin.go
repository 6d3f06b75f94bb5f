// Package catalogueadmin is the tools catalogue's admin page: an
// http.Handler a host mounts where it likes (examples/server: /admin) for
// the people who run the host. It lists bundles and their tools (built-in,
// enabled, disabled and soft-deleted ones, with their reap time), searches
// them with the catalogue's ranked search, shows a tool's schemas and
// usage, switches bundles and tools on and off, creates bundles, puts new
// tool versions, and runs a tool in a live tester.
//
// It is a page on top of the catalogue's REST API (catalogueapi): every
// change and every test run is a request to that API, in process, so the
// page applies exactly the API's validation and shows its messages, each
// next to the field at fault, and a tool run goes through the same invoker
// (the registry's pipeline) as the API's invoke route. Reads come from the
// store directly.
//
// Pages are rendered on the server with html/template (every name and
// value escaped), from templates and a stylesheet embedded in the module:
// no build step, no CDN, no JavaScript needed — forms post and the answer
// is a page. The live tester's form is generated from the tool's argument
// schema: strings, numbers, integers and booleans as inputs, enums as
// selects, nested objects as fieldsets of their own fields, arrays (and
// anything else) as JSON fields, required fields marked, defaults filled
// in, descriptions as help text.
//
// Bad input is refused with what was expected, never a 500: an address
// whose slug or version breaks the catalogue's rules answers 400 naming
// the field, a bundle id that is not a UUIDv7 404, a form above 1 MiB
// 413. The on/off switches post isEnabled "true" or "false" (a hidden
// field) and refuse anything else, a missing value included, with 400 —
// as the API refuses a missing or non-boolean isEnabled; the create
// forms' Enabled checkbox posts "true" when checked and nothing (off)
// when not.
//
// Safety: mount it behind the host's auth and Host/Origin guard, as the
// API is. State-changing requests (POST) are refused unless they come from
// the page's own origin, by Go's http.CrossOriginProtection (the browser's
// Sec-Fetch-Site and Origin headers), so no form needs a token. Secrets
// of http tools (tokens, passwords, keys, client secrets) are never
// rendered: they show as "(set)".
package catalogueadmin

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

//go:embed templates/*.html templates/*.css
var assets embed.FS

// Options configure the page. Store and API are required.
type Options struct {
	// Store is the catalogue's store, read for the pages.
	Store catalogue.Store
	// API is the catalogue's REST API handler (catalogueapi.New), without
	// any path prefix: every change and tool run goes through it.
	API http.Handler
	// Logger logs failures of the page itself; nil means slog.Default.
	Logger *slog.Logger
	// Now is the clock for reap times; nil means time.Now.
	Now func() time.Time
	// Base is the path the page is mounted at (the prefix stripped before
	// it), for its links; empty means "/admin".
	Base string
}

// Handler serves the admin page. Mount it with http.StripPrefix so that
// it sees paths from "/".
type Handler struct {
	store catalogue.Store
	api   http.Handler
	log   *slog.Logger
	now   func() time.Time
	base  string
	tmpl  *template.Template
	css   []byte
	mux   http.Handler
}

// maxFormBytes caps a form post.
const maxFormBytes = 1 << 20

// New returns the admin page's handler.
func New(opts Options) (*Handler, error) {
	if opts.Store == nil {
		return nil, errors.New("catalogueadmin: Options.Store is required")
	}
	if opts.API == nil {
		return nil, errors.New("catalogueadmin: Options.API is required (the catalogueapi handler)")
	}
	h := &Handler{store: opts.Store, api: opts.API, log: opts.Logger, now: opts.Now, base: strings.TrimRight(opts.Base, "/")}
	if opts.Base == "" {
		h.base = "/admin"
	}
	if !strings.HasPrefix(h.base+"/", "/") {
		return nil, fmt.Errorf("catalogueadmin: Options.Base: expected a path starting with /, got %q", opts.Base)
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.now == nil {
		h.now = time.Now
	}
	var err error
	h.tmpl, err = template.New("").Funcs(template.FuncMap{
		"fmtTime": func(t any) string {
			switch t := t.(type) {
			case time.Time:
				return t.UTC().Format("2006-01-02 15:04:05 UTC")
			case *time.Time:
				if t == nil {
					return "never"
				}
				return t.UTC().Format("2006-01-02 15:04:05 UTC")
			}
			return ""
		},
		"pathEscape": url.PathEscape,
	}).ParseFS(assets, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("catalogueadmin: templates: %w", err)
	}
	if h.css, err = assets.ReadFile("templates/admin.css"); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.listPage)
	mux.HandleFunc("GET /admin.css", h.serveCSS)
	mux.HandleFunc("POST /bundles", h.createBundle)
	mux.HandleFunc("GET /bundles/{id}", h.bundlePage)
	mux.HandleFunc("POST /bundles/{id}/enabled", h.switchBundle)
	mux.HandleFunc("POST /bundles/{id}/tools", h.putTool)
	mux.HandleFunc("GET /bundles/{id}/tools/{slug}/{version}", h.toolPage)
	mux.HandleFunc("POST /bundles/{id}/tools/{slug}/{version}/enabled", h.switchTool)
	mux.HandleFunc("POST /bundles/{id}/tools/{slug}/{version}/run", h.runTool)
	h.mux = http.NewCrossOriginProtection().Handler(mux)
	return h, nil
}

// ServeHTTP serves the page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self' 'unsafe-inline'; form-action 'self'; base-uri 'none'")
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) serveCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	_, _ = w.Write(h.css)
}

// render writes a page; the status is set before the body.
func (h *Handler) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := h.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		h.log.Error("catalogueadmin: rendering "+name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail shows an error page.
func (h *Handler) fail(w http.ResponseWriter, status int, msg string) {
	h.render(w, status, "error.html", map[string]any{"Title": http.StatusText(status), "Base": h.base, "Status": status, "Message": msg})
}

// apiAnswer is an answer of the API, decoded.
type apiAnswer struct {
	status int
	body   []byte
	err    catalogueapi.ErrorBody
}

// call sends one request to the API in process.
func (h *Handler) call(ctx context.Context, method, path string, query url.Values, body any) (apiAnswer, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return apiAnswer{}, err
		}
		rd = bytes.NewReader(b)
	}
	u := &url.URL{Scheme: "http", Host: "catalogue", Path: path, RawQuery: query.Encode()}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return apiAnswer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := &recorder{header: http.Header{}}
	h.api.ServeHTTP(rec, req)
	a := apiAnswer{status: rec.status(), body: rec.body.Bytes()}
	if a.status >= 400 {
		if err := json.Unmarshal(a.body, &a.err); err != nil {
			a.err = catalogueapi.ErrorBody{Error: fmt.Sprintf("the API answered %d", a.status)}
		}
	}
	return a, nil
}

// recorder is the in-process ResponseWriter the API answers into.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

func (r *recorder) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

func toolPath(id uuid.UUID, slug, version string) string {
	return "/bundles/" + id.String() + "/tools/" + url.PathEscape(slug) + "/version/" + url.PathEscape(version)
}

// toolPage is the admin path of a tool's page, under the base.
func (h *Handler) toolLink(t catalogue.Tool) string {
	return h.base + "/bundles/" + t.BundleID.String() + "/tools/" + url.PathEscape(t.Slug) + "/" + url.PathEscape(t.Version)
}

func (h *Handler) bundleLink(id uuid.UUID) string { return h.base + "/bundles/" + id.String() }

// fieldErrors groups an API answer's field problems by field, for the
// form: each form field shows the problems of its own name and of every
// field below it ("httpImpl.request.method" under "httpImpl").
type fieldErrors map[string][]string

func fieldsOf(e catalogueapi.ErrorBody) fieldErrors {
	fe := fieldErrors{}
	for _, f := range e.Fields {
		fe[f.Field] = append(fe[f.Field], f.Problem)
	}
	return fe
}

// For returns the problems of a field and of the fields under it.
func (fe fieldErrors) For(field string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(fe)) {
		if k == field || strings.HasPrefix(k, field+".") || strings.HasPrefix(k, field+"[") {
			for _, p := range fe[k] {
				if k == field {
					out = append(out, p)
				} else {
					out = append(out, k+": "+p)
				}
			}
		}
	}
	return out
}

// parseID reads the bundle id of the path; an id that is not a UUIDv7
// (the only ids the catalogue holds) answers 404, saying why.
func parseID(w http.ResponseWriter, r *http.Request, h *Handler) (uuid.UUID, bool) {
	id, err := catalogue.ParseID(r.PathValue("id"))
	if err != nil {
		h.fail(w, http.StatusNotFound, "no such bundle: the bundle id in the address: "+err.Error())
		return uuid.Nil, false
	}
	return id, true
}

// parseForm reads a posted form of at most maxFormBytes; a larger one
// answers 413, one that does not parse 400.
func (h *Handler) parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the form is too large: expected at most %d bytes", maxFormBytes))
			return false
		}
		h.fail(w, http.StatusBadRequest, "the form could not be read: "+err.Error())
		return false
	}
	return true
}

// redirect answers a successful post with a redirect to a page (303, so
// a reload does not post again).
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// formBool reads the boolean field name of the posted form as the page's
// forms send it: "true" or "false", once. The on/off switches send one
// of them always (a hidden field), so a missing field is an error
// there, as a missing isEnabled is for the API; a checkbox (checkbox
// true, whose value is "true") sends nothing when unchecked, which reads
// as false. Anything else is an error naming the field: a value the page
// never sends is refused rather than taken for false.
func formBool(r *http.Request, name string, checkbox bool) (bool, error) {
	vals := r.PostForm[name]
	switch {
	case len(vals) == 0 && checkbox:
		return false, nil
	case len(vals) == 0:
		return false, fmt.Errorf("%s: expected true or false, got none", name)
	case len(vals) > 1:
		return false, fmt.Errorf("%s: expected one value, true or false, got %d", name, len(vals))
	}
	switch vals[0] {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s: expected true or false, got %s", name, quoteClipped(vals[0]))
}

// quoteClipped quotes a posted value for a message, cut to 64 bytes.
func quoteClipped(v string) string {
	const max = 64
	if len(v) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		return strconv.Quote(v[:cut]) + "…"
	}
	return strconv.Quote(v)
}
