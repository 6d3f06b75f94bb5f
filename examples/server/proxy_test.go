package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

const (
	proxyTokenEnv = "TP_TEST_PROXY_TOKEN"
	proxyToken    = "pr0xy-secret-token-4e1d"
)

// startRemote serves a go-sdk server with one "shout" tool over streamable
// HTTP on 127.0.0.1, requiring "Authorization: Bearer <proxyToken>".
func startRemote(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "v1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "shout", Description: "Upper-cases text."},
		func(_ context.Context, _ *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(a.Text)}}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+proxyToken {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// deadURL is an http URL on 127.0.0.1 where nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/mcp"
}

// writeProxyFile writes a -proxy file with a reachable server "remote"
// (token from the environment) and an unreachable one "down".
func writeProxyFile(t *testing.T) string {
	t.Helper()
	t.Setenv(proxyTokenEnv, proxyToken)
	servers := []map[string]any{
		{"name": "remote", "url": startRemote(t) + "/mcp", "headers": map[string]string{"Authorization": "Bearer ${" + proxyTokenEnv + "}"}},
		{"name": "down", "url": deadURL(t)},
	}
	b, err := json.Marshal(servers)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "proxy.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

func TestRun_ProxyFlagMirrorsRemoteServers(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	path := writeProxyFile(t)
	cs, stderr := runStdio(t, "-packs", "example", "-display", "value", "-proxy", path, "-log-level", "debug")

	names := toolNames(t, cs)
	assert.Contains(t, names, "remote.shout", "the remote server's tools are a pack named after it")
	assert.Contains(t, names, "echo", "local packs are still served")

	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "remote.shout", Arguments: map[string]any{"text": "hi"}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, "HI", textOf(t, res))

	assert.Contains(t, stderr.String(), "mcp_server=down", "the unreachable server is logged")
	assert.Contains(t, stderr.String(), "level=WARN")
	assert.NotContains(t, stderr.String(), proxyToken, "header values never reach the logs")
}

func TestHealthz_ReportsProxyServers(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	get := func(t *testing.T, mux http.Handler) map[string]any {
		t.Helper()
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		require.Equal(t, http.StatusOK, rec.Code)
		var h map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &h))
		return h
	}

	t.Run("no -proxy", func(t *testing.T) {
		reg := registry.New(registry.Options{Logger: log})
		h := get(t, testHandler(t, reg, mcpserver.NewServer(reg, mcpserver.Options{Logger: log}), nil, log))
		assert.Equal(t, map[string]any{"status": "ok", "server_count": float64(0), "servers": map[string]any{}}, h["proxy"])
	})

	t.Run("one server down", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
		defer cancel()
		reg := registry.New(registry.Options{Logger: log})
		cfgs, err := readProxyFile(writeProxyFile(t))
		require.NoError(t, err)
		p, err := startProxy(ctx, reg, cfgs, log, io.Discard)
		require.NoError(t, err)
		defer p.Close()
		h := get(t, testHandler(t, reg, mcpserver.NewServer(reg, mcpserver.Options{Logger: log}), p, log))
		assert.Equal(t, "ok", h["status"], "the server itself is up")
		assert.Equal(t, map[string]any{
			"status":       "degraded",
			"server_count": float64(2),
			"servers":      map[string]any{"remote": "connected", "down": "disconnected"},
		}, h["proxy"])
	})
}

func TestRun_ProxyFileErrors(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	t.Setenv(proxyTokenEnv, proxyToken)
	cases := map[string]struct {
		path string
		want string
	}{
		"missing file":  {filepath.Join(dir, "nope.json"), "flag -proxy: open"},
		"not an array":  {write("obj.json", `{"name":"x"}`), "expected a JSON array of servers"},
		"unknown field": {write("unk.json", `[{"name":"x","url":"http://127.0.0.1:1/mcp","token":"t"}]`), `unknown field "token"`},
		"unset variable": {write("env.json", `[{"name":"x","url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer ${TP_TEST_UNSET_VAR_93}"}}]`),
			"environment variable TP_TEST_UNSET_VAR_93 is not set"},
		"invalid config": {write("both.json", `[{"name":"x","command":["x"],"url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer ${`+proxyTokenEnv+`}"}}]`),
			`flag -proxy: servers[0] "x": url: expected exactly one of command and url, got both`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var stderr strings.Builder
			err := run(context.Background(), []string{"-stdio", "-packs", "example", "-proxy", c.path}, strings.NewReader(""), io.Discard, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error()+stderr.String(), proxyToken)
		})
	}
}

// The -proxy file's env and header values expand exactly as the -config
// file's do (hostconfig.Expand): ${NAME} and ${NAME:-default}; $$ is a
// literal $ and a $ before a digit, punctuation or the end is kept as
// written, so a literal credential holding a $ passes; an error names an
// unset variable of a well-formed ${NAME} and never quotes the value.
func TestReadProxyFile_ExpandsLikeHostConfig(t *testing.T) {
	t.Setenv(proxyTokenEnv, proxyToken)
	dir := t.TempDir()
	write := func(headers map[string]string) string {
		b, err := json.Marshal([]map[string]any{{"name": "x", "url": "http://127.0.0.1:1/mcp", "headers": headers}})
		require.NoError(t, err)
		p := filepath.Join(dir, "proxy.json")
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	cfgs, err := readProxyFile(write(map[string]string{
		"Authorization": "Bearer pre$$S3CR3Txyz",
		"X-Token":       "${" + proxyTokenEnv + "}",
		"X-Default":     "${TP_TEST_UNSET_VAR_94:-fallback$x}",
		"X-Dollars":     "a$$b",
		"X-Kept":        "5$9 $-x $. $",
	}))
	require.NoError(t, err)
	require.Len(t, cfgs, 1)
	assert.Equal(t, map[string]string{"Authorization": "Bearer pre$S3CR3Txyz", "X-Token": proxyToken,
		"X-Default": "fallback$x", "X-Dollars": "a$b", "X-Kept": "5$9 $-x $. $"}, cfgs[0].Headers)

	_, err = readProxyFile(write(map[string]string{"Authorization": "Bearer pre$$S3CR3Txyz ${TP_TEST_UNSET_VAR_95}"}))
	require.Error(t, err)
	assert.ErrorIs(t, err, errUsage)
	assert.ErrorIs(t, err, hostconfig.ErrInvalid)
	assert.Contains(t, err.Error(), "headers.Authorization: environment variable TP_TEST_UNSET_VAR_95 is not set")
	assert.NotContains(t, err.Error(), "S3CR3T")

	for _, v := range []string{"Bearer ${S3CR3T-xyz}", "Bearer ${S3CR3Txyz", "${TP_TEST_UNSET_VAR_96:-S3CR3T${X}}"} {
		_, err = readProxyFile(write(map[string]string{"Authorization": v}))
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "S3CR3T")
	}
}

// The -proxy file's values together expand to at most
// hostconfig.MaxExpandedBytes, as a -config load's do: 40 headers of a
// 1 MiB variable (an 800-byte file) are refused, naming the key, never
// the value.
func TestReadProxyFile_ExpansionCappedForTheWholeFile(t *testing.T) {
	t.Setenv("TP_TEST_BIG", strings.Repeat("S", hostconfig.MaxExpandedValueBytes-1))
	headers := map[string]string{}
	for i := range 40 {
		headers[fmt.Sprintf("X-H%02d", i)] = "${TP_TEST_BIG}"
	}
	b, err := json.Marshal([]map[string]any{{"name": "x", "url": "http://127.0.0.1:1/mcp", "headers": headers}})
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "proxy.json")
	require.NoError(t, os.WriteFile(p, b, 0o600))
	_, err = readProxyFile(p)
	require.ErrorIs(t, err, errUsage)
	assert.Contains(t, err.Error(), "headers.X-H16: ${TP_TEST_BIG} takes the text expanded from variables past 16777216 bytes in all")
	assert.NotContains(t, err.Error(), "SSSS", "no value in the error")
	assert.Less(t, len(err.Error()), 10000, "one line per header over the cap, no value")
}

// A bare $ before a letter or _ ($NAME), which the -proxy file once
// expanded, is refused instead of silently sent as written: the error
// names the server, the field and the key, never the text after the $
// (it may be part of a literal credential).
func TestReadProxyFile_RefusesBareDollarBeforeAName(t *testing.T) {
	t.Setenv("SEARCH_KEY", proxyToken)
	dir := t.TempDir()
	write := func(server map[string]any) string {
		b, err := json.Marshal([]map[string]any{{"name": "ok", "url": "http://127.0.0.1:1/mcp"}, server})
		require.NoError(t, err)
		p := filepath.Join(dir, "proxy.json")
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	cases := map[string]struct {
		server map[string]any
		want   string
	}{
		"header": {map[string]any{"name": "a", "url": "http://127.0.0.1:1/mcp", "headers": map[string]string{"Authorization": "Bearer $SEARCH_KEY"}},
			`flag -proxy: servers[1] "a": headers.Authorization: a bare $ before a name is not expanded: write ${NAME} to expand, or $$ for a literal $`},
		"env": {map[string]any{"name": "b", "command": []string{"srv"}, "env": map[string]string{"TOKEN": "pre$_s3cr3tTail"}},
			`flag -proxy: servers[1] "b": env.TOKEN: a bare $ before a name is not expanded`},
		"after an expansion": {map[string]any{"name": "c", "url": "http://127.0.0.1:1/mcp", "headers": map[string]string{"X-Key": "${SEARCH_KEY}$s3cr3tTail"}},
			`flag -proxy: servers[1] "c": headers.X-Key: a bare $ before a name`},
		"after $$": {map[string]any{"name": "d", "url": "http://127.0.0.1:1/mcp", "headers": map[string]string{"X-Key": "$$$s3cr3tTail"}},
			`flag -proxy: servers[1] "d": headers.X-Key: a bare $ before a name`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := readProxyFile(write(c.server))
			require.Error(t, err)
			assert.ErrorIs(t, err, errUsage)
			assert.ErrorIs(t, err, hostconfig.ErrInvalid)
			assert.Contains(t, err.Error(), c.want)
			for _, leak := range []string{"SEARCH_KEY", "s3cr3t", "Tail", proxyToken} {
				assert.NotContains(t, err.Error(), leak)
			}
		})
	}
}

// inherit_env of a -proxy entry, as of a servers: entry, names variables
// passed to the command as they are (mcpproxy.Config.InheritEnv); a name
// also in env is refused as in -config, naming the file's key.
func TestReadProxyFile_InheritEnv(t *testing.T) {
	t.Setenv("OJ_BASE_URL", "")
	t.Setenv(example.EnvIncludeExampleTools, "true")
	dir := t.TempDir()
	p := filepath.Join(dir, "proxy.json")
	require.NoError(t, os.WriteFile(p, []byte(`[{"name":"kid","command":["srv"],"inherit_env":["LANG","HTTPS_PROXY"],"env":{"API_KEY":"k3y-value-77"}}]`), 0o600))
	cfgs, err := readProxyFile(p)
	require.NoError(t, err)
	require.Len(t, cfgs, 1)
	assert.Equal(t, []string{"LANG", "HTTPS_PROXY"}, cfgs[0].InheritEnv)

	require.NoError(t, os.WriteFile(p, []byte(`[{"name":"kid","command":["srv"],"inherit_env":["LANG"],"env":{"LANG":"k3y-value-77"}}]`), 0o600))
	var stderr strings.Builder
	err = run(context.Background(), []string{"-stdio", "-packs", "example", "-proxy", p}, strings.NewReader(""), io.Discard, &stderr)
	require.ErrorIs(t, err, errUsage)
	assert.Contains(t, err.Error(), `servers[0] "kid": inherit_env[0]: LANG is set in env too`)
	assert.NotContains(t, err.Error()+stderr.String(), "k3y-value-77")
}

// A -proxy entry's command arguments, dir, url and description are
// ${VAR}-expanded as a -config servers: entry's are (they were passed as
// written), and the values the environment gave are the entry's
// mcpproxy.Config.Secrets for redaction — a token in the URL's path or
// query, a key as a command argument — but not a host or port, which lie
// wholly within the URL's scheme, host and port.
func TestReadProxyFile_ExpandsCommandDirAndURLLikeConfig(t *testing.T) {
	t.Setenv("TP_TEST_BIN", "/opt/srv")
	t.Setenv("TP_TEST_WORK", "/srv/work")
	t.Setenv("TP_TEST_HOST", "127.0.0.1")
	t.Setenv(proxyTokenEnv, proxyToken)
	p := filepath.Join(t.TempDir(), "proxy.json")
	require.NoError(t, os.WriteFile(p, []byte(`[
{"name":"kid","command":["${TP_TEST_BIN}","--key=${`+proxyTokenEnv+`}","costs $$5"],"dir":"${TP_TEST_WORK}","description":"via ${TP_TEST_BIN}"},
{"name":"remote","url":"http://${TP_TEST_HOST}:1/${`+proxyTokenEnv+`}/mcp"}]`), 0o600))
	cfgs, err := readProxyFile(p)
	require.NoError(t, err)
	require.Len(t, cfgs, 2)
	// Compared so that a failure never prints the token (testify prints
	// both sides).
	sorted := func(v []string) []string { v = slices.Clone(v); slices.Sort(v); return v }
	assert.True(t, slices.Equal([]string{"/opt/srv", "--key=" + proxyToken, "costs $5"}, cfgs[0].Command), "command expanded (values not shown)")
	assert.Equal(t, "/srv/work", cfgs[0].Dir)
	assert.Equal(t, "via /opt/srv", cfgs[0].Description)
	assert.True(t, slices.Equal(sorted([]string{"/opt/srv", proxyToken, "/srv/work"}), sorted(cfgs[0].Secrets)), "every value a ${VAR} gave is a secret (values not shown)")
	assert.True(t, cfgs[1].URL == "http://127.0.0.1:1/"+proxyToken+"/mcp", "url expanded (value not shown)")
	assert.True(t, slices.Equal([]string{proxyToken}, cfgs[1].Secrets), "the host is no secret; the path's token is (values not shown)")

	require.NoError(t, os.WriteFile(p, []byte(`[{"name":"kid","command":["srv","--key=$`+proxyTokenEnv+`"]}]`), 0o600))
	_, err = readProxyFile(p)
	require.ErrorIs(t, err, errUsage)
	assert.Contains(t, err.Error(), `flag -proxy: servers[0] "kid": command[1]: a bare $ before a name is not expanded`)
	assert.NotContains(t, err.Error(), proxyTokenEnv)
}

// A -proxy url with user information (user:password@) is refused, as a
// servers: entry's is, naming the server and the field and saying to send
// credentials in headers; the URL, its user and its password are never
// quoted.
func TestReadProxyFile_RefusesURLUserInfo(t *testing.T) {
	t.Setenv(proxyTokenEnv, proxyToken)
	p := filepath.Join(t.TempDir(), "proxy.json")
	for _, u := range []string{"http://S3CR3T-user:S3CR3T-pw@127.0.0.1:1/mcp", "http://S3CR3T-user:${" + proxyTokenEnv + "}@127.0.0.1:1/mcp"} {
		require.NoError(t, os.WriteFile(p, []byte(`[{"name":"remote","url":"`+u+`"}]`), 0o600))
		_, err := readProxyFile(p)
		require.ErrorIs(t, err, errUsage)
		assert.ErrorIs(t, err, hostconfig.ErrInvalid)
		assert.Contains(t, err.Error(), `flag -proxy: servers[0] "remote": url: expected a URL without user information (user:password@); send credentials in headers (Authorization: "Basic ${VAR}" or "Bearer ${VAR}")`)
		for _, leak := range []string{"S3CR3T", proxyToken} {
			assert.NotContains(t, err.Error(), leak)
		}
	}
}

// A -proxy entry of the wrong shape is a usage error (exit status 2)
// naming the file's keys, as a servers: entry of -config is refused: it
// used to reach mcpproxy and exit 1 with its Go field names ("field
// Command/URL/Transport: expected exactly one of Command, URL and
// Transport").
func TestReadProxyFile_ShapeRefusedWithTheFilesKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), "proxy.json")
	for entry, want := range map[string]string{
		`{"name":"x","command":["a"],"url":"http://127.0.0.1:1/mcp"}`: `servers[0] "x": url: expected exactly one of command and url, got both`,
		`{"name":"x"}`:              `servers[0] "x": expected command (a local server over stdio) or url (a streamable HTTP server), got neither`,
		`{"name":"x","command":[]}`: `servers[0] "x": command: expected the program and its arguments, got an empty list`,
		`{"name":"x","url":"http://127.0.0.1:1/mcp","env":{"A":"b"}}`:            `servers[0] "x": env: only applies to a server with command`,
		`{"name":"x","url":"http://127.0.0.1:1/mcp","dir":"/tmp"}`:               `servers[0] "x": dir: only applies to a server with command`,
		`{"name":"x","command":["a"],"headers":{"A":"b"}}`:                       `servers[0] "x": headers: only applies to a server with url`,
		`{"name":"x","command":["a"],"inherit_env":["GITHUB_TOKEN"]}`:            `servers[0] "x": inherit_env[0]: GITHUB_TOKEN holds a credential by its name`,
		`{"name":"x","command":["a"],"inherit_env":["LANG","LANG"]}`:             `servers[0] "x": inherit_env[1]: LANG is named twice; expected each variable once`,
		`{"name":"x","command":["a"],"inherit_env":["1X"]}`:                      `servers[0] "x": inherit_env[0]: expected a variable name matching [A-Za-z_][A-Za-z0-9_]*, got "1X"`,
		`{"name":"x","command":["a"],"inherit_env":["LANG"],"env":{"LANG":"C"}}`: `servers[0] "x": inherit_env[0]: LANG is set in env too`,
	} {
		require.NoError(t, os.WriteFile(p, []byte("["+entry+"]"), 0o600))
		_, err := readProxyFile(p)
		require.ErrorIs(t, err, errUsage, entry)
		assert.ErrorIs(t, err, hostconfig.ErrInvalid, entry)
		assert.Contains(t, err.Error(), "flag -proxy: "+want, entry)
		assert.NotContains(t, err.Error(), "Command/URL", entry)
	}
}
