package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
)

// The seed's web-fetch server is one command: -stdio -packs web -name
// web-fetch. With -config it also searches through the configured
// gateway; web.fetch reaches the local page only because the
// configuration allows private addresses.
func TestE2E_WebFetchServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/search/web-search":
			if r.Header.Get("Authorization") != "Bearer sk-e2e-search" {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte(`{"results":[{"title":"Lighthouse","url":"https://courier.example/l","snippet":"rebuilt"}]}`))
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<html lang="en"><head><title>Lighthouse rebuilt</title></head><body><article><h1>Lighthouse rebuilt</h1><p>Volunteers in Portwick have finished rebuilding the town's nineteenth-century lighthouse after ten years of fundraising, cake sales and sponsored swims.</p><p>The light will guide the fishing fleet home again from next month.</p></article></body></html>`))
		}
	}))
	defer site.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "web.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("web_fetch:\n  allow_private: true\n  timeout: 10s\nsearch_web:\n  base_url: "+site.URL+"\n  api_key: ${SEARCH_KEY}\n  search_tool: web-search\n"), 0o600))
	cmd := exec.Command(binPath, "-stdio", "-packs", "web", "-name", "web-fetch", "-config", cfgPath)
	cmd.Env = append(serverEnv("http://127.0.0.1:1"), "SEARCH_KEY=sk-e2e-search")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cs, err := newClient().Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Equal(t, "web-fetch", cs.InitializeResult().ServerInfo.Name)

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web.fetch", Arguments: map[string]any{"url": site.URL + "/news"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	var out struct {
		FinalURL  string `json:"final_url"`
		Title     string `json:"title"`
		Lang      string `json:"lang"`
		CleanText string `json:"clean_text"`
	}
	sc, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(sc, &out))
	assert.Equal(t, site.URL+"/news", out.FinalURL)
	assert.Equal(t, "Lighthouse rebuilt", out.Title)
	assert.Equal(t, "en", out.Lang)
	assert.Contains(t, out.CleanText, "Volunteers in Portwick")

	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "web.fetch", Arguments: map[string]any{"url": site.URL + "/missing", "include_raw_html": "yes"}})
	require.NoError(t, err)
	assert.Equal(t, "validation_error", res.Meta[mcpserver.MetaErrorType])

	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "search.web", Arguments: map[string]any{"query": "lighthouse", "max_results": 3}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	sc, _ = json.Marshal(res.StructuredContent)
	assert.JSONEq(t, `{"results":[{"title":"Lighthouse","url":"https://courier.example/l","snippet":"rebuilt","date":null}]}`, string(sc))
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "search.web", Arguments: map[string]any{"query": ""}})
	require.NoError(t, err)
	assert.Equal(t, "invalid_query", res.Meta[mcpserver.MetaErrorType])
	require.NoError(t, cs.Close())
	assert.NotContains(t, stderr.String(), "sk-e2e-search")
}

// web_fetch.allow_addrs opens chosen non-public addresses only: the
// configured 127.0.0.1 is fetched, while another loopback address and the
// cloud metadata address stay refused (allow_private would open both).
func TestE2E_WebFetchAllowAddrs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<html><head><title>Intranet</title></head><body><p>Canteen closes at three today.</p></body></html>`))
	}))
	defer site.Close()
	cfgPath := filepath.Join(t.TempDir(), "web.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("web_fetch:\n  allow_addrs: [127.0.0.1/32]\n  timeout: 10s\n"), 0o600))
	cmd := exec.Command(binPath, "-stdio", "-packs", "web", "-config", cfgPath)
	cmd.Env = serverEnv("http://127.0.0.1:1")
	cmd.Stderr = &syncBuffer{}
	cs, err := newClient().Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	require.NoError(t, err)
	defer cs.Close()

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web.fetch", Arguments: map[string]any{"url": site.URL + "/today"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	sc, _ := json.Marshal(res.StructuredContent)
	assert.Contains(t, string(sc), "Canteen closes at three today.")

	other := "http://127.0.0.2:" + site.URL[len("http://127.0.0.1:"):] + "/today"
	for _, u := range []string{other, "http://169.254.169.254/latest/meta-data/"} {
		res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "web.fetch", Arguments: map[string]any{"url": u}})
		require.NoError(t, err)
		require.True(t, res.IsError, u)
		text := res.Content[0].(*sdk.TextContent).Text
		assert.Contains(t, text, "the destination is refused: non-public address", u)
	}
}
