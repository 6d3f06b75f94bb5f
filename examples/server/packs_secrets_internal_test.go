package main

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// The values the -config file's ${VAR}s put in transcript.base_url and
// search_web.base_url (a token in the path or the query) reach the packs
// as secrets: the warnings logged when the endpoint cannot be reached
// never show them.
func TestConfigPacks_URLSecretsNotLogged(t *testing.T) {
	const pw = "S3CR3T-path-token"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // a closed port: the call fails and is logged
	path := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`transcript: {base_url: "http://`+addr+`/${PW}/v1?key=${PW}", api_key: "${PW}X", model: m}
search_web: {base_url: "http://`+addr+`/${PW}?key=${PW}", search_tool: s}
`), 0o600))
	cfg, err := hostconfig.Load(path, hostconfig.LoadOptions{LookupEnv: func(n string) (string, bool) { return pw, n == "PW" }})
	require.NoError(t, err)

	var logs testlog.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	reg := registry.New(registry.Options{Logger: slog.New(slog.DiscardHandler)})
	for _, build := range []func(*hostconfig.Config, *slog.Logger) (*registry.Pack, error){newTranscript, newWeb} {
		p, err := build(cfg, log)
		require.NoError(t, err)
		require.NoError(t, reg.AddPack(p))
	}
	for tool, args := range map[string]string{"transcript.clean": `{"text":"hello"}`, "search.web": `{"query":"go"}`} {
		r, err := reg.Invoke(context.Background(), tool, []byte(args))
		require.NoError(t, err)
		assert.False(t, r.Success, tool)
		assert.NotContains(t, r.Error, pw, tool)
	}
	assert.Contains(t, logs.String(), "transcript: model endpoint")
	assert.Contains(t, logs.String(), "web: search gateway")
	assert.NotContains(t, logs.String(), pw)
}
