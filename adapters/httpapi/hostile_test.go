package httpapi_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
)

// TestHostileInput sends malformed, empty, oversized, mistyped and misrouted
// requests to a real server on 127.0.0.1: each gets a clear status and a JSON
// message, and the server keeps serving.
func TestHostileInput(t *testing.T) {
	const limit = 4096
	srv, _ := newServer(t, httpapi.Options{MaxBodyBytes: limit})
	invokeURL := srv.URL + "/tools/search/invoke"
	for _, tc := range []struct {
		name, method, url, contentType string
		body                           io.Reader
		status                         int
		errType, mention               string
	}{
		{"malformed JSON", "POST", invokeURL, "application/json", strings.NewReader(`{"query":`), 400, "validation_error", "arguments"},
		{"not an object", "POST", invokeURL, "application/json", strings.NewReader(`[]`), 400, "validation_error", "arguments"},
		{"empty body", "POST", invokeURL, "application/json", strings.NewReader(``), 400, "validation_error", "arguments"},
		{"whitespace body", "POST", invokeURL, "application/json", strings.NewReader(" \n\t "), 400, "validation_error", "arguments"},
		{"binary body", "POST", invokeURL, "application/json", strings.NewReader("\x00\x01\xfe\xff"), 400, "validation_error", "arguments"},
		{"invalid UTF-8", "POST", invokeURL, "application/json", strings.NewReader("{\"query\":\"a\xffb\"}"), 400, "validation_error", "query: the string holds bytes that are not valid UTF-8 (at byte 11)"},
		{"deeply nested", "POST", invokeURL, "application/json", strings.NewReader(strings.Repeat("[", 2000)), 400, "validation_error", "arguments"},
		{"oversize body", "POST", invokeURL, "application/json", strings.NewReader(`{"query":"` + strings.Repeat("a", limit) + `"}`), 413, "too_large", "at most 4096 bytes"},
		{"oversize chunked body", "POST", invokeURL, "application/json", io.MultiReader(strings.NewReader(`{"query":"`), strings.NewReader(strings.Repeat("b", 2*limit))), 413, "too_large", "at most 4096 bytes"},
		{"no content type", "POST", invokeURL, "", strings.NewReader(goodSearch), 415, "unsupported_media_type", "missing"},
		{"text/plain", "POST", invokeURL, "text/plain", strings.NewReader(goodSearch), 415, "unsupported_media_type", "text/plain"},
		{"form", "POST", invokeURL, "application/x-www-form-urlencoded", strings.NewReader("query=a"), 415, "unsupported_media_type", "application/x-www-form-urlencoded"},
		{"multipart", "POST", invokeURL, "multipart/form-data; boundary=x", strings.NewReader("--x--"), 415, "unsupported_media_type", "multipart/form-data"},
		{"json lookalike", "POST", invokeURL, "application/jsonx", strings.NewReader(goodSearch), 415, "unsupported_media_type", "application/jsonx"},
		{"wrong charset", "POST", invokeURL, "application/json; charset=latin1", strings.NewReader(goodSearch), 415, "unsupported_media_type", "latin1"},
		{"garbage content type", "POST", invokeURL, "application/json; ===", strings.NewReader(goodSearch), 415, "unsupported_media_type", "cannot be parsed"},
		{"unknown tool", "POST", srv.URL + "/tools/nope/invoke", "application/json", strings.NewReader(`{}`), 404, "unknown_tool", `"nope"`},
		{"unknown tool GET", "GET", srv.URL + "/tools/nope", "", nil, 404, "unknown_tool", `"nope"`},
		{"wrong method", "GET", invokeURL, "", nil, 405, "method_not_allowed", "POST"},
		{"unknown path", "GET", srv.URL + "/admin", "", nil, 404, "unknown_path", "/admin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, tc.method, tc.url, tc.contentType, tc.body)
			requireError(t, r, tc.status, tc.errType)
			require.Contains(t, r.JSON["error"], tc.mention)
			requireServing(t, srv.URL)
		})
	}
}

// TestPathTricks puts hostile tool names in the path: dot segments, encoded
// slashes and dots, NUL, control bytes, unicode and very long names. Each is
// refused with a JSON 400 or 404 and never reaches a tool.
func TestPathTricks(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	long := strings.Repeat("a", 129)
	for _, tc := range []struct {
		name, path string
		status     int
		errType    string
	}{
		{"dot-dot segment", "/tools/../openapi.json", 400, "invalid_path"},
		{"dot-dot in invoke", "/tools/search/../ping/invoke", 400, "invalid_path"},
		{"dot segment", "/tools/./search/invoke", 400, "invalid_path"},
		{"double slash", "/tools//search/invoke", 400, "invalid_path"},
		{"encoded dot-dot", "/tools/%2e%2e/invoke", 400, "invalid_path"},
		{"encoded slash with dot-dot", "/tools/search%2F..%2Fping/invoke", 400, "invalid_path"},
		{"encoded slash alone", "/tools/a%2Fb/invoke", 400, "invalid_name"},
		{"NUL", "/tools/search%00/invoke", 400, "invalid_name"},
		{"newline", "/tools/sea%0Arch/invoke", 400, "invalid_name"},
		{"space", "/tools/se%20arch/invoke", 400, "invalid_name"},
		{"unicode", "/tools/s%C3%A9arch/invoke", 400, "invalid_name"},
		{"unicode lookalike", "/tools/%EF%BD%93earch/invoke", 400, "invalid_name"},
		{"invalid utf-8", "/tools/%ff%fe/invoke", 400, "invalid_name"},
		{"too long", "/tools/" + long + "/invoke", 400, "invalid_name"},
		{"valid but unknown", "/tools/" + long[:128] + "/invoke", 404, "unknown_tool"},
		{"backslash", "/tools/..%5Cping/invoke", 400, "invalid_name"},
		{"percent", "/tools/search%25/invoke", 400, "invalid_name"},
		{"extra segment", "/tools/search/invoke/x", 404, "unknown_path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, http.MethodPost, srv.URL+tc.path, "application/json", strings.NewReader(goodSearch))
			requireError(t, r, tc.status, tc.errType)
			require.LessOrEqual(t, len(r.Body), 512, "hostile names are cut in messages: %s", r.Body)
		})
	}
	requireServing(t, srv.URL)
}

// TestRawHostileRequests writes requests by hand over TCP, bypassing the
// client's own path cleaning, and checks the answer and that the server
// still serves afterwards.
func TestRawHostileRequests(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{MaxBodyBytes: 1024})
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		name, request string
		status        int
	}{
		{"dot-dot raw", "POST /tools/../tools/search/invoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}", 400},
		{"content-length over cap", "POST /tools/search/invoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\nConnection: close\r\n\r\n{", 413},
		{"short body", "POST /tools/ping/invoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\nConnection: close\r\n\r\n{}", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
			_, err = io.WriteString(conn, tc.request)
			require.NoError(t, err)
			if tc.status == 0 {
				// The body never completes: close our side and move on;
				// the server must not be stuck.
				_ = conn.(*net.TCPConn).CloseWrite()
				_, _ = io.Copy(io.Discard, conn)
				return
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			require.Equal(t, tc.status, resp.StatusCode, "%s", body)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		})
	}
	requireServing(t, srv.URL)
}

// TestManyHostileRequestsInARow checks that a burst of bad requests on one
// keep-alive connection leaves the server serving.
func TestManyHostileRequestsInARow(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{MaxBodyBytes: 256})
	for i := range 50 {
		body := strings.Repeat("x", i*10)
		r := do(t, http.MethodPost, srv.URL+"/tools/search/invoke", "application/json", strings.NewReader(body))
		require.Contains(t, []int{400, 413}, r.Status, fmt.Sprintf("request %d: %s", i, r.Body))
	}
	requireServing(t, srv.URL)
}

// TestHandMadeRequests calls ServeHTTP directly with requests a server would
// never build: no body at all, and a body longer than its Content-Length.
func TestHandMadeRequests(t *testing.T) {
	h := httpapi.New(newRegistry(t), httpapi.Options{Logger: discardLogger()})
	req := httptest.NewRequest(http.MethodPost, "/tools/ping/invoke", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Body = nil
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, "no body means no arguments: %s", rec.Body)

	req = httptest.NewRequest(http.MethodPost, "/tools/ping/invoke", strings.NewReader(`{}{}`))
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = 2
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusBadRequest, rec.Code, "%s", rec.Body)
	require.Contains(t, rec.Body.String(), "longer than its Content-Length")
	require.Contains(t, rec.Body.String(), `"bad_request"`)
}
