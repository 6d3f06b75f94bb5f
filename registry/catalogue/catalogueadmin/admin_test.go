package catalogueadmin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueadmin"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/result"
)

var quiet = slog.New(slog.DiscardHandler)

// echoInvoker answers by the go function's name: "echo" returns the
// arguments, "fail" a domain failure, "boom" a protocol error.
type echoInvoker struct{}

func (echoInvoker) Invoke(_ context.Context, t catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	switch t.GoImpl.Func {
	case "fail":
		return result.Failure[any]("no such city", result.NotFound), nil
	case "boom":
		return result.Result[any]{}, errors.New("backend exploded")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return result.Result[any]{}, err
	}
	return result.Ok(v), nil
}

// site is the admin page on a test server, over a file store.
type site struct {
	t     *testing.T
	srv   *httptest.Server
	store *catalogue.FileStore
	c     *http.Client
	logs  *recordedLogs // what the page and the API logged
}

func newSite(t *testing.T) *site {
	t.Helper()
	st, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	logs := &recordedLogs{}
	api, err := catalogueapi.New(catalogueapi.Options{Store: st, Invoker: echoInvoker{}, Logger: slog.New(logs)})
	require.NoError(t, err)
	adm, err := catalogueadmin.New(catalogueadmin.Options{Store: st, API: api, Logger: slog.New(logs)})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/admin/", http.StripPrefix("/admin", adm))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &site{t: t, srv: srv, store: st, c: c, logs: logs}
}

func (s *site) get(path string) (int, string) {
	s.t.Helper()
	resp, err := s.c.Get(s.srv.URL + path)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post sends a form as a same-origin browser would (Sec-Fetch-Site).
func (s *site) post(path string, form url.Values, site string) (int, string, string) {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if site != "" {
		req.Header.Set("Sec-Fetch-Site", site)
	}
	resp, err := s.c.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

func (s *site) bundle(slug, name string, enabled bool) catalogue.Bundle {
	s.t.Helper()
	b, _, err := s.store.PutBundle(context.Background(), uuid.Must(uuid.NewV7()), catalogue.BundleSpec{Slug: slug, DisplayName: name, IsEnabled: enabled})
	require.NoError(s.t, err)
	return b
}

const weatherArgs = `{"type":"object","properties":{"city":{"type":"string","description":"City name.","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7,"default":3},"units":{"type":"string","enum":["metric","imperial"]},"alerts":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}}},"required":["city"],"additionalProperties":false}`

func (s *site) tool(b catalogue.Bundle, slug, fn string) catalogue.Tool {
	s.t.Helper()
	t, err := s.store.PutTool(context.Background(), catalogue.ToolKey{BundleID: b.ID, Slug: slug, Version: "1"}, catalogue.ToolSpec{
		DisplayName: "Weather " + slug, Description: "Forecasts the weather.", IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(weatherArgs), GoImpl: &catalogue.GoImpl{Func: fn},
	})
	require.NoError(s.t, err)
	return t
}

func toolURL(t catalogue.Tool) string {
	return "/admin/bundles/" + t.BundleID.String() + "/tools/" + t.Slug + "/" + t.Version
}

// The list shows every bundle with its state — enabled, disabled,
// soft-deleted with its reap time — and the search finds tools.
func TestListPage_BundlesStatesAndSearch(t *testing.T) {
	s := newSite(t)
	on := s.bundle("weather", "Weather", true)
	s.bundle("maps", "Maps", false)
	gone := s.bundle("old", "Old stuff", true)
	_, err := s.store.SoftDeleteBundle(context.Background(), gone.ID)
	require.NoError(t, err)
	s.tool(on, "forecast", "echo")

	code, body := s.get("/admin/")
	require.Equal(t, http.StatusOK, code)
	for _, want := range []string{"Weather", "Maps", "Old stuff", `class="badge on"`, `class="badge off"`, `class="badge deleted"`, "reaped after"} {
		assert.Contains(t, body, want)
	}
	code, body = s.get("/admin/?q=forcast")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `id="hits"`)
	assert.Contains(t, body, "Weather forecast")
	_, body = s.get("/admin/?q=zzzzqqq")
	assert.Contains(t, body, "No tool matches.")
}

// Hostile names are escaped everywhere they appear.
func TestPages_EscapeHostileNames(t *testing.T) {
	s := newSite(t)
	b := s.bundle("xss", `<script>alert(1)</script>`, true)
	tl, err := s.store.PutTool(context.Background(), catalogue.ToolKey{BundleID: b.ID, Slug: "x", Version: "1"}, catalogue.ToolSpec{
		DisplayName: `<img src=x onerror=alert(2)>`, Description: `"><script>alert(3)</script>`, IsEnabled: true, Type: catalogue.TypeGo,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"<b>q</b>":{"type":"string","description":"<i>help</i>"}}}`), GoImpl: &catalogue.GoImpl{Func: "echo"},
	})
	require.NoError(t, err)
	for _, path := range []string{"/admin/", "/admin/bundles/" + b.ID.String(), toolURL(tl), "/admin/?q=" + url.QueryEscape("<script>")} {
		code, body := s.get(path)
		require.Equal(t, http.StatusOK, code, path)
		assert.NotContains(t, body, "<script>alert", path)
		assert.NotContains(t, body, "<img src=x", path)
		assert.NotContains(t, body, "<b>q</b>", path)
		assert.NotContains(t, body, "<i>help</i>", path)
	}
	_, body := s.get("/admin/")
	assert.Contains(t, body, html.EscapeString(`<script>alert(1)</script>`))
}

// Creating a bundle through the form: good input redirects to its page;
// bad input shows the API's message next to the field, keeping the values.
func TestCreateBundleForm(t *testing.T) {
	s := newSite(t)
	code, loc, _ := s.post("/admin/bundles", url.Values{"slug": {"notes"}, "displayName": {"Notes"}, "isEnabled": {"true"}}, "same-origin")
	require.Equal(t, http.StatusSeeOther, code)
	require.Regexp(t, `^/admin/bundles/[0-9a-f-]{36}$`, loc)
	_, body := s.get(loc)
	assert.Contains(t, body, "Notes")

	code, _, body = s.post("/admin/bundles", url.Values{"slug": {"Bad Slug!"}, "displayName": {"Kept name"}}, "same-origin")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Regexp(t, regexp.MustCompile(`id="b-slug"[^>]*>\s*<div class="err">[^<]+</div>`), body, "the slug's problem is next to the slug field")
	assert.Contains(t, body, `value="Kept name"`)
}

// Cross-origin posts are refused (CSRF), whatever the form.
func TestForms_CrossOriginRefused(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	for _, path := range []string{"/admin/bundles", "/admin/bundles/" + b.ID.String() + "/enabled"} {
		code, _, _ := s.post(path, url.Values{"slug": {"evil"}, "displayName": {"Evil"}, "isEnabled": {"false"}}, "cross-site")
		assert.Equal(t, http.StatusForbidden, code, path)
	}
	got, err := s.store.GetBundle(context.Background(), b.ID)
	require.NoError(t, err)
	assert.True(t, got.IsEnabled, "nothing changed")
	bs, err := s.store.ListBundles(context.Background(), catalogue.BundleQuery{IncludeDisabled: true})
	require.NoError(t, err)
	assert.Len(t, bs, 1)
}

// The switches turn bundles and tools off and on.
func TestSwitches(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	tl := s.tool(b, "forecast", "echo")
	code, loc, _ := s.post(toolURL(tl)+"/enabled", url.Values{"isEnabled": {"false"}}, "same-origin")
	require.Equal(t, http.StatusSeeOther, code)
	assert.Equal(t, toolURL(tl), loc)
	got, err := s.store.GetTool(context.Background(), tl.Key())
	require.NoError(t, err)
	assert.False(t, got.IsEnabled)
	_, body := s.get(toolURL(tl))
	assert.Contains(t, body, "Enable tool")

	code, _, _ = s.post("/admin/bundles/"+b.ID.String()+"/enabled", url.Values{"isEnabled": {"false"}}, "same-origin")
	require.Equal(t, http.StatusSeeOther, code)
	gb, _ := s.store.GetBundle(context.Background(), b.ID)
	assert.False(t, gb.IsEnabled)
	code, _, body = s.post(toolURL(tl)+"/enabled", url.Values{"isEnabled": {"true"}}, "same-origin")
	assert.Equal(t, http.StatusConflict, code, "a tool of a disabled bundle cannot be switched")
	assert.Contains(t, body, "disabled")
}

// Putting a tool version through the form: stored and shown; a bad schema
// is shown next to its field.
func TestPutToolForm(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	form := url.Values{"slug": {"forecast"}, "version": {"2"}, "displayName": {"Forecast"}, "description": {"Forecasts."},
		"tags": {"weather, daily"}, "isEnabled": {"true"}, "type": {"go"}, "goFunc": {"echo"}, "argSchema": {weatherArgs}}
	code, loc, _ := s.post("/admin/bundles/"+b.ID.String()+"/tools", form, "same-origin")
	require.Equal(t, http.StatusSeeOther, code)
	_, body := s.get(loc)
	assert.Contains(t, body, "Forecast")
	got, err := s.store.GetTool(context.Background(), catalogue.ToolKey{BundleID: b.ID, Slug: "forecast", Version: "2"})
	require.NoError(t, err)
	assert.Equal(t, []string{"weather", "daily"}, got.Tags)

	form.Set("version", "3")
	form.Set("argSchema", `{"type":"object","properties":{"q":{"type":"strin"}}}`)
	code, _, body = s.post("/admin/bundles/"+b.ID.String()+"/tools", form, "same-origin")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Regexp(t, `name="argSchema">[^<]*</textarea><div class="err">expected a valid JSON Schema`, body, "the problem is next to its field")

	form.Set("argSchema", `{not json`)
	code, _, body = s.post("/admin/bundles/"+b.ID.String()+"/tools", form, "same-origin")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "expected JSON")

	form.Set("argSchema", weatherArgs)
	form.Set("version", "2")
	code, _, body = s.post("/admin/bundles/"+b.ID.String()+"/tools", form, "same-origin")
	assert.Equal(t, http.StatusConflict, code, "an existing version is a conflict")
	assert.Contains(t, body, `class="err"`)
}

// The tool page shows schemas and usage, and the live tester's form comes
// from the argument schema: selects for enums and booleans, number inputs,
// required marks, defaults, help text.
func TestToolPage_TesterFormFromSchema(t *testing.T) {
	s := newSite(t)
	tl := s.tool(s.bundle("w", "W", true), "forecast", "echo")
	require.NoError(t, s.store.RecordUsage(context.Background(), tl.Key(), tl.CreatedAt))
	code, body := s.get(toolURL(tl))
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `id="arg-schema"`)
	assert.Contains(t, body, "Calls: <strong>1</strong>")
	assert.Regexp(t, `<label for="f-city" class="req">city</label>`, body)
	assert.Regexp(t, `<input type="number" step="1" id="f-days" name="arg.days" value="3">`, body)
	assert.Regexp(t, `<select id="f-units" name="arg.units"><option value="">\(not set\)</option><option >metric</option><option >imperial</option></select>`, body)
	assert.Contains(t, body, `<select id="f-alerts" name="arg.alerts">`)
	assert.Contains(t, body, `<textarea id="f-tags" name="arg.tags" placeholder="JSON">`)
	assert.Contains(t, body, `<div class="help">City name.</div>`)
}

// The live tester runs the tool through the API's invoke route and shows
// {ok, value | error}, the duration and the arguments sent; bad values and
// the tool's own validation are shown.
func TestLiveTester(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	tl := s.tool(b, "forecast", "echo")
	code, _, body := s.post(toolURL(tl)+"/run", url.Values{"arg.city": {"Oslo"}, "arg.days": {"2"}, "arg.units": {"metric"}, "arg.alerts": {"true"}, "arg.tags": {`["a"]`}}, "same-origin")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `class="result ok"`)
	assert.Contains(t, body, html.EscapeString(`"city": "Oslo"`))
	assert.Contains(t, body, html.EscapeString(`"days": 2`))
	assert.Contains(t, body, html.EscapeString(`"alerts": true`))

	code, _, body = s.post(toolURL(tl)+"/run", url.Values{"arg.city": {""}, "arg.days": {"9"}}, "same-origin")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `class="result fail"`)
	assert.Contains(t, body, "days")
	assert.Contains(t, body, `value="9"`, "the posted values stay in the form")

	code, _, body = s.post(toolURL(tl)+"/run", url.Values{"arg.days": {"two"}, "arg.tags": {"[oops"}}, "same-origin")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "days: expected a whole number")
	assert.Contains(t, body, "tags: expected JSON")

	failing := s.tool(b, "failing", "fail")
	_, _, body = s.post(toolURL(failing)+"/run", url.Values{"arg.city": {"Nowhere"}}, "same-origin")
	assert.Contains(t, body, "no such city")
	assert.Contains(t, body, "(not_found)")
}

// Unknown bundles, tools and malformed ids are 404 pages.
func TestNotFound(t *testing.T) {
	s := newSite(t)
	for _, p := range []string{"/admin/bundles/not-a-uuid", "/admin/bundles/" + uuid.Must(uuid.NewV7()).String(), "/admin/bundles/" + uuid.Must(uuid.NewV7()).String() + "/tools/x/1"} {
		code, _ := s.get(p)
		assert.Equal(t, http.StatusNotFound, code, p)
	}
}

// Options are checked.
func TestNewChecksOptions(t *testing.T) {
	_, err := catalogueadmin.New(catalogueadmin.Options{})
	require.ErrorContains(t, err, "Options.Store")
}

// Secrets of http tools are never rendered; the rest of the request is.
func TestToolPage_SecretsMasked(t *testing.T) {
	s := newSite(t)
	b := s.bundle("api", "API", true)
	tl, err := s.store.PutTool(context.Background(), catalogue.ToolKey{BundleID: b.ID, Slug: "get", Version: "1"}, catalogue.ToolSpec{
		DisplayName: "Get", IsEnabled: true, Type: catalogue.TypeHTTP,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		HTTPImpl: &catalogue.HTTPImpl{
			Request: catalogue.HTTPRequest{Method: "GET", URLTemplate: "https://api.example.com/items",
				// A credential's header or parameter must hold a ${NAME}
				// (catalogue.ToolSpec.CheckCredentials); every value is
				// masked all the same.
				Headers: map[string]string{"X-Tenant": "hdr-secret-123"}, Query: map[string]string{"tenant": "qry-secret-456"},
				Auth: &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOK_SECRET_789}"}},
			Response: catalogue.HTTPResponse{Encoding: "json"},
		},
	})
	require.NoError(t, err)
	code, body := s.get(toolURL(tl))
	require.Equal(t, http.StatusOK, code)
	for _, secret := range []string{"hdr-secret-123", "qry-secret-456", "TOK_SECRET_789"} {
		assert.NotContains(t, body, secret)
	}
	assert.Contains(t, body, "https://api.example.com/items")
	assert.Contains(t, body, "auth.token</th><td><code>(set)</code>")
}

// Nested objects get a fieldset of their own fields, read back as a
// nested object; an object left empty is left out; problems name the path.
func TestLiveTester_NestedObjects(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	tl, err := s.store.PutTool(context.Background(), catalogue.ToolKey{BundleID: b.ID, Slug: "find", Version: "1"}, catalogue.ToolSpec{
		DisplayName: "Find", IsEnabled: true, Type: catalogue.TypeGo, GoImpl: &catalogue.GoImpl{Func: "echo"},
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"filter":{"type":"object","description":"Narrows.","properties":{"lang":{"type":"string"},"max":{"type":"integer"}},"additionalProperties":false}},"required":["q"],"additionalProperties":false}`),
	})
	require.NoError(t, err)
	_, body := s.get(toolURL(tl))
	assert.Contains(t, body, `<fieldset id="f-filter"><legend >filter</legend>`)
	assert.Contains(t, body, `<input type="text" id="f-filter.lang" name="arg.filter.lang" value="">`)

	_, _, body = s.post(toolURL(tl)+"/run", url.Values{"arg.q": {"go"}, "arg.filter.lang": {"en"}, "arg.filter.max": {"5"}}, "same-origin")
	assert.Contains(t, body, `class="result ok"`)
	assert.Contains(t, body, html.EscapeString(`"filter": {`))
	assert.Contains(t, body, html.EscapeString(`"lang": "en"`))

	_, _, body = s.post(toolURL(tl)+"/run", url.Values{"arg.q": {"go"}}, "same-origin")
	assert.Contains(t, body, `class="result ok"`)
	assert.Contains(t, body, `<pre id="value">{`+"\n"+`  &#34;q&#34;: &#34;go&#34;`+"\n"+`}</pre>`, "an empty object is left out")

	code, _, body := s.post(toolURL(tl)+"/run", url.Values{"arg.q": {"go"}, "arg.filter.max": {"many"}}, "same-origin")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "filter.max: expected a whole number")
}

// awayStore is a store whose database cannot be reached.
type awayStore struct{ catalogue.Store }

var errAway = fmt.Errorf("pgstore: reading: %w: %w", catalogue.ErrUnavailable, errors.New("dial tcp 127.0.0.1:5432: connect: connection refused"))

func (awayStore) ListBundles(context.Context, catalogue.BundleQuery) ([]catalogue.Bundle, error) {
	return nil, errAway
}

func (awayStore) GetBundle(context.Context, uuid.UUID) (catalogue.Bundle, error) {
	return catalogue.Bundle{}, errAway
}

// A catalogue whose database cannot be reached shows a page saying so,
// with 503 (the request may be tried again), not a 500 or a "not found";
// the cause stays in the server log.
func TestAdmin_StoreAwayIs503(t *testing.T) {
	for path, body := range pagesOver(t, func(st catalogue.Store) catalogue.Store { return awayStore{st} }) {
		assert.Equal(t, http.StatusServiceUnavailable, body.status, path)
		assert.Contains(t, body.text, "cannot be reached right now", path)
		assert.NotContains(t, body.text, "5432", path)
	}
}

// busyStore is a store whose database is there but does not answer in
// time (a statement or lock timeout).
type busyStore struct{ catalogue.Store }

var errBusy = fmt.Errorf("pgstore: reading: %w", busyErr{})

// busyErr is what pgstore returns for a statement timeout: both
// catalogue.ErrUnavailable and catalogue.ErrTimeout.
type busyErr struct{}

func (busyErr) Error() string { return "the database ended the statement at its statement timeout" }
func (busyErr) Is(target error) bool {
	return target == catalogue.ErrUnavailable || target == catalogue.ErrTimeout
}

func (busyStore) ListBundles(context.Context, catalogue.BundleQuery) ([]catalogue.Bundle, error) {
	return nil, errBusy
}

func (busyStore) GetBundle(context.Context, uuid.UUID) (catalogue.Bundle, error) {
	return catalogue.Bundle{}, errBusy
}

// A catalogue whose database is busy (did not answer in time) shows a
// page saying so, with 503, not that it cannot be reached.
func TestAdmin_StoreBusyIs503SayingSo(t *testing.T) {
	for path, body := range pagesOver(t, func(st catalogue.Store) catalogue.Store { return busyStore{st} }) {
		assert.Equal(t, http.StatusServiceUnavailable, body.status, path)
		assert.Contains(t, body.text, "the catalogue&#39;s database is busy: it did not answer in time", path)
		assert.NotContains(t, body.text, "cannot be reached", path)
	}
}

// A catalogue closed under the page (a server shutting down) shows a page
// saying it is not available, with 503, not the 500 of a store failure;
// so does a store that answers only "did not answer in time".
func TestAdmin_ClosedOrTimedOutStoreIs503(t *testing.T) {
	closed := func(st catalogue.Store) catalogue.Store {
		require.NoError(t, st.Close())
		return st
	}
	timedOut := func(st catalogue.Store) catalogue.Store { return timeoutStore{st} }
	for _, c := range []struct {
		name  string
		store func(catalogue.Store) catalogue.Store
		want  string
	}{{"closed", closed, "the catalogue is not available"}, {"timed out", timedOut, "the catalogue&#39;s database is busy"}} {
		for path, body := range pagesOver(t, c.store) {
			assert.Equal(t, http.StatusServiceUnavailable, body.status, c.name, path)
			assert.Contains(t, body.text, c.want, c.name, path)
		}
	}
}

// page is an answer of the admin handler: its status and body.
type page struct {
	status int
	text   string
}

// pagesOver serves the admin pages over wrap(a file store) — the API
// over the store itself — and gets the bundle list and a bundle's page.
func pagesOver(t *testing.T, wrap func(catalogue.Store) catalogue.Store) map[string]page {
	t.Helper()
	st, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	api, err := catalogueapi.New(catalogueapi.Options{Store: st, Logger: quiet})
	require.NoError(t, err)
	adm, err := catalogueadmin.New(catalogueadmin.Options{Store: wrap(st), API: api, Logger: quiet})
	require.NoError(t, err)
	srv := httptest.NewServer(adm)
	t.Cleanup(srv.Close)
	out := map[string]page{}
	for _, path := range []string{"/", "/bundles/" + uuid.Must(uuid.NewV7()).String()} {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out[path] = page{resp.StatusCode, string(body)}
	}
	return out
}

// timeoutStore answers reads with catalogue.ErrTimeout alone.
type timeoutStore struct{ catalogue.Store }

var errTimedOut = fmt.Errorf("store: reading: %w", catalogue.ErrTimeout)

func (timeoutStore) ListBundles(context.Context, catalogue.BundleQuery) ([]catalogue.Bundle, error) {
	return nil, errTimedOut
}

func (timeoutStore) GetBundle(context.Context, uuid.UUID) (catalogue.Bundle, error) {
	return catalogue.Bundle{}, errTimedOut
}
