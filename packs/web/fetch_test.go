package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/contracttest"
	"github.com/toolpack-go/toolpack/packs/web"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

var quiet = slog.New(slog.DiscardHandler)

// site is a real web server on 127.0.0.1 with the pages the tests read.
type site struct {
	*httptest.Server
	bigWritten atomic.Int64 // bytes of /big written before the reader stopped
}

// static answers every request with body as contentType.
func static(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}
}

func newSite(t *testing.T) *site {
	t.Helper()
	article, err := os.ReadFile("testdata/pages/article.html")
	require.NoError(t, err)
	fr, err := os.ReadFile("testdata/pages/cp1252.html")
	require.NoError(t, err)
	s := &site{}
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(article)
	})
	mux.HandleFunc("/short/{n}", func(w http.ResponseWriter, r *http.Request) {
		pages := map[string]string{
			"hello": `<html><head><title>T</title></head><body><p>Hello world</p></body></html>`,
			"install": `<html><head><title>Small</title><style>p{color:red}</style><script>var x = "hidden";</script></head>
<body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><h1>Install</h1><p>Run the <b>installer</b>.</p><p>Then restart.</p>
<ul><li>one</li><li>two</li></ul><footer>Copyright</footer></body></html>`,
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(pages[r.PathValue("n")]))
	})
	mux.HandleFunc("/fr-meta", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write(fr)
	})
	mux.HandleFunc("/fr-header", static("text/html; charset=windows-1252", strings.Replace(string(fr), `<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">`, "", 1)))
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		head := strings.Replace(string(article), "</article>", "</article><div class=\"filler\">", 1)
		n, _ := w.Write([]byte(head))
		s.bigWritten.Add(int64(n))
		chunk := []byte(strings.Repeat("<p>filler filler filler filler filler filler filler filler</p>\n", 1024))
		for s.bigWritten.Load() < 20<<20 {
			n, err := w.Write(chunk)
			s.bigWritten.Add(int64(n))
			if err != nil {
				return
			}
		}
		_, _ = w.Write([]byte("</div></body></html>"))
	})
	mux.HandleFunc("/r/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n <= 1 {
			http.Redirect(w, r, "/article", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-dns", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://intranet.test:"+r.URL.Port()+"/article", http.StatusFound)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/empty", static("text/html", `<html><head><script>var x = 1;</script><style>p{}</style></head><body><img src="/a.png"><script>track()</script></body></html>`))
	mux.HandleFunc("/pdf", static("application/pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"))
	mux.HandleFunc("/api", static("application/vnd.api+json", `{"data":{"id":"7","title":"a < b & c"}}`+"\n"))
	mux.HandleFunc("/feed", static("application/rss+xml; charset=iso-8859-1", "<rss><channel><title>Caf\xe9</title></channel></rss>"))
	mux.HandleFunc("/table.csv", static("text/csv", "name,qty\napples,3\n"))
	mux.HandleFunc("/image", static("image/png", "\x89PNG\r\n\x1a\n"))
	mux.HandleFunc("/plain", static("text/plain; charset=utf-8", "  Release notes: version 2 fixes the flux capacitor.  \n"))
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// loopbackOnly admits the test site (127.0.0.1) and nothing else that is
// not public.
var loopbackOnly = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// intranet resolves intranet.test to a private address (what a
// rebinding or internal DNS answer would give) and the rest as usual.
type intranet struct{}

func (intranet) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if host == "intranet.test" {
		return []net.IPAddr{{IP: net.ParseIP("10.0.0.5")}}, nil
	}
	return net.DefaultResolver.LookupIPAddr(ctx, host)
}

// testRegistry is a registry holding one pack.
type testRegistry struct{ *registry.Registry }

func newTestRegistry(t *testing.T, p *registry.Pack) *testRegistry {
	t.Helper()
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, reg.AddPack(p))
	return &testRegistry{reg}
}

func newWeb(t *testing.T, cfg web.Config) *registry.Registry {
	t.Helper()
	if cfg.Fetch.AllowAddrs == nil && !cfg.Fetch.AllowPrivate {
		cfg.Fetch.AllowAddrs = loopbackOnly
	}
	cfg.Fetch.Resolver = intranet{}
	cfg.Logger = quiet
	p, err := web.New(cfg)
	require.NoError(t, err)
	reg := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, reg.AddPack(p))
	return reg
}

func invoke(t *testing.T, reg *registry.Registry, tool string, a any) result.Result[any] {
	t.Helper()
	raw, err := json.Marshal(a)
	require.NoError(t, err)
	r, err := reg.Invoke(context.Background(), tool, raw)
	require.NoError(t, err)
	return r
}

func fetchOut(t *testing.T, r result.Result[any]) web.FetchOutput {
	t.Helper()
	require.True(t, r.Success, "%s: %s", r.ErrorType, r.Error)
	return r.Value.(web.FetchOutput)
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// A news article comes back as its readable text with its metadata; the
// navigation, ads, related links, comments and footer are left out.
func TestFetch_NewsArticle(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{})
	out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/article"}))
	assert.Equal(t, web.PageURL(s.URL+"/article"), out.FinalURL)
	assert.Equal(t, "Harbour town rebuilds its lighthouse", deref(out.Title))
	assert.Equal(t, "Jane Doe", deref(out.Byline))
	assert.Equal(t, "2026-03-14", deref(out.PublishedAt))
	assert.Equal(t, "en-GB", deref(out.Lang))
	assert.Contains(t, out.CleanText, "volunteers in Portwick have finished rebuilding")
	assert.Contains(t, out.CleanText, "It tells you where home is.")
	for _, junk := range []string{"Sea kayaks", "Subscribe", "All rights reserved", "Ferry timetable", "Great news for the town"} {
		assert.NotContains(t, out.CleanText, junk)
	}
	assert.Empty(t, out.RawHTML, "raw_html only when asked")
	b, _ := json.Marshal(out)
	assert.Contains(t, string(b), `"raw_html":""`, "written empty: the contract's if/then asks for the key in every answer")
	require.NoError(t, args.ValidateOutput(out))

	out = fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/article", "include_raw_html": true}))
	assert.Contains(t, out.RawHTML, "<title>Harbour town rebuilds its lighthouse")
}

// clean_text keeps the page's blocks apart: every paragraph of the article
// is a line of its own, whole.
func TestFetch_CleanTextKeepsParagraphs(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{})
	out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/article"}))
	lines := strings.Split(out.CleanText, "\n")
	assert.Equal(t, "Harbour town rebuilds its lighthouse", lines[0], "the heading is a line")
	assert.Contains(t, lines, "After a decade of fundraising, volunteers in Portwick have finished rebuilding the town's "+
		"nineteenth-century lighthouse, which was badly damaged by a storm in 2015.")
	assert.Contains(t, lines, "The lighthouse will open to visitors on summer weekends, with the keepers' cottage turned "+
		"into a small museum of the town's fishing history.")
	assert.GreaterOrEqual(t, len(lines), 7, "%q", out.CleanText)
}

// A short page is read whole, block by block: not its title run into its
// text ("THello world", as the extractor's fallback for short pages
// gives), nor its scripts, styles, navigation or footer.
func TestFetch_ShortPageReadWhole(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{})
	out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/short/hello"}))
	assert.Equal(t, "Hello world", out.CleanText)
	assert.Equal(t, "T", deref(out.Title))
	out = fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/short/install"}))
	assert.Equal(t, "Install\nRun the installer.\nThen restart.\n- one\n- two", out.CleanText)
	require.NoError(t, args.ValidateOutput(out))
}

// A windows-1252 page comes out right whether the charset is declared in
// the header or only in a <meta> tag.
func TestFetch_NonUTF8Charset(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{})
	for _, path := range []string{"/fr-meta", "/fr-header"} {
		out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + path, "include_raw_html": true}))
		assert.Equal(t, "Les cafés de Montréal", deref(out.Title), path)
		assert.Contains(t, out.CleanText, "À Montréal, les cafés du Plateau ouvrent tôt", path)
		assert.Contains(t, out.CleanText, "« très fort »", path)
		assert.Contains(t, out.CleanText, "l’ambiance", path)
		assert.NotContains(t, out.CleanText, "\uFFFD", path)
		assert.Contains(t, out.RawHTML, "cafés", "raw_html is decoded to UTF-8 too")
		assert.Equal(t, "fr", deref(out.Lang), path)
	}
}

// A 20 MB page is read up to MaxBytes and no further: the article at its
// top still comes back, and the server is stopped writing well before
// the end.
func TestFetch_BigPageCut(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{Fetch: web.FetchConfig{MaxBytes: 1 << 20}})
	out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/big"}))
	assert.Contains(t, out.CleanText, "volunteers in Portwick")
	assert.Less(t, s.bigWritten.Load(), int64(20<<20), "the rest of the page was not read")
}

// Redirects are followed and reported as final_url; a chain longer than
// MaxRedirects is fetch_failed.
func TestFetch_Redirects(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{Fetch: web.FetchConfig{MaxRedirects: 4}})
	out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/r/3"}))
	assert.Equal(t, web.PageURL(s.URL+"/article"), out.FinalURL)
	r := invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/r/9"})
	require.False(t, r.Success)
	assert.Equal(t, web.ErrFetchFailed, r.ErrorType)
	assert.Contains(t, r.Error, "redirect")
}

// Loopback, private, link-local and metadata destinations are refused by
// default: named in the URL, reached by a redirect, or reached through
// DNS. Nothing is fetched from them.
func TestFetch_RefusesNonPublicDestinations(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{})
	port := s.Listener.Addr().(*net.TCPAddr).Port
	for _, u := range []string{
		fmt.Sprintf("http://127.0.0.2:%d/article", port),
		fmt.Sprintf("http://localhost.localdomain.invalid:%d/", port),
		"http://169.254.169.254/latest/meta-data/",
		"http://[::1]/",
		"http://10.0.0.1/",
		s.URL + "/to-metadata",
		s.URL + "/to-dns",
	} {
		r := invoke(t, reg, "web.fetch", map[string]any{"url": u})
		require.False(t, r.Success, u)
		assert.Equal(t, web.ErrFetchFailed, r.ErrorType, u)
	}
	r := invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/to-metadata"})
	assert.Contains(t, r.Error, "redirect was refused")
	r = invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/to-dns"})
	assert.Contains(t, r.Error, "non-public address")

	// Without AllowAddrs (the default), even the loopback test site is
	// refused.
	p, err := web.New(web.Config{Logger: quiet})
	require.NoError(t, err)
	def := registry.New(registry.Options{Logger: quiet})
	require.NoError(t, def.AddPack(p))
	r = invoke(t, def, "web.fetch", map[string]any{"url": s.URL + "/article"})
	assert.Equal(t, web.ErrFetchFailed, r.ErrorType)
}

// Every failure has its contract code: fetch_failed for HTTP errors and
// network failures, parse_failed for pages without text, timeout for a
// page that does not come in time.
func TestFetch_FailureCodes(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{Fetch: web.FetchConfig{Timeout: 500 * time.Millisecond}})
	closed := closedPort(t)
	cases := []struct {
		path string
		typ  result.ErrorType
		want string
	}{
		{s.URL + "/missing", web.ErrFetchFailed, "HTTP 404"},
		{"http://127.0.0.1:" + strconv.Itoa(closed) + "/", web.ErrFetchFailed, "could not be fetched"},
		{s.URL + "/empty", web.ErrParseFailed, "no readable text"},
		{s.URL + "/pdf", web.ErrParseFailed, "application/pdf"},
		{s.URL + "/slow", web.ErrTimeout, "500ms"},
	}
	for _, c := range cases {
		r := invoke(t, reg, "web.fetch", map[string]any{"url": c.path})
		require.False(t, r.Success, c.path)
		assert.Equal(t, c.typ, r.ErrorType, c.path)
		assert.Contains(t, r.Error, c.want, c.path)
	}
	out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/plain"}))
	assert.Equal(t, "Release notes: version 2 fixes the flux capacitor.", out.CleanText)
	assert.Nil(t, out.Title)
}

// Text that is not HTML — JSON and XML of any kind, text/* such as CSV —
// comes back as it is (decoded from its charset, trimmed); a type that is
// not text is parse_failed naming it.
func TestFetch_OtherTextReturnedAsItIs(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{})
	for path, want := range map[string]string{
		"/api":       `{"data":{"id":"7","title":"a < b & c"}}`,
		"/feed":      "<rss><channel><title>Café</title></channel></rss>",
		"/table.csv": "name,qty\napples,3",
	} {
		out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + path}))
		assert.Equal(t, want, out.CleanText, path)
		assert.Nil(t, out.Title, path)
	}
	r := invoke(t, reg, "web.fetch", map[string]any{"url": s.URL + "/image"})
	require.False(t, r.Success)
	assert.Equal(t, web.ErrParseFailed, r.ErrorType)
	assert.Contains(t, r.Error, "content type image/png is not a page this tool reads text from (HTML, plain text, JSON or XML)")
}

// A URL that is not an absolute http or https one is a validation
// failure naming url, and nothing is fetched.
func TestFetch_BadURLRefused(t *testing.T) {
	reg := newWeb(t, web.Config{})
	for _, u := range []any{"ftp://example.com/file", "not a url", "/relative/path", "http://", "http://user:pw@example.com/", "", 42, nil, strings.Repeat("http://a.example/", 1000)} {
		r := invoke(t, reg, "web.fetch", map[string]any{"url": u})
		require.False(t, r.Success, "%v", u)
		assert.Equal(t, result.ValidationError, r.ErrorType, "%v", u)
		assert.Contains(t, r.Error, "url", "%v", u)
	}
	r := invoke(t, reg, "web.fetch", map[string]any{"url": "https://example.com/", "extra": true})
	assert.Equal(t, result.ValidationError, r.ErrorType)
}

// The generated schemas equal the contract's (seed 003), key order aside,
// and the declared errors carry its HTTP statuses.
func TestContract_SchemasAndErrorsEqualSeed(t *testing.T) {
	p, err := web.New(web.Config{Search: web.SearchConfig{BaseURL: "http://127.0.0.1:1", SearchTool: "s"}})
	require.NoError(t, err)
	contracttest.Check(t, p, "testdata/contract.json")
}

// Every web.fetch error code is reached through MCP (_meta) and HTTP
// (the contract's status).
func TestFetch_ErrorsThroughMCPAndHTTP(t *testing.T) {
	s := newSite(t)
	reg := newWeb(t, web.Config{Fetch: web.FetchConfig{Timeout: 500 * time.Millisecond}})
	cases := []struct {
		url    string
		typ    string
		status int
	}{
		{s.URL + "/missing", "fetch_failed", 502},
		{s.URL + "/to-metadata", "fetch_failed", 502},
		{s.URL + "/empty", "parse_failed", 422},
		{s.URL + "/slow", "timeout", 504},
		{"ftp://x/", "validation_error", 400},
	}
	contracttest.Codes(t, reg, "web.fetch", func(i int) (contracttest.Case, bool) {
		if i >= len(cases) {
			return contracttest.Case{}, false
		}
		return contracttest.Case{Args: map[string]any{"url": cases[i].url}, Type: cases[i].typ, Status: cases[i].status}, true
	})
}

// A page of more paragraphs than the extractor can read in bounded work
// (50,000 short paragraphs, 2.4 MiB) is read whole: the call answers, with
// the article, the rest of the text, the title and the language, instead
// of running out of time while the extractor goes on using a core.
func TestFetch_PageWithTooManyParagraphsIsReadWhole(t *testing.T) {
	page := `<html lang="en"><head><title>Portwick news</title><script>var hidden = 1;</script></head><body>` +
		`<article><h1>Volunteers</h1><p>The volunteers in Portwick rebuilt the pier.</p></article><div>` +
		strings.Repeat("<p>filler filler filler filler filler filler</p>\n", 50000) + "</div><footer>Copyright</footer></body></html>"
	srv := httptest.NewServer(static("text/html; charset=utf-8", page))
	t.Cleanup(srv.Close)
	reg := newWeb(t, web.Config{Fetch: web.FetchConfig{MaxBytes: 4 << 20}})
	out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": srv.URL + "/"}))
	assert.True(t, strings.HasPrefix(out.CleanText, "Volunteers\nThe volunteers in Portwick rebuilt the pier.\nfiller"), "the article first, then the rest")
	assert.Equal(t, 50000, strings.Count(out.CleanText, "filler filler filler filler filler filler"))
	assert.NotContains(t, out.CleanText, "hidden")
	assert.NotContains(t, out.CleanText, "Copyright")
	assert.Equal(t, "Portwick news", deref(out.Title))
	assert.Equal(t, "en", deref(out.Lang))
}

// A page of deeply nested elements (14,000 elements 500 deep, 4.2 MB:
// fewer than MaxExtractElements, but the extractor's readability fallback
// reads the text under each element again, and ran past web.fetch's 30 s
// while using a core after the call had failed) is read whole.
func TestFetch_DeeplyNestedPageIsReadWhole(t *testing.T) {
	nest := strings.Repeat("<div>"+strings.Repeat("x", 299)+" ", 500) + strings.Repeat("</div>", 500)
	page := "<html><head><title>Nested</title></head><body><p>The volunteers in Portwick rebuilt the pier.</p>" +
		strings.Repeat(nest, 28) + "</body></html>"
	srv := httptest.NewServer(static("text/html; charset=utf-8", page))
	t.Cleanup(srv.Close)
	reg := newWeb(t, web.Config{})
	out := fetchOut(t, invoke(t, reg, "web.fetch", map[string]any{"url": srv.URL + "/"}))
	assert.True(t, strings.HasPrefix(out.CleanText, "The volunteers in Portwick rebuilt the pier.\n"))
	assert.Equal(t, "Nested", deref(out.Title))
}
