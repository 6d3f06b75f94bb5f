package main

// The hostile suite: what an attacker or a careless client does to the
// server's HTTP side, against the real handler stack (guard, path check,
// /mcp, REST, /healthz) and http.Server settings that run builds from the
// flags — in this process where memory and goroutines are measured, or in
// the built binary. Everything listens on 127.0.0.1 and is bounded in time.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// hostileSecret is planted in a panicking tool; it must reach no client.
const hostileSecret = "hunter2-hostile-secret"

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`

type noArgs struct{}

// hostileRegistry holds the example pack and three tools: explode
// (panics), stall (runs out of its 50 ms) and linger (answers after
// 700 ms, longer than the short timeouts the tests configure).
func hostileRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: slog.New(slog.DiscardHandler)})
	p, err := example.New()
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(p))
	explode, err := registry.Func("explode", func(context.Context, noArgs) (result.Result[string], error) {
		panic("connect: password=" + hostileSecret)
	}, registry.ToolOptions{Doc: "Panics."})
	require.NoError(t, err)
	stall, err := registry.Func("stall", func(ctx context.Context, _ noArgs) (result.Result[string], error) {
		<-ctx.Done()
		return result.Result[string]{}, ctx.Err()
	}, registry.ToolOptions{Doc: "Never answers in time.", Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	linger, err := registry.Func("linger", func(ctx context.Context, _ noArgs) (result.Result[string], error) {
		select {
		case <-time.After(700 * time.Millisecond):
			return result.Ok("done"), nil
		case <-ctx.Done():
			return result.Result[string]{}, ctx.Err()
		}
	}, registry.ToolOptions{Doc: "Answers after 700 ms."})
	require.NoError(t, err)
	require.NoError(t, reg.Add(explode, stall, linger))
	return reg
}

// inProcess is the server's HTTP stack serving on 127.0.0.1 in this
// process.
type inProcess struct {
	base, addr string
	srv        *sdk.Server
}

// startInProcess builds the HTTP server as run does, from argv's flags, for
// reg and serves it until the test ends.
func startInProcess(t testing.TB, reg *registry.Registry, argv ...string) *inProcess {
	t.Helper()
	cfg, err := parseFlags(append([]string{"-addr", "127.0.0.1:0"}, argv...), io.Discard)
	require.NoError(t, err)
	log := slog.New(slog.DiscardHandler)
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: log})
	ctx, cancel := context.WithCancel(context.Background())
	hs, closeAPI, err := newHTTPServer(ctx, cfg, reg, srv, nil, nil, nil, nil, nil, log)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() { _ = hs.Serve(ln); close(done) }()
	t.Cleanup(func() {
		cancel()
		_ = hs.Close()
		<-done
		closeAPI()
	})
	return &inProcess{base: "http://" + ln.Addr().String(), addr: ln.Addr().String(), srv: srv}
}

func (s *inProcess) sessions() int {
	n := 0
	for range s.srv.Sessions() {
		n++
	}
	return n
}

// waitFor polls cond until it holds, failing after the e2e timeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(e2eTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, e2eTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hostileClient keeps no idle connections, so that goroutine counts are
// the server's.
func hostileClient() *http.Client {
	return &http.Client{Timeout: e2eTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
}

type exchange struct {
	status int
	header http.Header
	body   string
}

// send makes one request; hdr holds header name/value pairs, and "Host"
// sets the Host header.
func send(t testing.TB, c *http.Client, method, url, body string, hdr ...string) exchange {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	require.NoError(t, err)
	return exchange{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// routes are every route of the listener, with what a call needs.
var routes = []struct {
	method, path, body string
	hdr                []string
}{
	{"GET", "/healthz", "", nil},
	{"GET", "/tools", "", nil},
	{"GET", "/tools/echo", "", nil},
	{"POST", "/tools/echo/invoke", `{"text":"hi"}`, []string{"Content-Type", "application/json"}},
	{"GET", "/openapi.json", "", nil},
	{"POST", "/mcp", initBody, []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}},
	{"GET", "/mcp", "", []string{"Accept", "text/event-stream", "Mcp-Session-Id", "x"}},
	{"DELETE", "/mcp", "", []string{"Mcp-Session-Id", "x"}},
	{"GET", "/nope", "", nil},
}

func errorType(t testing.TB, body string) string {
	t.Helper()
	var e struct {
		ErrorType string `json:"error_type"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &e), "a JSON refusal: %s", body)
	return e.ErrorType
}

// TestHostile_RebindingAndForeignOriginRefusedOnEveryRoute runs the binary:
// a request naming another host (a DNS-rebound page) or sent by a browser
// from another origin is refused on every route, before any handler.
func TestHostile_RebindingAndForeignOriginRefusedOnEveryRoute(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	s := startHTTP(t, ctx, serverEnv(startBackend(t)))
	_, port, err := net.SplitHostPort(strings.TrimPrefix(s.base, "http://"))
	require.NoError(t, err)
	c := hostileClient()
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			plain := send(t, c, r.method, s.base+r.path, r.body, r.hdr...)
			assert.NotEqual(t, http.StatusForbidden, plain.status, "a plain client passes: %s", plain.body)

			for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.nip.io:" + port} {
				x := send(t, c, r.method, s.base+r.path, r.body, append([]string{"Host", host}, r.hdr...)...)
				assert.Equal(t, http.StatusForbidden, x.status, "Host %s", host)
				assert.Equal(t, "forbidden_host", errorType(t, x.body))
			}
			x := send(t, c, r.method, s.base+r.path, r.body,
				append([]string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, r.hdr...)...)
			assert.Equal(t, http.StatusForbidden, x.status)
			assert.Equal(t, "forbidden_origin", errorType(t, x.body))
			x = send(t, c, r.method, s.base+r.path, r.body, append([]string{"Origin", "http://evil.example:" + port}, r.hdr...)...)
			assert.Equal(t, http.StatusForbidden, x.status, "a browser without Sec-Fetch-Site: Origin against Host")
		})
	}
	t.Run("the tool was never called", func(t *testing.T) {
		assert.NotContains(t, s.stderr.String(), "Tool called")
	})
}

// rawRequest writes a raw request and returns the status line's code.
func rawRequest(t testing.TB, addr, request string) int {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, e2eTimeout)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(e2eTimeout)))
	_, err = io.WriteString(c, request)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func TestHostile_DotSegmentPathsGet400NotARedirect(t *testing.T) {
	s := startInProcess(t, hostileRegistry(t))
	for _, p := range []string{"/tools/../etc/passwd/invoke", "/tools/./echo/invoke", "//tools/echo/invoke", "/mcp/../tools", "/tools/%2e%2e/x/invoke"} {
		code := rawRequest(t, s.addr, "POST "+p+" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
		assert.Equal(t, http.StatusBadRequest, code, p)
	}
}

// slowConn sends head at once, then the rest one byte per interval, until
// the server answers or closes the connection. It returns how many of the
// rest's bytes it sent and how long the server took to give up.
func slowConn(t testing.TB, addr, head, rest string, interval time.Duration) (int, time.Duration) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, e2eTimeout)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(e2eTimeout)))
	start := time.Now()
	_, err = io.WriteString(c, head)
	require.NoError(t, err)
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, c) // until the server answers and closes, or resets
		close(ended)
	}()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	sent := 0
	for sent < len(rest) {
		select {
		case <-ended:
			return sent, time.Since(start)
		case <-tick.C:
			if _, err := c.Write([]byte{rest[sent]}); err != nil {
				<-ended
				return sent, time.Since(start)
			}
			sent++
		}
	}
	<-ended
	return sent, time.Since(start)
}

// TestHostile_SlowClientsAreCutOff: clients that send their headers or body
// a byte at a time hold a connection only until -read-header-timeout or
// -read-timeout, then the server drops them and their goroutines.
func TestHostile_SlowClientsAreCutOff(t *testing.T) {
	s := startInProcess(t, hostileRegistry(t), "-read-header-timeout", "200ms", "-read-timeout", "400ms")
	g0 := runtime.NumGoroutine()
	body := strings.Repeat(" ", 100) // 100 bytes at 50 ms: 5 s if the server waited
	slowBody := func(path string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n"
	}
	cases := []struct{ name, head, rest string }{
		{"slow headers", "GET /healthz HTTP/1.1\r\n", "Host: 127.0.0.1\r\nX-Pad: " + strings.Repeat("a", 90) + "\r\n\r\n"},
		{"slow REST body", slowBody("/tools/echo/invoke"), body},
		{"slow MCP body", slowBody("/mcp"), body},
	}
	var wg sync.WaitGroup
	for _, c := range cases {
		for range 3 {
			wg.Go(func() {
				sent, took := slowConn(t, s.addr, c.head, c.rest, 50*time.Millisecond)
				assert.Less(t, sent, len(c.rest), "%s: the server stopped waiting", c.name)
				assert.Less(t, took, 3*time.Second, "%s: dropped within the timeout's order of magnitude", c.name)
			})
		}
	}
	wg.Wait()
	assert.Equal(t, http.StatusOK, send(t, hostileClient(), "GET", s.base+"/healthz", "").status, "still serving")
	waitFor(t, "connection goroutines gone", func() bool { return runtime.NumGoroutine() <= g0+2 })
}

// heapAndGoroutines returns the live heap after two GCs and the number of
// goroutines.
func heapAndGoroutines() (uint64, int) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, runtime.NumGoroutine()
}

// TestHostile_SessionFloodIsBoundedAndFreed: 2000 initialize requests hold
// at most -max-sessions sessions (and their memory and goroutines), the rest
// get 503; once idle sessions expire, memory and goroutines are back where
// they were.
func TestHostile_SessionFloodIsBoundedAndFreed(t *testing.T) {
	const maxSessions, attempts, workers = 50, 2000, 32
	s := startInProcess(t, hostileRegistry(t), "-max-sessions", fmt.Sprint(maxSessions), "-session-timeout", "300ms")
	client := &http.Client{Timeout: e2eTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	heap0, g0 := heapAndGoroutines()

	var ok, busy, other atomic.Int64
	work := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range work {
				x := send(t, client, "POST", s.base+"/mcp", initBody, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
				switch x.status {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusServiceUnavailable:
					busy.Add(1)
					if x.header.Get("Retry-After") == "" {
						other.Add(1)
					}
				default:
					other.Add(1)
				}
			}
		})
	}
	for range attempts {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	heap1, g1 := heapAndGoroutines()
	open := s.sessions()
	t.Logf("flood: %d sessions, %d refused with 503; heap %.1f → %.1f MB, goroutines %d → %d with %d sessions open",
		ok.Load(), busy.Load(), mb(heap0), mb(heap1), g0, g1, open)
	assert.Zero(t, other.Load(), "every attempt got 200, or 503 with Retry-After")
	assert.Positive(t, busy.Load(), "the cap refused the flood")
	assert.LessOrEqual(t, open, maxSessions)
	// Uncapped, 2000 sessions held about 23 MB (issue 10: 20,000 took
	// 231 MB); the cap holds 50.
	assert.Less(t, int64(heap1)-int64(heap0), int64(8<<20), "heap growth under the flood")
	assert.LessOrEqual(t, g1-g0, maxSessions*6+workers*2, "goroutines under the flood")

	waitFor(t, "idle sessions expired", func() bool { return s.sessions() == 0 })
	client.CloseIdleConnections()
	var heap2 uint64
	var g2 int
	waitFor(t, "memory and goroutines back", func() bool {
		heap2, g2 = heapAndGoroutines()
		return g2 <= g0 && int64(heap2)-int64(heap0) < 2<<20
	})
	t.Logf("after expiry: heap %.1f MB, goroutines %d", mb(heap2), g2)
	x := send(t, client, "POST", s.base+"/mcp", initBody, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	assert.Equal(t, http.StatusOK, x.status, "a new session is served again")
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }

// TestHostile_PanicsAndTimeoutsUnder100ConcurrentCalls: 100 concurrent calls
// over REST and 100 over MCP, mixing a panicking tool, a tool that runs out
// of time and a plain one: each gets its own clear answer, no secret leaks,
// and the server ends with the goroutines it started with.
func TestHostile_PanicsAndTimeoutsUnder100ConcurrentCalls(t *testing.T) {
	s := startInProcess(t, hostileRegistry(t))
	client := &http.Client{Timeout: e2eTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	_, g0 := heapAndGoroutines()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	cs, err := newClient().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1, HTTPClient: client}, nil)
	require.NoError(t, err)

	tools := []string{"explode", "stall", "echo"}
	restWant := map[string]int{"explode": http.StatusInternalServerError, "stall": http.StatusGatewayTimeout, "echo": http.StatusOK}
	var wg sync.WaitGroup
	for i := range 100 {
		name := tools[i%len(tools)]
		args := `{}`
		if name == "echo" {
			args = `{"text":"hi"}`
		}
		wg.Go(func() {
			x := send(t, client, "POST", s.base+"/tools/"+name+"/invoke", args, "Content-Type", "application/json")
			assert.Equal(t, restWant[name], x.status, "REST %s: %s", name, x.body)
			assert.NotContains(t, x.body, hostileSecret)
		})
		wg.Go(func() {
			var a map[string]any
			require.NoError(t, json.Unmarshal([]byte(args), &a))
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: a})
			switch name {
			case "echo":
				require.NoError(t, err)
				assert.False(t, res.IsError)
			case "explode":
				require.NoError(t, err, "a recovered panic is a failed result")
				assert.True(t, res.IsError)
				assert.NotContains(t, textOf(t, res), hostileSecret)
			case "stall":
				require.NoError(t, err, "a tool's timeout is a failed result")
				assert.True(t, res.IsError)
				assert.Contains(t, textOf(t, res), "did not finish within 50ms")
			}
		})
	}
	wg.Wait()
	require.NoError(t, cs.Close())
	client.CloseIdleConnections()
	assert.Equal(t, http.StatusOK, send(t, hostileClient(), "GET", s.base+"/healthz", "").status, "still serving")
	waitFor(t, "goroutines back to the baseline", func() bool {
		_, g := heapAndGoroutines()
		return g <= g0
	})
}

// TestHostile_StreamsAndLongCallsOutliveTheTimeouts: with read and write
// timeouts of 150 ms, an MCP event stream stays open as long as its client
// reads it, and a 700 ms tool call answers over REST and MCP — the write
// deadline is per write (httpguard), net/http clears the read deadline
// once the body is read.
func TestHostile_StreamsAndLongCallsOutliveTheTimeouts(t *testing.T) {
	s := startInProcess(t, hostileRegistry(t), "-read-timeout", "150ms", "-write-timeout", "150ms", "-read-header-timeout", "150ms")
	c := hostileClient()
	init := send(t, c, "POST", s.base+"/mcp", initBody, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	require.Equal(t, http.StatusOK, init.status)
	id := init.header.Get("Mcp-Session-Id")
	send(t, c, "POST", s.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18")

	req, err := http.NewRequest(http.MethodGet, s.base+"/mcp", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := c.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	streamEnded := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		streamEnded <- err
	}()

	x := send(t, c, "POST", s.base+"/tools/linger/invoke", `{}`, "Content-Type", "application/json")
	assert.Equal(t, http.StatusOK, x.status, "a 700 ms REST call: %s", x.body)
	x = send(t, c, "POST", s.base+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"linger","arguments":{}}}`,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18")
	assert.Equal(t, http.StatusOK, x.status)
	assert.Contains(t, x.body, `"text":"done"`, "a 700 ms MCP call")

	select {
	case err := <-streamEnded:
		t.Fatalf("the event stream ended after 1.4 s of 150 ms timeouts: %v", err)
	default:
	}
	req, err = http.NewRequest(http.MethodDelete, s.base+"/mcp", nil)
	require.NoError(t, err)
	req.Header.Set("Mcp-Session-Id", id)
	del, err := c.Do(req)
	require.NoError(t, err)
	del.Body.Close()
	select {
	case err := <-streamEnded:
		assert.True(t, err == nil || errors.Is(err, io.ErrUnexpectedEOF), "the stream ends with its session: %v", err)
	case <-time.After(e2eTimeout):
		t.Fatal("the event stream outlived its session")
	}
	resp.Body.Close()
}

// TestHostile_AuthRequiredWithToken runs the binary with TOOLPACK_AUTH_TOKEN:
// /mcp and the REST API refuse requests without the token (401 with a
// challenge), /healthz answers probes, a client with the token works and
// the token never reaches the logs.
func TestHostile_AuthRequiredWithToken(t *testing.T) {
	const token = "e2e-token-0123456789abcdef0123"
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	s := startHTTP(t, ctx, append(serverEnv(startBackend(t)), envAuthToken+"=ci:"+token), "-log-level", "debug")
	c := hostileClient()
	for _, r := range routes {
		x := send(t, c, r.method, s.base+r.path, r.body, r.hdr...)
		if r.path == "/healthz" {
			assert.Equal(t, http.StatusOK, x.status)
			continue
		}
		assert.Equal(t, http.StatusUnauthorized, x.status, "%s %s", r.method, r.path)
		assert.Equal(t, `Bearer realm="toolpack"`, x.header.Get("WWW-Authenticate"))
		x = send(t, c, r.method, s.base+r.path, r.body, append([]string{"Authorization", "Bearer not-the-token-0123456789"}, r.hdr...)...)
		assert.Equal(t, http.StatusUnauthorized, x.status, "%s %s", r.method, r.path)
	}
	x := send(t, c, "POST", s.base+"/tools/echo/invoke", `{"text":"hi"}`, "Content-Type", "application/json", "Authorization", "Bearer "+token)
	assert.Equal(t, http.StatusOK, x.status, x.body)

	cs, err := newClient().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer(token)}}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	require.NoError(t, err)
	assert.Equal(t, "hi", textOf(t, res))
	require.NoError(t, cs.Close())
	assert.Contains(t, s.stderr.String(), "bearer authentication required")
	assert.NotContains(t, s.stderr.String(), token)
}

// bearer is a RoundTripper adding a bearer token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestHostile_MCPParamsErrorsNameNoGoType: over the real /mcp, params of
// the wrong shape get a plain -32602.
func TestHostile_MCPParamsErrorsNameNoGoType(t *testing.T) {
	s := startInProcess(t, hostileRegistry(t))
	c := hostileClient()
	init := send(t, c, "POST", s.base+"/mcp", initBody, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	id := init.header.Get("Mcp-Session-Id")
	for _, params := range []string{`"x"`, `{"name":5}`, `{"name":"echo","_meta":5}`} {
		x := send(t, c, "POST", s.base+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":`+params+`}`,
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18")
		assert.Contains(t, x.body, `"code":-32602`, params)
		assert.Contains(t, x.body, `invalid params for \"tools/call\"`)
		for _, goish := range []string{"mcp.", "interface {}", "Go value"} {
			assert.NotContains(t, x.body, goish)
		}
	}
}

// Arguments that are not UTF-8 reach no tool, over MCP or REST: the echo
// tool called with {"text":"a\xffb"} answered "a\uFFFDb" (encoding/json's
// silent repair); now each protocol answers its validation failure — a
// tool error result over MCP, 400 validation_error over REST — naming
// the field, and never quoting the bytes.
func TestHostile_InvalidUTF8ArgumentsRefusedOverMCPAndREST(t *testing.T) {
	s := startInProcess(t, hostileRegistry(t))
	c := hostileClient()
	init := send(t, c, "POST", s.base+"/mcp", initBody, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	id := init.header.Get("Mcp-Session-Id")
	x := send(t, c, "POST", s.base+"/mcp", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a\xffb\"}}}",
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18")
	assert.Contains(t, x.body, `"isError":true`, x.body)
	assert.Contains(t, x.body, "text: the string holds bytes that are not valid UTF-8", x.body)
	assert.NotContains(t, x.body, "a\uFFFDb")
	assert.NotContains(t, x.body, `a\ufffdb`)

	r := send(t, c, "POST", s.base+"/tools/echo/invoke", "{\"text\":\"a\xffb\"}", "Content-Type", "application/json")
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body, `"error_type":"validation_error"`)
	assert.Contains(t, r.body, `"rule":"invalid_utf8"`)
	assert.Contains(t, r.body, `"field":"text"`)
}
