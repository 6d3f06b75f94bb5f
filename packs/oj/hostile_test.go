package oj_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// hostileToken is the secret the hostile backends try to leak.
const hostileToken = "Hx9-TOKEN-qZ7w"

// hostile is a Client on base (through hc when not nil) and a registry
// holding its pack, both logging at every level into logs.
type hostile struct {
	client *oj.Client
	reg    *registry.Registry
}

func newHostile(t *testing.T, base string, hc *http.Client, logs *debugLog) *hostile {
	t.Helper()
	c, err := oj.NewClient(oj.Config{BaseURL: base, Token: hostileToken, HTTPClient: hc, Logger: logs.logger()})
	require.NoError(t, err)
	p, err := c.Pack()
	require.NoError(t, err)
	reg := registry.New(registry.Options{Prefix: new(""), Logger: logs.logger()})
	require.NoError(t, reg.AddPack(p))
	return &hostile{client: c, reg: reg}
}

// quietServer is an httptest server whose own error log (handler panics)
// is discarded: it would print the panic values, which are not ours.
func quietServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// rawServer accepts TCP connections on 127.0.0.1, reads one request head
// and writes reply (the Authorization header value substituted for %s),
// then closes: a backend that does not speak HTTP properly.
func rawServer(t *testing.T, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				_, _ = fmt.Fprintf(conn, reply, req.Header.Get("Authorization"))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestHostile_TokenNeverInLogsOrFailures plants the token in every path by
// which backend data reaches a failure: error bodies (text, around the
// 500-character cut), RFC 7807 titles and details (plain, JSON-escaped,
// 900 KB), redirect targets (query, host, user info, path, a malformed
// Location, a loop), headers echoed back, malformed 200 answers, and
// transport errors (a proxy echoing the header, a backend answering
// garbage). Every result (as JSON), every error text and every log line
// (DEBUG and TRACE included) is searched for the token or any 5-byte piece
// of it; log lines stay bounded.
func TestHostile_TokenNeverInLogsOrFailures(t *testing.T) {
	other := newRecorder(t)
	otherHost := strings.TrimPrefix(other.srv.URL, "http://")
	jsonEscaped := ""
	for _, r := range hostileToken {
		jsonEscaped += fmt.Sprintf(`\u%04x`, r)
	}
	type kind int
	const (
		domain kind = iota
		protocol
	)
	// handler returns the backend for one case; auth is the Authorization
	// header the backend received (so it can echo it).
	type handlerFunc func(w http.ResponseWriter, r *http.Request, auth string)
	cases := []struct {
		name    string
		handler handlerFunc
		base    func(t *testing.T) string // instead of handler: a raw backend
		hc      *http.Client              // a client with a hostile transport
		want    kind
		shows   string // a piece of text proving the path was taken
	}{
		{name: "text body echoes the header", want: domain, shows: "[REDACTED]", handler: func(w http.ResponseWriter, _ *http.Request, auth string) {
			w.WriteHeader(403)
			fmt.Fprintf(w, "you sent %q", auth)
		}},
		{name: "text body, token across the cut", want: domain, shows: "xxxx", handler: func(w http.ResponseWriter, _ *http.Request, _ string) {
			w.WriteHeader(500)
			fmt.Fprint(w, strings.Repeat("x", oj.MaxErrorBodyChars-7)+hostileToken+strings.Repeat("x", 100))
		}},
		{name: "problem title", want: domain, shows: "[400] [REDACTED]", handler: func(w http.ResponseWriter, _ *http.Request, _ string) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"title":%q,"status":400,"detail":"d"}`, hostileToken)
		}},
		{name: "problem detail, 900 KB", want: domain, shows: "Bad: [REDACTED]", handler: func(w http.ResponseWriter, _ *http.Request, auth string) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"title":"Bad","status":400,"detail":"%s %s %s"}`, hostileToken, strings.Repeat("y", 900_000), auth)
		}},
		{name: "problem detail, JSON-escaped token", want: domain, shows: "[REDACTED]", handler: func(w http.ResponseWriter, _ *http.Request, _ string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"title":"Unauthorized","detail":"token %s is not valid"}`, jsonEscaped)
		}},
		{name: "cross-origin redirect, token in the query", want: domain, shows: "another origin", handler: func(w http.ResponseWriter, r *http.Request, _ string) {
			http.Redirect(w, r, other.srv.URL+"/steal?t="+hostileToken, http.StatusFound)
		}},
		{name: "cross-origin redirect, token in the host", want: domain, shows: "another origin", handler: func(w http.ResponseWriter, r *http.Request, _ string) {
			http.Redirect(w, r, "http://"+hostileToken+".invalid/", http.StatusFound)
		}},
		{name: "cross-origin redirect, token as user info", want: domain, shows: "another origin", handler: func(w http.ResponseWriter, r *http.Request, _ string) {
			http.Redirect(w, r, "http://u:"+hostileToken+"@"+otherHost+"/", http.StatusMovedPermanently)
		}},
		{name: "same-origin redirect, token in the path, echoed", want: domain, shows: "[REDACTED]", handler: func(w http.ResponseWriter, r *http.Request, _ string) {
			if !strings.Contains(r.URL.Path, "/landed/") {
				http.Redirect(w, r, "/landed/"+hostileToken, http.StatusFound)
				return
			}
			w.WriteHeader(404)
			fmt.Fprint(w, "no route for "+r.URL.Path)
		}},
		{name: "malformed Location", want: protocol, shows: "Location", handler: func(w http.ResponseWriter, _ *http.Request, _ string) {
			w.Header().Set("Location", "http://[::1%"+hostileToken)
			w.WriteHeader(http.StatusFound)
		}},
		{name: "redirect loop carrying the token", want: protocol, shows: "stopped after 10 redirects", handler: func(w http.ResponseWriter, r *http.Request, _ string) {
			http.Redirect(w, r, r.URL.Path+"?t="+hostileToken, http.StatusFound)
		}},
		{name: "headers echoed back", want: domain, shows: "[404] nope", handler: func(w http.ResponseWriter, _ *http.Request, auth string) {
			w.Header().Set("WWW-Authenticate", auth)
			w.Header().Set("X-Echo", hostileToken)
			w.Header().Set("Content-Type", "text/"+hostileToken)
			w.WriteHeader(404)
			fmt.Fprint(w, "nope")
		}},
		{name: "200 with a content type echoing the token", want: protocol, shows: "JSON content type", handler: func(w http.ResponseWriter, _ *http.Request, _ string) {
			w.Header().Set("Content-Type", "text/"+hostileToken)
			fmt.Fprint(w, `{"id":"1","title":"t"}`)
		}},
		{name: "200 with malformed JSON around the token", want: protocol, shows: "invalid JSON", handler: func(w http.ResponseWriter, _ *http.Request, auth string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"1","title":`+auth+`}`)
		}},
		{name: "200 with a wrong type holding the token", want: protocol, shows: "invalid JSON", handler: func(w http.ResponseWriter, _ *http.Request, _ string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"1","title":{%q:1}}`, hostileToken)
		}},
		{name: "200 not UTF-8", want: protocol, shows: "UTF-8", handler: func(w http.ResponseWriter, _ *http.Request, _ string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "{\"id\":\"1\",\"title\":\""+hostileToken+"\xff\"}")
		}},
		{name: "202 body echoing the header", want: domain, shows: "being fetched", handler: func(w http.ResponseWriter, _ *http.Request, auth string) {
			w.WriteHeader(202)
			fmt.Fprint(w, auth)
		}},
		{name: "garbage status line", want: protocol, shows: "malformed HTTP", base: func(t *testing.T) string {
			return rawServer(t, "HTTP/1.1 %s OK\r\n\r\n")
		}},
		{name: "garbage response", want: protocol, shows: "malformed HTTP", base: func(t *testing.T) string {
			return rawServer(t, "%s\r\n\r\n")
		}},
		{name: "proxy error echoing the header", want: protocol, shows: "proxy refused", hc: &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			return nil, fmt.Errorf("proxy refused %s", r.Header.Get("Authorization"))
		})}},
	}
	var logs debugLog
	for _, c := range cases {
		base := "http://127.0.0.1:1"
		switch {
		case c.handler != nil:
			h := c.handler
			base = quietServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h(w, r, r.Header.Get("Authorization"))
			})).URL
		case c.base != nil:
			base = c.base(t)
		}
		e := newHostile(t, base, c.hc, &logs)
		var texts []string
		for _, call := range []struct {
			tool string
			args string
		}{
			{oj.ToolProblem, `{"source":"leetcode","id":"1"}`}, {oj.ToolResolve, `{"query":"two-sum"}`},
			{oj.ToolSimilar, `{"query":"graphs"}`}, {oj.ToolStatus, `{}`},
		} {
			res, err := e.reg.Invoke(t.Context(), call.tool, []byte(call.args))
			require.False(t, res.Success, "%s: %s succeeded", c.name, call.tool)
			if c.want == domain {
				require.NoError(t, err, "%s: %s", c.name, call.tool)
				texts = append(texts, res.Error)
			} else {
				require.Error(t, err, "%s: %s", c.name, call.tool)
				texts = append(texts, err.Error())
			}
			raw, jerr := json.Marshal(res)
			require.NoError(t, jerr)
			texts = append(texts, string(raw), res.Message, res.Instruction)
		}
		_, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: "leetcode", ID: "1"})
		require.Error(t, err, c.name)
		texts = append(texts, err.Error(), fmt.Sprintf("%v %+v %#v", err, err, errors.Unwrap(err)))
		var de *oj.DomainError
		if c.want == protocol {
			assert.True(t, errors.Is(err, oj.ErrRequest) || errors.Is(err, oj.ErrMalformedResponse), c.name)
		} else {
			assert.ErrorAs(t, err, &de, c.name)
		}
		joined := strings.Join(texts, "\n")
		assert.True(t, strings.Contains(joined, c.shows), "%s: the path was not taken (no %q)", c.name, c.shows)
		assert.Empty(t, leaks(joined, hostileToken, 5), c.name)
		for _, s := range texts {
			assert.LessOrEqual(t, len(s), 8*oj.MaxErrorBodyChars, "%s: a text of %d bytes", c.name, len(s))
		}
	}
	out := logs.String()
	require.NotEmpty(t, out)
	assert.True(t, strings.Contains(out, "level=DEBUG"), "debug logs were written")
	assert.Empty(t, leaks(out, hostileToken, 5), "the logs")
	for _, line := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, len(line), 8*oj.MaxErrorBodyChars, "a log line of %d bytes", len(line))
	}
	for _, a := range other.seen() {
		assert.Empty(t, a, "the token reached another origin")
	}
}

// TestHostile_100ConcurrentCallsWithPanickingAndSlowBackends: 100 calls at
// once against a backend that panics before answering, panics halfway
// through a body, hangs, or answers normally. Every call returns (hangs end
// at the caller's deadline as timeout failures, panics as protocol
// failures), the right way for its kind, without the token anywhere, and
// the goroutines started for them are gone afterwards.
func TestHostile_100ConcurrentCallsWithPanickingAndSlowBackends(t *testing.T) {
	baseline := runtime.NumGoroutine()
	fixtures := mockbackend.New(mockbackend.Options{})
	srv := quietServer(t, mockbackend.New(mockbackend.Options{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/panic-early"):
			panic("backend bug, token " + r.Header.Get("Authorization"))
		case strings.HasSuffix(r.URL.Path, "/panic-late"):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			_, _ = w.Write([]byte(`{"id":"1","title":"`))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		case strings.HasSuffix(r.URL.Path, "/slow"):
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		default:
			fixtures.ServeHTTP(w, r)
		}
	})}))
	var logs debugLog
	e := newHostile(t, srv.URL, nil, &logs)
	ids := []string{"panic-early", "panic-late", "slow", "1"}
	type outcome struct {
		id  string
		res result.Result[any]
		err error
	}
	outcomes := make(chan outcome, 100)
	var wg sync.WaitGroup
	for i := range 100 {
		id := ids[i%len(ids)]
		wg.Go(func() {
			ctx := context.Background()
			if id == "slow" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
				defer cancel()
			}
			res, err := e.reg.Invoke(ctx, oj.ToolProblem, []byte(`{"source":"leetcode","id":"`+id+`"}`))
			outcomes <- outcome{id, res, err}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(30 * time.Second): // a hang detector, not a speed check
		t.Fatal("calls still running after 30 s")
	}
	close(outcomes)
	counts := map[string]int{}
	for o := range outcomes {
		counts[o.id]++
		switch o.id {
		case "panic-early", "panic-late":
			require.ErrorIs(t, o.err, oj.ErrRequest, o.id)
			assert.Empty(t, leaks(o.err.Error(), hostileToken, 5))
		case "slow":
			require.NoError(t, o.err)
			assert.Equal(t, result.Timeout, o.res.ErrorType)
		default:
			require.NoError(t, o.err)
			require.True(t, o.res.Success, o.res.Error)
			assert.True(t, strings.HasPrefix(o.res.Value.(string), "# Two Sum\n"))
		}
	}
	assert.Equal(t, map[string]int{"panic-early": 25, "panic-late": 25, "slow": 25, "1": 25}, counts)
	assert.Empty(t, leaks(logs.String(), hostileToken, 5))
	srv.Close() // also closes the default transport's idle connections
	assert.Eventually(t, func() bool { return runtime.NumGoroutine() <= baseline+5 }, 10*time.Second, 20*time.Millisecond,
		"goroutines: %d before, %d after", baseline, runtime.NumGoroutine())
}
