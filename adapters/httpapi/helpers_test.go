package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// The 5-field search tool of the tests and the benchmark (shared with the
// MCP adapter's benchmark, so both measure the same work).
type (
	SearchArgs = benchtool.SearchArgs
	SearchOut  = benchtool.SearchOut
)

var search = benchtool.Search

// EchoArgs are the echo tool's arguments.
type EchoArgs struct {
	Text string `json:"text" validate:"max=1000" description:"Text to echo."`
}

// FailArgs make the fail tool return a domain failure of a chosen type.
type FailArgs struct {
	Type string `json:"type" validate:"required,max=64" description:"The error type to fail with."`
}

// NoArgs is an argument struct without fields.
type NoArgs struct{}

// secret appears only inside a protocol error; it must never reach a client.
const secret = "hunter2-db-password"

const goodSearch = `{"query":"golang http","limit":10,"mode":"fast","threshold":0.5,"tags":["go","api"]}`

// newRegistry builds the test registry: search and echo in pack "text",
// fail, boom (protocol failure), slow (times out) and ping (no arguments).
func newRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	return newRegistryLog(t, discardLogger())
}

// newRegistryLog is newRegistry logging to log.
func newRegistryLog(t testing.TB, log *slog.Logger) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: log})
	searchTool, err := registry.Func("search", func(_ context.Context, a SearchArgs) (result.Result[SearchOut], error) {
		return result.Ok(search(a)), nil
	}, registry.ToolOptions{Title: "Search the index", Doc: "Searches the test index.",
		Annotations: registry.Annotations{ReadOnly: new(true), OpenWorld: new(false)}})
	require.NoError(t, err)
	echo, err := registry.Func("echo", func(_ context.Context, a EchoArgs) (result.Result[string], error) {
		return result.Ok(a.Text).WithMessage("echoed"), nil
	}, registry.ToolOptions{Title: "Echo", Doc: "Returns the text unchanged."})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(&registry.Pack{Name: "text", Description: "Text tools.", Tools: []*registry.Tool{searchTool, echo}}))

	fail, err := registry.Func("fail", func(_ context.Context, a FailArgs) (result.Result[string], error) {
		return result.Failure[string]("failed as asked: "+a.Type, result.ErrorType(a.Type)).
			WithErrorData(map[string]string{"asked": a.Type}).WithInstruction("Do not retry."), nil
	}, registry.ToolOptions{Title: "Fail", Doc: "Fails with the given error type."})
	require.NoError(t, err)
	boom, err := registry.Func("boom", func(_ context.Context, _ NoArgs) (result.Result[string], error) {
		return result.Result[string]{}, errors.New("connect to db with password=" + secret + ": refused")
	}, registry.ToolOptions{Doc: "Always a protocol failure."})
	require.NoError(t, err)
	slow, err := registry.Func("slow", func(ctx context.Context, _ NoArgs) (result.Result[string], error) {
		<-ctx.Done()
		return result.Result[string]{}, ctx.Err()
	}, registry.ToolOptions{Doc: "Waits until the call times out.", Timeout: 20 * time.Millisecond})
	require.NoError(t, err)
	ping, err := registry.Func("ping", func(_ context.Context, _ NoArgs) (result.Result[string], error) {
		return result.Ok("pong"), nil
	}, registry.ToolOptions{Doc: "Answers pong."})
	require.NoError(t, err)
	require.NoError(t, reg.Add(fail, boom, slow, ping))
	return reg
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// logBuffer is a goroutine-safe log sink.
type logBuffer struct{ testlog.Buffer }

// newServer serves a handler for the test registry on 127.0.0.1.
func newServer(t testing.TB, opts httpapi.Options) (*httptest.Server, *registry.Registry) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	reg := newRegistryLog(t, opts.Logger) // one logger, as a host has
	srv := httptest.NewServer(httpapi.New(reg, opts))
	t.Cleanup(srv.Close)
	return srv, reg
}

// client is bounded in time: no test waits more than 10 s on the network.
var client = &http.Client{Timeout: 10 * time.Second}

type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// do sends one request; a non-empty contentType sets Content-Type.
func do(t testing.TB, method, url, contentType string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	require.NoError(t, err)
	out := response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if method != http.MethodHead {
		require.Equal(t, "application/json", resp.Header.Get("Content-Type"), "body: %s", b)
		require.NoError(t, json.Unmarshal(b, &out.JSON), "body is not JSON: %s", b)
	}
	return out
}

func invoke(t testing.TB, base, name, body string) response {
	t.Helper()
	return do(t, http.MethodPost, base+"/tools/"+name+"/invoke", "application/json", strings.NewReader(body))
}

// requireServing proves the server still works after hostile input.
func requireServing(t testing.TB, base string) {
	t.Helper()
	r := invoke(t, base, "search", goodSearch)
	require.Equal(t, http.StatusOK, r.Status, "follow-up request: %s", r.Body)
	require.Equal(t, true, r.JSON["ok"])
}

// requireError checks the error envelope of a response.
func requireError(t testing.TB, r response, status int, errType string) {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	require.Equal(t, false, r.JSON["ok"], "body: %s", r.Body)
	require.Equal(t, errType, r.JSON["error_type"], "body: %s", r.Body)
	msg, _ := r.JSON["error"].(string)
	require.NotEmpty(t, msg, "error message: %s", r.Body)
}
