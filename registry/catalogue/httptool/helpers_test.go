package httptool_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// seen is what a test server received.
type seen struct {
	Method     string
	RequestURI string
	Path       string // decoded
	RawPath    string // escaped
	Query      map[string][]string
	Header     http.Header
	Body       []byte
}

// recorder is an httptest server on 127.0.0.1 that records every request
// and answers with reply.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	calls []seen
	reply func(w http.ResponseWriter, r *http.Request)
}

func newRecorder(t *testing.T, reply func(w http.ResponseWriter, r *http.Request)) *recorder {
	t.Helper()
	rec := &recorder{reply: reply}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.calls = append(rec.calls, seen{Method: r.Method, RequestURI: r.RequestURI, Path: r.URL.Path,
			RawPath: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: body})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if rec.reply == nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":true}`)
			return
		}
		rec.reply(w, r)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

func (r *recorder) last(t *testing.T) seen {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.calls, "the server was not called")
	return r.calls[len(r.calls)-1]
}

func newInvoker(t testing.TB, opts httptool.Options) *httptool.Invoker {
	t.Helper()
	opts.AllowAddrs = loopback
	inv, err := httptool.New(opts)
	require.NoError(t, err)
	t.Cleanup(inv.Close)
	return inv
}

// httpTool returns a stored-looking http tool around req.
func httpTool(t testing.TB, req catalogue.HTTPRequest) catalogue.Tool {
	t.Helper()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	return catalogue.Tool{
		ID: id, Slug: "t", Version: "1",
		ToolSpec: catalogue.ToolSpec{
			DisplayName: "t", IsEnabled: true, Type: catalogue.TypeHTTP,
			ArgSchema: json.RawMessage(`{"type":"object"}`),
			HTTPImpl:  &catalogue.HTTPImpl{Request: req},
		},
	}
}

// logBuffer collects slog output for assertions.
type logBuffer struct{ testlog.Buffer }

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
