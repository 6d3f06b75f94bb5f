package mcpserver_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/internal/benchtool"
)

// BenchmarkHTTPToolsCall measures a raw tools/call POST on an open session
// through HTTPHandler (params check, session cap) against the SDK's own
// streamable handler for the same server, interleaved in one run ("ratio" =
// median HTTPHandler / median SDK handler).
func BenchmarkHTTPToolsCall(b *testing.B) {
	srv := mcpserver.NewServer(newTestRegistry(b), mcpserver.Options{Logger: discardLogger()})
	ours := httptest.NewServer(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{Logger: discardLogger()}))
	defer ours.Close()
	bare := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer bare.Close()
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stats","arguments":{"values":[1,2,3]}}}`
	post := func(url, session string) func() {
		return func() {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(call))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `\"sum\":6`) {
				b.Fatalf("%d %s", resp.StatusCode, body)
			}
		}
	}
	benchtool.Interleave(b, post(ours.URL, initSession(b, ours.URL)), post(bare.URL, initSession(b, bare.URL)))
}
