package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/sync/semaphore"

	"github.com/toolpack-go/toolpack/netguard"
	"github.com/toolpack-go/toolpack/result"
)

// minArticleRunes is the extractor's own threshold: below it go-trafilatura
// falls back to its baseline extraction.
var minArticleRunes = trafilatura.DefaultConfig().MinExtractedSize

// FetchConfig configures web.fetch (host configuration key web_fetch:).
// Zero fields take the defaults.
type FetchConfig struct {
	// AllowPrivate lets web.fetch reach loopback, private, link-local and
	// metadata addresses. Default false: such pages are refused, also
	// after redirects and DNS resolution.
	AllowPrivate bool
	// AllowAddrs admits the non-public addresses in these prefixes while
	// every other one stays refused: a known internal site
	// ("10.1.2.3/32"), or a test server ("127.0.0.1/32").
	AllowAddrs []netip.Prefix
	// Resolver resolves host names at dial time; nil means the system's.
	// Every address it returns is checked before one is dialled.
	Resolver netguard.Resolver
	// MaxBytes caps the page read; a longer page is cut there. 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// MaxRedirects is how many redirects are followed; 0 means
	// DefaultMaxRedirects, a negative value none (a redirect is then
	// fetch_failed).
	MaxRedirects int
	// Timeout bounds one call; 0 means DefaultFetchTimeout.
	Timeout time.Duration
	// MaxConcurrentExtractions is how many HTML pages are parsed and
	// extracted at once, across all calls of this pack; a call whose page
	// is fetched while every slot is taken waits for one. 0 means
	// DefaultMaxConcurrentExtractions(); a negative value is an error.
	//
	// The article extractor takes no context: once it has started on a
	// page, a call that runs out of time (or is cancelled) fails, but the
	// extractor runs on to the end — within MaxExtractWork and the other
	// bounds, up to a few seconds of CPU on one core. The slot is held
	// until the extractor really returns, so this is a true bound on the
	// cores extraction can take, abandoned calls included. A call whose
	// time runs out (or which is cancelled) while it waits for a slot
	// fails with timeout, saying it waited for an extraction slot (the
	// wait ends a little before the call's deadline, a tenth of the time
	// left and at most a second, so that this is said before a registry's
	// timeout of the tool answers), and its page is never extracted; so
	// does a call whose time has run out by the end of the download. Text
	// that is not HTML (plain text, JSON, XML) takes no slot.
	MaxConcurrentExtractions int
	// Slots, when set, is the bound used instead of one made from
	// MaxConcurrentExtractions (which must then be 0): a host that builds
	// the pack again on each configuration reload passes the same Slots
	// to every build (see ExtractionSlots).
	Slots *ExtractionSlots
}

// ExtractionSlots bounds the HTML extractions running at once across every
// pack built with it (FetchConfig.Slots). A host that builds the pack
// again — on each reload of its configuration — gives every build the
// same ExtractionSlots, so that extractions still running for calls of an
// earlier build (which cannot be stopped) count against the bound of the
// next: a bound per build would admit a new set of extractions on each
// reload. It is safe for concurrent use.
type ExtractionSlots struct {
	sem *semaphore.Weighted
	n   int
}

// NewExtractionSlots returns a bound of n extractions at once; 0 means
// DefaultMaxConcurrentExtractions(). A negative n is an error naming it.
func NewExtractionSlots(n int) (*ExtractionSlots, error) {
	if n < 0 {
		return nil, fmt.Errorf("web: NewExtractionSlots: n: expected a positive number of extractions at once (0 for the default), got %d", n)
	}
	if n == 0 {
		n = DefaultMaxConcurrentExtractions()
	}
	return &ExtractionSlots{sem: semaphore.NewWeighted(int64(n)), n: n}, nil
}

// Size is how many extractions the bound lets run at once.
func (s *ExtractionSlots) Size() int { return s.n }

// tryAcquire, acquire and release take and give back one slot.
func (s *ExtractionSlots) tryAcquire() bool                  { return s.sem.TryAcquire(1) }
func (s *ExtractionSlots) acquire(ctx context.Context) error { return s.sem.Acquire(ctx, 1) }
func (s *ExtractionSlots) release()                          { s.sem.Release(1) }

// DefaultMaxConcurrentExtractions is the number of concurrent extractions
// used when FetchConfig.MaxConcurrentExtractions is 0: half of GOMAXPROCS
// (as it is when New is called), at least 1. The extractor is
// CPU-bound on one goroutine, so more extractions than cores add no
// throughput; half of them leaves the other half to the rest of the
// process while a client sends hostile pages. An ordinary page is
// extracted in tens of milliseconds (a 500 KB one in 60–350 ms), so
// the wait for a slot is short unless pages are hostile, and bounded by
// the call's Timeout.
func DefaultMaxConcurrentExtractions() int {
	return max(1, runtime.GOMAXPROCS(0)/2)
}

// Defaults of FetchConfig.
const (
	DefaultMaxBytes     = 5 << 20
	DefaultMaxRedirects = 10
	DefaultFetchTimeout = 30 * time.Second
	// minDetectRunes is the least text whose detected language is
	// reported (shorter text gives guesses).
	minDetectRunes = 200
	// maxURLBytes caps the URL argument.
	maxURLBytes = 8 << 10
	// userAgent names the fetcher to the sites it reads.
	userAgent = "toolpack-web-fetch/1 (+https://github.com/toolpack-go/toolpack)"
)

// PageURL is an absolute http or https URL: web.fetch's url argument
// and its final_url. Its JSON form is a string; decoding refuses
// anything else (other schemes, relative URLs, user information, more
// than 8 KiB) with a message saying what was expected.
type PageURL string

// UnmarshalJSON reads and checks the URL.
func (u *PageURL) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("expected a URL string")
	}
	if err := checkPageURL(s); err != nil {
		return err
	}
	*u = PageURL(s)
	return nil
}

// MarshalJSON writes the URL as a JSON string.
func (u PageURL) MarshalJSON() ([]byte, error) { return json.Marshal(string(u)) }

// JSONSchema is the contract's {"type":"string","format":"uri"}.
func (PageURL) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"string","format":"uri"}`)
}

// checkPageURL says what is wrong with s as a page URL, or nil.
func checkPageURL(s string) error {
	if len(s) > maxURLBytes {
		return fmt.Errorf("expected a URL of at most %d bytes, got %d", maxURLBytes, len(s))
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("expected an absolute http or https URL, got one that does not parse: %v", errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("expected an http or https URL, got scheme %q", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return errors.New("expected an absolute http or https URL with a host")
	case u.User != nil:
		return errors.New("expected a URL without user information (user:password@)")
	}
	return nil
}

// FetchArgs are web.fetch's arguments.
type FetchArgs struct {
	URL            *PageURL `json:"url" validate:"required"`
	IncludeRawHTML bool     `json:"include_raw_html" default:"false"`
}

// FetchOutput is web.fetch's answer. Title, Byline, PublishedAt and Lang
// are null when the page does not say. RawHTML holds the page decoded to
// UTF-8 when include_raw_html is true, and is "" otherwise.
//
// Why raw_html is always written: the contract's rule
// {"if":{"properties":{"raw_html":{"type":"string"}}},"then":{"required":["raw_html"]}}
// holds its "if" when raw_html is absent too (a properties keyword says
// nothing about absent members), so its "then" asks for raw_html in every
// answer. Writing it always ("" when not asked for) meets the contract as
// written, which any client validating against it checks.
type FetchOutput struct {
	FinalURL    PageURL `json:"final_url"`
	Title       *string `json:"title" optional:"true"`
	Byline      *string `json:"byline" optional:"true"`
	PublishedAt *string `json:"published_at" optional:"true"`
	Lang        *string `json:"lang" optional:"true"`
	CleanText   string  `json:"clean_text" validate:"required"`
	RawHTML     string  `json:"raw_html" optional:"true"`
}

// JSONSchemaKeywords states the contract's rule that raw_html, when it is
// there, is listed as required.
func (FetchOutput) JSONSchemaKeywords() json.RawMessage {
	return json.RawMessage(`{"allOf":[{"if":{"properties":{"raw_html":{"type":"string"}}},"then":{"required":["raw_html"]}}]}`)
}

type fetcher struct {
	cfg    FetchConfig
	client *netguard.Client
	pack   *pack
	// slots bounds the HTML extractions running at once
	// (cfg.Slots, else one of cfg.MaxConcurrentExtractions).
	slots *ExtractionSlots
	// extractHTML is the article extractor: the function extractHTML,
	// which tests replace with one they control.
	extractHTML func(text string, page *url.URL, rawHTML bool) (FetchOutput, error)
	// waiting, when set (by tests), is called when a call starts waiting
	// for an extraction slot.
	waiting func()
}

func newFetcher(p *pack, cfg FetchConfig) (*fetcher, error) {
	switch {
	case cfg.MaxBytes < 0:
		return nil, fmt.Errorf("web: Config.Fetch.MaxBytes: expected a positive size, got %d", cfg.MaxBytes)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("web: Config.Fetch.Timeout: expected a positive duration, got %s", cfg.Timeout)
	case cfg.MaxConcurrentExtractions < 0:
		return nil, fmt.Errorf("web: Config.Fetch.MaxConcurrentExtractions: expected a positive number of extractions at once (0 for the default), got %d", cfg.MaxConcurrentExtractions)
	case cfg.Slots != nil && cfg.MaxConcurrentExtractions != 0:
		return nil, fmt.Errorf("web: Config.Fetch.MaxConcurrentExtractions: expected 0 when Slots is set (the bound is Slots'), got %d", cfg.MaxConcurrentExtractions)
	case cfg.Slots != nil && cfg.Slots.sem == nil:
		return nil, errors.New("web: Config.Fetch.Slots: expected one made by NewExtractionSlots, got a zero ExtractionSlots")
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultFetchTimeout
	}
	slots := cfg.Slots
	if slots == nil {
		var err error
		if slots, err = NewExtractionSlots(cfg.MaxConcurrentExtractions); err != nil {
			return nil, err
		}
	}
	// The body cap is the fetcher's own (a longer page is cut, not
	// refused), so netguard's is off.
	c, err := netguard.New(netguard.Options{AllowPrivate: cfg.AllowPrivate, AllowAddrs: cfg.AllowAddrs, Resolver: cfg.Resolver, Timeout: cfg.Timeout,
		MaxResponseBytes: math.MaxInt64, MaxRedirects: cfg.MaxRedirects, MaxRetries: 1})
	if err != nil {
		return nil, fmt.Errorf("web: Config.Fetch: %w", err)
	}
	return &fetcher{cfg: cfg, client: c, pack: p, slots: slots, extractHTML: extractHTML}, nil
}

func (f *fetcher) fetch(ctx context.Context, a FetchArgs) (result.Result[FetchOutput], error) {
	failed := func(format string, args ...any) (result.Result[FetchOutput], error) {
		return result.Failuref[FetchOutput](ErrFetchFailed, format, args...), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, string(*a.URL), nil)
	if err != nil {
		return failed("the request could not be made: %v", err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,text/*;q=0.8,application/json;q=0.8,*/*;q=0.5")
	resp, err := f.client.Do(ctx, req)
	if err != nil {
		return f.doFailure(ctx, err)
	}
	defer resp.Body.Close()
	final := PageURL(resp.Request.URL.String())
	if resp.StatusCode/100 != 2 {
		return failed("%s answered HTTP %d", final, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes))
	if err != nil {
		if timedOut(ctx, err) {
			return result.Failuref[FetchOutput](ErrTimeout, "the page was not read in time (the limit is %s)", f.cfg.Timeout), nil
		}
		return failed("the page could not be read: %v", err)
	}
	return f.extract(ctx, final, body, resp.Header.Get("Content-Type"), resp.Request.URL, a.IncludeRawHTML)
}

// extract turns the fetched page into the call's answer: other text at
// once, HTML in an extraction slot (see
// FetchConfig.MaxConcurrentExtractions), held until the extractor
// returns (also when it panics).
func (f *fetcher) extract(ctx context.Context, final PageURL, body []byte, contentType string, page *url.URL, rawHTML bool) (result.Result[FetchOutput], error) {
	mt, text, err := decodePage(body, contentType)
	var out FetchOutput
	switch {
	case err != nil:
	case !isHTML(mt):
		out, err = otherText(mt, text)
	default:
		if r, ok := f.takeSlot(ctx); !ok {
			return r, nil
		}
		defer f.slots.release()
		out, err = f.extractHTML(text, page, rawHTML)
	}
	if err != nil {
		return result.Failuref[FetchOutput](ErrParseFailed, "%s: %v", final, err), nil
	}
	out.FinalURL = final
	return result.Ok(out), nil
}

// takeSlot takes an extraction slot, waiting for one while ctx lasts. When
// ctx has ended (before or while waiting), ok is false and r is the
// call's timeout failure, saying why the page was not extracted.
func (f *fetcher) takeSlot(ctx context.Context) (r result.Result[FetchOutput], ok bool) {
	waited := false
	err := ctx.Err()
	if err == nil && !f.slots.tryAcquire() {
		waited = true
		if f.waiting != nil {
			f.waiting()
		}
		wctx, cancel := slotWait(ctx)
		err = f.slots.acquire(wctx) // the wait's own end, just before the call's, is DeadlineExceeded too
		cancel()
	}
	if err == nil {
		return r, true
	}
	ended := fmt.Sprintf("ran out of time (the limit is %s)", f.cfg.Timeout)
	if errors.Is(err, context.Canceled) {
		ended = "was cancelled"
	}
	if waited {
		return result.Failuref[FetchOutput](ErrTimeout, "the page was fetched but not extracted: the call %s while it waited for an extraction slot (web.fetch extracts at most %d at once)",
			ended, f.slots.Size()), false
	}
	return result.Failuref[FetchOutput](ErrTimeout, "the page was fetched but not extracted: the call %s before extraction began", ended), false
}

// slotWait is the context a wait for an extraction slot runs under: ctx,
// ending a little before ctx's deadline (a tenth of the time left, at
// most slotWaitMargin), so that the call says it waited for a slot before
// the registry's own timeout of the tool — the same deadline — answers
// with words that do not say why.
func slotWait(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, d.Add(-min(slotWaitMargin, time.Until(d)/10)))
}

// slotWaitMargin bounds how much earlier than its call a wait for an
// extraction slot ends.
const slotWaitMargin = time.Second

// doFailure maps a failed request: out of time, refused by the guard, or
// a network failure. A timeout names the limit, as the registry's own
// timeout of the tool (the same duration) does: whichever ends the call
// first, the caller reads the same limit.
func (f *fetcher) doFailure(ctx context.Context, err error) (result.Result[FetchOutput], error) {
	var be *netguard.BlockedError
	switch {
	case timedOut(ctx, err):
		return result.Failuref[FetchOutput](ErrTimeout, "the page was not fetched in time (the limit is %s)", f.cfg.Timeout), nil
	case errors.As(err, &be):
		msg := "the destination is refused: " + be.Reason.Error()
		if be.Detail != "" {
			msg += " (" + be.Detail + ")"
		}
		if be.Stage == netguard.StageRedirect {
			msg = "a redirect was refused: " + strings.TrimPrefix(msg, "the destination is refused: ")
		}
		return result.Failure[FetchOutput](msg, ErrFetchFailed), nil
	}
	f.pack.log.Debug("web: fetch failed", "err", err)
	return result.Failuref[FetchOutput](ErrFetchFailed, "the page could not be fetched: %v", err), nil
}

// textual reports whether a media type other than HTML is text that
// web.fetch returns as it is: text/* (plain, Markdown, CSV, …) and JSON
// and XML in any of their forms (application/json, application/ld+json,
// application/x-ndjson, application/rss+xml, …).
func textual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml")
}

// extract turns a page's bytes into the output (FinalURL left to the
// caller): HTML through the article extractor, other text as it is. It is
// what web.fetch does with a page, without the extraction slot.
func extract(body []byte, contentType string, page *url.URL, rawHTML bool) (FetchOutput, error) {
	mt, text, err := decodePage(body, contentType)
	switch {
	case err != nil:
		return FetchOutput{}, err
	case !isHTML(mt):
		return otherText(mt, text)
	}
	return extractHTML(text, page, rawHTML)
}

// decodePage returns the page's media type (from contentType, else sniffed)
// and its text decoded to valid UTF-8.
func decodePage(body []byte, contentType string) (mediaType, text string, err error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return "", "", fmt.Errorf("the page's charset is not one this tool decodes: %v", err)
	}
	decoded, err := io.ReadAll(r)
	if err != nil {
		return "", "", fmt.Errorf("the page could not be decoded: %v", err)
	}
	return mt, strings.ToValidUTF8(string(decoded), "\uFFFD"), nil
}

// isHTML reports whether the media type is a page for the article
// extractor.
func isHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

// otherText is the output for a page that is not HTML: textual types as
// they are, trimmed; any other type refused, naming it.
func otherText(mt, text string) (FetchOutput, error) {
	if !textual(mt) {
		return FetchOutput{}, fmt.Errorf("content type %s is not a page this tool reads text from (HTML, plain text, JSON or XML)", mt)
	}
	clean := strings.TrimSpace(text)
	if clean == "" {
		return FetchOutput{}, errors.New("the page is empty")
	}
	return FetchOutput{CleanText: clean}, nil
}

// extractHTML reads an HTML page's article: go-trafilatura's, or the page
// whole when it is short or too large for the extractor.
func extractHTML(text string, page *url.URL, rawHTML bool) (FetchOutput, error) {
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return FetchOutput{}, fmt.Errorf("the HTML does not parse: %v", err)
	}
	lang := htmlLang(doc)
	if tooLargeToExtract(doc) {
		// The extractor's work grows faster than the page (go-trafilatura
		// joins the text of every paragraph seen so far, once per
		// paragraph): a page past these counts is read whole, as a short
		// one is, in work proportional to its size.
		clean := strings.TrimSpace(pageText(doc))
		if clean == "" || !utf8.ValidString(clean) {
			return FetchOutput{}, errors.New("no readable text was found in the page")
		}
		out := FetchOutput{CleanText: clean, Title: orNil(htmlTitle(doc)), Lang: orNil(lang)}
		if rawHTML {
			out.RawHTML = text
		}
		return out, nil
	}
	res, err := trafilatura.ExtractDocument(doc, trafilatura.Options{OriginalURL: page, EnableFallback: true, ExcludeComments: true})
	if err != nil || res == nil {
		return FetchOutput{}, errors.New("no readable text was found in the page")
	}
	content := res.ContentNode
	if utf8.RuneCountInString(res.ContentText) < minArticleRunes {
		// Below this size go-trafilatura falls back to its baseline, which
		// runs the title and the body's text together; a page this short
		// is read whole (its scripts, navigation, forms and footer left
		// out). The tree parsed above has been through the extractor.
		if content, err = html.Parse(strings.NewReader(text)); err != nil {
			return FetchOutput{}, fmt.Errorf("the HTML does not parse: %v", err)
		}
	}
	clean := strings.TrimSpace(pageText(content))
	if clean == "" || !utf8.ValidString(clean) {
		return FetchOutput{}, errors.New("no readable text was found in the page")
	}
	out := FetchOutput{CleanText: clean, Title: orNil(res.Metadata.Title), Byline: orNil(res.Metadata.Author)}
	// The page's own declaration wins; the extractor's guess from the text
	// only when there is enough text to guess from.
	if l := strings.TrimSpace(res.Metadata.Language); lang == "" && l != "" && utf8.RuneCountInString(clean) >= minDetectRunes {
		lang = l
	}
	out.Lang = orNil(lang)
	if d := res.Metadata.Date; !d.IsZero() {
		s := d.Format(time.DateOnly)
		if d.Hour() != 0 || d.Minute() != 0 || d.Second() != 0 {
			s = d.Format(time.RFC3339)
		}
		out.PublishedAt = &s
	}
	if rawHTML {
		out.RawHTML = text
	}
	return out, nil
}

// Past these a page is not given to the article extractor but read whole
// (see the package documentation). The extractor's work grows faster than
// the page: it joins the text of every paragraph seen so far, once per
// paragraph (a 1 MiB page of short paragraphs cost it seconds of CPU, 2 MiB
// over a minute), and its readability fallback reads the text under every
// element again (a 1.3 MB page of 500-deep nested elements, 15 s). A call
// that runs out of time cannot stop it, so the page is measured first.
const (
	// MaxExtractWork bounds the paragraphs (<p> elements) times the bytes
	// of their text: 2^31, so that a 500 KB article of 3,000 paragraphs
	// (1.5 × 10^9) is still extracted, in about a third of a second.
	MaxExtractWork = 1 << 31
	// MaxExtractNestedText bounds the bytes of the page's text each times
	// its depth (the elements around it): a page of 1 MB of text 20
	// elements deep is 2 × 10^7.
	MaxExtractNestedText = 40_000_000
	// MaxExtractElements bounds the page's elements.
	MaxExtractElements = 15000
)

// tooLargeToExtract reports whether doc has more than MaxExtractElements
// elements, text whose bytes times its depth sum past
// MaxExtractNestedText, or paragraphs whose count times the bytes of their
// text is over MaxExtractWork.
func tooLargeToExtract(doc *html.Node) bool {
	type item struct {
		n     *html.Node
		depth int64
		inP   bool
	}
	var elements, paragraphs, text, nested int64
	stack := []item{{doc, 0, false}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		inP, depth := it.inP, it.depth
		switch it.n.Type {
		case html.ElementNode:
			if elements++; elements > MaxExtractElements {
				return true
			}
			depth++
			if it.n.DataAtom == atom.P {
				paragraphs++
				inP = true
			}
		case html.TextNode:
			if inP {
				text += int64(len(it.n.Data))
			}
			if nested += int64(len(it.n.Data)) * depth; nested > MaxExtractNestedText {
				return true
			}
		}
		for c := it.n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, item{c, depth, inP})
		}
	}
	return paragraphs*text > MaxExtractWork
}

// htmlTitle is the text of the page's first <title>, or "".
func htmlTitle(doc *html.Node) string {
	stack := []*html.Node{doc}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			return b.String()
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			continue // the title is in the head
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return ""
}

// htmlLang is the <html lang> attribute, or "".
func htmlLang(doc *html.Node) string {
	for n := doc.FirstChild; n != nil; n = n.NextSibling {
		if n.Type == html.ElementNode && n.Data == "html" {
			for _, a := range n.Attr {
				if a.Key == "lang" {
					return strings.TrimSpace(a.Val)
				}
			}
		}
	}
	return ""
}

// orNil is s trimmed, or nil when empty.
func orNil(s string) *string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return nil
	}
	return &s
}
