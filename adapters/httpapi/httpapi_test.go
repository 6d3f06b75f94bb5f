package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

func toolNames(t *testing.T, r response) []string {
	t.Helper()
	var list httpapi.ToolList
	require.NoError(t, json.Unmarshal(r.Body, &list))
	names := []string{}
	for _, s := range list.Tools {
		names = append(names, s.Name)
	}
	return names
}

func TestListTools(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	r := do(t, http.MethodGet, srv.URL+"/tools", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, []string{"boom", "echo", "fail", "ping", "search", "slow"}, toolNames(t, r))

	var list httpapi.ToolList
	require.NoError(t, json.Unmarshal(r.Body, &list))
	for _, s := range list.Tools {
		if s.Name == "search" {
			assert.Equal(t, httpapi.ToolSummary{Name: "search", Title: "Search the index", Description: s.Description, Pack: "text", Source: "local"}, s)
			assert.Contains(t, s.Description, "Searches the test index.")
		}
	}
	// Every entry has exactly the documented fields.
	var raw struct{ Tools []map[string]any }
	require.NoError(t, json.Unmarshal(r.Body, &raw))
	for _, e := range raw.Tools {
		assert.Len(t, e, 5, "%v", e)
	}
}

func TestListFilterPack(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	require.Equal(t, []string{"echo", "search"}, toolNames(t, do(t, http.MethodGet, srv.URL+"/tools?pack=text", "", nil)))
	require.Equal(t, []string{}, toolNames(t, do(t, http.MethodGet, srv.URL+"/tools?pack=tex", "", nil)), "pack is an exact match")
	require.Equal(t, []string{"boom", "fail", "ping", "slow"}, toolNames(t, do(t, http.MethodGet, srv.URL+"/tools?pack=", "", nil)), "empty pack selects tools outside packs")
}

func TestListFilterQuery(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	// Title match, case-insensitive.
	require.Equal(t, []string{"search"}, toolNames(t, do(t, http.MethodGet, srv.URL+"/tools?q=INDEX", "", nil)))
	// Name match.
	require.Equal(t, []string{"ping"}, toolNames(t, do(t, http.MethodGet, srv.URL+"/tools?q=PiN", "", nil)))
	// Description match.
	require.Equal(t, []string{"slow"}, toolNames(t, do(t, http.MethodGet, srv.URL+"/tools?q=times+out", "", nil)))
	// Both filters.
	require.Equal(t, []string{"echo"}, toolNames(t, do(t, http.MethodGet, srv.URL+"/tools?pack=text&q=unchanged", "", nil)))
	require.Equal(t, []string{}, toolNames(t, do(t, http.MethodGet, srv.URL+"/tools?pack=text&q=pong", "", nil)))
}

func TestListBadQuery(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	for _, tc := range []struct{ query, want string }{
		{"limit=3", `"limit"`},
		{"q=a&q=b", "q is given 2 times"},
		{"q=" + strings.Repeat("x", httpapi.MaxQueryLen+1), "at most 256"},
		{"pack=" + strings.Repeat("x", httpapi.MaxPackLen+1), "at most 128"},
		{"q=%ff", "UTF-8"},
		{"q=%zz", "cannot be parsed"},
	} {
		t.Run(tc.query[:min(len(tc.query), 12)], func(t *testing.T) {
			r := do(t, http.MethodGet, srv.URL+"/tools?"+tc.query, "", nil)
			requireError(t, r, http.StatusBadRequest, "invalid_parameter")
			require.Contains(t, r.JSON["error"], tc.want)
		})
	}
}

func TestDescribeTool(t *testing.T) {
	srv, reg := newServer(t, httpapi.Options{})
	r := do(t, http.MethodGet, srv.URL+"/tools/search", "", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	tool, ok := reg.Lookup("search")
	require.True(t, ok)

	var d httpapi.ToolDetail
	require.NoError(t, json.Unmarshal(r.Body, &d))
	assert.Equal(t, "search", d.Name)
	assert.Equal(t, "Search the index", d.Title)
	assert.Equal(t, "text", d.Pack)
	assert.Equal(t, "local", d.Source)
	assert.Equal(t, tool.Description, d.Description)
	assert.Contains(t, d.Description, "Arguments", "the description carries the argument Markdown")
	assert.Equal(t, tool.Usage.Args, d.Args)
	assert.JSONEq(t, string(tool.InputSchema), string(d.InputSchema))
	require.NotEmpty(t, tool.OutputSchema, "a struct result has an output schema")
	assert.JSONEq(t, string(tool.OutputSchema), string(d.OutputSchema))
	assert.Equal(t, new(true), d.Annotations.ReadOnly)
	assert.Equal(t, new(false), d.Annotations.OpenWorld)
	assert.Nil(t, d.Annotations.Destructive, "unstated hints stay absent")

	// A string tool's value is described as a string.
	r = do(t, http.MethodGet, srv.URL+"/tools/echo", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, map[string]any{"type": "string"}, r.JSON["output_schema"], "%s", r.Body)
}

func TestDescribeUnknownTool(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	requireError(t, do(t, http.MethodGet, srv.URL+"/tools/nope", "", nil), http.StatusNotFound, "unknown_tool")
	requireError(t, do(t, http.MethodGet, srv.URL+"/tools/no%20pe", "", nil), http.StatusBadRequest, "invalid_name")
}

// Answers are JSON for JSON clients (application/json, nosniff): <, > and
// & come back as written, as over MCP, not as \u003c escapes — in a
// result, in an error and in a tool's description.
func TestAnswersAreNotHTMLEscaped(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	r := invoke(t, srv.URL, "echo", `{"text":"a < b && c > d"}`)
	require.Equal(t, http.StatusOK, r.Status)
	assert.Contains(t, string(r.Body), `"a < b && c > d"`)
	r = invoke(t, srv.URL, "echo", `{"text":1, "<x>":2}`)
	assert.Contains(t, string(r.Body), `<x>`)
	assert.NotContains(t, string(r.Body), `\u003c`)
	for _, p := range []string{"/tools", "/tools/echo", "/openapi.json", "/tools/<nope>"} {
		g := do(t, http.MethodGet, srv.URL+p, "", nil)
		assert.NotContains(t, string(g.Body), `\u003c`, p)
		assert.NotContains(t, string(g.Body), `\u0026`, p)
	}
}

func TestInvokeSuccess(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	r := invoke(t, srv.URL, "search", goodSearch)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.JSONEq(t, `{"ok":true,"value":{"query":"GOLANG HTTP","hits":10,"tags":2}}`, string(r.Body))

	r = invoke(t, srv.URL, "echo", `{"text":"<b>hi</b> & bye"}`)
	require.Equal(t, http.StatusOK, r.Status)
	require.JSONEq(t, `{"ok":true,"value":"<b>hi</b> & bye","message":"echoed"}`, string(r.Body))
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
	for _, p := range []string{"/tools", "/tools/echo", "/openapi.json", "/tools/nope"} {
		g := do(t, http.MethodGet, srv.URL+p, "", nil)
		require.Equal(t, "no-store", g.Header.Get("Cache-Control"), p)
		require.Equal(t, "nosniff", g.Header.Get("X-Content-Type-Options"), p)
	}
}

func TestInvokeAcceptsJSONWithParameters(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON; charset=UTF-8", "application/json;foo=bar"} {
		r := do(t, http.MethodPost, srv.URL+"/tools/search/invoke", ct, strings.NewReader(goodSearch))
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", ct, r.Body)
	}
}

func TestInvokeEmptyBodyMeansNoArguments(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	r := invoke(t, srv.URL, "ping", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "pong", r.JSON["value"])

	// A tool with required arguments rejects the empty call, naming them.
	r = invoke(t, srv.URL, "search", "")
	requireError(t, r, http.StatusBadRequest, "validation_error")
	require.ElementsMatch(t, []string{"query", "limit", "mode", "tags"}, detailFields(t, r))
}

func detailFields(t *testing.T, r response) []string {
	t.Helper()
	var body struct {
		Details []struct{ Field, Rule, Message string }
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	var fields []string
	for _, d := range body.Details {
		require.NotEmpty(t, d.Rule)
		require.NotEmpty(t, d.Message)
		fields = append(fields, d.Field)
	}
	return fields
}

func TestInvokeValidationFailureListsEveryField(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	r := invoke(t, srv.URL, "search", `{"query":"","limit":99,"mode":"slow","threshold":2,"tags":[""],"extra":1}`)
	requireError(t, r, http.StatusBadRequest, "validation_error")
	require.ElementsMatch(t, []string{"query", "limit", "mode", "threshold", "tags[0]", "extra"}, detailFields(t, r))
	requireServing(t, srv.URL)
}

func TestInvokeMalformedJSON(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	for _, body := range []string{`{`, `{"query":`, `[1,2]`, `"x"`, `nul`, "\x00\xff", `{"query":"a"}}`} {
		r := invoke(t, srv.URL, "search", body)
		requireError(t, r, http.StatusBadRequest, "validation_error")
		require.NotEmpty(t, detailFields(t, r), "%q", body)
	}
	requireServing(t, srv.URL)
}

func TestInvokeDomainFailureStatuses(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	cases := map[string]int{"something_else": 422, "parse_failed": 422}
	for _, row := range httpapi.ErrorStatuses() {
		cases[string(row.Type)] = row.Status
	}
	for typ, status := range cases {
		t.Run(typ, func(t *testing.T) {
			r := invoke(t, srv.URL, "fail", `{"type":"`+typ+`"}`)
			requireError(t, r, status, typ)
			require.Equal(t, "failed as asked: "+typ, r.JSON["error"])
			require.Equal(t, map[string]any{"asked": typ}, r.JSON["details"])
			require.Equal(t, "Do not retry.", r.JSON["instruction"])
		})
	}
}

func TestNotFoundDistinctFromUnknownTool(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	unknown := invoke(t, srv.URL, "nope", `{}`)
	requireError(t, unknown, http.StatusNotFound, "unknown_tool")
	notFound := invoke(t, srv.URL, "fail", `{"type":"not_found"}`)
	requireError(t, notFound, http.StatusNotFound, "not_found")
}

func TestInvokeProtocolFailureIs500WithoutInternals(t *testing.T) {
	var logs logBuffer
	srv, _ := newServer(t, httpapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	r := invoke(t, srv.URL, "boom", `{}`)
	requireError(t, r, http.StatusInternalServerError, "internal_error")
	require.NotContains(t, string(r.Body), secret)
	require.NotContains(t, string(r.Body), "db")
	require.Contains(t, logs.String(), "level=ERROR")
	require.Contains(t, logs.String(), "tool=boom")
	require.Contains(t, logs.String(), "refused", "the real error is logged")
	require.Equal(t, 1, strings.Count(logs.String(), "level=ERROR"), "logged once, by the registry: %s", logs.String())
	requireServing(t, srv.URL)
}

func TestInvokeTimeoutIs504(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	r := invoke(t, srv.URL, "slow", `{}`)
	requireError(t, r, http.StatusGatewayTimeout, "timeout")
}

// TestProtocolErrorKinds drives protocol failures that the test registry's
// tools cannot produce, through a middleware on a real registry: a deadline
// error, a cancelled client and an invalid output.
func TestProtocolErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		typ    string
	}{
		{"deadline", context.DeadlineExceeded, http.StatusGatewayTimeout, "timeout"},
		{"canceled-but-client-alive", context.Canceled, http.StatusInternalServerError, "internal_error"},
		{"invalid-output", registry.ErrInvalidOutput, http.StatusInternalServerError, "internal_error"},
		{"unknown-tool-inside", registry.ErrUnknownTool, http.StatusNotFound, "unknown_tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newRegistry(t)
			reg.Use(func(next registry.Handler) registry.Handler {
				return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
					return result.Result[any]{}, tc.err
				}
			})
			h := httpapi.New(reg, httpapi.Options{Logger: discardLogger()})
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/tools/ping/invoke", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(rec, req)
			var env map[string]any
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env))
			require.Equal(t, tc.status, rec.Code, "%s", rec.Body)
			require.Equal(t, tc.typ, env["error_type"])
		})
	}
}

func TestClientGoneIsCancelledNotError(t *testing.T) {
	var logs logBuffer
	reg := newRegistry(t)
	h := httpapi.New(reg, httpapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/tools/ping/invoke", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	require.Equal(t, httpapi.StatusClientClosedRequest, rec.Code, "%s", rec.Body)
	require.NotContains(t, logs.String(), "level=ERROR")
	require.Contains(t, logs.String(), "client went away")
}

func TestMethodNotAllowed(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodPost, "/tools", "GET, HEAD"},
		{http.MethodDelete, "/tools", "GET, HEAD"},
		{http.MethodPut, "/tools/search", "GET, HEAD"},
		{http.MethodGet, "/tools/search/invoke", "POST"},
		{http.MethodPatch, "/tools/search/invoke", "POST"},
		{http.MethodPost, "/openapi.json", "GET, HEAD"},
		{http.MethodOptions, "/tools/search/invoke", "POST"},
	} {
		t.Run(tc.method+tc.path, func(t *testing.T) {
			r := do(t, tc.method, srv.URL+tc.path, "application/json", strings.NewReader(`{}`))
			requireError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
			require.Equal(t, tc.allow, r.Header.Get("Allow"))
		})
	}
	requireServing(t, srv.URL)
}

func TestHeadServesHeadersOnly(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	r := do(t, http.MethodHead, srv.URL+"/tools", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Empty(t, r.Body)
}

func TestUnknownPathIs404JSON(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	for _, p := range []string{"/", "/tool", "/tools/", "/tools/search/invoke/x", "/mcp", "/openapi.yaml", "/tools/search/call"} {
		requireError(t, do(t, http.MethodGet, srv.URL+p, "", nil), http.StatusNotFound, "unknown_path")
	}
}

func TestInvokeRejectsQueryParameters(t *testing.T) {
	srv, _ := newServer(t, httpapi.Options{})
	r := do(t, http.MethodPost, srv.URL+"/tools/search/invoke?debug=1", "application/json", strings.NewReader(goodSearch))
	requireError(t, r, http.StatusBadRequest, "invalid_parameter")
}

func TestMountedUnderPrefix(t *testing.T) {
	reg := newRegistry(t)
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", httpapi.New(reg, httpapi.Options{Logger: discardLogger()})))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	r := invoke(t, srv.URL+"/api", "search", goodSearch)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, http.StatusOK, do(t, http.MethodGet, srv.URL+"/api/tools?pack=text", "", nil).Status)
}

func TestNewDefaults(t *testing.T) {
	// Zero options: 1 MiB cap, default logger, title and version.
	reg := newRegistry(t)
	h := httpapi.New(reg, httpapi.Options{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var doc struct {
		Info struct{ Title, Version string }
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	require.Equal(t, "toolpack", doc.Info.Title)
	require.Equal(t, "0.0.0", doc.Info.Version)
	require.Equal(t, int64(1<<20), httpapi.DefaultMaxBodyBytes)

	big := `{"text":"` + strings.Repeat("a", 1<<20) + `"}`
	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/tools/echo/invoke", strings.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
}

func TestErrorsAreCheckable(t *testing.T) {
	// The package returns errors only from BuildOpenAPI; they name the tool.
	_, err := httpapi.BuildOpenAPI([]*registry.Tool{{Name: "bad", InputSchema: json.RawMessage(`{`)}}, httpapi.DocOptions{})
	require.Error(t, err)
	require.Contains(t, err.Error(), `"bad"`)
	require.Contains(t, err.Error(), "input schema")
	_, err = httpapi.BuildOpenAPI([]*registry.Tool{{Name: "bad2", InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`nope`)}}, httpapi.DocOptions{})
	require.ErrorContains(t, err, "output schema")
	require.False(t, errors.Is(err, registry.ErrUnknownTool))
}
