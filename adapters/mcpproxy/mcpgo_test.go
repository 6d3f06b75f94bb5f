package mcpproxy_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/toolpack-go/toolpack/adapters/mcpgo"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/registry"
)

// mcpgoServed is a server config reaching reg served by mark3labs/mcp-go
// (adapters/mcpgo) over streamable HTTP on 127.0.0.1: a host on that SDK
// is protected in proxy loops as one on the official SDK is (its
// tools/list names the registries a tool came through, and a forwarded
// call's depth and calls left count toward its bounds); mcp-go hosts had
// none of the three.
func mcpgoServed(t *testing.T, name string, reg *registry.Registry) mcpproxy.Config {
	hs := httptest.NewServer(server.NewStreamableHTTPServer(mcpgo.NewServer(reg, mcpgo.Options{Logger: slog.New(slog.DiscardHandler)})))
	t.Cleanup(hs.Close)
	return mcpproxy.Config{Name: name, URL: hs.URL}
}
