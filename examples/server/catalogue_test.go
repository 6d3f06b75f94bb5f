package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// doJSON sends a JSON request and decodes the JSON answer.
func doJSON(t *testing.T, ctx context.Context, method, u, body string) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if len(data) > 0 {
		require.NoError(t, json.Unmarshal(data, &out), "%s %s: %s", method, u, data)
	}
	return resp.StatusCode, out
}

func toolNamesOver(t *testing.T, ctx context.Context, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var out []string
	for _, tl := range res.Tools {
		if strings.Contains(tl.Name, ".") && !strings.HasPrefix(tl.Name, "ot.") { // catalogue tools
			out = append(out, tl.Name)
		}
	}
	return out
}

// connectWatching connects an MCP client to the server at base; the
// channel receives the server's tools/list_changed notifications.
func connectWatching(t *testing.T, ctx context.Context, base string) (*sdk.ClientSession, <-chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 64)
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, changed
}

// TestRun_CatalogueServedBesideTheRegistry runs the server binary with a
// catalogue: section and uses it as a person would: the catalogue's REST
// routes under /tools next to the registry's, a tool PUT as data and
// called over MCP and both REST APIs with a secret from the environment,
// the built-in bundle, and a reload that narrows allowed_hosts.
func TestRun_CatalogueServedBesideTheRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	const secret = "tok-e2e-5ecret-value"
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			http.Error(w, `{"error":"unauthorised"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"echo": r.URL.Query().Get("q")})
	}))
	defer upstream.Close()
	up, err := url.Parse(upstream.URL)
	require.NoError(t, err)

	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	writeCfg := func(hosts string) {
		require.NoError(t, os.WriteFile(cfgPath, []byte(fmt.Sprintf(
			"catalogue: {dir: cat, allowed_hosts: [%s], allow_private: true, secrets: {TOKEN: \"${E2E_TOKEN}\"}}\n", hosts)), 0o600))
	}
	writeCfg(`"` + up.Host + `"`)
	env := append(serverEnv(startBackend(t)), "E2E_TOKEN="+secret)
	s := startHTTP(t, ctx, env, "-config", cfgPath, "-log-level", "trace")
	waitLog(t, ctx, s, "catalogue ready", 1)

	cs, changed := connectWatching(t, ctx, s.base)
	assert.Equal(t, []string{"examples.add.1", "examples.echo.1", "examples.text-stats.1"}, toolNamesOver(t, ctx, cs),
		"the built-in bundle serves the example functions")

	// The catalogue's routes and the registry's share /tools.
	code, out := doJSON(t, ctx, http.MethodGet, s.base+"/tools/bundles", "")
	require.Equal(t, http.StatusOK, code)
	assert.Len(t, out["bundles"], 1)
	code, out = doJSON(t, ctx, http.MethodGet, s.base+"/tools/examples.add.1", "")
	require.Equal(t, http.StatusOK, code, "GET /tools/{name} is the registry's")
	assert.Equal(t, "examples.add.1", out["name"])
	code, out = doJSON(t, ctx, http.MethodGet, s.base+"/tools/openapi.json", "")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, out["paths"], "/bundles/{bundleID}", "the catalogue's own OpenAPI document")
	code, out = doJSON(t, ctx, http.MethodGet, s.base+"/openapi.json", "")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, out["paths"], "/tools/examples.add.1/invoke", "the registry's document lists catalogue tools")

	// Built-ins are read-only.
	builtin := "/tools/bundles/" + builtInBundleID.String()
	code, _ = doJSON(t, ctx, http.MethodPut, s.base+builtin, `{"slug":"x","displayName":"X","isEnabled":true,"description":""}`)
	assert.Equal(t, http.StatusForbidden, code)

	// A tool PUT as data is served at once.
	bid, err := catalogue.NewID()
	require.NoError(t, err)
	code, _ = doJSON(t, ctx, http.MethodPut, s.base+"/tools/bundles/"+bid.String(), `{"slug":"web","displayName":"Web","isEnabled":true,"description":"d"}`)
	require.Equal(t, http.StatusCreated, code)
	drain := func() {
		for {
			select {
			case <-changed:
			case <-time.After(300 * time.Millisecond):
				return
			}
		}
	}
	drain()
	toolURL := s.base + "/tools/bundles/" + bid.String() + "/tools/echo/version/1.0"
	code, out = doJSON(t, ctx, http.MethodPut, toolURL, `{"displayName":"Echo","description":"echoes q","tags":["demo"],"isEnabled":true,
		"type":"http","argSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"outputSchema":{"type":"object"},
		"httpImpl":{"request":{"method":"GET","urlTemplate":"`+upstream.URL+`/echo","query":{"q":"${q}"},"headers":{},"body":"",
		"auth":{"type":"bearer","token":"${TOKEN}"}},"response":{"encoding":"json","extract":""},"limits":{"timeout":"5s"}}}`)
	require.Equal(t, http.StatusCreated, code, "%v", out)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no list_changed after the PUT")
	}
	assert.Contains(t, toolNamesOver(t, ctx, cs), "web.echo.1.0")

	txt, err := callMCP(t, ctx, cs, "web.echo.1.0", map[string]any{"q": "über & more"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"echo":"über & more"}`, txt, "the value reaches the upstream intact, the secret authorises it")
	code, out = restInvoke(t, ctx, s.base, "web.echo.1.0", `{"q":"rest"}`)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, map[string]any{"echo": "rest"}, out["value"])
	code, out = doJSON(t, ctx, http.MethodPost, toolURL+"/invoke", `{"args":{"q":"api"}}`)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, true, out["ok"])
	// The catalogue API's invoke route runs the registry's tool: its
	// middleware (here the per-call log) sees the call as MCP's and
	// REST's, and the call is counted once.
	waitLog(t, ctx, s, "Tool web.echo.1.0 completed successfully", 3)
	_, got := doJSON(t, ctx, http.MethodGet, toolURL, "")
	assert.Equal(t, float64(3), got["callCount"], "MCP, REST and the catalogue API: one count each")
	code, out = restInvoke(t, ctx, s.base, "web.echo.1.0", `{}`)
	assert.Equal(t, http.StatusBadRequest, code, "arguments are checked against argSchema: %v", out)

	// A go tool names one of the server's functions.
	code, out = doJSON(t, ctx, http.MethodPut, s.base+"/tools/bundles/"+bid.String()+"/tools/sum/version/1", `{"displayName":"Sum","description":"a+b",
		"isEnabled":true,"type":"go","argSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},
		"goImpl":{"func":"add"}}`)
	require.Equal(t, http.StatusCreated, code, "%v", out)
	code, out = restInvoke(t, ctx, s.base, "web.sum.1", `{"a":40,"b":2}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	assert.Equal(t, float64(42), out["value"])

	// A steps tool chains registry tools, catalogue ones included.
	stepsURL := s.base + "/tools/bundles/" + bid.String() + "/tools/twice/version/1"
	code, out = doJSON(t, ctx, http.MethodPut, stepsURL, `{"displayName":"Twice","description":"adds n to itself, then echoes","isEnabled":true,
		"type":"steps","argSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},
		"stepsImpl":{"body":"s = examples.add.1(a={{ n }}, b={{ n }})\nweb.echo.1.0(q=\"sum {{ n }}\")\n"}}`)
	require.Equal(t, http.StatusCreated, code, "%v", out)
	code, out = restInvoke(t, ctx, s.base, "web.twice.1", `{"n":21}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	assert.Equal(t, map[string]any{"echo": "sum 21"}, out["value"])

	// Ranked search through the in-memory index, typos forgiven.
	code, out = doJSON(t, ctx, http.MethodGet, s.base+"/tools/tools/search?q=ecko", "")
	require.Equal(t, http.StatusOK, code, "%v", out)
	found := out["tools"].([]any)
	require.NotEmpty(t, found)
	assert.Equal(t, "echo", found[0].(map[string]any)["slug"])

	// The bundle exports as a ZIP through the mounted API.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/tools/bundles/"+bid.String()+"/export", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	zipped, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/zip", resp.Header.Get("Content-Type"))
	assert.NotContains(t, string(zipped), secret, "an export holds placeholders, never secret values")

	// Disabling removes it everywhere.
	drain()
	code, _ = doJSON(t, ctx, http.MethodPatch, toolURL, `{"isEnabled":false}`)
	require.Equal(t, http.StatusOK, code)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no list_changed after the PATCH")
	}
	assert.NotContains(t, toolNamesOver(t, ctx, cs), "web.echo.1.0")
	code, _ = doJSON(t, ctx, http.MethodPatch, toolURL, `{"isEnabled":true}`)
	require.Equal(t, http.StatusOK, code)

	// A reload that no longer allows the upstream refuses the next call.
	writeCfg(`"api.example.test"`)
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, ctx, s, "configuration reloaded", 1)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web.echo.1.0", Arguments: map[string]any{"q": "x"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, textOf(t, res), "host not allowed")

	assert.NotContains(t, s.stderr.String(), secret, "the secret never reaches the logs")
}

// A reload that leaves the http-tool settings alone keeps the runner (its
// compiled tools, connections and OAuth2 tokens); one that changes them
// replaces it.
func TestCatalogueHook_ReplacesTheRunnerOnlyWhenSettingsChange(t *testing.T) {
	ctx := context.Background()
	sc := &swapInvoker{}
	hook := catalogueHook(sc, slog.New(slog.DiscardHandler))
	cfg := hostconfig.Default(t.TempDir())
	cfg.Catalogue.Secrets = map[string]string{"K": "v"}
	step, err := hook(ctx, nil, cfg)
	require.NoError(t, err)
	require.NoError(t, step.Apply(ctx))
	first := sc.cur.Load()
	require.NotNil(t, first)

	same := hostconfig.Default(t.TempDir())
	same.Catalogue.Secrets = map[string]string{"K": "v"}
	step, err = hook(ctx, cfg, same)
	require.NoError(t, err)
	require.NoError(t, step.Apply(ctx))
	assert.Same(t, first, sc.cur.Load(), "unchanged settings keep the runner")

	changed := hostconfig.Default(t.TempDir())
	changed.Catalogue.Secrets = map[string]string{"K": "w"}
	step, err = hook(ctx, same, changed)
	require.NoError(t, err)
	require.NoError(t, step.Apply(ctx))
	assert.NotSame(t, first, sc.cur.Load(), "a new secret replaces it")

	second := sc.cur.Load()
	opened := hostconfig.Default(t.TempDir())
	opened.Catalogue.Secrets = map[string]string{"K": "w"}
	opened.Catalogue.AllowAddrs = []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}
	step, err = hook(ctx, changed, opened)
	require.NoError(t, err)
	require.NoError(t, step.Apply(ctx))
	assert.NotSame(t, second, sc.cur.Load(), "a new allow_addrs replaces it")
}

// Two server processes on one catalogue.dir behave as one catalogue: a
// tool PUT through the first is served by the running second within
// moments, and its MCP clients are told (list_changed); a built-in the
// first disables is gone from the second too.
func TestRun_CatalogueFilesSharedByTwoServers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("catalogue: {dir: cat}\n"), 0o600))
	env := serverEnv(startBackend(t))
	a := startHTTP(t, ctx, env, "-config", cfgPath)
	waitLog(t, ctx, a, "catalogue ready", 1)
	b := startHTTP(t, ctx, env, "-config", cfgPath)
	waitLog(t, ctx, b, "catalogue ready", 1)

	cs, changed := connectWatching(t, ctx, b.base)
	require.Contains(t, toolNamesOver(t, ctx, cs), "examples.add.1")

	bid := putMathBundle(t, ctx, a.base)
	putSumTool(t, ctx, a.base, bid, "1")
	waitServed(t, ctx, b, "math.sum.1", http.StatusOK)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("the second server's MCP client got no list_changed")
	}
	assert.Contains(t, toolNamesOver(t, ctx, cs), "math.sum.1")
	code, out := doJSON(t, ctx, http.MethodGet, b.base+"/tools/tools/search?q=sum", "")
	require.Equal(t, http.StatusOK, code)
	assert.NotEmpty(t, out["tools"], "the second server's search index has the tool too")

	// A built-in switched off through the first server.
	code, _ = doJSON(t, ctx, http.MethodPatch, a.base+"/tools/bundles/"+builtInBundleID.String(), `{"isEnabled":false}`)
	require.Equal(t, http.StatusOK, code)
	waitServed(t, ctx, b, "examples.add.1", http.StatusServiceUnavailable) // disabled, not unknown
	assert.NotContains(t, toolNamesOver(t, ctx, cs), "examples.add.1")
}

// putMathBundle creates the enabled bundle "math" through the catalogue
// API at base and returns its id.
func putMathBundle(t *testing.T, ctx context.Context, base string) uuid.UUID {
	t.Helper()
	bid, err := catalogue.NewID()
	require.NoError(t, err)
	code, _ := doJSON(t, ctx, http.MethodPut, base+"/tools/bundles/"+bid.String(), `{"slug":"math","displayName":"Math","isEnabled":true,"description":"d"}`)
	require.Equal(t, http.StatusCreated, code)
	return bid
}

// putSumTool creates the go tool sum (the server's "add", a+b) of that
// version in bundle bid through the catalogue API at base.
func putSumTool(t *testing.T, ctx context.Context, base string, bid uuid.UUID, version string) {
	t.Helper()
	code, out := doJSON(t, ctx, http.MethodPut, base+"/tools/bundles/"+bid.String()+"/tools/sum/version/"+version, `{"displayName":"Sum","description":"a+b",
		"isEnabled":true,"type":"go","argSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},
		"goImpl":{"func":"add"}}`)
	require.Equal(t, http.StatusCreated, code, "%v", out)
}

// waitServed waits (ten seconds at most) until a REST call of the tool
// name on srv answers code — 200 once another server's change reached
// it, 503 once a tool it switched off answers disabled, 404 once a tool
// it removed is gone — and logs how long it took.
func waitServed(t *testing.T, ctx context.Context, srv *httpServer, name string, code int) {
	t.Helper()
	start := time.Now()
	require.Eventually(t, func() bool {
		got, _ := restInvoke(t, ctx, srv.base, name, `{"a":1,"b":2}`)
		return got == code
	}, 10*time.Second, 50*time.Millisecond, "a call of %s never answered %d; the server's log:\n%s", name, code, srv.stderr)
	t.Logf("a call of %s answered %d %s later", name, code, time.Since(start).Round(time.Millisecond))
}

// pagedRoutes are the catalogue's listings that give page tokens, each
// with a page size that leaves a next page once the math bundle holds
// sum versions 1 and 2 beside the built-in bundle.
var pagedRoutes = []string{"/tools/tools?recommendedPageSize=1", "/tools/tools/search?q=sum&pageSize=1", "/tools/bundles?pageSize=1"}

// pageTokens returns the nextPageToken of each of pagedRoutes on the
// server at base.
func pageTokens(t *testing.T, ctx context.Context, base string) []string {
	t.Helper()
	toks := make([]string, len(pagedRoutes))
	for i, r := range pagedRoutes {
		code, out := doJSON(t, ctx, http.MethodGet, base+r, "")
		require.Equal(t, http.StatusOK, code, "%s: %v", r, out)
		tok, _ := out["nextPageToken"].(string)
		require.NotEmpty(t, tok, "%s has a next page: %v", r, out)
		toks[i] = tok
	}
	return toks
}

// acceptsPageTokens asserts that the server at base pages on with each
// token of pageTokens.
func acceptsPageTokens(t *testing.T, ctx context.Context, base string, toks []string, who string) {
	t.Helper()
	for i, r := range pagedRoutes {
		code, out := doJSON(t, ctx, http.MethodGet, base+r+"&pageToken="+url.QueryEscape(toks[i]), "")
		assert.Equal(t, http.StatusOK, code, "%s, %s: %v", who, r, out)
	}
}

// Page tokens are signed with the key the catalogue keeps (a file in
// catalogue.dir), not one per process: a token one server returned is
// accepted by another server on the same catalogue.dir, and by the first
// after it restarts, on every paged listing.
func TestRun_PageTokensAcceptedByEveryServerAndAfterRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("catalogue: {dir: cat}\n"), 0o600))
	env := serverEnv(startBackend(t))
	a := startHTTP(t, ctx, env, "-config", cfgPath)
	waitLog(t, ctx, a, "catalogue ready", 1)
	b := startHTTP(t, ctx, env, "-config", cfgPath)
	waitLog(t, ctx, b, "catalogue ready", 1)

	bid := putMathBundle(t, ctx, a.base)
	putSumTool(t, ctx, a.base, bid, "1")
	putSumTool(t, ctx, a.base, bid, "2")
	waitServed(t, ctx, b, "math.sum.2", http.StatusOK) // b's search index has them too
	toks := pageTokens(t, ctx, a.base)
	acceptsPageTokens(t, ctx, b.base, toks, "another server on the catalogue")
	acceptsPageTokens(t, ctx, a.base, pageTokens(t, ctx, b.base), "another server on the catalogue")

	require.NoError(t, a.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-a.done:
		require.NoError(t, err, "stderr:\n%s", a.stderr)
	case <-ctx.Done():
		t.Fatal("the server did not stop after SIGTERM")
	}
	restarted := startHTTP(t, ctx, env, "-config", cfgPath)
	waitLog(t, ctx, restarted, "catalogue ready", 1)
	acceptsPageTokens(t, ctx, restarted.base, toks, "the server restarted")
	info, err := os.Stat(filepath.Join(dir, "cat", "pagetoken.key"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}
