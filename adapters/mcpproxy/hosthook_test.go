package mcpproxy_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/result"
)

// HostHook serves a configuration's servers: section through the proxy —
// a server added by a reload is served, one removed is gone — and refuses,
// naming file, line and key, a server named like a pack the host serves
// itself (it would never be served), "snippet", a name the host reserves
// for a pack it registers later, or a server the host was given
// elsewhere; a refused configuration changes nothing.
func TestHostHook_ServesServersAndRefusesTakenNames(t *testing.T) {
	reg := newRegistry()
	local := &registry.Pack{Name: "local", Description: "The host's own."}
	require.NoError(t, registry.AddFunc(local, "local.x", func(context.Context, struct{}) (result.Result[string], error) {
		return result.Ok("x"), nil
	}, registry.ToolOptions{Doc: "X."}))
	require.NoError(t, reg.AddPack(local))
	fixedURL, _ := httpRemote(t, "fixed")
	kidURL, _ := httpRemote(t, "kid")
	fixed := []mcpproxy.Config{{Name: "fixed", URL: fixedURL}}
	p := newProxy(t, reg, fixed, mcpproxy.Options{})

	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	host, err := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: reg})
	require.NoError(t, err)
	host.OnApply("servers", mcpproxy.HostHook(p, fixed, "later"))

	require.NoError(t, os.WriteFile(path, []byte("servers:\n  kid: {url: \""+kidURL+"\"}\n"), 0o600))
	require.NoError(t, host.Reload(t.Context()))
	require.Eventually(t, func() bool { return len(proxiedNames(reg, "kid")) > 0 }, waitBound, 10*time.Millisecond)
	assert.NotEmpty(t, proxiedNames(reg, "fixed"), "the servers given elsewhere stay")

	require.NoError(t, os.WriteFile(path, []byte(`servers:
  kid: {url: "`+kidURL+`"}
  local: {url: "http://127.0.0.1:1/mcp"}
  snippet: {url: "http://127.0.0.1:1/mcp"}
  fixed: {url: "http://127.0.0.1:1/mcp"}
  later: {url: "http://127.0.0.1:1/mcp"}
`), 0o600))
	err = host.Reload(t.Context())
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `c.yaml:3: servers.local: "local" is the name of a pack the host serves itself`)
	assert.Contains(t, msg, `c.yaml:4: servers.snippet: "snippet" is the name of the pack of the configuration's snippets`)
	assert.Contains(t, msg, `c.yaml:6: servers.later: "later" is the name of a pack the host serves itself`, "a reserved name: a pack the host registers later")
	assert.Contains(t, msg, `c.yaml:5: servers.fixed: a server named "fixed" is given to the host elsewhere too`)
	assert.NotContains(t, msg, "servers.kid")
	assert.Equal(t, []string{"local.x"}, toolNamesOfPack(reg, "local"), "the host's own pack is untouched")

	require.NoError(t, os.WriteFile(path, []byte("servers: {}\n"), 0o600))
	require.NoError(t, host.Reload(t.Context()))
	assert.Empty(t, proxiedNames(reg, "kid"), "a server the configuration drops is no longer served")
	assert.NotEmpty(t, proxiedNames(reg, "fixed"))
}

func toolNamesOfPack(reg *registry.Registry, pack string) []string {
	var out []string
	for _, t := range reg.ListAll() {
		if t.Pack == pack {
			out = append(out, t.Name)
		}
	}
	return out
}

// Dropping a server while an alias still names one of its tools gets the
// verdict a start with that file gets — refused, the alias named — at
// the reload that drops it, not only at the next one: the dropped
// server's tools, still registered while the reload is checked, counted
// as targets.
func TestHostHook_DroppedServersToolsAreNoAliasTargets(t *testing.T) {
	reg := newRegistry()
	kidURL, _ := httpRemote(t, "kid")
	p := newProxy(t, reg, nil, mcpproxy.Options{})
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	host, err := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: reg})
	require.NoError(t, err)
	host.OnApply("servers", mcpproxy.HostHook(p, nil))

	require.NoError(t, os.WriteFile(path, []byte("servers:\n  kid: {url: \""+kidURL+"\"}\naliases: {say: kid.echo}\n"), 0o600))
	require.NoError(t, host.Reload(t.Context()))
	require.Eventually(t, func() bool { return len(proxiedNames(reg, "kid")) > 0 }, waitBound, 10*time.Millisecond)

	require.NoError(t, os.WriteFile(path, []byte("aliases: {say: kid.echo}\n"), 0o600))
	err = host.Reload(t.Context())
	require.Error(t, err, "the same verdict as a start with this file")
	assert.Contains(t, err.Error(), `c.yaml:1: aliases.say: target "kid.echo" is not a tool`)
	assert.NotEmpty(t, proxiedNames(reg, "kid"), "refused: the server stays")
}

// A server that accepts the connection and never answers does not hold
// up a reload for Options.ConnectTimeout: applying waits HostHookWait at
// most, and the server goes on connecting in the background, shown
// disconnected; the other servers of the reload are served.
func TestHostHook_SilentServerDoesNotHoldUpTheReload(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() }) // accepted, never answered
		}
	}()
	reg := newRegistry()
	kidURL, _ := httpRemote(t, "kid")
	// A connect timeout longer than the test may run: a reload held for
	// it would never return.
	p := newProxy(t, reg, nil, mcpproxy.Options{ConnectTimeout: time.Hour})
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	host, err := hostconfig.NewHost(hostconfig.Options{Path: path, Registry: reg})
	require.NoError(t, err)
	host.OnApply("servers", mcpproxy.HostHook(p, nil))
	require.NoError(t, os.WriteFile(path, []byte("servers:\n  kid: {url: \""+kidURL+"\"}\n  silent: {url: \"http://"+ln.Addr().String()+"/mcp\"}\n"), 0o600))

	require.NoError(t, host.Reload(t.Context()))
	assert.NotEmpty(t, proxiedNames(reg, "kid"), "the server that answers is served")
	assert.Equal(t, mcpproxy.Disconnected, statusOf(t, p, "silent").State)
}

// A host configuration's server entry becomes the Config it describes,
// its inherit_env names (InheritEnv) included.
func TestHostServer_CarriesEveryField(t *testing.T) {
	s := hostconfig.Server{Name: "s", Description: "d", Command: []string{"srv", "-v"}, Env: map[string]string{"K": "v"},
		InheritEnv: []string{"LANG", "HTTP_PROXY"}, Dir: "/work", Secrets: []string{"v"}}
	assert.Equal(t, mcpproxy.Config{Name: "s", Description: "d", Command: []string{"srv", "-v"}, Env: map[string]string{"K": "v"},
		InheritEnv: []string{"LANG", "HTTP_PROXY"}, Dir: "/work", Secrets: []string{"v"}}, mcpproxy.HostServer(s))
	u := hostconfig.Server{Name: "u", URL: "https://x.test/mcp", Headers: map[string]string{"Authorization": "Bearer t"}}
	assert.Equal(t, mcpproxy.Config{Name: "u", URL: "https://x.test/mcp", Headers: map[string]string{"Authorization": "Bearer t"}}, mcpproxy.HostServer(u))
}
