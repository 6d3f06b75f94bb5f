package httpapi_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/adapters/httpguard"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

const restToken = "rest-token-0123456789abcdef"

// TestOptionsAuth_GuardsEveryEndpoint: with Options.Auth, no endpoint —
// not even an unknown or non-canonical path — answers without a valid
// token, and a tool handler reads the caller's token from its context.
func TestOptionsAuth_GuardsEveryEndpoint(t *testing.T) {
	tokens, err := httpguard.ParseTokens("ops:"+restToken, "test")
	require.NoError(t, err)
	reg := newRegistry(t)
	// The handler learns who called through the registry, without
	// importing an adapter: registry.Request(ctx) is filled by httpapi.
	who, err := registry.Func("whoami", func(ctx context.Context, _ NoArgs) (result.Result[string], error) {
		info := registry.Request(ctx)
		if info.Transport != "http" || info.Header.Get("Content-Type") != "application/json" {
			return result.Failuref[string](result.InternalError, "request info missing: %+v", info), nil
		}
		if _, ok := info.Request.(*http.Request); !ok {
			return result.Failure[string]("no *http.Request", result.InternalError), nil
		}
		if info.Auth == nil {
			return result.Ok("anonymous"), nil
		}
		if ti := httpguard.TokenInfoFromContext(ctx); ti == nil || ti.UserID != info.Auth.Subject {
			return result.Failure[string]("TokenInfo and AuthInfo disagree", result.InternalError), nil
		}
		return result.Ok(info.Auth.Subject), nil
	}, registry.ToolOptions{Doc: "Says who called."})
	require.NoError(t, err)
	require.NoError(t, reg.Add(who))
	h := httpapi.New(reg, httpapi.Options{Logger: discardLogger(),
		Auth: httpguard.RequireBearer(tokens.Verify, httpguard.BearerOptions{AllowMissingExpiration: true, Logger: discardLogger()})})
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	send := func(method, path, token, body string) *http.Response {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for _, ep := range []struct{ method, path string }{
		{"GET", "/tools"}, {"GET", "/tools/echo"}, {"POST", "/tools/echo/invoke"}, {"GET", "/openapi.json"},
		{"GET", "/admin"}, {"POST", "/tools/x/../echo/invoke"},
	} {
		resp := send(ep.method, ep.path, "", `{"text":"hi"}`)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s %s", ep.method, ep.path)
		assert.Equal(t, `Bearer realm="toolpack"`, resp.Header.Get("WWW-Authenticate"))
		resp = send(ep.method, ep.path, "wrong-token-0123456789abcdef", `{"text":"hi"}`)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s %s", ep.method, ep.path)
	}
	resp := send("POST", "/tools/whoami/invoke", restToken, `{}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":true,"value":"ops"}`, string(b), "the tool reads the caller's TokenInfo")
	assert.Equal(t, http.StatusBadRequest, send("POST", "/tools/x/../echo/invoke", restToken, `{}`).StatusCode)
}

// rawStatus sends a raw request line (paths net/http's client would clean)
// and returns the status and Location of the answer.
func rawStatus(t *testing.T, addr, method, path string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(c, method+" "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// TestCanonicalPaths_OnAServeMux: mounted at "/" of a ServeMux, the API
// never sees /tools/../etc/passwd/invoke (the mux redirects it); wrapping
// the mux with CanonicalPaths gives the API's 400 instead.
func TestCanonicalPaths_OnAServeMux(t *testing.T) {
	h := httpapi.New(newRegistry(t), httpapi.Options{Logger: discardLogger()})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	bare := httptest.NewServer(mux)
	defer bare.Close()
	wrapped := httptest.NewServer(httpapi.CanonicalPaths(mux))
	defer wrapped.Close()

	for _, p := range []string{"/tools/../etc/passwd/invoke", "//tools/echo/invoke", "/tools/./echo/invoke", "/healthz/.."} {
		code, loc := rawStatus(t, bare.Listener.Addr().String(), "POST", p)
		assert.Equal(t, http.StatusTemporaryRedirect, code, "bare mux redirects %s (to %s)", p, loc)
		code, _ = rawStatus(t, wrapped.Listener.Addr().String(), "POST", p)
		assert.Equal(t, http.StatusBadRequest, code, "CanonicalPaths refuses %s", p)
	}
	// Encoded dot segments are not cleaned by the mux; the API refuses them
	// either way.
	code, _ := rawStatus(t, wrapped.Listener.Addr().String(), "POST", "/tools/%2e%2e/etc/passwd/invoke")
	assert.Equal(t, http.StatusBadRequest, code)
	code, _ = rawStatus(t, wrapped.Listener.Addr().String(), "POST", "/tools/echo/invoke")
	assert.Equal(t, http.StatusOK, code)
	code, _ = rawStatus(t, wrapped.Listener.Addr().String(), "GET", "/healthz")
	assert.Equal(t, http.StatusOK, code)
}

// TestHandler_DocumentInSyncBeforeAndAfterClose: the OpenAPI document
// follows the registry while the handler subscribes and after Close.
func TestHandler_DocumentInSyncBeforeAndAfterClose(t *testing.T) {
	reg := newRegistry(t)
	h := httpapi.New(reg, httpapi.Options{Logger: discardLogger()})
	srv := httptest.NewServer(h)
	defer srv.Close()
	doc := func() string {
		r := do(t, http.MethodGet, srv.URL+"/openapi.json", "", nil)
		require.Equal(t, http.StatusOK, r.Status)
		return string(r.Body)
	}
	assert.Contains(t, doc(), `"/tools/ping/invoke"`)
	require.NoError(t, reg.Remove("ping"))
	assert.NotContains(t, doc(), `"/tools/ping/invoke"`)
	h.Close()
	require.NoError(t, reg.Remove("echo"))
	assert.NotContains(t, doc(), `"/tools/echo/invoke"`)
}
