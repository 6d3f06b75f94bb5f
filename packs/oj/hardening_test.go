package oj_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/oj/internal/wire"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// debugLog is a slog logger at DEBUG level (and below: the registry's
// TRACE) writing into a buffer safe for concurrent use.
type debugLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *debugLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *debugLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *debugLog) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: registry.LevelTrace}))
}

// leaks describes where s holds a piece of secret of at least minLen bytes
// (the longest pieces found), without quoting the piece: test output must
// not show a secret either.
func leaks(s, secret string, minLen int) []string {
	var out []string
	for n := len(secret); n >= minLen; n-- {
		for i := 0; i+n <= len(secret); i++ {
			if at := strings.Index(s, secret[i:i+n]); at >= 0 {
				out = append(out, fmt.Sprintf("bytes %d..%d of the secret at byte %d of the text", i, i+n, at))
			}
		}
		if out != nil {
			return out
		}
	}
	return nil
}

// TestRedaction_TokenAtEveryOffsetAroundTheCut: a token echoed in an error
// body at any offset around the 500-character cut never reaches the failure
// text or the log, not even in part.
func TestRedaction_TokenAtEveryOffsetAroundTheCut(t *testing.T) {
	const token = "tok-9f3Q7zK1"
	for off := oj.MaxErrorBodyChars - len(token) - 3; off <= oj.MaxErrorBodyChars+3; off++ {
		body := strings.Repeat("x", off) + token + strings.Repeat("x", 40)
		var logs debugLog
		e := newEnv(t, jsonHandler(500, "text/plain", body), oj.Config{Token: token, Logger: logs.logger()})
		e.reg = registry.New(registry.Options{Prefix: new(""), Logger: logs.logger()})
		p, err := e.client.Pack()
		require.NoError(t, err)
		require.NoError(t, e.reg.AddPack(p))
		res := e.fail(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
		require.Empty(t, leaks(res.Error, token, 3), "offset %d", off)
		require.Empty(t, leaks(logs.String(), token, 3), "offset %d: log", off)
		require.Contains(t, logs.String(), "returned a failure", "the failure was logged")
		msg := strings.TrimPrefix(res.Error, "[500] ")
		require.LessOrEqual(t, len([]rune(msg)), oj.MaxErrorBodyChars, "offset %d", off)
		require.True(t, strings.HasPrefix(msg, strings.Repeat("x", min(off, oj.MaxErrorBodyChars))), "offset %d", off)
	}
}

// TestRedaction_SuccessfulOutputUntouched: successful Markdown is never
// scanned for the token, so a short token that happens to occur in normal
// text does not corrupt it.
func TestRedaction_SuccessfulOutputUntouched(t *testing.T) {
	e := newEnv(t, nil, oj.Config{Token: "v1"})
	md := e.ok(t, oj.ToolStatus, map[string]any{})
	assert.True(t, strings.HasPrefix(md, "# OJ Platform Status (v1.2.3)\n"), md)
	e = newEnv(t, nil, oj.Config{Token: "Two"})
	md = e.ok(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "1"})
	assert.True(t, strings.HasPrefix(md, "# Two Sum\n"), md)
	assert.NotContains(t, md, oj.Redacted)
}

// recorder is an httptest server recording the Authorization header of
// every request it receives.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	auth []string // "" when absent
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auth = append(r.auth, req.Header.Get("Authorization"))
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"1","title":"Elsewhere"}`))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auth...)
}

// TestRedirect_TokenSentOnlyToConfiguredOrigin: the first server redirects
// to a second one on the same host but another port; the second never sees
// the token (the redirect is refused), and the failure names the target's
// origin without its path or query. Same-origin redirects keep the token.
func TestRedirect_TokenSentOnlyToConfiguredOrigin(t *testing.T) {
	const token = "tok-redirect-1"
	other := newRecorder(t)
	first := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/problems/same/1" {
			http.Redirect(w, r, "/api/v1/problems/same/2", http.StatusFound)
			return
		}
		if r.URL.Path == "/api/v1/problems/same/2" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"2","title":"Same origin"}`))
			return
		}
		http.Redirect(w, r, other.srv.URL+"/landing/path?q=QUERYVALUE", http.StatusTemporaryRedirect)
	})
	for name, hc := range map[string]*http.Client{"default client": nil, "given client": {}} {
		e := newEnv(t, first, oj.Config{Token: token, HTTPClient: hc})
		_, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: "a", ID: "b"})
		var de *oj.DomainError
		require.ErrorAs(t, err, &de, name)
		assert.Equal(t, result.UpstreamFailure, de.Type, name)
		assert.Contains(t, de.Message, other.srv.URL, name)
		assert.NotContains(t, de.Message, "QUERYVALUE", name)
		assert.NotContains(t, de.Message, "/landing", name)
		for _, a := range other.seen() {
			assert.Empty(t, a, "%s: the token reached another origin", name)
		}

		md, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: "same", ID: "1"})
		require.NoError(t, err, name)
		assert.True(t, strings.HasPrefix(md, "# Same origin\n"), name)
		rs := e.backend.Requests()
		require.GreaterOrEqual(t, len(rs), 2)
		for _, r := range rs {
			assert.Equal(t, "Bearer "+token, r.Authorization, "%s: %s", name, r.URI)
		}
	}
	assert.Empty(t, other.seen(), "cross-origin redirects are not followed")
}

// TestErrors_UpstreamTextIsCappedEverywhere: a 900 KB problem+json detail
// (and title) is cut to MaxErrorBodyChars characters in the failure text
// and in the log.
func TestErrors_UpstreamTextIsCappedEverywhere(t *testing.T) {
	huge := strings.Repeat("d", 900_000)
	for name, body := range map[string]string{
		"detail": `{"title":"Bad","status":400,"detail":"` + huge + `"}`,
		"title":  `{"title":"` + huge + `","status":400,"detail":"x"}`,
	} {
		var logs debugLog
		e := newEnv(t, jsonHandler(400, "application/problem+json", body), oj.Config{Logger: logs.logger()})
		e.reg = registry.New(registry.Options{Prefix: new(""), Logger: logs.logger()})
		p, err := e.client.Pack()
		require.NoError(t, err)
		require.NoError(t, e.reg.AddPack(p))
		res := e.fail(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
		assert.True(t, strings.HasPrefix(res.Error, "[400] "), name)
		assert.LessOrEqual(t, len([]rune(strings.TrimPrefix(res.Error, "[400] "))), oj.MaxErrorBodyChars, name)
		assert.Less(t, len(logs.String()), 4*oj.MaxErrorBodyChars, "%s: the log holds the whole detail", name)
	}
}

// TestLogs_PathsWithoutQueryValues: debug logs and protocol-failure texts
// name the request path and the query parameters, never the user's query
// text.
func TestLogs_PathsWithoutQueryValues(t *testing.T) {
	const needle = "confidentialwords"
	var logs debugLog
	e := newEnv(t, nil, oj.Config{Logger: logs.logger()})
	e.ok(t, oj.ToolSimilar, map[string]any{"query": "graphs " + needle, "source_filter": needle})
	e.ok(t, oj.ToolResolve, map[string]any{"query": "https://leetcode.com/problems/" + needle})
	out := logs.String()
	assert.Contains(t, out, "/api/v1/similar?q=")
	assert.Contains(t, out, "source=")
	assert.Contains(t, out, "/api/v1/resolve/")
	assert.NotContains(t, out, needle)
	e.srv.Close()
	_, err := e.client.SimilarProblems(t.Context(), oj.SimilarArgs{Query: ptr("graphs " + needle)})
	require.ErrorIs(t, err, oj.ErrRequest)
	assert.NotContains(t, err.Error(), needle)
	_, err = e.client.ResolveProblem(t.Context(), oj.ResolveArgs{Query: needle})
	require.ErrorIs(t, err, oj.ErrRequest)
	assert.NotContains(t, err.Error(), needle)
	assert.NotContains(t, logs.String(), needle)
}

// headerBlocks parses md with goldmark and returns the kinds of its first
// blocks and the item count of its first list.
func headerBlocks(t tb, md string) (kinds []ast.NodeKind, items int) {
	t.Helper()
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader([]byte(md)))
	for n := doc.FirstChild(); n != nil && len(kinds) < 3; n = n.NextSibling() {
		kinds = append(kinds, n.Kind())
		if l, isList := n.(*ast.List); isList && items == 0 {
			items = l.ChildCount()
		}
	}
	return kinds, items
}

// TestFormat_LineBreaksInHeaderFieldsKeepTheTemplate: line breaks and other
// control characters in the title and the other header fields become
// spaces, so the header keeps its lines: a level-1 heading, a four-item
// list and a thematic break.
func TestFormat_LineBreaksInHeaderFieldsKeepTheTemplate(t *testing.T) {
	body := `{"id":"1\n2","source":"lee\rtcode","title":"Two\nSum\u2028x\u0085y","difficulty":"Ea\u000bsy","tags":["A\nB","C"],"link":"https://x/\n# evil","content":"<p>c</p>"}`
	e := newEnv(t, jsonHandler(200, "application/json", body), oj.Config{})
	md := e.ok(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
	lines := strings.Split(md, "\n")
	require.Greater(t, len(lines), 9, md)
	assert.Equal(t, "# Two Sum x y", lines[0])
	assert.Equal(t, "- Source: lee tcode | ID: 1 2 | Difficulty: Ea sy", lines[2])
	assert.Equal(t, "- Tags: A B, C", lines[3])
	assert.Equal(t, "- Link: https://x/ # evil", lines[4])
	assert.Equal(t, []string{"", "---", ""}, lines[6:9])
	kinds, items := headerBlocks(t, md)
	assert.Equal(t, []ast.NodeKind{ast.KindHeading, ast.KindList, ast.KindThematicBreak}, kinds)
	assert.Equal(t, 4, items)

	status := `{"version":"1\n\n| x | y | z | w |","platforms":[]}`
	e = newEnv(t, jsonHandler(200, "application/json", status), oj.Config{Token: "t"})
	md = e.ok(t, oj.ToolStatus, map[string]any{})
	assert.True(t, strings.HasPrefix(md, "# OJ Platform Status (v1  | x | y | z | w |)\n\n| Platform |"), md)
	similar := `{"rewritten_query":"q\n\n| 1 | a | b | c | d | e | f |","results":[]}`
	e = newEnv(t, jsonHandler(200, "application/json", similar), oj.Config{})
	md = e.ok(t, oj.ToolSimilar, map[string]any{"query": "abc"})
	assert.True(t, strings.HasPrefix(md, "# Similar Problems\n\nQuery: q  | 1 | a"), md)
}

// TestArgs_DotSegmentsRefused: "." and ".." (after trimming) are refused as
// values placed in a URL path, naming the field, before any request.
func TestArgs_DotSegmentsRefused(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	for _, c := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{oj.ToolProblem, map[string]any{"source": "..", "id": "1"}, "source"},
		{oj.ToolProblem, map[string]any{"source": "leetcode", "id": ".."}, "id"},
		{oj.ToolProblem, map[string]any{"source": "leetcode", "id": " . "}, "id"},
		{oj.ToolSimilar, map[string]any{"source": ".", "id": "1"}, "source"},
		{oj.ToolSimilar, map[string]any{"source": "leetcode", "id": ".."}, "id"},
		{oj.ToolResolve, map[string]any{"query": ".."}, "query"},
		{oj.ToolResolve, map[string]any{"query": "."}, "query"},
	} {
		res := e.fail(t, c.tool, c.args)
		assert.Equal(t, result.ValidationError, res.ErrorType, "%v", c.args)
		assert.Contains(t, res.Error, c.field, "%v", c.args)
	}
	assert.Empty(t, e.uris())
	// Dots inside a value, or three of them, are ordinary values.
	e.ok(t, oj.ToolProblem, map[string]any{"source": "...", "id": "a..b"})
	assert.Equal(t, "/api/v1/problems/.../a..b", e.lastURI(t))
}

// TestProblem_202IsUnavailableWithRetryInstruction: a 202 answer to a
// problem lookup means the backend is still fetching the problem: an
// unavailable failure (not the raw body) whose instruction says when to
// retry; the other non-daily tools say the same of what they asked for.
func TestProblem_202IsUnavailableWithRetryInstruction(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	res := e.fail(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "fetching"})
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Equal(t, "[202] the problem is being fetched by the backend and is not available yet", res.Error)
	assert.Equal(t, "Retry this call with the same arguments in 30 seconds.", res.Instruction)
	_, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: "leetcode", ID: "fetching"})
	var de *oj.DomainError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, 202, de.Status)

	// Without a JSON retry_after: "later".
	e = newEnv(t, jsonHandler(202, "text/plain", "busy"), oj.Config{Token: "t"})
	for tool, args := range map[string]map[string]any{
		oj.ToolProblem: {"source": "a", "id": "b"}, oj.ToolResolve: {"query": "two-sum"},
		oj.ToolSimilar: {"query": "graphs"}, oj.ToolStatus: {},
	} {
		res := e.fail(t, tool, args)
		assert.Equal(t, result.Unavailable, res.ErrorType, tool)
		assert.Contains(t, res.Error, "is being fetched by the backend", tool)
		assert.NotContains(t, res.Error, "busy", tool)
		assert.Equal(t, "Retry this call with the same arguments later.", res.Instruction, tool)
	}
	// The daily challenge's 202 stays a success (seed 000, T1).
	e.ok(t, oj.ToolDailyChallenge, map[string]any{})
}

// TestArgs_EveryPathValueIsOneSegmentProperty: whatever a user value
// placed in a URL path holds (slashes, dots, percent signs, anything), it
// either is refused as a dot segment (exactly when it is "." or "..",
// before any request) or reaches the backend as exactly one path segment
// that decodes back to the value.
func TestArgs_EveryPathValueIsOneSegmentProperty(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	value := rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{".", "..", " .. ", "...", "./..", "%2e%2e", "a/../b", "?x=1#f"}),
		rapid.StringMatching(`[./%2eE ]{1,4}`))
	rapid.Check(t, func(t *rapid.T) {
		tool := rapid.SampledFrom([]string{oj.ToolProblem, oj.ToolSimilar, oj.ToolResolve}).Draw(t, "tool")
		a, b := value.Draw(t, "a"), value.Draw(t, "b")
		var args map[string]any
		var sent []string // the values as they should arrive, in path order
		prefix := ""
		switch tool {
		case oj.ToolProblem, oj.ToolSimilar:
			args = map[string]any{"source": a, "id": b}
			sent = []string{strings.TrimSpace(a), strings.TrimSpace(b)}
			prefix = map[string]string{oj.ToolProblem: "/api/v1/problems/", oj.ToolSimilar: "/api/v1/similar/"}[tool]
			if sent[0] == "" || sent[1] == "" {
				return // the non-empty rules, tested elsewhere
			}
		default:
			args = map[string]any{"query": a}
			sent = []string{a}
			prefix = "/api/v1/resolve/"
			if strings.TrimSpace(a) == "" {
				return
			}
		}
		before := len(e.backend.Requests())
		res, err := e.invoke(t, tool, args)
		require.NoError(t, err)
		if slices.ContainsFunc(sent, wire.IsDotSegment) {
			require.False(t, res.Success)
			require.Equal(t, result.ValidationError, res.ErrorType)
			require.Len(t, e.backend.Requests(), before, "no request")
			return
		}
		require.True(t, res.Success, res.Error)
		uri, _, _ := strings.Cut(e.lastURI(t), "?")
		require.True(t, strings.HasPrefix(uri, prefix), uri)
		segs := strings.Split(strings.TrimPrefix(uri, prefix), "/")
		require.Len(t, segs, len(sent), uri)
		for i, seg := range segs {
			require.False(t, wire.IsDotSegment(seg), uri)
			back, err := url.PathUnescape(seg)
			require.NoError(t, err)
			require.Equal(t, sent[i], back)
		}
	})
}
