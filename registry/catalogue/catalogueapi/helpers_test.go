package catalogueapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/result"
)

// testInvoker answers by the tool's goImpl function name: "echo" returns
// the args, "fail" a domain failure, "boom" a protocol error.
type testInvoker struct {
	mu    sync.Mutex
	calls []json.RawMessage
}

func (ti *testInvoker) Invoke(_ context.Context, t catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	ti.mu.Lock()
	ti.calls = append(ti.calls, append(json.RawMessage(nil), args...))
	ti.mu.Unlock()
	fn := ""
	if t.GoImpl != nil {
		fn = t.GoImpl.Func
	}
	switch fn {
	case "fail":
		return result.Failure[any]("no such city", result.NotFound), nil
	case "boom":
		return result.Result[any]{}, errors.New("backend exploded")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return result.Result[any]{}, err
	}
	return result.Ok(v), nil
}

func (ti *testInvoker) count() int {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	return len(ti.calls)
}

// env is a running API over a file store in a temporary directory.
type env struct {
	t     *testing.T
	url   string
	dir   string
	store *catalogue.FileStore
	h     *catalogueapi.Handler
	inv   *testInvoker
	logs  *syncBuffer
}

// syncBuffer collects log output from concurrent writers.
type syncBuffer struct{ testlog.Buffer }

func newEnv(t *testing.T, opts catalogueapi.Options) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := catalogue.OpenFileStore(context.Background(), dir, catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	opts.Store = st
	inv := &testInvoker{}
	logs := &syncBuffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	if opts.Invoker == nil {
		opts.Invoker = inv
	}
	h, err := catalogueapi.New(opts)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/tools/", http.StripPrefix("/tools", h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &env{t: t, url: srv.URL + "/tools", dir: dir, store: st, h: h, inv: inv, logs: logs}
}

// resp is a decoded answer.
type resp struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// fields returns the field names of an error answer.
func (r resp) fields() []string {
	var out []string
	list, _ := r.body["fields"].([]any)
	for _, f := range list {
		out = append(out, f.(map[string]any)["field"].(string))
	}
	return out
}

func (r resp) errType() string { s, _ := r.body["errorType"].(string); return s }

// do sends a request; body, when not empty, is sent as application/json.
func (e *env) do(method, path, body string) resp {
	e.t.Helper()
	return e.doCT(method, path, body, "application/json")
}

func (e *env) doCT(method, path, body, ct string) resp {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.url+path, rd)
	require.NoError(e.t, err)
	if body != "" && ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	out := resp{status: res.StatusCode, header: res.Header, raw: raw}
	if len(bytes.TrimSpace(raw)) > 0 {
		require.NoError(e.t, json.Unmarshal(raw, &out.body), "body: %s", raw)
	}
	return out
}

func newID(t testing.TB) uuid.UUID {
	id, err := catalogue.NewID()
	require.NoError(t, err)
	return id
}

func bundleBody(slug string, enabled bool) string {
	b, _ := json.Marshal(map[string]any{"slug": slug, "displayName": "Bundle " + slug, "isEnabled": enabled, "description": "test"})
	return string(b)
}

// toolBody is a go tool calling fn, with a required string argument q.
func toolBody(display, fn string, enabled bool, tags ...string) string {
	m := map[string]any{"displayName": display, "description": "a test tool", "isEnabled": enabled, "type": "go",
		"argSchema": json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["q"],"additionalProperties":false}`),
		"goImpl":    map[string]string{"func": fn}}
	if len(tags) > 0 {
		m["tags"] = tags
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// bundle creates an enabled bundle through the API.
func (e *env) bundle(slug string) uuid.UUID {
	e.t.Helper()
	id := newID(e.t)
	r := e.do("PUT", "/bundles/"+id.String(), bundleBody(slug, true))
	require.Equal(e.t, http.StatusCreated, r.status, "%s", r.raw)
	return id
}

func toolPath(id uuid.UUID, slug, version string) string {
	return "/bundles/" + id.String() + "/tools/" + slug + "/version/" + version
}

// tool creates a tool through the API.
func (e *env) tool(id uuid.UUID, slug, version, body string) {
	e.t.Helper()
	r := e.do("PUT", toolPath(id, slug, version), body)
	require.Equal(e.t, http.StatusCreated, r.status, "%s", r.raw)
}

// markBuiltIn rewrites a stored record's builtIn flag, as a host that
// compiles bundles in would store them.
func markBuiltIn(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	m["builtIn"] = true
	data, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o600))
}

func (e *env) bundleFile(id uuid.UUID) string {
	return filepath.Join(e.dir, "bundles", id.String(), "bundle.json")
}

func (e *env) toolFiles(id uuid.UUID) []string {
	m, err := filepath.Glob(filepath.Join(e.dir, "bundles", id.String(), "tools", "*.json"))
	require.NoError(e.t, err)
	return m
}

// listAll follows nextPageToken to the end of a listing and returns the
// "slug@version" of every tool (or the id of every bundle).
func (e *env) listAll(path, items string, pageSize int, between func()) []string {
	e.t.Helper()
	var out []string
	tok := ""
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	for range 10000 {
		p := path + sep + "pageSize=" + itoa(pageSize)
		if strings.HasPrefix(path, "/tools?") || path == "/tools" {
			p = path + sep + "recommendedPageSize=" + itoa(pageSize)
		}
		if tok != "" {
			p += "&pageToken=" + tok
		}
		r := e.do("GET", p, "")
		require.Equal(e.t, http.StatusOK, r.status, "%s", r.raw)
		list := r.body[items].([]any)
		require.LessOrEqual(e.t, len(list), pageSize)
		for _, it := range list {
			m := it.(map[string]any)
			if items == "bundles" {
				out = append(out, m["id"].(string))
			} else {
				out = append(out, m["slug"].(string)+"@"+m["version"].(string))
			}
		}
		tok, _ = r.body["nextPageToken"].(string)
		if tok == "" {
			return out
		}
		if between != nil {
			between()
		}
	}
	e.t.Fatal("paging did not end")
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

// nilInvoker is never called (used where the invoker does not matter).
type nilInvoker struct{}

func (nilInvoker) Invoke(context.Context, catalogue.Tool, json.RawMessage) (result.Result[any], error) {
	panic("not called")
}

// serve calls a handler directly, without a network.
func serve(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
