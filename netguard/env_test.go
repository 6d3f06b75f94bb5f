package netguard

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testlog"
)

// Test addresses that stand for the public internet. The fake network
// routes them to the test's loopback server; nothing else but loopback is
// ever dialled.
var (
	publicAddr  = netip.MustParseAddr("198.51.100.7")
	publicAddr2 = netip.MustParseAddr("203.0.113.9")
)

// fakeResolver answers from a table; a name with several answers gives
// them in turn (the last one repeats), which is how rebinding is staged.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	calls   map[string]int
}

func newFakeResolver() *fakeResolver {
	one := func(s ...string) [][]netip.Addr {
		var a []netip.Addr
		for _, v := range s {
			a = append(a, netip.MustParseAddr(v))
		}
		return [][]netip.Addr{a}
	}
	return &fakeResolver{
		calls: map[string]int{},
		answers: map[string][][]netip.Addr{
			"public.example.test":     one(publicAddr.String()),
			"api.example.test":        one(publicAddr.String()),
			"other.example.test":      one(publicAddr2.String()),
			"deep.api.example.test":   one(publicAddr.String()),
			"internal.example.test":   one("10.0.0.1"),
			"metadata.example.test":   one("169.254.169.254"),
			"mapped.example.test":     one("::ffff:127.0.0.1"),
			"mixed.example.test":      one(publicAddr.String(), "10.1.1.1"),
			"nat64.example.test":      one("64:ff9b::a00:1"),
			"ula.example.test":        one("fd12:3456::1"),
			"cgnat.example.test":      one("100.64.1.1"),
			"loop6.example.test":      one("::1"),
			"loopback.example.test":   one("127.0.0.1"),
			"linklocal6.example.test": one("fe80::1"),
			"rebind.example.test": {
				{publicAddr},
				{netip.MustParseAddr("127.0.0.1")},
			},
		},
	}
}

func (r *fakeResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seq, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := r.calls[host]
	r.calls[host]++
	if i >= len(seq) {
		i = len(seq) - 1
	}
	out := make([]net.IPAddr, 0, len(seq[i]))
	for _, a := range seq[i] {
		out = append(out, net.IPAddr{IP: a.AsSlice()})
	}
	return out, nil
}

func (r *fakeResolver) lookups(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// fakeNet replaces the Client's final dial: it records every address the
// guard let through and connects only to loopback — the test addresses
// standing for the public internet are routed to 127.0.0.1 on the same
// port; anything else gets "no route" without touching the network.
type fakeNet struct {
	mu    sync.Mutex
	dials []string
}

func (n *fakeNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dials = append(n.dials, addr)
	n.mu.Unlock()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("fakenet: bad address %q", addr)
	}
	a := ap.Addr()
	switch {
	case a == publicAddr || a == publicAddr2:
		a = netip.MustParseAddr("127.0.0.1")
	case a.Is4() && a.IsLoopback():
	default:
		return nil, fmt.Errorf("fakenet: no route to %s", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, ap.Port()).String())
}

func (n *fakeNet) dialled() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.dials...)
}

// env is a loopback server plus the fake resolver and network.
type env struct {
	srv  *httptest.Server
	port string
	res  *fakeResolver
	net  *fakeNet
}

func newEnv(t *testing.T, h http.Handler) *env {
	t.Helper()
	if h == nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	return &env{srv: srv, port: port, res: newFakeResolver(), net: &fakeNet{}}
}

// client builds a Client on the fake resolver and network.
func (e *env) client(t *testing.T, opts Options) *Client {
	t.Helper()
	opts.Resolver = e.res
	c, err := New(opts)
	require.NoError(t, err)
	c.dial = e.net.dial
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// url replaces {p} with the server's port.
func (e *env) url(s string) string { return strings.ReplaceAll(s, "{p}", e.port) }

func get(t *testing.T, c *Client, rawURL string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(context.Background(), req)
}

// logBuffer captures a Client's slog output.
type logBuffer struct{ testlog.Buffer }

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func mustPrefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(s))
	for _, v := range s {
		out = append(out, netip.MustParsePrefix(v))
	}
	return out
}
