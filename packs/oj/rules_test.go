package oj_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// ---- Configuration ----

func TestConfig_BaseURLMustBeAnOrigin(t *testing.T) {
	for _, bad := range []string{
		"https://example.com/api/v1", "https://example.com?foo=1", "ftp://example.com", "not a url",
		"", "https://example.com/#frag", "https://user:pw@example.com", "http://", "example.com", "https:example.com",
		"https://example.com/?", "https://example.com:/",
	} {
		_, err := oj.NewClient(oj.Config{BaseURL: bad})
		require.Error(t, err, bad)
		assert.ErrorIs(t, err, oj.ErrConfig, bad)
		assert.Contains(t, err.Error(), "base URL", bad)
		_, err = oj.New(oj.Config{BaseURL: bad})
		assert.ErrorIs(t, err, oj.ErrConfig, bad)
	}
	for raw, want := range map[string]string{
		"https://example.com":    "https://example.com",
		"https://example.com/":   "https://example.com",
		"http://127.0.0.1:8080/": "http://127.0.0.1:8080",
		"HTTPS://Example.COM":    "https://example.com",
		"http://[::1]:9000":      "http://[::1]:9000",
	} {
		c, err := oj.NewClient(oj.Config{BaseURL: raw})
		require.NoError(t, err, raw)
		assert.Equal(t, want, c.BaseURL(), raw)
	}
}

// A refused base URL is never quoted: its path, query, fragment or
// password may carry a token.
func TestConfig_BaseURLErrorQuotesNoSecret(t *testing.T) {
	const secret = "S3CR3T-url-value"
	for _, bad := range []string{
		"http://%zz/?key=" + secret, "example.com/?key=" + secret, "https:" + secret + "?key=" + secret,
		"https://example.com/" + secret, "https://u:" + secret + "@example.com/?key=" + secret,
		"https://example.com/?key=" + secret, "https://example.com/#" + secret,
	} {
		_, err := oj.NewClient(oj.Config{BaseURL: bad})
		require.ErrorIs(t, err, oj.ErrConfig)
		assert.Contains(t, err.Error(), "base URL")
		assert.NotContains(t, err.Error(), secret)
	}
}

func TestConfig_TrailingSlashDroppedInRequests(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	c, err := oj.NewClient(oj.Config{BaseURL: e.srv.URL + "/"})
	require.NoError(t, err)
	_, err = c.Problem(t.Context(), oj.ProblemArgs{Source: "leetcode", ID: "1"})
	require.NoError(t, err)
	assert.Equal(t, "/api/v1/problems/leetcode/1", e.lastURI(t))
}

func TestConfig_TokenWithControlCharactersRejectedWithoutEcho(t *testing.T) {
	_, err := oj.NewClient(oj.Config{BaseURL: "http://127.0.0.1", Token: "abc\ndef-SECRET"})
	require.ErrorIs(t, err, oj.ErrConfig)
	assert.Contains(t, err.Error(), "token")
	assert.NotContains(t, err.Error(), "SECRET")
}

// ---- Authorization and secrecy ----

func TestAuth_BearerOnlyWhenTokenSet(t *testing.T) {
	with := newEnv(t, nil, oj.Config{Token: "tok-123"})
	without := newEnv(t, nil, oj.Config{})
	for _, e := range []*env{with, without} {
		e.ok(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "1"})
		e.ok(t, oj.ToolDailyChallenge, map[string]any{})
		e.ok(t, oj.ToolSimilar, map[string]any{"query": "abc"})
		e.ok(t, oj.ToolResolve, map[string]any{"query": "abc"})
	}
	for _, r := range with.backend.Requests() {
		assert.Equal(t, "Bearer tok-123", r.Authorization, r.URI)
	}
	for _, r := range without.backend.Requests() {
		assert.False(t, r.HasAuthorization, "no Authorization header without a token: %s", r.URI)
	}
}

func TestToken_NeverInLogsErrorsOrResults(t *testing.T) {
	const token = "SUPER-SECRET-TOKEN-42"
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// A hostile backend echoes the Authorization header in every error body.
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(403)
		fmt.Fprintf(w, "you sent %q", r.Header.Get("Authorization"))
	})
	e := newEnv(t, echo, oj.Config{Token: token, Logger: logger})
	var texts []string
	for _, call := range []struct {
		tool string
		args any
	}{
		{oj.ToolStatus, map[string]any{}}, {oj.ToolProblem, map[string]any{"source": "a", "id": "b"}},
		{oj.ToolDailyChallenge, map[string]any{}}, {oj.ToolResolve, map[string]any{"query": "x"}},
		{oj.ToolSimilar, map[string]any{"query": "abc"}},
	} {
		res := e.fail(t, call.tool, call.args)
		texts = append(texts, res.Error)
	}
	// A network failure (closed server).
	e.srv.Close()
	_, err := e.invoke(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
	require.Error(t, err)
	texts = append(texts, err.Error(), logs.String())
	require.NotEmpty(t, logs.String(), "debug logs were written")
	for i, s := range texts {
		assert.Empty(t, leaks(s, token, len(token)), "text %d", i)
	}
	assert.Contains(t, texts[0], "[403] you sent")
	assert.Len(t, e.backend.Requests(), 5, "the token was sent")
}

// ---- Requests ----

func TestRequest_TimeoutIs30Seconds(t *testing.T) {
	var deadline time.Time
	var has bool
	rt := roundTripper(func(r *http.Request) (*http.Response, error) {
		deadline, has = r.Context().Deadline()
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"id":"1","title":"T"}`)), Request: r}, nil
	})
	c, err := oj.NewClient(oj.Config{BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: rt}})
	require.NoError(t, err)
	before := time.Now()
	_, err = c.Problem(context.Background(), oj.ProblemArgs{Source: "a", ID: "b"})
	after := time.Now()
	require.NoError(t, err)
	require.True(t, has, "every request carries a deadline")
	assert.False(t, deadline.Before(before.Add(oj.RequestTimeout)))
	assert.False(t, deadline.After(after.Add(oj.RequestTimeout)))
	assert.Equal(t, 30*time.Second, oj.RequestTimeout)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRequest_FollowsAtMost10Redirects(t *testing.T) {
	// /r/{n} redirects n more times, then answers with a problem.
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/api/v1/problems/r/%d", &n); err == nil && n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/api/v1/problems/r/%d", n-1), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"1","title":"Landed"}`))
	})
	e := newEnv(t, h, oj.Config{})
	md, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: "r", ID: "10"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(md, "# Landed"))
	assert.Len(t, e.backend.Requests(), 11)
	e.backend.Reset()
	_, err = e.client.Problem(t.Context(), oj.ProblemArgs{Source: "r", ID: "11"})
	require.ErrorIs(t, err, oj.ErrRequest)
	assert.Len(t, e.backend.Requests(), 11, "the 11th redirect is not followed")
}

// countingBody is an endless body that counts what was read from it.
type countingBody struct{ n int64 }

func (b *countingBody) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	b.n += int64(len(p))
	return len(p), nil
}
func (b *countingBody) Close() error { return nil }

func TestRequest_ReadsAtMost1MiBOfBody(t *testing.T) {
	body := &countingBody{}
	rt := roundTripper(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 500, Header: http.Header{"Content-Type": {"text/plain"}}, Body: body, Request: r}, nil
	})
	c, err := oj.NewClient(oj.Config{BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: rt}})
	require.NoError(t, err)
	_, err = c.Problem(t.Context(), oj.ProblemArgs{Source: "a", ID: "b"})
	var de *oj.DomainError
	require.ErrorAs(t, err, &de)
	assert.LessOrEqual(t, body.n, int64(oj.MaxBodyBytes), "read past the cap")
	assert.Equal(t, "[500] "+strings.Repeat("x", 500), de.Message)
}

func TestRequest_ReadsAtMost1MiBWhateverTheDeclaredLength(t *testing.T) {
	// The cap holds whether Content-Length is unknown, larger than the cap,
	// or smaller than what the body really holds.
	for _, declared := range []int64{-1, 0, 10, oj.MaxBodyBytes + 1, 1 << 40} {
		body := &countingBody{}
		rt := roundTripper(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 500, Header: http.Header{"Content-Type": {"text/plain"}},
				ContentLength: declared, Body: body, Request: r}, nil
		})
		c, err := oj.NewClient(oj.Config{BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: rt}})
		require.NoError(t, err)
		_, err = c.Problem(t.Context(), oj.ProblemArgs{Source: "a", ID: "b"})
		var de *oj.DomainError
		require.ErrorAs(t, err, &de, "declared %d", declared)
		assert.LessOrEqual(t, body.n, int64(oj.MaxBodyBytes), "declared %d: read past the cap", declared)
		assert.Equal(t, "[500] "+strings.Repeat("x", 500), de.Message, "declared %d", declared)
	}
}

func TestRequest_BackendConnectionIsReused(t *testing.T) {
	// Every body that fits under the cap is read to its end, so the default
	// client keeps one connection alive across calls, whatever the status.
	var conns atomic.Int64
	b := mockbackend.New(mockbackend.Options{Token: "tok"})
	srv := httptest.NewUnstartedServer(b)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := oj.NewClient(oj.Config{BaseURL: srv.URL, Token: "tok"})
	require.NoError(t, err)
	ctx := t.Context()
	for range 3 {
		_, err = c.Problem(ctx, oj.ProblemArgs{Source: "leetcode", ID: "1"})
		require.NoError(t, err)
		_, err = c.Problem(ctx, oj.ProblemArgs{Source: "leetcode", ID: "missing"}) // 404 problem+json
		require.Error(t, err)
		_, err = c.Problem(ctx, oj.ProblemArgs{Source: "leetcode", ID: "boom"}) // 500 text/plain
		require.Error(t, err)
		_, err = c.Problem(ctx, oj.ProblemArgs{Source: "leetcode", ID: "big"}) // ~200 KB, truncated output
		require.NoError(t, err)
		_, err = c.DailyChallenge(ctx, oj.DailyArgs{Date: ptr("2000-01-01")}) // 202
		require.NoError(t, err)
		_, err = c.PlatformStatus(ctx)
		require.NoError(t, err)
	}
	assert.Len(t, b.Requests(), 18)
	assert.Equal(t, int64(1), conns.Load(), "backend connections opened for 18 sequential requests")
}

func TestRequest_OversizedJSONIsCutAndRejected(t *testing.T) {
	big := `{"id":"1","title":"T","content":"` + strings.Repeat("a", 2<<20) + `"}`
	e := newEnv(t, jsonHandler(200, "application/json", big), oj.Config{})
	_, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: "a", ID: "b"})
	require.ErrorIs(t, err, oj.ErrMalformedResponse)
}

func TestRequest_JSONParsedOnlyForJSONContentTypes(t *testing.T) {
	problem := `{"id":"1","title":"T","content":"x"}`
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "application/problem+json"} {
		e := newEnv(t, jsonHandler(200, ct, problem), oj.Config{})
		_, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: "a", ID: "b"})
		assert.NoError(t, err, ct)
	}
	for _, ct := range []string{"", "text/plain", "text/html", "application/xml", "text/json"} {
		e := newEnv(t, jsonHandler(200, ct, problem), oj.Config{})
		_, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: "a", ID: "b"})
		assert.ErrorIs(t, err, oj.ErrMalformedResponse, ct)
	}
	// An RFC 7807 body is only read as such with a JSON content type.
	rfc := `{"title":"Not Found","status":404,"detail":"nope"}`
	e := newEnv(t, jsonHandler(404, "text/plain", rfc), oj.Config{})
	res := e.fail(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
	assert.Equal(t, "[404] "+rfc, res.Error)
}

// ---- Errors ----

func TestErrors_RFC7807ProblemFormatted(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	res := e.fail(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "missing"})
	assert.Equal(t, "[404] Not Found: problem leetcode/missing not found", res.Error)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	// status comes from the body; a missing detail is empty.
	e2 := newEnv(t, jsonHandler(400, "application/problem+json", `{"title":"Teapot","status":418}`), oj.Config{})
	res = e2.fail(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
	assert.Equal(t, "[418] Teapot: ", res.Error)
	// No status in the body: the HTTP status.
	e3 := newEnv(t, jsonHandler(422, "application/json", `{"title":"Bad","detail":"d"}`), oj.Config{})
	res = e3.fail(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
	assert.Equal(t, "[422] Bad: d", res.Error)
	// JSON without a title is not a problem document.
	e4 := newEnv(t, jsonHandler(503, "application/json", `{"error":"down"}`), oj.Config{})
	res = e4.fail(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
	assert.Equal(t, `[503] {"error":"down"}`, res.Error)
}

func TestErrors_OtherBodiesCutTo500Characters(t *testing.T) {
	e := newEnv(t, jsonHandler(502, "text/html", strings.Repeat("é", 600)), oj.Config{})
	res := e.fail(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
	assert.Equal(t, "[502] "+strings.Repeat("é", 500), res.Error)
	e = newEnv(t, nil, oj.Config{})
	res = e.fail(t, oj.ToolProblem, map[string]any{"source": "a", "id": "boom"})
	assert.Equal(t, "[500] internal error: database is on fire", res.Error)
}

func TestErrors_BodyCutProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		body := rapid.String().Draw(t, "body")
		status := rapid.IntRange(400, 599).Draw(t, "status")
		rt := roundTripper(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"text/plain"}},
				Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
		})
		c, err := oj.NewClient(oj.Config{BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: rt}})
		require.NoError(t, err)
		_, err = c.Problem(context.Background(), oj.ProblemArgs{Source: "a", ID: "b"})
		var de *oj.DomainError
		require.ErrorAs(t, err, &de)
		prefix := fmt.Sprintf("[%d] ", status)
		require.True(t, strings.HasPrefix(de.Message, prefix))
		cut := strings.TrimPrefix(de.Message, prefix)
		require.True(t, utf8.ValidString(cut))
		require.LessOrEqual(t, utf8.RuneCountInString(cut), oj.MaxErrorBodyChars)
		require.True(t, strings.HasPrefix(body, cut))
		if utf8.RuneCountInString(body) <= oj.MaxErrorBodyChars {
			require.Equal(t, body, cut)
		}
	})
}

func TestErrors_HTTPErrorStatusesAreDomainFailuresProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		status := rapid.IntRange(400, 599).Draw(t, "status")
		tool := rapid.SampledFrom([]string{oj.ToolProblem, oj.ToolDailyChallenge, oj.ToolResolve, oj.ToolSimilar, oj.ToolStatus}).Draw(t, "tool")
		rt := roundTripper(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("nope")), Request: r}, nil
		})
		p, err := oj.New(oj.Config{BaseURL: "http://127.0.0.1:1", Token: "t", HTTPClient: &http.Client{Transport: rt}})
		require.NoError(t, err)
		reg := registry.New(registry.Options{Prefix: new("")})
		require.NoError(t, reg.AddPack(p))
		args := map[string]string{oj.ToolProblem: `{"source":"a","id":"b"}`, oj.ToolResolve: `{"query":"q"}`, oj.ToolSimilar: `{"query":"abc"}`}[tool]
		if args == "" {
			args = "{}"
		}
		h := func(ctx context.Context) (result.Result[any], error) { return reg.Invoke(ctx, tool, []byte(args)) }
		res, err := h(context.Background())
		require.NoError(t, err, "HTTP %d must not be a protocol error", status)
		require.False(t, res.Success)
		require.Equal(t, fmt.Sprintf("[%d] nope", status), res.Error)
		require.Equal(t, result.UpstreamFailure, res.ErrorType)
	})
}

func TestErrors_NetworkFailureIsProtocolError(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.srv.Close()
	res, err := e.invoke(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
	require.Error(t, err)
	assert.ErrorIs(t, err, oj.ErrRequest)
	assert.False(t, res.Success)
	var de *oj.DomainError
	assert.False(t, errors.As(err, &de))
}

func TestErrors_MalformedUpstreamDataIsProtocolError(t *testing.T) {
	cases := map[string]http.Handler{
		"bad JSON":        jsonHandler(200, "application/json", `{"id": "1", "title": `),
		"missing title":   jsonHandler(200, "application/json", `{"id": "1"}`),
		"not UTF-8":       jsonHandler(200, "application/json", "{\"id\":\"1\",\"title\":\"\xff\xfe\"}"),
		"not JSON at all": jsonHandler(200, "text/html", "<html></html>"),
	}
	for name, h := range cases {
		e := newEnv(t, h, oj.Config{})
		res, err := e.invoke(t, oj.ToolProblem, map[string]any{"source": "a", "id": "b"})
		require.ErrorIs(t, err, oj.ErrMalformedResponse, name)
		assert.False(t, res.Success, name)
	}
	e := newEnv(t, jsonHandler(200, "application/json", `{"version":"1","platforms":[{"source":"x","total":-1,"missing_content":0,"not_embedded":0}]}`), oj.Config{Token: "t"})
	_, err := e.invoke(t, oj.ToolStatus, map[string]any{})
	require.ErrorIs(t, err, oj.ErrMalformedResponse)
}

func TestErrors_ValidationFailuresComeBeforeAnyRequest(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.fail(t, oj.ToolSimilar, map[string]any{"limit": 99})
	e.fail(t, oj.ToolProblem, map[string]any{"source": " ", "id": "1"})
	e.fail(t, oj.ToolResolve, map[string]any{"query": " "})
	e.fail(t, oj.ToolDailyChallenge, map[string]any{"date": "2024-13-01"})
	e.fail(t, oj.ToolStatus, map[string]any{})
	assert.Empty(t, e.uris())
}
