package httptool

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// SentRequest is an http tool's request as it went out, with every secret
// redacted: what a person testing the tool may see.
type SentRequest struct {
	// Method is the HTTP method.
	Method string
	// URL is the URL, secrets in the path and query redacted, the value
	// of an API key sent in the query replaced.
	URL string
	// Header holds the request's headers; credentials (Authorization,
	// Proxy-Authorization, Cookie, an API key's header) are replaced and
	// every other value has the host's secrets redacted.
	Header http.Header
	// Body is the body (at most MaxSentBody bytes), secrets redacted.
	Body string
}

// MaxSentBody caps the body a SentRequest shows.
const MaxSentBody = 4 << 10

// redactedMark replaces a credential in a SentRequest.
const redactedMark = "[REDACTED]"

type sentKey struct{}

// WithSentRequest returns a context under which a call of an http tool
// reports the request it sends to fn (once authorized, before it goes),
// with every secret redacted. fn runs on the call's goroutine.
func WithSentRequest(ctx context.Context, fn func(SentRequest)) context.Context {
	return context.WithValue(ctx, sentKey{}, fn)
}

// reportSent calls the context's WithSentRequest function, if any.
func (inv *Invoker) reportSent(ctx context.Context, e *entry, req *http.Request, body []byte) {
	fn, ok := ctx.Value(sentKey{}).(func(SentRequest))
	if !ok || fn == nil {
		return
	}
	credHeaders := []string{"Authorization", "Proxy-Authorization", "Cookie"}
	queryKey := ""
	if a := e.auth; a != nil && a.kind == catalogue.AuthAPIKey {
		if a.in == "query" {
			queryKey = a.name
		} else {
			credHeaders = append(credHeaders, http.CanonicalHeaderKey(a.name))
		}
	}
	u := *req.URL
	u.User = nil
	u.Path = inv.redact(u.Path)
	u.RawPath = ""
	q := u.Query()
	for k, vs := range q {
		for i, v := range vs {
			if k == queryKey {
				vs[i] = redactedMark
			} else {
				vs[i] = inv.redact(v)
			}
		}
	}
	u.RawQuery = q.Encode()
	h := make(http.Header, len(req.Header))
	for k, vs := range req.Header {
		out := make([]string, len(vs))
		for i, v := range vs {
			if slices.Contains(credHeaders, http.CanonicalHeaderKey(k)) {
				out[i] = redactedMark
			} else {
				out[i] = inv.redact(v)
			}
		}
		h[k] = out
	}
	b := body
	cut := false
	if len(b) > MaxSentBody {
		b, cut = b[:MaxSentBody], true
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	s := inv.redact(string(b))
	if cut {
		s += "…"
	}
	fn(SentRequest{Method: req.Method, URL: strings.Replace(u.String(), "%5BREDACTED%5D", redactedMark, -1), Header: h, Body: s})
}
