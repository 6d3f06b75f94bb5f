package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpguard"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// rpcAnswer is one raw HTTP exchange with the streamable handler.
type rpcAnswer struct {
	status  int
	header  http.Header
	message map[string]any // the JSON-RPC response, from JSON or SSE
}

func (a rpcAnswer) errorCode() float64 {
	e, _ := a.message["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func (a rpcAnswer) errorMessage() string {
	e, _ := a.message["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// postRPC posts one raw JSON-RPC body, with a session id when given, and
// decodes the answer whether it is JSON or an event stream.
func postRPC(t testing.TB, url, session, body string, hdr ...string) rpcAnswer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	a := rpcAnswer{status: resp.StatusCode, header: resp.Header}
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	payload := raw
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				payload = []byte(d)
				break
			}
		}
	}
	if len(payload) > 0 && payload[0] == '{' {
		require.NoError(t, json.Unmarshal(payload, &a.message), "%s", raw)
	}
	return a
}

// initSession starts a session with a raw initialize + initialized and
// returns its id.
func initSession(t testing.TB, url string, hdr ...string) string {
	t.Helper()
	a := postRPC(t, url, "", initializeBody, hdr...)
	require.Equal(t, http.StatusOK, a.status, "%v", a.message)
	id := a.header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	postRPC(t, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...)
	return id
}

func deleteSession(t testing.TB, url, id string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	require.NoError(t, err)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func countSessions(srv *sdk.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// eventually polls cond until it holds or the test timeout passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, testTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestHTTPHandler_SessionCap(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	logs := &syncBuffer{}
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{MaxSessions: 3, Logger: slogTo(logs)}))
	defer hs.Close()

	ids := []string{initSession(t, hs.URL), initSession(t, hs.URL), initSession(t, hs.URL)}
	a := postRPC(t, hs.URL, "", strings.Replace(initializeBody, `"id":1`, `"id":"over"`, 1))
	assert.Equal(t, http.StatusServiceUnavailable, a.status)
	assert.Equal(t, "5", a.header.Get("Retry-After"))
	assert.Empty(t, a.header.Get("Mcp-Session-Id"), "no session is created over the cap")
	assert.Equal(t, float64(mcpserver.CodeTooManySessions), a.errorCode())
	assert.Equal(t, "over", a.message["id"], "the answer carries the request's id")
	assert.Contains(t, a.errorMessage(), "maximum of 3")
	assert.Equal(t, 3, countSessions(srv))
	assert.Equal(t, 1, strings.Count(logs.String(), "session cap reached"), "one WARN per saturation")

	t.Run("existing sessions keep working at the cap", func(t *testing.T) {
		a := postRPC(t, hs.URL, ids[0], `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Al","times":1}}}`)
		assert.Equal(t, http.StatusOK, a.status)
		assert.Nil(t, a.message["error"])
	})
	t.Run("a DELETE frees a place at once", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, deleteSession(t, hs.URL, ids[1]))
		initSession(t, hs.URL)
		assert.Equal(t, http.StatusServiceUnavailable, postRPC(t, hs.URL, "", initializeBody).status)
	})
}

func TestHTTPHandler_IdleSessionsExpire(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	// The timeout must outlast the three requests below on a loaded
	// machine (at 150 ms the first session expired before the third
	// request, which then found a place: a flake under load).
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{MaxSessions: 2, SessionTimeout: 1500 * time.Millisecond, Logger: discardLogger()}))
	defer hs.Close()

	old := initSession(t, hs.URL)
	initSession(t, hs.URL)
	require.Equal(t, http.StatusServiceUnavailable, postRPC(t, hs.URL, "", initializeBody).status)
	eventually(t, "idle sessions closed", func() bool { return countSessions(srv) == 0 })
	assert.Equal(t, http.StatusNotFound, postRPC(t, hs.URL, old, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`).status,
		"an expired session is gone; the client must start a new one")
	eventually(t, "places freed", func() bool { return postRPC(t, hs.URL, "", initializeBody).status == http.StatusOK })
}

// TestHTTPHandler_SessionFloodIsBounded: a flood of initialize requests
// creates no more sessions (nor session goroutines) than the cap, and every
// one is gone once they expire.
func TestHTTPHandler_SessionFloodIsBounded(t *testing.T) {
	const maxSessions, attempts = 20, 400
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{MaxSessions: maxSessions, SessionTimeout: 300 * time.Millisecond, Logger: discardLogger()}))
	defer hs.Close()
	base := runtime.NumGoroutine()

	var ok, busy atomic.Int64
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 16 {
		wg.Go(func() {
			for range work {
				switch postRPC(t, hs.URL, "", initializeBody).status {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusServiceUnavailable:
					busy.Add(1)
				}
			}
		})
	}
	for range attempts {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	assert.Equal(t, int64(attempts), ok.Load()+busy.Load(), "every attempt got 200 or 503")
	assert.LessOrEqual(t, countSessions(srv), maxSessions)
	assert.GreaterOrEqual(t, ok.Load(), int64(maxSessions), "the cap's worth of sessions were served")
	eventually(t, "flood sessions expired", func() bool { return countSessions(srv) == 0 })
	http.DefaultClient.CloseIdleConnections()
	eventually(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= base+5 })
}

func TestHTTPHandler_BodyCap(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{MaxBodyBytes: 1024, Logger: discardLogger()}))
	defer hs.Close()
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	a := postRPC(t, hs.URL, "", big)
	assert.Equal(t, http.StatusRequestEntityTooLarge, a.status)
	assert.Contains(t, a.errorMessage(), "over the limit of 1024 bytes")
	assert.Equal(t, 0, countSessions(srv))
}

// badParams are requests whose params the SDK cannot decode, with what the
// answer must say.
var badParams = []struct{ name, body, want string }{
	{"params not an object", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}`,
		`invalid params for "tools/call": expected a JSON object, got a string`},
	{"params an array", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}`,
		`invalid params for "tools/call": expected a JSON object, got an array`},
	{"name a number", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}`,
		`invalid params for "tools/call": field "name" must be a string, got a number`},
	{"_meta a number", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","_meta":5}}`,
		`invalid params for "tools/call": field "_meta" must be a JSON object, got a number`},
	{"cursor a number", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":5}}`,
		`invalid params for "tools/list": field "cursor" must be a string, got a number`},
	{"params absent", `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`,
		`invalid params for "tools/call": field "params" is required (a JSON object), got none`},
	{"params null", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":null}`,
		`invalid params for "tools/call": field "params" is required (a JSON object), got null`},
	{"unknown logging level", `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"bogus"}}`,
		`invalid params for "logging/setLevel": field "level" must be one of debug, info, notice, warning, error, critical, alert, emergency, got "bogus"`},
}

// assertPlainParamsError checks a JSON-RPC error names no Go type.
func assertPlainParamsError(t *testing.T, code float64, msg, want string) {
	t.Helper()
	assert.Equal(t, float64(-32602), code)
	assert.Equal(t, want, msg)
	for _, goish := range []string{"mcp.", "interface {}", "Go value", "Go struct", "unmarshal"} {
		assert.NotContains(t, msg, goish)
	}
}

func TestHTTPHandler_ParamsErrorsArePlainJSONRPC(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: discardLogger()}))
	defer hs.Close()
	id := initSession(t, hs.URL)
	for _, c := range badParams {
		t.Run(c.name, func(t *testing.T) {
			a := postRPC(t, hs.URL, id, c.body)
			assert.Equal(t, http.StatusOK, a.status)
			assert.Equal(t, float64(7), a.message["id"])
			assertPlainParamsError(t, a.errorCode(), a.errorMessage(), c.want)
		})
	}
	t.Run("initialize with bad params creates no session", func(t *testing.T) {
		before := countSessions(srv)
		a := postRPC(t, hs.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2}}`)
		assertPlainParamsError(t, a.errorCode(), a.errorMessage(), `invalid params for "initialize": field "protocolVersion" must be a string, got a number`)
		assert.Empty(t, a.header.Get("Mcp-Session-Id"))
		assert.Equal(t, before, countSessions(srv))
	})
	t.Run("good params still reach the tool", func(t *testing.T) {
		a := postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Al","times":1}}}`)
		require.Nil(t, a.message["error"])
		assert.Contains(t, fmt.Sprint(a.message["result"]), "Hello, Al!")
	})
}

func TestCheckParams_StdioParamsErrorsArePlainJSONRPC(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(ctx, mcpserver.CheckParams(&mcpstdio.IOTransport{Reader: inR, Writer: outW, Logger: discardLogger()}))
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	send := func(msg string) {
		_, err := io.WriteString(inW, msg+"\n")
		require.NoError(t, err)
	}
	recv := func() map[string]any {
		require.True(t, lines.Scan(), "an answer")
		var m map[string]any
		require.NoError(t, json.Unmarshal(lines.Bytes(), &m))
		return m
	}
	send(initializeBody)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range badParams {
		t.Run(c.name, func(t *testing.T) {
			send(c.body)
			m := recv()
			assert.Equal(t, float64(7), m["id"])
			e, _ := m["error"].(map[string]any)
			code, _ := e["code"].(float64)
			msg, _ := e["message"].(string)
			assertPlainParamsError(t, code, msg, c.want)
		})
	}
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Al","times":1}}}`)
	m := recv()
	assert.Equal(t, float64(9), m["id"])
	assert.Contains(t, fmt.Sprint(m["result"]), "Hello, Al!")
	require.NoError(t, inW.Close())
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the server did not end at the end of input")
	}
}

// WhoArgs are the arguments of the whoami tool.
type WhoArgs struct{}

// whoami answers the caller's identity as a registry tool reads it.
func whoami(ctx context.Context, _ WhoArgs) (result.Result[string], error) {
	if ti := httpguard.TokenInfoFromContext(ctx); ti != nil {
		return result.Ok(ti.UserID), nil
	}
	return result.Ok("anonymous"), nil
}

// bearerClient is an HTTP client that sends a bearer token.
type bearerClient struct{ token string }

func (b bearerClient) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPHandler_AuthHookAndCallerIdentity(t *testing.T) {
	const alice, bob = "alice-token-0123456789abcdef", "bob-token-0123456789abcdef00"
	tokens, err := httpguard.ParseTokens("alice:"+alice+"\nbob:"+bob, "test")
	require.NoError(t, err)
	reg := newTestRegistry(t, mustFunc(t, "whoami", whoami, registry.ToolOptions{Doc: "Says who called."}))
	var extraUser atomic.Value
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: discardLogger()})
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if ex := req.GetExtra(); method == "tools/call" && ex != nil && ex.TokenInfo != nil {
				extraUser.Store(ex.TokenInfo.UserID)
			}
			return next(ctx, method, req)
		}
	})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{
		Auth:   httpguard.RequireBearer(tokens.Verify, httpguard.BearerOptions{AllowMissingExpiration: true, Logger: discardLogger()}),
		Logger: discardLogger(),
	}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	t.Run("no token: 401 with a challenge, no session", func(t *testing.T) {
		a := postRPC(t, hs.URL, "", initializeBody)
		assert.Equal(t, http.StatusUnauthorized, a.status)
		assert.Equal(t, `Bearer realm="toolpack"`, a.header.Get("WWW-Authenticate"))
		assert.Equal(t, 0, countSessions(srv))
	})
	t.Run("the tool call's request and the registry tool see the caller", func(t *testing.T) {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil).Connect(ctx, &sdk.StreamableClientTransport{
			Endpoint: hs.URL, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearerClient{alice}},
		}, nil)
		require.NoError(t, err)
		defer cs.Close()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		require.NoError(t, err)
		assert.Equal(t, "alice", text(t, res))
		assert.Equal(t, "alice", extraUser.Load(), "CallToolRequest.Extra.TokenInfo")
	})
	t.Run("another token cannot use the session", func(t *testing.T) {
		id := initSession(t, hs.URL, "Authorization", "Bearer "+alice)
		a := postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Authorization", "Bearer "+bob)
		assert.Equal(t, http.StatusForbidden, a.status, "the SDK binds the session to its UserID")
		a = postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Authorization", "Bearer "+alice)
		assert.Equal(t, http.StatusOK, a.status)
	})
}

func TestTokenInfoMiddleware_OnAHostsOwnServer(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	require.NoError(t, reg.Add(mustFunc(t, "whoami", whoami, registry.ToolOptions{Doc: "Says who called."})))
	srv := sdk.NewServer(&sdk.Implementation{Name: "own"}, nil)
	srv.AddReceivingMiddleware(mcpserver.TokenInfoMiddleware)
	mcpserver.Register(srv, reg, mcpserver.Options{Logger: discardLogger()})
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: "erin", Expiration: time.Now().Add(time.Hour)}, nil
	}
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Auth: auth.RequireBearerToken(verify, nil), Logger: discardLogger()}))
	defer hs.Close()
	id := initSession(t, hs.URL, "Authorization", "Bearer anything")
	a := postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, "Authorization", "Bearer anything")
	assert.Contains(t, fmt.Sprint(a.message["result"]), "erin")
}

func TestNewServer_SessionLifecycleLogsAtDebug(t *testing.T) {
	for _, level := range []string{"info", "debug"} {
		t.Run(level, func(t *testing.T) {
			logs := &syncBuffer{}
			log := slogTo(logs)
			if level == "info" {
				log = slogAt(logs, "INFO")
			}
			srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: log})
			hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: log}))
			defer hs.Close()
			id := initSession(t, hs.URL)
			assert.Equal(t, http.StatusNoContent, deleteSession(t, hs.URL, id))
			out := logs.String()
			assert.NotContains(t, out, "level=INFO", "no INFO line per session")
			if level == "debug" {
				assert.Contains(t, out, `level=DEBUG msg="server session connected"`)
			}
		})
	}
}

// A client that cannot take a notification (a streamable HTTP session
// with no stream open, as most clients call) is not warned about on every
// registry change: the SDK's warning is logged at DEBUG.
func TestNewServer_UndeliverableNotificationsLogAtDebug(t *testing.T) {
	logs := &syncBuffer{}
	log := slogTo(logs)
	reg := newTestRegistry(t)
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: log})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: log}))
	defer hs.Close()
	initSession(t, hs.URL) // no GET stream: a notification has nowhere to go
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "later", Description: "Added later.",
		Tools: []*registry.Tool{mustFunc(t, "later", greet, registry.ToolOptions{Doc: "Greets, later."})}}))
	require.Eventually(t, func() bool {
		return strings.Contains(logs.String(), `level=DEBUG msg="calling notifications/tools/list_changed`)
	}, 10*time.Second, 10*time.Millisecond, "the SDK tried to notify the session: %s", logs.String())
	assert.NotContains(t, logs.String(), "level=WARN")
}

func TestHTTPHandler_StreamableOptionsPassThrough(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: discardLogger(),
		Streamable: &sdk.StreamableHTTPOptions{JSONResponse: true, SessionTimeout: time.Nanosecond}}))
	defer hs.Close()
	a := postRPC(t, hs.URL, "", initializeBody)
	assert.Equal(t, http.StatusOK, a.status)
	assert.True(t, strings.HasPrefix(a.header.Get("Content-Type"), "application/json"), a.header.Get("Content-Type"))
	id := a.header.Get("Mcp-Session-Id")
	postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, http.StatusOK, postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).status,
		"HTTPOptions.SessionTimeout (default 30 min) replaces the SDK option's")
}

// slogAt is a text logger at the named level ("INFO", …) writing to w.
func slogAt(w *syncBuffer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		panic(err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
