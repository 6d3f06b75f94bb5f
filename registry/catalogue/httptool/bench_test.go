package httptool_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/netguard"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
)

// BenchmarkInvokeVsNetguardDo compares one call of a catalogue http tool
// through Invoker.Invoke (templated path and query, bearer auth, JSON
// decode, extract, output schema) with the same GET sent by hand through a
// netguard.Client (request built by hand, body read and decoded with
// encoding/json), interleaved against one loopback server; "ratio" is
// Invoke over Do.
func BenchmarkInvokeVsNetguardDo(b *testing.B) {
	payload := `{"data":{"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"total":2}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, payload)
	}))
	defer srv.Close()

	inv := newInvoker(b, httptool.Options{Secrets: map[string]string{"TOKEN": "tok"}})
	tool := httpTool(b, catalogue.HTTPRequest{Method: "GET", URLTemplate: srv.URL + "/items/${kind}",
		Query: map[string]string{"q": "${q}"}, Auth: &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}})
	tool.HTTPImpl.Response.Extract = "data"
	tool.HTTPImpl.Limits.MaxRetries = 2
	tool.OutputSchema = json.RawMessage(`{"type":"object","required":["items","total"],"properties":{"items":{"type":"array"},"total":{"type":"integer"}}}`)
	args := json.RawMessage(`{"kind":"books","q":"go lang"}`)

	g, err := netguard.New(netguard.Options{AllowAddrs: loopback, MaxRetries: 2, Secrets: []string{"tok"}})
	if err != nil {
		b.Fatal(err)
	}
	defer g.CloseIdleConnections()
	ctx := context.Background()
	benchtool.Interleave(b,
		func() {
			res, err := inv.Invoke(ctx, tool, args)
			if err != nil || !res.Success {
				b.Fatal(err, res.Error)
			}
		},
		func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/items/books?q=go+lang", nil)
			req.Header.Set("Authorization", "Bearer tok")
			req.Header.Set("Accept", "application/json")
			resp, err := g.Do(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			var v map[string]any
			if err != nil || json.Unmarshal(data, &v) != nil {
				b.Fatal(err)
			}
		})
}
