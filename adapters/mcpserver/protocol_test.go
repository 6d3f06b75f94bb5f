package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
)

// postRaw posts body with the given headers and returns the status, the
// Content-Type and the body of the answer.
func postRaw(t *testing.T, url, body string, hdr ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// initVersion starts a session on protocol version v with a raw
// initialize + initialized and returns the headers its requests carry.
func initVersion(t *testing.T, url, v string) []string {
	t.Helper()
	a := postRPC(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	require.Equal(t, http.StatusOK, a.status, "%v", a.message)
	hdr := []string{"Mcp-Session-Id", a.header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version", v}
	postRaw(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...)
	return hdr
}

// rpcError is one JSON-RPC error response.
type rpcError struct {
	ID    any `json:"id"`
	Error struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// A JSON-RPC batch (which the SDK takes from 2024-11-05 and 2025-03-26
// sessions) gets the same params check as a single request: a batch with
// a request whose params do not fit is refused whole, as a batch answer
// (an array, a response per request): the bad request its -32602 naming
// the field in JSON terms, the others -32600 "not run", quoting nothing. The SDK's own answer named Go types and quoted the whole
// params, arguments and secrets in them included; nothing of the
// arguments reaches the answer or the log now.
func TestHTTPHandler_BatchRequestsGetTheParamsCheck(t *testing.T) {
	logs := &syncBuffer{}
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: slogTo(logs)})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: slogTo(logs)}))
	defer hs.Close()
	for _, v := range []string{"2024-11-05", "2025-03-26"} {
		t.Run(v, func(t *testing.T) {
			hdr := initVersion(t, hs.URL, v)

			status, ctype, body := postRaw(t, hs.URL, `[{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"greet","arguments":{"name":"sk-SECRET"},"_meta":7}}]`, hdr...)
			assert.Equal(t, http.StatusOK, status)
			assert.Equal(t, "application/json", ctype)
			assert.NotContains(t, body, "sk-SECRET")
			var one []rpcError
			require.NoError(t, json.Unmarshal([]byte(body), &one), body)
			require.Len(t, one, 1)
			assert.Equal(t, float64(12), one[0].ID)
			assert.Equal(t, int64(-32602), one[0].Error.Code)
			assert.Equal(t, `invalid params for "tools/call": field "_meta" must be a JSON object, got a number`, one[0].Error.Message)

			_, _, body = postRaw(t, hs.URL, `[{"jsonrpc":"2.0","id":13,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},`+
				`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":7,"arguments":{"name":"sk-SECRET"}}}]`, hdr...)
			var two []rpcError
			require.NoError(t, json.Unmarshal([]byte(body), &two), body)
			require.Len(t, two, 2, "one response per request, none for the notification")
			assert.Equal(t, float64(13), two[0].ID)
			assert.Equal(t, int64(-32600), two[0].Error.Code)
			assert.Equal(t, `not run: another request of this batch has invalid params, so none was run; send the batch again with it corrected`, two[0].Error.Message)
			assert.Equal(t, "x", two[1].ID)
			assert.Equal(t, `invalid params for "tools/call": field "name" must be a string, got a number`, two[1].Error.Message)

			status, _, body = postRaw(t, hs.URL, `[{"jsonrpc":"2.0","id":14,"method":"ping"},{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Al","times":1}}}]`, hdr...)
			assert.Equal(t, http.StatusOK, status)
			assert.Contains(t, body, "Hello, Al!", "a batch that passes runs")
		})
	}
	assert.NotContains(t, logs.String(), "sk-SECRET")

	t.Run("2025-06-18 batches stay the SDK's to refuse", func(t *testing.T) {
		hdr := initVersion(t, hs.URL, "2025-06-18")
		status, _, body := postRaw(t, hs.URL, `[{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":7}}]`, hdr...)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, body, "batching is not supported")
	})
}

// Error answers the handler writes itself for a request whose id it does
// not know — a body over the cap, a notification refused at the session
// cap — carry "id": null, as JSON-RPC 2.0 requires; the member was
// missing.
func TestHTTPHandler_RefusalsWithoutAnIDCarryIDNull(t *testing.T) {
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{MaxBodyBytes: 1024, MaxSessions: 1, Logger: discardLogger()}))
	defer hs.Close()
	requireIDNull := func(status int, body string, wantStatus int) {
		t.Helper()
		assert.Equal(t, wantStatus, status)
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(body), &m), body)
		require.Contains(t, m, "id", body)
		assert.Equal(t, "null", string(m["id"]))
		assert.Contains(t, m, "error")
	}
	status, _, body := postRaw(t, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 2048)+`"}}`)
	requireIDNull(status, body, http.StatusRequestEntityTooLarge)

	initSession(t, hs.URL) // the one session the cap allows
	status, _, body = postRaw(t, hs.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	requireIDNull(status, body, http.StatusServiceUnavailable)
	status, _, body = postRaw(t, hs.URL, `{"jsonrpc":"2.0","id":"k","method":"ping"}`)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Contains(t, body, `"id":"k"`, "a known id is kept")
}

// logging/setLevel with a level MCP does not define is refused with
// -32602 naming the field and the valid levels, on any transport of a
// server NewServer builds (here in memory, without CheckParams); the SDK
// answered {} and stored the level.
func TestSetLevelUnknownLevelIsRefused(t *testing.T) {
	s := connect(t, mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()}))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	err := s.cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "bogus"})
	var jerr *jsonrpc.Error
	require.ErrorAs(t, err, &jerr)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), jerr.Code)
	assert.Contains(t, jerr.Message, `field "level" must be one of debug, info, notice, warning, error, critical, alert, emergency`)
	require.NoError(t, s.cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "warning"}))
}

// A client's mistakes — requests without a session (before initialize),
// a second initialize, a second initialized — are answered to the client
// and logged at DEBUG, not as one ERROR line per request: a misbehaving
// client no longer floods the operator's log with nothing to fix.
func TestHTTPHandler_ClientMistakesLogAtDebug(t *testing.T) {
	for _, level := range []string{"INFO", "DEBUG"} {
		t.Run(level, func(t *testing.T) {
			logs := &syncBuffer{}
			log := slogAt(logs, level)
			srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: log})
			hs := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: log}))
			defer hs.Close()
			for range 5 {
				a := postRPC(t, hs.URL, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
				assert.Contains(t, a.errorMessage(), "invalid during session initialization", "the client is told")
			}
			id := initSession(t, hs.URL)
			a := postRPC(t, hs.URL, id, initializeBody)
			assert.NotNil(t, a.message["error"], "a second initialize is refused")
			postRPC(t, hs.URL, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

			out := logs.String()
			assert.NotContains(t, out, "level=ERROR")
			assert.NotContains(t, out, "level=WARN")
			if level == "DEBUG" {
				assert.Equal(t, 5, strings.Count(out, `level=DEBUG msg="method invalid during initialization" method=tools/list`), out)
				assert.Contains(t, out, `level=DEBUG msg="duplicate initialize request"`)
				assert.Contains(t, out, `level=DEBUG msg="duplicate initialized notification"`)
			}
		})
	}
}
