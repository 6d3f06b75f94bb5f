package httpguard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpguard"
)

// testTimeout bounds every network wait of these tests.
const testTimeout = 10 * time.Second

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// okHandler answers 200 "ok".
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })

// serve starts next behind a guard with opts on 127.0.0.1.
func serve(t *testing.T, opts httpguard.Options, next http.Handler) *httptest.Server {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	g, err := httpguard.New(opts)
	require.NoError(t, err)
	srv := httptest.NewServer(g.Handler(next))
	t.Cleanup(srv.Close)
	return srv
}

// raw sends one raw HTTP/1.1 request text to addr and returns the status
// code and body of the answer.
func raw(t *testing.T, addr, request string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testTimeout)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(testTimeout)))
	_, err = io.WriteString(c, request)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func hostRequest(host string) string {
	return "GET /x HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"
}

func TestGuard_LoopbackListenerAcceptsOnlyLoopbackHosts(t *testing.T) {
	srv := serve(t, httpguard.Options{}, okHandler)
	addr := srv.Listener.Addr().String()
	for _, h := range []string{"localhost", "localhost:8080", "LocalHost:1", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:8080", addr} {
		t.Run("accepts "+h, func(t *testing.T) {
			code, body := raw(t, addr, hostRequest(h))
			assert.Equal(t, http.StatusOK, code, body)
		})
	}
	for _, h := range []string{"evil.example:8080", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io:8080",
		"127.0.0.2", "10.0.0.1:8080", "localhost:", "localhost:99999", "localhost:80x", "[::1", "[::2]:80", "0.0.0.0:8080"} {
		t.Run("refuses "+h, func(t *testing.T) {
			code, body := raw(t, addr, hostRequest(h))
			assert.Equal(t, http.StatusForbidden, code)
			var e struct {
				OK        bool   `json:"ok"`
				Error     string `json:"error"`
				ErrorType string `json:"error_type"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &e), body)
			assert.False(t, e.OK)
			assert.Equal(t, "forbidden_host", e.ErrorType)
			assert.Contains(t, e.Error, "Host header")
		})
	}
	t.Run("refuses a request without Host (HTTP/1.0)", func(t *testing.T) {
		code, _ := raw(t, addr, "GET /x HTTP/1.0\r\n\r\n")
		assert.Equal(t, http.StatusForbidden, code)
	})
}

func TestGuard_AllowedHosts(t *testing.T) {
	opts := httpguard.Options{AllowedHosts: []string{"tools.example.com", "api.example.com:8443"}}
	t.Run("on a loopback listener, besides the loopback names", func(t *testing.T) {
		srv := serve(t, opts, okHandler)
		addr := srv.Listener.Addr().String()
		for h, want := range map[string]int{
			"tools.example.com": 200, "TOOLS.example.com:9": 200, "api.example.com:8443": 200,
			"api.example.com": 403, "api.example.com:80": 403, "localhost:1": 200, "evil.example": 403,
		} {
			code, _ := raw(t, addr, hostRequest(h))
			assert.Equal(t, want, code, h)
		}
	})
	// A request that arrived on a non-loopback address; the test cannot
	// listen on one, so the local address is set as net/http sets it.
	onLAN := func(g *httpguard.Guard, host string) int {
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		r.Host = host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8080}))
		w := httptest.NewRecorder()
		g.Handler(okHandler).ServeHTTP(w, r)
		return w.Code
	}
	t.Run("on another listener, only the hosts listed", func(t *testing.T) {
		g, err := httpguard.New(opts)
		require.NoError(t, err)
		assert.Equal(t, 200, onLAN(g, "tools.example.com"))
		assert.Equal(t, 403, onLAN(g, "localhost"), "a loopback name is not the LAN listener's name")
		assert.Equal(t, 403, onLAN(g, "evil.example"))
	})
	t.Run("on another listener without a list, any host", func(t *testing.T) {
		g, err := httpguard.New(httpguard.Options{})
		require.NoError(t, err)
		assert.Equal(t, 200, onLAN(g, "whatever.example:1"))
	})
}

func TestNew_ReportsEveryInvalidOption(t *testing.T) {
	_, err := httpguard.New(httpguard.Options{
		AllowedHosts:   []string{"ok.example", "https://x.example", "x.example/path", "x.example:port", ""},
		TrustedOrigins: []string{"https://ok.example", "not an origin", "https://x.example/path"},
	})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		`AllowedHosts[1] = "https://x.example"`, `AllowedHosts[2] = "x.example/path"`, `AllowedHosts[3] = "x.example:port"`, `AllowedHosts[4] = ""`,
		`TrustedOrigins[1] = "not an origin"`, `TrustedOrigins[2] = "https://x.example/path"`,
	} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "AllowedHosts[0]")
	assert.NotContains(t, msg, "TrustedOrigins[0]")
}

func TestGuard_CrossOriginRequestsRefusedOnEveryMethod(t *testing.T) {
	srv := serve(t, httpguard.Options{TrustedOrigins: []string{"https://app.example"}}, okHandler)
	do := func(method string, hdr map[string]string) int {
		req, err := http.NewRequest(method, srv.URL+"/x", strings.NewReader("{}"))
		require.NoError(t, err)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		return resp.StatusCode
	}
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete, http.MethodOptions} {
		t.Run(m, func(t *testing.T) {
			assert.Equal(t, 403, do(m, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}), "browser, foreign site")
			assert.Equal(t, 403, do(m, map[string]string{"Origin": "https://evil.example"}), "old browser: Origin only")
			assert.Equal(t, 200, do(m, map[string]string{"Sec-Fetch-Site": "same-origin"}), "same origin")
			assert.Equal(t, 200, do(m, map[string]string{"Sec-Fetch-Site": "none"}), "typed by the user")
			assert.Equal(t, 200, do(m, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://app.example"}), "trusted origin")
			assert.Equal(t, 200, do(m, nil), "not a browser")
		})
	}
}

func TestGuard_StalledReaderIsCutOff(t *testing.T) {
	writeErr := make(chan error, 1)
	chunk := []byte(strings.Repeat("x", 1<<20))
	srv := serve(t, httpguard.Options{WriteTimeout: 150 * time.Millisecond}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 1024; i++ { // 1 GiB at most: far beyond any socket buffer
			if _, err := w.Write(chunk); err != nil {
				writeErr <- err
				return
			}
		}
		writeErr <- nil
	}))
	c, err := net.DialTimeout("tcp", srv.Listener.Addr().String(), testTimeout)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, hostRequest("127.0.0.1"))
	require.NoError(t, err)
	// The client never reads.
	select {
	case err := <-writeErr:
		require.Error(t, err, "the write to a client that does not read must fail")
	case <-time.After(testTimeout):
		t.Fatal("the handler's writes never failed")
	}
}

// TestGuard_StreamOutlivesWriteTimeout: the write deadline is per write,
// so a stream that the client reads lasts longer than WriteTimeout.
func TestGuard_StreamOutlivesWriteTimeout(t *testing.T) {
	const events = 8
	srv := serve(t, httpguard.Options{WriteTimeout: 60 * time.Millisecond}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i := range events {
			if _, err := fmt.Fprintf(w, "data: %d\n\n", i); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			time.Sleep(40 * time.Millisecond) // 320 ms in all, over five write timeouts
		}
	}))
	resp, err := srv.Client().Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, events, strings.Count(string(b), "data: "))
}

func TestIsLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:0": true, "localhost:80": true, "127.9.9.9:1": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "192.0.2.1:80": false,
		"example.com:80": false, "8080": false, "": false,
	} {
		assert.Equal(t, want, httpguard.IsLoopbackAddr(addr), addr)
	}
}
