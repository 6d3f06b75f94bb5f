// Package mockbackend is a fake OJ backend for tests, comparisons with the
// reference server and benchmarks. It serves fixed fixtures on the five
// endpoints of the OJ tools specification and records every request.
//
// Fixture rules (by path segment or parameter):
//   - problems/{source}/{id}: id "missing" → 404 RFC 7807 problem; id
//     "boom" → 500 text/plain; id "notjson" → 200 text/html; id "badjson" →
//     200 with broken JSON; id "fetching" → 202 {"retry_after":30,
//     "status":"fetching"} (the backend is still fetching the problem); id
//     "nulls" → a problem without difficulty, link, AC rate or tags; id
//     "big" → a statement of about 200 KB; an id that
//     starts with "distinct-" → the fixture with a statement of the same
//     shape that names the id (a different statement per id, so that no
//     conversion can be reused); anything else → the "Two Sum" fixture with
//     that source and id.
//   - daily: date 2000-01-01 → 202 {"retry_after":30,"status":"fetching"};
//     otherwise the fixture without a source.
//   - similar (both modes): three rows, one without difficulty and link.
//   - resolve/{query}: a top-level source "WRONG" and the fixture nested in
//     "problem".
//   - status: needs "Authorization: Bearer {Token}" when Token is set (401
//     problem otherwise); version 1.2.3 and three platforms.
package mockbackend

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Request is one recorded request.
type Request struct {
	// Method is the HTTP method.
	Method string
	// URI is the request target exactly as sent (escaped path and query).
	URI string
	// Authorization is the Authorization header, empty when absent.
	Authorization string
	// HasAuthorization reports whether the header was present at all.
	HasAuthorization bool
}

// Options configure a Backend. The zero value serves the fixtures without
// checking a token on /status.
type Options struct {
	// Token, when set, is the bearer token /status requires.
	Token string
	// Handler, when set, answers every request instead of the fixtures
	// (requests are still recorded).
	Handler http.Handler
}

// Backend is an http.Handler serving the fixtures. It is safe for
// concurrent use.
type Backend struct {
	opts Options
	mu   sync.Mutex
	reqs []Request
}

// New returns a Backend.
func New(opts Options) *Backend { return &Backend{opts: opts} }

// Requests returns a copy of the requests received so far.
func (b *Backend) Requests() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Request(nil), b.reqs...)
}

// Reset forgets the recorded requests.
func (b *Backend) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reqs = nil
}

// ServeHTTP records r and answers it.
func (b *Backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth, has := r.Header["Authorization"]
	rec := Request{Method: r.Method, URI: r.RequestURI, HasAuthorization: has}
	if has && len(auth) > 0 {
		rec.Authorization = auth[0]
	}
	b.mu.Lock()
	b.reqs = append(b.reqs, rec)
	b.mu.Unlock()
	if b.opts.Handler != nil {
		b.opts.Handler.ServeHTTP(w, r)
		return
	}
	b.fixtures(w, r)
}

// Fixture is the problem every lookup returns (source and id vary).
func Fixture(source, id string) map[string]any {
	return map[string]any{
		"id":         id,
		"source":     source,
		"title":      "Two Sum",
		"difficulty": "Easy",
		"ac_rate":    57.0,
		"tags":       []string{"Array", "Hash Table"},
		"link":       "https://leetcode.com/problems/two-sum/",
		"content":    "<p>Given an array of integers <code>nums</code> and an integer <code>target</code>, return <em>indices of the two numbers such that they add up to <code>target</code></em>.</p>\n<p><strong>Example 1:</strong></p>\n<pre>\nInput: nums = [2,7,11,15], target = 9\nOutput: [0,1]\n</pre>\n<ul>\n<li><code>2 &lt;= nums.length &lt;= 10<sup>4</sup></code></li>\n</ul>",
	}
}

func writeJSON(w http.ResponseWriter, status int, ct string, v any) {
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func problemJSON(w http.ResponseWriter, status int, title, detail string) {
	writeJSON(w, status, "application/problem+json", map[string]any{
		"type": "about:blank", "title": title, "status": status, "detail": detail,
	})
}

func (b *Backend) fixtures(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/api/v1/problems/"):
		parts := strings.SplitN(strings.TrimPrefix(r.URL.EscapedPath(), "/api/v1/problems/"), "/", 2)
		if len(parts) != 2 {
			problemJSON(w, 400, "Bad Request", "expected /api/v1/problems/{source}/{id}")
			return
		}
		source, id := unescape(parts[0]), unescape(parts[1])
		switch id {
		case "missing":
			problemJSON(w, 404, "Not Found", fmt.Sprintf("problem %s/%s not found", source, id))
		case "boom":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(500)
			_, _ = w.Write([]byte("internal error: database is on fire"))
		case "notjson":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>hello</html>"))
		case "fetching":
			writeJSON(w, 202, "application/json", map[string]any{"retry_after": 30, "status": "fetching"})
		case "badjson":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id": "1", "title": `))
		case "nulls":
			writeJSON(w, 200, "application/json", map[string]any{
				"id": id, "source": source, "title": "Bare", "difficulty": nil, "ac_rate": nil,
				"tags": []string{}, "link": nil, "content": "plain text, no markup",
			})
		case "big":
			p := Fixture(source, id)
			p["content"] = "<p>" + strings.Repeat("abcdefghé ", 20_000) + "</p>"
			writeJSON(w, 200, "application/json", p)
		default:
			p := Fixture(source, id)
			if strings.HasPrefix(id, "distinct-") {
				p["content"] = "<p>Variant <code>" + html.EscapeString(id) + "</code>.</p>\n" + p["content"].(string)
			}
			writeJSON(w, 200, "application/json", p)
		}
	case path == "/api/v1/daily":
		if r.URL.Query().Get("date") == "2000-01-01" {
			writeJSON(w, 202, "application/json", map[string]any{"retry_after": 30, "status": "fetching"})
			return
		}
		p := Fixture("", "1")
		delete(p, "source")
		writeJSON(w, 200, "application/json", p)
	case path == "/api/v1/similar" || strings.HasPrefix(path, "/api/v1/similar/"):
		q := r.URL.Query().Get("q")
		if q == "" {
			q = "problems similar to " + strings.TrimPrefix(path, "/api/v1/similar/")
		}
		writeJSON(w, 200, "application/json", map[string]any{
			"rewritten_query": q,
			"results": []map[string]any{
				{"source": "leetcode", "id": "167", "title": "Two Sum II", "difficulty": "Medium", "link": "https://leetcode.com/problems/two-sum-ii/", "similarity": 0.791},
				{"source": "codeforces", "id": "1A", "title": "Theatre Square", "difficulty": nil, "link": nil, "similarity": 1.0},
				{"source": "atcoder", "id": "abc001_1", "title": "積雪深差", "similarity": 0.5},
			},
		})
	case strings.HasPrefix(path, "/api/v1/resolve/"):
		writeJSON(w, 200, "application/json", map[string]any{
			"source": "WRONG", "id": "WRONG", "problem": Fixture("leetcode", "1"),
		})
	case path == "/status":
		if b.opts.Token != "" && r.Header.Get("Authorization") != "Bearer "+b.opts.Token {
			problemJSON(w, 401, "Unauthorized", "a valid bearer token is required")
			return
		}
		writeJSON(w, 200, "application/json", map[string]any{
			"version": "1.2.3",
			"platforms": []map[string]any{
				{"source": "atcoder", "total": 8356, "missing_content": 320, "not_embedded": 339},
				{"source": "codeforces", "total": 12984, "missing_content": 0, "not_embedded": 1000},
				{"source": "luogu", "total": 100, "missing_content": 999, "not_embedded": 1234567},
			},
		})
	default:
		problemJSON(w, 404, "Not Found", "no route for "+path)
	}
}

func unescape(s string) string {
	out, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return out
}
