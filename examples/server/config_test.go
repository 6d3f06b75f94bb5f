package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"go.yaml.in/yaml/v3"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/stats"
)

// restInvoke posts args to /tools/{name}/invoke and returns the status and
// the decoded envelope.
func restInvoke(t *testing.T, ctx context.Context, base, name, args string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/tools/"+name+"/invoke", strings.NewReader(args))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// waitLog waits (bounded by ctx) until the server's stderr holds want
// n times.
func waitLog(t *testing.T, ctx context.Context, s *httpServer, want string, n int) {
	t.Helper()
	for strings.Count(s.stderr.String(), want) < n {
		select {
		case <-ctx.Done():
			t.Fatalf("the server never logged %q (%d times)\nstderr:\n%s", want, n, s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// callMCP calls name over MCP and returns the text, or the JSON-RPC error.
func callMCP(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string, args map[string]any) (string, error) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	require.False(t, res.IsError, "tool error: %v", res.Content)
	return textOf(t, res), nil
}

func TestRun_ConfigAliasesAndServersOverMCPAndREST(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	proxyFile := writeProxyFile(t) // "remote" (reachable) and "down"; sets the token variable
	remoteURL := startRemote(t) + "/mcp"
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(`aliases: {plus: add, loud: cfg.shout, loud2: remote.shout}
servers:
  cfg: {url: "`+remoteURL+`", headers: {Authorization: "Bearer ${`+proxyTokenEnv+`}"}}
`), 0o600))
	env := append(serverEnv(startBackend(t)), proxyTokenEnv+"="+proxyToken)
	s := startHTTP(t, ctx, env, "-config", cfgPath, "-proxy", proxyFile)

	cs, err := newClient().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()

	txt, err := callMCP(t, ctx, cs, "plus", map[string]any{"a": 2, "b": 3})
	require.NoError(t, err)
	assert.Equal(t, "5", txt, "an alias is callable over MCP")
	txt, err = callMCP(t, ctx, cs, "loud", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Equal(t, "HI", txt, "an alias of a tool of a server from servers:")
	txt, err = callMCP(t, ctx, cs, "loud2", map[string]any{"text": "yo"})
	require.NoError(t, err)
	assert.Equal(t, "YO", txt, "an alias of a tool of a server from -proxy")

	list, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	assert.Contains(t, names, "cfg.shout")
	assert.Contains(t, names, "remote.shout")
	assert.NotContains(t, names, "plus", "aliases are not listed")

	code, out := restInvoke(t, ctx, s.base, "plus", `{"a":20,"b":22}`)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, float64(42), out["value"], "an alias is callable over REST")

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var h struct {
		Proxy struct {
			Servers map[string]string `json:"servers"`
		} `json:"proxy"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	assert.Equal(t, map[string]string{"cfg": "connected", "remote": "connected", "down": "disconnected"}, h.Proxy.Servers,
		"servers: and -proxy's servers are served side by side")
	assert.NotContains(t, s.stderr.String(), proxyToken)
}

func TestRun_SIGHUPReloadsConfig(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {calc: add}\n"), 0o600))
	s := startHTTP(t, ctx, serverEnv(startBackend(t)), "-config", cfgPath)
	waitLog(t, ctx, s, "configuration loaded", 1)

	cs, err := newClient().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	txt, err := callMCP(t, ctx, cs, "calc", map[string]any{"a": 1, "b": 2})
	require.NoError(t, err)
	assert.Equal(t, "3", txt)

	// Edit the alias and send SIGHUP: the new alias serves, the old is gone.
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {sum: add}\n"), 0o600))
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, ctx, s, "configuration reloaded", 1)
	txt, err = callMCP(t, ctx, cs, "sum", map[string]any{"a": 4, "b": 5})
	require.NoError(t, err)
	assert.Equal(t, "9", txt)
	_, err = callMCP(t, ctx, cs, "calc", map[string]any{"a": 1, "b": 2})
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcError(t, err).Code, "the old alias is gone")
	code, _ := restInvoke(t, ctx, s.base, "sum", `{"a":1,"b":1}`)
	assert.Equal(t, http.StatusOK, code)

	// A broken edit is logged with file and line; the old alias keeps serving.
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {other: add}\nstats: {flush_interval: soon}\n"), 0o600))
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, ctx, s, "configuration reload failed", 1)
	assert.Contains(t, s.stderr.String(), cfgPath+`:2: stats.flush_interval: expected a duration such as 1s, got \"soon\"`)
	txt, err = callMCP(t, ctx, cs, "sum", map[string]any{"a": 4, "b": 5})
	require.NoError(t, err)
	assert.Equal(t, "9", txt, "the previous configuration keeps serving")
	code, _ = restInvoke(t, ctx, s.base, "other", `{"a":1,"b":1}`)
	assert.Equal(t, http.StatusNotFound, code)

	// Fixed again: applied on the next SIGHUP.
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {other: add}\n"), 0o600))
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, ctx, s, "configuration reloaded", 2)
	code, out := restInvoke(t, ctx, s.base, "other", `{"a":1,"b":1}`)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, float64(2), out["value"])

	// ot.reload, a client's reload, is logged as SIGHUP's is, with who
	// asked; so is a broken one.
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {more: add}\nstats: {enabled: true}\n"), 0o600))
	code, out = restInvoke(t, ctx, s.base, "ot.reload", `{}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	waitLog(t, ctx, s, "configuration reloaded", 3)
	assert.Contains(t, s.stderr.String(), `msg="configuration reloaded" by=ot.reload`)
	require.NoError(t, os.WriteFile(cfgPath, []byte("aliases: {more: nothing.here}\n"), 0o600))
	code, _ = restInvoke(t, ctx, s.base, "ot.reload", `{}`)
	assert.NotEqual(t, http.StatusOK, code)
	waitLog(t, ctx, s, "configuration reload failed", 2)

	// ot.stats' HTML report where no file can be written is the caller's
	// mistake (422), as ot.notify's unwritable topic file is.
	code, out = restInvoke(t, ctx, s.base, "ot.stats", `{"output":"r.html"}`)
	require.Equal(t, http.StatusOK, code, "%v", out)
	code, out = restInvoke(t, ctx, s.base, "ot.stats", `{"output":"r.html/x.html"}`)
	assert.Equal(t, http.StatusUnprocessableEntity, code, "%v", out)
	assert.Equal(t, "write_error", out["error_type"])
}

func TestRun_ConfigErrorsAtStart(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	t.Setenv(proxyTokenEnv, proxyToken)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	proxyFile := write("proxy.json", `[{"name":"dup","url":"http://127.0.0.1:1/mcp"}]`)
	write("more.yaml", "stats:\n  enabled: true\n  flush_interval: soon\n")
	cases := map[string]struct {
		args []string
		want []string
	}{
		"missing file": {[]string{"-config", filepath.Join(dir, "nope.yaml")}, []string{"flag -config: ", "nope.yaml: cannot read"}},
		"bad value": {[]string{"-config", write("bad.yaml", "include: [more.yaml]\n")},
			[]string{"more.yaml:3: stats.flush_interval: expected a duration such as 1s, got \"soon\""}},
		"unknown tool": {[]string{"-config", write("alias.yaml", "aliases: {x: no_such_tool}\n")},
			[]string{"alias.yaml:1: aliases.x: target \"no_such_tool\" is not a tool"}},
		"name in -proxy too": {[]string{"-proxy", proxyFile, "-config", write("dup.yaml", "servers:\n  dup: {url: \"http://127.0.0.1:1/mcp\"}\n")},
			[]string{"dup.yaml:2: servers.dup: a server named \"dup\" is given to the host elsewhere too (a -proxy file)"}},
		"-proxy server named like a local pack": {[]string{"-proxy", write("otproxy.json", `[{"name":"ot","url":"http://127.0.0.1:1/mcp"}]`)},
			[]string{`flag -proxy: servers[0] "ot": the name of a pack this server serves itself`}},
		"server named like a pack registered later": {[]string{"-config", write("cat.yaml", "servers:\n  catalogue: {url: \"http://127.0.0.1:1/mcp\"}\n")},
			[]string{"cat.yaml:2: servers.catalogue: \"catalogue\" is the name of a pack the host serves itself"}},
		"secret not shown": {[]string{"-config", write("sec.yaml", "output: {ttl: \"${"+proxyTokenEnv+"}\"}\n")},
			[]string{"sec.yaml:1: output.ttl: expected a duration such as 1s, got \"${" + proxyTokenEnv + "}\""}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var stderr strings.Builder
			args := append([]string{"-stdio", "-packs", "example"}, c.args...)
			err := run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr)
			require.Error(t, err)
			require.ErrorIs(t, err, errUsage, "a configuration error exits with status 2")
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error()+stderr.String(), proxyToken)
		})
	}
}

// A database named in the configuration that cannot be reached at start is
// a failure of the moment, not a mistake in the file: the error says so,
// names file, line and key, matches the store's ErrUnavailable and never
// shows the password, and the server exits with status 1 (the same command
// works once the database is back). A database that answers but refuses
// the login is the file's fault: a usage error, status 2.
func TestRun_DatabaseAwayAtStart(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	const password = "pw-never-shown"
	dsn := "postgres://u:" + password + "@" + closed + "/db?sslmode=disable&connect_timeout=5"
	for key, c := range map[string]struct {
		yaml     string
		sentinel error
	}{
		"stats.dsn":     {"stats:\n  dsn: " + dsn + "\n  enabled: true\n", stats.ErrUnavailable},
		"output.dsn":    {"output:\n  dsn: " + dsn + "\n", results.ErrUnavailable},
		"catalogue.dsn": {"catalogue:\n  dsn: " + dsn + "\n", catalogue.ErrUnavailable},
	} {
		t.Run(key, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(key, ".", "_")+".yaml")
			require.NoError(t, os.WriteFile(file, []byte(c.yaml), 0o600))
			var stderr strings.Builder
			err := run(context.Background(), []string{"-stdio", "-packs", "example", "-config", file}, strings.NewReader(""), io.Discard, &stderr)
			require.Error(t, err)
			assert.NotErrorIs(t, err, errUsage, "exit status 1: nothing in the file is wrong")
			assert.ErrorIs(t, err, c.sentinel)
			assert.Contains(t, err.Error(), "a database it names cannot be reached")
			assert.Contains(t, err.Error(), file+":2: "+key+": ")
			assert.NotContains(t, err.Error()+stderr.String(), password)
		})
	}

	t.Run("login refused", func(t *testing.T) {
		real := os.Getenv("TOOLPACK_TEST_PG_DSN")
		if real == "" {
			t.Skip("TOOLPACK_TEST_PG_DSN is not set: no PostgreSQL to refuse the login (.ci/run starts one)")
		}
		u, err := url.Parse(real)
		require.NoError(t, err)
		u.User = url.UserPassword(u.User.Username(), password)
		file := filepath.Join(dir, "login.yaml")
		require.NoError(t, os.WriteFile(file, []byte("stats:\n  enabled: true\n  dsn: "+u.String()+"\n"), 0o600))
		var stderr strings.Builder
		err = run(context.Background(), []string{"-stdio", "-packs", "example", "-config", file}, strings.NewReader(""), io.Discard, &stderr)
		require.Error(t, err)
		assert.ErrorIs(t, err, errUsage, "a wrong password is the file's mistake")
		assert.NotErrorIs(t, err, stats.ErrUnavailable)
		assert.Contains(t, err.Error(), file+":3: stats.dsn: ")
		assert.NotContains(t, err.Error()+stderr.String(), password)
	})
}

func TestRun_NoConfigKeepsTodaysBehaviour(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	var stderr strings.Builder
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	var out strings.Builder
	require.NoError(t, run(context.Background(), []string{"-stdio", "-packs", "example"}, in, &out, &stderr))
	assert.NotContains(t, stderr.String(), "configuration", "nothing is said about a configuration without -config")
	assert.Contains(t, out.String(), `"serverInfo"`)
}

// exampleConfig serves the example tools (and not the oj pack) and writes
// body as config.yaml in a new directory, returned with the file's path.
func exampleConfig(t *testing.T, body string) (dir, path string) {
	t.Helper()
	t.Setenv(example.EnvIncludeExampleTools, "true")
	t.Setenv("OJ_BASE_URL", "")
	dir = t.TempDir()
	path = filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return dir, path
}

// TestRun_OtPackWithConfigOverMCP runs the server as a user would, with a
// configuration file, and drives the ot pack, a snippet, the large-output
// store and the statistics through a real MCP client.
func TestRun_OtPackWithConfigOverMCP(t *testing.T) {
	dir, cfgPath := exampleConfig(t, `snippets:
  twice:
    description: Add a number to itself
    params: {n: {description: The number, default: 21}}
    body: |
      r = add(a={{ n }}, b={{ n }})
stats: {enabled: true, dir: stats}
output: {max_inline_bytes: 2000, dir: results, reports_dir: reports}
`)
	cs, _ := runStdio(t, "-config", cfgPath)
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()

	txt, err := callMCP(t, ctx, cs, "snippet.twice", map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, "42", txt, "a snippet of the configuration is a tool")

	// A large text comes back as a handle object; ot.result pages it.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "lines", Arguments: map[string]any{"count": 1000}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	var stored struct {
		Handle     string `json:"handle"`
		TotalLines int    `json:"total_lines"`
		Query      string `json:"query"`
	}
	require.NoError(t, json.Unmarshal([]byte(textOf(t, res)), &stored), textOf(t, res))
	assert.Equal(t, 1000, stored.TotalLines)
	assert.Contains(t, stored.Query, `ot.result(handle="`+stored.Handle+`"`)

	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "ot.result", Arguments: map[string]any{"handle": stored.Handle, "offset": 999}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Nil(t, res.StructuredContent, "ot answers plain text")
	var page map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(textOf(t, res)), &page))
	assert.Equal(t, []any{"line 999", "line 1000"}, page["lines"])

	txt, err = callMCP(t, ctx, cs, "ot.health", map[string]any{})
	require.NoError(t, err)
	assert.Contains(t, txt, `go: "1.`, "ot.health names the Go version as the seed's python: does, without the go prefix")

	txt, err = callMCP(t, ctx, cs, "ot.stats", map[string]any{"output": "report.html"})
	require.NoError(t, err)
	var st map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(txt), &st))
	assert.GreaterOrEqual(t, st["total_calls"], 3, "every call through MCP is recorded")
	assert.Equal(t, filepath.Join(dir, "reports", "report.html"), st["html_report"])
}

// TestRun_PrefixedSnippetsAndStats: under -prefix, a snippet whose body
// names tools undecorated (as the configuration is written) reaches them,
// ot.stats takes the undecorated name, and a snippet calling a tool that is
// not served fails as itself, naming the step, instead of being reported
// as an unknown tool.
func TestRun_PrefixedSnippetsAndStats(t *testing.T) {
	_, cfgPath := exampleConfig(t, `snippets:
  twice:
    params: {n: {description: The number, default: 21}}
    body: |
      r = add(a={{ n }}, b={{ n }})
  broken:
    body: |
      nosuch.tool(x=1)
stats: {enabled: true, dir: stats, flush_interval: 10ms}
`)
	cs, _ := runStdio(t, "-prefix", "tp", "-config", cfgPath)
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()

	txt, err := callMCP(t, ctx, cs, "tp_snippet.twice", map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, "42", txt)

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "tp_snippet.broken", Arguments: map[string]any{}})
	require.NoError(t, err, "the snippet exists: its step's missing tool is its failure, not a protocol error")
	require.True(t, res.IsError)
	assert.Contains(t, textOf(t, res), `snippet "broken": line 1: nosuch.tool: no such tool is served now`)

	txt, err = callMCP(t, ctx, cs, "tp_ot.stats", map[string]any{"tool": "add"})
	require.NoError(t, err)
	var st map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(txt), &st))
	assert.Equal(t, "tp_add", st["tool"])
	assert.Equal(t, 1, st["total_calls"], "the snippet's step was recorded under the tool's final name:\n%s", txt)
}

// TestRun_OtReloadSwapsServersSnippetsAndSettings changes, in one edit,
// the instructions and documentation links ot shows, a snippet and a
// remote server, and applies it with ot.reload over MCP: everything
// changes at once and the client is told once that the tool list changed.
func TestRun_OtReloadSwapsServersSnippetsAndSettings(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	remoteURL := startRemote(t) + "/mcp"
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	write := func(s string) { require.NoError(t, os.WriteFile(cfgPath, []byte(s), 0o600)) }
	write(`instructions: {example: "Use add for sums."}
docs: {base_url: "https://docs.example.test/", slugs: {example: ex}}
`)
	s := startHTTP(t, ctx, append(serverEnv(startBackend(t)), proxyTokenEnv+"="+proxyToken), "-config", cfgPath)
	waitLog(t, ctx, s, "configuration loaded", 1)

	cs, changed := countingClient(t, ctx, s.base+"/mcp")
	names := func() []string {
		list, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		var out []string
		for _, tool := range list.Tools {
			out = append(out, tool.Name)
		}
		return out
	}

	help, err := callMCP(t, ctx, cs, "ot.help", map[string]any{"query": "example"})
	require.NoError(t, err)
	assert.Contains(t, help, "Use add for sums.", "instructions: reach ot.help")
	assert.Contains(t, help, "https://docs.example.test/ex/", "docs: reach ot.help")

	write(`instructions: {example: "Prefer add."}
docs: {base_url: "https://other.example.test/docs/"}
snippets:
  twice:
    params: {n: {default: 21}}
    body: |
      r = add(a={{ n }}, b={{ n }})
servers:
  cfg: {url: "` + remoteURL + `", headers: {Authorization: "Bearer ${` + proxyTokenEnv + `}"}}
`)
	_, err = callMCP(t, ctx, cs, "ot.reload", map[string]any{})
	require.NoError(t, err)
	assert.Subset(t, names(), []string{"snippet.twice", "cfg.shout"}, "the snippet and the server's tools are served")
	txt, err := callMCP(t, ctx, cs, "cfg.shout", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Equal(t, "HI", txt)
	help, err = callMCP(t, ctx, cs, "ot.help", map[string]any{"query": "example"})
	require.NoError(t, err)
	assert.Contains(t, help, "Prefer add.")
	assert.Contains(t, help, "https://other.example.test/docs/example/")
	assert.NotContains(t, help, "Use add for sums.")

	// The burst of registry changes of one reload reaches the client as
	// one notification (give a second one time to arrive).
	require.Eventually(t, func() bool { return changed.Load() >= 1 }, 5*time.Second, 10*time.Millisecond)
	time.Sleep(500 * time.Millisecond)
	assert.EqualValues(t, 1, changed.Load(), "one list-changed notification for one reload")

	write("{}\n") // an empty file is refused once a configuration is in force
	_, err = callMCP(t, ctx, cs, "ot.reload", map[string]any{})
	require.NoError(t, err)
	assert.NotContains(t, names(), "cfg.shout", "a server removed from the file is no longer served")
	assert.NotContains(t, names(), "snippet.twice")
}

// An ot.reload refused because its output.dir (or stats.dir) cannot be
// created changes nothing a client sees: the servers it adds are not
// connected then removed (nor a changed one reconnected twice, losing its
// session), and no tools/list_changed is sent — the stores are opened
// before any step applies.
func TestRun_OtReloadRefusedForItsStoresChangesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	remoteURL := startRemote(t) + "/mcp"
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o600))
	cfgPath := filepath.Join(dir, "config.yaml")
	write := func(s string) { require.NoError(t, os.WriteFile(cfgPath, []byte(s), 0o600)) }
	server := func(x string) string {
		return "servers:\n  remote: {url: \"" + remoteURL + "\", headers: {Authorization: \"Bearer ${" + proxyTokenEnv + "}\", X: \"" + x + "\"}}\n"
	}
	write("snippets:\n  aa: {body: \"add(a=1, b=1)\"}\n")
	s := startHTTP(t, ctx, append(serverEnv(startBackend(t)), proxyTokenEnv+"="+proxyToken), "-config", cfgPath)
	waitLog(t, ctx, s, "configuration loaded", 1)

	cs, changed := countingClient(t, ctx, s.base+"/mcp")
	reload := func() string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ot.reload", Arguments: map[string]any{}})
		require.NoError(t, err)
		require.True(t, res.IsError, "the reload is refused: %v", res.Content)
		return textOf(t, res)
	}
	quiet := func(what string) {
		t.Helper()
		time.Sleep(500 * time.Millisecond) // a notification would have arrived
		assert.Zero(t, changed.Load(), "%s: no tools/list_changed", what)
		assert.NotContains(t, s.stderr.String(), "MCP server connected", what)
		assert.NotContains(t, s.stderr.String(), "MCP server removed", what)
	}

	bb := "snippets:\n  bb: {body: \"add(a=2, b=2)\"}\n"
	write(bb + server("2") + "output: {dir: " + filepath.Join(blocker, "y") + "}\n")
	assert.Contains(t, reload(), "output.dir: cannot open the output store: ")
	quiet("output.dir")
	write(bb + server("2") + "stats: {enabled: true, dir: " + filepath.Join(blocker, "y") + "}\n")
	assert.Contains(t, reload(), "stats.dir: ")
	quiet("stats.dir")

	// A server in force whose headers the refused file changes keeps its
	// connection: one connection in all.
	write(server("1"))
	_, err := callMCP(t, ctx, cs, "ot.reload", map[string]any{})
	require.NoError(t, err)
	waitLog(t, ctx, s, "MCP server connected", 1)
	require.Eventually(t, func() bool { return changed.Load() >= 1 }, 5*time.Second, 10*time.Millisecond)
	time.Sleep(500 * time.Millisecond)
	changed.Store(0)
	write(server("2") + "output: {dir: " + filepath.Join(blocker, "y") + "}\n")
	reload()
	time.Sleep(500 * time.Millisecond)
	assert.Zero(t, changed.Load())
	assert.Equal(t, 1, strings.Count(s.stderr.String(), "MCP server connected"), "no reconnection")
	assert.NotContains(t, s.stderr.String(), "MCP server configuration changed")
	txt, err := callMCP(t, ctx, cs, "remote.shout", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Equal(t, "HI", txt)
}

// Without -config, SIGHUP (a terminal's hang-up, a habit of operators) is
// logged and changes nothing: the server keeps serving; ot.reload says
// there is nothing to reload.
func TestRun_SIGHUPWithoutConfigChangesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	s := startHTTP(t, ctx, serverEnv(startBackend(t)))
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, ctx, s, "SIGHUP: no -config file to reload", 1)
	code, out := restInvoke(t, ctx, s.base, "add", `{"a":1,"b":2}`)
	require.Equal(t, http.StatusOK, code, "still serving: %v", out)
	code, out = restInvoke(t, ctx, s.base, "ot.reload", `{}`)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "Error: this server has no configuration file to reload", out["error"])
}

// A configuration that names a statistics database with statistics off
// says so once loaded: the database is not used.
func TestWarnConfig_StatsDatabaseWithStatsOff(t *testing.T) {
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, nil))
	c := hostconfig.Default("")
	warnConfig(c, log)
	assert.Empty(t, buf.String(), "nothing to say about the defaults")
	c.Stats.DSN = "postgres://u:secret@db/x"
	warnConfig(c, log)
	assert.Contains(t, buf.String(), "stats.dsn is set but statistics are off")
	assert.NotContains(t, buf.String(), "secret")
	buf.Reset()
	c.Stats.Enabled = true
	warnConfig(c, log)
	assert.Empty(t, buf.String())
}

// A SIGHUP that arrives while the server is still starting (a service
// manager reloading right after starting it) is kept and reloads once the
// server runs; it killed the server (exit 129) before its handler was
// installed. The start is held up here by a server entry whose process
// answers only after a second.
func TestRun_SIGHUPDuringStartReloadsOnceRunning(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf("aliases: {calc: add}\nservers:\n  slow: {command: [sh, -c, \"sleep 1; exec %s -stdio\"], env: {MCP_INCLUDE_EXAMPLE_TOOLS: \"true\"}}\n", binPath)
	require.NoError(t, os.WriteFile(cfgPath, []byte(cfg), 0o600))
	cmd := exec.Command(binPath, "-addr", "127.0.0.1:0", "-config", cfgPath)
	cmd.Env = serverEnv(startBackend(t))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	})
	// The first line the server logs comes while it starts.
	for stderr.String() == "" {
		select {
		case err := <-done:
			t.Fatalf("server exited: %v\n%s", err, stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
	require.NotContains(t, stderr.String(), "serving HTTP", "still starting")
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	for !strings.Contains(stderr.String(), `msg="configuration reloaded" by=SIGHUP`) {
		select {
		case err := <-done:
			t.Fatalf("server exited: %v\n%s", err, stderr)
		case <-ctx.Done():
			t.Fatalf("no reload after the start\n%s", stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	assert.Contains(t, stderr.String(), "serving HTTP")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, <-done, "stopped by SIGTERM, not killed by the SIGHUP")
}

// A stop (SIGTERM) while a call runs over stdio lets it finish and writes
// its answer before the session ends, the client's side still open.
// Before, the session was cancelled at the signal: the call ran to its
// end but its answer was never written ("server run cancelled").
func TestRun_StdioStopAnswersTheCallUnderWay(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	pr, pw := io.Pipe()
	defer pw.Close() // the client never closes its side before the end
	var out syncBuffer
	var stderr syncBuffer
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-stdio", "-packs", "example"}, pr, &out, &stderr) }()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"n":10,"delay_ms":100}}}`,
	} {
		_, err := io.WriteString(pw, m+"\n")
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return strings.Contains(out.String(), `"id":1,`) }, 30*time.Second, 10*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // the call is under way (1 s)
	stop()                             // what SIGTERM does to run's context
	select {
	case err := <-done:
		require.NoError(t, err, "stderr:\n%s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after the stop")
	}
	assert.Contains(t, out.String(), `{"jsonrpc":"2.0","id":2,"result":`, "the answer of the call under way was written")
	assert.NotContains(t, stderr.String(), "server run cancelled")
}

// countingClient connects an MCP client to endpoint and counts the
// tools/list_changed notifications it gets; it is closed with the test.
func countingClient(t *testing.T, ctx context.Context, endpoint string) (*sdk.ClientSession, *atomic.Int32) {
	t.Helper()
	changed := new(atomic.Int32)
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e-client", Version: "v0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed.Add(1) },
	})
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, changed
}
