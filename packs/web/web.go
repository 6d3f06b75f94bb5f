// Package web is the web pack: web.fetch reads a web page and returns its
// readable article (title, byline, date, language, clean text), and
// search.web searches the web through a LiteLLM-style search gateway — the
// tool contracts of seed 003:
//
//	web.fetch   {url, include_raw_html}  → {final_url, title, byline, published_at, lang, clean_text, raw_html}
//	            failures fetch_failed (HTTP 502), parse_failed (422), timeout (504)
//	search.web  {query, max_results}     → {results: [{title, url, snippet, date}]}
//	            failures invalid_query (400), upstream_failure (502), timeout (504)
//
// web.fetch goes out through the module's safe outbound-HTTP client
// (netguard): http and https only; loopback, private, link-local and
// cloud-metadata destinations refused unless FetchConfig.AllowPrivate,
// on the URL, on every redirect and at dial time (so DNS cannot smuggle
// one in); redirects followed up to MaxRedirects and reported as
// final_url; the body read up to MaxBytes (a longer page is cut there).
// The page is decoded to UTF-8 from the charset its Content-Type header,
// byte-order mark or <meta> declares (windows-1252, Shift_JIS, …), and the
// article is extracted with go-trafilatura (with its readability and
// DOM-distiller fallbacks). clean_text is the extracted article block by
// block: a line per paragraph, heading, list item ("- ", nested ones
// indented) and table row (cells joined with " | "), preformatted text with
// its own lines, links and emphasis as their text. A page whose article is
// under 250 characters is read whole instead (the extractor's fallback for
// short pages runs the title into the text): its body, without scripts,
// styles, navigation, forms, asides and footer. So is a page too large for
// the extractor (its title from <title>; no byline or date): more than
// MaxExtractElements elements, text whose bytes times its depth (the
// elements around it) sum past MaxExtractNestedText, or paragraphs whose
// number times the bytes of their text passes MaxExtractWork (2^31; a
// 500 KB article of 3,000 paragraphs is 1.5 × 10^9 and is extracted). The
// extractor's work grows faster than the page — a 1 MiB page of short
// paragraphs cost it seconds of CPU, 2 MiB over a minute, 1.3 MB of
// 500-deep nested elements 15 s — and a call that runs out of time cannot
// stop it. Within these bounds a hostile page still costs the extractor
// up to a few seconds of CPU, so HTML pages are parsed and extracted
// FetchConfig.MaxConcurrentExtractions at a time (by default half of
// GOMAXPROCS, at least 1): however many hostile pages clients send, they
// keep at most that many cores busy. A page fetched while every slot is
// taken waits for one; a call whose time runs out (or which is
// cancelled) while it waits fails with timeout, saying it waited for an
// extraction slot (the wait ends just before the call's deadline, so that
// this is said before a registry's timeout of the tool answers), and its
// page is never extracted, nor is the page of a
// call whose time has run out by the end of its download. An extraction
// already running when its call fails runs to its end and keeps its slot
// until then. A host that builds the pack again (on each reload of its
// configuration, as examples/server does) passes one ExtractionSlots to
// every build (FetchConfig.Slots), so that extractions left running by
// an earlier build count against the bound. Other text — text/* (plain, Markdown, CSV), JSON and XML of
// any kind (application/json, application/ld+json, application/rss+xml,
// …) — is returned as it is, trimmed, without waiting for a slot; other
// content types (PDF, images, …) are parse_failed.
//
// search.web is served when SearchConfig.BaseURL is set: it posts
// {query, max_results} to {base}/v1/search/{search_tool} with the key as a
// bearer token and maps the answer (the Perplexity search shape LiteLLM
// follows) to the contract: unknown fields dropped, date null when the
// provider gives none; max_results is DefaultMaxResults when the call
// gives none. An empty query, or the gateway answering 4xx to it, is
// invalid_query — except 401, 403, 407 and 429, which refuse the key or
// the rate, not the query, and are upstream_failure like any other
// failure; running out of time (or a 408 or 504) is timeout.
//
// Importing this package costs about 0.25 s and 50 MB at process start:
// go-trafilatura's date parser builds its locale tables in init.
//
// Over MCP a failure's code is in the result's _meta
// (mcpserver.MetaErrorType); over HTTP it is the error_type of the body,
// with the contract's status.
package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// PackName is the pack's name.
const PackName = "web"

// The contract's error types.
const (
	ErrInvalidQuery result.ErrorType = "invalid_query"
	ErrUpstream     result.ErrorType = result.UpstreamFailure
	ErrTimeout      result.ErrorType = result.Timeout
	ErrFetchFailed  result.ErrorType = "fetch_failed"
	ErrParseFailed  result.ErrorType = "parse_failed"
)

// Config configures the pack.
type Config struct {
	// Fetch configures web.fetch (host configuration key web_fetch:).
	Fetch FetchConfig
	// Search configures search.web (key search_web:); without a BaseURL
	// the pack has web.fetch only.
	Search SearchConfig
	// Logger logs upstream failures (never keys); nil means slog.Default.
	Logger *slog.Logger
}

type pack struct {
	log *slog.Logger
}

// New returns the pack. A bad Config is an error naming the field.
func New(cfg Config) (*registry.Pack, error) {
	p := &pack{log: cfg.Logger}
	if p.log == nil {
		p.log = slog.Default()
	}
	pk := &registry.Pack{Name: PackName, Description: "Fetches web pages (their readable text) and searches the web."}
	f, err := newFetcher(p, cfg.Fetch)
	if err != nil {
		return nil, err
	}
	if err := registry.AddFunc(pk, "web.fetch", f.fetch, registry.ToolOptions{
		Title:       "Fetch a web page",
		Description: "Fetches a web page (http or https) and returns its readable article: final URL after redirects, title, byline, publication date, language and clean text; the raw HTML too when include_raw_html is true. Text that is not HTML (plain text, Markdown, CSV, JSON, XML) comes back as it is.",
		Annotations: registry.Annotations{ReadOnly: new(true), Idempotent: new(true), OpenWorld: new(true)},
		Prefix:      new(""),
		Timeout:     f.cfg.Timeout,
		Errors: []registry.ErrorSpec{
			{Type: ErrFetchFailed, Status: http.StatusBadGateway, Description: "the page could not be fetched (refused address, network failure, HTTP error)"},
			{Type: ErrParseFailed, Status: http.StatusUnprocessableEntity, Description: "no readable text could be extracted from the page, or it is not text (PDF, image, …)"},
			{Type: ErrTimeout, Status: http.StatusGatewayTimeout, Description: "the page was not fetched in time"},
		},
	}); err != nil {
		return nil, err
	}
	if cfg.Search.BaseURL == "" {
		if cfg.Search.APIKey != "" || cfg.Search.SearchTool != "" {
			return nil, errors.New("web: Config.Search.BaseURL: expected the search gateway's base URL (APIKey or SearchTool is set without it)")
		}
		return pk, nil
	}
	s, err := newSearcher(p, cfg.Search)
	if err != nil {
		return nil, err
	}
	if err := registry.AddFunc(pk, "search.web", s.search, registry.ToolOptions{
		Title:       "Search the web",
		Description: "Searches the web and returns up to max_results hits (1–25), each with title, URL, snippet and date when known.",
		Annotations: registry.Annotations{ReadOnly: new(true), Idempotent: new(false), OpenWorld: new(true)},
		Prefix:      new(""),
		Timeout:     s.cfg.Timeout,
		Errors: []registry.ErrorSpec{
			{Type: ErrInvalidQuery, Status: http.StatusBadRequest, Description: "the query is empty or the gateway refused it"},
			{Type: ErrUpstream, Status: http.StatusBadGateway, Description: "the search gateway failed"},
			{Type: ErrTimeout, Status: http.StatusGatewayTimeout, Description: "the search gateway did not answer in time"},
		},
		FieldErrorTypes: map[string]result.ErrorType{"query": ErrInvalidQuery},
	}); err != nil {
		return nil, err
	}
	return pk, nil
}
