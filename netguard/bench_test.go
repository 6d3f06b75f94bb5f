package netguard_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/netguard"
)

// BenchmarkGuardedVsPlain compares one GET (read and close a 1 KiB body)
// through the guarded Client.Do with the same GET through a plain
// http.Client, interleaved against one loopback server; "ratio" is guarded
// over plain. keepalive reuses connections (the per-request checks);
// newconn dials every time (adds the dial-time resolution and checks).
func BenchmarkGuardedVsPlain(b *testing.B) {
	payload := make([]byte, 1024)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(payload)
	}))
	defer srv.Close()

	for _, newConn := range []bool{false, true} {
		name := map[bool]string{false: "keepalive", true: "newconn"}[newConn]
		b.Run(name, func(b *testing.B) {
			g, err := netguard.New(netguard.Options{AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, MaxRetries: 2})
			if err != nil {
				b.Fatal(err)
			}
			defer g.CloseIdleConnections()
			plainT := &http.Transport{}
			defer plainT.CloseIdleConnections()
			plain := &http.Client{Transport: plainT}
			ctx := context.Background()
			call := func(do func(*http.Request) (*http.Response, error), closeIdle func()) {
				req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x?q=1", nil)
				resp, err := do(req)
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, resp.Body); err != nil || n != 1024 {
					b.Fatal(fmt.Sprint(n, err))
				}
				resp.Body.Close()
				if newConn {
					closeIdle()
				}
			}
			benchtool.Interleave(b,
				func() {
					call(func(r *http.Request) (*http.Response, error) { return g.Do(ctx, r) }, g.CloseIdleConnections)
				},
				func() { call(plain.Do, plainT.CloseIdleConnections) })
		})
	}
}
